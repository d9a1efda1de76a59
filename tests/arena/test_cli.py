"""End to end through ``arena`` (typer CliRunner): a 3-entrant round robin, reports, rerun, a new entrant."""

from __future__ import annotations

import json

import duckdb
import pytest
from typer.testing import CliRunner

from arena.cli import app

from .conftest import BOTS3, SAMPLES, cli, copy_bot, output

BOARDS = 3
NAME = "club"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished 3-entrant, 3-board tournament in a private database."""
    root = tmp_path_factory.mktemp("cli")
    db = root / "arena.duckdb"
    args = ["tournament", "run", NAME]
    for b in BOTS3:
        args += ["--bots", b]
    r = cli(*args, "--boards", BOARDS, "--seed", 7, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "9 board pairs played now, 0 already stored" in r.stdout
    return root, db


def test_ratings_json(played):
    _, db = played
    r = cli("ratings", "--tournament", NAME, "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    rows = json.loads(r.stdout)
    assert sorted(o["name"] for o in rows) == ["greedy", "heuristic", "random"]
    for o in rows:
        for k in ("name", "version", "elo", "ci_low", "ci_high", "boards", "wins", "draws", "losses"):
            assert k in o
        assert o["version"] == "1.0.0"
        assert o["boards"] == 2 * BOARDS
        assert o["wins"] + o["draws"] + o["losses"] == o["boards"]
        # an entrant that won (lost) every board pair has a one-sided interval: no upper (lower) end
        if o["bound"] == "lower":
            assert o["ci_high"] is None and o["ci_low"] <= o["elo"]
        elif o["bound"] == "upper":
            assert o["ci_low"] is None and o["elo"] <= o["ci_high"]
        else:
            assert o["ci_low"] <= o["elo"] <= o["ci_high"]
    assert sum(o["wins"] for o in rows) == sum(o["losses"] for o in rows)
    assert abs(sum(o["elo"] for o in rows) / 3 - 1500) < 1


def test_head_to_head_and_matches(played):
    _, db = played
    r = cli("ratings", "--tournament", NAME, "--head-to-head", "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    pairs = json.loads(r.stdout)
    assert len(pairs) == 3
    for h in pairs:
        assert h["boards"] == BOARDS and h["wins"] + h["draws"] + h["losses"] == BOARDS
    r = cli("ratings", "--tournament", NAME, "--head-to-head", "--db", db)
    assert r.exit_code == 0, output(r)
    assert "head to head" in r.stdout
    r = cli("matches", "--tournament", NAME, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "W-D-L A" in r.stdout and "margin A/board" in r.stdout


def test_matches_count_what_ratings_count(played):
    """Issue 14 item 10: the W-D-L of `arena matches` (board_pairs.outcome_a) adds up to each
    entrant's W-D-L in `arena ratings`; entrants are {name, version} in every JSON listing."""
    _, db = played
    ms = json.loads(cli("matches", "--tournament", NAME, "--json", "--db", db).stdout)
    rated = {o["name"]: o for o in json.loads(cli("ratings", "--tournament", NAME, "--json", "--db", db).stdout)}
    assert len(ms) == 3
    for name, o in rated.items():
        wdl = [0, 0, 0]
        for m in ms:
            assert set(m["entrant_a"]) == {"name", "version"}
            mine = [m["wins_a"], m["draws"], m["losses_a"]]
            if m["entrant_a"]["name"] == name:
                wdl = [x + y for x, y in zip(wdl, mine)]
            elif m["entrant_b"]["name"] == name:
                wdl = [x + y for x, y in zip(wdl, mine[::-1])]
        assert wdl == [o["wins"], o["draws"], o["losses"]], name
    for m in ms:
        assert m["mean_margin"] == round(m["total_margin"] / m["boards"], 1)
    listed = json.loads(cli("tournament", "list", "--json", "--db", db).stdout)
    assert listed[0]["entrants"][0] == {"name": "random", "version": "1.0.0"}
    bots = json.loads(cli("bots", "list", "--json", "--db", db).stdout)
    assert sorted(b["name"] for b in bots) == ["greedy", "heuristic", "random"]


