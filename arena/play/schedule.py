"""The duplicate round-robin scheduler: a pure function, no I/O.

RULES.md §8 (*Duplicate*): every board is played at two tables by the same
two entrants with their seats swapped. At table 1 entrant A holds the NS
cards (seats 0 and 2; in the two-player game seat 0) and B the EW cards
(seats 1 and 3; two players: seat 1); at table 2 B holds NS and A holds EW.
The second table plays the board with its suits renamed by a fixed
permutation (*Suit relabelling*).

The unit of work is the :class:`BoardPair`: one board for one pair of
entrants, both tables. Storage writes one board pair per transaction, so an
interrupted run never leaves half a board pair, and a rerun asks
:func:`missing` for what is left.

Every pair {A, B} (A before B in the given order of entrants) plays the same
boards 0..N-1. The order of the jobs is **board-major**: board 0 for every
pair, then board 1 for every pair, and so on; within a board the pairs come
in round-robin rounds (the circle method), in which every entrant plays at
most once. A run stopped anywhere has given every pair the same number of
boards, ±1, and every entrant the same number of board pairs, ±2.

Seeds. Everything random about a tournament comes from one integer, the
tournament seed, through SHA-256 with a separate domain tag per use
(:func:`board_seed`, :func:`suit_permutation`; the boards themselves are
``referee.rules.make_board(seed, k)``; what bots are told is keyed by it in
``referee.secret``). hashlib is stable across Python versions and platforms,
unlike ``random`` and ``hash()``. A new tournament's seed is secret,
:func:`new_seed` (256 bits from the operating system); what is published until
the tournament is complete is its commitment, ``arena.store.seed_commitment``
(a stored column).
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

__all__ = [
    "SUITS",
    "BoardPair",
    "Table",
    "SECRET_SEED_BITS",
    "board_seed",
    "iter_schedule",
    "match_order",
    "missing",
    "new_seed",
    "pair_index",
    "pairs",
    "schedule",
    "suit_permutation",
]

#: The suits by index, as used by :func:`suit_permutation`.
SUITS: tuple[str, str, str, str] = ("S", "H", "D", "C")

#: Derived seeds (:func:`board_seed`) are 63-bit: they fit a signed 64-bit integer.
_SEED_BITS = 63

#: Bits of a new tournament's secret seed (:func:`new_seed`).
SECRET_SEED_BITS = 256

#: The 9 derangements of the 4 suits (no suit keeps its name), in
#: lexicographic order. :func:`suit_permutation` picks one of them.
_DERANGEMENTS: tuple[tuple[int, int, int, int], ...] = tuple(
    cast(tuple[int, int, int, int], p)
    for p in itertools.permutations(range(4))
    if all(p[s] != s for s in range(4))
)

#: JobKey = (a, b, board): the identity of a board pair, as storage records it.
JobKey = tuple[str, str, int]


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a board pair.

    Attributes:
        number: 1 or 2.
        ns: the entrant holding the NS seats (0 and 2; two players: seat 0).
        ew: the entrant holding the EW seats (1 and 3; two players: seat 1).
        suits: the suit renaming to play this table with, a permutation of
            0..3 (``SUITS`` order): suit ``s`` of the board's deck becomes
            suit ``suits[s]``. The identity at table 1.
    """

    number: int
    ns: str
    ew: str
    suits: tuple[int, int, int, int]

    def entrant_at(self, seat: int, players: int = 4) -> str:
        """The entrant playing ``seat`` at this table.

        Args:
            seat: 0..players-1.
            players: 4 (seats 0, 2 are NS; 1, 3 are EW) or 2 (seat 0 NS side,
                seat 1 EW side).

        Raises:
            ValueError: players not 2 or 4, or seat out of range.
        """
        if players not in (2, 4):
            raise ValueError(f"players must be 2 or 4, got {players}")
        if not 0 <= seat < players:
            raise ValueError(f"seat must be in 0..{players - 1}, got {seat}")
        return self.ns if seat % 2 == 0 else self.ew


_IDENTITY: tuple[int, int, int, int] = (0, 1, 2, 3)


@dataclass(frozen=True, slots=True)
class BoardPair:
    """One job: board ``board`` played by A and B at both tables.

    Attributes:
        pair_index: the pair's number, stable when entrants are appended:
            for entrants at positions i < j, ``j·(j−1)/2 + i``
            (see :func:`pair_index`).
        a: the entrant earlier in the order of entrants (NS at table 1).
        b: the later entrant (NS at table 2).
        board: the board number, 0..N-1; the same deal for every pair.
        deck_seed: the board's deck seed, :func:`board_seed` (same for every
            pair and both tables).
        suits: the suit permutation of table 2, :func:`suit_permutation`.
    """

    pair_index: int
    a: str
    b: str
    board: int
    deck_seed: int
    suits: tuple[int, int, int, int]

    @property
    def key(self) -> JobKey:
        """``(a, b, board)``: what storage records and :func:`missing` matches."""
        return (self.a, self.b, self.board)

    @property
    def tables(self) -> tuple[Table, Table]:
        """Both tables: A holds NS at table 1, B holds NS at table 2 (RULES.md §8)."""
        return (
            Table(number=1, ns=self.a, ew=self.b, suits=_IDENTITY),
            Table(number=2, ns=self.b, ew=self.a, suits=self.suits),
        )


