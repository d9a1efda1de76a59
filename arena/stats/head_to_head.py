"""Head to head: each pair of entrants' board-pair record and mean duplicate margin with
its 95% interval (``arena ratings --head-to-head``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .ratings import _index
from .tally import _entrant_columns, _float_column

__all__ = ["HeadToHead", "head_to_head"]


@dataclass(frozen=True)
class HeadToHead:
    """Board-pair record of one pair of entrants, from A's side.

    Attributes:
        a: the entrant listed first (earlier in the names).
        b: the other entrant.
        boards: board pairs played between them.
        wins: board pairs A won.
        draws: board pairs drawn.
        losses: board pairs A lost.
        score: (wins + draws / 2) / boards, A's score fraction.
        mean_margin: A's mean duplicate margin per board, in game points.
        ci_low: lower end of the 95% interval of the mean margin.
        ci_high: upper end; both NaN when no spread is known at all.
        ci_note: why the interval is not the pair's own t interval, or
            ``None`` when it is: with one board, or every margin equal, the
            pair's own spread is unknown or zero, so the interval uses the
            spread pooled over every pair (said in the note), or is NaN
            when no pair has any spread.
    """

    a: str
    b: str
    boards: int
    wins: int
    draws: int
    losses: int
    score: float
    mean_margin: float
    ci_low: float
    ci_high: float
    ci_note: str | None = None


def head_to_head(
    names: Sequence[str], results: Iterable[tuple[str, str, float, float]]
) -> list[HeadToHead]:
    """Per-pair board-pair records and mean duplicate margins.

    Args:
        names: the entrants, unique, at least 2.
        results: one row per board pair: ``(a, b, margin_a, score_a)`` with
            A's duplicate margin in game points (RULES.md §8) and A's score
            (0, 0.5 or 1, from :func:`arena.stats.tally.board_pair_outcome`; a forfeit decides
            the score, the recorded margin still counts in the mean). Rows
            may name a pair in either order.

    Returns:
        One :class:`HeadToHead` per pair that played at least one board,
        oriented so that A comes before B in ``names``, pairs in the order
        of ``names`` (A's position, then B's). The 95% interval of the mean
        margin is Student's t with boards − 1 degrees of freedom:
        ``mean ± t₀.₉₇₅·s/√boards``, s the sample standard deviation. Boards
        are independent deals, so the t interval is exact for normal
        margins and close to it for the bounded margins of Belote once a
        pair has played a few boards. A pair with one board, or whose
        margins are all equal (s = 0), would get no interval or one of zero
        width, which claims a certainty the data do not have: it gets
        ``mean ± t·s_pooled/√boards`` instead, s_pooled the within-pair
        standard deviation pooled over every pair (degrees of freedom
        Σ(boards − 1)), and ``ci_note`` says so; NaN if no pair has spread.

    Raises:
        ValueError: fewer than 2 or duplicate names; an unknown name; an
            entrant playing itself; a score other than 0, 0.5, 1; a
            non-finite margin.
    """
    index = _index(names)
    n = len(index)
    rows = list(results)
    if not rows:
        return []
    ia, ib = _entrant_columns(index, rows)
    margin = _float_column(rows, 2, "margin_a")
    score = _float_column(rows, 3, "score_a")
    same = np.flatnonzero(ia == ib)
    if len(same):
        raise ValueError(f"result {int(same[0])}: {names[ia[same[0]]]!r} plays itself")
    bad = np.flatnonzero((score != 0.0) & (score != 0.5) & (score != 1.0))
    if len(bad):
        raise ValueError(f"result {int(bad[0])}: score {score[bad[0]]!r} is not 0, 0.5 or 1")
    if not np.all(np.isfinite(margin)):
        raise ValueError("margins must be finite")

    # Orient every row so that A is the earlier entrant.
    flip = ia > ib
    lo = np.where(flip, ib, ia)
    hi = np.where(flip, ia, ib)
    margin = np.where(flip, -margin, margin)
    score = np.where(flip, 1.0 - score, score)

    key = lo * n + hi
    size = n * n
    boards = np.bincount(key, minlength=size)
    wins = np.bincount(key, weights=score == 1.0, minlength=size)
    draws = np.bincount(key, weights=score == 0.5, minlength=size)
    total = np.bincount(key, weights=margin, minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / boards
        centred = margin - mean[key]
        sq = np.bincount(key, weights=centred * centred, minlength=size)
        sd = np.sqrt(sq / (boards - 1))
    pooled_df = int(np.sum(np.clip(boards - 1, 0, None)))
    pooled_sd = math.sqrt(float(sq[boards > 1].sum()) / pooled_df) if pooled_df else 0.0

    out: list[HeadToHead] = []
    for k in np.flatnonzero(boards):
        i, j = divmod(int(k), n)
        m = int(boards[k])
        note = None
        if m >= 2 and sd[k] > 0:
            half = float(stats.t.ppf(0.975, m - 1)) * float(sd[k]) / math.sqrt(m)
        elif pooled_sd > 0:
            half = float(stats.t.ppf(0.975, pooled_df)) * pooled_sd / math.sqrt(m)
            note = ("one board" if m == 1 else f"all {m} margins equal") + (
                f": spread pooled over every pair (s = {pooled_sd:.1f} points)")
        else:
            half = math.nan
            note = ("one board" if m == 1 else f"all {m} margins equal") + ": no spread measured anywhere"
        low, high = float(mean[k]) - half, float(mean[k]) + half
        nw, nd = int(round(wins[k])), int(round(draws[k]))
        out.append(
            HeadToHead(
                a=str(names[i]),
                b=str(names[j]),
                boards=m,
                wins=nw,
                draws=nd,
                losses=m - nw - nd,
                score=(nw + nd / 2.0) / m,
                mean_margin=float(mean[k]),
                ci_low=low,
                ci_high=high,
                ci_note=note,
            )
        )
    return out
