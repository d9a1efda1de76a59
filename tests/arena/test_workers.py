"""`--workers N`: N tables at once (issue 12); the results are the same as with one table at a
time (bots reseed per deal; a match is never split between workers; a resumed match goes on
counting its entrants' faults)."""

from __future__ import annotations

import duckdb

from .conftest import SAMPLES, cli, output


def _rows(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return (
            con.sql("SELECT board, points_a, points_b, margin, forfeit_a, forfeit_b FROM board_pairs ORDER BY ALL").fetchall(),
            con.sql("SELECT board, table_no, idx, seat, kind, value FROM actions ORDER BY ALL").fetchall(),
            con.sql("SELECT match_id, board, table_no, seat, entrant, kind FROM faults ORDER BY ALL").fetchall(),
        )
    finally:
        con.close()


def test_workers_give_the_results_of_one_worker(tmp_path):
    got = []
    for i, flags in enumerate((["--workers", 1], ["--workers", 3], ["--workers", 2, "--exclusive-boards"])):
        db = tmp_path / f"w{i}" / "a.duckdb"
        r = cli("tournament", "run", "w", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
                "--boards", 6, "--seed", 9, *flags, "--db", db)
        assert r.exit_code == 0, output(r)
        assert "6 board pairs played now" in output(r)
        got.append(_rows(db))
    assert got[0] == got[1] == got[2]
    assert len(got[0][0]) == 6 and len(got[0][1]) > 6 * 2 * 20


def test_a_faulting_entrant_gives_the_same_results_with_any_workers_and_across_a_resume(tmp_path):
    """An entrant that answers an illegal card at every decision: at each table of its first
    board it faults until max_faults (3), then forfeits the rest of each of its matches without
    being asked.  The rows, faults included, are the same with one table at a time, with 4
    tables at once, and when a run is stopped after its first stored batch and resumed (the
    match's stored faults are carried on: it is not asked again)."""
    import threading

    from arena.play import tournament
    from arena.store import Store
    from arena.play.submit import submit
    from referee.rules import get_ruleset
    from tests.referee.botkit import bot_folder

    from arena.store import match_id
    from referee import secret

    boards = 30
    key, bad_key = secret.bot_key(4), "illegal@1.0.0"
    mids = [match_id("f", x, y) for o in ("random@1.0.0", "greedy@1.0.0") for x, y in ((o, bad_key), (bad_key, o))]
    numbers = [secret.deal_number(key, m, t, k) for m in mids for t in (1, 2) for k in range(boards)]
    # misbehaves on the tournament's deals only: it passes the conformance check (other deals)
    bad = bot_folder(tmp_path / "src", "illegal", "--every", "--deals", ",".join(map(str, numbers)))

    def run(name: str, workers: int, interrupt: bool = False):
        db = tmp_path / name / "a.duckdb"
        with Store.open(db) as store:
            rs = get_ruleset("classic")
            store.create_tournament("f", rs.name, rs.options(), 4, boards)
            for bot in (SAMPLES / "random", SAMPLES / "greedy", bad):
                submit(store, bot, store_root=db.parent / "bots", tournament="f")
            first = None
            if interrupt:
                stop = threading.Event()
                first = tournament.run(store, "f", workers=workers, max_faults=3, stop=stop,
                                       on_progress=lambda done, total: stop.set())
            s = tournament.run(store, "f", workers=workers, max_faults=3)
            assert not s.errors and s.already + s.played == 3 * boards
        return _rows(db), first

    ref, _ = run("w1", 1)
    faults = ref[2]
    assert len(faults) == 2 * 2 * 3  # its two matches, both tables of board 0, three each
    assert {(f[1], f[4], f[5]) for f in faults} == {(0, "illegal@1.0.0", "illegal")}
    # `arena log` shows each fault under its table (the new-user trial found none shown)
    r = cli("log", "f/random~illegal", "--board", 0, "--db", tmp_path / "w1" / "a.duckdb")
    assert r.exit_code == 0, output(r)
    text = " ".join(output(r).split())
    assert text.count("fault at board 0 table") == 6
    assert "(illegal@1.0.0): illegal: the bot played an action that is not among the legal actions" in text
    assert "illegal@1.0.0 forfeits board 0" in text
    assert run("w4", 4)[0] == ref
    resumed, first = run("resumed", 1, interrupt=True)
    assert 0 < first.played < 3 * boards, "the first run was not interrupted mid-way"
    assert resumed == ref


def test_a_killed_worker_process_stops_the_run_with_an_error_and_a_rerun_completes_it(tmp_path):
    """A worker process killed mid-run: the run ends with an error (no traceback), keeps what was
    stored, and a rerun plays exactly what is missing: the rows of an uninterrupted run."""
    import os
    import signal

    from arena.play import tournament
    from arena.play.executors import ProcessExecutor
    from arena.store import Store
    from arena.play.submit import submit
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


def test_a_bot_is_checked_at_the_deadline_of_the_tournament_it_enters(tmp_path):
    """The new-user trial: the conformance check answered within 1,000 ms whatever the
    tournament's --decision-ms, so a bot too slow for a 200 ms tournament passed and then
    forfeited every match.  A bot thinking 0.4 s a decision is refused at 200 ms."""
    from tests.referee.botkit import bot_folder

    slow = bot_folder(tmp_path, "sleepy", "--sleep", "0.4", "--every")
    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", "fast", "--bots", slow, "--bots", SAMPLES / "random", "--boards", 2,
            "--decision-ms", 200, "--db", db)
    assert r.exit_code == 1, output(r)
    assert "each answer within 200 ms" in output(r)
    assert "failed the conformance check" in output(r) and "timeout" in output(r)
    assert not db.exists()  # refused: nothing kept


