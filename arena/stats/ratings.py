"""Elo ratings by maximum-likelihood Bradley–Terry over board pairs.

Pure functions over results: no I/O, no storage. The approach is the batch
one of BayesElo and Ordo (FIELD-NOTES.md, "Ratings"): aggregate every result
into a wins matrix, fit all ratings at once by maximum likelihood, and take
the error bars from the curvature of the log-likelihood.

The unit is the board pair: :mod:`arena.stats.tally` turns board pairs into the
wins matrix fitted here.

**Model.** Bradley–Terry (Bradley & Terry 1952): entrant *i* scores against
*j* with probability ``p_ij = 1 / (1 + exp(θ_j − θ_i))``; a draw counts as
half a win each way. The maximum-likelihood θ is computed by choix's
:func:`choix.ilsr_pairwise_dense` (iterative Luce Spectral Ranking, Maystre &
Grossglauser 2015, which converges to the same fixed point as Hunter's 2004
MM algorithm) and polished with Newton steps on the same likelihood.

**Prior.** An entrant that won (or lost) every board pair has no finite
maximum-likelihood rating. As in BayesElo, virtual draws are added: by
default ``prior_draws = 2`` **per entrant**, each entrant spreading its share
evenly over the opponents it met, **but no pair gets more than
``prior_draws/8``** (``PAIR_CAP``; ¼ virtual draw at the default) —
:func:`prior_matrix`. In a round robin of n that is ``min(2/(n−1), ¼)``
virtual draws per pair: unchanged from 9 entrants up, ¼ for 2–8. Between two
entrants that is ⅛ virtual win and ⅛ loss: with 30 wins and 10 losses the Elo
difference is ``400·log10(30.125/10.125) ≈ 189.4`` instead of ``400·log10(3)
≈ 190.8``. Pairs that never met get no virtual games, so the prior never
creates a connection the results do not have.

*Why the cap.* Without it the two entrants of a 2-entrant field put their
whole prior on their one pairing (2 virtual draws, a virtual win each way),
which shrank a lopsided pair: 2 bots without draws, 400, 600, 800 Elo apart
at 20 board pairs, 95% intervals covered the truth 0.898, 0.876, 0.820 of the
time, 1000 Elo apart at 100 board pairs 0.729 (computed exactly). With the
cap, 2 entrants 0–1000 Elo apart by 200 at 20 and 100 board pairs cover
0.957 on average, every cell 0.922–0.983 exactly without draws, 0.953 pooled
with 0% and 30% draws in 400 simulated matches per cell
(``tests/stats/test_coverage.py``); the cells off 0.93–0.97 are the normal
interval's limit at extreme scores (800 Elo at 100 board pairs: 0.922 before
and after), not the prior's. The 54-cell grid of 3–20 entrants of
``bench/RESULTS.md`` still pools to 95.0%. (The
earlier rule, 2 per *pair*, gave an entrant of a 20-bot field 38 virtual
draws and shrank the spread by 6–12%; ``prior_scope="pair"`` keeps it for
comparison.)

**Groups.** Entrants that never met, directly or through others, cannot be
compared: the field is rated group by group (connected components of the
"played" graph), each group's mean at the anchor; ``Rating.group`` says
which, and LOS or differences across groups are NaN. An entrant with no
board pairs has no rating (NaN).

**Scale and anchor.** Elo = ``anchor + (400 / ln 10)·(θ − mean θ)``: a
difference of 400 Elo is 10:1 odds, and **the mean rating of the listed
entrants is the anchor** (1500 by default). The ratings are only defined up
to a common shift; the anchor fixes it.

**Error bars.** The covariance of θ is the Moore–Penrose pseudo-inverse of
the observed Fisher information (minus the Hessian of the log-likelihood,
virtual draws included, i.e. a Laplace approximation of the posterior). The
information is a weighted graph Laplacian whose null space is the common
shift; its pseudo-inverse is exactly the covariance of the mean-centred
ratings, which is the anchor constraint.

Bradley–Terry takes a board pair's score variance as ``p(1−p)``; with draws
it is smaller, ``p(1−p) − δ/4`` for a draw probability δ (a draw scores ½,
a win or loss ½ away from it). The covariance is multiplied by the pooled
ratio ``φ = 1 − (D/4) / Σ n_ij·p_ij·(1−p_ij)`` (D the drawn board pairs,
real games only; ``RatingFit.dispersion``): without draws φ = 1; at 30%
draws φ ≈ 0.7 and intervals ≈ 0.84× as wide. (Without this factor, 95%
intervals covered the truth 97–99% of the time at 30% draws.)

Each rating's 95% interval is ``elo ± 1.96·√C_ii`` (relative to its group's
mean). **An entrant at 100%** (every board pair won) has no finite upper
bound: its interval is one-sided, ``[L, +inf)``, with L the strength at which
a clean sweep of its board pairs has probability 5%
(:func:`arena.stats.sweeps.one_sided`); the rating itself is the prior's
estimate. At 0% likewise ``(−inf, U]``. Its differences to the others are
open-ended the same way (:meth:`RatingFit.difference`).

The likelihood of superiority is ``LOS(i, j) = Φ((R_i − R_j) /
√(C_ii + C_jj − 2·C_ij))``: the probability, under a flat prior on the
difference and the normal approximation, that *i* is the stronger entrant.
It is computed from the difference and its own variance (the covariance term
matters: two ratings fitted from the same games are correlated), so it
separates two entrants well before their individual intervals stop
overlapping. LOS > 97.5% is the same as the difference's two-sided 95%
interval excluding 0 (:meth:`RatingFit.difference`). For an entrant at
100% (0%) the normal approximation says nothing: its LOS over another is
``1 − P(its sweep | equal strength)`` (:func:`arena.stats.sweeps.sweep_los`;
2 entrants, m board pairs: ``1 − 2^−m``), above 95% exactly when its one-sided
difference interval excludes 0. Picking the largest
of many LOS values (e.g. "adjacent in the table") is a selection: read a
single LOS of 0.9 as suggestive, not decisive.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import choix
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.sparse.csgraph import connected_components

from .sweeps import one_sided, sweep_los

__all__ = [
    "ELO_PER_NATURAL_UNIT",
    "Rating",
    "RatingFit",
    "fit",
    "prior_matrix",
    "fit_model",
]

#: Elo points per natural-log unit of Bradley–Terry strength: 400 / ln 10.
ELO_PER_NATURAL_UNIT: float = 400.0 / math.log(10.0)

#: With ``prior_scope="entrant"`` a pair gets at most this share of ``prior_draws``
#: (¼ virtual draw at the default 2): see :func:`prior_matrix`.
PAIR_CAP: float = 0.125

#: Two-sided 95% normal quantile, Φ⁻¹(0.975).
_Z95: float = float(special.ndtri(0.975))


# --------------------------------------------------------------------------
# The fit
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Rating:
    """One entrant's rating; the unit is the board pair.

    Attributes:
        name: the entrant.
        elo: rating in Elo (400 per factor 10 of odds); the mean of the
            entrant's connected group is the anchor. NaN for an entrant with
            no board pairs.
        ci_low: lower end of the 95% interval (elo − 1.96·standard error);
            for an entrant at 100% the one-sided 95% lower bound (below).
        ci_high: upper end of the 95% interval; ``+inf`` for an entrant at
            100% (no upper bound is known), and for an entrant at 0% the
            one-sided 95% upper bound (``ci_low`` is then ``-inf``).
        games: board pairs played (virtual draws not included).
        wins: board pairs won.
        draws: board pairs drawn.
        losses: board pairs lost.
        score: (wins + draws / 2) / games, 0..1; NaN if no games.
        group: the connected group (0, 1, …; largest first) the entrant was
            rated in; ratings of different groups are not comparable.
        bound: ``"lower"`` for an entrant at 100% (only the lower bound is
            informative), ``"upper"`` at 0%, else ``None``.
    """

    name: str
    elo: float
    ci_low: float
    ci_high: float
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    group: int = 0
    bound: str | None = None


@dataclass(frozen=True, eq=False)
class RatingFit:
    """The ratings of a field plus their covariance.

    Attributes:
        ratings: one :class:`Rating` per entrant, in the order of the names.
        covariance: float array of shape (n, n), read-only; the covariance of
            the Elo ratings in Elo², rows and columns in the order of the
            names. Block-diagonal by group; within a group every row sums to
            zero (the anchor fixes the group's mean). NaN rows for entrants
            with no board pairs.
        prior_draws: virtual draws per entrant used in the fit.
        groups: number of connected groups among the entrants that played
            (1 for a connected field). Entrants that played no board pair
            are in no group of their own and are not counted.
        dispersion: φ, the factor applied to the Bradley–Terry covariance
            for draws (module docstring, *Error bars*); 1 without draws.
        sweeps: (n, n) LOS decided by an entrant at 100% or 0%
            (:func:`arena.stats.sweeps.sweep_los`), NaN where the normal
            approximation holds; ``None``: none.
    """

    ratings: tuple[Rating, ...]
    covariance: NDArray[np.float64]
    prior_draws: float
    groups: int = 1
    dispersion: float = 1.0
    sweeps: NDArray[np.float64] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The entrants, in fit order."""
        return tuple(r.name for r in self.ratings)

    def index(self, entrant: int | str) -> int:
        """Position of an entrant given by position or name.

        Raises:
            ValueError: unknown name or position out of range.
        """
        if isinstance(entrant, str):
            for i, r in enumerate(self.ratings):
                if r.name == entrant:
                    return i
            raise ValueError(f"unknown entrant {entrant!r}")
        i = int(entrant)
        if not 0 <= i < len(self.ratings):
            raise ValueError(f"entrant index {i} out of range 0..{len(self.ratings) - 1}")
        return i

    def difference(self, i: int | str, j: int | str) -> tuple[float, float, float]:
        """Elo difference R_i − R_j with its 95% interval, ``(diff, low, high)``.

        The interval is ``diff ± 1.96·√(C_ii + C_jj − 2·C_ij)``: a test on the
        difference itself, narrower than comparing the two ratings'
        intervals (which overlap long after the difference is significant).
        All NaN when the two are in different groups or one has no games.

        **One-sided.** When A won every board pair it played (``bound ==
        "lower"``) or B lost every one (``"upper"``), the difference has no
        finite upper end: ``(diff, L, +inf)`` with L from the one-sided
        bound of the entrant at 100% (or 0%) against the other's fitted
        rating (:func:`arena.stats.sweeps.one_sided`; for two entrants, m board pairs:
        ``400·log10(q / (1 − q))``, ``q = 0.05^(1/m)``, Clopper–Pearson's
        rule for 0 failures), as :func:`arena.stats.sprt.estimate`. Mirrored
        (``-inf`` low end) when A lost every one or B won every one; both
        ends open when both entrants swept the same way.

        Raises:
            ValueError: unknown entrant.
        """
        a, b = self.index(i), self.index(j)
        if a == b:
            return 0.0, 0.0, 0.0
        ra, rb = self.ratings[a], self.ratings[b]
        if ra.group != rb.group or not (math.isfinite(ra.elo) and math.isfinite(rb.elo)):
            return math.nan, math.nan, math.nan
        c = self.covariance
        half = _Z95 * math.sqrt(max(c[a, a] + c[b, b] - 2.0 * c[a, b], 0.0))
        diff = ra.elo - rb.elo
        low, high = diff - half, diff + half
        # An entrant at 100% (or 0%) has no finite bound on one side: neither has the difference.
        ups = ([ra.ci_low - rb.elo] if ra.bound == "lower" else []) + \
              ([ra.elo - rb.ci_high] if rb.bound == "upper" else [])
        downs = ([ra.ci_high - rb.elo] if ra.bound == "upper" else []) + \
                ([ra.elo - rb.ci_low] if rb.bound == "lower" else [])
        if ups and not downs:
            low, high = min(ups), math.inf
        elif downs and not ups:
            low, high = -math.inf, max(downs)
        elif ups and downs:  # both at 100% or both at 0% (never met each other): unbounded both ways
            low, high = -math.inf, math.inf
        return diff, low, high

    def los(self, i: int | str, j: int | str) -> float:
        """Likelihood of superiority of *i* over *j*, 0..1.

        ``Φ((R_i − R_j) / √(C_ii + C_jj − 2·C_ij))``: the posterior
        probability (normal approximation) that *i* is the stronger entrant.
        ``los(i, j) + los(j, i) == 1``; ``los(i, i) == 0.5``. NaN when the
        two are in different groups (never compared, directly or through
        others) or one has no games.

        Args:
            i, j: entrants, by position in the fit or by name.

        Raises:
            ValueError: unknown entrant.
        """
        a, b = self.index(i), self.index(j)
        if a == b:
            return 0.5
        return float(self.los_matrix()[a, b])

    def los_matrix(self) -> NDArray[np.float64]:
        """All likelihoods of superiority, shape (n, n); [i, j] = los(i, j)."""
        elo = np.array([r.elo for r in self.ratings])
        group = np.array([r.group for r in self.ratings])
        c = self.covariance
        d = np.diag(c)
        var = d[:, None] + d[None, :] - 2.0 * c
        diff = elo[:, None] - elo[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = special.ndtr(diff / np.sqrt(var))
        # No variance (not reachable from fit_model for a pair in one group): the sign decides.
        flat = (var <= 0.0) & np.isfinite(diff)
        out[flat] = np.where(diff[flat] > 0, 1.0, np.where(diff[flat] < 0, 0.0, 0.5))
        if self.sweeps is not None:
            out = np.where(np.isnan(self.sweeps), out, self.sweeps)
        out[group[:, None] != group[None, :]] = math.nan
        np.fill_diagonal(out, 0.5)
        return out


def fit(
    names: Sequence[str],
    wins: ArrayLike,
    *,
    draws: ArrayLike | None = None,
    anchor: float = 1500.0,
    prior_draws: float = 2.0,
    prior_scope: str = "entrant",
) -> list[Rating]:
    """Elo ratings of a field from its wins matrix; see :func:`fit_model`.

    Returns:
        ``fit_model(...).ratings`` as a list, in the order of ``names``.
    """
    return list(fit_model(names, wins, draws=draws, anchor=anchor, prior_draws=prior_draws,
                          prior_scope=prior_scope).ratings)


def prior_matrix(played: ArrayLike, prior_draws: float, scope: str = "entrant") -> NDArray[np.float64]:
    """Virtual draws between every two entrants, shape (n, n), symmetric.

    Args:
        played: bool array (n, n), symmetric: the pairs that met.
        prior_draws: with ``scope="entrant"``, the virtual draws each entrant
            gets in all: entrant *i*, which met ``k_i`` opponents, spreads
            ``prior_draws`` over them, so the pair (i, j) gets
            ``prior_draws/(2·k_i) + prior_draws/(2·k_j)``, at most
            ``PAIR_CAP·prior_draws`` (in a complete round robin of n:
            ``min(prior_draws/(n−1), prior_draws/8)`` per pair; module
            docstring, *Prior*). With ``scope="pair"``, ``prior_draws`` per
            pair that met (the earlier rule: ``(n−1)·prior_draws`` per entrant
            in a round robin, which shrinks large fields).
        scope: ``"entrant"`` or ``"pair"``.

    Raises:
        ValueError: an unknown scope.
    """
    p = np.asarray(played, dtype=bool)
    if scope == "pair":
        return prior_draws * p.astype(np.float64)
    if scope != "entrant":
        raise ValueError(f"prior_scope must be 'entrant' or 'pair', got {scope!r}")
    k = p.sum(axis=1).astype(np.float64)
    share = np.divide(prior_draws / 2.0, k, out=np.zeros_like(k), where=k > 0)
    return np.minimum(share[:, None] + share[None, :], prior_draws * PAIR_CAP) * p


def fit_model(
    names: Sequence[str],
    wins: ArrayLike,
    *,
    draws: ArrayLike | None = None,
    anchor: float = 1500.0,
    prior_draws: float = 2.0,
    prior_scope: str = "entrant",
) -> RatingFit:
    """Maximum-likelihood Bradley–Terry Elo ratings with covariance.

    Args:
        names: the n entrants, unique, n ≥ 2.
        wins: array of shape (n, n); ``wins[i, j]`` = board pairs *i* won
            against *j*, draws counted as half a win each way (``Tally.wins``).
        draws: optional int array of shape (n, n), symmetric: board pairs
            drawn between *i* and *j* (``Tally.draws``). Splits the counts in
            each :class:`Rating` into wins, draws and losses, and narrows the
            error bars by the draws (module docstring, *Error bars*); if
            omitted, ``wins`` must hold whole numbers (no draws).
        anchor: the mean of the ratings of each connected group, in Elo.
        prior_draws: virtual draws per entrant (``prior_scope="entrant"``,
            the default) or per pair that met (``"pair"``); see
            :func:`prior_matrix`; ≥ 0. With 0 the fit is plain maximum
            likelihood, which needs every entrant to have both won and lost
            within its group.
        prior_scope: ``"entrant"`` or ``"pair"`` (:func:`prior_matrix`).

    Returns:
        A :class:`RatingFit`: ratings in the order of ``names``, their
        covariance in Elo², and :meth:`RatingFit.los`. A field split into
        groups that never met (directly or through others) is rated group by
        group, each group's mean at ``anchor`` (``RatingFit.groups`` > 1 and
        ``Rating.group`` say which); an entrant with no board pairs gets NaN.

    Raises:
        ValueError: fewer than 2 or duplicate names; a matrix of the wrong
            shape, negative, non-finite or with a non-zero diagonal; draws
            not symmetric or more than the half-wins allow; half wins
            without ``draws``; with ``prior_draws == 0``, an entrant with
            100% or 0% in its group.
        RuntimeError: the fit did not converge (not expected on valid data).
    """
    index = _index(names)
    n = len(index)
    w = np.array(wins, dtype=np.float64)
    if w.shape != (n, n):
        raise ValueError(f"wins must have shape ({n}, {n}) for {n} names, got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("wins must be finite and non-negative")
    if np.any(np.diag(w) != 0):
        raise ValueError("wins must have a zero diagonal: an entrant cannot play itself")
    if not (math.isfinite(prior_draws) and prior_draws >= 0):
        raise ValueError(f"prior_draws must be a finite number ≥ 0, got {prior_draws!r}")
    if not math.isfinite(anchor):
        raise ValueError(f"anchor must be finite, got {anchor!r}")

    n_games = w + w.T
    if draws is None:
        if np.any(w != np.round(w)):
            raise ValueError("wins has half counts (draws); pass draws= to split them")
        d = np.zeros((n, n), dtype=np.float64)
    else:
        d = np.array(draws, dtype=np.float64)
        if d.shape != (n, n):
            raise ValueError(f"draws must have shape ({n}, {n}), got {d.shape}")
        if np.any(d < 0) or np.any(d != np.round(d)) or np.any(d != d.T) or np.any(np.diag(d) != 0):
            raise ValueError("draws must be whole, non-negative, symmetric, with a zero diagonal")
    decisive = w - d / 2.0
    if np.any(decisive < -1e-9) or np.any(np.abs(decisive - np.round(decisive)) > 1e-9):
        raise ValueError("wins and draws disagree: wins - draws/2 must be whole and non-negative")

    played = n_games > 0
    if prior_draws == 0:
        _check_strict(played, w)
    wp = w + prior_matrix(played, prior_draws, prior_scope) / 2.0

    games = np.rint(n_games.sum(axis=1)).astype(np.int64)
    n_draws = np.rint(d.sum(axis=1)).astype(np.int64)
    n_wins = np.rint(decisive.sum(axis=1)).astype(np.int64)
    n_losses = games - n_draws - n_wins
    points = w.sum(axis=1)

    scale = ELO_PER_NATURAL_UNIT
    elo = np.full(n, math.nan)
    cov = np.full((n, n), math.nan)
    group = np.full(n, -1, dtype=np.int64)
    theta_all = np.full(n, math.nan)
    # Groups, largest first; an entrant without games is a group of its own and is left out.
    count, labels = connected_components(played, directed=False)
    sizes = np.bincount(labels, minlength=count)
    ranked = [g for g in sorted(range(count), key=lambda g: (-sizes[g], int(np.flatnonzero(labels == g)[0])))
              if sizes[g] > 1]
    real_var = 0.0
    real_draws = 0.0
    for k, g in enumerate(ranked):
        members = np.flatnonzero(labels == g)
        sub = np.ix_(members, members)
        theta = _ml_strengths(wp[sub])
        info = _information(wp[sub], theta)
        c = (scale * scale) * _pseudo_inverse_laplacian(info)
        elo[members] = anchor + scale * (theta - theta.mean())
        theta_all[members] = theta - theta.mean()
        cov[sub] = (c + c.T) / 2.0
        group[members] = k
        p = _probabilities(theta)
        real_var += float(np.sum(np.triu(n_games[sub] * p * p.T, 1)))
        real_draws += float(np.sum(np.triu(d[sub], 1)))
    rated = group >= 0  # covariance between groups: none (never compared)
    cov[rated[:, None] & rated[None, :] & (group[:, None] != group[None, :])] = 0.0
    # Draw model: a board pair with expected score p and draw probability δ has
    # score variance p(1−p) − δ/4, not p(1−p); the pooled ratio φ scales the covariance.
    dispersion = 1.0
    if real_draws > 0 and real_var > 0:
        dispersion = float(np.clip(1.0 - (real_draws / 4.0) / real_var, _MIN_DISPERSION, 1.0))
    cov *= dispersion
    cov.setflags(write=False)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))

    ratings = []
    for i in range(n):
        low, high, bound = elo[i] - _Z95 * se[i], elo[i] + _Z95 * se[i], None
        if games[i] and group[i] >= 0 and n_wins[i] == games[i]:  # 100%: no upper bound
            low, high, bound = anchor + scale * one_sided(i, theta_all, n_games, +1), math.inf, "lower"
        elif games[i] and group[i] >= 0 and n_losses[i] == games[i]:  # 0%: no lower bound
            low, high, bound = -math.inf, anchor + scale * one_sided(i, theta_all, n_games, -1), "upper"
        ratings.append(Rating(
            name=str(names[i]),
            elo=float(elo[i]),
            ci_low=float(low),
            ci_high=float(high),
            games=int(games[i]),
            wins=int(n_wins[i]),
            draws=int(n_draws[i]),
            losses=int(n_losses[i]),
            score=float(points[i] / games[i]) if games[i] else math.nan,
            group=int(group[i]),
            bound=bound,
        ))
    bounds = [r.bound for r in ratings]
    sweeps = sweep_los(theta_all, n_games, bounds, group) if any(bounds) else None
    return RatingFit(ratings=tuple(ratings), covariance=cov, prior_draws=float(prior_draws),
                     groups=len(ranked), dispersion=dispersion, sweeps=sweeps)


#: The smallest draw-model factor φ (a field of nothing but draws).
_MIN_DISPERSION = 0.05

def _index(names: Sequence[str]) -> dict[str, int]:
    """Map each name to its position; ValueError on < 2 or duplicate names."""
    if isinstance(names, str):
        raise ValueError("names must be a sequence of entrant names, not one string")
    index: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in index:
            raise ValueError(f"duplicate entrant name {name!r}")
        index[name] = i
    if len(index) < 2:
        raise ValueError(f"need at least 2 entrants, got {len(index)}")
    return index


def _check_strict(played: NDArray[np.bool_], w: NDArray[np.float64]) -> None:
    """Without a prior, every group must be strongly connected in the "beat or
    drew with" graph: otherwise the maximum likelihood is at infinity."""
    count, labels = connected_components(played, directed=False)
    strong, slabels = connected_components(w > 0, directed=True, connection="strong")
    for g in range(count):
        members = np.flatnonzero(labels == g)
        if len(members) > 1 and len(set(slabels[members].tolist())) > 1:
            raise ValueError(
                "with prior_draws=0 every entrant needs a win and a loss (or a draw) "
                "linking it to the rest; an entrant at 100% or 0% has no finite rating"
            )


def _ml_strengths(wp: NDArray[np.float64]) -> NDArray[np.float64]:
    """ML Bradley–Terry strengths θ (natural log units, mean 0), shape (n,).

    choix's ILSR (Maystre & Grossglauser 2015) does the fit; up to a few
    Newton steps on the concave log-likelihood then bring the gradient to
    rounding level, so the result does not depend on ILSR's stopping rule.
    """
    try:
        theta = np.asarray(choix.ilsr_pairwise_dense(wp, max_iter=1000, tol=1e-10), dtype=np.float64)
    except RuntimeError:
        # ILSR converges linearly and can be slow on very lopsided data;
        # Newton below finishes the job from the last estimate.
        theta = np.asarray(choix.lsr_pairwise_dense(wp), dtype=np.float64)
    if not np.all(np.isfinite(theta)):
        raise RuntimeError("Bradley–Terry fit diverged (non-finite strengths)")
    total = float(wp.sum())
    for _ in range(50):
        grad = _gradient(wp, theta)
        if np.max(np.abs(grad)) <= 1e-10 * max(1.0, total):
            break
        step = _pseudo_inverse_laplacian(_information(wp, theta)) @ grad
        # Damp very long steps (far from the optimum); Newton is exact near it.
        longest = float(np.max(np.abs(step)))
        if longest > 2.0:
            step *= 2.0 / longest
        theta = theta + step
        theta -= theta.mean()
    else:
        raise RuntimeError("Bradley–Terry fit did not converge")
    return theta - theta.mean()


def _probabilities(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """p[i, j] = P(i beats j) = σ(θ_i − θ_j), shape (n, n)."""
    return special.expit(theta[:, None] - theta[None, :])


def _gradient(wp: NDArray[np.float64], theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """∂ log L / ∂θ_i = Σ_j (W_ij − n_ij·p_ij), shape (n,)."""
    n_games = wp + wp.T
    return wp.sum(axis=1) - (n_games * _probabilities(theta)).sum(axis=1)


def _information(wp: NDArray[np.float64], theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Observed Fisher information −∇² log L, shape (n, n).

    ``I_ij = −n_ij·p_ij·p_ji`` for i ≠ j and ``I_ii = Σ_j n_ij·p_ij·p_ji``: a
    weighted Laplacian. For Bradley–Terry it equals the expected information.
    """
    p = _probabilities(theta)
    weights = (wp + wp.T) * p * p.T
    np.fill_diagonal(weights, 0.0)
    info = -weights
    np.fill_diagonal(info, weights.sum(axis=1))
    return info


def _pseudo_inverse_laplacian(info: NDArray[np.float64]) -> NDArray[np.float64]:
    """Moore–Penrose pseudo-inverse of a connected graph Laplacian, shape (n, n).

    With J the all-ones matrix, ``L⁺ = (L + J/n)⁻¹ − J/n`` when the null
    space of L is exactly the constant vector (a connected graph).
    """
    n = info.shape[0]
    j = np.full((n, n), 1.0 / n)
    return np.linalg.inv(info + j) - j
