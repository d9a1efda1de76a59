"""A bot runs only while it decides (issue 19 item 2): between its decisions every process of
a bot is stopped (referee.sandbox.Freezer: the freezer cgroup, or, without cgroups, SIGSTOP to
the sandbox's init and every process descending from it, found in the host's /proc: the
sandbox has none of its own), judged by the effect on test bots that work between
their decisions (tests/bots/ponder), each against a control with freezing off.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from pathlib import Path

import grpc
import pytest

from belote_arena_sdk.proto import bot_pb2 as pb
from referee import sandbox
from referee.botproc import BotClient
from referee.manifest import load_manifest
from referee.sandbox import Limits

from .botkit import bot_folder
from .test_match import assert_no_leftovers

# alone (make test runs it after the parallel part): it counts a bot's CPU ticks and clock
# progress against an unfrozen control
pytestmark = pytest.mark.alone

GAP_S = 0.5  # the time between two decisions of the bot: the window in which it must not run
REQUEST = pb.DecideRequest(legal_actions=[pb.Action(bid=pb.Bid(kind=pb.BID_KIND_PASS))], deadline_ms=60_000)


def _no_cgroups(monkeypatch) -> None:
    """Make the referee act as on a machine without cgroups (an unprivileged arena): freezing
    by signals; the whole-bot limits are then weak (the caller sets ``weak_limits``)."""
    monkeypatch.setattr(sandbox, "cgroup_folders", lambda: {})


@pytest.fixture(params=["cgroup", "signals"])
def how(request, monkeypatch) -> str:
    if request.param == "signals":
        assert sandbox.support().works  # probed (and cached) with the machine's real cgroups
        _no_cgroups(monkeypatch)
    return request.param


def _client(tmp_path, *args, name="ponder", **limits) -> BotClient:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    out.chmod(0o1777)
    folder = bot_folder(tmp_path, "ponder", "--out", out, *args, name=name)
    return BotClient(load_manifest(folder), limits=Limits(writable=(str(out),), **limits))


def _start(client: BotClient) -> None:
    client.start()
    client.start_match(pb.StartMatchRequest(match_id="m", ruleset="classic", seat=0))


_loops: dict[int, asyncio.AbstractEventLoop] = {}


def _decide(client: BotClient, timeout_s: float = 30.0) -> pb.DecideResponse:
    """One decision, on the client's own event loop (a grpc.aio channel serves one loop)."""
    loop = _loops.setdefault(id(client), asyncio.new_event_loop())
    return loop.run_until_complete(client.decide_async(REQUEST, timeout_s))


def _reports(tmp_path) -> list[dict]:
    return [json.loads(line) for path in sorted((tmp_path / "out").glob("ponder-*.jsonl"))
            for line in path.read_text().splitlines()]


def _sandbox_cpu_ticks(client: BotClient) -> int:
    """CPU time (clock ticks) used so far by every process of the bot's sandbox, read on the host:
    each process's own time and that of the children it has reaped (``cutime``, ``cstime``), so
    the sum never falls when a child exits."""
    ns = os.stat(f"/proc/{client._sandbox.child}/ns/pid").st_ino
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}/ns/pid").st_ino != ns:
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(map(int, fields[11:15]))  # utime, stime, cutime, cstime
        except (OSError, IndexError, ValueError):
            continue
    return total


def _wait_stopped(client: BotClient) -> None:
    """Wait until the kernel has stopped every task of a bot frozen by its cgroup (the referee
    does not wait: the bot runs none of its code after the write, its sleeping threads are
    stopped by the kernel within ~1 ms; stopping by signals returns once all are stopped)."""
    if client.freezes() == "cgroup":
        cgroup, deadline = client._sandbox.cgroup, time.monotonic() + 10
        while cgroup.frozen_mark not in Path(cgroup.frozen_file).read_bytes():
            assert time.monotonic() < deadline, "the bot was not frozen"
            time.sleep(0.001)


def _progress_between_decisions(tmp_path, client: BotClient, decisions: int = 4) -> tuple[list[float], int]:
    """The counter's progress between consecutive decisions, in seconds of the bot's background
    thread counting at the rate it counts while the bot decides (naps); and the CPU time (clock
    ticks) the bot's processes used between its decisions, seen from the host."""
    ticks = 0
    for _ in range(decisions):
        _decide(client)
        _wait_stopped(client)
        before = _sandbox_cpu_ticks(client)
        time.sleep(GAP_S)  # the window measured: the bot's clock keeps running
        ticks += _sandbox_cpu_ticks(client) - before
    rows = _reports(tmp_path)
    assert len(rows) == decisions
    rate = statistics.median((r["at_end"] - r["at_start"]) / (r["t_end"] - r["t_start"]) for r in rows)
    assert rate > 0  # it counts while it decides
    assert all(b["t_start"] - a["t_end"] >= GAP_S for a, b in zip(rows, rows[1:]))  # its clock kept running
    return [(b["at_start"] - a["at_end"]) / rate for a, b in zip(rows, rows[1:])], ticks


