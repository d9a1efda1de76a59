"""Every rule system end to end through the arena (RULES.md table of rulesets; §7 for
two players, §6.3 litige for all-trumps): a duplicate round robin of ``random`` and
``heuristic`` finishes, is stored per ruleset, and rates the heuristic above random."""

from __future__ import annotations

import json

import pytest

from .conftest import SAMPLES, cli, output

BOARDS = 12


@pytest.mark.parametrize("ruleset", ["classic", "strict", "all-trumps", "two-player"])
def test_round_robin_under_each_ruleset(tmp_path, ruleset):
    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", f"rr-{ruleset}", "--ruleset", ruleset, "--boards", BOARDS, "--seed", 5,
            "--workers", 2, "--bots", SAMPLES / "random", "--bots", SAMPLES / "heuristic", "--db", db)
    assert r.exit_code == 0, output(r)
    assert f"{BOARDS} board pairs played now" in output(r)

    r = cli("ratings", "--ruleset", ruleset, "--json", "--db", db)  # ratings are kept per ruleset
    assert r.exit_code == 0, output(r)
    ratings = {o["name"]: o for o in json.loads(r.stdout)}
    assert set(ratings) == {"random", "heuristic"}
    assert ratings["heuristic"]["elo"] > ratings["random"]["elo"]
    assert ratings["heuristic"]["wins"] > ratings["heuristic"]["losses"]
    assert all(o["boards"] == BOARDS for o in ratings.values())

    other = "classic" if ruleset != "classic" else "strict"
    r = cli("ratings", "--ruleset", other, "--json", "--db", db)
    assert r.exit_code == 0 and json.loads(r.stdout) == []  # nothing leaks into another ruleset's list

    r = cli("matches", "--json", "--db", db)
    (match,) = json.loads(r.stdout)
    assert match["ruleset"] == ruleset and match["boards"] == BOARDS and match["faults"] == 0
    r = cli("log", match["match_id"], "--board", 0, "--json", "--db", db)
    tables = json.loads(r.stdout)
    assert [t["table"] for t in tables] == [1, 2]
    assert all(t["record"]["ruleset"] == ruleset for t in tables)
