"""Benchmark arena.stats.ratings: aggregate 1,000,000 board pairs among 50 entrants and fit.

Generates synthetic board-pair results (seeded numpy RNG, known Elo strengths,
10% draws), then times, on the ``(a, b, score_a)`` rows a store would return:
aggregation (:func:`arena.stats.tally.tally`), the Bradley–Terry fit and the
covariance / 95% intervals (:func:`arena.stats.ratings.fit_model`). Prints seconds;
writes nothing.

Run: ``.venv/bin/python bench/ratings_bench.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.stats.ratings import fit_model  # noqa: E402
from arena.stats.tally import tally  # noqa: E402

N_ENTRANTS = 50
N_BOARD_PAIRS = 1_000_000
DRAW_RATE = 0.10


def synthetic_rows(seed: int = 20261130) -> tuple[list[str], list[tuple[str, str, float]]]:
    """Names and (a, b, score_a) rows drawn from known Elo strengths."""
    rng = np.random.default_rng(seed)
    names = [f"bot{i:02d}" for i in range(N_ENTRANTS)]
    elo = rng.normal(0.0, 150.0, N_ENTRANTS)
    a = rng.integers(0, N_ENTRANTS, N_BOARD_PAIRS)
    b = (a + rng.integers(1, N_ENTRANTS, N_BOARD_PAIRS)) % N_ENTRANTS
    expected = 1.0 / (1.0 + 10.0 ** ((elo[b] - elo[a]) / 400.0))
    u = rng.random(N_BOARD_PAIRS)
    score = np.where(u < expected - DRAW_RATE / 2, 1.0, np.where(u < expected + DRAW_RATE / 2, 0.5, 0.0))
    rows = list(zip([names[i] for i in a], [names[i] for i in b], score.tolist(), strict=True))
    return names, rows


def main() -> None:
    names, rows = synthetic_rows()
    t0 = time.perf_counter()
    counts = tally(names, rows)
    t1 = time.perf_counter()
    result = fit_model(names, counts.wins, draws=counts.draws)
    t2 = time.perf_counter()
    assert len(result.ratings) == N_ENTRANTS
    print(f"board pairs: {N_BOARD_PAIRS:,}  entrants: {N_ENTRANTS}")
    print(f"aggregate (tally):        {t1 - t0:.3f} s")
    print(f"fit + covariance + CI:    {t2 - t1:.3f} s")
    print(f"total:                    {t2 - t0:.3f} s")


if __name__ == "__main__":
    main()
