"""Ratings and head-to-head tables computed from stored board pairs (pure over rows)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ratings import HeadToHead, RatingFit, board_pair_outcome, fit_model, head_to_head, tally_arrays


@dataclass(frozen=True)
class RatingTable:
    """Ratings of one field: the fit, the entrants in descending Elo order, and the
    likelihood of superiority of each entrant over the next one down."""

    fit: RatingFit
    order: list[int]
    los_next: list[float | None]


def _scores(rows) -> np.ndarray:
    return np.array([board_pair_outcome(m, fa, fb) for _, _, m, fa, fb in rows], dtype=float)


def rating_table(rows: list[tuple[str, str, int, bool, bool]]) -> RatingTable | None:
    """Fit Elo (Bradley–Terry over board pairs, RULES.md §8) to stored rows
    ``(entrant_a, entrant_b, margin_a, forfeit_a, forfeit_b)``; ``None`` with no rows.

    Raises:
        ValueError: from the fit (e.g. a field split into groups that never met).
    """
    if not rows:
        return None
    names = sorted({r[0] for r in rows} | {r[1] for r in rows})
    index = {n: i for i, n in enumerate(names)}
    a = np.array([index[r[0]] for r in rows])
    b = np.array([index[r[1]] for r in rows])
    t = tally_arrays(len(names), a, b, _scores(rows))
    fit = fit_model(names, t.wins, draws=t.draws)
    order = sorted(range(len(names)), key=lambda i: -fit.ratings[i].elo)
    los_next = [fit.los(order[k], order[k + 1]) if k + 1 < len(order) else None for k in range(len(order))]
    return RatingTable(fit=fit, order=order, los_next=los_next)


def head_to_head_table(rows: list[tuple[str, str, int, bool, bool]]) -> list[HeadToHead]:
    """Per pair: board W/D/L and the mean duplicate margin with its 95% CI."""
    if not rows:
        return []
    names = sorted({r[0] for r in rows} | {r[1] for r in rows})
    scores = _scores(rows)
    return head_to_head(names, [(r[0], r[1], float(r[2]), float(s)) for r, s in zip(rows, scores)])
