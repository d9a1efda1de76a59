"""Simulated fields with known strengths, to check that the statistics are honest.

Pure numpy, seeded: the same arguments give the same numbers. Used by the
statistics tests (``tests/stats/test_statistics.py``) and the benchmark
``bench/ratings_coverage.py``.

**Truth.** Entrant *i* has a true Elo ``R_i``; on a board pair against *j*
its expected score is the Elo formula ``s = 1 / (1 + 10^((R_j − R_i)/400))``
(Bradley–Terry, as :mod:`arena.stats.ratings` assumes). A board pair is drawn
with probability ``δ·4·s·(1 − s)`` (δ between equals, fewer between
unequal entrants) and otherwise won with probability ``s − draw/2``, so the
expected score stays ``s`` and every probability stays in 0..1 for δ ≤ 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["CoverageCell", "LosBins", "coverage", "difference_coverage", "los_calibration", "expected_score", "outcome_probabilities", "play_field", "play_pair"]


def expected_score(elo_diff: float | NDArray[np.float64]) -> NDArray[np.float64]:
    """Expected board-pair score for a true Elo difference (any shape)."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo_diff, dtype=np.float64) / 400.0))


def outcome_probabilities(elo_diff: float, draw_rate: float) -> tuple[float, float, float]:
    """(P(win), P(draw), P(loss)) of one board pair (module docstring).

    Raises:
        ValueError: a draw rate outside 0..0.5.
    """
    if not 0.0 <= draw_rate <= 0.5:
        raise ValueError(f"draw rate must be in 0..0.5, got {draw_rate}")
    s = float(expected_score(elo_diff))
    d = draw_rate * 4.0 * s * (1.0 - s)
    return s - d / 2.0, d, 1.0 - s - d / 2.0


def play_pair(elo_diff: float, draw_rate: float, size: int | tuple[int, ...],
              rng: np.random.Generator) -> NDArray[np.float64]:
    """Board-pair scores (1, 0.5, 0) of A against B, array of the given size."""
    pw, pd, _ = outcome_probabilities(elo_diff, draw_rate)
    u = rng.random(size)
    return np.where(u < pw, 1.0, np.where(u < pw + pd, 0.5, 0.0))


