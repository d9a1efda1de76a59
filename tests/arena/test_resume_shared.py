"""Resuming a tournament whose entrants also played another tournament in the same
database (issue 20, item 23): what is stored is counted per tournament, never across."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

from arena.play import tournament as tour
from arena.store import Store
from referee.rules import get_ruleset

from .conftest import SAMPLES

BOARDS = 40
ARENA = str(Path(sys.executable).with_name("arena"))


def arena(*args) -> subprocess.CompletedProcess:
    """`arena ARGS` in a process of its own (whatever else this test session runs in-process)."""
    return subprocess.run([ARENA, *map(str, args)], capture_output=True, text=True, timeout=600)


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
    r = arena("tournament", "run", "club", *bots, "--boards", BOARDS, "--seed", 3, "--db", db)
    assert r.returncode == 0, r.stdout + r.stderr
    assert counts(db) == {"club": BOARDS}
    with Store.open(db) as store:
        rs = get_ruleset("classic")
        entrants = store.get_tournament("club").entrants
        store.create_tournament("league", rs.name, rs.options(), 5, BOARDS, [tuple(e.split("@")) for e in entrants])
        stop = threading.Event()
        summary = tour.run(store, "league", on_progress=lambda done, total: stop.set(), stop=stop)
    stored = counts(db)["league"]
    assert summary.already == 0 and summary.played == stored and 0 < stored <= BOARDS
    r = arena("tournament", "run", "league", *bots, "--boards", BOARDS, "--seed", 5, "--db", db)
    assert r.returncode == 0, r.stdout + r.stderr
    said = re.search(r"(\d+) board pairs played now, (\d+) already stored", r.stdout + r.stderr)
    assert said and (int(said[1]), int(said[2])) == (BOARDS - stored, stored), r.stdout + r.stderr
    assert counts(db) == {"club": BOARDS, "league": BOARDS}
    with Store.open(db, read_only=True) as s:
        assert {t.name: t.status for t in s.list_tournaments()} == {"club": "complete", "league": "complete"}
        assert s.stored_counts("league") == {m.match_id: BOARDS for m in s.matches(tournament="league")}
        assert len(s.done_keys("league")) == len(s.done_keys("club")) == BOARDS
