"""Ratings and head-to-head tables computed from stored board pairs (pure over rows)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .ratings import HeadToHead, RatingFit, fit_model, head_to_head, tally_arrays
from .store import BoardPairRows, MatchSummary, Tournament


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


def ratings_json(table: RatingTable) -> list[dict]:
    """The rating list as ``arena ratings --json`` prints it, best first: one object per
    entrant with ``rank``, ``name``, ``version``, ``elo``, ``ci_low``, ``ci_high`` (95%,
    Elo, one decimal), ``boards``, ``wins``, ``draws``, ``losses`` (board pairs),
    ``score`` (0..1) and ``los_next`` (likelihood of superiority over the next one down,
    ``None`` for the last)."""
    out = []
    for k, i in enumerate(table.order):
        r = table.fit.ratings[i]
        name, _, version = r.name.partition("@")
        out.append({"rank": k + 1, "name": name, "version": version, "elo": round(r.elo, 1),
                    "ci_low": round(r.ci_low, 1), "ci_high": round(r.ci_high, 1), "boards": r.games,
                    "wins": r.wins, "draws": r.draws, "losses": r.losses, "score": round(r.score, 4),
                    "los_next": None if table.los_next[k] is None else round(table.los_next[k], 4)})
    return out


def head_to_head_json(table: list[HeadToHead]) -> list[dict]:
    """The head-to-head list as ``arena ratings --head-to-head --json`` prints it: the
    :class:`HeadToHead` fields, with ``None`` for an interval not known (one board)."""
    return [{**h.__dict__, "ci_low": None if math.isnan(h.ci_low) else h.ci_low,
             "ci_high": None if math.isnan(h.ci_high) else h.ci_high} for h in table]


def entrant_json(key: str) -> dict:
    """An entrant as JSON, the one shape of every command: ``{"name", "version"}``."""
    name, _, version = key.rpartition("@")
    return {"name": name, "version": version}


def tournament_json(t: Tournament) -> dict:
    """A tournament as ``arena tournament show --json`` prints it: the seed (decimal
    text) only once it may be shown, else ``None``; ``board_pairs`` stored of
    ``board_pairs_total`` (boards per pair × pairs of entrants); entrants as
    :func:`entrant_json`."""
    n = len(t.entrants)
    return {
        "name": t.name, "ruleset": t.ruleset, "options": t.options, "boards_per_pair": t.boards_per_pair,
        "entrants": [entrant_json(k) for k in t.entrants], "board_pairs": t.board_pairs,
        "board_pairs_total": t.boards_per_pair * n * (n - 1) // 2, "status": t.status,
        "created_at": str(t.created_at)[:19], "commitment": t.commitment, "seed_secret": t.seed_secret,
        "seed_revealed": t.seed_revealed, "seed": None if t.public_seed is None else str(t.public_seed),
    }


def match_json(m: MatchSummary) -> dict:
    """A match summary as ``arena matches --json`` prints it: the :class:`MatchSummary`
    fields, entrants as :func:`entrant_json`, and ``mean_margin`` (A's duplicate margin
    per board, one decimal)."""
    return {**m.__dict__, "entrant_a": entrant_json(m.entrant_a), "entrant_b": entrant_json(m.entrant_b),
            "mean_margin": round(m.mean_margin, 1)}