def test_log_board_json(played):
    _, db = played
    mid = f"{NAME}/greedy@1.0.0~heuristic@1.0.0"
    with duckdb.connect(str(db), read_only=True) as con:
        ids = [m for (m,) in con.execute("SELECT match_id FROM matches ORDER BY 1").fetchall()]
    assert len(ids) == 3
    mid = ids[0]
    r = cli("log", mid, "--board", 0, "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    tables = json.loads(r.stdout)
    assert [(t["board"], t["table"]) for t in tables] == [(0, 1), (0, 2)]
    assert tables[0]["ns"] == tables[1]["ew"] and tables[0]["ew"] == tables[1]["ns"]
    r = cli("log", mid, "--board", 0, "--db", db)
    assert r.exit_code == 0, output(r)
    r = cli("log", f"{NAME}/nobody~else", "--db", db)
    assert r.exit_code != 0 and "Traceback" not in output(r)


def test_export_jsonl(played, tmp_path):
    _, db = played
    out = tmp_path / "export"
    r = cli("export", "--format", "jsonl", "--out", out, "--db", db)
    assert r.exit_code == 0, output(r)
    files = sorted(p.name for p in out.iterdir())
    for table in ("bots", "tournaments", "matches", "board_pairs", "deals", "actions"):
        assert f"{table}.jsonl" in files
    lines = (out / "board_pairs.jsonl").read_text().splitlines()
    assert len(lines) == 3 * BOARDS
    json.loads(lines[0])


def test_bots_list_and_tournament_list(played):
    _, db = played
    r = cli("bots", "list", "--db", db)
    assert r.exit_code == 0, output(r)
    for n in ("random", "greedy", "heuristic"):
        assert n in r.stdout
    r = cli("tournament", "list", "--db", db)
    assert r.exit_code == 0, output(r)
    assert NAME in r.stdout and "complete" in r.stdout


def test_readme_sql_counts_what_ratings_count(played):
    """The README's SQL (section "Results in SQL") runs, and its W-D-L per entrant equals `arena ratings`."""
    from .conftest import REPO

    _, db = played
    text = (REPO / "README.md").read_text()
    block = text[text.index("```sql") + 6:text.index("```", text.index("```sql") + 6)]
    wdl_sql, slow_sql = [q for q in block.split(";") if q.strip()]
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(wdl_sql).fetchall()
        slowest = con.execute(slow_sql).fetchall()
    rated = {o["name"] + "@" + o["version"]: o
             for o in json.loads(cli("ratings", "--tournament", NAME, "--json", "--db", db).stdout)}
    for key, o in rated.items():
        mine = [r for r in rows if r[0] == key]
        assert len(mine) == len(rated) - 1
        assert [sum(r[i] for r in mine) for i in (3, 4, 5)] == [o["wins"], o["draws"], o["losses"]]
    assert {r[0] for r in slowest} == set(rated)


def test_commands_chain(played, tmp_path):
    """Issue 14 item 12: `arena log --json` replays with `arena replay` (a list, a file or
    standard input) to the stored scores; `arena log` takes a short match form when it
    names one match; suggested commands are shell-quoted."""
    _, db = played
    r = cli("log", "greedy~random@1.0.0", "--json", "--db", db)  # either order, a name without its version
    assert r.exit_code == 0, output(r)
    tables = json.loads(r.stdout)
    assert len(tables) == 2 * BOARDS and {t["ns"] for t in tables} == {"random@1.0.0", "greedy@1.0.0"}
    with duckdb.connect(str(db), read_only=True) as con:
        want = con.execute("SELECT score_ns, score_ew FROM deals WHERE match_id = ? ORDER BY board, table_no",
                           [f"{NAME}/random@1.0.0~greedy@1.0.0"]).fetchall()
    path = tmp_path / "log.json"
    path.write_text(r.stdout)
    for args, stdin in ((["replay", path, "--json"], None), (["replay", "-", "--json"], r.stdout)):
        rr = CliRunner().invoke(app, [str(a) for a in args], input=stdin)
        assert rr.exit_code == 0, rr.output
        got = json.loads(rr.stdout)
        assert [tuple(o["score"]) for o in got] == want
    one = tmp_path / "one.json"
    one.write_text(json.dumps(tables[0]))
    r1 = cli("replay", one, "--json")
    assert r1.exit_code == 0 and tuple(json.loads(r1.stdout)["score"]) == want[0], output(r1)

    bad = json.loads(r.stdout)
    bad[1]["record"]["actions"][0]["seat"] = (bad[1]["record"]["actions"][0]["seat"] + 1) % 4
    path.write_text(json.dumps(bad))
    r2 = cli("replay", path)
    assert r2.exit_code == 2 and "record 1 (board 0 table 2)" in r2.stderr, output(r2)

    r3 = cli("log", f"{NAME}/random@1.0.0~heuristic", "--board", 1, "--db", db)
    assert r3.exit_code == 0 and "board 1 table 2" in r3.stdout, output(r3)
    r4 = cli("log", "random@9~greedy", "--db", db)
    assert r4.exit_code == 1 and "there is no match 'random@9~greedy'" in r4.stderr, output(r4)


def test_suggested_commands_are_shell_quoted(tmp_path):
    db = tmp_path / "my results" / "arena.duckdb"
    r = cli("tournament", "run", "my club", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--boards", 1,
            "--seed", 2, "--db", db)
    assert r.exit_code == 0, output(r)
    assert f"See: arena ratings --tournament 'my club' --db '{db}'" in r.stdout.replace("\n", "")


def test_a_remote_entrant_is_labelled_by_its_bot_name():
    """`arena match --bot host:port` shows the remote bot as name@version (host:port), from its GetBotInfo."""
    from belote_arena_sdk import Bot, start_server

    class Remote(Bot):
        name, version, author, rulesets = "faraway", "3.1", "tests", ("classic",)

        def decide(self, request):
            return request.legal_actions[0]

    server, target = start_server(Remote(), "127.0.0.1:0")
    try:
        r = cli("match", "--bot", target, "--bot", SAMPLES / "random", "--boards", 1, "--seed", 3)
    finally:
        server.stop(None).wait()
    assert r.exit_code == 0, output(r)
    assert f"faraway@3.1 ({target})" in r.stdout


def test_head_to_head_shows_each_pair_as_matches_does(played):
    """Issue 14 item 11: the same pair in the same order (A entered first), with the same W-D-L,
    in `arena matches` and `arena ratings --head-to-head`."""
    _, db = played
    ms = json.loads(cli("matches", "--tournament", NAME, "--json", "--db", db).stdout)
    h2h = json.loads(cli("ratings", "--tournament", NAME, "--head-to-head", "--json", "--db", db).stdout)
    key = lambda e: f"{e['name']}@{e['version']}"  # noqa: E731
    want = [(key(m["entrant_a"]), key(m["entrant_b"]), m["wins_a"], m["draws"], m["losses_a"]) for m in ms]
    got = [(h["a"], h["b"], h["wins"], h["draws"], h["losses"]) for h in h2h]
    assert sorted(got) == sorted(want)


def test_rerun_then_new_entrant(played, tmp_path):
    """Runs last in this module (it changes the tournament): rerun plays nothing; a 4th entrant plays 3 pairs."""
    _, db = played
    r = cli("tournament", "run", NAME, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "0 board pairs played now, 9 already stored" in r.stdout
    r = cli("tournament", "run", NAME, "--boards", 5, "--db", db)
    assert r.exit_code != 0 and "--boards" in output(r) and "Traceback" not in output(r)

    new = copy_bot(SAMPLES / "random", tmp_path / "random2", "2.0.0")
    r = cli("bots", "submit", new, "--tournament", NAME, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "registered" in r.stdout and "random@2.0.0" in r.stdout
    r = cli("bots", "submit", new, "--tournament", NAME, "--db", db)  # same content: accepted, not re-registered
    assert r.exit_code == 0, output(r)
    assert "already registered" in r.stdout

    r = cli("tournament", "run", NAME, "--db", db)
    assert r.exit_code == 0, output(r)
    assert f"{3 * BOARDS} board pairs played now, {3 * BOARDS} already stored" in r.stdout
    r = cli("ratings", "--tournament", NAME, "--json", "--db", db)
    rows = json.loads(r.stdout)
    assert len(rows) == 4 and all(o["boards"] == 3 * BOARDS for o in rows)

    # the same name and version with other content is refused
    (new / "bot.py").write_text((new / "bot.py").read_text() + "\n# changed\n")
    r = cli("bots", "submit", new, "--db", db)
    text = output(r)
    assert r.exit_code != 0 and "already registered with different content" in text and "Traceback" not in text
