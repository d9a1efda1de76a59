"""The Node.js and C++ starter bots (sample_bots/node, sample_bots/cpp) in tournaments, sandboxed
(issue 24 item 1), through the real CLI: each is submitted (its conformance check), then plays
every ruleset, with the options on and off, against the Python sample bots (all three in
classic with contree on, heuristic in the others); every match completes without a fault or
forfeit, and every deal record replays legally by the rules engine. A missing toolchain fails
these tests, saying how to install it (tests/toolchains.py)."""

from __future__ import annotations

import json

import pytest

from referee.rules import parse_record, replay
from tests.toolchains import starter

from .conftest import cli, output

BOARDS = 3
#: (ruleset, options, opponents): every ruleset, and each option both ways; the first against
#: all three Python samples, the others against the strongest (a match costs its bots' start-ups)
GAMES = [("classic", ["contree=on"], ["random", "greedy", "heuristic"]), ("strict", ["declarations=off"], ["heuristic"]),
         ("all-trumps", [], ["heuristic"]), ("two-player", [], ["heuristic"])]


@pytest.mark.parametrize("lang", ["node", "cpp"])
def test_a_starter_plays_every_ruleset_against_the_python_samples(tmp_path, lang):
    """Submitted once (the conformance check, in the sandbox), then a gauntlet per ruleset."""
    folder = starter(lang)
    key = f"starter-{lang}@1.0.0"
    db = tmp_path / "a.duckdb"
    r = cli("bots", "submit", folder, "--db", db)
    assert r.exit_code == 0 and f"registered {key}" in r.stdout, output(r)
    for ruleset, options, opponents in GAMES:
        name, records = f"g-{ruleset}", tmp_path / f"{ruleset}.jsonl"
        r = cli("tournament", "run", name, "--gauntlet", key, *[a for o in opponents for a in ("--bots", o)],
                "--ruleset", ruleset, *[a for o in options for a in ("--option", o)],
                "--boards", BOARDS, "--seed", 11, "--records", records, "--db", db)
        assert r.exit_code == 0, output(r)
        assert f"{len(opponents) * BOARDS} board pairs played now, 0 already stored, 0 faults" in output(r), output(r)

        matches = json.loads(cli("matches", "--tournament", name, "--json", "--db", db).stdout)
        assert sorted(m["entrant_b"]["name"] for m in matches) == sorted(opponents), ruleset
        for m in matches:
            assert f"{m['entrant_a']['name']}@{m['entrant_a']['version']}" == key
            assert m["ruleset"] == ruleset and m["boards"] == BOARDS
            assert m["faults"] == 0 and m["forfeits_a"] == m["forfeits_b"] == 0, m

        lines = [json.loads(x) for x in records.read_text().splitlines()]
        assert len(lines) == len(opponents) * BOARDS * 2, ruleset  # every board at both tables
        kinds: set[str] = set()
        for line in lines:
            record = line["record"]
            assert record["ruleset"] == ruleset
            replay(parse_record(record))  # every action legal by the rules (RecordError otherwise)
            team = 0 if line["ns"] == key else 1
            assert team == 0 or line["ew"] == key
            kinds |= {k for a in record["actions"] if a["seat"] % 2 == team for k in a if k != "seat"}
        assert {"bid", "card"} <= kinds, (ruleset, kinds)  # it bid and played in the deals recorded
