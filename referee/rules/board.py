"""Boards: a deck order and a dealer, re-creatable anywhere from ``(seed, number)``.

RULES.md §1 ("in a tournament the shuffle of a deal is fixed in advance and
called a board"), §3.1 (deck order, index 0 dealt first) and §8 (board *k* has
its dealer at seat ``k mod seats``; suit relabelling).

A seed is any integer, written in decimal in the hashed text: a tournament's
secret seed is a 256-bit integer (78 digits at most), a seed given by hand a
small one (``--seed 7``); both deal by the same formula, so boards of small
seeds are those of every earlier release.

The shuffle algorithm (version 1), stable across Python versions and machines:

1. A byte stream: ``SHA-256(b"belote-arena/board/v1/" + f"{seed}/{number}/{i}")`` for
   ``i = 0, 1, 2, …``, concatenated (``seed`` and ``number`` in decimal ASCII).
2. Fisher–Yates from the top of the natural deck ``7S 8S … AS 7H … AC``
   (card ``c = suit*8 + rank``): for ``j = 31 … 1`` draw a big-endian 32-bit
   word ``w`` from the stream, reject it while ``w >= 2**32 - 2**32 % (j+1)``,
   and swap positions ``j`` and ``w % (j+1)``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .cards import CARD_TEXT, CARDS, Card


@dataclass(frozen=True)
class Board:
    """A board: ``number`` (≥ 0), ``dealer`` seat and the 32-card ``deck`` (index 0 = top)."""

    number: int
    dealer: int
    deck: tuple[Card, ...]

    def deck_text(self) -> list[str]:
        """The deck as card texts, as stored in deal records."""
        return [CARD_TEXT[c] for c in self.deck]


def _stream(seed: int, number: int):
    i = 0
    while True:
        digest = hashlib.sha256(f"belote-arena/board/v1/{seed}/{number}/{i}".encode()).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        i += 1


def shuffled_deck(seed: int, number: int) -> tuple[Card, ...]:
    """The deck order of board ``number`` of ``seed`` (algorithm in the module docstring)."""
    deck = list(CARDS)
    words = _stream(seed, number)
    for j in range(31, 0, -1):
        n = j + 1
        limit = (1 << 32) - (1 << 32) % n
        w = next(words)
        while w >= limit:
            w = next(words)
        k = w % n
        deck[j], deck[k] = deck[k], deck[j]
    return tuple(deck)


def make_board(seed: int, number: int, seats: int = 4) -> Board:
    """Board ``number`` of the board set ``seed`` (any integer, e.g. 256 bits): its deck
    and dealer ``number % seats`` (§8).

    Raises:
        ValueError: if ``seed`` or ``number`` is not an int, ``number`` is negative or
            ``seats`` is not 2 or 4.
    """
    for what, value in (("seed", seed), ("board number", number)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{what} must be an integer, got {value!r}")
    if number < 0:
        raise ValueError(f"board number must be >= 0, got {number}")
    if seats not in (2, 4):
        raise ValueError(f"seats must be 2 or 4, got {seats}")
    return Board(number=number, dealer=number % seats, deck=shuffled_deck(seed, number))


def relabel(deck, permutation) -> tuple[Card, ...]:
    """The deck with every card's suit ``s`` renamed ``permutation[s]`` (RULES.md §8).

    ``permutation`` is a sequence of the four suit indexes (0..3 = S H D C).

    Raises:
        ValueError: if ``permutation`` is not a permutation of 0..3.
    """
    if sorted(permutation) != [0, 1, 2, 3]:
        raise ValueError(f"not a permutation of the four suits: {permutation!r}")
    return tuple(CARDS[permutation[c >> 3] * 8 + (c & 7)] for c in deck)
