"""The README's SQL runs on an export (issue 20, item 5): `arena export` writes the
views' rows and load.sql, and the ratings per tournament."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.store import Store, match_id
from referee.rules import get_ruleset, make_board

from .test_store import A, B, C, make_result

ROOT = Path(__file__).resolve().parents[2]


def readme_sql() -> list[str]:
    """The statements of the README's SQL block (section "Results in SQL")."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"### Results in SQL.*?```sql\n(.*?)```", text, re.S).group(1)
    body = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("--"))
    return [q.strip() for q in body.split(";") if q.strip()]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Two tournaments: 'club' (contrée on, a, b, c) and 'other' (a, b)."""
    path = tmp_path / "arena.duckdb"
    rng = random.Random(5)
    with Store.open(path) as store:
        for name, rs, entrants in (("club", get_ruleset("classic", contree=True), (A, B, C)),
                                   ("other", get_ruleset("classic"), (A, B))):
            store.create_tournament(name, rs.name, rs.options(), 11, 3, list(entrants), secret=False)
            store.add_boards(name, [make_board(11, k) for k in range(3)])
            results = []
            for i, x in enumerate(entrants):
                for y in entrants[i + 1:]:
                    mid = match_id(name, x, y)
                    store.add_match(name, mid, x, y)
                    results += [(mid, make_result(rs, k, x, y, rng, fault=k == 2)) for k in range(3)]
            store.write_board_pairs(name, results)
    return path


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_the_readmes_sql_runs_on_an_export_as_on_the_database(db: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "export"
    result = CliRunner().invoke(app, ["export", "--format", fmt, "--out", str(out), "--db", str(db)])
    assert result.exit_code == 0, result.output
    for name in ("entrant_board_pairs", "entrant_actions", "ratings", "rating_history"):
        assert (out / f"{name}.{fmt}").exists(), name
    queries = readme_sql()
    assert len(queries) == 2
    # the README's words for the contrée calls: table contree_calls, its call in `value`
    queries.append("SELECT seat, value, count(*) FROM contree_calls GROUP BY ALL ORDER BY ALL")
    exported = duckdb.connect()
    exported.execute((out / "load.sql").read_text())
    stored = duckdb.connect(str(db), read_only=True)
    try:
        for q in queries:
            want = stored.sql(q).fetchall()
            assert want, q  # every query has rows here
            got = exported.sql(q).fetchall()
            assert [tuple(map(_plain, r)) for r in got] == [tuple(map(_plain, r)) for r in want], q
        # board pairs per entrant in 'club': 2 opponents × 3 boards, 6 for each of a, b, c
        counts = exported.sql("SELECT entrant, count(*) FROM entrant_board_pairs WHERE tournament = 'club' "
                              "GROUP BY ALL ORDER BY ALL").fetchall()
        assert counts == [(A, 6), (B, 6), (C, 6)]
        assert exported.execute("SELECT count(*) FROM contree_calls").fetchone()[0] == \
            stored.execute("SELECT count(*) FROM contree_calls").fetchone()[0] > 0
    finally:
        stored.close()


def _plain(x):
    """Float values compared to 1e-9 (JSON lines round-trips doubles as text)."""
    return round(x, 9) if isinstance(x, float) else x


def test_ratings_are_exported_per_tournament(db: Path, tmp_path: Path) -> None:
    """ratings.jsonl: one block per tournament (its own ratings, as `arena ratings
    --tournament`) and one per ruleset and options (tournament null)."""
    out = tmp_path / "export"
    assert CliRunner().invoke(app, ["export", "--format", "jsonl", "--out", str(out), "--db", str(db)]).exit_code == 0
    rows = [json.loads(line) for line in (out / "ratings.jsonl").read_text().splitlines()]
    scopes = sorted({(r["tournament"], r["variant_options"]) for r in rows}, key=str)
    assert scopes == sorted([("club", '{"contree": "on", "declarations": "on"}'),
                             ("other", '{"contree": "off", "declarations": "on"}'),
                             (None, '{"contree": "on", "declarations": "on"}'),
                             (None, '{"contree": "off", "declarations": "on"}')], key=str)
    for name in ("club", "other"):
        cli = json.loads(CliRunner().invoke(app, ["ratings", "--tournament", name, "--json", "--db", str(db)]).stdout)
        mine = [r for r in rows if r["tournament"] == name]
        assert [(r["entrant"], r["elo"], r["board_pairs"]) for r in mine] == \
            [(f"{c['name']}@{c['version']}", c["elo"] if c["elo"] is None else pytest.approx(c["elo"], abs=0.05),
              c["boards"]) for c in cli]
    # 'other' alone is also the only tournament of its options: the same ratings
    other = [(r["entrant"], r["elo"]) for r in rows if r["tournament"] == "other"]
    assert other == [(r["entrant"], r["elo"]) for r in rows
                     if r["tournament"] is None and r["variant_options"] == '{"contree": "off", "declarations": "on"}']
    history = [json.loads(line) for line in (out / "rating_history.jsonl").read_text().splitlines()]
    assert {r["tournament"] for r in history} == {"club", "other", None}
