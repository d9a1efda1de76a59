"""RULES.md §6.2 (contract, capot, rounding), §6.3 (litige pot) and the §7 score sheet.

The whole-deal numbers come from hand-checked case files (tests/data/cases); here each
row also pins the parts of the outcome the score is built from, worked out by hand.
"""

from __future__ import annotations

import dataclasses

import pytest

from referee.rules import replay
from referee.rules.game import BoardMatchTable

from .records import case_record, drive

# case, trick_points (before capot), declarations declared per team, declaration team, belote, capot, score
OUTCOME_ROWS = [
    ("s6_2_classic_tie_81_81_is_made", "classic/made_81_81_with_belote", (81, 81), (0, 0), None, (20, 0), None,
     (101, 81)),
    ("s6_2_strict_tie_is_dedans", "strict/tie_81_81_without_belote_is_dedans", (81, 81), (0, 0), None, (0, 0),
     None, (0, 160)),
    ("s6_2_classic_dedans_declarations_scored_as_usual", "classic/dedans_attackers_keep_declaration", (86, 76),
     (0, 20), 1, (0, 0), None, (162, 20)),
    ("s6_2_strict_counts_declarations_toward_the_contract", "strict/made_by_declarations", (86, 76), (0, 20), 1,
     (0, 0), None, (90, 100)),
    ("s6_2_strict_dedans_defenders_take_every_declaration", "strict/dedans_takes_every_declaration", (65, 97),
     (100, 100), 0, (0, 0), None, (360, 0)),
    ("s6_2_capot_by_attackers_252", "classic/capot_by_attackers_quarte", (162, 0), (50, 20), 0, (0, 0), 0,
     (302, 0)),
    ("s6_2_capot_by_defenders_252_classic", "classic/capot_by_defenders_attackers_declarations", (162, 0),
     (0, 250), 1, (0, 20), 0, (252, 270)),
    ("s6_2_capot_by_defenders_is_dedans_strict", "strict/capot_by_defenders_is_dedans", (162, 0), (0, 250), 1,
     (0, 20), 0, (500, 20)),
    ("s6_2_strict_rounding_5_up", "strict/rounding_95_up_67_up", (95, 67), (0, 0), None, (0, 0), None, (100, 70)),
    ("s6_2_strict_rounding_down", "strict/rounding_104_down_58_up", (104, 58), (0, 0), None, (0, 0), None,
     (100, 60)),
    ("s6_2_all_trumps_dedans_belote_kept_by_holder", "all-trumps/four_belotes_capot_by_defenders", (0, 162),
     (0, 0), None, (80, 0), 1, (80, 252)),
    ("s6_2_no_trumps_capot", "all-trumps/round3_no_trumps_capot", (162, 0), (0, 0), None, (0, 0), 0, (252, 0)),
    ("s6_3_litige", "all-trumps/round1_litige_belote_scored_at_once", (81, 81), (0, 0), None, (20, 0), None,
     (20, 81)),
    ("s7_sheet_taker_more", "two-player/made_exchange_completes_belote", (101, 25), (0, 20), 1, (0, 20), None,
     (101, 65)),
    ("s7_sheet_equal", "two-player/schmeiss_refused_round1_equal_totals", (75, 55), (0, 20), 1, (0, 0), None,
     (75, 0)),
    ("s7_sheet_taker_less", "two-player/schmeiss_refused_round2_names_trump_taker_less", (53, 47), (20, 20), 1,
     (0, 0), None, (0, 120)),
    ("s7_equal_sequences_nobody_scores", "two-player/equal_sequences_cancel_opponent_belote", (31, 84), (20, 20),
     None, (20, 0), None, (51, 84)),
]


@pytest.mark.parametrize("case,tp,declared,team,belote,capot,score", [r[1:] for r in OUTCOME_ROWS],
                         ids=[r[0] for r in OUTCOME_ROWS])
def test_outcome_parts(case, tp, declared, team, belote, capot, score):
    out = replay(case_record(case)).outcome()
    assert (out.trick_points, out.declarations, out.declaration_team, out.belote, out.capot, out.score) == (
        tp, declared, team, belote, capot, score)


def test_s6_2_outcome_json_has_every_part():
    out = replay(case_record("classic/capot_by_attackers_quarte")).outcome()
    assert out.to_json() == {
        "contract": "made", "score": [302, 0], "taker": 0, "trump_mode": "suit", "trump": "S",
        "trick_points": [162, 0], "tricks_won": [8, 0], "declarations": [50, 20], "declaration_team": 0,
        "belote": [0, 0], "capot": 0, "pot_in": 0, "pot_to": None, "pot": 0,
    }


# ---------------------------------------------------------------- §6.3 the pot across boards
# case, expected deal score, pot out, pot_to
LITIGE = "all-trumps/round1_litige_belote_scored_at_once"
CHAIN = [
    (LITIGE, (20, 81), 81, None),                                   # litige: pot 81
    ("all-trumps/round3_all_trumps_made", (197, 86), 0, 0),         # made: the attackers add the pot
    (LITIGE, (20, 81), 81, None),                                   # litige again
    ("all-trumps/passed_out_pot_stays", (0, 0), 81, None),          # a passed board keeps it
    ("all-trumps/four_belotes_capot_by_defenders", (80, 333), 0, 1),  # dedans: the defenders add it
    (LITIGE, (20, 81), 81, None),
    (LITIGE, (20, 81), 162, None),                                  # a further litige adds to the pot
]


def test_s6_3_pot_carried_between_boards_of_a_table():
    table = BoardMatchTable(case_record(LITIGE).ruleset)
    total, pot_in = [0, 0], 0
    for name, score, pot, pot_to in CHAIN:
        record = case_record(name)
        state = table.new_deal(record.deck, record.dealer)
        assert state.pot == pot_in  # the deal is told the pot it plays for (§6.3, §9)
        outcome = table.finish_deal(drive(state, record))
        assert (outcome.score, outcome.pot, outcome.pot_to) == (score, pot, pot_to), name
        total = [total[0] + score[0], total[1] + score[1]]
        assert table.scores == total and table.pot == pot
        pot_in = pot
    # the match ends with the pot of 162 still open: scored by nobody
    assert table.scores == [357, 743] and table.pot == 162


def test_s6_3_record_pot_field_round_trips():
    record = case_record("all-trumps/second_litige_adds_to_pot")
    assert record.pot == 81
    assert record.to_json()["pot"] == 81
    assert "pot" not in dataclasses.replace(record, pot=0).to_json()
