"""The solver on hand-worked positions: each expected value is worked out by hand in the
comment beside it, from RULES.md (§2 card points, §5 play, §6.1 declarations, §6.2 the
contract and capot, §6.4 contrée, §7 two players).

Layout used by most rows (dealer W, so N leads; N takes ♥ in round 1): N holds all eight
hearts, E all spades, S all diamonds, W all clubs. N leads a trump to every trick; nobody
else holds a heart, so N wins all eight tricks whatever anyone plays (§5: a void player
with no trump plays any card): a capot by the attackers.
"""

from __future__ import annotations

from arena.analysis.solver import Solver
from referee.rules import Bid, BidKind, Call, CallKind, DealState, Declare, Declaration, get_ruleset
from referee.rules.cards import CARD_TEXT

from ..rules.positions import cards, four, layout_four, play_cards, to_deck, two

HEARTS = "JH 9H AH 10H KH QH 8H 7H"
HANDS = {0: HEARTS, 1: "7S 8S 9S 10S JS QS KS AS", 2: "7D 8D 9D 10D JD QD KD AD", 3: "7C 8C 9C 10C JC QC KC AC"}


def deal(hands: dict, *, options: dict, calls=(), plays=()) -> DealState:
    """Classic with ``options`` (§6.4): dealer W, N takes in round 1 (§4) the turned card, the
    last heart of its hand, then the contrée ``calls`` (seat, kind) if any, then ``plays``."""
    hs = {s: cards(h) for s, h in hands.items()}
    turned = [c for c in hs[0] if c.endswith("H")][-1]
    hs[0] = [c for c in hs[0] if c != turned]
    state = DealState(get_ruleset("classic", **options), to_deck(layout_four(3, hs, turned, 0)), 3)
    state.apply_checked(0, Bid(BidKind.TAKE))
    for seat, kind in calls:
        state.apply_checked(seat, Call(kind))
    return play_cards(state, plays)


def test_capot_by_the_attackers_classic_without_declarations():
    # §6.2: N takes every trick: 152 card points + 10 dix de der + 90 = 252 trick points, EW 0.
    # N holds K♥ Q♥: belote 20, taken as announced (§5). Score: 252 + 20 = 272 to NS.
    state = deal(HANDS, options={"declarations": False})
    result = Solver().solve(state)
    assert result.trick_points == (252, 0)
    assert result.capot == 0
    assert result.score == (272, 0)
    # every card N may lead keeps the capot (§5: the first card of a trick is free)
    values = Solver().card_values(state)
    assert {CARD_TEXT[c] for c in values} == set(HEARTS.split())
    assert {v.trick_points for v in values.values()} == {(252, 0)}


def test_capot_in_a_redoubled_contree_deal():
    # §6.4: made and capot, redoubled: 252 x 4 = 1008 trick points to NS; belote 20 never
    # multiplied: 1028. EW 0.
    # the calls (§6.4): E, the first defender after the taker, doubles; N, the taker, redoubles
    state = deal(HANDS, options={"declarations": False, "contree": True},
                 calls=[(1, CallKind.CONTRE), (0, CallKind.SURCONTRE)])
    assert state.multiplier == 4
    result = Solver().solve(state)
    assert result.trick_points == (252, 0)
    assert result.score == (1028, 0)


def test_strict_declarations_of_both_partners_and_rounding():
    # §6.1: N declares the quinte A-K-Q-J-10 of hearts (100) and the tierce 7-8-9 (20). Every
    # other seat holds a whole suit and, still to choose in trick 1, is taken to choose its best:
    # the same quinte and tierce (120). The best single declarations are four quintes to the ace;
    # N's is in trump and wins the comparison, so NS scores N's 120 and S's 120 (all of its
    # team's declarations). Strict (§6.2): 252 (capot) + 240 + belote 20 = 512, rounded to 510.
    ruleset = get_ruleset("strict")
    quinte = Declaration.parse("10H JH QH KH AH".split())
    tierce = Declaration.parse("7H 8H 9H".split())
    state = four("strict", HANDS, trump="H", taker=0, declare={0: Declare((quinte, tierce))})
    assert state.ruleset == ruleset and state.declared[0] is not None and state.declared[1] is None
    result = Solver().solve(state)
    assert result.trick_points == (252, 0)
    assert result.outcome.declarations == (240, 240)
    assert result.outcome.declaration_team == 0
    assert result.score == (510, 0)


def test_mid_trick_and_the_last_trick():
    # After N's J♥ and E's 7♠ (trick 1 in progress) the capot stands. After seven tricks
    # the last one is forced: N's 7♥ wins it: 0 card points + 10 dix de der, and the capot.
    state = deal(HANDS, options={"declarations": False}, plays=["JH", "7S"])
    assert Solver().solve(state).trick_points == (252, 0)
    plays = ["JH", "7S", "7D", "7C", "9H", "8S", "8D", "8C", "AH", "9S", "9D", "9C", "10H", "10S", "10D", "10C",
             "KH", "JS", "JD", "JC", "QH", "QS", "QD", "QC", "8H", "KS", "KD", "KC"]
    state = deal(HANDS, options={"declarations": False}, plays=plays)
    result = Solver().solve(state)
    assert result.trick_points == (252, 0)
    assert {v.trick_points for v in Solver().card_values(state).values()} == {(252, 0)}


def test_a_lone_low_trump_in_defence_cannot_stop_the_capot():
    # E holds the 7♥ instead of the A♠ (N holds the A♠). N leads; E's 7♥ never wins a trick:
    # on a trump lead E must follow with it (§5.1) below N's trump, and on the A♠ E follows
    # spades. So a capot still: 252 to NS.
    hands = {0: "JH 9H AH 10H KH QH 8H AS", 1: "7H 7S 8S 9S 10S JS QS KS", 2: HANDS[2], 3: HANDS[3]}
    state = deal(hands, options={"declarations": False})
    assert Solver().solve(state).trick_points == (252, 0)


def test_two_players_no_capot_bonus_and_the_score_sheet():
    # §7: seat 0 (eldest, dealer 1) names ♥ in round 2 (turned 7♣ stays on the table, no
    # exchange). Seat 0: all eight hearts (62, §2 trump) + A♠ (11) = 73; seat 1:
    # K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ (4+3+2+10 = 19) + A♦ 10♦ (21) = 40. Seat 0 leads a trump or the
    # A♠ each time and wins all nine tricks: 113 + dix de der 10 = 123, no capot bonus.
    # Belote 20 (K♥ Q♥); nothing declared. Taker more: both record their totals: 143 and 0.
    hands = {0: HEARTS + " AS", 1: "KS QS JS 10S 9S 8S 7S AD 10D"}
    state = two(hands, turned="7C", trump="H", taker=0, dealer=1)
    result = Solver().solve(state)
    assert result.trick_points == (123, 0)
    assert result.capot is None
    assert result.score == (143, 0)
