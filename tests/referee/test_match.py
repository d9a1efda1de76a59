"""Duplicate matches with real bot processes over gRPC on Unix sockets (RULES.md §8).

Each fault bot of tests/bots plays random; the match must finish, the fault be
recorded with the right kind, the referee play the fallback, the faulting
entrant forfeit the board(s) where it faulted (and after ``max_faults`` the
rest of the match, with no more calls to it), and no bot process be left.
Also seat and table isolation, and interrupts.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from arena.play.schedule import suit_permutation
from referee.botproc import BotClient, Limits
from referee.manifest import load_manifest
from referee.match import DuplicateMatch, Entrant, MatchConfig, play_match
from referee.records import BoardPairResult, FaultKind
from referee.rules import RULESETS, Card, DealState, make_board, relabel, replay

from .botkit import bot_processes, deals, entrant, install_call_log, leftover_processes
from .spylog import read_spy_logs

DECISION_MS = 1000  # the arena's default; 250 made a sample bot time out on a loaded machine (test_stream, fresh clone)
BOARD_SEED = 11
SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def play(tmp_path: Path, a, b, boards: int, *, ruleset: str = "classic", on_board_pair=None, **config):
    """Play ``boards`` boards of ``ruleset`` between entrants ``a`` and ``b`` (in blocks of
    ``block_boards``, 100 unless given: one table, then the other)."""
    rs = RULESETS[ruleset]
    config.setdefault("decision_ms", DECISION_MS)
    cfg = MatchConfig(ruleset=rs, seed=3, **config)
    board_list = [make_board(BOARD_SEED, k, rs.seats) for k in range(boards)]
    return play_match("test-match", a, b, board_list, cfg,
                      permutations=lambda k: suit_permutation(BOARD_SEED, k), on_board_pair=on_board_pair)


def seat_entrant(result: BoardPairResult, table: int, seat: int) -> str:
    t = result.tables[table - 1]
    return t.ns if seat % 2 == 0 else t.ew


def decisions_of(result: BoardPairResult, key: str) -> list:
    """``key``'s decisions on a board, table 1 then table 2, in play order."""
    return [d for t in result.tables for d in t.decisions if seat_entrant(result, t.table, d.seat) == key]


def assert_replays(results: list[BoardPairResult], *, dealt: tuple[int, bool] = (BOARD_SEED, True)) -> None:
    """Every table's record (fallback actions included) replays under the rules to the same
    score, and every faulted decision's recorded action is the documented fallback: the
    first legal action in the engine's order (docs/PROTOCOL.md §3, referee/match.py).
    Each table was dealt its board (``dealt``: the boards' seed, and whether table 2's suits
    were renamed; :func:`play`'s by default): table 1 as dealt, table 2 with its suits renamed
    by the board's permutation (RULES.md §8), which is never the identity."""
    seed, renamed = dealt
    for r in results:
        for t in r.tables:
            board = make_board(seed, r.board, t.record.ruleset.seats)
            permutation = suit_permutation(seed, r.board) if renamed else (0, 1, 2, 3)
            assert permutation != (0, 1, 2, 3) or not renamed
            deck = board.deck if t.table == 1 or not renamed else relabel(board.deck, permutation)
            assert t.record.deck == deck, (r.board, t.table)
            state = replay(t.record)
            assert state.outcome().score == t.outcome.score, (r.board, t.table)
            assert [d.fault for d in t.decisions].count(None) == len(t.decisions) - len(t.faults)
            walk = DealState(t.record.ruleset, t.record.deck, t.record.dealer, pot=t.record.pot)
            assert len(t.decisions) == len(t.record.actions)
            for d, (seat, action) in zip(t.decisions, t.record.actions):
                if d.fault:
                    assert action == walk.legal_actions()[0], (r.board, t.table, d)
                walk.apply(action)


