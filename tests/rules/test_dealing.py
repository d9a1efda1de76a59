"""RULES.md §3 (dealing, 4 players), §7 "Deal" (2 players) and §8 boards: make_board, relabel."""

from __future__ import annotations

import hashlib
import random

import pytest

from referee.rules import CARDS, Bid, BidKind, DealState, Phase, Suit, get_ruleset, make_board, relabel
from referee.rules.cards import mask_of


def _deck(seed):
    deck = list(CARDS)
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("dealer", range(4))
def test_s3_1_three_then_two_each_from_eldest_and_card_20_turned(dealer):
    deck = _deck(dealer)
    state = DealState(get_ruleset("classic"), deck, dealer)
    eldest = (dealer + 1) % 4
    for i in range(4):
        seat = (eldest + i) % 4
        assert state.hands[seat] == mask_of(deck[3 * i : 3 * i + 3] + deck[12 + 2 * i : 14 + 2 * i])
    assert state.turned == deck[20] and state.turned_on_table
    assert state.eldest == eldest and state.to_act == eldest and state.phase is Phase.BIDDING


@pytest.mark.parametrize("ruleset,dealer,taker,rnd", [
    (r, d, t, n)
    for r in ("classic", "strict", "all-trumps")
    for d, t, n in [(3, 0, 1), (3, 2, 1), (0, 0, 1), (1, 1, 2), (2, 3, 2), (2, 1, 3)]
    if n < 3 or r == "all-trumps"  # round 3 exists only in all-trumps
])
def test_s3_2_rest_dealt_from_eldest_taker_two_plus_turned_others_three(ruleset, dealer, taker, rnd):
    deck = _deck(100 * dealer + taker)
    state = DealState(get_ruleset(ruleset), deck, dealer)
    first = [state.hands[s] for s in range(4)]
    turned = state.turned
    for _ in range(4 * (rnd - 1)):
        state.apply_checked(state.to_act, Bid(BidKind.PASS))
    while state.to_act != taker:
        state.apply_checked(state.to_act, Bid(BidKind.PASS))
    other = next(s for s in Suit if s != turned.suit)
    bid = {1: Bid(BidKind.TAKE), 2: Bid(BidKind.TAKE, other), 3: Bid(BidKind.ALL_TRUMPS)}[rnd]
    state.apply_checked(taker, bid)
    pos = 21
    for i in range(4):
        seat = (dealer + 1 + i) % 4
        k = 2 if seat == taker else 3
        extra = mask_of(deck[pos : pos + k]) | (turned.bit if seat == taker else 0)
        assert state.hands[seat] == first[seat] | extra
        assert len(state.hand(seat)) == 8
        pos += k
    assert pos == 32
    assert not state.turned_on_table and state.taker == taker


@pytest.mark.parametrize("dealer", [0, 1])
def test_s7_deal_packets_of_three_card_12_turned_then_three_each_from_the_stock(dealer):
    deck = _deck(7 + dealer)
    state = DealState(get_ruleset("two-player"), deck, dealer)
    eldest = 1 - dealer
    assert state.hands[eldest] == mask_of(deck[0:3] + deck[6:9])
    assert state.hands[dealer] == mask_of(deck[3:6] + deck[9:12])
    assert state.turned == deck[12] and state.to_act == eldest
    state.apply_checked(eldest, Bid(BidKind.PASS))
    state.apply_checked(dealer, Bid(BidKind.TAKE))
    assert state.hands[eldest] == mask_of(deck[0:3] + deck[6:9] + deck[13:16])
    assert state.hands[dealer] == mask_of(deck[3:6] + deck[9:12] + deck[16:19])
    assert state.turned == deck[12] and state.turned_on_table  # stays on the table (§7)
    held = state.hands[0] | state.hands[1]
    assert not held & mask_of(deck[19:])  # the rest of the stock is never dealt


@pytest.mark.parametrize("deck,dealer", [(CARDS[:31], 0), (CARDS[:31] + (CARDS[0],), 0), (CARDS, 4), (CARDS, -1)])
def test_s3_1_deck_must_be_the_32_cards_and_dealer_a_seat(deck, dealer):
    with pytest.raises(ValueError):
        DealState(get_ruleset("classic"), deck, dealer)


# ------------------------------------------------------------------ boards (§1 "board", §8)
def _reference_deck(seed: int, number: int) -> list:
    """The documented board algorithm v1 (referee/rules/board.py docstring), written out again."""
    def words():
        i = 0
        while True:
            d = hashlib.sha256(f"belote-arena/board/v1/{seed}/{number}/{i}".encode()).digest()
            for k in range(0, 32, 4):
                yield int.from_bytes(d[k : k + 4], "big")
            i += 1

    deck, w = list(range(32)), words()
    for j in range(31, 0, -1):
        n = j + 1
        x = next(w)
        while x >= 2**32 - 2**32 % n:
            x = next(w)
        k = x % n
        deck[j], deck[k] = deck[k], deck[j]
    return [CARDS[c] for c in deck]


@pytest.mark.parametrize("seed,number", [(0, 0), (1, 0), (1, 1), (42, 7), (2**40, 123)])
def test_s8_board_is_the_documented_shuffle_of_seed_and_number(seed, number):
    board = make_board(seed, number)
    assert list(board.deck) == _reference_deck(seed, number)
    assert make_board(seed, number) == board  # deterministic
    assert sorted(board.deck) == list(CARDS)
    assert board.deck_text() == [str(c) for c in board.deck]


def test_s8_boards_differ_between_numbers_and_seeds():
    decks = {make_board(s, n).deck for s in range(3) for n in range(20)}
    assert len(decks) == 60


@pytest.mark.parametrize("number", range(9))
def test_s8_board_k_dealer_is_k_mod_seats(number):
    assert make_board(5, number).dealer == number % 4
    assert make_board(5, number, seats=2).dealer == number % 2


@pytest.mark.parametrize("args", [(1, -1), (1, 0, 3)])
def test_s8_make_board_rejects_bad_arguments(args):
    with pytest.raises(ValueError):
        make_board(*args)


def test_s8_relabel_renames_every_suit_by_the_permutation():
    deck = make_board(3, 4).deck
    perm = (1, 2, 3, 0)  # S->H, H->D, D->C, C->S
    new = relabel(deck, perm)
    assert [(c.suit, c.rank) for c in new] == [(Suit(perm[c.suit]), c.rank) for c in deck]
    assert sorted(new) == list(CARDS)
    assert relabel(deck, (0, 1, 2, 3)) == deck
    inverse = tuple(perm.index(s) for s in range(4))
    assert relabel(new, inverse) == deck


@pytest.mark.parametrize("perm", [(0, 1, 2), (0, 0, 1, 2), (1, 2, 3, 4)])
def test_s8_relabel_rejects_non_permutations(perm):
    with pytest.raises(ValueError):
        relabel(CARDS, perm)
