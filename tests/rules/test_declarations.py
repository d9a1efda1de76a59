"""RULES.md §6.1 (declarations: options, points, comparison, what is public) and §7 "Sequences"."""

from __future__ import annotations

import pytest

from referee.rules import Declaration, Declare, IllegalActionError, Phase, Rank, get_ruleset, observe
from referee.rules.cards import mask_of, parse_cards
from referee.rules.declarations import declaration_options, declaration_winner

from .positions import four, play_cards, two

FRENCH = get_ruleset("classic").declarations
TWO = get_ruleset("two-player").declarations


def D(text: str) -> Declaration:
    return Declaration.parse(text.split())


def _options(hand: str, rules=FRENCH) -> set[frozenset[str]]:
    return {frozenset(" ".join(str(c) for c in d.cards) for d in opt)
            for opt in declaration_options(mask_of(parse_cards(hand.split())), rules)}


OPTION_ROWS = [
    ("s6_1_the_example_four_jacks_and_J_Q_K_A_of_hearts", "JS JH JD JC QH KH AH 8C",
     {frozenset({"JS JH JD JC", "QH KH AH"}), frozenset({"JS JH JD JC"}), frozenset({"JH QH KH AH"}), frozenset()}),
    ("s6_1_run_of_6_is_the_quinte_of_its_five_highest", "9S 10S JS QS KS AS 7H 9D",
     {frozenset({"10S JS QS KS AS"}), frozenset()}),
    ("s6_1_run_of_8_is_a_quinte_to_the_ace_and_a_tierce_to_the_nine", "7S 8S 9S 10S JS QS KS AS",
     {frozenset({"10S JS QS KS AS", "7S 8S 9S"}), frozenset({"10S JS QS KS AS"}), frozenset({"7S 8S 9S"}),
      frozenset()}),
    ("s6_1_run_of_7_leaves_two_cards_no_tierce", "8S 9S 10S JS QS KS AS 7H",
     {frozenset({"10S JS QS KS AS"}), frozenset()}),
    ("s6_1_runs_declared_whole_any_subset_of_runs", "7H 8H 9H 10H 7C 8C 9C AD",
     {frozenset({"7H 8H 9H 10H", "7C 8C 9C"}), frozenset({"7H 8H 9H 10H"}), frozenset({"7C 8C 9C"}),
      frozenset()}),
    ("s6_1_carre_of_nines_uses_the_nines_of_both_runs", "9S 9H 9D 9C 10C JC 7D 8D",
     {frozenset({"9S 9H 9D 9C"}), frozenset({"9C 10C JC", "7D 8D 9D"}), frozenset({"9C 10C JC"}),
      frozenset({"7D 8D 9D"}), frozenset()}),
    ("s6_1_two_carres_any_of_them", "AS AH AD AC KS KH KD KC",
     {frozenset({"AS AH AD AC", "KS KH KD KC"}), frozenset({"AS AH AD AC"}), frozenset({"KS KH KD KC"}),
      frozenset()}),
    ("s6_1_carre_of_sevens_or_eights_is_not_a_declaration", "7S 7H 7D 7C 8S 8H 8D 8C", {frozenset()}),
    ("s7_two_player_run_of_6_is_one_sequence_and_carres_do_not_count", "9S 10S JS QS KS AS JH JD JC",
     {frozenset({"9S 10S JS QS KS AS"}), frozenset()}),
]


@pytest.mark.parametrize("name,hand,expected", OPTION_ROWS, ids=[r[0] for r in OPTION_ROWS])
def test_declaration_options(name, hand, expected):
    """§6.1 two-step choices (carrés, then whole runs of the rest; runs over 5 split) / §7 sequences."""
    rules = TWO if name.startswith("s7") else FRENCH
    assert _options(hand, rules) == expected


@pytest.mark.parametrize("decl,points", [
    ("JS JH JD JC", 200), ("9S 9H 9D 9C", 150), ("AS AH AD AC", 100), ("10S 10H 10D 10C", 100),
    ("KS KH KD KC", 100), ("QS QH QD QC", 100), ("10H JH QH KH AH", 100), ("7D 8D 9D 10D", 50), ("QC KC AC", 20),
])
def test_s6_1_declaration_points(decl, points):
    assert D(decl).points(FRENCH) == points


@pytest.mark.parametrize("decl,points,kind", [
    ("7C 8C 9C", 20, "tierce"), ("7C 8C 9C 10C", 50, "quarte"), ("7C 8C 9C 10C JC QC", 50, "sequence of 6"),
    ("7C 8C 9C 10C JC QC KC AC", 50, "sequence of 8"),
])
def test_s7_sequence_points_20_for_three_50_for_four_or_more(decl, points, kind):
    assert (D(decl).points(TWO), D(decl).kind) == (points, kind)


