"""RULES.md §9 (what a seat may know: observe()) and the public parts of §3.1, §4, §5, §7."""

from __future__ import annotations

import dataclasses

import pytest

from referee.rules import Bid, BidKind, DealState, Phase, Play, Suit, TrumpMode, observe
from referee.rules.cards import Card

from .positions import four, two
from .records import case_record

D9 = {0: "AS 7S JH 10D 9D KC 8C 8H", 1: "10S 8S 9H 7H AD JD QC 7C",
      2: "KS 9S AH QH 8D 7D AC 10C", 3: "QS JS 10H KH KD QD JC 9C"}
D9_PLAYS = ["AS", "8S", "9S", "JS", "7S", "10S", "KS", "QS", "AD", "7D"]  # two tricks, then E, S of trick 3


def test_s9_observation_holds_exactly_what_the_seat_may_know():
    state = four("strict", D9, trump="H", plays=D9_PLAYS)
    state.scores = (120, 340)
    assert state.to_act == 3
    for seat in range(4):
        obs = observe(state, seat)
        assert obs.ruleset is state.ruleset and obs.ruleset.name == "strict"
        assert (obs.seat, obs.team, obs.dealer, obs.eldest) == (seat, seat % 2, 3, 0)
        assert (obs.phase, obs.to_act, obs.scores, obs.pot) == (Phase.PLAY, 3, (120, 340), 0)
        assert set(obs.hand) == set(state.hand(seat)) and len(obs.hand) == 8 - 2 - (seat in (1, 2))
        assert (obs.turned_card, obs.turned_card_on_table) == (Card.parse("8H"), False)
        assert obs.bids == ((0, Bid(BidKind.TAKE)),)
        assert (obs.trump_mode, obs.trump, obs.taker) == (TrumpMode.SUIT, Suit.HEARTS, 0)
        assert obs.declarations == ()
        assert [(s, str(c)) for s, c, _, _ in obs.plays] == list(zip([0, 1, 2, 3, 0, 1, 2, 3, 1, 2], D9_PLAYS))
        assert [(t.leader, t.winner, t.points) for t in obs.tricks] == [(0, 0, 13), (0, 1, 17)]
        assert obs.trick == ((1, Card.parse("AD")), (2, Card.parse("7D")))
        assert obs.master == 1
        assert obs.legal_actions == (tuple(state.legal_actions()) if seat == 3 else ())
        assert (obs.exchanged_by, obs.exchange_taken) == (None, None)


def test_s9_observation_has_no_field_for_other_hands_the_deck_or_a_seed():
    names = {f.name for f in dataclasses.fields(observe(four("classic", D9, trump="H"), 0))}
    assert {"ruleset", "seat", "team", "dealer", "scores", "hand", "turned_card", "bids", "trump_mode", "taker",
            "declarations", "plays", "trick", "legal_actions"} <= names
    assert not names & {"hands", "deck", "seed", "board", "history", "stock"}


def test_s9_turned_card_shown_during_bidding_and_bids_as_made():
    state = four("classic", D9, trump="H", settle=True)
    fresh = DealState(state.ruleset, state.deck, 3)
    fresh.apply_checked(0, Bid(BidKind.PASS))
    for seat in range(4):
        obs = observe(fresh, seat)
        assert (obs.turned_card, obs.turned_card_on_table) == (Card.parse("8H"), True)
        assert obs.bids == ((0, Bid(BidKind.PASS)),) and obs.trump_mode is None and obs.taker is None
        assert len(obs.hand) == 5
        assert obs.legal_actions == (tuple(fresh.legal_actions()) if seat == 1 else ())


def test_s9_scores_and_pot_given_to_the_deal_are_shown():
    state = four("all-trumps", D9, trump="H", pot=81)
    state.scores = (7, 9)
    assert (observe(state, 2).pot, observe(state, 2).scores) == (81, (7, 9))


def test_s9_belote_announcements_are_public():
    hands = {0: "KH QH AS 7C 8C 9C 10C JC"}
    state = four("classic", hands, trump="H", plays=["KH*"])
    for seat in range(4):
        assert observe(state, seat).plays[0][1:] == (Card.parse("KH"), True, False)


def test_s7_exchange_is_public_and_the_seven_becomes_the_turned_card():
    p1 = {0: "AS 10S 9S AD 10D 8C 7C JH 10H", 1: "JS QS KS KD QD AC 10C 7H QH"}
    state = two(p1, turned="KH", trump="H", taker=0, exchange=True)
    for seat in (0, 1):
        obs = observe(state, seat)
        assert (obs.exchanged_by, obs.exchange_taken) == (1, Card.parse("KH"))
        assert (obs.turned_card, obs.turned_card_on_table) == (Card.parse("7H"), True)
    assert Card.parse("KH") in observe(state, 1).hand and Card.parse("7H") not in observe(state, 1).hand


def test_s9_finished_deal_nobody_to_act():
    from referee.rules import replay

    state = replay(case_record("classic/made_partner_belote"))
    obs = observe(state, 2)
    assert (obs.phase, obs.to_act, obs.legal_actions, obs.hand, obs.trick, obs.master) == (
        Phase.DONE, None, (), (), (), None)
    assert len(obs.tricks) == 8


@pytest.mark.parametrize("seat", [-1, 4])
def test_s9_observe_rejects_a_seat_that_is_not_at_the_table(seat):
    with pytest.raises(ValueError):
        observe(four("classic", D9, trump="H"), seat)


def test_s9_two_player_seats_and_teams():
    p1 = {0: "AS 10S 9S AD 10D 8C 7C JH 10H", 1: "JS QS KS KD QD AC 10C 7H QH"}
    state = two(p1, turned="KH", trump="H", taker=0)
    assert [observe(state, s).team for s in (0, 1)] == [0, 1]
    with pytest.raises(ValueError):
        observe(state, 2)
    assert state.phase is Phase.PLAY and state.to_act == 0
    assert set(observe(state, 0).legal_actions) == {Play(c) for c in state.hand(0)}
    assert observe(state, 1).legal_actions == ()
