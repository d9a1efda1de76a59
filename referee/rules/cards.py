"""Cards, suits and ranks (RULES.md §1, §2).

A card is a small ``int`` subclass numbered ``suit * 8 + rank`` (0..31), where
ranks are numbered in the *natural order* ``7 8 9 10 J Q K A`` (0..7) used by
declarations (§2).  Sets of cards (hands) are 32-bit masks: bit ``c`` set means
card ``c`` is in the set, and the 8 bits of suit ``s`` are ``(mask >> 8*s) & 0xFF``.
There are exactly 32 ``Card`` objects (``CARDS``); parsing returns one of them.
"""

from __future__ import annotations

from enum import IntEnum


class Suit(IntEnum):
    """The four suits; ``str(Suit.HEARTS) == "H"``."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    def __str__(self) -> str:
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        """The suit's symbol: ♠ ♥ ♦ ♣."""
        return "♠♥♦♣"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``"S" | "H" | "D" | "C"`` (any case).

        Raises:
            ValueError: for anything else.
        """
        try:
            return cls("SHDC".index(text.strip().upper()))
        except (ValueError, AttributeError):
            raise ValueError(f"not a suit: {text!r} (expected one of S, H, D, C)") from None


class Rank(IntEnum):
    """The eight ranks, numbered in natural order 7 < 8 < … < A (RULES.md §2)."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    def __str__(self) -> str:
        return RANK_TEXT[self]


RANK_TEXT = ("7", "8", "9", "10", "J", "Q", "K", "A")
_RANK_BY_TEXT = {t: Rank(i) for i, t in enumerate(RANK_TEXT)} | {"T": Rank.TEN}


class Card(int):
    """One of the 32 cards; ``Card.parse("JH")``, ``str(card) == "JH"``.

    Use :data:`CARDS` or :meth:`parse`; never build new instances.
    """

    __slots__ = ()

    @property
    def suit(self) -> Suit:
        return Suit(self >> 3)

    @property
    def rank(self) -> Rank:
        return Rank(self & 7)

    @property
    def bit(self) -> int:
        """This card's bit in a card mask."""
        return 1 << self

    def __str__(self) -> str:
        return CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({CARD_TEXT[self]!r})"

    @staticmethod
    def of(suit: Suit | int, rank: Rank | int) -> Card:
        """The card of ``suit`` and ``rank``."""
        return CARDS[suit * 8 + rank]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse rank then suit letter: ``"7S"``, ``"10H"``, ``"TH"``, ``"jd"`` (RULES.md §1).

        Raises:
            ValueError: when ``text`` is not a card.
        """
        card = _CARD_BY_TEXT.get(text.strip().upper()) if isinstance(text, str) else None
        if card is None:
            raise ValueError(f"not a card: {text!r} (expected rank 7 8 9 10 J Q K A then suit S H D C, e.g. '10H')")
        return card


CARD_TEXT = tuple(RANK_TEXT[c & 7] + "SHDC"[c >> 3] for c in range(32))
CARDS: tuple[Card, ...] = tuple(Card(c) for c in range(32))
_CARD_BY_TEXT = {t: CARDS[i] for i, t in enumerate(CARD_TEXT)} | {
    "T" + "SHDC"[s]: CARDS[s * 8 + Rank.TEN] for s in range(4)
}

#: Mask of all eight cards of each suit.
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))
FULL_DECK_MASK = (1 << 32) - 1

#: For each 32-bit mask's 8-bit suit slice: the ranks present, in natural order.
RANKS_IN_BYTE: tuple[tuple[int, ...], ...] = tuple(
    tuple(r for r in range(8) if b >> r & 1) for b in range(256)
)


def mask_of(cards) -> int:
    """The card mask of an iterable of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[Card]:
    """The cards of ``mask``, by suit (♠♥♦♣) then natural rank."""
    out = []
    for s in range(4):
        b = (mask >> (8 * s)) & 0xFF
        if b:
            base = s * 8
            out.extend(CARDS[base + r] for r in RANKS_IN_BYTE[b])
    return out


def format_cards(cards) -> str:
    """Space-separated card texts: ``"7S 10H"``."""
    return " ".join(CARD_TEXT[c] for c in cards)


def parse_cards(items) -> list[Card]:
    """Parse a list of card texts; raises ``ValueError`` on the first bad one."""
    return [Card.parse(t) for t in items]
