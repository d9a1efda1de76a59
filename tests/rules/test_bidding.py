"""RULES.md §4 (bidding, 4 players), §3.3 (passed out) and §7 bidding rounds (2 players)."""

from __future__ import annotations

import pytest

from referee.rules import (
    Bid, BidKind, DealState, IllegalActionError, NameTrump, Phase, Play, SchmeissAnswer, Suit, TrumpMode,
    get_ruleset, observe,
)

from .positions import layout_four, layout_two, to_deck

# turned card 9C (clubs) for every deal below
FOUR_HANDS = {
    0: "JS 9S AS 10S KS QS 8S".split(), 1: "7S JH 9H AH 10H KH QH 8H".split(),
    2: "7H JD 9D AD 10D KD QD 8D".split(), 3: "7D JC AC 10C KC QC 8C 7C".split(),
}
TWO_HANDS = {0: "JS 9S AS 10S KS QS 8S 7S JH".split(), 1: "9H AH 10H KH QH 8H 7H JD 9D".split()}


def _four(ruleset, dealer=3):
    deck = to_deck(layout_four(dealer, FOUR_HANDS, "9C", taker=None))
    return DealState(get_ruleset(ruleset), deck, dealer)


def _two(dealer=1):
    return DealState(get_ruleset("two-player"), to_deck(layout_two(dealer, TWO_HANDS, "9C")), dealer)


def _bids(state):
    return {a.kind.value + (f":{a.trump}" if a.trump is not None else "") for a in state.legal_actions()}


def _pass(state, n):
    for _ in range(n):
        state.apply_checked(state.to_act, Bid(BidKind.PASS))


ROUND1 = {"pass", "take"}
ROUND2 = {"pass", "take:S", "take:H", "take:D"}  # any suit but the turned card's (clubs)
ROUND3 = {"pass", "all-trumps", "no-trumps"}


@pytest.mark.parametrize("ruleset,rounds", [
    ("classic", [ROUND1, ROUND2]),
    ("strict", [ROUND1, ROUND2]),
    ("all-trumps", [ROUND1, ROUND2, ROUND3]),
])
def test_s4_legal_bids_of_each_round_per_ruleset(ruleset, rounds):
    state = _four(ruleset)
    for rnd, legal in enumerate(rounds):
        for i in range(4):  # every seat of the round, from eldest in turn
            assert state.phase is Phase.BIDDING and state.bidding_round == rnd
            assert state.to_act == i  # dealer 3: eldest is seat 0
            assert _bids(state) == legal
            state.apply_checked(i, Bid(BidKind.PASS))
    assert state.is_terminal()  # §3.3 passed out after the last round
    out = state.outcome()
    assert (out.contract, out.score, out.taker) == ("passed", (0, 0), None)


@pytest.mark.parametrize("ruleset,same_dealer", [("classic", True), ("strict", True), ("all-trumps", False)])
def test_s3_3_passed_out_is_redealt_by_the_same_dealer_except_in_all_trumps(ruleset, same_dealer):
    state = _four(ruleset)
    _pass(state, 4 * len(state.ruleset.bidding_rounds))
    assert state.outcome().redeal_same_dealer is same_dealer


@pytest.mark.parametrize("ruleset,passes,bid,mode,trump", [
    ("classic", 2, Bid(BidKind.TAKE), TrumpMode.SUIT, Suit.CLUBS),
    ("strict", 5, Bid(BidKind.TAKE, Suit.HEARTS), TrumpMode.SUIT, Suit.HEARTS),
    ("all-trumps", 0, Bid(BidKind.TAKE), TrumpMode.SUIT, Suit.CLUBS),
    ("all-trumps", 7, Bid(BidKind.TAKE, Suit.SPADES), TrumpMode.SUIT, Suit.SPADES),
    ("all-trumps", 9, Bid(BidKind.ALL_TRUMPS), TrumpMode.ALL_TRUMPS, None),
    ("all-trumps", 11, Bid(BidKind.NO_TRUMPS), TrumpMode.NO_TRUMPS, None),
])
def test_s4_the_first_take_ends_the_bidding_and_sets_the_trump(ruleset, passes, bid, mode, trump):
    state = _four(ruleset)
    _pass(state, passes)
    taker = state.to_act
    assert taker == passes % 4
    state.apply_checked(taker, bid)
    assert state.phase in (Phase.PLAY, Phase.DECLARATION)
    assert (state.taker, state.trump_mode, state.trump) == (taker, mode, trump)
    assert state.to_act == 0  # eldest leads the first trick whoever took (§5)
    # every bid is public (§4): every seat sees all of them in order
    bids = [(i % 4, Bid(BidKind.PASS)) for i in range(passes)] + [(taker, bid)]
    for seat in range(4):
        assert list(observe(state, seat).bids) == bids


