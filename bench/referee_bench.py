"""Referee speed: decisions per second through the referee, against a bare gRPC echo.

Run: ``python bench/referee_bench.py [--boards N] [--calls N] [--ruleset R] [--profile]``.

In one run, on the same machine:

1. **Referee.** A duplicate match of ``sample_bots/random`` against itself
   (8 bot processes, real gRPC over Unix sockets, the default 1 s deadline),
   decisions over each process's ``DecideStream`` (the referee's default).
   One warm-up board starts every process; the next ``--boards`` boards are
   timed. Then the same again with unary ``Decide`` calls, for comparison. Measured: wall time of ``DuplicateMatch.play_board`` (everything the
   referee does: engine, observations, protocol conversion, validation, records,
   and the calls) divided by the number of bot calls (decisions with one legal
   action are played by the referee without a call and are not counted as
   calls); the time inside the calls (``Decision.ms``: a round trip including
   the bot's own decide); and the rest, the referee's own work per call.
2. **Referee without gRPC.** The same number of boards with in-process stub
   bots (a random legal action, no process, no call): the referee's own work
   per decision it asks for — engine, observation, protocol messages both ways,
   validation, records.
3. **Bare echo.** gRPC servers in separate processes on Unix sockets (a generic
   bytes handler, no protobuf, 4 worker threads like the SDK's server) answer
   unary calls whose request is as large as the median ``DecideRequest`` of the
   match and whose reply is as large as the median ``DecideResponse``; the
   client uses the referee's channel options and a deadline on every call.
   Timed twice: always the same server (the best case), and round-robin over 4
   servers, as a table's 4 seats are 4 processes (RULES.md §8 seat isolation):
   a process woken in turn answers more slowly than one kept busy. And the same
   two again over one bidirectional stream per server (a message each way per
   round trip, requests fed through a queue as the referee feeds them).

4. **Bots without the referee.** The match's own ``DecideRequest`` messages sent
   in turn to 4 ``sample_bots/random`` processes started as the referee starts
   them: the bot side's cost (protobuf, the SDK's server, ``decide``) over the echo.

The figure of merit is **referee wall time per call ÷ echo round trip** (target
≤ 1.3×), printed against the unary and the streaming echoes. All times are wall-clock means unless
marked CPU; the machine's other load shows in every figure, so compare figures
of one run. With ``--profile`` the timed boards run under cProfile and the hot
spots are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from belote_arena_sdk.proto import bot_pb2 as pb  # noqa: E402
from referee import match as match_module  # noqa: E402
from referee.botproc import _CHANNEL_OPTIONS, BotClient  # noqa: E402
from referee.manifest import load_manifest  # noqa: E402
from referee.match import DuplicateMatch, Entrant, MatchConfig  # noqa: E402
from referee.rules import RULESETS, make_board  # noqa: E402

ECHO_METHOD = "/bench.Echo/Call"


# ------------------------------------------------------------------ echo
def echo_server(socket_path: str, reply_bytes: int) -> None:
    """Serve ECHO_METHOD on ``socket_path``: any request → ``reply_bytes`` bytes."""
    import signal
    from concurrent import futures

    reply = b"\x0a" * reply_bytes

    def stream(requests, context):
        for _ in requests:
            yield reply

    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Call": grpc.unary_unary_rpc_method_handler(lambda request, context: reply),
        "Stream": grpc.stream_stream_rpc_method_handler(stream),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"unix:{socket_path}")
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()


ECHO_STREAM_METHOD = "/bench.Echo/Stream"
_END = object()


class _EchoStream:
    """One bidirectional echo stream, driven as :class:`referee.botproc.BotClient` drives
    ``DecideStream``: requests through a queue, answers read with ``next()``."""

    def __init__(self, channel: grpc.Channel):
        self.requests: queue.SimpleQueue = queue.SimpleQueue()
        self.call = channel.stream_stream(ECHO_STREAM_METHOD)(self._iterate())

    def _iterate(self):
        while (item := self.requests.get()) is not _END:
            yield item

    def __call__(self, payload: bytes, timeout: float) -> bytes:
        self.requests.put(payload)
        return next(self.call)

    def close(self) -> None:
        self.requests.put(_END)
        self.call.cancel()


def time_echo(request_bytes: int, reply_bytes: int, calls: int, servers: int,
              stream: bool = False) -> tuple[list[float], float]:
    """Round trips (ms) and client CPU ms per call of ``calls`` unary calls (``stream``: messages
    on one bidirectional stream per server), round-robin over ``servers`` echo processes."""
    folder = Path(tempfile.mkdtemp(prefix="belote-bench-"))
    socks = [folder / f"echo{i}.sock" for i in range(servers)]
    procs = [subprocess.Popen([sys.executable, __file__, "--echo-server", str(s), "--reply-bytes", str(reply_bytes)],
                              stdin=subprocess.DEVNULL) for s in socks]
    channels = []
    try:
        deadline = time.monotonic() + 10
        while not all(s.exists() for s in socks):
            if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                raise RuntimeError("an echo server did not start")
            time.sleep(0.01)
        channels = [grpc.insecure_channel(f"unix://{s}", options=_CHANNEL_OPTIONS) for s in socks]
        for ch in channels:
            grpc.channel_ready_future(ch).result(timeout=10)
        if stream:
            stubs = streams = [_EchoStream(ch) for ch in channels]
        else:
            stubs, streams = [ch.unary_unary(ECHO_METHOD) for ch in channels], []
        payload = b"\x0a" * request_bytes
        for i in range(200 * servers):  # warm-up
            stubs[i % servers](payload, timeout=1.0)
        out = []
        c0 = time.process_time()
        for i in range(calls):
            call = stubs[i % servers]
            t0 = time.perf_counter()
            call(payload, timeout=1.0)
            out.append((time.perf_counter() - t0) * 1000)
        cpu = (time.process_time() - c0) * 1000 / calls
        for s in streams:
            s.close()
        return out, cpu
    finally:
        for ch in channels:
            ch.close()
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(5)
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


def time_bots(requests: list, calls: int, ruleset: str) -> tuple[list[float], float]:
    """Round trips (ms) and client CPU ms per call of ``calls`` decisions taken from ``requests``,
    sent in turn to 4 ``sample_bots/random`` processes started as the referee starts them,
    over the referee's own call (:meth:`BotClient.decide_async`)."""
    manifest = load_manifest(ROOT / "sample_bots" / "random")
    clients = [BotClient(manifest, seed=i) for i in range(4)]

    async def timed() -> tuple[list[float], float]:
        for i in range(200 * len(clients)):  # warm-up
            await clients[i % len(clients)].decide_async(requests[i % len(requests)], 1.0)
        out = []
        c0 = time.process_time()
        for i in range(calls):
            client, request = clients[i % len(clients)], requests[i % len(requests)]
            t0 = time.perf_counter()
            await client.decide_async(request, 1.0)
            out.append((time.perf_counter() - t0) * 1000)
        cpu = (time.process_time() - c0) * 1000 / calls
        for c in clients:
            await c.aclose_aio()
        return out, cpu

    try:
        for seat, c in enumerate(clients):
            c.start()
            c.start_match(pb.StartMatchRequest(match_id="bench", ruleset=ruleset, seat=seat))
        return asyncio.run(timed())
    finally:
        for c in clients:
            c.close()


