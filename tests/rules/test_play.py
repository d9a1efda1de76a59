"""RULES.md §5 (legal cards, trick winner, belote-rebelote) and §7 "Play" (two players).

Each legal-card row: the hands, the trump, the cards already in the first trick (from eldest
N), and the exact set of cards the next seat may play.  Dealer W, so N (seat 0) leads.
"""

from __future__ import annotations

import pytest

from referee.rules import IllegalActionError, Play, Suit
from referee.rules.cards import Card

from .positions import four, hand_text, legal_cards, two

ALL_CLUBS = "AC KC QC JC 10C 9C 8C 7C"
ALL_SPADES = "7S 8S 9S 10S JS QS KS AS"

# id (RULES.md section + rule), ruleset, trump, taker, hands, cards played, expected legal set (None = whole hand)
FOUR_ROWS = [
    ("s5_1_follow_suit_any_card_of_it_no_need_to_beat", "classic", "H", 0,
     {0: "AS JH 9H AH 10H KH QH 8H", 1: "7S KS 7D 8D 9D 10D JD QD"}, ["AS"], {"7S", "KS"}),
    ("s5_1_follow_suit_even_after_an_opponent_trumped", "classic", "H", 0,
     {0: "AS JH 9H AH 10H KH QH 8H", 1: "7H 7D 8D 9D 10D JD QD KD", 2: "KS QS AD 7C 8C 9C 10C JC"},
     ["AS", "7H"], {"KS", "QS"}),
    ("s5_1_monter_on_trump_lead", "classic", "H", 0,
     {0: "KH 7S 8S 9S 10S JS QS KS", 1: "AH 8H 7D 8D 9D 10D JD QD"}, ["KH"], {"AH"}),
    ("s5_1_monter_impossible_any_trump", "classic", "H", 0,
     {0: "JH 7S 8S 9S 10S JS QS KS", 1: "9H 7H 7D 8D 9D 10D JD QD"}, ["JH"], {"9H", "7H"}),
    ("s5_1_monter_even_when_partner_is_master", "strict", "H", 0,
     {0: "10H 7S 8S 9S 10S JS QS KS", 1: "7H 8H 7D 8D 9D 10D JD QD", 2: "AH KH QH AS 7C 8C 9C 10C"},
     ["10H", "7H"], {"AH"}),
    ("s5_1_monter_over_the_best_trump_not_the_led_one", "classic", "H", 0,
     {0: "8H 7S 8S 9S 10S JS QS KS", 1: "9H 7H 7D 8D 9D 10D JD QD", 2: "JH AH AS 7C 8C 9C 10C JC"},
     ["8H", "9H"], {"JH"}),
    ("s5_1_trump_led_cannot_follow_any_card", "classic", "H", 0,
     {0: "JH AC KC QC JC 10C 9C 8C", 1: "7D 8D 9D 10D JD QD KD AD"}, ["JH"], None),
    ("s5_2_partner_master_but_able_to_follow_must_follow", "classic", "H", 0,
     {0: "AS JH 9H AH 10H KH QH 8H", 1: "7S 7D 8D 9D 10D JD QD KD", 2: "KS 8S AD 7C 8C 9C 10C JC"},
     ["AS", "7S"], {"KS", "8S"}),
    ("s5_2_cannot_follow_partner_master_any_card", "classic", "H", 2,
     {0: "AS 7C 8C 9C 10C JC QC KC", 1: "7S 8S 9S 10S JS QS KS AC", 2: "JH 9H AH 10H 7D 8D 9D 10D"},
     ["AS", "7S"], None),
    ("s5_2_partner_master_by_a_trump_no_need_to_overtrump", "classic", "H", 1,
     {0: ALL_SPADES, 1: "JH 7D 8D 9D 10D JD QD KD", 2: "8H 7C 8C 9C 10C JC QC KC"},
     ["7S", "JH", "8H"], None),
    ("s5_3_couper_opponent_master_any_trump", "classic", "H", 0,
     {0: "AS JH 9H AH 10H KH QH 7C", 1: "7H 8H 7D 8D 9D 10D JD QD"}, ["AS"], {"7H", "8H"}),
    ("s5_3_surcouper_only_higher_trumps", "classic", "H", 2,
     {0: ALL_CLUBS, 1: "10H 7D 8D 9D 10D JD QD KD", 2: "AH 9H 8H 7H AD AS KS QS"}, ["AC", "10H"],
     {"AH", "9H"}),
    ("s5_3_pisser_classic_must_undertrump", "classic", "H", 2,
     {0: ALL_CLUBS, 1: "10H 7D 8D 9D 10D JD QD KD", 2: "KH QH 8H 7H AD AS KS QS"}, ["AC", "10H"],
     {"KH", "QH", "8H", "7H"}),
    ("s5_3_pisser_strict_must_undertrump", "strict", "H", 2,
     {0: ALL_CLUBS, 1: "10H 7D 8D 9D 10D JD QD KD", 2: "KH QH 8H 7H AD AS KS QS"}, ["AC", "10H"],
     {"KH", "QH", "8H", "7H"}),
    ("s5_3_no_pisser_in_all_trumps_suit_mode", "all-trumps", "H", 2,
     {0: ALL_CLUBS, 1: "10H 7D 8D 9D 10D JD QD KD", 2: "KH QH 8H 7H AD AS KS QS"}, ["AC", "10H"], None),
    ("s5_3_all_trumps_suit_mode_still_surcouper", "all-trumps", "H", 2,
     {0: ALL_CLUBS, 1: "10H 7D 8D 9D 10D JD QD KD", 2: "AH 9H 8H 7H AD AS KS QS"}, ["AC", "10H"],
     {"AH", "9H"}),
    ("s5_3_no_trump_in_hand_any_card", "classic", "H", 2,
     {0: ALL_CLUBS, 1: "7D 8D 9D 10D JD QD KD AD", 2: "JH 9H AH 10H KH QH 8H 7H"}, ["AC"], None),
    ("s5_1_all_trumps_monter_in_every_suit", "all-trumps", "all-trumps", 0,
     {0: "KS 7C 8C 9C 10C JC QC KC", 1: "AS 7S 7D 8D 9D 10D JD QD"}, ["KS"], {"AS"}),
    ("s5_1_all_trumps_monter_impossible_any_card_of_suit", "all-trumps", "all-trumps", 0,
     {0: "JS 7C 8C 9C 10C JC QC KC", 1: "AS 7S 7D 8D 9D 10D JD QD"}, ["JS"], {"AS", "7S"}),
    ("s5_1_all_trumps_monter_even_when_partner_is_master", "all-trumps", "all-trumps", 0,
     {0: "10D 7C 8C 9C 10C JC QC KC", 1: "7D 7S 8S 9S 10S JS QS KS", 2: "9D 8D AH KH QH JH 10H 9H"},
     ["10D", "7D"], {"9D"}),
    ("s5_4_all_trumps_cannot_follow_any_card", "all-trumps", "all-trumps", 0,
     {0: "AS 7C 8C 9C 10C JC QC KC", 1: "7D 8D 9D 10D JD QD KD AD"}, ["AS"], None),
    ("s5_1_no_trumps_no_obligation_to_play_higher", "all-trumps", "no-trumps", 0,
     {0: "KS 7C 8C 9C 10C JC QC KC", 1: "AS 7S 7D 8D 9D 10D JD QD"}, ["KS"], {"AS", "7S"}),
    ("s5_4_no_trumps_cannot_follow_any_card", "all-trumps", "no-trumps", 0,
     {0: "AS 7C 8C 9C 10C JC QC KC", 1: "7D 8D 9D 10D JD QD KD AD"}, ["AS"], None),
]


