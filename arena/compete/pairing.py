"""Who plays the ladder's next block: pure functions over the field's ratings (no I/O).

- :func:`placement_panel`: the opponents of a new version's **placement gauntlet**, one fresh
  block against each: every older active version (its owner's own included, played but never
  rated against it), or when there are more than ``cap`` (32), the owner's own and others
  spread evenly over the rating list.
- :func:`next_pair`: afterwards, the pair whose next block carries the most information,
  ``p(1 − p) · (σ_a² + σ_b²) / (1 + n_ab / 64)``: ``p`` the expected score (close ratings:
  high), ``σ`` the ratings' standard errors in Elo (wide intervals: high), ``n_ab`` the board
  pairs the two have played together (few: high). A **floor** comes first: a version that
  played none of the last ``floor · n`` blocks (``n`` active versions) is given its best pair
  before anyone else, so nobody starves. Pairs of one owner's versions never play (they would
  never be rated), and a busy version (in a unit being played) waits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Entry", "UNRATED_SD", "information", "next_pair", "placement_panel"]

#: The standard error (Elo) taken for a version without a rating yet.
UNRATED_SD = 350.0


@dataclass(frozen=True)
class Entry:
    """An active version as the scheduler sees it.

    Attributes:
        version: the version's id.
        owner: its participant.
        elo: its ladder rating (NaN: none yet).
        sd: its rating's standard error, Elo (NaN or inf: unknown).
        last_block: the last block it played (-1: none).
    """

    version: int
    owner: str
    elo: float = math.nan
    sd: float = math.nan
    last_block: int = -1


def _sd(e: Entry) -> float:
    return e.sd if math.isfinite(e.sd) else UNRATED_SD


def information(a: Entry, b: Entry, boards_together: int) -> float:
    """The information of a next block between ``a`` and ``b`` (module docstring), > 0."""
    diff = (a.elo - b.elo) if math.isfinite(a.elo) and math.isfinite(b.elo) else 0.0
    p = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
    return p * (1.0 - p) * (_sd(a) ** 2 + _sd(b) ** 2) / (1.0 + boards_together / 64.0)


def placement_panel(new: Entry, field: Sequence[Entry], cap: int = 32) -> list[int]:
    """The version ids ``new`` meets in its placement: every entry of ``field`` (the other active
    versions older than it), or, with more than ``cap``, its owner's own versions and others
    evenly spaced over the rating list (unrated ones last), ``cap`` in all."""
    others = [e for e in field if e.version != new.version]
    if len(others) <= cap:
        return sorted(e.version for e in others)
    own = [e.version for e in others if e.owner == new.owner]
    rest = sorted((e for e in others if e.owner != new.owner),
                  key=lambda e: (not math.isfinite(e.elo), -e.elo if math.isfinite(e.elo) else 0.0, e.version))
    room = max(0, cap - len(own))
    picked = [rest[round(i * (len(rest) - 1) / max(1, room - 1))].version for i in range(room)] if room > 1 \
        else [rest[len(rest) // 2].version][:room]
    return sorted(set(own[:cap]) | set(picked))


def next_pair(entries: Sequence[Entry], boards_together: Mapping[tuple[int, int], int], next_block: int, *,
              busy: frozenset[int] | set[int] = frozenset(), floor: int = 2) -> tuple[int, int] | None:
    """The next ladder pair ``(older, newer)`` by version id, or None (no two free versions of
    different owners). ``boards_together[(a, b)]`` (a < b): board pairs played; ``next_block``:
    the block to be played; ``floor``: blocks per active version a version may go without
    playing before it comes first."""
    free = [e for e in entries if e.version not in busy]
    pairs = [(a, b) for i, a in enumerate(free) for b in free[i + 1:] if a.owner != b.owner]
    if not pairs:
        return None

    def value(pair: tuple[Entry, Entry]) -> tuple[float, int, int]:
        a, b = sorted(pair, key=lambda e: e.version)
        return (information(a, b, boards_together.get((a.version, b.version), 0)), -a.version, -b.version)

    gap = floor * max(2, len(entries))
    starving = sorted((e for e in free if next_block - e.last_block > gap), key=lambda e: (e.last_block, e.version))
    for e in starving:
        mine = [p for p in pairs if e in p]
        if mine:
            pairs = mine
            break
    a, b = max(pairs, key=value)
    return (min(a.version, b.version), max(a.version, b.version))
