"""arena.report.boardview on hand-checked deals (tests/data/cases): what the replay viewer shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.report.boardview import in_board_suits, relabel_action_json, table_view
from referee.records import TableResult
from referee.rules import DealRecord, action_from_json, parse_record, relabel, replay

CASES = Path(__file__).resolve().parents[1] / "data" / "cases"


def stored(case: str, permutation=(0, 1, 2, 3)) -> TableResult:
    """The hand-checked deal as a stored table played with its suits renamed by ``permutation``."""
    record = parse_record(json.loads((CASES / f"{case}.json").read_text()))
    if tuple(permutation) != (0, 1, 2, 3):
        record = DealRecord(
            ruleset=record.ruleset, dealer=record.dealer, deck=relabel(record.deck, permutation),
            actions=[(s, action_from_json(relabel_action_json(a.to_json(), permutation))) for s, a in record.actions],
            pot=record.pot)
    return TableResult(board=0, table=2 if tuple(permutation) != (0, 1, 2, 3) else 1, ns="a@1", ew="b@1",
                       permutation=tuple(permutation), record=record, outcome=replay(record).outcome(),
                       decisions=[])


def test_two_player_exchange_declaration_and_belote():
    """RULES.md §7: seat 1 declares the tierce J-Q-K of spades, swaps 7H for the turned KH
    and announces belote with QH; 101–65, 9 tricks of 2 cards, 9 cards a hand."""
    v = table_view(stored("two-player/made_exchange_completes_belote"))
    assert v["seats"] == 2 and v["seat_names"] == ["P0", "P1"] and v["team_names"] == ["P0", "P1"]
    assert [len(h) for h in v["hands"]] == [9, 9]
    assert v["turned"]["card"] == "KH"
    assert v["exchange"] == {"seat": 1, "name": "P1"}
    assert v["declarations"] == [{"seat": 1, "name": "P1", "text": v["declarations"][0]["text"],
                                  "combos": [{"kind": "tierce", "cards": [
                                      {"card": c, "rank": c[0], "suit": "S", "symbol": "♠", "red": False}
                                      for c in ("JS", "QS", "KS")]}]}]
    assert {"JS", "QS", "KS"} <= set(v["declarations"][0]["text"].replace("[", " ").replace("]", " ").split())
    assert v["belotes"] == [{"seat": 1, "name": "P1", "suit": "♥"}]
    assert v["bidding"] == [{"seat": 0, "name": "P0", "text": "take"}]
    assert len(v["tricks"]) == 9 and all(len(t["cards"]) == 2 for t in v["tricks"])
    assert v["tricks"][0]["points"] == 13 and v["tricks"][0]["winner"] == 0  # AS 11 + JS 2
    assert v["outcome"]["score"] == [101, 65] and v["outcome"]["contract"] == "made"
    # the belote flag is on the QH as played, the rebelote on the KH
    flags = {c["card"]: (c["belote"], c["rebelote"]) for t in v["tricks"] for c in t["cards"]}
    assert flags["QH"] == (True, False) and flags["KH"] == (False, True)


def test_capot_by_defenders():
    """RULES.md §6.2: the defenders take all 8 tricks: dedans, 252–0, capot by NS."""
    v = table_view(stored("classic/capot_by_defenders"))
    assert v["outcome"]["capot"] == 0 and v["outcome"]["score"] == [252, 0]
    assert all(t["winner"] % 2 == 0 for t in v["tricks"])
    assert v["tricks"][-1]["running"] == [162, 0]  # every card point and the dix de der
    assert [len(h) for h in v["hands"]] == [8, 8, 8, 8]
    assert all(c["trick"] is not None for h in v["hands"] for c in h)


def test_passed_out_deal():
    """RULES.md §3.3: eight passes, no trick, 0–0; the hands are the first five cards."""
    v = table_view(stored("classic/passed_out"))
    assert [b["text"] for b in v["bidding"]] == ["pass"] * 8
    assert v["tricks"] == [] and v["taker"] is None and v["trump"] is None
    assert [len(h) for h in v["hands"]] == [5, 5, 5, 5]
    assert v["outcome"]["score"] == [0, 0]


@pytest.mark.parametrize("permutation", [(1, 2, 3, 0), (3, 2, 1, 0), (2, 3, 0, 1)])
def test_table_two_back_in_the_board_suits(permutation):
    """RULES.md §8: table 2 plays the board with its suits renamed. Shown in the board's
    suits, it is the deal as dealt (same hands, tricks, trump); shown in its own, the suits
    differ and the score is the same."""
    board = table_view(stored("classic/made_partner_belote"))
    t2 = stored("classic/made_partner_belote", permutation)
    assert in_board_suits(t2.record, permutation).deck == stored("classic/made_partner_belote").record.deck
    shown = table_view(t2, board_suits=True)
    assert shown["relabelled"] is True
    for key in ("hands", "tricks", "trump", "bidding", "belotes", "turned"):
        assert shown[key] == board[key], key
    assert shown["outcome"] == board["outcome"]
    own = table_view(t2, board_suits=False)
    assert own["relabelled"] is False
    assert own["turned"] != board["turned"]
    assert own["outcome"]["score"] == board["outcome"]["score"] == [152, 30]
    assert own["outcome"]["trump"] == "SHDC"[permutation["SHDC".index(board["outcome"]["trump"])]]


def test_contree_calls_in_the_bidding():
    """RULES.md §6.4 (contrée on): the contre and surcontre are shown with the bids, and the
    score is the hand-checked one, redoubled: 1058–0 with a capot."""
    v = table_view(stored("classic/contree_redoubled_capot"))
    assert [b["text"] for b in v["bidding"]] == ["take", "contre", "surcontre"]
    assert v["outcome"]["multiplier"] == 4 and v["outcome"]["score"] == [1058, 0]
    assert v["outcome"]["capot"] == 0
