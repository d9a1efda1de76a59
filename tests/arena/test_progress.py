"""What a run shows while it plays (issue 20, the new-user trial): the tables played inside a
block before it is stored, a speed in one unit for the whole run, an ETA from this run's own
speed, and plain lines where the output is no terminal (a log, CI) — for
`arena tournament run` and `arena match`."""

from __future__ import annotations

import re

import pytest

from arena.play import tournament
from arena.play.submit import submit
from arena.store import Store
from referee.rules import get_ruleset

from .conftest import SAMPLES, cli, output


@pytest.mark.parametrize("workers", [1, 2], ids=["thread", "processes"])
def test_the_tables_of_a_block_are_counted_before_it_is_stored(tmp_path, workers):
    """One match of 6 boards, one block: its 12 tables (6 boards at each table) are counted
    one by one while nothing is stored, and counted out once its board pairs are."""
    db = tmp_path / "a.duckdb"
    events: list[tuple[str, int]] = []
    with Store.open(db) as store:
        rs = get_ruleset("classic")
        store.create_tournament("p", rs.name, rs.options(), 5, 6)
        for bot in (SAMPLES / "random", SAMPLES / "greedy"):
            submit(store, bot, store_root=tmp_path / "bots", tournament="p")
        s = tournament.run(store, "p", workers=workers,
                           on_progress=lambda done, total: events.append(("stored", done)),
                           on_tables=lambda n: events.append(("tables", n)))
    assert not s.errors and s.played == 6
    first_store = next(i for i, (kind, _) in enumerate(events) if kind == "stored")
    before = [n for kind, n in events[:first_store] if kind == "tables"]
    counted, out = before[:-1], before[-1]
    assert counted == sorted(counted) and counted[-1] == 12, repr(events)  # 6 boards × 2 tables, one by one
    assert out == 0 and events[-1] == ("stored", 6), repr(events)  # counted out as the block is stored


def test_a_run_without_a_terminal_prints_plain_lines_with_one_unit_and_an_eta(tmp_path, monkeypatch):
    """Output to a file (CliRunner: no terminal): "board pairs N/T RATE/UNIT ETA H:MM:SS"
    lines, the unit the same on every line; `arena match` likewise says "tables k/N"."""
    import arena.cli.tournament as cli_tournament
    import arena.play.matchview as matchview

    monkeypatch.setattr(cli_tournament, "PLAIN_EVERY_S", 0.0)  # a line at every update
    monkeypatch.setattr(matchview, "PLAIN_EVERY_S", 0.0)
    r = cli("tournament", "run", "p", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
            "--boards", 6, "--db", tmp_path / "a.duckdb")
    assert r.exit_code == 0, output(r)
    lines = re.findall(r"^board pairs (\d+)/(\d+) (\S+)/(s|min|h) ETA (\d+:\d\d:\d\d)$", r.stdout, re.M)
    assert lines, output(r)
    assert {total for _, total, *_ in lines} == {"6"}
    assert len({unit for *_, unit, _ in lines}) == 1  # one unit for the run
    assert lines[-1][0] == "6" and lines[-1][4] == "0:00:00"

    r = cli("match", "--bot", "random", "--bot", "greedy", "--boards", 3)
    assert r.exit_code == 0, output(r)
    counts = [int(k) for k in re.findall(r"^tables (\d+)/6 ", r.stdout, re.M)]
    assert counts == [1, 2, 3, 4, 5, 6], output(r)