def play_field(true_elo: NDArray[np.float64], per_pair: int, draw_rate: float,
               rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """A complete round robin, ``per_pair`` board pairs per pair.

    Returns:
        ``(wins, draws)`` as :func:`arena.stats.ratings.fit_model` takes them:
        float (n, n) with draws as half wins, and int (n, n) symmetric.
    """
    n = len(true_elo)
    wins = np.zeros((n, n))
    draws = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            pw, pd, pl = outcome_probabilities(float(true_elo[i] - true_elo[j]), draw_rate)
            w, d, loss = rng.multinomial(per_pair, [pw, pd, max(pl, 0.0)])
            wins[i, j], wins[j, i] = w + d / 2.0, loss + d / 2.0
            draws[i, j] = draws[j, i] = d
    return wins, draws


@dataclass(frozen=True)
class CoverageCell:
    """Coverage of the 95% intervals in one cell of the grid.

    Attributes:
        entrants, spread, draw_rate, per_pair: the cell (spread in Elo, from
            the weakest to the strongest, evenly spaced).
        reps: fields simulated.
        coverage: share of (field, entrant) intervals holding the true
            rating (the truth centred on the field's mean, as the fit is).
        top_coverage: the same for the strongest entrant only.
        slope: regression of estimated on true ratings, pooled (1 = no
            shrinkage; spread > 0 only, else NaN).
        los_false: with spread 0, share of fields where LOS(first, second)
            ≥ 0.95 (the first is not stronger: an error); else NaN.
    """

    entrants: int
    spread: float
    draw_rate: float
    per_pair: int
    reps: int
    coverage: float
    top_coverage: float
    slope: float
    los_false: float


def coverage(fit: Callable, entrants: int, spread: float, draw_rate: float, per_pair: int,
             reps: int, seed: int) -> CoverageCell:
    """Simulate ``reps`` fields and measure how often the intervals hold the truth.

    Args:
        fit: ``fit(names, wins, draws=...) -> RatingFit`` (e.g.
            :func:`arena.stats.ratings.fit_model`, or an older version's).
        entrants, spread, draw_rate, per_pair: the cell.
        reps: fields simulated.
        seed: the numpy seed.
    """
    rng = np.random.default_rng(seed)
    truth = np.linspace(-spread / 2.0, spread / 2.0, entrants)
    names = [f"e{i:02d}" for i in range(entrants)]
    inside = 0
    top = 0
    los_hits = 0
    est: list[NDArray[np.float64]] = []
    for _ in range(reps):
        wins, draws = play_field(truth, per_pair, draw_rate, rng)
        result = fit(names, wins, draws=draws)
        elo = np.array([r.elo for r in result.ratings]) - 1500.0
        low = np.array([r.ci_low for r in result.ratings]) - 1500.0
        high = np.array([r.ci_high for r in result.ratings]) - 1500.0
        t = truth - truth.mean()
        ok = (low <= t) & (t <= high)
        inside += int(ok.sum())
        top += int(ok[-1])
        est.append(elo)
        if spread == 0:
            los_hits += int(result.los(0, 1) >= 0.95)
    if spread > 0:
        x = np.tile(truth - truth.mean(), reps)
        y = np.concatenate(est)
        slope = float(np.dot(x, y) / np.dot(x, x))
    else:
        slope = math.nan
    return CoverageCell(entrants=entrants, spread=spread, draw_rate=draw_rate, per_pair=per_pair, reps=reps,
                        coverage=inside / (reps * entrants), top_coverage=top / reps, slope=slope,
                        los_false=los_hits / reps if spread == 0 else math.nan)


def difference_coverage(fit: Callable, entrants: int, spread: float, draw_rate: float, per_pair: int,
                        reps: int, seed: int) -> float:
    """Share of 95% intervals of Elo differences that hold the true difference.

    Simulates ``reps`` round robins as :func:`coverage` does and checks
    ``fit(...).difference(i, j)`` for every pair i < j of every field: the
    interval of ``R_i − R_j`` (one-sided when an entrant won or lost every
    board pair) against ``truth_i − truth_j``.

    Returns:
        The share, 0..1, over ``reps · entrants·(entrants − 1)/2`` intervals.
    """
    rng = np.random.default_rng(seed)
    truth = np.linspace(-spread / 2.0, spread / 2.0, entrants)
    names = [f"e{i:02d}" for i in range(entrants)]
    inside = total = 0
    for _ in range(reps):
        wins, draws = play_field(truth, per_pair, draw_rate, rng)
        result = fit(names, wins, draws=draws)
        for i in range(entrants):
            for j in range(i + 1, entrants):
                _, low, high = result.difference(i, j)
                inside += int(low <= truth[i] - truth[j] <= high)
                total += 1
    return inside / total


#: LOS bins of :func:`los_calibration`: [low, high).
LOS_BINS: tuple[tuple[float, float], ...] = ((0.5, 0.7), (0.7, 0.85), (0.85, 0.95), (0.95, 0.99), (0.99, 1.0001))


@dataclass(frozen=True)
class LosBins:
    """How often the entrant with the higher fitted rating is truly the stronger, per LOS bin.

    Attributes:
        pairs: pairs whose LOS(upper, lower) fell in each bin of ``LOS_BINS``.
        right: of those, pairs where the upper one is truly stronger.
    """

    pairs: tuple[int, ...]
    right: tuple[int, ...]

    def share(self, k: int) -> float:
        """Share right in bin k, 0..1 (NaN for an empty bin)."""
        return self.right[k] / self.pairs[k] if self.pairs[k] else math.nan


def los_calibration(fit: Callable, reps: int, seed: int, entrants: int = 8, sigma: float = 25.0,
                    per_pair: int = 20, draw_rate: float = 0.1) -> tuple[LosBins, LosBins, float]:
    """Is LOS a probability when true strengths are themselves drawn at random?

    Each of ``reps`` fields draws true Elo ~ N(0, sigma²) for ``entrants``
    entrants and plays a complete round robin of ``per_pair`` board pairs.
    LOS(upper, lower) — upper the one with the higher fitted rating — is binned
    for two kinds of pair: the pairs **adjacent in the fitted order** (picked
    by the estimates) and **one pair chosen beforehand** (entrants 0 and 1).

    Returns:
        ``(adjacent, chosen, gap)``: :class:`LosBins` for each kind, and the
        mean true Elo gap between neighbours in the true order.
    """
    rng = np.random.default_rng(seed)
    names = [f"e{i:02d}" for i in range(entrants)]
    tallies = {kind: [[0, 0] for _ in LOS_BINS] for kind in ("adjacent", "chosen")}
    gaps: list[float] = []

    def count(kind: str, los: float, right: bool) -> None:
        for b, (a, z) in enumerate(LOS_BINS):
            if a <= los < z:
                tallies[kind][b][0] += 1
                tallies[kind][b][1] += int(right)

    for _ in range(reps):
        truth = rng.normal(0.0, sigma, entrants)
        gaps.append(float(np.mean(np.diff(np.sort(truth)))))
        wins, draws = play_field(truth, per_pair, draw_rate, rng)
        result = fit(names, wins, draws=draws)
        elo = np.array([r.elo for r in result.ratings])
        order = np.argsort(-elo)
        for hi, lo in zip(order[:-1], order[1:]):
            count("adjacent", result.los(int(hi), int(lo)), truth[hi] > truth[lo])
        hi, lo = (0, 1) if elo[0] >= elo[1] else (1, 0)
        count("chosen", result.los(hi, lo), truth[hi] > truth[lo])
    adjacent, chosen = (LosBins(pairs=tuple(p for p, _ in tallies[k]), right=tuple(r for _, r in tallies[k]))
                        for k in ("adjacent", "chosen"))
    return adjacent, chosen, float(np.mean(gaps))