@pytest.mark.parametrize("ruleset,trump,taker,hands,played,expected",
                         [r[1:] for r in FOUR_ROWS], ids=[r[0] for r in FOUR_ROWS])
def test_s5_legal_cards(ruleset, trump, taker, hands, played, expected):
    state = four(ruleset, hands, trump=trump, taker=taker, plays=played)
    seat = len(played)  # dealer W: N leads, then E, S, W
    assert state.to_act == seat
    want = hand_text(state, seat) if expected is None else expected
    assert legal_cards(state) == want
    # and every card outside the set is refused, naming a §5 rule
    for c in hand_text(state, seat) - want:
        with pytest.raises(IllegalActionError) as err:
            state.check(seat, Play(Card.parse(c)))
        assert err.value.rule.startswith("§5")


TWO_HANDS_A = {0: "10H AS KS QS JS 10S 9S 8S 7S", 1: "JH 7H 7D 8D 9D 10D JD QD KD"}
TWO_ROWS = [
    ("s7_follow_suit_no_need_to_beat_even_in_trump", TWO_HANDS_A, ["10H"], {"JH", "7H"}),
    ("s7_void_must_trump_without_overtaking", TWO_HANDS_A, ["AS"], {"JH", "7H"}),
    ("s7_void_and_no_trump_any_card", {0: "AS KS QS JS 10S 9S 8S 7S 10H", 1: "7D 8D 9D 10D JD QD KD AD 7C"},
     ["AS"], None),
    ("s7_follow_suit_before_trumping", {0: "AS KS QS JS 10S 9S 8S 10H 9H", 1: "7S 7H JH 7D 8D 9D 10D JD QD"},
     ["AS"], {"7S"}),
]