@pytest.fixture
def sigint_raises():
    """SIGINT raises KeyboardInterrupt, as in a process started from a terminal: a test run in
    the background (``make test &``, a CI runner) inherits SIGINT ignored, and a Ctrl-C test
    would then wait for an interrupt that never comes."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def ctrl_c() -> None:
    """Send SIGINT to the main thread, as a terminal's Ctrl-C would (a real signal, so it
    interrupts a blocking wait, unlike ``_thread.interrupt_main``)."""
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


def ctrl_c_when(condition, settle_s: float = 0.3, timeout_s: float = 45.0) -> threading.Event:
    """On a thread: once ``condition()`` holds (polled every 20 ms), wait ``settle_s`` s and send
    :func:`ctrl_c`.  Set the returned event to give up (the test ended first)."""
    done = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + timeout_s
        while not done.is_set() and time.monotonic() < deadline:
            if condition():
                if not done.wait(settle_s):
                    ctrl_c()
                return
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()
    return done


def assert_no_leftovers(tmp_path: Path) -> None:
    left = leftover_processes(tmp_path)
    assert not left, "bot processes left behind:\n" + "\n".join(left)


# ----------------------------------------------------------------- one fault
FAULTS = [  # the bot, its arguments (it misbehaves from its nth asked decision of board 1), the fault
    pytest.param("sleepy", ("--nth", "4", "--sleep", "1.5"), FaultKind.TIMEOUT, id="sleepy-timeout"),
    pytest.param("crasher", ("--nth", "2"), FaultKind.CRASH, id="crasher-crash"),
    pytest.param("illegal", ("--nth", "2"), FaultKind.ILLEGAL, id="illegal-unheld"),
    pytest.param("illegal", ("--nth", "1", "--how", "held"), FaultKind.ILLEGAL, id="illegal-held"),
    pytest.param("wrongkind", ("--nth", "2"), FaultKind.WRONG_KIND, id="wrongkind"),
    pytest.param("raiser", ("--nth", "2"), FaultKind.BOT_ERROR, id="raiser-bot-error"),
    pytest.param("raiser", ("--nth", "2", "--exit"), FaultKind.BOT_ERROR, id="raiser-sys-exit"),
    pytest.param("empty", ("--nth", "2"), FaultKind.MALFORMED, id="empty-malformed"),
    pytest.param("empty", ("--nth", "2", "--how", "badcard"), FaultKind.MALFORMED, id="badcard-malformed"),
]


@pytest.mark.guard(60)
@pytest.mark.parametrize(("bot", "args", "kind"), FAULTS)
def test_a_fault_forfeits_its_board_and_the_match_goes_on(tmp_path, monkeypatch, bot, args, kind):
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, bot, "--deals", deals(1), *args)  # board 1 at each table
    good = entrant(tmp_path, "random")
    results = play(tmp_path, bad, good, 3, max_faults=100, on_board_pair=log.board_done)

    assert [r.board for r in results] == [0, 1, 2]
    faults = [f for r in results for f in r.faults]
    assert faults, "the bot never misbehaved"
    assert all((f.kind, f.entrant, f.board) == (kind, bad.key, 1) for f in faults), faults
    assert all(seat_entrant(results[1], f.table, f.seat) == bad.key for f in faults)
    assert [r.forfeit_a for r in results] == [False, True, False]
    assert [r.forfeit_b for r in results] == [False, False, False]
    assert_replays(results)  # the referee's fallbacks are legal and every board was scored
    faulty = [d for r in results for d in decisions_of(r, bad.key) if d.fault]
    assert len(faulty) == len(faults) and all(d.fault == kind for d in faulty)
    if kind == FaultKind.BOT_ERROR:  # the bot's own message, once (the kind's words say it was an error)
        said = "decide() raised SystemExit: 3" if "--exit" in args else "deliberate failure in decide()"
        assert all(f.detail.endswith(said) and "answered with an error" not in f.detail for f in faults), faults
    if kind == FaultKind.TIMEOUT:  # the detail names the deadline the bot missed (issue 20 item 7)
        assert all(f.detail == f"no answer within {DECISION_MS:,} ms (--decision-ms {DECISION_MS} + time bank 0 ms)"
                   for f in faults), faults

    if kind == FaultKind.ILLEGAL:  # the card answered: not held, or (--how held) held but not legal now
        held_answers = 0
        for r in results:
            for t in r.tables:
                state = DealState(t.record.ruleset, t.record.deck, t.record.dealer, pot=t.record.pot)
                for d, (seat, action) in zip(t.decisions, t.record.actions):
                    if d.fault:
                        f = next(f for f in t.faults if f.seat == seat)
                        answered = Card.parse(re.match(r"(\S+) is not a legal action", f.detail).group(1))
                        hand = state.hand(seat)
                        legal = {a.card for a in state.legal_actions()}
                        assert answered not in legal, f.detail
                        if answered in hand:
                            held_answers += 1
                        elif "held" in args:  # the bot had no held card to misplay
                            assert set(hand) <= legal, f.detail
                    state.apply(action)
        assert (held_answers > 0) == ("held" in args)

    # every call counted by the referee's client is a decision with a measured time
    calls = log.decides_by_board(bad.key)
    assert calls == {r.board: sum(d.ms > 0 for d in decisions_of(r, bad.key)) for r in results}
    starts = len(log.starts(bad.key))
    if kind in (FaultKind.TIMEOUT, FaultKind.CRASH):
        # deadline works: the call ended close to it, not when the bot woke up
        if kind == FaultKind.TIMEOUT:
            assert all(DECISION_MS <= d.ms < DECISION_MS + 400 for d in faulty), [d.ms for d in faulty]
        assert 4 < starts <= 4 + len(faults)  # a seat whose bot timed out or died gets a new process
    else:
        assert starts == 4  # a bad answer is no reason to restart the process
    assert len(log.starts(good.key)) == 4
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------- max_faults
@pytest.mark.guard(60)
@pytest.mark.parametrize(("bot", "args", "kind"), [
    pytest.param("sleepy", ("--sleep", "1.5"), FaultKind.TIMEOUT, id="sleepy"),
    pytest.param("crasher", (), FaultKind.CRASH, id="crasher"),
    pytest.param("illegal", (), FaultKind.ILLEGAL, id="illegal"),
])
def test_after_max_faults_the_rest_of_the_match_is_forfeited_without_calls(tmp_path, monkeypatch, bot, args, kind):
    """A table counts the faults of earlier blocks and its own (referee/match.py), so both
    tables of board 1 reach max_faults, and neither asks the bot again."""
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, bot, "--deals", deals(1), "--every", *args)  # every decision of board 1 on
    good = entrant(tmp_path, "random")
    results = play(tmp_path, good, bad, 4, max_faults=3, on_board_pair=log.board_done)

    assert [len(r.faults) for r in results] == [0, 6, 0, 0]
    assert [sum(f.table == t for f in results[1].faults) for t in (1, 2)] == [3, 3]
    assert all(f.kind == kind and f.entrant == bad.key for f in results[1].faults)
    assert [r.forfeit_b for r in results] == [False, True, True, True]
    assert [r.forfeit_a for r in results] == [False, False, False, False]
    assert_replays(results)

    calls = [e for e in log.events if e[0] == "decide" and e[1] == bad.key]
    assert len(calls) == sum(d.ms > 0 for r in results for d in decisions_of(r, bad.key)) > 0
    assert sum(d.ms > 0 for r in results[2:] for d in decisions_of(r, good.key)) > 0  # the other is still asked
    # after a table's third fault the forfeiting seats are played by the referee, never asked
    for t in results[1].tables:
        mine = [d for d in t.decisions if seat_entrant(results[1], t.table, d.seat) == bad.key]
        third = [i for i, d in enumerate(mine) if d.fault][2]
        assert all(d.ms == 0 and d.fault is None for d in mine[third + 1:])
    assert all(d.ms == 0 and d.fault is None for r in results[2:] for d in decisions_of(r, bad.key))
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(90)
def test_the_other_tables_faults_count_from_the_next_block(tmp_path):
    """The forfeit rule at block granularity (referee/match.py): a bot answers an illegal card at
    each process's 2nd decision of boards 1 and 2, max_faults 3.  In one block of 4 boards each
    table sees only its own faults: 2 at board 1, then its third at board 2, where it forfeits
    (the other seat of that table is then played unasked).  In blocks of one board, the other
    table's 2 faults of board 1 count from board 2: forfeited there at both tables, never asked."""
    bad = entrant(tmp_path, "illegal", "--deals", deals(1, 2), "--nth", "2")
    good = entrant(tmp_path, "greedy")

    one_block = play(tmp_path / "a", bad, good, 4, max_faults=3)
    assert [len(r.faults) for r in one_block] == [0, 4, 2, 0]
    assert [sum(f.table == t for f in one_block[2].faults) for t in (1, 2)] == [1, 1]
    assert [r.forfeit_a for r in one_block] == [False, True, True, True]
    assert not any(r.forfeit_b for r in one_block)

    blocks_of_one = play(tmp_path / "b", bad, good, 4, max_faults=3, block_boards=1)
    assert [len(r.faults) for r in blocks_of_one] == [0, 4, 0, 0]
    assert sorted((f.table, f.seat % 2) for f in blocks_of_one[1].faults) == [(1, 0), (1, 0), (2, 1), (2, 1)]
    assert [r.forfeit_a for r in blocks_of_one] == [False, True, True, True]
    assert all(d.ms == 0 for r in blocks_of_one[2:] for d in decisions_of(r, bad.key))
    # boards 0 and 1 are the same whatever the block size (nothing forfeited before board 2)
    def summary(r):
        return [(t.record.actions, t.outcome.score, [(f.kind, f.seat) for f in t.faults]) for t in r.tables]
    assert [summary(r) for r in one_block[:2]] == [summary(r) for r in blocks_of_one[:2]]
    assert_replays(one_block + blocks_of_one)
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(90)
def test_one_tables_processes_are_alive_at_a_time(tmp_path, monkeypatch):
    """issue 19 item 1: a block is played at one table, then at the other; every process of a
    table has ended before a process of the other table starts, and the table played last
    in a block is played first in the next, its processes kept (blocks of 2 boards, 5 boards:
    3 blocks, 4 sets of 4 processes)."""
    log = install_call_log(monkeypatch)
    real_close = BotClient.close

    def close(self, *args, **kw):
        pid = self.process.pid if self.process is not None else None
        real_close(self, *args, **kw)
        if pid is not None:
            log.events.append(("closed", pid))

    monkeypatch.setattr(BotClient, "close", close)
    a, b = entrant(tmp_path, "random", name="randomA"), entrant(tmp_path, "random", name="randomB")
    results = play(tmp_path, a, b, 5, block_boards=2)
    assert [r.board for r in results] == [0, 1, 2, 3, 4] and not any(r.faults for r in results)

    alive: dict[int, int] = {}  # pid -> table, from its start to its close
    for e in log.events:
        if e[0] == "start":
            assert set(alive.values()) <= {e[2]}, f"a table-{e[2]} process started while {alive} lived"
            alive[e[4]] = e[2]
        elif e[0] == "closed":
            alive.pop(e[1], None)
    starts = log.starts()
    assert len(starts) == 16
    # the tables of the four sets in start order: 1, 2 (block 0), 1 (block 1: 2 kept, then 1),
    # 2 (block 2: 1 kept, then 2)
    order = [e[2] for e in starts]
    assert [order[i] for i in range(0, 16, 4)] == [1, 2, 1, 2]
    assert all(len(set(order[i:i + 4])) == 1 for i in range(0, 16, 4))
    assert_replays(results)
    assert_no_leftovers(tmp_path)


