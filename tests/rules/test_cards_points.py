"""RULES.md §1 (cards, seats, teams) and §2 (card order and points)."""

from __future__ import annotations

import pytest

from referee.rules import CARDS, Card, Rank, Suit
from referee.rules.cards import cards_of, format_cards, mask_of, parse_cards
from referee.rules.ruleset import (
    ALL_TRUMPS_POINTS, NO_TRUMPS_POINTS, PLAIN_POINTS, PLAIN_STRENGTH, TRUMP_POINTS, TRUMP_STRENGTH,
)

from .positions import four

RANK_OF = {"7": 0, "8": 1, "9": 2, "10": 3, "J": 4, "Q": 5, "K": 6, "A": 7}


def test_s1_thirty_two_cards_parse_and_format_round_trip():
    assert len(CARDS) == 32 and len(set(CARDS)) == 32
    texts = [str(c) for c in CARDS]
    assert texts[:8] == ["7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]
    assert all(Card.parse(t) is c for t, c in zip(texts, CARDS))
    assert eval(repr(Card.parse("10H"))) is Card.parse("10H")  # noqa: S307 - repr pastes back


@pytest.mark.parametrize("text,expected", [("7S", "7S"), ("10h", "10H"), ("TH", "10H"), (" jd ", "JD"), ("AC", "AC")])
def test_s1_card_text_forms(text, expected):
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize("text", ["1S", "10X", "", "11H", "HJ", "T", None, 10])
def test_s1_bad_card_text_is_a_value_error(text):
    with pytest.raises(ValueError):
        Card.parse(text)


def test_s1_suits_and_ranks():
    assert [str(s) for s in Suit] == ["S", "H", "D", "C"]
    assert [s.symbol for s in Suit] == ["♠", "♥", "♦", "♣"]
    assert Suit.parse("h") is Suit.HEARTS
    with pytest.raises(ValueError):
        Suit.parse("X")
    assert [str(r) for r in Rank] == ["7", "8", "9", "10", "J", "Q", "K", "A"]
    c = Card.parse("QD")
    assert (c.suit, c.rank) == (Suit.DIAMONDS, Rank.QUEEN) and Card.of(Suit.DIAMONDS, Rank.QUEEN) is c


def test_s1_masks_and_card_lists():
    hand = parse_cards(["AS", "7H", "10D", "7S"])
    assert format_cards(cards_of(mask_of(hand))) == "7S AS 7H 10D"


def test_s1_teams_ns_is_0_2_and_ew_is_1_3():
    state = four("classic", {0: "JH 9H AH 10H KH QH 8H 7H"}, trump="H")
    assert [state.team_of(s) for s in range(4)] == [0, 1, 0, 1]


def _order(strength):
    return [r for r, _ in sorted(((t, strength[RANK_OF[t]]) for t in RANK_OF), key=lambda x: -x[1])]


@pytest.mark.parametrize("name,strength,order", [
    ("trump (suit mode) and every suit in all-trumps", TRUMP_STRENGTH, "J 9 A 10 K Q 8 7"),
    ("non-trump and every suit in no-trumps", PLAIN_STRENGTH, "A 10 K Q J 9 8 7"),
])
def test_s2_orders(name, strength, order):
    assert _order(strength) == order.split()


@pytest.mark.parametrize("name,points,table,total", [
    ("trump", TRUMP_POINTS, {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3, "8": 0, "7": 0}, 62),
    ("non-trump", PLAIN_POINTS, {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}, 30),
    ("all-trumps", ALL_TRUMPS_POINTS, {"J": 13, "9": 9, "A": 6, "10": 5, "K": 3, "Q": 2, "8": 0, "7": 0}, 38),
    ("no-trumps", NO_TRUMPS_POINTS, {"A": 19, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}, 38),
])
def test_s2_point_tables_and_suit_totals(name, points, table, total):
    assert {t: points[RANK_OF[t]] for t in RANK_OF} == table
    assert sum(points) == total


def test_s2_every_mode_holds_152_card_points_plus_10_for_the_last_trick():
    assert sum(TRUMP_POINTS) + 3 * sum(PLAIN_POINTS) == 152
    assert 4 * sum(ALL_TRUMPS_POINTS) == 152
    assert 4 * sum(NO_TRUMPS_POINTS) == 152
