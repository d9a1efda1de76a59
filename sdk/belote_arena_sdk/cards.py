"""Cards for bot authors: text form, trick order, points and the master of a trick.

Everything here works on the protocol's own messages (``pb.Card``,
``pb.PlayedCard``) and enum numbers, so a bot never needs a second card type.
Card text is rank then suit letter: ``"JH"``, ``"10S"`` (RULES.md §1).

The trick-taking order and card points depend on the trump mode (RULES.md §2);
:class:`Trump` holds a trump mode and suit and answers both questions::

    trump = Trump.of(request.observation)        # once bidding is over
    trump.strength(card)                          # 0 (weakest) .. 7 (strongest) within its suit
    trump.points(card)                            # card points, e.g. 20 for the jack of trump
    trump.master(request.observation.current_trick.cards)   # index of the winning card so far
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from belote_arena_sdk.proto import bot_pb2 as pb

SUITS: tuple[int, ...] = (pb.SUIT_SPADES, pb.SUIT_HEARTS, pb.SUIT_DIAMONDS, pb.SUIT_CLUBS)
"""The four suits (``pb.Suit`` numbers), in the protocol's order ♠ ♥ ♦ ♣."""

RANKS: tuple[int, ...] = (
    pb.RANK_SEVEN, pb.RANK_EIGHT, pb.RANK_NINE, pb.RANK_TEN,
    pb.RANK_JACK, pb.RANK_QUEEN, pb.RANK_KING, pb.RANK_ACE,
)
"""The eight ranks (``pb.Rank`` numbers) in natural order 7 … A (RULES.md §2, sequences)."""

SUIT_TEXT: dict[int, str] = dict(zip(SUITS, "SHDC"))
"""Suit letter by ``pb.Suit`` number."""

RANK_TEXT: dict[int, str] = dict(zip(RANKS, ("7", "8", "9", "10", "J", "Q", "K", "A")))
"""Rank text by ``pb.Rank`` number."""

_SUIT_BY_TEXT = {t: s for s, t in SUIT_TEXT.items()}
_RANK_BY_TEXT = {t: r for r, t in RANK_TEXT.items()} | {"T": pb.RANK_TEN}

# RULES.md §2, per rank (natural order 7 8 9 10 J Q K A): strength within the
# suit (higher wins) and card points.
_TRUMP_ORDER = "J 9 A 10 K Q 8 7".split()
_PLAIN_ORDER = "A 10 K Q J 9 8 7".split()
_TRUMP_STRENGTH = {_RANK_BY_TEXT[t]: 7 - i for i, t in enumerate(_TRUMP_ORDER)}
_PLAIN_STRENGTH = {_RANK_BY_TEXT[t]: 7 - i for i, t in enumerate(_PLAIN_ORDER)}


def _points(order: list[str], values: tuple[int, ...]) -> dict[int, int]:
    return {_RANK_BY_TEXT[t]: v for t, v in zip(order, values)}


_TRUMP_POINTS = _points(_TRUMP_ORDER, (20, 14, 11, 10, 4, 3, 0, 0))          # suit total 62
_PLAIN_POINTS = _points(_PLAIN_ORDER, (11, 10, 4, 3, 2, 0, 0, 0))            # suit total 30
_ALL_TRUMPS_POINTS = _points(_TRUMP_ORDER, (13, 9, 6, 5, 3, 2, 0, 0))        # suit total 38
_NO_TRUMPS_POINTS = _points(_PLAIN_ORDER, (19, 10, 4, 3, 2, 0, 0, 0))        # suit total 38


def card(text: str) -> pb.Card:
    """Parse a card: rank then suit letter, ``"JH"``, ``"10s"``, ``"TS"`` (RULES.md §1).

    Raises:
        ValueError: when ``text`` is not one of the 32 cards.
    """
    t = text.strip().upper()
    rank, suit = _RANK_BY_TEXT.get(t[:-1]), _SUIT_BY_TEXT.get(t[-1:])
    if rank is None or suit is None:
        raise ValueError(f"not a card: {text!r} (expected rank 7 8 9 10 J Q K A then suit S H D C, e.g. '10H')")
    return pb.Card(suit=suit, rank=rank)


def cards(text: str) -> list[pb.Card]:
    """Parse space-separated cards: ``cards("JH 9H AS")``.

    Raises:
        ValueError: on the first word that is not a card.
    """
    return [card(t) for t in text.split()]


def card_str(c: pb.Card) -> str:
    """The text form of a card: ``"JH"``, ``"10S"``; ``"?"`` for an unset card."""
    return RANK_TEXT.get(c.rank, "?") + SUIT_TEXT.get(c.suit, "?") if c.rank or c.suit else "?"


def cards_str(cs: Iterable[pb.Card]) -> str:
    """Space-separated card texts: ``"JH 10S"``."""
    return " ".join(card_str(c) for c in cs)


