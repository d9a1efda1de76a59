"""Coverage of the ratings' 95% intervals over the full grid, before and after a change.

Simulates complete round robins with known Bradley–Terry strengths
(:mod:`arena.stats.simulate`: 3, 8, 20 entrants; spreads 0, 200, 400 Elo; 0% and
30% draws between equals; 20, 100, 1,000 board pairs per pair) and fits them
with the current :func:`arena.stats.ratings.fit_model` and, with ``--before REV``,
with ``arena/stats/ratings.py`` as it was at git revision REV (read with ``git
show``, same simulated fields: same seeds). Prints a markdown table:
coverage of the 95% intervals (all entrants; the strongest one), the slope of
estimated on true ratings (1 = no shrinkage), and for spread 0 the share of
fields where LOS(first, second) ≥ 0.95 (an error: they are equal).

Run: ``.venv/bin/python bench/ratings_coverage.py --reps 300 --before 5452263``
(about 3 minutes on 2 cores). With ``--los``: only the calibration of LOS
between entrants adjacent in the table (8 entrants, true Elo ~ N(0, 25²), 20
board pairs per pair): how often the upper one is truly stronger, per LOS bin.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.stats.ratings import fit_model  # noqa: E402
from arena.stats.simulate import coverage  # noqa: E402

GRID = list(itertools.product((3, 8, 20), (0.0, 200.0, 400.0), (0.0, 0.3), (20, 100, 1000)))


def fit_at(rev: str):
    """``fit_model`` of arena/stats/ratings.py (before the arena's parts, arena/ratings.py) at git revision ``rev``."""
    for where in ("arena/stats/ratings.py", "arena/ratings.py"):
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{where}"], capture_output=True, text=True)
        if shown.returncode == 0:
            break
    shown.check_returncode()
    text = shown.stdout
    path = Path(tempfile.mkdtemp()) / "ratings_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("ratings_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ratings_before"] = module
    spec.loader.exec_module(module)
    return module.fit_model


def los_calibration(fits: dict, reps: int, entrants: int = 8, sigma: float = 25.0, per_pair: int = 20) -> None:
    """Is LOS between entrants adjacent in the table calibrated? True Elo ~ N(0, sigma²),
    a complete round robin of per_pair board pairs; for each pair adjacent in the fitted
    order, bin LOS(upper, lower) and report how often the upper one is truly stronger."""
    import numpy as np

    from arena.stats.simulate import play_field

    bins = [(0.5, 0.7), (0.7, 0.85), (0.85, 0.95), (0.95, 0.99), (0.99, 1.0001)]
    names = [f"e{i:02d}" for i in range(entrants)]
    print(f"\nLOS of adjacent entrants: {entrants} entrants, true Elo ~ N(0, {sigma:g}²), "
          f"{per_pair} board pairs per pair, 10% draws, {reps} fields\n")
    print("| LOS bin | " + " | ".join(f"{k}: pairs | {k}: upper truly stronger" for k in fits) + " |")
    print("|---|" + "---:|---:|" * len(fits))
    tallies = {k: [[0, 0] for _ in bins] for k in fits}
    rng = np.random.default_rng(7)
    for _ in range(reps):
        truth = rng.normal(0.0, sigma, entrants)
        wins, draws = play_field(truth, per_pair, 0.1, rng)
        for k, f in fits.items():
            result = f(names, wins, draws=draws)
            elo = np.array([r.elo for r in result.ratings])
            order = np.argsort(-elo)
            for hi, lo in zip(order[:-1], order[1:]):
                los = result.los(int(hi), int(lo))
                for b, (a, z) in enumerate(bins):
                    if a <= los < z:
                        tallies[k][b][0] += 1
                        tallies[k][b][1] += int(truth[hi] > truth[lo])
    for b, (a, z) in enumerate(bins):
        cells = []
        for k in fits:
            n, ok = tallies[k][b]
            cells += [str(n), "–" if not n else f"{100 * ok / n:.1f}%"]
        print(f"| {a:.2f}–{min(z, 1):.2f} | " + " | ".join(cells) + " |")


def pct(x: float) -> str:
    return "–" if math.isnan(x) else f"{100 * x:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300, help="fields per cell (300)")
    parser.add_argument("--before", help="git revision of the earlier arena/stats/ratings.py to compare")
    parser.add_argument("--los", action="store_true", help="only the LOS calibration of adjacent entrants")
    args = parser.parse_args()
    fits = {"after": fit_model}
    if args.before:
        fits = {"before": fit_at(args.before), **fits}
    if args.los:
        los_calibration(fits, args.reps)
        return
    t0 = time.perf_counter()
    head = "| entrants | spread | draws | per pair |"
    for k in fits:
        head += f" cover {k} | top {k} | slope {k} | LOS err {k} |"
    print(head)
    print("|" + "---:|" * (4 + 4 * len(fits)))
    totals = {k: [0.0, 0] for k in fits}
    for cell_no, (n, spread, draw, m) in enumerate(GRID):
        row = f"| {n} | {spread:.0f} | {draw:.0%} | {m} |"
        for k, f in fits.items():
            c = coverage(f, n, spread, draw, m, reps=args.reps, seed=20261201 + cell_no)
            row += f" {pct(c.coverage)} | {pct(c.top_coverage)} | " \
                   f"{'–' if math.isnan(c.slope) else f'{c.slope:.3f}'} | {pct(c.los_false)} |"
            totals[k][0] += c.coverage * n
            totals[k][1] += n
        print(row, flush=True)
    for k, (s, w) in totals.items():
        print(f"\n{k}: coverage pooled over every entrant of every cell {100 * s / w:.1f}%")
    print(f"\n{len(GRID)} cells × {args.reps} fields, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
