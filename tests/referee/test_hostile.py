"""Bots that attack the referee's resources: an answer over the 64 KiB cap, unbounded
memory, unbounded CPU (tests/bots: bigreply, memhog, cpuburn).

Each plays random; the match must finish, the fault be recorded with the expected
kind, the faulting entrant forfeit, and no bot process be left.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.botproc import MAX_MESSAGE_BYTES, Limits
from referee.records import FaultKind

from .botkit import deals, entrant, install_call_log
from .test_match import assert_no_leftovers, assert_replays, decisions_of, play, seat_entrant


def faults_of(results) -> list:
    return [f for r in results for f in r.faults]


def vm_rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


# ------------------------------------------------------------------- bigreply
@pytest.mark.guard(60)
@pytest.mark.parametrize("unary", [False, True], ids=["stream", "unary"])
def test_an_answer_over_the_message_cap_is_malformed(tmp_path, monkeypatch, unary):
    """A ~240 KB DecideResponse (> MAX_MESSAGE_BYTES): the referee's channel refuses it
    (RESOURCE_EXHAUSTED) and records ``malformed`` ("answer too large"); no restart."""
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, "bigreply", "--deals", deals(1), "--nth", "2", *(["--unary"] if unary else []))
    good = entrant(tmp_path, "random")
    results = play(tmp_path, bad, good, 3, max_faults=100, on_board_pair=log.board_done)

    assert [r.board for r in results] == [0, 1, 2]
    faults = faults_of(results)
    assert faults, "the bot never misbehaved"
    assert all((f.kind, f.entrant, f.board) == (FaultKind.MALFORMED, bad.key, 1) for f in faults), faults
    assert all("answer too large" in f.detail for f in faults), [f.detail for f in faults]
    assert str(MAX_MESSAGE_BYTES) in faults[0].detail  # gRPC names the cap it enforced
    assert [r.forfeit_a for r in results] == [False, True, False]
    assert [r.forfeit_b for r in results] == [False, False, False]
    assert_replays(results)
    assert len(log.starts(bad.key)) == 4  # a refused answer is no reason to restart the process
    assert_no_leftovers(tmp_path)


# --------------------------------------------------------------------- memhog
@pytest.mark.guard(90)
def test_a_bot_that_allocates_without_bound_hits_its_memory_limit(tmp_path, monkeypatch):
    """50 MiB chunks in a loop under a 512 MiB address space: MemoryError inside decide()
    (the SDK answers INTERNAL: ``bot-error``) or the process dies (``crash``). The
    referee's own memory does not follow."""
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, "memhog", "--deals", deals(1), "--nth", "2")
    good = entrant(tmp_path, "random")
    rss_before = vm_rss_kib()
    results = play(tmp_path, bad, good, 3, max_faults=100, decision_ms=3000,
                   limits=Limits(memory_mib=512), on_board_pair=log.board_done)
    rss_after = vm_rss_kib()

    assert [r.board for r in results] == [0, 1, 2]
    faults = faults_of(results)
    assert faults, "the bot never misbehaved"
    assert all(f.kind in (FaultKind.BOT_ERROR, FaultKind.CRASH) for f in faults), faults
    assert all((f.entrant, f.board) == (bad.key, 1) for f in faults), faults
    print("memhog faults:", sorted({(f.kind, f.detail[:80]) for f in faults}))
    assert [r.forfeit_a for r in results] == [False, True, False]
    assert [r.forfeit_b for r in results] == [False, False, False]
    assert_replays(results)
    assert rss_after - rss_before < 50 * 1024, f"referee RSS grew {(rss_after - rss_before) / 1024:.0f} MiB"
    assert_no_leftovers(tmp_path)


# -------------------------------------------------------------------- cpuburn
@pytest.mark.alone  # each timeout charged within 300-700 ms of a 300 ms deadline
@pytest.mark.guard(60)
def test_a_bot_that_busy_loops_times_out(tmp_path, monkeypatch):
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, "cpuburn", "--deals", deals(1), "--nth", "2")  # spins forever once triggered
    good = entrant(tmp_path, "random")
    results = play(tmp_path, bad, good, 3, max_faults=100, decision_ms=300, on_board_pair=log.board_done)

    assert [r.board for r in results] == [0, 1, 2]
    faults = faults_of(results)
    assert faults, "the bot never misbehaved"
    assert all((f.kind, f.entrant, f.board) == (FaultKind.TIMEOUT, bad.key, 1) for f in faults), faults
    faulty = [d for r in results for d in decisions_of(r, bad.key) if d.fault]
    assert len(faulty) == len(faults)
    assert all(300 <= d.ms < 700 for d in faulty), [d.ms for d in faulty]  # the deadline, not the spin
    assert [r.forfeit_a for r in results] == [False, True, False]
    assert [r.forfeit_b for r in results] == [False, False, False]
    assert_replays(results)
    assert 4 < len(log.starts(bad.key)) <= 4 + len(faults)  # a spinning process is replaced
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(90)
def test_a_bot_over_its_cpu_limit_is_killed_and_forfeits(tmp_path, monkeypatch):
    BOARDS = 6
    """0.25 s of CPU on every decision under Limits(cpu_s=2), with a deadline long enough that a loaded
    machine never turns a burn into a timeout: each process is killed
    by the kernel (SIGXCPU) after about eight decisions: ``crash`` (``timeout`` if the
    limit strikes late in a call); after max_faults the rest of the match is forfeited."""
    log = install_call_log(monkeypatch)
    bad = entrant(tmp_path, "cpuburn", "--burn", "0.25", "--every")
    good = entrant(tmp_path, "random")
    results = play(tmp_path, good, bad, BOARDS, max_faults=3, decision_ms=5000,
                   limits=Limits(cpu_s=2), on_board_pair=log.board_done)

    assert [r.board for r in results] == list(range(BOARDS))
    faults = faults_of(results)
    print("cpuburn faults:", [(f.board, f.kind, f.detail[:60]) for f in faults])
    assert all(f.kind in (FaultKind.CRASH, FaultKind.TIMEOUT) and f.entrant == bad.key for f in faults), faults
    assert FaultKind.CRASH in {f.kind for f in faults}
    # a table's third fault ends the match for it there: a table counts earlier blocks' faults and
    # its own (one block here), so each table stops at three, and from its third on, the bot's
    # seats there are played unasked and it forfeits every later board
    for t in (1, 2):
        mine = [f for f in faults if f.table == t]
        assert len(mine) == 3, faults
        third = mine[2].board
        assert all(d.ms == 0 for r in results[third + 1:] for d in r.tables[t - 1].decisions
                   if seat_entrant(r, t, d.seat) == bad.key)
        assert all(r.forfeit_b for r in results[third:])
    assert not any(r.forfeit_a for r in results)
    assert_replays(results)
    assert_no_leftovers(tmp_path)