@pytest.mark.parametrize("hands,played,expected", [r[1:] for r in TWO_ROWS], ids=[r[0] for r in TWO_ROWS])
def test_s7_legal_cards(hands, played, expected):
    state = two(hands, turned="AH", trump="H", taker=0, plays=played)
    assert state.to_act == 1
    want = hand_text(state, 1) if expected is None else expected
    assert legal_cards(state) == want
    for c in hand_text(state, 1) - want:
        with pytest.raises(IllegalActionError) as err:
            state.check(1, Play(Card.parse(c)))
        assert err.value.rule.startswith("§7")


def test_s5_leader_may_play_any_card():
    state = four("classic", {0: "AS JH 9H AH 10H KH QH 8H"}, trump="H")
    assert legal_cards(state) == hand_text(state, 0)


# ------------------------------------------------------------------------- trick winner
WIN_ROWS = [
    # id, ruleset, trump, taker, hands, trick (N E S W), winner seat, points
    ("s5_highest_card_of_led_suit_10_beats_K", "classic", "H", 0,
     {0: "KS JH 9H AH 10H KH QH 8H", 1: "10S 7D 8D 9D 10D JD QD KD", 2: "7S AD AC KC QC JC 10C 9C",
      3: "QS 7H 8C 7C 8S 9S JS AS"}, ["KS", "10S", "7S", "QS"], 1, 4 + 10 + 0 + 3),
    ("s5_highest_trump_wins_9_beats_A", "classic", "H", 2,
     {0: "AS 7C 8C 9C 10C JC QC KC", 1: "9H 7D 8D 9D 10D JD QD KD", 2: "KS 7S 8S 9S 10S JS QS AH",
      3: "JH KH QH 10H 8H 7H AD AC"}, ["AS", "9H", "KS", "JH"], 3, 11 + 14 + 4 + 20),
    ("s5_off_suit_non_trump_never_wins", "classic", "H", 0,
     {0: "7S JH 9H AH 10H KH QH 8H", 1: "AD 7D 8D 9D 10D JD QD KD", 2: "8S 7C 8C 9C 10C JC QC KC",
      3: "9S 10S JS QS KS AS 7H AC"}, ["7S", "AD", "8S", "9S"], 3, 0 + 11 + 0 + 0),
    ("s5_all_trumps_best_of_led_suit_in_trump_order", "all-trumps", "all-trumps", 0,
     {0: "AS 7C 8C 9C 10C JC QC KC", 1: "9S JS 7D 8D 9D 10D QD KD", 2: "JD 7H 8H 9H 10H JH QH KH",
      3: "10S 7S 8S AD QS KS AH AC"}, ["AS", "9S", "JD", "10S"], 1, 6 + 9 + 13 + 5),
    ("s5_no_trumps_best_of_led_suit_in_plain_order", "all-trumps", "no-trumps", 0,
     {0: "KS 7C 8C 9C 10C JC QC KC", 1: "AS 7D 8D 9D 10D QD KD AD", 2: "JH 7H 8H 9H 10H JD QH KH",
      3: "10S 7S 8S JS QS 9S AH AC"}, ["KS", "AS", "JH", "10S"], 1, 4 + 19 + 2 + 10),
]


@pytest.mark.parametrize("ruleset,trump,taker,hands,trick,winner,points",
                         [r[1:] for r in WIN_ROWS], ids=[r[0] for r in WIN_ROWS])
def test_s5_trick_winner_and_points(ruleset, trump, taker, hands, trick, winner, points):
    state = four(ruleset, hands, trump=trump, taker=taker, plays=trick)
    (t,) = state.tricks
    assert (t.leader, t.winner, t.points) == (0, winner, points)
    assert [str(c) for _, c in t.cards] == trick
    assert state.to_act == winner  # the winner leads the next trick
    assert state.trick_points[winner % 2] == points


