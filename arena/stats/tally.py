"""Board pairs as games: a board pair's outcome and the wins and draws matrices that
:func:`arena.stats.ratings.fit_model` fits.

**The unit is the board pair** (RULES.md §8, *Duplicate*): one board played
at both tables of a duplicate match is one game. It is won by the entrant
with the larger duplicate margin, drawn on an equal margin, and lost by an
entrant that forfeited it (both forfeited: a draw); see
:func:`board_pair_outcome`. Ratings scored per deal or per board are not
comparable with these and must never be mixed into one list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .ratings import _index

__all__ = ["Tally", "board_pair_outcome", "scores", "tally", "tally_arrays"]

#: Allowed scores of one board pair, for the entrant listed first.
_SCORES = (0.0, 0.5, 1.0)


def board_pair_outcome(margin_a: int, forfeit_a: bool, forfeit_b: bool) -> float:
    """Score of entrant A on one board pair (RULES.md §8, *Duplicate*).

    Args:
        margin_a: A's duplicate margin on the board, in game points:
            (A's points at both tables) − (B's points at both tables).
        forfeit_a: A forfeited the board at either table.
        forfeit_b: B forfeited the board at either table.

    Returns:
        1.0 if A won the board pair, 0.5 for a draw, 0.0 if A lost. A forfeit
        loses regardless of the margin; if both entrants forfeited it is a
        draw. Otherwise the sign of the margin decides.
    """
    if forfeit_a and forfeit_b:
        return 0.5
    if forfeit_a:
        return 0.0
    if forfeit_b:
        return 1.0
    if margin_a > 0:
        return 1.0
    if margin_a < 0:
        return 0.0
    return 0.5


@dataclass(frozen=True, eq=False)
class Tally:
    """Board-pair results aggregated per ordered pair of entrants.

    Attributes:
        wins: float array of shape (n, n); ``wins[i, j]`` = board pairs won by
            *i* against *j*, plus half of their draws. This is the matrix
            :func:`fit` takes.
        draws: int array of shape (n, n), symmetric; ``draws[i, j]`` = board
            pairs drawn between *i* and *j*.

    Both arrays are read-only and have a zero diagonal.
    """

    wins: NDArray[np.float64]
    draws: NDArray[np.int64]

    @property
    def games(self) -> NDArray[np.int64]:
        """Board pairs played between *i* and *j*, shape (n, n), symmetric."""
        return np.rint(self.wins + self.wins.T).astype(np.int64)


def tally_arrays(n: int, a: ArrayLike, b: ArrayLike, score_a: ArrayLike) -> Tally:
    """Aggregate board-pair results given as index arrays (vectorised).

    Args:
        n: number of entrants; entrants are indices 0..n-1.
        a: int array of shape (m,), the first entrant of each board pair.
        b: int array of shape (m,), the second entrant.
        score_a: float array of shape (m,), A's score on each board pair:
            0, 0.5 or 1 (see :func:`board_pair_outcome`).

    Returns:
        The :class:`Tally` of the m results. Runs in O(m + n²) with two
        ``np.bincount`` calls; one million results take a few milliseconds.

    Raises:
        ValueError: n < 2; arrays of different lengths or not 1-D; an index
            outside 0..n-1; an entrant playing itself; a score other than
            0, 0.5 or 1.
    """
    if n < 2:
        raise ValueError(f"need at least 2 entrants, got {n}")
    ia = np.asarray(a)
    ib = np.asarray(b)
    s = np.asarray(score_a, dtype=np.float64)
    if ia.ndim != 1 or ib.ndim != 1 or s.ndim != 1:
        raise ValueError("a, b and score_a must be 1-D arrays")
    if not (len(ia) == len(ib) == len(s)):
        raise ValueError(
            f"a, b and score_a must have the same length, got {len(ia)}, {len(ib)}, {len(s)}"
        )
    if len(ia) and not (np.issubdtype(ia.dtype, np.integer) and np.issubdtype(ib.dtype, np.integer)):
        raise ValueError("a and b must be integer entrant indices")
    ia = ia.astype(np.int64, copy=False)
    ib = ib.astype(np.int64, copy=False)
    if len(ia):
        lo = min(int(ia.min()), int(ib.min()))
        hi = max(int(ia.max()), int(ib.max()))
        if lo < 0 or hi >= n:
            raise ValueError(f"entrant index out of range 0..{n - 1}: found {lo if lo < 0 else hi}")
        same = np.flatnonzero(ia == ib)
        if len(same):
            raise ValueError(f"result {int(same[0])}: entrant {int(ia[same[0]])} plays itself")
        bad = np.flatnonzero((s != 0.0) & (s != 0.5) & (s != 1.0))
        if len(bad):
            raise ValueError(f"result {int(bad[0])}: score {s[bad[0]]!r} is not 0, 0.5 or 1")
    forward = ia * n + ib
    backward = ib * n + ia
    size = n * n
    wins = (
        np.bincount(forward, weights=s, minlength=size)
        + np.bincount(backward, weights=1.0 - s, minlength=size)
    ).reshape(n, n)
    drawn = s == 0.5
    d = np.bincount(forward[drawn], minlength=size).reshape(n, n)
    draws = (d + d.T).astype(np.int64)
    wins.setflags(write=False)
    draws.setflags(write=False)
    return Tally(wins=wins, draws=draws)


def tally(names: Sequence[str], results: Iterable[tuple[str, str, float]]) -> Tally:
    """Aggregate board-pair results given as ``(a, b, score_a)`` rows.

    Args:
        names: the entrants, unique; the matrices are indexed in this order.
        results: one row per board pair: the two entrants' names and A's
            score (0, 0.5 or 1, see :func:`board_pair_outcome`).

    Returns:
        The :class:`Tally`. The rows are turned into arrays once and then
        aggregated with numpy (:func:`tally_arrays`): a million rows take
        a fraction of a second, nearly all of it spent reading the rows.

    Raises:
        ValueError: fewer than 2 or duplicate names; an unknown name; any
            error of :func:`tally_arrays`.
    """
    index = _index(names)
    rows = list(results)
    if not rows:
        return tally_arrays(len(index), np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    ia, ib = _entrant_columns(index, rows)
    s = _float_column(rows, 2, "score_a")
    return tally_arrays(len(index), ia, ib, s)


def _entrant_columns(
    index: dict[str, int], rows: Sequence[tuple[object, ...]]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Columns 0 and 1 of the rows as entrant positions, shape (m,) each.

    ``map(itemgetter)`` instead of ``zip(*rows)``: unpacking a million rows
    into one call's arguments alone costs half a second.
    """
    try:
        return (
            np.fromiter(map(index.__getitem__, map(itemgetter(0), rows)), np.int64, len(rows)),
            np.fromiter(map(index.__getitem__, map(itemgetter(1), rows)), np.int64, len(rows)),
        )
    except KeyError as exc:
        raise ValueError(f"unknown entrant {exc.args[0]!r}") from None
    except (IndexError, TypeError):
        raise ValueError("every result row must be a tuple starting (a, b, ...)") from None


def _float_column(rows: Sequence[tuple[object, ...]], col: int, what: str) -> NDArray[np.float64]:
    """Column ``col`` of the rows as floats, shape (m,)."""
    try:
        return np.fromiter(map(itemgetter(col), rows), np.float64, len(rows))
    except IndexError:
        raise ValueError(f"every result row needs a {what} in position {col}") from None
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number in every result row") from None


def scores(rows) -> np.ndarray:
    """A's score per board pair of ``rows`` (:class:`arena.store.BoardPairRows`): 1 win, 0.5 draw,
    0 loss; a forfeit loses, RULES.md §8. Vectorised :func:`board_pair_outcome`."""
    s = np.where(rows.margin > 0, 1.0, np.where(rows.margin < 0, 0.0, 0.5))
    s = np.where(rows.forfeit_a & ~rows.forfeit_b, 0.0, s)
    s = np.where(rows.forfeit_b & ~rows.forfeit_a, 1.0, s)
    return np.where(rows.forfeit_a & rows.forfeit_b, 0.5, s)
