"""The cost of clearing the CPU caches before each bot turn (``referee.evict``, issue 19), in one run.

Run: ``python bench/evict_bench.py [--boards N] [--rounds R]``.

A duplicate match of ``sample_bots/random`` against itself (8 sandboxed bot processes,
frozen between decisions) over ``--boards`` boards, with the caches cleared before each
thaw (``Limits(evict_caches=True)``, the default) and without, alternating for
``--rounds`` rounds.  Printed: the match's wall time per bot call, its ratio to the match
without clearing of the same round, and one clearing's time (ms, timed in-process), with
the buffer each CPU's helper reads (``referee.evict.plan``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import evict, sandbox  # noqa: E402
from sandbox_bench import match_once  # noqa: E402 - bench/, beside this script


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    print(sandbox.report(sandbox.Limits()))
    print("each CPU's helper reads, MiB (its own caches, then the shared ones):",
          {cpu: tuple(round(n / 2**20, 1) for n in sizes) for cpu, sizes in evict.plan().items()})
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    per_call = {False: [], True: []}
    ratio = []
    clearing_ms = []
    ev = evict.shared()
    for _ in range(args.rounds):
        got = {}
        for on in (False, True):
            wall, calls = match_once(sandbox.Limits(evict_caches=on), args.boards)
            got[on] = wall / calls
            per_call[on].append(wall / calls * 1000)
        ratio.append(got[True] / got[False])
    ts = [ev.evict() * 1000 for _ in range(200)]
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}\n")
    print("| bots | wall time per bot call, ms | ÷ without clearing |")
    print("|---|---:|---:|")
    print(f"| caches not cleared | {statistics.median(per_call[False]):.3f} | 1.00× |")
    print(f"| caches cleared before each thaw | {statistics.median(per_call[True]):.3f} | {statistics.median(ratio):.2f}× |")
    ts.sort()
    print(f"\none clearing alone (200 in a row): median {statistics.median(ts):.2f} ms, p90 {ts[179]:.2f}, max {ts[-1]:.2f}")
    print(f"(medians of {args.rounds} rounds of a {args.boards}-board match each)")


if __name__ == "__main__":
    main()