# ---------------------------------------------------------------- start-up
@pytest.mark.guard(60)
def test_a_bot_that_exits_at_start_up_is_a_start_fault(tmp_path, monkeypatch):
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, "startfail")
    good = entrant(tmp_path, "random")
    results = play(tmp_path, bad, good, 2, max_faults=3, on_board_pair=log.board_done)

    faults = [f for r in results for f in r.faults]
    # each table of board 0 counts its own three (referee/match.py: the other table's from the next board)
    assert [f.kind for f in faults] == [FaultKind.START] * 6
    assert [f.table for f in faults] == [1, 1, 1, 2, 2, 2]
    assert all(f.entrant == bad.key and f.board == 0 for f in faults)
    assert "status 3" in faults[0].detail and "giving up at start-up" in faults[0].detail
    assert [r.forfeit_a for r in results] == [True, True]
    assert [r.forfeit_b for r in results] == [False, False]
    assert len(log.failed_starts(bad.key)) == 6 and not log.starts(bad.key)
    assert not [e for e in log.events if e[0] == "decide" and e[1] == bad.key]
    assert_replays(results)
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_a_command_that_cannot_be_run_is_said_in_words(tmp_path):
    """A bot.toml whose command names no program of the sandbox: the start fault says the
    command could not be run and which (issue 20's new-user trial: it said only
    "prlimit: failed to execute …", the launcher's words)."""
    folder = tmp_path / "typo"
    shutil.copytree(SAMPLES / "random", folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "random"', 'name = "typo"')
                    .replace('command = ["python", "bot.py"]', 'command = ["pythn3", "bot.py"]'))
    bad = Entrant(key="typo@1.0.0", manifest=load_manifest(folder))
    results = play(tmp_path, bad, entrant(tmp_path, "random"), 1, max_faults=1)
    (fault, *_) = [f for r in results for f in r.faults]
    assert fault.kind == FaultKind.START and fault.entrant == "typo@1.0.0"
    assert "its command could not be run: pythn3: No such file or directory" in fault.detail, fault.detail
    assert "prlimit" not in fault.detail
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(120)
def test_a_bot_that_listens_but_never_speaks_grpc_is_a_start_fault(tmp_path, monkeypatch):
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, "startfail", "--how", "silent")
    good = entrant(tmp_path, "random")
    # 4 s to start: time enough for a sandboxed Python to listen on a loaded machine (the fault
    # must be the silence, not a slow start: issue 20 item 26), each start waiting it out once
    # (one start each: a silent bot is retried as a slow one would be, tests/referee/test_slow_start.py)
    results = play(tmp_path, good, bad, 1, max_faults=2, startup_s=4.0, start_attempts=1)

    faults = results[0].faults
    assert [f.kind for f in faults] == [FaultKind.START] * 4  # two at each table
    assert sorted(f.table for f in faults) == [1, 1, 2, 2]
    assert all("accepted no gRPC connection" in f.detail for f in faults)
    assert results[0].forfeit_b and not results[0].forfeit_a
    # a table's seats are all started before its first board; table 1 asks the seat it asks
    # first twice (a new start for its second decision), then forfeits before asking the other
    tried = [(e[2], e[3]) for e in log.failed_starts(bad.key)]
    assert sorted(set(tried)) == [(1, 1), (1, 3), (2, 0), (2, 2)] and len(tried) == 5, tried
    assert_no_leftovers(tmp_path)