def suit_str(suit: int) -> str:
    """The letter of a ``pb.Suit`` number: ``"H"``; ``"?"`` for SUIT_UNSPECIFIED."""
    return SUIT_TEXT.get(suit, "?")


def card_key(c: pb.Card) -> tuple[int, int]:
    """A hashable key of a card, ``(suit, rank)``: protobuf messages are not hashable."""
    return (c.suit, c.rank)


@dataclass(frozen=True)
class Trump:
    """A trump mode and suit: the card order and points of a deal (RULES.md §2).

    ``mode`` is a ``pb.TrumpMode`` number; ``suit`` a ``pb.Suit`` number, set
    only in ``TRUMP_MODE_SUIT``. Build one with :meth:`of`, :meth:`suit_mode`,
    :meth:`all_trumps` or :meth:`no_trumps`.
    """

    mode: int
    suit: int = pb.SUIT_UNSPECIFIED

    @staticmethod
    def of(obs: pb.Observation) -> Trump:
        """The observation's trump; ``mode`` is TRUMP_MODE_UNSPECIFIED while bidding."""
        suit = obs.trump_suit if obs.trump_mode == pb.TRUMP_MODE_SUIT else pb.SUIT_UNSPECIFIED
        return Trump(obs.trump_mode, suit)

    @staticmethod
    def suit_mode(suit: int) -> Trump:
        """One suit trump (``pb.Suit`` number)."""
        return Trump(pb.TRUMP_MODE_SUIT, suit)

    @staticmethod
    def all_trumps() -> Trump:
        """Every suit in trump order (tout atout)."""
        return Trump(pb.TRUMP_MODE_ALL_TRUMPS)

    @staticmethod
    def no_trumps() -> Trump:
        """No trump (sans atout)."""
        return Trump(pb.TRUMP_MODE_NO_TRUMPS)

    def is_trump(self, c: pb.Card) -> bool:
        """Whether ``c`` is a trump: its suit is the trump suit, or the mode is all-trumps."""
        return self.mode == pb.TRUMP_MODE_ALL_TRUMPS or (self.mode == pb.TRUMP_MODE_SUIT and c.suit == self.suit)

    def strength(self, c: pb.Card) -> int:
        """Rank of ``c`` within its suit, 0 (weakest) .. 7 (strongest): trump order
        J 9 A 10 K Q 8 7 for trumps, else A 10 K Q J 9 8 7 (RULES.md §2)."""
        return (_TRUMP_STRENGTH if self.is_trump(c) else _PLAIN_STRENGTH)[c.rank]

    def points(self, c: pb.Card) -> int:
        """Card points of ``c`` under this trump (RULES.md §2 table); each mode's 32 cards hold 152."""
        if self.mode == pb.TRUMP_MODE_ALL_TRUMPS:
            return _ALL_TRUMPS_POINTS[c.rank]
        if self.mode == pb.TRUMP_MODE_NO_TRUMPS:
            return _NO_TRUMPS_POINTS[c.rank]
        return (_TRUMP_POINTS if self.is_trump(c) else _PLAIN_POINTS)[c.rank]

    def beats(self, c: pb.Card, best: pb.Card, led_suit: int) -> bool:
        """Whether ``c`` beats ``best``, the card winning a trick whose led suit is
        ``led_suit`` (RULES.md §5): a trump beats any non-trump; otherwise only a
        higher card of the led suit (in all-trumps, only the led suit can win)."""
        if self.mode == pb.TRUMP_MODE_SUIT and c.suit != best.suit:
            return self.is_trump(c)
        if c.suit != best.suit:
            return False
        return self.strength(c) > self.strength(best)

    def master(self, played: Sequence[pb.PlayedCard | pb.Card]) -> int | None:
        """Index in ``played`` of the card winning the trick so far (its *master*);
        ``None`` for an empty trick. Accepts ``PlayedCard`` or ``Card`` items."""
        best_i: int | None = None
        best: pb.Card | None = None
        led = pb.SUIT_UNSPECIFIED
        for i, p in enumerate(played):
            c = p.card if isinstance(p, pb.PlayedCard) else p
            if best is None:
                best_i, best, led = i, c, c.suit
            elif self.beats(c, best, led):
                best_i, best = i, c
        return best_i

    def trick_points(self, played: Iterable[pb.PlayedCard | pb.Card]) -> int:
        """Card points of the cards in a trick (without dix de der)."""
        return sum(self.points(p.card if isinstance(p, pb.PlayedCard) else p) for p in played)


def team_of(seat: int) -> int:
    """The team of ``seat``: 0 = NS (seats 0, 2), 1 = EW (1, 3); two players: the seat itself (RULES.md §1)."""
    return seat % 2


def partner_of(seat: int, seat_count: int) -> int | None:
    """The partner's seat in a four-player game; ``None`` with two players."""
    return (seat + 2) % 4 if seat_count == 4 else None
