"""RULES.md §8 (games to a target, board matches), §3.3 and §7 (who deals again), §6.3 in a game."""

from __future__ import annotations

import random

import pytest

from referee.rules import DealState, get_ruleset, make_board
from referee.rules.game import BoardMatchTable, Game

from .records import case_record, drive, rotated


@pytest.mark.parametrize("ruleset,target,scores,winner", [
    ("classic", None, (1001, 0), 0),
    ("classic", None, (1000, 999), None),
    ("classic", None, (999, 1001), 1),
    ("classic", None, (1100, 1050), 0),     # both reached: the higher total wins
    ("classic", None, (1050, 1100), 1),
    ("classic", None, (1001, 1001), None),  # equal above the target: another deal
    ("classic", 501, (501, 0), 0),
    ("classic", 701, (700, 650), None),
    ("strict", None, (0, 1000), 1),
    ("all-trumps", None, (999, 999), None),
    ("two-player", None, (500, 499), 0),
    ("two-player", None, (520, 520), None),
])
def test_s8_game_winner(ruleset, target, scores, winner):
    game = Game(get_ruleset(ruleset, target=target))
    game.scores = list(scores)
    assert game.winner() == winner


@pytest.mark.parametrize("ruleset,target", [("classic", 1001), ("strict", 1000), ("all-trumps", 1000),
                                            ("two-player", 500)])
def test_s8_default_targets(ruleset, target):
    assert get_ruleset(ruleset).target == target


@pytest.mark.parametrize("ruleset,target,ok", [
    ("classic", 501, True), ("classic", 701, True), ("classic", 1001, True), ("classic", 1000, False),
    ("strict", 1001, False), ("two-player", 1000, False),
])
def test_s8_classic_chooses_501_701_or_1001(ruleset, target, ok):
    if ok:
        assert get_ruleset(ruleset, target=target).target == target
    else:
        with pytest.raises(ValueError):
            get_ruleset(ruleset, target=target)


def _play(game: Game, record) -> None:
    state = game.new_deal(record.deck)
    assert state.dealer == record.dealer and state.pot == game.pot
    assert state.scores == tuple(game.scores)
    game.finish_deal(drive(state, record))


def test_s8_all_trumps_game_dealer_moves_each_deal_pot_carries():
    game = Game(get_ruleset("all-trumps"), dealer=3)
    # deal, seats moved on, expected deal score, pot after, dealer after
    steps = [
        ("all-trumps/round1_litige_belote_scored_at_once", 0, (20, 81), 81, 0),
        ("all-trumps/round3_all_trumps_made", 1, (86, 197), 0, 1),      # moved one seat: EW attack, win the pot
        ("all-trumps/passed_out_pot_stays", 2, (0, 0), 0, 2),           # passed out: the NEXT dealer redeals (§3.3)
        ("all-trumps/four_belotes_capot_by_defenders", 3, (252, 80), 0, 3),
    ]
    total = [0, 0]
    for name, k, score, pot, dealer in steps:
        _play(game, rotated(case_record(name), k))
        total = [total[0] + score[0], total[1] + score[1]]
        assert tuple(game.outcomes[-1].score) == score
        assert (game.scores, game.pot, game.dealer) == (total, pot, dealer), name
        assert game.winner() is None


def test_s3_3_classic_passed_out_redealt_by_the_same_dealer():
    game = Game(get_ruleset("classic"), dealer=3)
    _play(game, case_record("classic/passed_out"))
    assert game.dealer == 3 and game.scores == [0, 0]
    _play(game, case_record("classic/made_partner_belote"))
    assert game.dealer == 0 and game.scores == [152, 30]


def test_s7_schmeiss_accepted_same_dealer_double_pass_next_dealer():
    game = Game(get_ruleset("two-player"), dealer=1)
    _play(game, case_record("two-player/schmeiss_accepted_round1"))
    assert game.dealer == 1
    _play(game, rotated(case_record("two-player/double_pass"), 1))
    assert game.dealer == 0 and game.scores == [0, 0]
    _play(game, rotated(case_record("two-player/taker_less_opponent_records_both"), 1))
    assert game.scores == [0, 166] and game.dealer == 1


def test_s8_equal_totals_over_the_target_play_another_deal():
    game = Game(get_ruleset("classic"), dealer=3)
    game.scores = [950, 950]
    _play(game, case_record("classic/made_81_81"))               # 81-81: both reach 1031
    assert game.scores == [1031, 1031] and game.winner() is None
    _play(game, rotated(case_record("classic/made_partner_belote"), 1))  # NS's 152 + 30 move to EW
    assert game.scores == [1061, 1183] and game.winner() == 1


@pytest.mark.parametrize("ruleset,target,seed", [("classic", 501, 1), ("strict", 1000, 2), ("all-trumps", 1000, 3),
                                                 ("two-player", 500, 4)])
def test_s8_game_to_a_target_with_random_play(ruleset, target, seed):
    rules = get_ruleset(ruleset, target=target)
    rng = random.Random(seed)
    game = Game(rules, dealer=0)
    dealer, scores, pot = 0, [0, 0], 0
    for number in range(200):
        assert game.winner() is None
        state = game.new_deal(make_board(seed, number, seats=rules.seats).deck)
        assert (state.dealer, state.pot, state.scores) == (dealer, pot, tuple(scores))
        while not state.is_terminal():
            state.apply_checked(state.to_act, rng.choice(state.legal_actions()))
        game.finish_deal(state)
        out = state.outcome()
        scores = [scores[0] + out.score[0], scores[1] + out.score[1]]
        pot = out.pot
        if not (out.contract == "passed" and out.redeal_same_dealer):
            dealer = (dealer + 1) % rules.seats
        assert (game.scores, game.dealer, game.pot) == (scores, dealer, pot)
        if max(scores) >= target and scores[0] != scores[1]:
            assert game.winner() == (0 if scores[0] > scores[1] else 1)
            break
    else:
        pytest.fail("no winner in 200 deals")
    assert number >= 2  # a target game takes several deals


def test_s8_board_match_scores_each_board_passed_board_0_0():
    table = BoardMatchTable(get_ruleset("classic"))
    for name in ("classic/made_partner_belote", "classic/passed_out", "classic/dedans_defenders_belote"):
        record = case_record(name)
        table.finish_deal(drive(table.new_deal(record.deck, record.dealer), record))
    assert [o.contract for o in table.outcomes] == ["made", "passed", "dedans"]
    assert table.scores == [152 + 0 + 182, 30 + 0 + 0]


def test_s8_a_board_match_table_that_keeps_no_outcomes_scores_the_same():
    """The referee's tables keep only running scores and the pot (issue 14 item 3: memory flat
    in the length of a match): the same scores as a table that keeps every outcome."""
    kept, lean = BoardMatchTable(get_ruleset("classic")), BoardMatchTable(get_ruleset("classic"), keep_outcomes=False)
    for name in ("classic/made_partner_belote", "classic/passed_out", "classic/dedans_defenders_belote"):
        record = case_record(name)
        for table in (kept, lean):
            table.finish_deal(drive(table.new_deal(record.deck, record.dealer), record))
    assert lean.scores == kept.scores == [152 + 0 + 182, 30 + 0 + 0]
    assert lean.pot == kept.pot == 0
    assert lean.outcomes == [] and len(kept.outcomes) == 3


def test_s8_unfinished_deal_cannot_be_recorded():
    rules = get_ruleset("classic")
    deck = make_board(1, 0).deck
    for keeper in (Game(rules), BoardMatchTable(rules)):
        with pytest.raises(ValueError):
            keeper.finish_deal(DealState(rules, deck, 0))