# ------------------------------------------------- a death between two decisions
def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d))
        except (OSError, IndexError, ValueError):
            continue
    return out


@pytest.mark.guard(60)
def test_a_bot_killed_between_two_decisions_is_a_crash_fault(tmp_path):
    """Every bot death is a fault (issue 14 item 2): the bot process of seat 1 at table 2 (the
    table played last in board 0's block, first in board 1's: its processes are kept) is
    killed by SIGKILL (as the OOM killer would) after board 0, while no call is in flight.
    Its next decision is a crash fault naming the signal, its entrant forfeits board 1,
    a new process plays board 2."""
    a, b = entrant(tmp_path, "random", name="victim"), entrant(tmp_path, "random", name="other")
    rs = RULESETS["classic"]
    boards = [make_board(BOARD_SEED, k) for k in range(3)]
    with DuplicateMatch("death", a, b, MatchConfig(ruleset=rs, seed=3, decision_ms=DECISION_MS),
                        board_count=3) as match:
        results = [match.play_board(boards[0])]
        assert match.live_table == 2 and all(match.seats[(1, s)].client is None for s in range(4))
        client = match.seats[(2, 1)].client
        assert client is not None and client.alive()
        # bwrap -> its init -> the supervisor of sysinfo (referee.inside) -> the bot
        bot = [p for init in _children(client.process.pid) for sup in _children(init) for p in _children(sup)]
        assert len(bot) == 1
        os.kill(bot[0], signal.SIGKILL)
        if client.freezes() == "cgroup":  # frozen between decisions: a task frozen by the cgroup v1
            client._freezer.thaw()  # freezer takes its SIGKILL only once thawed (v2: at once)
        client.process.wait(timeout=5)
        results += [match.play_board(boards[1]), match.play_board(boards[2])]
    assert not results[0].faults and not results[2].faults
    [fault] = results[1].faults
    assert (fault.kind, fault.board, fault.table, fault.seat, fault.entrant) == (FaultKind.CRASH, 1, 2, 1, a.key)
    assert fault.detail.startswith("the bot process was killed by signal 9 (SIGKILL) after its last answer")
    assert [r.forfeit_a for r in results] == [False, True, False] and not any(r.forfeit_b for r in results)
    assert_replays(results, dealt=(BOARD_SEED, False))  # play_board without permutations
    assert_no_leftovers(tmp_path)