def test_s6_1_a_declaration_is_a_carre_or_a_sequence():
    for bad in ("7S 8S", "7S 8S 10S", "7S 8H 9S", "JS JH JD"):
        with pytest.raises(ValueError):
            Declaration.parse(bad.split())


# declared: seat -> declarations; trump suit index (0..3 = S H D C) or None; eldest; expected team (or None)
COMPARE_ROWS = [
    ("s6_1_carre_beats_a_quinte_of_equal_points", {0: ["10H JH QH KH AH"], 1: ["QS QH QD QC"]}, 1, 0, 1),
    ("s6_1_carre_of_jacks_beats_carre_of_nines", {0: ["9S 9H 9D 9C"], 3: ["JS JH JD JC"]}, 1, 0, 1),
    ("s6_1_carre_of_nines_beats_carre_of_aces", {1: ["AS AH AD AC"], 2: ["9S 9H 9D 9C"]}, 1, 0, 0),
    ("s6_1_equal_carres_aces_beat_tens", {0: ["10S 10H 10D 10C"], 1: ["AS AH AD AC"]}, 1, 0, 1),
    ("s6_1_equal_carres_tens_beat_kings", {2: ["KS KH KD KC"], 3: ["10S 10H 10D 10C"]}, 1, 0, 1),
    ("s6_1_equal_carres_kings_beat_queens", {1: ["QS QH QD QC"], 2: ["KS KH KD KC"]}, 1, 1, 0),
    ("s6_1_longer_sequence_wins", {0: ["QC KC AC"], 1: ["7D 8D 9D 10D"]}, 3, 0, 1),
    ("s6_1_equal_length_higher_top_wins", {1: ["8H 9H 10H"], 2: ["9S 10S JS"]}, 1, 1, 0),
    ("s6_1_equal_sequences_trump_wins", {1: ["8S 9S 10S"], 2: ["8H 9H 10H"]}, 1, 1, 0),
    ("s6_1_equal_sequences_first_from_eldest_wins", {0: ["8S 9S 10S"], 3: ["8D 9D 10D"]}, 1, 1, 1),
    ("s6_1_equal_sequences_first_from_eldest_wins_2", {0: ["8S 9S 10S"], 3: ["8D 9D 10D"]}, 1, 3, 1),
    ("s6_1_equal_sequences_first_from_eldest_wins_3", {0: ["8S 9S 10S"], 3: ["8D 9D 10D"]}, 1, 0, 0),
    ("s6_1_best_single_declaration_counts_not_the_sum", {0: ["7H 8H 9H", "7C 8C 9C", "7D 8D 9D"], 1: ["QS KS AS JS"]},
     2, 0, 1),
    ("s6_1_partners_best_counts_for_the_team", {0: ["7H 8H 9H"], 2: ["10C JC QC KC AC"], 1: ["8S 9S 10S JS"]},
     2, 1, 0),
    ("s6_1_nothing_declared_nobody_wins", {}, 1, 0, None),
]


@pytest.mark.parametrize("declared,trump,eldest,team", [r[1:] for r in COMPARE_ROWS], ids=[r[0] for r in COMPARE_ROWS])
def test_s6_1_comparison(declared, trump, eldest, team):
    decl = {s: tuple(D(t) for t in ds) for s, ds in declared.items()}
    order = [(eldest + i) % 4 for i in range(4)]
    assert declaration_winner(decl, FRENCH, trump, order, lambda s: s % 2) == team


@pytest.mark.parametrize("name,declared,trump,winner", [
    ("s7_longer_wins", {0: ["QC KC AC"], 1: ["7D 8D 9D 10D"]}, 3, 1),
    ("s7_higher_top_wins", {0: ["9S 10S JS"], 1: ["8H 9H 10H"]}, 1, 0),
    ("s7_trump_wins", {0: ["8S 9S 10S"], 1: ["8H 9H 10H"]}, 1, 1),
    ("s7_equal_nobody_scores", {0: ["8S 9S 10S"], 1: ["8D 9D 10D"]}, 1, None),
    ("s7_equal_nobody_scores_whoever_is_eldest", {1: ["8S 9S 10S"], 0: ["8D 9D 10D"]}, 3, None),
])
def test_s7_sequence_comparison(name, declared, trump, winner):
    decl = {s: tuple(D(t) for t in ds) for s, ds in declared.items()}
    assert declaration_winner(decl, TWO, trump, [0, 1], lambda s: s) == winner


# --------------------------------------------------------------- declaring during the first trick
EXAMPLE_N = {0: "JS JH JD JC QH KH AH 8C"}


def test_s6_1_declaration_choice_is_offered_before_the_first_card_with_exactly_the_example_options():
    state = four("classic", EXAMPLE_N, trump="C", settle=False)
    assert state.phase is Phase.DECLARATION and state.to_act == 0
    got = {frozenset(" ".join(str(c) for c in d.cards) for d in a.declarations) for a in state.legal_actions()}
    assert got == {frozenset({"JS JH JD JC", "QH KH AH"}), frozenset({"JS JH JD JC"}), frozenset({"JH QH KH AH"}),
                   frozenset()}
    with pytest.raises(IllegalActionError) as err:  # a part of the run is not a choice
        state.check(0, Declare((D("JH QH KH"),)))
    assert err.value.rule == "§6.1"