def test_s7_trick_winner_trump_beats_the_led_suit():
    state = two(TWO_HANDS_A, turned="AH", trump="H", taker=0, plays=["AS", "7H"])
    (t,) = state.tricks
    assert (t.winner, t.points) == (1, 11) and state.to_act == 1


# ------------------------------------------------------------------------- belote-rebelote
BELOTE_N = {0: "KH QH AS 7C 8C 9C 10C JC"}  # E: 7S..KS 7H; S: 8H 9H 10H JH AH 7D 8D 9D; W: rest
BELOTE_PLAYS = ["KH", "7H", "JH", "10D", "8H", "JD"]  # S wins trick 1 and leads 8H: N must follow with QH


def _plays_of(state, seat):
    """(card, belote announced, rebelote) of every card ``seat`` played."""
    return [(str(c), b, r) for s, c, b, r in state.plays if s == seat]


def _belote_cards(state):
    return {str(a.card) for a in state.legal_actions() if isinstance(a, Play) and a.belote}


def test_s5_belote_offered_to_the_holder_of_both_with_either_card():
    state = four("classic", BELOTE_N, trump="H")
    assert _belote_cards(state) == {"KH", "QH"}
    assert legal_cards(state) == hand_text(state, 0)


def test_s5_belote_is_a_choice_made_with_the_first_card():
    state = four("classic", BELOTE_N, trump="H", plays=BELOTE_PLAYS)
    assert state.to_act == 0
    assert state.legal_actions() == [Play(Card.parse("QH"))]  # no second chance with the other card
    state.apply_checked(0, Play(Card.parse("QH")))
    assert state.belotes == []
    assert _plays_of(state, 0) == [("KH", False, False), ("QH", False, False)]


def test_s5_belote_announced_then_rebelote_with_the_second():
    state = four("classic", BELOTE_N, trump="H", plays=["KH*"] + BELOTE_PLAYS[1:] + ["QH"])
    assert state.belotes == [(0, Suit.HEARTS)]
    assert _plays_of(state, 0) == [("KH", True, False), ("QH", False, True)]  # belote, then rebelote


@pytest.mark.parametrize("ruleset,trump,hand", [
    ("classic", "H", "KH AS 7C 8C 9C 10C JC QC"),       # K without the Q
    ("classic", "H", "KS QS JH 7C 8C 9C 10C JC"),       # K+Q of a suit that is not trump
    ("all-trumps", "no-trumps", "KS QS KH QH KD QD KC QC"),  # none in no-trumps
])
def test_s5_no_belote_without_both_trump_cards(ruleset, trump, hand):
    state = four(ruleset, {0: hand}, trump=trump)
    assert _belote_cards(state) == set()
    with pytest.raises(IllegalActionError) as err:
        state.check(0, Play(Card.parse(hand.split()[0]), True))
    assert err.value.rule == "§5 (belote-rebelote)"


def test_s5_belote_needs_the_pair_in_one_hand_not_the_team():
    state = four("classic", {0: "KH AS 7C 8C 9C 10C JC QC", 2: "QH 7S 8S 9S 10S JS QS KS"}, trump="H")
    assert _belote_cards(state) == set()


def test_s5_all_trumps_every_suit_pair_counts_up_to_four():
    state = four("all-trumps", {0: "KS QS KH QH KD QD KC QC"}, trump="all-trumps")
    assert _belote_cards(state) == {"KS", "QS", "KH", "QH", "KD", "QD", "KC", "QC"}
    state.apply_checked(0, Play(Card.parse("KS"), True))
    assert state.belotes == [(0, Suit.SPADES)]


P1 = {0: "AS 10S 9S AD 10D 8C 7C JH 10H", 1: "JS QS KS KD QD AC 10C 7H QH"}
P1_TO_TRICK_8 = ["AS", "JS", "10S", "QS", "9S", "KS", "AC", "7C", "10C", "8C", "KD", "AD", "10D", "QD", "JH"]


@pytest.mark.parametrize("exchange,legal,belote", [
    (True, {"KH", "QH"}, {"KH", "QH"}),  # the exchange of 7H for the turned KH completes the pair (§7)
    (False, {"7H", "QH"}, set()),
])
def test_s7_belote_pair_completed_by_the_exchange_counts(exchange, legal, belote):
    state = two(P1, turned="KH", trump="H", taker=0, exchange=exchange, plays=P1_TO_TRICK_8)
    assert state.to_act == 1
    assert legal_cards(state) == legal
    assert _belote_cards(state) == belote