# ----------------------------------------------------------------- isolation
@pytest.mark.guard(60)
@pytest.mark.parametrize("ruleset", ["classic", "two-player"])
def test_every_seat_of_every_table_is_its_own_process(tmp_path, monkeypatch, ruleset):
    log = install_call_log(monkeypatch)
    out = tmp_path / "spy-out"
    out.mkdir(mode=0o1777)  # bound read-write into every bot's sandbox; the bots run as other uids
    out.chmod(0o1777)
    a = entrant(tmp_path, "spy", "--out", out, name="spyA")
    b = entrant(tmp_path, "spy", "--out", out, name="spyB")
    results = play(tmp_path, a, b, 3, ruleset=ruleset, on_board_pair=log.board_done,
                   limits=Limits(writable=(str(out),)))
    seats = RULESETS[ruleset].seats
    assert not [f for r in results for f in r.faults]

    # the referee's view: one process per (table, seat), 2 × seats in all, none shared
    starts = log.starts()
    assert sorted((e[2], e[3]) for e in starts) == [(t, s) for t in (1, 2) for s in range(seats)]
    pid_of = {(e[2], e[3]): e[4] for e in starts}
    assert len(set(pid_of.values())) == 2 * seats
    for table in (1, 2):
        assert len({pid_of[(table, s)] for s in range(seats)}) == seats
    assert not {pid_of[(1, s)] for s in range(seats)} & {pid_of[(2, s)] for s in range(seats)}
    entrant_of = {(e[2], e[3]): e[1] for e in starts}  # partners: the same entrant, different processes
    assert all(entrant_of[(t, s)] == seat_entrant(results[0], t, s) for t in (1, 2) for s in range(seats))
    called = {e[2] for e in log.events if e[0] == "decide"}
    assert called <= set(pid_of.values())

    # the bots' view: each process reports its own id (its RNG seed), one seat, and sees no
    # process (no procfs), in a PID namespace of its own (bwrap's init, the supervisor, itself)
    spies = read_spy_logs(out)
    seat_of = {e[5]: e[3] for e in starts}
    assert set(spies) == set(seat_of) and len(spies) == 2 * seats
    for ident, spy in spies.items():
        assert {r.observation.seat for r in spy.decides} == {seat_of[ident]}
        assert [s.seat for s in spy.starts] == [seat_of[ident]]
        assert spy.procs == [] and spy.pid <= 3, (spy.procs, spy.pid)
    # the same private paths in every bot: each its own tmpfs, invisible to the others
    assert {(s.env["HOME"], s.env["TMPDIR"], s.env["BELOTE_BOT_LISTEN"]) for s in spies.values()} == {
        ("/arena/work", "/tmp", "/arena/work/bot.sock")}
    assert_no_leftovers(tmp_path)