def pairs(entrants: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair, as (earlier, later) in the order of entrants.

    Listed by :func:`pair_index` (column-major: (0,1), (0,2), (1,2), (0,3), …),
    so appending an entrant only appends pairs.

    Raises:
        ValueError: see :func:`schedule`.
    """
    _check_entrants(entrants)
    return [(entrants[i], entrants[j]) for j in range(len(entrants)) for i in range(j)]


def pair_index(i: int, j: int) -> int:
    """Number of the pair of entrants at positions i and j (either order).

    ``hi·(hi−1)/2 + lo`` with lo < hi: 0-based, dense, and unchanged when
    entrants are appended.

    Raises:
        ValueError: negative positions or i == j.
    """
    lo, hi = min(i, j), max(i, j)
    if lo < 0 or lo == hi:
        raise ValueError(f"need two different non-negative positions, got {i}, {j}")
    return hi * (hi - 1) // 2 + lo


def schedule(entrants: Sequence[str], boards: int, seed: int) -> list[BoardPair]:
    """The duplicate round robin of a field: every pair plays every board.

    Args:
        entrants: the entrant keys, unique non-empty strings, at least 2.
            Their order decides who is A (earlier) in each pair.
        boards: N, the number of boards; boards are 0..N-1, shared by every
            pair.
        seed: the tournament seed (any int).

    Returns:
        ``N · n(n−1)/2`` :class:`BoardPair` jobs, board-major; within a board
        the pairs follow round-robin rounds (circle method) so that a partial
        run is balanced (module docstring).

    Raises:
        ValueError: fewer than 2 entrants, a duplicate or empty or non-string
            entrant key, N < 1, a non-integer seed.
    """
    return list(iter_schedule(entrants, boards, seed))


def iter_schedule(entrants: Sequence[str], boards: int, seed: int) -> Iterator[BoardPair]:
    """:func:`schedule` one job at a time: the same jobs in the same order, made as they
    are asked for (a field of 50 with 10⁶ board pairs needs no memory up front).

    Raises:
        ValueError: see :func:`schedule` (at the call, before the first job).
    """
    _check_entrants(entrants)
    _check_int("boards", boards)
    _check_int("seed", seed)
    if boards < 1:
        raise ValueError(f"need at least 1 board, got {boards}")
    order = [(i, j, pair_index(i, j)) for i, j in _round_robin_order(len(entrants))]
    return _jobs(list(entrants), order, boards, seed)


def _jobs(entrants: list[str], order: list[tuple[int, int, int]], boards: int, seed: int) -> Iterator[BoardPair]:
    for board in range(boards):
        deck = board_seed(seed, board)
        perm = suit_permutation(seed, board)
        for i, j, k in order:
            yield BoardPair(pair_index=k, a=entrants[i], b=entrants[j], board=board, deck_seed=deck, suits=perm)


def match_order(entrants: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair (A, B) of entrants once, in the order the schedule first meets them: the
    round-robin rounds of board 0 (each entrant at most once per round).  The order in
    which a tournament hands out its matches; ``n(n−1)/2`` pairs (1,225 for 50 entrants).

    Raises:
        ValueError: see :func:`schedule`.
    """
    _check_entrants(entrants)
    return [(entrants[i], entrants[j]) for i, j in _round_robin_order(len(entrants))]


def missing(all_jobs: Iterable[BoardPair], done_keys: Collection[JobKey]) -> list[BoardPair]:
    """The jobs not yet done, in schedule order.

    Used to resume a run and to extend a tournament: a schedule recomputed
    with an entrant appended contains the old jobs unchanged (same a, b,
    board, seeds), so ``missing(new_schedule, done)`` is exactly the new
    entrant's pairs on the same boards, plus whatever was left unfinished.

    Args:
        all_jobs: the full schedule (:func:`schedule`).
        done_keys: the ``(a, b, board)`` keys of completed board pairs
            (:attr:`BoardPair.key`; A is the earlier entrant). A set is
            fastest; any collection works.

    Returns:
        The jobs whose key is not in ``done_keys``, in the order given.
    """
    done = done_keys if isinstance(done_keys, (set, frozenset)) else set(done_keys)
    return [job for job in all_jobs if job.key not in done]


def _round_robin_order(n: int) -> list[tuple[int, int]]:
    """All pairs (i < j) of 0..n-1 in circle-method rounds.

    Each round pairs every entrant at most once (odd n: one bye per round),
    so any prefix gives every entrant the same number of games, ±1.
    """
    slots: list[int | None] = list(range(n))
    if n % 2:
        slots.append(None)  # the bye
    m = len(slots)
    out: list[tuple[int, int]] = []
    for _ in range(m - 1):
        for k in range(m // 2):
            x, y = slots[k], slots[m - 1 - k]
            if x is not None and y is not None:
                out.append((min(x, y), max(x, y)))
        # Keep slot 0 fixed, rotate the rest by one.
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return out


def _check_entrants(entrants: Sequence[str]) -> None:
    if isinstance(entrants, str):
        raise ValueError("entrants must be a sequence of entrant keys, not one string")
    seen: set[str] = set()
    for e in entrants:
        if not isinstance(e, str) or not e:
            raise ValueError(f"entrant keys must be non-empty strings, got {e!r}")
        if e in seen:
            raise ValueError(f"duplicate entrant {e!r}")
        seen.add(e)
    if len(seen) < 2:
        raise ValueError(f"need at least 2 entrants, got {len(seen)}")


def _check_int(what: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {value!r}")


# --------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------


def _digest(domain: str, *parts: int | str) -> bytes:
    """SHA-256 of a domain tag and parts, unambiguously encoded.

    Each part is written as a type letter, its UTF-8 length and its UTF-8
    text (ints in decimal), so no two different part lists share an input.
    """
    h = hashlib.sha256()
    h.update(b"belote-arena/" + domain.encode() + b"/v1")
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, (int, str)):
            raise ValueError(f"seed parts must be ints or strings, got {part!r}")
        text = (str(part) if isinstance(part, int) else part).encode("utf-8")
        h.update(b"\0" + (b"i" if isinstance(part, int) else b"s") + str(len(text)).encode() + b":" + text)
    return h.digest()


def _seed_from(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big") >> (64 - _SEED_BITS)


def board_seed(seed: int, board: int) -> int:
    """The deck seed of board ``board`` in the tournament ``seed``.

    ``first 63 bits of SHA-256("belote-arena/board-seed/v1" ‖ seed ‖ board)``
    (big-endian; parts encoded as in the module's ``_digest``). The same for
    every pair and both tables, so every pair is dealt the same cards.

    Returns:
        An int in 0..2⁶³−1.

    Raises:
        ValueError: seed or board not an int, board < 0.
    """
    _check_int("seed", seed)
    _check_int("board", board)
    if board < 0:
        raise ValueError(f"board must be ≥ 0, got {board}")
    return _seed_from(_digest("board-seed", seed, board))


def suit_permutation(seed: int, board: int) -> tuple[int, int, int, int]:
    """The suit renaming of table 2 of a board (RULES.md §8, *Suit relabelling*).

    Algorithm (stable across Python versions): take
    ``d = SHA-256("belote-arena/suit-permutation/v1" ‖ seed ‖ board)``, read
    its first 8 bytes as a big-endian unsigned integer ``x`` and return the
    ``x mod 9``-th of the 9 *derangements* of (0, 1, 2, 3) in lexicographic
    order: (1, 0, 3, 2), (1, 2, 3, 0), (1, 3, 0, 2), (2, 0, 3, 1),
    (2, 3, 0, 1), (2, 3, 1, 0), (3, 0, 1, 2), (3, 2, 0, 1), (3, 2, 1, 0).
    A derangement renames every suit, so no suit's holding reappears
    unchanged at the second table (the identity or a single swap would let
    a bot recognise part of a board). The bias of ``mod 9`` on 64 bits is
    below 10⁻¹⁸.

    It depends on the tournament seed and the board number only, never on
    the board's deck seed, so knowing a deal reveals nothing about it.

    Args:
        seed: the tournament seed.
        board: the board number, ≥ 0.

    Returns:
        ``p`` with ``p[s]`` the new index of suit ``s`` (``SUITS`` order
        S, H, D, C): every ♠ becomes ``SUITS[p[0]]``, and so on.

    Raises:
        ValueError: seed or board not an int, board < 0.
    """
    _check_int("seed", seed)
    _check_int("board", board)
    if board < 0:
        raise ValueError(f"board must be ≥ 0, got {board}")
    x = int.from_bytes(_digest("suit-permutation", seed, board)[:8], "big")
    return _DERANGEMENTS[x % len(_DERANGEMENTS)]


def new_seed() -> int:
    """A new secret tournament seed: :data:`SECRET_SEED_BITS` (256) random bits from the
    operating system (``secrets.randbits``), an int in 0 … 2²⁵⁶−1."""
    return secrets.randbits(SECRET_SEED_BITS)
