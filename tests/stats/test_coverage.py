"""Coverage of the 95% intervals where the prior and the normal approximation are
weakest: two-entrant fields, lopsided pairs, clean sweeps (issue 20, items 20 and 21).

Seeded simulations (:mod:`arena.stats.simulate`), bounded: a few seconds each.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from arena.stats.ratings import fit_model
from arena.stats.simulate import coverage, difference_coverage

pytestmark = pytest.mark.statistics


def test_a_sweep_gives_an_open_ended_difference() -> None:
    """A 20–0 over B: A's own interval is [L, +inf), so is A − B: at least
    400·log10(q/(1 − q)) = 316.64 with q = 0.05^(1/20), no upper end; B − A
    mirrored; LOS from the sweep, 1 − 2^−20."""
    result = fit_model(["A", "B"], np.array([[0.0, 20.0], [0.0, 0.0]]))
    diff, low, high = result.difference("A", "B")
    assert (low, high) == (pytest.approx(316.638, abs=1e-3), math.inf)
    assert diff > low
    assert result.difference("B", "A")[1:] == (-math.inf, pytest.approx(-316.638, abs=1e-3))
    assert result.los("A", "B") == pytest.approx(1 - 2.0 ** -20)
    # A 5–0 sweep: LOS 1 − 1/64 = 0.984 (a 5% test calls it), the bound 400·log10(q/(1 − q)), q = 0.05^(1/5)
    five = fit_model(["A", "B"], np.array([[0.0, 5.0], [0.0, 0.0]]))
    q = 0.05 ** (1 / 5)
    assert five.los("A", "B") == pytest.approx(1 - 2.0 ** -5)
    assert five.difference("A", "B")[1] == pytest.approx(400 * math.log10(q / (1 - q)), abs=1e-6)


def test_a_sweep_in_a_field_opens_its_differences_to_everyone() -> None:
    """In a field of 3, a beat b and c every time: a − b and a − c have no upper end."""
    wins = np.array([[0.0, 10.0, 10.0], [0.0, 0.0, 6.0], [0.0, 4.0, 0.0]])
    result = fit_model(list("abc"), wins)
    for other in "bc":
        diff, low, high = result.difference("a", other)
        assert high == math.inf and 0 < low < diff
        assert result.difference(other, "a")[1] == -math.inf
    assert math.isfinite(result.difference("b", "c")[2])


@pytest.mark.parametrize(("spread", "per_pair"), [(1000.0, 20), (800.0, 20), (400.0, 20), (1000.0, 100)])
def test_the_difference_of_two_entrants_is_covered_even_after_a_sweep(spread: float, per_pair: int) -> None:
    """Two entrants, no draws, 1,000 matches a cell. Before the one-sided
    difference, A 20–0 over B truly 1,000 Elo apart held the truth 0 times in
    1,000 (the symmetric interval around the prior's estimate)."""
    share = difference_coverage(fit_model, 2, spread, 0.0, per_pair, reps=1000, seed=20)
    assert 0.93 <= share <= 0.99, share


@pytest.mark.parametrize(("spread", "low"), [(400.0, 0.93), (1000.0, 0.91)])
def test_differences_in_a_field_of_four_are_covered(spread: float, low: float) -> None:
    """4 entrants, 20 board pairs a pair, 300 fields; every pair's difference
    interval. 400 Elo wide: 0.952. 1,000 wide (333 apart; the top entrant
    often sweeps): 0.926 — the misses are the extreme pair's 19–1 results,
    whose normal interval (not one-sided: no sweep) ends short of 1,000."""
    share = difference_coverage(fit_model, 4, spread, 0.0, 20, reps=300, seed=21)
    assert low <= share <= 0.99, share


TWO = list(itertools.product((0.0, 200.0, 400.0, 600.0, 800.0, 1000.0), (20, 100), (0.0, 0.3)))


def test_two_entrant_intervals_cover_93_to_97_percent_up_to_1000_elo_apart() -> None:
    """2 entrants, 0–1,000 Elo apart, 20 and 100 board pairs, 0% and 30% draws,
    400 matches a cell: pooled coverage 0.93–0.97 (measured 0.953) and no cell
    below 0.90 or above 0.995 (a cell's noise is about ±1%). The lowest cells
    are 1,000 Elo at 20 board pairs (0.91–0.92: a 19–1 result, 6% of matches,
    gets a normal interval that ends short of the truth whatever the prior) and
    0 Elo at 100 (0.935, the binomial's steps). With the old prior (2 virtual
    draws on the one pair) 400 Elo at 20 board pairs covered 0.90, 800 Elo
    0.76–0.81, 1,000 Elo at 100 board pairs 0.62–0.71."""
    cells = [coverage(fit_model, 2, spread, draw, m, reps=400, seed=300 + k).coverage
             for k, (spread, m, draw) in enumerate(TWO)]
    pooled = float(np.mean(cells))
    assert 0.93 <= pooled <= 0.97, pooled
    assert min(cells) >= 0.90 and max(cells) <= 0.995, dict(zip(TWO, cells))


FIELDS = list(itertools.product((4, 8, 16), (0.0, 400.0, 1000.0), (0.0, 0.3)))


def test_fields_of_4_to_16_still_cover_93_to_97_percent() -> None:
    """4, 8 and 16 entrants, 0–1,000 Elo wide, 0% and 30% draws, 20 board pairs
    a pair: pooled 0.93–0.97, no cell below 0.90 or above 0.99."""
    cells = [coverage(fit_model, n, spread, draw, 20, reps=40, seed=400 + k)
             for k, (n, spread, draw) in enumerate(FIELDS)]
    weights = np.array([c.reps * c.entrants for c in cells])
    pooled = float(np.dot([c.coverage for c in cells], weights) / weights.sum())
    assert 0.93 <= pooled <= 0.97, pooled
    assert all(0.90 <= c.coverage <= 0.99 for c in cells), cells


EXACT = {20: (0.959, 0.968, 0.970, 0.978, 0.983, 0.939), 100: (0.943, 0.954, 0.947, 0.966, 0.922, 0.960)}


@pytest.mark.parametrize("per_pair", [20, 100])
def test_two_entrant_coverage_without_draws_exactly(per_pair: int) -> None:
    """No simulation noise: two entrants 0, 200, …, 1,000 Elo apart, no draws; A's wins
    are Binomial(m, p), so summing P(w) over the w whose intervals hold the truth gives
    each cell's coverage exactly. Mean 0.957 over the 12 cells. The cells off 0.93–0.97
    are the Wald interval's limits at extreme scores, not the prior's: 600–800 Elo at 20
    board pairs 0.978–0.983 (a sweep, most of the mass, is always covered), 800 Elo at
    100 board pairs 0.922 (97–3 and 98–2: the interval ends short of the truth), 1,000
    Elo at 20 0.939 (19–1). (The old prior, exactly: 400, 600, 800 Elo at 20 board pairs
    0.898, 0.876, 0.820; 600 and 1,000 Elo at 100 0.913 and 0.729; 800 at 100 the same 0.922.)"""
    got = []
    for spread in (0.0, 200.0, 400.0, 600.0, 800.0, 1000.0):
        p = 1.0 / (1.0 + 10.0 ** (-spread / 400.0))
        cover = 0.0
        for w in range(per_pair + 1):
            a, b = fit_model(["A", "B"], np.array([[0.0, w], [per_pair - w, 0.0]])).ratings
            held = int(a.ci_low - 1500 <= spread / 2 <= a.ci_high - 1500) + \
                int(b.ci_low - 1500 <= -spread / 2 <= b.ci_high - 1500)
            cover += stats.binom.pmf(w, per_pair, p) * held / 2
        got.append(cover)
    assert got == pytest.approx(EXACT[per_pair], abs=5e-4)