# ----------------------------------------------------------------- interrupts
@pytest.mark.guard(60)
def test_a_keyboard_interrupt_from_on_board_pair_leaves_no_process(tmp_path, monkeypatch):
    log = install_call_log(monkeypatch)
    a = entrant(tmp_path, "random", name="randomA")
    b = entrant(tmp_path, "random", name="randomB")

    def stop(result):
        log.board_done(result)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play(tmp_path, a, b, 5, on_board_pair=stop)
    assert len(log.starts()) == 8 and [e for e in log.events if e[0] == "board"] == [("board", 0)]
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_a_keyboard_interrupt_during_a_decision_leaves_no_process(tmp_path, monkeypatch, sigint_raises):
    log = install_call_log(monkeypatch)
    a = entrant(tmp_path, "sleepy", "--sleep", "60", "--deals", deals(0), "--nth", "1")
    b = entrant(tmp_path, "random")
    # Ctrl-C while the referee waits on the sleeper: once a call to it is in flight (a condition,
    # not a time: on a loaded machine the bots may still be starting after 2 s)
    done = ctrl_c_when(lambda: any(e[0] == "decide" and e[1] == a.key for e in log.events))
    try:
        with pytest.raises(KeyboardInterrupt):
            play(tmp_path, a, b, 2, decision_ms=30_000)
    finally:
        done.set()
    assert log.starts(a.key)
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_a_keyboard_interrupt_while_a_bot_starts_leaves_no_process(tmp_path, monkeypatch, sigint_raises):
    a = entrant(tmp_path, "startfail", "--how", "silent")  # listens, never answers: the referee waits
    b = entrant(tmp_path, "random")
    # Ctrl-C once the silent bot's process runs (the referee then waits up to 20 s for its answer)
    done = ctrl_c_when(lambda: any("startfail" in p for p in bot_processes(tmp_path)))
    try:
        with pytest.raises(KeyboardInterrupt):
            play(tmp_path, a, b, 1, startup_s=20.0)
    finally:
        done.set()
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_a_bots_output_is_kept_per_process_when_asked(tmp_path):
    """``MatchConfig.log_dir`` (`arena match --logs`): each process's stdout and stderr in a file of
    its own, named by entrant, table, seat and restart: a crashed process's last words and its
    restart's start both kept; nothing else in the folder."""
    a = entrant(tmp_path, "crasher", "--deals", deals(0), "--nth", "1")
    b = entrant(tmp_path, "random")
    logs = tmp_path / "logs"
    logs.mkdir()
    play(tmp_path, a, b, 2, log_dir=logs)
    names = sorted(p.name for p in logs.iterdir())
    # 8 first processes; A's crash on board 0 (its last words kept), and the restarts of crashed ones
    assert len([n for n in names if n.endswith("-0.log")]) == 8, names
    crashed = {n for n in names if "crasher: exiting at deal" in (logs / n).read_text()}
    assert crashed and all(n.startswith(a.key) for n in crashed), names
    restarts = [n for n in names if not n.endswith("-0.log")]
    assert restarts and all(re.sub(r"-\d+\.log$", "-0.log", n) in crashed for n in restarts), names
    assert all((logs / n).read_text().startswith("BELOTE-BOT READY") for n in names)
    assert_no_leftovers(tmp_path)