@pytest.mark.guard(60)
@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "control"])
def test_a_bot_does_not_run_between_its_decisions(tmp_path, how, freeze):
    client = _client(tmp_path, "--threads", "1", "--nap", "0.05", freeze=freeze, weak_limits=how == "signals")
    try:
        _start(client)
        assert client.freezes() == ((how if how == "cgroup" else "signals") if freeze else None)
        running_s, ticks = _progress_between_decisions(tmp_path, client)
    finally:
        client.close()
    # (its counter is compared with its rate while it decides, under the same load of the machine)
    if freeze:  # the moments between its answer and the freeze, and the thaw and its request
        assert statistics.median(running_s) < 0.1 * GAP_S and ticks == 0, (running_s, ticks)
    else:
        assert statistics.median(running_s) > 0.4 * GAP_S and ticks > 0, (running_s, ticks)
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(90)
def test_a_waiting_partner_takes_no_cpu_from_the_deciding_bot(tmp_path):
    """Partners A and B: A's three child processes spin between its decisions; B decides (busy
    0.25 s each).  Without a CPU quota (cpus=0), unfrozen they take CPU during B's decisions
    (the control: with B, four runnable processes on two cores), frozen not one clock tick in
    B's ten decisions.  (B's median share of a core is in the message; on a loaded machine it
    is noise.)"""
    got = {}
    for freeze in (False, True):
        run = tmp_path / str(freeze)
        run.mkdir()
        a = _client(run, "--procs", "3", name="stealer", freeze=freeze, cpus=0)
        b = _client(run, "--busy", "0.25", name="decider", freeze=freeze, cpus=0)
        try:
            _start(a)
            _start(b)
            if freeze:
                _wait_stopped(a)
            before, decisions = _sandbox_cpu_ticks(a), 0
            # frozen: 10 decisions; the control: until A has taken 10 ticks (a loaded machine
            # may give its spinners little of B's 0.25 s), at most 40 decisions
            while decisions < 10 or (not freeze and _sandbox_cpu_ticks(a) - before < 10 and decisions < 40):
                _decide(b)
                decisions += 1
            stolen = _sandbox_cpu_ticks(a) - before
            shares = [r["share"] for r in _reports(run)]
        finally:
            a.close()
            b.close()
        got[freeze] = stolen, decisions, statistics.median(shares)
        assert_no_leftovers(run)
    assert got[True][0] == 0, got  # frozen: not one clock tick in B's 10 decisions (2.5 s)
    assert got[False][0] >= 10, got  # the control: three spinners on two cores take CPU while B decides


@pytest.mark.guard(120)
@pytest.mark.parametrize("wait", [True, False], ids=["waited", "control"])
def test_kernel_work_a_bot_starts_as_it_answers_runs_in_its_own_time(tmp_path, monkeypatch, wait):
    """Red team 50 (``exitsteal``): a bot unmapped 256 MiB of touched pages as its answer left;
    the kernel's freeing went on after the freeze was asked for, beside the next seat (~12 ms a
    decision).  A freeze now waits until the kernel says every task is stopped: once the referee
    goes on, the bot uses not one clock tick (10 decisions, 0.3 s each after).  The control,
    not waiting (``WAIT_FROZEN`` off, as before), sees the bot's CPU run on."""
    monkeypatch.setattr(sandbox.Freezer, "WAIT_FROZEN", wait)
    folder = bot_folder(tmp_path, "unmapper")
    client = BotClient(load_manifest(folder), limits=Limits())
    try:
        _start(client)
        after = 0
        for _ in range(10):
            _decide(client)  # answered, then frozen
            before = _sandbox_cpu_ticks(client)
            time.sleep(GAP_S * 0.6)  # the next seat's turn
            after += _sandbox_cpu_ticks(client) - before
    finally:
        client.close()
    if wait:
        assert after == 0, after
    else:
        assert after >= 3, after  # the freeing of 10 × 192 MiB ran on (~5 ticks a decision)
    assert_no_leftovers(tmp_path)


