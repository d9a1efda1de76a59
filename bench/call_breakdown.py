"""Where the time of one bot call goes: referee engine, observation, protobuf, gRPC, bot side.

Run: ``python bench/call_breakdown.py [--boards N] [--calls N] [--ruleset R]``.

In one run:

1. **In-process pieces** (no process, no socket), over the decisions of ``--boards``
   random boards at both tables, counting only decisions the referee asks a bot for
   (more than one legal action), mean µs per call, one core:
   engine (``legal_actions`` + ``apply``), observation (``observe``), the request's
   protobuf messages (``wire.observation_pb``, the legal actions, ``DecideRequest``),
   its encoding (``SerializeToString``), the bot's decoding of it (``FromString``),
   the bot's answer (random choice, ``DecideResponse``, encoded), and the referee's
   reading of the answer (``FromString``, ``wire.action_from_pb``, the legality check).
2. **Transport**: a bare gRPC streaming echo of the same sizes, 4 servers in turn
   (``bench/referee_bench.py``'s), and the real referee over ``DecideStream`` against 4
   ``sample_bots/random`` processes (wall time per call).

The table ends with "gRPC and the SDK's server, the rest": the real per-call wall time
minus the in-process pieces — what both gRPC stacks and the scheduling of 9 processes
cost.  Compare figures of one run only (the machine's other load shows in all of them).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from belote_arena_sdk.proto import bot_pb2 as pb  # noqa: E402
from referee import wire  # noqa: E402
from referee.rules import RULESETS, Phase, make_board, observe  # noqa: E402
from referee.rules.game import BoardMatchTable  # noqa: E402

import referee_bench  # noqa: E402

PIECES = ("engine", "observation", "request messages", "request encode", "bot: request decode",
          "bot: answer + encode", "referee: answer decode + check")


def pieces(ruleset_name: str, boards: int) -> tuple[dict[str, float], int, int, int]:
    """Seconds per piece over every asked decision of ``boards`` boards, the number of calls,
    the median request and answer sizes in bytes."""
    rs = RULESETS[ruleset_name]
    rng = random.Random(1)
    options = wire.ruleset_options_pb(rs, board_count=boards)
    spent = dict.fromkeys(PIECES, 0.0)
    calls = 0
    sizes: list[tuple[int, int]] = []
    clock = time.perf_counter
    for k in range(boards):
        board = make_board(1, k, rs.seats)
        for table in (1, 2):
            bm = BoardMatchTable(rs)
            state = bm.new_deal(board.deck, board.dealer)
            while not state.is_terminal():
                t0 = clock()
                legal = state.legal_actions()
                t1 = clock()
                spent["engine"] += t1 - t0
                if len(legal) == 1:
                    t0 = clock()
                    state.apply(legal[0])
                    spent["engine"] += clock() - t0
                    continue
                calls += 1
                turned = state.turned >> 3
                t0 = clock()
                obs = observe(state, state.to_act)
                t1 = clock()
                request = pb.DecideRequest(observation=wire.observation_pb(obs, options=options, deal_number=k),
                                           legal_actions=[wire.action_pb(a, turned) for a in legal],
                                           deadline_ms=1000)
                t2 = clock()
                data = request.SerializeToString()
                t3 = clock()
                got = pb.DecideRequest.FromString(data)
                t4 = clock()
                answer = pb.DecideResponse(action=rng.choice(got.legal_actions)).SerializeToString()
                t5 = clock()
                response = pb.DecideResponse.FromString(answer)
                rnd = rs.bidding_rounds[state.bidding_round] if state.phase is Phase.BIDDING else None
                action = wire.action_from_pb(response.action, state.phase, turned,
                                             bool(rnd and rnd.take_turned and not rnd.take_any_suit))
                assert action in legal
                t6 = clock()
                state.apply(action)
                t7 = clock()
                for name, dt in zip(PIECES, (t7 - t6, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5)):
                    spent[name] += dt
                sizes.append((len(data), len(answer)))
            bm.finish_deal(state)
    return (spent, calls, int(statistics.median(s[0] for s in sizes)), int(statistics.median(s[1] for s in sizes)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=200)
    p.add_argument("--calls", type=int, default=5000, help="echo calls")
    p.add_argument("--ruleset", choices=list(RULESETS), default="classic")
    args = p.parse_args()
    spent, calls, req_b, resp_b = pieces(args.ruleset, args.boards)
    wall, cpu, _, in_calls, _, _, _ = referee_bench.time_referee(args.ruleset, args.boards, False)
    echo, _ = referee_bench.time_echo(req_b, resp_b, args.calls, 4, stream=True)
    real = wall * 1e6 / len(in_calls)
    echo_us = statistics.fmean(echo) * 1000
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.ruleset}, {args.boards} boards at both tables, {calls} asked decisions; "
          f"DecideRequest median {req_b} B, DecideResponse {resp_b} B")
    print("| per bot call | µs | share of the real call |")
    print("|---|---:|---:|")
    total = 0.0
    for name in PIECES:
        us = spent[name] * 1e6 / calls
        total += us
        print(f"| {name} | {us:.1f} | {us / real:.0%} |")
    print(f"| in-process pieces together | {total:.1f} | {total / real:.0%} |")
    print(f"| gRPC and the SDK's server, the rest (real − pieces) | {real - total:.1f} | {(real - total) / real:.0%} |")
    print(f"| **real referee call over DecideStream, 4 random bots** | **{real:.1f}** | 100% |")
    print(f"| bare gRPC streaming echo, same sizes, 4 servers in turn | {echo_us:.1f} | {echo_us / real:.0%} |")
    print(f"referee wall per call / streaming echo: {real / echo_us:.2f}×; "
          f"referee process CPU per call {cpu * 1e6 / len(in_calls):.0f} µs (its gRPC client included)")


if __name__ == "__main__":
    main()
