"""Resuming a tournament whose entrants also played another tournament in the same
database (issue 20, item 23): what is stored is counted per tournament, never across."""

from __future__ import annotations

import re
import threading

from arena.play import tournament as tour
from arena.store import Store
from referee.rules import get_ruleset

from .conftest import SAMPLES, cli, output

BOARDS = 40


def counts(db) -> dict[str, int]:
    with Store.open(db, read_only=True) as s:
        return {t.name: t.board_pairs for t in s.list_tournaments()}


def test_resume_counts_only_the_tournaments_own_board_pairs(tmp_path):
    """`club` (random v greedy, 40 boards) is complete; `league`, the same two entrants, is
    stopped after its first stored batch and resumed: the resume plays exactly the board
    pairs `league` lacks and says so — `club`'s 40 (same entrants, same board numbers) are
    neither counted nor skipped."""
    db = tmp_path / "arena.duckdb"
    bots = ["--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy"]
    r = cli("tournament", "run", "club", *bots, "--boards", BOARDS, "--seed", 3, "--db", db)
    assert r.exit_code == 0, output(r)
    assert counts(db) == {"club": BOARDS}
    with Store.open(db) as store:
        rs = get_ruleset("classic")
        entrants = store.get_tournament("club").entrants
        store.create_tournament("league", rs.name, rs.options(), 5, BOARDS, [tuple(e.split("@")) for e in entrants])
        stop = threading.Event()
        summary = tour.run(store, "league", on_progress=lambda done, total: stop.set(), stop=stop)
    stored = counts(db)["league"]
    assert summary.already == 0 and summary.played == stored and 0 < stored <= BOARDS
    r = cli("tournament", "run", "league", *bots, "--boards", BOARDS, "--seed", 5, "--db", db)
    assert r.exit_code == 0, output(r)
    said = re.search(r"(\d+) board pairs played now, (\d+) already stored", output(r))
    assert said and (int(said[1]), int(said[2])) == (BOARDS - stored, stored), output(r)
    assert counts(db) == {"club": BOARDS, "league": BOARDS}
    with Store.open(db, read_only=True) as s:
        assert {t.name: t.status for t in s.list_tournaments()} == {"club": "complete", "league": "complete"}
        assert s.stored_counts("league") == {m.match_id: BOARDS for m in s.matches(tournament="league")}
        assert len(s.done_keys("league")) == len(s.done_keys("club")) == BOARDS