def test_a_resumed_tournament_plays_with_its_own_deadline_and_limits(tmp_path):
    """The new-user trial: a resumed run used the default --decision-ms and --max-faults
    (and sandbox limits) instead of the tournament's.  They are stored when it is created,
    reused by a rerun that leaves them out, and a different value is refused (exit 1)."""
    from arena.store import Store

    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", "s", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--boards", 2,
            "--seed", 3, "--decision-ms", 700, "--max-faults", 5, "--memory-mib", 900, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "decisions within 700 ms; 5 faults forfeit the rest of a match" in output(r)
    assert "up to 10 may be recorded" in output(r)
    with Store.open(db, read_only=True) as store:
        assert store.play_settings("s") == {"decision_ms": 700, "max_faults": 5, "cpu_s": 0, "memory_mib": 900,
                                               "time_bank_ms": 0, "time_increment_ms": 0}
    r = cli("tournament", "run", "s", "--db", db)
    assert r.exit_code == 0, output(r)
    assert "decisions within 700 ms; 5 faults forfeit the rest of a match" in output(r)
    r = cli("tournament", "run", "s", "--decision-ms", 1000, "--db", db)
    assert r.exit_code == 1
    assert "exists with --decision-ms 700, fixed once it is created: leave --decision-ms out" in output(r)
    r = cli("tournament", "run", "s", "--max-faults", 5, "--db", db)  # the stored value: accepted
    assert r.exit_code == 0, output(r)


# ------------------------------------------------------------- the dispatcher
def _unit(number: int, a: str, b: str):
    from arena.play.executors import Unit
    from referee.match import Entrant

    return Unit(number, f"m{number}", Entrant(a), Entrant(b), (0,))


def test_the_dispatcher_never_hands_out_two_units_with_an_entrant_in_common():
    """issue 19 item 1: the round robin of 4 entrants (circle order) runs two matches at a time,
    never two of one entrant; a unit that must wait is handed out, in order, once its entrants
    are free; with 3 entrants one match at a time."""
    from arena.play.executors import Dispatcher
    from arena.play.schedule import match_order

    order = match_order(["A", "B", "C", "D"])
    d = Dispatcher([_unit(i, a, b) for i, (a, b) in enumerate(order)])
    first, second = d.take(), d.take()
    assert first is not None and second is not None and d.take() is None
    assert not {first.a.key, first.b.key} & {second.a.key, second.b.key}
    seen, running = [first, second], {first.number: first, second.number: second}
    while not d.exhausted or running:
        done = min(running)  # end the oldest running unit, take what may start
        d.release(done)
        del running[done]
        while (u := d.take()) is not None:
            keys = {u.a.key, u.b.key}
            assert all(not keys & {r.a.key, r.b.key} for r in running.values())
            running[u.number] = u
            seen.append(u)
    assert sorted(u.number for u in seen) == list(range(6))

    three = Dispatcher([_unit(i, a, b) for i, (a, b) in enumerate(match_order(["A", "B", "C"]))])
    u = three.take()
    assert u is not None and three.take() is None and three.running == 1
    three.release(u.number)
    assert three.take() is not None


def test_exclusive_boards_hands_out_one_unit_at_a_time():
    from arena.play.executors import Dispatcher

    d = Dispatcher([_unit(0, "A", "B"), _unit(1, "C", "D")], exclusive_boards=True)
    u = d.take()
    assert u.number == 0 and d.take() is None
    d.release(0)
    assert d.take().number == 1 and d.take() is None and d.exhausted
