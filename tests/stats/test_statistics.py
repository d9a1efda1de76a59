"""Statistics tests: do the ratings' 95% intervals and LOS mean what they say?

Seeded simulations of fields with known strengths (:mod:`arena.stats.simulate`):
every entrant plays every other ``per_pair`` board pairs (RULES.md §8, the
board pair is the unit). Deterministic (fixed seeds), bounded (a few seconds
each), and run by ``make test``; the full grid with more repetitions is
``bench/ratings_coverage.py`` (table in bench/RESULTS.md).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from arena.stats.ratings import fit_model
from arena.stats.simulate import coverage, play_pair

pytestmark = pytest.mark.statistics

GRID = list(itertools.product((3, 8, 20), (0.0, 400.0), (0.0, 0.3), (20, 100)))


@pytest.fixture(scope="module")
def cells():
    return [coverage(fit_model, n, spread, draw, m, reps=60, seed=1000 + k)
            for k, (n, spread, draw, m) in enumerate(GRID)]


def test_95_percent_intervals_cover_93_to_97_percent(cells) -> None:
    """Pooled over 24 cells (3–20 entrants, spreads 0 and 400 Elo, 0% and 30%
    draws, 20 and 100 board pairs per pair): coverage 93–97%; no cell below
    90% or above 99% (60 fields a cell, so a cell's own noise is ±2–3%)."""
    weights = np.array([c.reps * c.entrants for c in cells])
    pooled = float(np.dot([c.coverage for c in cells], weights) / weights.sum())
    assert 0.93 <= pooled <= 0.97, pooled
    for c in cells:
        assert 0.90 <= c.coverage <= 0.99, c


def test_the_top_entrant_of_a_wide_field_is_covered(cells) -> None:
    """The old per-pair prior shrank a 20-entrant 400-Elo field: the top
    entrant's interval held the truth ~75% of the time at 20 board pairs."""
    for c in cells:
        if c.entrants == 20 and c.spread == 400:
            assert c.top_coverage >= 0.88, c
            assert 0.95 <= c.slope <= 1.05, c


@pytest.mark.parametrize(
    ("per_pair", "expected"),
    [(5, 0.03125), (10, 0.0547), (20, 0.0577), (50, 0.0595), (100, 0.0443), (200, 0.0518)],
)
def test_los_at_095_errs_about_5_percent_for_equal_bots_exactly(per_pair: int, expected: float) -> None:
    """Two equal bots, no draws: A's wins W ~ Binomial(m, ½). Summing P(W = w)
    over every w whose LOS(A, B) ≥ 0.95 gives the exact error rate: about 5%,
    off only by the steps of a discrete count (e.g. m = 20: LOS ≥ 0.95 from
    14–6 on, P(W ≥ 14) = 0.0577; m = 5: only 5–0, 1/32)."""
    error = 0.0
    for w in range(per_pair + 1):
        result = fit_model(["A", "B"], np.array([[0.0, w], [per_pair - w, 0.0]]))
        if result.los("A", "B") >= 0.95:
            error += stats.binom.pmf(w, per_pair, 0.5)
    assert error == pytest.approx(expected, abs=5e-5)
    assert error <= 0.06


def test_los_at_095_errs_about_5_percent_for_equal_bots_with_draws() -> None:
    """With 30% draws the draw model narrows the difference's interval; LOS
    must not become over-confident: ≤ 6.5% errors over 1,500 matches of 100."""
    cell = coverage(fit_model, 2, 0.0, 0.3, 100, reps=1500, seed=100)
    assert 0.03 <= cell.los_false <= 0.065, cell


def test_simulated_draw_rate_and_score() -> None:
    """The simulator's own truth: at +100 Elo the expected score is
    1/(1 + 10^(−1/4)) = 0.6401 and draws 0.3·4·s·(1 − s) = 0.2765."""
    s = play_pair(100.0, 0.3, 200_000, np.random.default_rng(5))
    assert s.mean() == pytest.approx(0.6401, abs=0.004)
    assert (s == 0.5).mean() == pytest.approx(0.2765, abs=0.004)


def test_los_is_over_confident_in_a_close_field_even_for_a_pair_chosen_beforehand() -> None:
    """The README's LOS paragraph, measured (1,000 fields each, fixed seed): 8 bots with
    true Elo ~ N(0, 25²) (neighbours 10 Elo apart on average), 20 board pairs a pair,
    10% draws. LOS 0.95–0.99 was right 87% of the time for adjacent pairs (76 of 87)
    and 88% for the pair chosen beforehand (116 of 132): LOS takes no account of bots
    being usually close. With N(0, 100²) (neighbours 40 apart) it holds: 0.96, 0.98."""
    from arena.stats.simulate import los_calibration

    adjacent, chosen, gap = los_calibration(fit_model, 1000, seed=22, sigma=25.0)
    assert gap == pytest.approx(10.1, abs=0.05)
    assert (adjacent.pairs[3], adjacent.right[3]) == (87, 76)
    assert (chosen.pairs[3], chosen.right[3]) == (132, 116)
    assert chosen.share(2) < 0.85 and chosen.share(3) < 0.9
    adjacent, chosen, gap = los_calibration(fit_model, 1000, seed=22, sigma=100.0)
    assert gap == pytest.approx(40.4, abs=0.05)
    assert adjacent.share(3) >= 0.95 and chosen.share(3) >= 0.95
