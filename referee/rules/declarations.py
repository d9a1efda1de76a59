"""Declarations (annonces): tierce, quarte, quinte, carré — RULES.md §6.1 and §7.

A :class:`Declaration` is a set of cards: a carré (four cards of one rank) or a
sequence (three or more consecutive cards of one suit in natural order
``7 8 9 10 J Q K A``).  :func:`declaration_options` lists every legal
*choice* a hand has (each a tuple of disjoint declarations), and
:func:`declaration_winner` applies the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .cards import CARD_TEXT, CARDS, Card, Rank
from .ruleset import PLAIN_STRENGTH, DeclarationRules

_RANK_NAMES_PLURAL = ("sevens", "eights", "nines", "tens", "jacks", "queens", "kings", "aces")
_SEQUENCE_NAMES = {3: "tierce", 4: "quarte", 5: "quinte"}


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declaration: its ``cards`` in card order (suit, then natural rank)."""

    cards: tuple[Card, ...]

    @property
    def is_carre(self) -> bool:
        return len(self.cards) == 4 and len({c & 7 for c in self.cards}) == 1

    @property
    def length(self) -> int:
        return len(self.cards)

    @property
    def top(self) -> Rank:
        """The highest rank in natural order (a carré's rank)."""
        return Rank(max(c & 7 for c in self.cards))

    @property
    def kind(self) -> str:
        """The public kind (§6.1): ``"tierce"``, ``"quarte"``, ``"quinte"``,
        ``"sequence of 6"`` (two-player only) or ``"carré of nines"``."""
        if self.is_carre:
            return f"carré of {_RANK_NAMES_PLURAL[self.cards[0] & 7]}"
        return _SEQUENCE_NAMES.get(len(self.cards), f"sequence of {len(self.cards)}")

    def points(self, rules: DeclarationRules) -> int:
        """Points under ``rules`` (§6.1 table; §7: 20 for 3 cards, 50 for 4 or more)."""
        if self.is_carre:
            return rules.carre_points[self.cards[0] & 7]
        return rules.sequence_value(len(self.cards))

    def key(self, rules: DeclarationRules, trump) -> tuple:
        """Comparison key, larger is better (§6.1 comparison; §7 for two players)."""
        if self.is_carre:
            return (2, self.points(rules), PLAIN_STRENGTH[self.cards[0] & 7], 0)
        return (1, len(self.cards), self.top, 1 if trump is not None and (self.cards[0] >> 3) == trump else 0)

    def __str__(self) -> str:
        return f"{self.kind} [{' '.join(CARD_TEXT[c] for c in self.cards)}]"

    @staticmethod
    def parse(texts) -> Declaration:
        """Build from card texts; checks only that it is a carré or a sequence.

        Raises:
            ValueError: bad card text, or the cards are neither a carré nor a sequence.
        """
        cards = tuple(sorted(Card.parse(t) for t in texts))
        d = Declaration(cards)
        if not d.is_carre:
            suits = {c >> 3 for c in cards}
            ranks = sorted(c & 7 for c in cards)
            if len(cards) < 3 or len(suits) != 1 or ranks != list(range(ranks[0], ranks[0] + len(ranks))):
                raise ValueError(
                    f"{' '.join(texts)} is neither a carré nor a sequence of 3+ cards of one suit (RULES.md §6.1)"
                )
        return d


def _runs_in_byte(b: int) -> tuple[tuple[int, int], ...]:
    runs, r = [], 0
    while r < 8:
        if b >> r & 1:
            start = r
            while r < 8 and b >> r & 1:
                r += 1
            if r - start >= 3:
                runs.append((start, r - start))
        else:
            r += 1
    return tuple(runs)


#: Maximal runs (start rank, length) of ≥3 cards in each 8-bit suit slice.
_RUNS = tuple(_runs_in_byte(b) for b in range(256))


def _runs(mask: int, max_run: int | None) -> list[Declaration]:
    out = []
    for s in range(4):
        base = s * 8
        for start, length in _RUNS[(mask >> base) & 0xFF]:
            if max_run is not None and length > max_run:
                rest = length - max_run
                out.append(Declaration(tuple(CARDS[base + r] for r in range(start + rest, start + length))))
                if rest >= 3:
                    out.append(Declaration(tuple(CARDS[base + r] for r in range(start, start + rest))))
            else:
                out.append(Declaration(tuple(CARDS[base + r] for r in range(start, start + length))))
    return out


def _subsets(items):
    for n in range(len(items) + 1):
        yield from combinations(items, n)


def declaration_options(hand: int, rules: DeclarationRules) -> list[tuple[Declaration, ...]]:
    """Every legal declaration choice of a hand (§6.1 two-step construction).

    Args:
        hand: the hand as a card mask.
        rules: the ruleset's declaration rules.

    Returns:
        A list of choices, each a tuple of disjoint declarations; the first is
        ``()`` (declare nothing), which is always legal.
    """
    carres = []
    for r in range(8):
        if rules.carre_points[r]:
            m = (1 << r) | (1 << (8 + r)) | (1 << (16 + r)) | (1 << (24 + r))
            if hand & m == m:
                carres.append((Declaration(tuple(CARDS[s * 8 + r] for s in range(4))), m))
    options: list[tuple[Declaration, ...]] = []
    for chosen in _subsets(carres):
        used = 0
        for _, m in chosen:
            used |= m
        runs = _runs(hand & ~used, rules.max_run)
        carre_part = tuple(d for d, _ in chosen)
        for run_choice in _subsets(runs):
            options.append(carre_part + run_choice)
    return options


def has_declaration(hand: int, rules: DeclarationRules) -> bool:
    """True when the hand has any declaration to choose (fast pre-check)."""
    for s in range(4):
        if _RUNS[(hand >> (8 * s)) & 0xFF]:
            return True
    for r in range(8):
        if rules.carre_points[r]:
            m = (1 << r) | (1 << (8 + r)) | (1 << (16 + r)) | (1 << (24 + r))
            if hand & m == m:
                return True
    return False


def declaration_winner(
    declared: dict[int, tuple[Declaration, ...]],
    rules: DeclarationRules,
    trump,
    order: list[int],
    team_of,
) -> int | None:
    """The team (or two-player seat) whose declarations score, or ``None``.

    Each team's best single declaration is compared (§6.1); an exact tie goes
    to the team whose declarer comes first in ``order`` (playing order from
    eldest) when ``rules.tie_by_playing_order``, else nobody scores (§7).

    Args:
        declared: seat → the declarations it made.
        trump: the trump suit index, or ``None`` outside suit mode.
        order: seats in playing order from eldest.
        team_of: seat → team function.
    """
    best_key, best_seats = None, []
    for seat in order:
        for d in declared.get(seat, ()):
            k = d.key(rules, trump)
            if best_key is None or k > best_key:
                best_key, best_seats = k, [seat]
            elif k == best_key:
                best_seats.append(seat)
    if best_key is None:
        return None
    teams = {team_of(s) for s in best_seats}
    if len(teams) == 1 or rules.tie_by_playing_order:
        return team_of(best_seats[0])
    return None


