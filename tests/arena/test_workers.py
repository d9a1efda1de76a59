"""`--workers`: a match is cut into runs of boards played at once when there are fewer
matches than workers; the results are the same as with one worker (bots reseed per deal)."""

from __future__ import annotations

import duckdb

from .conftest import SAMPLES, cli, output


def _rows(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return (
            con.sql("SELECT board, points_a, points_b, margin, forfeit_a, forfeit_b FROM board_pairs ORDER BY ALL").fetchall(),
            con.sql("SELECT board, table_no, idx, seat, kind, value FROM actions ORDER BY ALL").fetchall(),
        )
    finally:
        con.close()


def test_workers_give_the_results_of_one_worker(tmp_path):
    got = []
    for workers in (1, 3):
        db = tmp_path / f"w{workers}" / "a.duckdb"
        r = cli("tournament", "run", "w", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
                "--boards", 6, "--seed", 9, "--workers", workers, "--db", db)
        assert r.exit_code == 0, output(r)
        assert "6 board pairs played now" in output(r)
        got.append(_rows(db))
    assert got[0] == got[1]
    assert len(got[0][0]) == 6 and len(got[0][1]) > 6 * 2 * 20


def test_few_matches_are_cut_so_that_every_worker_stays_busy():
    """3 matches on 2 workers: 6 units (3 rounds of 2) rather than 3 (the last played alone);
    many matches: never cut; no run shorter than MIN_RUN boards."""
    from arena.tournament import MIN_RUN, _cuts

    assert _cuts(3, 2, 150) == 2
    assert _cuts(1, 3, 150) == 3
    assert _cuts(3, 3, 150) == 1
    assert _cuts(2, 4, 150) == 2
    assert _cuts(8, 2, 150) == 1  # 4 per worker
    assert _cuts(1, 1, 150) == 1
    assert _cuts(1, 8, 3 * MIN_RUN) == 3  # runs of at least MIN_RUN boards
    assert _cuts(1, 8, MIN_RUN) == 1
    assert _cuts(1, 3, 10, min_run=5) == 2


def test_a_match_cut_into_runs_on_worker_processes_gives_the_results_of_one_worker(tmp_path):
    """One match of 10 boards with ``workers=3`` (2 worker processes of two tables each), cut into
    2 runs of 5 boards (each with bot processes of its own): the same rows as one table at a
    time playing it whole."""
    from arena import tournament
    from arena.store import Store
    from arena.submit import submit
    from referee.rules import get_ruleset

    got = []
    for workers in (1, 3):
        db = tmp_path / f"w{workers}" / "a.duckdb"
        with Store.open(db) as store:
            rs = get_ruleset("classic")
            store.create_tournament("w", rs.name, rs.options(), 9, 10)
            for bot in ("random", "greedy"):
                submit(store, SAMPLES / bot, store_root=db.parent / "bots", tournament="w")
            seen = []
            units = tournament.units
            tournament.units = lambda *a, **k: (seen.append(u) or u for u in units(*a, **k))
            try:
                s = tournament.run(store, "w", workers=workers, min_run=5)
            finally:
                tournament.units = units
        assert s.played == 10 and not s.errors
        assert [u.boards for u in seen] == ([tuple(range(10))] if workers == 1 else [(0, 1, 2, 3, 4), (5, 6, 7, 8, 9)])
        got.append(_rows(db))
    assert got[0] == got[1]


def test_a_killed_worker_process_stops_the_run_with_an_error_and_a_rerun_completes_it(tmp_path):
    """A worker process killed mid-run: the run ends with an error (no traceback), keeps what was
    stored, and a rerun plays exactly what is missing: the rows of an uninterrupted run."""
    import os
    import signal

    from arena import tournament
    from arena.executors import ProcessExecutor
    from arena.store import Store
    from arena.submit import submit
    from referee.rules import get_ruleset

    def make(db):
        store = Store.open(db)
        rs = get_ruleset("classic")
        store.create_tournament("k", rs.name, rs.options(), 4, 12)
        for bot in ("random", "greedy", "heuristic"):
            submit(store, SAMPLES / bot, store_root=db.parent / "bots", tournament="k")
        return store

    with make(tmp_path / "ref" / "a.duckdb") as store:
        assert tournament.run(store, "k", workers=1).played == 36

    ex = ProcessExecutor(2)
    killed = []

    def kill_one(done, total):
        if not killed and done < total:
            pid = next(iter(ex._pool._processes))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    db = tmp_path / "killed" / "a.duckdb"
    with make(db) as store:
        s = tournament.run(store, "k", executor=ex, on_progress=kill_one)
        assert killed and s.errors and "worker process died" in s.errors[0]
        assert 0 < s.played < 36 and not s.interrupted
        assert store.get_tournament("k").status != "complete"
        s2 = tournament.run(store, "k", workers=2)
        assert not s2.errors and s2.played == 36 - s.played and s2.already == s.played
    assert _rows(db) == _rows(tmp_path / "ref" / "a.duckdb")
