"""The cost of freezing bots between their decisions (issue 19 item 2), in one run.

Run: ``python bench/freeze_bench.py [--boards N] [--rounds R]``.

A duplicate match of ``sample_bots/random`` against itself (8 sandboxed bot processes)
over ``--boards`` boards, with freezing (``Limits(freeze=True)``) and without, alternating
for ``--rounds`` rounds, each way of freezing this machine offers: the freezer cgroup, waiting after each freeze
until the kernel says all is stopped (as the referee does since red team 50) and not waiting,
and signals through the sandbox's ``/proc`` (as without cgroups: ``cgroup_folders``
emptied, ``weak_limits``).  Printed: the match's wall time per bot call, the ratio to the
unfrozen match of the same round, and the referee's time per decision in
``Freezer.freeze`` and ``Freezer.thaw`` (µs, timed in-process).
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
from sandbox_bench import match_once  # noqa: E402 - bench/, beside this script

spent = {"freeze": [0.0, 0], "thaw": [0.0, 0]}


def _timed(name: str, method):
    def timed(self, *args):
        t0 = time.perf_counter()
        try:
            return method(self, *args)
        finally:
            spent[name][0] += time.perf_counter() - t0
            spent[name][1] += 1
    return timed


sandbox.Freezer.freeze = _timed("freeze", sandbox.Freezer.freeze)
sandbox.Freezer.thaw = _timed("thaw", sandbox.Freezer.thaw)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    with_cgroups = sandbox.cgroup_folders()
    print(sandbox.report(sandbox.Limits()))
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    ways = {"unfrozen": (with_cgroups, False), "freezer cgroup, not waiting (before red team 50)": (with_cgroups, True),
            "freezer cgroup, waiting for FROZEN (the referee's)": (with_cgroups, True), "signals": ({}, True)}
    per_call = {w: [] for w in ways}
    ratio = {w: [] for w in ways}
    costs = {w: {"freeze": [], "thaw": []} for w in ways}
    for _ in range(args.rounds):
        base = None
        for way, (folders, freeze) in ways.items():
            sandbox.cgroup_folders = lambda folders=folders: folders
            for k in spent:
                spent[k] = [0.0, 0]
            sandbox.Freezer.WAIT_FROZEN = "waiting for FROZEN" in way
            wall, calls = match_once(sandbox.Limits(freeze=freeze, weak_limits=not folders), args.boards)
            per_call[way].append(wall / calls * 1000)
            base = base or wall / calls
            ratio[way].append(wall / calls / base)
            for k in spent:
                if spent[k][1]:
                    costs[way][k].append(spent[k][0] / spent[k][1] * 1e6)
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    print()
    print("| bots | wall time per bot call, ms | ÷ unfrozen | freeze, µs/decision | thaw, µs/decision |")
    print("|---|---:|---:|---:|---:|")
    for way in ways:
        f = statistics.median(costs[way]["freeze"]) if costs[way]["freeze"] else 0
        t = statistics.median(costs[way]["thaw"]) if costs[way]["thaw"] else 0
        print(f"| {way} | {statistics.median(per_call[way]):.3f} | {statistics.median(ratio[way]):.2f}× "
              f"| {f:.0f} | {t:.0f} |")
    print(f"\n(medians of {args.rounds} rounds of a {args.boards}-board match each)")


if __name__ == "__main__":
    main()
