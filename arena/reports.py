"""Ratings and head-to-head tables computed from stored board pairs (pure over rows)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ratings import HeadToHead, RatingFit, fit_model, head_to_head, tally_arrays
from .store import BoardPairRows


@dataclass(frozen=True)
class RatingTable:
    """Ratings of one field: the fit, the entrants in descending Elo order, and the
    likelihood of superiority of each entrant over the next one down."""

    fit: RatingFit
    order: list[int]
    los_next: list[float | None]


def scores(rows: BoardPairRows) -> np.ndarray:
    """A's score per board pair (1 win, 0.5 draw, 0 loss; a forfeit loses, RULES.md §8), vectorised."""
    s = np.where(rows.margin > 0, 1.0, np.where(rows.margin < 0, 0.0, 0.5))
    s = np.where(rows.forfeit_a & ~rows.forfeit_b, 0.0, s)
    s = np.where(rows.forfeit_b & ~rows.forfeit_a, 1.0, s)
    return np.where(rows.forfeit_a & rows.forfeit_b, 0.5, s)


def rating_table(rows: BoardPairRows) -> RatingTable | None:
    """Fit Elo (Bradley–Terry over board pairs, RULES.md §8) to stored board pairs;
    ``None`` with no rows.

    Raises:
        ValueError: from the fit (e.g. a field split into groups that never met).
    """
    if not len(rows):
        return None
    names = list(rows.entrants)
    t = tally_arrays(len(names), rows.a, rows.b, scores(rows))
    fit = fit_model(names, t.wins, draws=t.draws)
    order = sorted(range(len(names)), key=lambda i: -fit.ratings[i].elo)
    los_next = [fit.los(order[k], order[k + 1]) if k + 1 < len(order) else None for k in range(len(order))]
    return RatingTable(fit=fit, order=order, los_next=los_next)


def head_to_head_table(rows: BoardPairRows) -> list[HeadToHead]:
    """Per pair: board W/D/L and the mean duplicate margin with its 95% CI."""
    if not len(rows):
        return []
    names = rows.entrants
    return head_to_head(names, [(names[a], names[b], float(m), float(s))
                                for a, b, m, s in zip(rows.a, rows.b, rows.margin, scores(rows))])
