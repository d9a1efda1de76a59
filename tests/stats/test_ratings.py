"""Tests for arena.stats.ratings: Bradley–Terry Elo over board pairs."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special

from arena.stats.head_to_head import head_to_head
from arena.stats.ratings import (
    ELO_PER_NATURAL_UNIT,
    fit,
    fit_model,
    prior_matrix,
)
from arena.stats.tally import board_pair_outcome, tally, tally_arrays

Z95 = 1.959963984540054


# --------------------------------------------------------------------------
# One board pair (RULES.md §8)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("margin_a", "forfeit_a", "forfeit_b", "expected"),
    [
        (40, False, False, 1.0),
        (1, False, False, 1.0),
        (0, False, False, 0.5),
        (-1, False, False, 0.0),
        (-300, False, False, 0.0),
        (500, True, False, 0.0),  # a forfeit loses whatever the margin
        (-500, False, True, 1.0),
        (0, True, False, 0.0),
        (80, True, True, 0.5),  # both forfeited: a draw
        (-80, True, True, 0.5),
    ],
)
def test_board_pair_outcome(margin_a: int, forfeit_a: bool, forfeit_b: bool, expected: float) -> None:
    assert board_pair_outcome(margin_a, forfeit_a, forfeit_b) == expected
    # From B's side the same board pair scores 1 - that.
    assert board_pair_outcome(-margin_a, forfeit_b, forfeit_a) == 1.0 - expected


# --------------------------------------------------------------------------
# Hand-computed two-entrant case
# --------------------------------------------------------------------------


def two_entrants(wins_a: float, wins_b: float) -> np.ndarray:
    return np.array([[0.0, wins_a], [wins_b, 0.0]])


def test_two_entrants_30_wins_10_losses_default_prior() -> None:
    """30 wins, 10 losses, plus the default prior: 2 virtual draws per entrant,
    capped at ¼ for the pair (⅛ virtual win each way).

    By hand: the ML score is 30.125/40.25, so ΔElo = 400·log10(30.125/10.125)
    = 189.413 and, with the mean anchored at 1500, A = 1594.706, B = 1405.294.
    Information of the difference (natural units): n·p·q = 30.125·10.125/40.25
    = 7.5780; each rating is ±half the difference, so its standard error is
    (400/ln 10)/2/√7.5780 = 31.553 Elo and its 95% half-width 1.96·31.553 =
    61.843. LOS = Φ(189.413 / (2·31.553)) = 0.99866.
    """
    result = fit_model(["A", "B"], two_entrants(30, 10))
    a, b = result.ratings
    assert a.elo - b.elo == pytest.approx(189.413, abs=1e-3)
    assert a.elo == pytest.approx(1594.706, abs=1e-3)
    assert b.elo == pytest.approx(1405.294, abs=1e-3)
    assert (a.elo + b.elo) / 2 == pytest.approx(1500.0, abs=1e-9)
    assert a.ci_high - a.elo == pytest.approx(61.843, abs=1e-3)
    assert a.elo - a.ci_low == pytest.approx(61.843, abs=1e-3)
    assert b.ci_high - b.elo == pytest.approx(61.843, abs=1e-3)
    assert result.los("A", "B") == pytest.approx(0.99866, abs=1e-5)
    assert (a.games, a.wins, a.draws, a.losses, a.score) == (40, 30, 0, 10, 0.75)
    assert (b.games, b.wins, b.draws, b.losses, b.score) == (40, 10, 0, 30, 0.25)


def test_two_entrants_without_prior_is_plain_ml() -> None:
    """prior_draws=0: ΔElo = 400·log10(30/10) = 190.849 by hand."""
    a, b = fit(["A", "B"], two_entrants(30, 10), prior_draws=0)
    assert a.elo - b.elo == pytest.approx(190.849, abs=1e-3)


def test_anchor_moves_every_rating() -> None:
    a, b = fit(["A", "B"], two_entrants(30, 10), anchor=2000.0)
    assert (a.elo + b.elo) / 2 == pytest.approx(2000.0)
    assert a.elo - b.elo == pytest.approx(189.413, abs=1e-3)


# --------------------------------------------------------------------------
# Synthetic fields with known strengths
# --------------------------------------------------------------------------


def simulate(true_elo: np.ndarray, per_pair: int, seed: int, draw_rate: float = 0.1):
    """Every pair plays per_pair board pairs; expected score from the Elo formula."""
    rng = np.random.default_rng(seed)
    n = len(true_elo)
    names = [f"e{i:02d}" for i in range(n)]
    a_idx, b_idx = np.array(list(combinations(range(n), 2))).T
    a = np.repeat(a_idx, per_pair)
    b = np.repeat(b_idx, per_pair)
    expected = 1.0 / (1.0 + 10.0 ** ((true_elo[b] - true_elo[a]) / 400.0))
    u = rng.random(len(a))
    score = np.where(
        u < expected - draw_rate / 2, 1.0, np.where(u < expected + draw_rate / 2, 0.5, 0.0)
    )
    rows = [(names[i], names[j], s) for i, j, s in zip(a, b, score.tolist(), strict=True)]
    return names, rows


TRUE_ELO = np.linspace(-285.0, 285.0, 20)


def test_fit_recovers_known_strengths() -> None:
    names, rows = simulate(TRUE_ELO, per_pair=400, seed=1234)
    counts = tally(names, rows)
    ratings = fit(names, counts.wins, draws=counts.draws)
    elo = np.array([r.elo for r in ratings])
    truth = TRUE_ELO - TRUE_ELO.mean() + 1500.0

    # Order: adjacent true strengths are 30 Elo apart, ~5 standard errors.
    assert list(np.argsort(elo)) == list(range(20))
    # Sizes: the truth lies inside the 95% interval for (nearly) everyone.
    inside = [r.ci_low <= t <= r.ci_high for r, t in zip(ratings, truth, strict=True)]
    assert sum(inside) >= 17
    se = np.array([(r.ci_high - r.ci_low) / (2 * Z95) for r in ratings])
    assert np.all(np.abs(elo - truth) < 3.5 * se)
    # The spread is right (not shrunk or stretched by more than a few %).
    slope = np.polyfit(truth, elo, 1)[0]
    assert 0.95 < slope < 1.05
    for r in ratings:
        assert r.games == 19 * 400
        assert r.wins + r.draws + r.losses == r.games


def test_ci_shrinks_as_results_grow() -> None:
    strengths = np.array([-100.0, -20.0, 0.0, 40.0, 80.0])
    widths = []
    for per_pair in (25, 100, 400, 1600):
        names, rows = simulate(strengths, per_pair=per_pair, seed=per_pair)
        counts = tally(names, rows)
        ratings = fit(names, counts.wins, draws=counts.draws)
        widths.append(np.mean([r.ci_high - r.ci_low for r in ratings]))
    assert widths == sorted(widths, reverse=True)
    # Four times the results: about half the width (1/√4).
    for wide, narrow in zip(widths, widths[1:], strict=False):
        assert 0.4 < narrow / wide < 0.6


def test_fit_matches_direct_maximisation() -> None:
    """Independent check: maximise the penalised likelihood with scipy."""
    rng = np.random.default_rng(7)
    n = 6
    wins = rng.integers(0, 15, size=(n, n)).astype(float)
    np.fill_diagonal(wins, 0.0)
    wins[0, 3] = wins[3, 0] = 0.0  # one pair never met
    prior = 2.0
    played = (wins + wins.T) > 0
    wp = wins + prior / 2 * played

    def neg_log_lik(theta: np.ndarray) -> float:
        diff = theta[:, None] - theta[None, :]
        return -float(np.sum(wp * special.log_expit(diff)))

    best = optimize.minimize(neg_log_lik, np.zeros(n), method="BFGS", options={"gtol": 1e-10})
    expected = 1500.0 + ELO_PER_NATURAL_UNIT * (best.x - best.x.mean())
    got = [r.elo for r in fit(["a", "b", "c", "d", "e", "f"], wins, prior_draws=prior, prior_scope="pair")]
    assert got == pytest.approx(expected, abs=1e-3)

    # Per entrant (the default): a-d and b-c never met, so a, b, c, d met 4
    # opponents and e, f 5: the pair (a, b) would get 2/(2·4) + 2/(2·4) = 0.5
    # virtual draws, (a, e) 0.45, (e, f) 0.4; each is capped at 2/8 = 0.25.
    assert played.sum(axis=1).tolist() == [4, 4, 4, 4, 5, 5]
    share = np.array([1 / 4] * 4 + [1 / 5] * 2)
    uncapped = (share[:, None] + share[None, :]) * played
    assert (uncapped[0, 1], uncapped[0, 4], uncapped[4, 5]) == pytest.approx((0.5, 0.45, 0.4))
    virtual = np.minimum(uncapped, 0.25)
    assert prior_matrix(played, prior) == pytest.approx(virtual)
    assert virtual[0].sum() == pytest.approx(1.0)
    wp = wins + virtual / 2
    best = optimize.minimize(neg_log_lik, np.zeros(n), method="BFGS", options={"gtol": 1e-10})
    expected = 1500.0 + ELO_PER_NATURAL_UNIT * (best.x - best.x.mean())
    got = [r.elo for r in fit(["a", "b", "c", "d", "e", "f"], wins, prior_draws=prior)]
    assert got == pytest.approx(expected, abs=1e-3)


def test_prior_per_entrant_in_a_round_robin_is_2_over_n_minus_1_per_pair_at_most_a_quarter() -> None:
    """2 virtual draws per entrant: 2/(n−1) per pair in a round robin of n, but at
    most 2/8 = ¼ (the field-size cap: 2–8 entrants get ¼ a pair)."""
    big = ~np.eye(12, dtype=bool)
    assert prior_matrix(big, 2.0) == pytest.approx(np.where(big, 2 / 11, 0.0))
    assert prior_matrix(big, 2.0).sum(axis=1) == pytest.approx([2.0] * 12)
    for n in (2, 5, 9):
        played = ~np.eye(n, dtype=bool)
        assert prior_matrix(played, 2.0) == pytest.approx(np.where(played, 0.25, 0.0))
    played = ~np.eye(5, dtype=bool)
    assert prior_matrix(played, 2.0, "pair").sum(axis=1) == pytest.approx([8.0] * 5)
    with pytest.raises(ValueError, match="prior_scope"):
        prior_matrix(played, 2.0, "board")


def test_covariance_matches_numerical_hessian() -> None:
    rng = np.random.default_rng(3)
    n = 4
    wins = rng.integers(1, 20, size=(n, n)).astype(float)
    np.fill_diagonal(wins, 0.0)
    result = fit_model(list("abcd"), wins, prior_draws=0)
    theta = np.array([r.elo for r in result.ratings]) / ELO_PER_NATURAL_UNIT

    def log_lik(t: np.ndarray) -> float:
        return float(np.sum(wins * special.log_expit(t[:, None] - t[None, :])))

    h = 1e-4
    hess = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            hess[i, j] = (
                log_lik(theta + ei + ej) - log_lik(theta + ei - ej)
                - log_lik(theta - ei + ej) + log_lik(theta - ei - ej)
            ) / (4 * h * h)  # fmt: skip
    # The Hessian is singular along the common shift; finite differences
    # leave noise there, so project it out before the pseudo-inverse.
    centre = np.eye(n) - 1.0 / n
    info = centre @ (-(hess + hess.T) / 2) @ centre
    expected = np.linalg.pinv(info, rcond=1e-6, hermitian=True) * ELO_PER_NATURAL_UNIT**2
    assert result.covariance == pytest.approx(expected, rel=1e-4, abs=1e-6)
    assert np.allclose(result.covariance.sum(axis=1), 0.0, atol=1e-8)


# --------------------------------------------------------------------------
# LOS, priors, degenerate fields
# --------------------------------------------------------------------------


@st.composite
def round_robins(draw: st.DrawFn) -> tuple[int, int, np.ndarray]:
    """A complete round robin: every pair plays m board pairs, no draws."""
    n = draw(st.integers(2, 7))
    m = draw(st.integers(1, 12))
    wins = np.zeros((n, n))
    for i, j in combinations(range(n), 2):
        w = draw(st.integers(0, m))
        wins[i, j], wins[j, i] = w, m - w
    return n, m, wins


@given(round_robins(), st.sampled_from([0.5, 1.0, 2.0, 4.0]))
@settings(max_examples=80, deadline=None)
def test_round_robin_properties(rr: tuple[int, int, np.ndarray], prior: float) -> None:
    n, m, wins = rr
    names = [f"p{i}" for i in range(n)]
    result = fit_model(names, wins, prior_draws=prior)
    elo = np.array([r.elo for r in result.ratings])
    assert np.all(np.isfinite(elo))  # finite even for 100% / 0% entrants
    assert elo.mean() == pytest.approx(1500.0, abs=1e-6)
    assert np.allclose(result.covariance, result.covariance.T)
    assert np.allclose(result.covariance.sum(axis=1), 0.0, atol=1e-6)
    # LOS symmetric: los(i, j) + los(j, i) = 1.
    los = result.los_matrix()
    assert np.allclose(los + los.T, 1.0)
    for i, j in combinations(range(n), 2):
        assert result.los(i, j) + result.los(j, i) == pytest.approx(1.0)
        assert result.los(names[i], names[j]) == pytest.approx(los[i, j])
    # Equal games per pair: score is a sufficient statistic, so ratings
    # follow total points exactly (ties rate equal).
    points = wins.sum(axis=1)
    for i, j in combinations(range(n), 2):
        if points[i] > points[j]:
            assert elo[i] > elo[j]
        elif points[i] == points[j]:
            assert elo[i] == pytest.approx(elo[j], abs=1e-6)
    for r in result.ratings:
        assert r.ci_low < r.elo < r.ci_high
        assert r.games == (n - 1) * m


def test_perfect_entrant_is_finite_with_prior_and_rejected_without() -> None:
    names = ["champ", "b", "c"]
    wins = np.array([[0, 20, 20], [0, 0, 12], [0, 8, 0]], dtype=float)
    ratings = fit(names, wins)
    champ = ratings[0]
    assert math.isfinite(champ.elo) and math.isfinite(champ.ci_low)
    assert champ.ci_high == math.inf and champ.bound == "lower"
    assert champ.elo == max(r.elo for r in ratings)
    assert champ.score == 1.0
    assert ratings[1].bound is None and ratings[2].bound is None
    with pytest.raises(ValueError, match="100%"):
        fit(names, wins, prior_draws=0)


def test_unbeaten_entrant_gets_a_one_sided_bound_that_grows_with_its_sweep() -> None:
    """A beat B 20–0. Prior: ⅛ virtual win each way, so ΔElo = 400·log10(161)
    = 882.73, A = 1941.37, B = 1058.63. Lower bound of A with B held at
    1058.63: the strength q with q^20 = 0.05, q = 0.05^(1/20) = 0.86089,
    400·log10(q/(1 − q)) = 316.64 above B: 1375.27. B symmetrically ≤ 1624.73.
    """
    a, b = fit(["A", "B"], two_entrants(20, 0))
    assert a.elo == pytest.approx(1941.365, abs=1e-3)
    assert (a.ci_low, a.ci_high, a.bound) == (pytest.approx(1375.273, abs=1e-3), math.inf, "lower")
    assert (b.ci_low, b.ci_high, b.bound) == (-math.inf, pytest.approx(1624.727, abs=1e-3), "upper")
    # 1,000–0 and 10⁹–0 no longer give the same bound.
    lows = [fit(["A", "B"], two_entrants(m, 0))[0].ci_low - fit(["A", "B"], two_entrants(m, 0))[1].elo
            for m in (1_000, 10**9)]
    q = [0.05 ** (1 / m) for m in (1_000, 10**9)]
    assert lows == pytest.approx([400 * math.log10(x / (1 - x)) for x in q], rel=1e-6)
    assert lows[1] - lows[0] > 1000


def test_draws_narrow_the_intervals_by_the_draw_model() -> None:
    """10 wins, 10 draws, 10 losses (+ ¼ virtual draw): p = 1/2. Bradley–Terry
    alone: information 30.25·¼, each rating's half-width
    1.96·(400/ln 10)/2/√7.5625 = 61.91. Draw model: φ = 1 − (10/4)/(30·¼) = 2/3,
    half-width 61.91·√(2/3) = 50.55."""
    wins = two_entrants(15, 15)
    draws = np.array([[0, 10], [10, 0]])
    result = fit_model(["A", "B"], wins, draws=draws)
    assert result.dispersion == pytest.approx(2 / 3)
    a = result.ratings[0]
    assert a.ci_high - a.elo == pytest.approx(50.546, abs=1e-3)
    # The same score without draws: φ = 1, the plain Bradley–Terry width.
    plain = fit_model(["A", "B"], two_entrants(15, 15))
    assert plain.dispersion == 1.0
    assert plain.ratings[0].ci_high - 1500 == pytest.approx(61.906, abs=1e-3)


def test_all_draws_rate_everyone_at_the_anchor() -> None:
    names, rows = ["a", "b", "c"], [("a", "b", 0.5), ("b", "c", 0.5), ("c", "a", 0.5)] * 5
    counts = tally(names, rows)
    ratings = fit(names, counts.wins, draws=counts.draws)
    assert [r.elo for r in ratings] == pytest.approx([1500.0] * 3)
    assert [(r.wins, r.draws, r.losses) for r in ratings] == [(0, 10, 0)] * 3


def test_disconnected_field_is_rated_group_by_group() -> None:
    wins = np.zeros((5, 5))
    wins[0, 1], wins[1, 0] = 3, 1  # a-b met
    wins[2, 3], wins[3, 2] = 1, 1  # c-d met, never a or b; e never played
    result = fit_model(list("abcde"), wins)
    a, b, c, d, e = result.ratings
    assert result.groups == 2
    assert (a.group, b.group, c.group, d.group) == (0, 0, 1, 1)
    # Each group has its own mean at the anchor: a-b (¼ virtual draw) by hand
    # 400·log10(3.125/1.125) = 177.48.
    assert (a.elo, b.elo) == (pytest.approx(1588.739, abs=1e-3), pytest.approx(1411.261, abs=1e-3))
    assert (c.elo, d.elo) == (pytest.approx(1500.0), pytest.approx(1500.0))
    assert math.isnan(e.elo) and e.games == 0 and e.group == -1
    assert math.isnan(result.los("a", "c")) and result.los("a", "b") > 0.5
    assert all(math.isnan(x) for x in result.difference("b", "d"))
    assert result.covariance[0, 2] == 0.0


def test_difference_interval_and_los_agree() -> None:
    """30–10 (default prior): ΔElo 189.41, its standard error 2·31.553 = 63.11,
    interval 189.41 ± 123.68; LOS = Φ(189.41/63.11) = 0.99866 > 0.975."""
    result = fit_model(["A", "B"], two_entrants(30, 10))
    diff, low, high = result.difference("A", "B")
    assert diff == pytest.approx(189.413, abs=1e-3)
    assert (high - diff) == pytest.approx(123.684, abs=1e-2)
    assert low > 0 and result.los("A", "B") > 0.975


@pytest.mark.parametrize(
    ("names", "wins", "kwargs", "match"),
    [
        (["a"], np.zeros((1, 1)), {}, "at least 2"),
        (["a", "a"], two_entrants(1, 1), {}, "duplicate"),
        (["a", "b", "c"], two_entrants(1, 1), {}, "shape"),
        (["a", "b"], two_entrants(-1, 1), {}, "non-negative"),
        (["a", "b"], two_entrants(np.nan, 1), {}, "finite"),
        (["a", "b"], np.ones((2, 2)), {}, "diagonal"),
        (["a", "b"], two_entrants(1.5, 0.5), {}, "half counts"),
        (["a", "b"], two_entrants(1.5, 0.5), {"draws": np.array([[0, 3], [3, 0]])}, "disagree"),
        (["a", "b"], two_entrants(1, 1), {"prior_draws": -1.0}, "prior_draws"),
    ],
)
def test_fit_bad_input(names: list[str], wins: np.ndarray, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fit(names, wins, **kwargs)


def test_los_by_name_and_unknown() -> None:
    result = fit_model(["A", "B"], two_entrants(30, 10))
    assert result.los("A", "A") == 0.5
    assert result.los(0, 1) == result.los("A", "B")
    with pytest.raises(ValueError, match="unknown"):
        result.los("A", "Z")


# --------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------


def test_tally_matches_a_plain_loop() -> None:
    rng = np.random.default_rng(99)
    names = ["w", "x", "y", "z"]
    rows = []
    for _ in range(500):
        i, j = rng.choice(4, size=2, replace=False)
        rows.append((names[i], names[j], float(rng.choice([0.0, 0.5, 1.0]))))
    wins = np.zeros((4, 4))
    draws = np.zeros((4, 4), dtype=int)
    for a, b, s in rows:
        i, j = names.index(a), names.index(b)
        wins[i, j] += s
        wins[j, i] += 1 - s
        if s == 0.5:
            draws[i, j] += 1
            draws[j, i] += 1
    counts = tally(names, rows)
    assert np.array_equal(counts.wins, wins)
    assert np.array_equal(counts.draws, draws)
    assert counts.games.sum() == 2 * len(rows)
    assert not counts.wins.flags.writeable


def test_tally_bad_rows() -> None:
    with pytest.raises(ValueError, match="unknown entrant 'q'"):
        tally(["a", "b"], [("a", "q", 1.0)])
    with pytest.raises(ValueError, match="plays itself"):
        tally(["a", "b"], [("a", "a", 1.0)])
    with pytest.raises(ValueError, match="not 0, 0.5 or 1"):
        tally(["a", "b"], [("a", "b", 0.7)])
    with pytest.raises(ValueError, match="score_a"):
        tally(["a", "b"], [("a", "b")])
    with pytest.raises(ValueError, match="out of range"):
        tally_arrays(2, [0], [2], [1.0])
    assert tally(["a", "b"], []).wins.sum() == 0


# --------------------------------------------------------------------------
# Head to head
# --------------------------------------------------------------------------


def test_head_to_head_by_hand() -> None:
    """A vs B: margins 10, 20, -6 from A's side (one row given as B vs A).

    Mean 8; sample sd √((2² + 12² + 14²)/2) = √172 = 13.115; t(0.975, 2) =
    4.3027; half-width 4.3027·13.115/√3 = 32.579.
    """
    rows = [
        ("A", "B", 10, 1.0),
        ("B", "A", -20, 0.0),  # A's margin +20, A won
        ("A", "B", -6, 0.0),
        ("C", "A", 0, 0.5),
    ]
    ab, ac = head_to_head(["A", "B", "C"], rows)
    assert (ab.a, ab.b, ab.boards, ab.wins, ab.draws, ab.losses) == ("A", "B", 3, 2, 0, 1)
    assert ab.score == pytest.approx(2 / 3)
    assert ab.mean_margin == pytest.approx(8.0)
    assert ab.ci_high - ab.mean_margin == pytest.approx(32.579, abs=1e-3)
    assert ab.mean_margin - ab.ci_low == pytest.approx(32.579, abs=1e-3)
    assert ab.ci_note is None
    # One board: no spread of its own; A-B's spread, pooled (2 degrees of
    # freedom): 0 ± 4.3027·13.115/√1 = ±56.43.
    assert (ac.a, ac.b, ac.boards, ac.draws, ac.mean_margin) == ("A", "C", 1, 1, 0.0)
    assert ac.ci_high == pytest.approx(56.428, abs=1e-3)
    assert "one board" in ac.ci_note and "pooled" in ac.ci_note


def test_head_to_head_forfeit_decides_score_not_margin() -> None:
    margin, fa, fb = 50, True, False
    (h,) = head_to_head(["A", "B"], [("A", "B", margin, board_pair_outcome(margin, fa, fb))] * 2)
    assert (h.wins, h.losses, h.mean_margin) == (0, 2, 50.0)
    # Every margin equal and no other pair: no zero-width interval, a note.
    assert math.isnan(h.ci_low) and math.isnan(h.ci_high)
    assert h.ci_note == "all 2 margins equal: no spread measured anywhere"


def test_head_to_head_bad_rows() -> None:
    with pytest.raises(ValueError, match="unknown"):
        head_to_head(["A", "B"], [("A", "X", 1, 1.0)])
    with pytest.raises(ValueError, match="finite"):
        head_to_head(["A", "B"], [("A", "B", math.inf, 1.0)])
    assert head_to_head(["A", "B"], []) == []
