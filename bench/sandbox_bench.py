"""The cost of the bot sandbox (issue 9): bubblewrap against an unsandboxed bot, in one run.

Run: ``python bench/sandbox_bench.py [--starts N] [--boards N] [--rounds R]``.

1. **Start-up**: ``BotClient.start()`` of ``sample_bots/random`` until it answers
   ``GetBotInfo``, then ``close()``; sandboxed and ``--no-isolate`` starts alternate,
   ``--starts`` of each.
2. **Per decision**: a duplicate match of ``random`` against ``random`` (8 bot
   processes) over ``--boards`` boards, sandboxed and not, alternating for
   ``--rounds`` rounds; the wall time of the match divided by the bot calls.

Both are printed as medians with the ratio sandboxed ÷ unsandboxed (the
machine's other load shows in every figure: compare figures of one run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import sandbox  # noqa: E402
from referee.botproc import BotClient  # noqa: E402
from referee.manifest import load_manifest  # noqa: E402
from referee.match import Entrant, MatchConfig, play_match  # noqa: E402
from referee.rules import RULESETS, make_board  # noqa: E402

RANDOM = load_manifest(ROOT / "sample_bots" / "random")


def start_once(isolate: bool) -> float:
    t0 = time.perf_counter()
    client = BotClient(RANDOM, limits=sandbox.Limits(isolate=isolate))
    try:
        client.start()
        client.info()
        return time.perf_counter() - t0
    finally:
        client.close()


def match_once(limits: sandbox.Limits, boards: int, manifest=RANDOM) -> tuple[float, int]:
    """A match of ``random`` (or ``manifest``) against itself, ``boards`` classic boards under
    ``limits``: (wall seconds, bot calls made).  Also used by bench/freeze_bench.py and
    bench/evict_bench.py."""
    a = Entrant("random-a", manifest=manifest)
    b = Entrant("random-b", manifest=manifest)
    config = MatchConfig(ruleset=RULESETS["classic"], limits=limits)
    t0 = time.perf_counter()
    results = play_match("bench", a, b, [make_board(11, k) for k in range(boards)], config)
    wall = time.perf_counter() - t0
    calls = sum(1 for r in results for t in r.tables for d in t.decisions if d.ms > 0)
    return wall, calls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--starts", type=int, default=20)
    p.add_argument("--boards", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    print(sandbox.report(sandbox.Limits()))
    starts = {True: [], False: []}
    for _ in range(args.starts):
        for isolate in (True, False):
            starts[isolate].append(start_once(isolate))
    per_call = {True: [], False: []}
    for _ in range(args.rounds):
        for isolate in (True, False):
            wall, calls = match_once(sandbox.Limits(isolate=isolate), args.boards)
            per_call[isolate].append(wall / calls * 1000)
    s_on, s_off = statistics.median(starts[True]) * 1000, statistics.median(starts[False]) * 1000
    c_on, c_off = statistics.median(per_call[True]), statistics.median(per_call[False])
    print()
    print("| measure | sandboxed | unsandboxed | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| bot start until GetBotInfo answers, ms (median of {args.starts}) | {s_on:.0f} | {s_off:.0f} "
          f"| {s_on / s_off:.2f}× |")
    print(f"| match wall time per bot call, ms (median of {args.rounds} matches of {args.boards} boards) "
          f"| {c_on:.3f} | {c_off:.3f} | {c_on / c_off:.2f}× |")


if __name__ == "__main__":
    main()