def test_s6_1_no_declaration_after_the_first_trick():
    # S holds a tierce but declares nothing in trick 1: it is not asked again in trick 2
    state = four("classic", {0: "AS KS QS JS 10S 9S 8S 7S", 2: "7H 8H 9H 7C 8C 9D 10D JD"}, trump="S",
                 plays=["AS", "7D", "7H", "KD"], declare={})
    assert len(state.tricks) == 1 and state.declared == [(), (), (), ()]
    play_cards(state, ["KS", "8D"], settle=False)
    assert state.to_act == 2 and state.phase is Phase.PLAY
    assert all(not isinstance(a, Declare) for a in state.legal_actions())


def _public(state, seat):
    """seat -> [(kind, length, points, top, cards as texts)] as ``seat`` sees them."""
    out: dict = {}
    for d in observe(state, seat).declarations:
        out.setdefault(d.seat, []).append((d.kind, d.length, d.points, d.top, [str(c) for c in d.cards]))
    return out


def test_s6_1_kind_public_at_once_cards_of_the_winning_team_after_trick_1_only():
    # N declares the carré of jacks + tierce, E a quarte; S and W hold tierces they do not declare
    hands = {0: "JS JH JD JC QH KH AH 8C", 1: "7D 8D 9D 10D 7S 8S 9S 10S"}
    state = four("classic", hands, trump="C", settle=False)
    state.apply_checked(0, Declare((D("QH KH AH"), D("JS JH JD JC"))))  # a choice is a set: any order
    play_cards(state, ["8C"], settle=False)
    state.apply_checked(1, Declare((D("7D 8D 9D 10D"),)))
    play_cards(state, ["7S"], settle=False)
    for seat in range(4):  # during trick 1: kind (a carré's rank with it), length, points; no cards
        assert _public(state, seat) == {
            0: [("carré of jacks", 4, 200, Rank.JACK, []), ("tierce", 3, 20, None, [])],
            1: [("quarte", 4, 50, None, [])],
        }
    play_cards(state, ["QD", "9C"])  # S and W decline; W's 9C wins trick 1 for EW
    assert len(state.tricks) == 1 and state.tricks[0].winner == 3
    assert state.declaration_team == 0  # the carré beats the quarte, whoever won the trick
    for seat in range(4):  # after trick 1: the winning team's cards; the losing team's stay hidden
        assert _public(state, seat) == {
            0: [("carré of jacks", 4, 200, Rank.JACK, ["JS", "JH", "JD", "JC"]),
                ("tierce", 3, 20, Rank.ACE, ["QH", "KH", "AH"])],
            1: [("quarte", 4, 50, None, [])],
        }


def test_s7_only_best_length_is_public_and_top_only_when_lengths_tie():
    hands = {0: "8D 9D 10D JC 7C 7S 8S AH 8H", 1: "QS KS AS 9C 8C AD KD JH 9H"}
    state = two(hands, turned="10H", trump="C", taker=0,
                declare={0: Declare((D("8D 9D 10D"),)), 1: Declare((D("QS KS AS"),))})
    assert state.declaration_team == 1
    for seat in (0, 1):
        assert _public(state, seat) == {0: [("tierce", 3, 20, Rank.TEN, [])], 1: [("tierce", 3, 20, Rank.ACE, [])]}


def test_s7_top_card_hidden_when_lengths_differ_and_only_the_best_sequence_shows():
    hands = {1: "7D 8D 9D 10D 7S 8S 9S JH 9H", 0: "QC KC AC AD KD AS 10S 10H KH"}
    state = two(hands, turned="KS", trump="H", taker=1, dealer=0,
                declare={1: Declare((D("7D 8D 9D 10D"), D("7S 8S 9S"))), 0: Declare((D("QC KC AC"),))})
    assert state.declaration_team == 1
    for seat in (0, 1):
        assert _public(state, seat) == {1: [("quarte", 4, 50, None, [])], 0: [("tierce", 3, 20, None, [])]}


def test_s7_first_declarer_length_public_before_the_other_answers():
    hands = {0: "8D 9D 10D JC 7C 7S 8S AH 8H", 1: "QS KS AS 9C 8C AD KD JH 9H"}
    deck_state = two(hands, turned="10H", trump="C", taker=0, declare={0: Declare((D("8D 9D 10D"),))},
                     stop_at_declaration=1)
    assert deck_state.phase is Phase.DECLARATION and deck_state.to_act == 1
    for seat in (0, 1):  # the lengths may yet tie, but the answer is not in: no top card
        assert _public(deck_state, seat) == {0: [("tierce", 3, 20, None, [])]}
