"""Entrants at 100% or 0%: one-sided bounds and likelihoods of superiority.

An entrant that won (or lost) every board pair it played has no finite
maximum-likelihood rating; the fit (:mod:`arena.stats.ratings`) gives it the
prior's estimate, but the normal (Laplace) approximation around that estimate
says little about how strong it is: the likelihood is flat on one side. Its
interval and its comparisons are taken from the sweep itself instead, holding
every other entrant at its fitted strength:

- **Bound.** The one-sided 95% bound is the strength at which the observed
  clean sweep has probability 5% (Clopper–Pearson's rule for zero failures,
  Clopper & Pearson 1934; two entrants, m board pairs: ``400·log10(q / (1 −
  q))`` Elo above the other, ``q = 0.05^(1/m)``).
- **LOS.** The likelihood of superiority of the sweeper *i* over *j* is ``1 −
  P(sweep | θ_i = θ_j)``: the p-value of "no stronger than *j*" given the
  sweep (two entrants, m board pairs: ``1 − 2^−m``). It exceeds 0.95 exactly
  when the bound lies above *j*'s rating, so LOS and the one-sided interval of
  the difference (:meth:`arena.stats.ratings.RatingFit.difference`) agree.

Strengths ``theta`` are Bradley–Terry natural-log units (mean 0 in a group);
``n_games`` is the (n, n) matrix of board pairs played (virtual draws not
included).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

__all__ = ["ONE_SIDED", "one_sided", "sweep_los"]

#: One-sided 95%: the bound where the observed clean sweep has probability 5%.
ONE_SIDED = 0.05


def one_sided(i: int, theta: NDArray[np.float64], n_games: NDArray[np.float64], sign: int) -> float:
    """One-sided 95% bound of entrant *i*, in natural units (θ scale).

    Args:
        i: the entrant that won (``sign`` +1) or lost (``sign`` −1) every
            board pair it played.
        theta: fitted strengths, shape (n,).
        n_games: board pairs played, shape (n, n).
        sign: +1 for a lower bound (100%), −1 for an upper bound (0%).

    Returns:
        The strength at which the sweep of ``n_games[i]`` board pairs has
        probability 5%, the other entrants held at ``theta``: the lower
        (upper) end of ``{θ : P(sweep | θ) ≥ 0.05}``. It grows with the board
        pairs played (1,000–0 and 10⁹–0 do not give the same bound).
    """
    opponents = np.flatnonzero(n_games[i] > 0)
    counts = n_games[i, opponents]
    others = theta[opponents]
    target = math.log(ONE_SIDED)

    def log_sweep(t: float) -> float:
        return float(np.sum(counts * special.log_expit(sign * (t - others)))) - target

    # log_sweep rises with sign·t; bracket the root around the opponents.
    lo, hi = float(others.min()) - 50.0, float(others.max()) + 50.0
    return float(optimize.brentq(log_sweep, lo, hi, xtol=1e-12))


def sweep_los(theta: NDArray[np.float64], n_games: NDArray[np.float64], bounds: list[str | None],
              group: NDArray[np.int64]) -> NDArray[np.float64]:
    """Likelihoods of superiority decided by a sweep, shape (n, n); NaN elsewhere.

    ``[i, j]`` for *i* at 100% (``bounds[i] == "lower"``) against any *j* of
    its group that is not also at 100%: ``1 − P(i sweeps | θ_i = θ_j)``;
    ``[j, i]`` is its complement. For *i* at 0% (``"upper"``) against a *j*
    that is at neither: ``P(i loses every one | θ_i = θ_j)``, and ``[j, i]``
    its complement. Every other cell is NaN (the normal approximation holds).
    """
    n = len(theta)
    out = np.full((n, n), math.nan)
    for i in range(n):
        if bounds[i] is None:
            continue
        sign = 1.0 if bounds[i] == "lower" else -1.0
        opponents = np.flatnonzero(n_games[i] > 0)
        for j in range(n):
            if j == i or group[j] != group[i] or bounds[j] == bounds[i]:
                continue
            if bounds[i] == "upper" and bounds[j] is not None:
                continue  # a 100% entrant against one at 0%: its own row decides
            # P(the sweep | θ_i = θ_j): each opponent k beaten (or lost to) at θ_j
            p = math.exp(float(np.sum(n_games[i, opponents]
                                      * special.log_expit(sign * (theta[j] - theta[opponents])))))
            los_i = 1.0 - p if sign > 0 else p
            out[i, j], out[j, i] = los_i, 1.0 - los_i
    return out