@pytest.mark.parametrize("ruleset,passes,bid", [
    ("classic", 0, Bid(BidKind.TAKE, Suit.HEARTS)),       # round 1 takes only the turned suit
    ("classic", 4, Bid(BidKind.TAKE)),                    # round 2 must name a suit
    ("classic", 4, Bid(BidKind.TAKE, Suit.CLUBS)),        # ... other than the turned card's
    ("classic", 0, Bid(BidKind.ALL_TRUMPS)),              # no round 3 in classic
    ("strict", 4, Bid(BidKind.NO_TRUMPS)),
    ("all-trumps", 4, Bid(BidKind.ALL_TRUMPS)),           # all-trumps only in round 3
    ("all-trumps", 8, Bid(BidKind.TAKE, Suit.HEARTS)),    # round 3 has no suit takes
    ("classic", 0, Bid(BidKind.SCHMEISS)),                # schmeiss is two-player only
])
def test_s4_illegal_bids_are_refused_naming_s4(ruleset, passes, bid):
    state = _four(ruleset)
    _pass(state, passes)
    with pytest.raises(IllegalActionError) as err:
        state.check(state.to_act, bid)
    assert err.value.rule == "§4"


def test_s4_bids_in_turn_only():
    state = _four("classic")
    with pytest.raises(IllegalActionError) as err:
        state.check(1, Bid(BidKind.PASS))
    assert "turn" in str(err.value)
    with pytest.raises(IllegalActionError):
        state.check(0, Play(to_deck(["9C"])[0]))


# ----------------------------------------------------------------------------- two players
TWO_ROUND1 = {"pass", "take", "schmeiss"}
TWO_ROUND2 = {"pass", "take:S", "take:H", "take:D", "take:C", "schmeiss"}


def test_s7_legal_bids_of_both_rounds_and_double_pass_changes_the_dealer():
    state = _two(dealer=1)
    for legal, rnd in ((TWO_ROUND1, 0), (TWO_ROUND2, 1)):
        for seat in (0, 1):  # eldest (0) first; if eldest passes the dealer has the same choices
            assert (state.to_act, state.bidding_round) == (seat, rnd)
            assert _bids(state) == legal
            state.apply_checked(seat, Bid(BidKind.PASS))
    out = state.outcome()
    assert (out.contract, out.score, out.redeal_same_dealer) == ("passed", (0, 0), False)


@pytest.mark.parametrize("passes", [0, 1, 2, 3])
def test_s7_accepted_schmeiss_is_a_redeal_by_the_same_dealer(passes):
    state = _two(dealer=1)
    _pass(state, passes)
    bidder = state.to_act
    state.apply_checked(bidder, Bid(BidKind.SCHMEISS))
    assert state.phase is Phase.SCHMEISS_ANSWER and state.to_act == 1 - bidder
    assert set(state.legal_actions()) == {SchmeissAnswer(True), SchmeissAnswer(False)}
    state.apply_checked(1 - bidder, SchmeissAnswer(True))
    out = state.outcome()
    assert (out.contract, out.score, out.redeal_same_dealer) == ("passed", (0, 0), True)


@pytest.mark.parametrize("passes", [0, 1])
def test_s7_refused_round1_schmeiss_makes_the_bidder_taker_of_the_turned_suit(passes):
    state = _two(dealer=1)
    _pass(state, passes)
    bidder = state.to_act
    state.apply_checked(bidder, Bid(BidKind.SCHMEISS))
    state.apply_checked(1 - bidder, SchmeissAnswer(False))
    assert (state.taker, state.trump) == (bidder, Suit.CLUBS)
    assert state.phase is not Phase.BIDDING and len(state.hand(0)) == len(state.hand(1)) == 9


@pytest.mark.parametrize("passes,named", [(2, Suit.HEARTS), (3, Suit.CLUBS)])
def test_s7_refused_round2_schmeiss_lets_the_bidder_name_any_suit(passes, named):
    state = _two(dealer=1)
    _pass(state, passes)
    bidder = state.to_act
    state.apply_checked(bidder, Bid(BidKind.SCHMEISS))
    state.apply_checked(1 - bidder, SchmeissAnswer(False))
    assert state.phase is Phase.NAME_TRUMP and state.to_act == bidder
    assert set(state.legal_actions()) == {NameTrump(s) for s in Suit}
    state.apply_checked(bidder, NameTrump(named))
    assert (state.taker, state.trump, state.trump_mode) == (bidder, named, TrumpMode.SUIT)


@pytest.mark.parametrize("passes,bid", [
    (0, Bid(BidKind.TAKE, Suit.HEARTS)),   # round 1: the turned suit only
    (2, Bid(BidKind.TAKE)),                # round 2: name a suit
    (0, Bid(BidKind.ALL_TRUMPS)),
])
def test_s7_illegal_bids_are_refused_naming_s7(passes, bid):
    state = _two(dealer=1)
    _pass(state, passes)
    with pytest.raises(IllegalActionError) as err:
        state.check(state.to_act, bid)
    assert err.value.rule == "§7"