# ------------------------------------------------- referee without gRPC
class _StubClient:
    """An in-process bot: a random legal action, no process, no call."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def decide(self, request, timeout_s):
        return pb.DecideResponse(action=self.rng.choice(request.legal_actions))

    async def decide_async(self, request, timeout_s):
        return self.decide(request, timeout_s)

    async def aclose_aio(self) -> None:
        pass

    def alive(self) -> bool:
        return True

    def end_match(self, request, timeout_s: float = 1.0) -> None:
        pass

    def close(self) -> None:
        pass


def time_referee_alone(ruleset: str, boards: int) -> tuple[float, float, int]:
    """Wall and CPU seconds and calls of ``boards`` boards with in-process stub bots (the referee's own work)."""
    rng = random.Random(1)
    ensure = match_module._Seat.ensure

    def stub_ensure(self, start_request):
        if self.client is None:
            self.client = _StubClient(rng)
        return self.client

    match_module._Seat.ensure = stub_ensure
    rs = RULESETS[ruleset]
    try:
        with DuplicateMatch("bench", Entrant("A"), Entrant("B"), MatchConfig(ruleset=rs), board_count=boards) as match:
            match.play_board(make_board(1, 0, rs.seats))
            t0, c0 = time.perf_counter(), time.process_time()
            results = [match.play_board(make_board(1, k, rs.seats), (1, 0, 3, 2)) for k in range(1, boards + 1)]
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        match_module._Seat.ensure = ensure
    calls = sum(d.ms > 0 for r in results for t in r.tables for d in t.decisions)
    return wall, cpu, calls


# --------------------------------------------------------------- referee
def time_referee(ruleset: str, boards: int, profile: bool, stream: bool = True):
    """Play 1 + ``boards`` boards of random vs random (decisions over ``DecideStream``, else
    unary ``Decide``); return the measurements of the timed boards."""
    manifest = load_manifest(ROOT / "sample_bots" / "random")
    a = Entrant(key=f"{manifest.key}#A", manifest=manifest)
    b = Entrant(key=f"{manifest.key}#B", manifest=manifest)
    rs = RULESETS[ruleset]
    sizes: list[tuple[int, int]] = []
    requests: list = []
    decide = BotClient.decide_async  # the referee's call

    async def measured_decide(self, request, timeout_s):
        response = await decide(self, request, timeout_s)
        sizes.append((request.ByteSize(), response.ByteSize()))
        if len(requests) < 2000:
            requests.append(request)
        return response

    BotClient.decide_async = measured_decide
    BotClient.stream_decisions = stream
    profiler = cProfile.Profile() if profile else None
    try:
        with DuplicateMatch("bench", a, b, MatchConfig(ruleset=rs, seed=1), board_count=boards + 1) as match:
            match.play_board(make_board(1, 0, rs.seats))  # warm-up: starts the 8 processes
            sizes.clear()
            requests.clear()
            results = []
            t0, c0 = time.perf_counter(), time.process_time()
            if profiler:
                profiler.enable()
            for k in range(1, boards + 1):
                results.append(match.play_board(make_board(1, k, rs.seats), (1, 0, 3, 2)))
            if profiler:
                profiler.disable()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        BotClient.decide_async = decide
        BotClient.stream_decisions = True
    decisions = [d for r in results for t in r.tables for d in t.decisions]
    in_calls = [d.ms for d in decisions if d.ms > 0]
    assert len(in_calls) == len(sizes), "every call has a measured time"
    assert not [f for r in results for t in r.tables for f in t.faults], "random faulted"
    return wall, cpu, len(decisions), in_calls, sizes, requests, profiler


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=200, help="timed boards (each at two tables)")
    p.add_argument("--calls", type=int, default=5000, help="echo calls")
    p.add_argument("--ruleset", choices=list(RULESETS), default="classic")
    p.add_argument("--profile", action="store_true", help="run the timed boards under cProfile, print hot spots")
    p.add_argument("--echo-server", help=argparse.SUPPRESS)
    p.add_argument("--reply-bytes", type=int, default=8, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.echo_server:
        echo_server(args.echo_server, args.reply_bytes)
        return

    wall, cpu, n_decisions, in_calls, sizes, requests, profiler = time_referee(args.ruleset, args.boards, args.profile)
    u_wall, u_cpu, _, u_in_calls, _, _, _ = time_referee(args.ruleset, args.boards, False, stream=False)
    n_calls = len(in_calls)
    req_bytes = int(statistics.median(s[0] for s in sizes))
    resp_bytes = int(statistics.median(s[1] for s in sizes))
    alone_wall, alone_cpu, alone_calls = time_referee_alone(args.ruleset, args.boards)
    echo1, echo1_cpu = time_echo(req_bytes, resp_bytes, args.calls, 1)
    echo4, echo4_cpu = time_echo(req_bytes, resp_bytes, args.calls, 4)
    secho1, secho1_cpu = time_echo(req_bytes, resp_bytes, args.calls, 1, stream=True)
    secho4, secho4_cpu = time_echo(req_bytes, resp_bytes, args.calls, 4, stream=True)
    bots, bots_cpu = time_bots(requests, args.calls, args.ruleset)

    per_call = wall * 1000 / n_calls
    inside = statistics.fmean(in_calls)
    alone = alone_cpu * 1000 / alone_calls
    e1, e4 = statistics.fmean(echo1), statistics.fmean(echo4)
    s1, s4 = statistics.fmean(secho1), statistics.fmean(secho4)
    u_per_call = u_wall * 1000 / len(u_in_calls)
    u_inside = statistics.fmean(u_in_calls)
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, grpcio {grpc.__version__}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"referee over DecideStream: {args.ruleset}, random vs random, {args.boards} boards after a warm-up board, "
          f"{'under cProfile, ' if profiler else ''}{wall:.2f} s")
    print(f"  {n_decisions} decisions ({n_decisions / wall:,.0f}/s), {n_calls} bot calls ({n_calls / wall:,.0f}/s); "
          f"DecideRequest median {req_bytes} B (max {max(s[0] for s in sizes)} B), DecideResponse {resp_bytes} B")
    print(f"  wall time per call              {per_call:.3f} ms")
    print(f"  inside the call (round trip)    {inside:.3f} ms mean, {statistics.median(in_calls):.3f} ms p50")
    print(f"  referee's own work per call     {per_call - inside:.3f} ms (wall − time inside calls)")
    print(f"  referee process CPU per call    {cpu * 1000 / n_calls:.3f} ms (its gRPC client included)")
    print(f"referee over unary Decide, the same {args.boards} boards: {u_wall:.2f} s, {len(u_in_calls)} bot calls")
    print(f"  wall time per call              {u_per_call:.3f} ms")
    print(f"  inside the call (round trip)    {u_inside:.3f} ms mean, {statistics.median(u_in_calls):.3f} ms p50")
    print(f"  referee process CPU per call    {u_cpu * 1000 / len(u_in_calls):.3f} ms")
    print(f"referee without gRPC (in-process stub bots), {args.boards} boards: "
          f"{alone_calls} calls in {alone_wall:.2f} s")
    print(f"  referee's own work per call     {alone:.3f} ms CPU ({alone_calls / alone_wall:,.0f} calls/s)")
    print(f"bare gRPC unary echo ({req_bytes} B → {resp_bytes} B, separate processes, Unix sockets), "
          f"{args.calls} calls each:")
    for name, echo, ccpu in (("1 server", echo1, echo1_cpu), ("4 servers in turn", echo4, echo4_cpu),
                             ("stream, 1 server", secho1, secho1_cpu), ("stream, 4 in turn", secho4, secho4_cpu)):
        if name == "stream, 1 server":
            print(f"bare gRPC streaming echo (one bidirectional stream per server, same sizes), {args.calls} calls each:")
        print(f"  {name:<18}  round trip {statistics.fmean(echo):.3f} ms mean, {statistics.median(echo):.3f} ms p50 "
              f"({1000 / statistics.fmean(echo):,.0f} calls/s), client CPU {ccpu:.3f} ms/call")
    print(f"4 random bots in turn over DecideStream, the match's own DecideRequests, no referee, {args.calls} calls:")
    print(f"  round trip {statistics.fmean(bots):.3f} ms mean, {statistics.median(bots):.3f} ms p50, "
          f"client CPU {bots_cpu:.3f} ms/call")
    print("ratios (means), target ≤ 1.3×:")
    print(f"  referee (stream) wall per call / unary echo, 1 server:           {per_call / e1:.2f}×")
    print(f"  referee (stream) wall per call / unary echo, 4 servers in turn:  {per_call / e4:.2f}×")
    print(f"  referee (stream) wall per call / stream echo, 1 server:          {per_call / s1:.2f}×")
    print(f"  referee (stream) wall per call / stream echo, 4 servers in turn: {per_call / s4:.2f}×")
    print(f"  referee (unary) wall per call / unary echo, 4 servers in turn:   {u_per_call / e4:.2f}×")
    print(f"  referee (unary) / referee (stream), wall per call:               {u_per_call / per_call:.2f}×")
    print(f"  time inside a call (stream) / stream echo, 4 servers in turn:    {inside / s4:.2f}×")
    print(f"  4 bots in turn (stream) / stream echo, 4 servers in turn:        {statistics.fmean(bots) / s4:.2f}×  "
          "(the bot side: protobuf, SDK, decide)")
    print(f"  referee's own work (no gRPC) / unary echo, 1 server:             {alone / e1:.2f}×")
    if profiler:
        s = io.StringIO()
        stats = pstats.Stats(profiler, stream=s)
        stats.sort_stats("tottime").print_stats(25)
        print(s.getvalue())


if __name__ == "__main__":
    main()