def _states(client: BotClient) -> list[str]:
    """The state letter of every task of the bot's sandbox, read on the host."""
    ns, states = os.stat(f"/proc/{client._sandbox.child}/ns/pid").st_ino, []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}/ns/pid").st_ino == ns:
                for tid in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{tid}/stat") as f:
                        states.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            continue
    return states


@pytest.mark.guard(60)
@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "control"])
def test_a_bot_forking_while_it_is_stopped_is_stopped_whole(tmp_path, how, freeze):
    """Two threads fork children one after another (each spins 20 ms): once frozen, every task
    of its sandbox is stopped and not one clock tick is used in 0.5 s (control: unfrozen, it
    runs)."""
    client = _client(tmp_path, "--forks", "2", freeze=freeze, weak_limits=how == "signals")
    try:
        _start(client)
        deadline = time.monotonic() + 10
        while len(_states(client)) < 4:  # init, the bot's threads and a child or two
            assert time.monotonic() < deadline
            time.sleep(0.01)
        if freeze:
            _wait_stopped(client)
        before = _sandbox_cpu_ticks(client)
        time.sleep(GAP_S)
        ticks, states = _sandbox_cpu_ticks(client) - before, _states(client)
        deadline = time.monotonic() + 10
        while not freeze and ticks == 0 and time.monotonic() < deadline:  # a loaded machine: wait for it to run
            time.sleep(0.05)
            ticks = _sandbox_cpu_ticks(client) - before
    finally:
        client.close()
    if freeze:
        stopped = {"T", "t", "Z"} if how == "signals" else {"D", "Z"}  # the freezer's frozen tasks show D
        assert ticks == 0 and set(states) <= stopped, (ticks, states)
    else:
        assert ticks > 0, (ticks, states)
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_a_frozen_bot_dies_when_closed(tmp_path, how):
    client = _client(tmp_path, "--threads", "1", weak_limits=how == "signals")
    _start(client)
    assert client._freezer.frozen
    process = client.process
    t0 = time.monotonic()
    client.close()
    assert time.monotonic() - t0 < 3.0
    assert process.poll() is not None and client.process is None
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "control"])
@pytest.mark.parametrize("end", ["timeout", "cancel"])
def test_a_close_after_an_unfinished_decision_never_hangs(tmp_path, how, freeze, end):
    """A decision that does not finish (the bot spins 30 s): ended by its deadline (then the
    match closes the bot) or cancelled on the event loop (a Ctrl-C, then the match closes
    every bot); close() then returns at once and the bot dies, frozen or not."""
    client = _client(tmp_path, "--threads", "1", "--busy", "30", freeze=freeze, weak_limits=how == "signals")
    _start(client)
    loop = asyncio.new_event_loop()
    if end == "timeout":
        with pytest.raises(grpc.RpcError) as failed:
            loop.run_until_complete(client.decide_async(REQUEST, 0.5))
        assert failed.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    else:
        task = loop.create_task(client.decide_async(REQUEST, 30))
        before = _sandbox_cpu_ticks(client)
        deadline = time.monotonic() + 20
        while _sandbox_cpu_ticks(client) < before + 5:  # it decides: it spins
            loop.run_until_complete(asyncio.sleep(0.01))
            assert time.monotonic() < deadline, "the decision did not start"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            loop.run_until_complete(task)
    loop.run_until_complete(client.aclose_aio())
    process, t0 = client.process, time.monotonic()
    client.close()
    assert time.monotonic() - t0 < 3.0 and process.poll() is not None
    loop.close()
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_grpc_works_after_a_long_freeze(tmp_path):
    """The referee talks to a frozen bot's server only right after thawing it: after 10 s
    frozen (timers of gRPC's HTTP/2 transport run on the referee's side meanwhile), a decision
    over the open DecideStream, one over unary Decide, and EndMatch over the other channel
    all work, and the bot's clock saw the whole freeze."""
    client = _client(tmp_path, "--nap", "0")
    try:
        _start(client)
        _decide(client)  # opens the stream
        _wait_stopped(client)
        time.sleep(10)
        assert _decide(client).action.bid.kind == pb.BID_KIND_PASS  # the same stream
        client.stream_decisions = False
        assert _decide(client).action.bid.kind == pb.BID_KIND_PASS  # unary, on the same channel
        client.end_match(pb.EndMatchRequest(match_id="m"))
        rows = _reports(tmp_path)
        assert len(rows) == 3 and rows[1]["t_start"] - rows[0]["t_end"] >= 10
    finally:
        client.close()
    assert_no_leftovers(tmp_path)
