"""The SPRT's error rates and board pairs against the fixed-sample rule, in simulation.

For H0 Elo 0 against H1 Elo 50 (α = β = 0.05), board-pair W/D/L at 0%,
15% and 30% draws between equals (:mod:`arena.stats.simulate`), runs the test of
:mod:`arena.stats.sprt` many times with A truly −25, 0, 25, 50, 75 Elo stronger and
prints, as markdown: the share accepting H1, the mean and 95th percentile of
board pairs played, and the fixed-sample rule's board pairs for the same
errors (:func:`arena.stats.sprt.fixed_sample_size`).

Run: ``.venv/bin/python bench/sprt_bench.py --reps 2000`` (about 2 minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.stats.sprt import SprtSettings, fixed_sample_size, simulate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="tests per row (2000)")
    args = parser.parse_args()
    settings = SprtSettings(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_boards=3000)
    t0 = time.perf_counter()
    print("| draws | true Elo | accept H1 | mean board pairs | 95th pct | fixed-sample rule | mean ÷ fixed |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k, draw in enumerate((0.0, 0.15, 0.3)):
        fixed = fixed_sample_size(0.0, 50.0, 0.05, 0.05, draw)
        for j, elo in enumerate((-25.0, 0.0, 25.0, 50.0, 75.0)):
            r = simulate(elo, draw, settings, reps=args.reps, seed=100 * k + j)
            print(f"| {draw:.0%} | {elo:+.0f} | {100 * r.accept_h1:.1f}% | {r.mean_boards:.0f} | "
                  f"{r.p95_boards:.0f} | {fixed} | {r.mean_boards / fixed:.2f} |", flush=True)
    print(f"\n{args.reps} tests per row, max 3000 board pairs; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
