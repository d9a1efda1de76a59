"""Errors say what went wrong: IllegalActionError.rule names the RULES.md section; RecordError
names the action index and seat; an unreadable action is a different error (ActionParseError)."""

from __future__ import annotations

import copy
import json

import pytest

from referee.rules import (
    ActionParseError, Bid, BidKind, Declaration, Declare, IllegalActionError, Play, RecordError, action_from_json,
    load_record, parse_record, replay,
)
from referee.rules.cards import Card

from .positions import four, two
from .records import CASES

P6 = {0: "7C 8C 9C 10C JC QC AD 10D JS", 1: "7H 8H 9H 10H 7S AS 9S KC AC"}


def _st(name):
    """Positions just before the refused action, and that action."""
    if name == "follow":
        return four("classic", {0: "AS JH 9H AH 10H KH QH 8H", 1: "7S KS 7D 8D 9D 10D JD QD"}, trump="H",
                    plays=["AS"]), 1, "7D"
    if name == "monter":
        return four("classic", {0: "KH 7S 8S 9S 10S JS QS KS", 1: "AH 8H 7D 8D 9D 10D JD QD"}, trump="H",
                    plays=["KH"]), 1, "8H"
    if name == "couper":
        return four("classic", {0: "AS JH 9H AH 10H KH QH 7C", 1: "7H 8H 7D 8D 9D 10D JD QD"}, trump="H",
                    plays=["AS"]), 1, "7D"
    if name == "surcouper":
        return four("classic", {0: "AC KC QC JC 10C 9C 8C 7C", 1: "10H 7D 8D 9D 10D JD QD KD",
                                2: "AH 9H 8H 7H AD AS KS QS"}, trump="H", taker=2, plays=["AC", "10H"]), 2, "8H"
    if name == "pisser":  # E trumps N's AC with JH; S is void in clubs with only lower trumps: must still play one
        return four("classic", {0: "AC KC QC 10C 9C 8C 7C AS", 1: "JH 9H AH 10H KH QH KS QS",
                                2: "7H 8H 7D 8D 9D 10D JD QD"}, trump="H", taker=1, plays=["AC", "JH"]), 2, "7D"
    if name == "not_held":
        return four("classic", {0: "AS JH 9H AH 10H KH QH 8H"}, trump="H"), 0, "7D"
    if name == "two_follow":
        return two(P6, turned="10S", trump="S", taker=1, plays=["JS"]), 1, "7H"
    if name == "two_trump":
        return two(P6, turned="10S", trump="S", taker=1, plays=["AD"]), 1, "7H"
    raise AssertionError(name)


@pytest.mark.parametrize("name,rule", [
    ("follow", "§5.1 (follow suit)"),
    ("monter", "§5.1 (monter)"),
    ("couper", "§5.3 (couper)"),
    ("surcouper", "§5.3 (surcouper)"),
    ("pisser", "§5.3 (pisser)"),
    ("not_held", "§5"),
    ("two_follow", "§7 (follow suit)"),
    ("two_trump", "§7 (play)"),
])
def test_illegal_card_names_the_rule(name, rule):
    state, seat, card = _st(name)
    with pytest.raises(IllegalActionError) as err:
        state.apply_checked(seat, Play(Card.parse(card)))
    assert err.value.rule == rule
    assert isinstance(err.value, ValueError) and f"(RULES.md {rule.partition(' ')[0]}" in str(err.value)
    assert f"seat {seat} " in str(err.value)


def test_illegal_actions_of_other_kinds_name_the_rule():
    state = four("classic", {0: "JS JH JD JC QH KH AH 8C"}, trump="C", settle=False)
    with pytest.raises(IllegalActionError) as err:  # a card while a declaration choice is due
        state.check(0, Play(Card.parse("8C")))
    assert err.value.rule == "§6.1"
    with pytest.raises(IllegalActionError) as err:
        state.check(0, Declare((Declaration.parse(["JH", "QH", "KH"]),)))
    assert err.value.rule == "§6.1"
    with pytest.raises(IllegalActionError) as err:
        state.check(2, Declare(()))
    assert err.value.rule == "§4–§5 (play in turn)"
    with pytest.raises(IllegalActionError) as err:
        state.check(0, Bid(BidKind.PASS))
    assert err.value.rule == "§6.1"


def test_two_player_declaration_errors_name_s7():
    state = two(P6, turned="10S", trump="S", taker=1, stop_at_declaration=1)
    with pytest.raises(IllegalActionError) as err:
        state.check(1, Declare((Declaration.parse(["7H", "8H", "9H"]),)))  # part of the quarte
    assert err.value.rule == "§7"
    with pytest.raises(IllegalActionError) as err:
        state.check(1, Play(Card.parse("7H")))
    assert err.value.rule == "§7"


def test_a_finished_deal_accepts_nothing():
    state = replay(load_record(CASES / "classic/made_partner_belote.json"))
    with pytest.raises(IllegalActionError) as err:
        state.check(0, Play(Card.parse("AS")))
    assert err.value.rule == "§5"
    with pytest.raises(ValueError):
        state.legal_actions()


# ----------------------------------------------------------------------------- records
BASE = json.loads((CASES / "classic/made_partner_belote.json").read_text())["record"]


def _bad(change):
    obj = copy.deepcopy(BASE)
    change(obj)
    with pytest.raises(RecordError) as err:
        replay(parse_record(obj))
    return err.value


@pytest.mark.parametrize("name,change,index,seat,words", [
    ("missing field", lambda o: o.pop("deck"), None, None, "deck"),
    ("missing fields, all named", lambda o: [o.pop(k) for k in ("dealer", "deck", "actions")], None, None,
     "missing fields 'dealer', 'deck', 'actions'"),
    ("unknown ruleset", lambda o: o.update(ruleset="bridge"), None, None, "bridge"),
    ("bad target", lambda o: o.update(target=900), None, None, "target"),
    ("bad dealer", lambda o: o.update(dealer=4), None, None, "dealer"),
    ("short deck", lambda o: o["deck"].pop(), None, None, "deck"),
    ("repeated card", lambda o: o["deck"].__setitem__(0, o["deck"][1]), None, None, "repeated"),
    ("bad card text", lambda o: o["deck"].__setitem__(0, "1S"), None, None, "1S"),
    ("negative pot", lambda o: o.update(pot=-1), None, None, "pot"),
    ("action without seat", lambda o: o["actions"][3].pop("seat"), 3, None, "seat"),
    ("unknown action", lambda o: o["actions"][2].pop("card"), 2, 1, "unknown action"),
    ("unknown bid", lambda o: o["actions"][0].update(bid="double"), 0, 0, "double"),
    ("bad card in action", lambda o: o["actions"][5].update(card="ZZ"), 5, 0, "ZZ"),
    ("out of turn", lambda o: o["actions"][2].update(seat=3), 2, 3, "turn"),
    ("card not held", lambda o: o["actions"][2].update(card="7D"), 2, 1, "does not hold 7D"),
    ("illegal card", lambda o: o["actions"][2].update(card="AD"), 2, 1, "follow suit"),
    ("ends early", lambda o: o["actions"].pop(), None, None, "ends before"),
])
def test_record_errors_name_index_and_seat(name, change, index, seat, words):
    err = _bad(change)
    assert (err.index, err.seat) == (index, seat), str(err)
    assert words in str(err)
    if index is not None:
        assert str(err).startswith(f"action {index}")


def test_record_error_carries_the_rule():
    err = _bad(lambda o: o["actions"][2].update(card="AD"))
    assert err.rule == "§5.1 (follow suit)"


def test_load_record_errors(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"ruleset": ', encoding="utf-8")
    with pytest.raises(RecordError, match="line 1"):
        load_record(bad)


@pytest.mark.parametrize("obj", [
    {"card": "ZZ"}, {"card": "AS", "belote": "yes"}, {"bid": "take", "trump": "X"}, {"bid": "pass", "trump": "H"},
    {"schmeiss": "maybe"}, {"declare": "JH QH KH"}, {"declare": [["7H", "9H", "10H"]]}, {"exchange": 1},
    {"nothing": 1}, [],
])
def test_unreadable_actions_are_action_parse_errors_not_illegal_actions(obj):
    with pytest.raises(ActionParseError) as err:
        action_from_json(obj)
    assert isinstance(err.value, ValueError) and not isinstance(err.value, IllegalActionError)


@pytest.mark.parametrize("obj", [
    {"card": "10H"}, {"card": "KS", "belote": True}, {"bid": "pass"}, {"bid": "take", "trump": "H"},
    {"bid": "all-trumps"}, {"schmeiss": "refuse"}, {"trump": "C"}, {"declare": [["7H", "8H", "9H"]]},
    {"exchange": True},
])
def test_actions_json_round_trip(obj):
    assert action_from_json(obj).to_json() == obj


@pytest.mark.parametrize("action, words", [
    ({"seat": 0, "card": "AS", "belotte": True}, "'belotte'"),   # a misspelt belote would change the score
    ({"seat": 0, "card": "AS", "bid": "pass"}, "'bid'"),           # two shapes in one action
    ({"seat": 0, "bid": "take", "card": "AS"}, "'card'"),
])
def test_record_actions_with_unknown_keys_are_refused(action, words):
    """Deal records (README): each action shape has fixed keys; anything else is refused."""
    with pytest.raises(ActionParseError, match=words):
        action_from_json(action)


def test_record_with_an_unknown_field_is_refused():
    with pytest.raises(RecordError, match="'Ruleset'"):
        parse_record({"ruleset": "classic", "Ruleset": "strict", "dealer": 0, "deck": [], "actions": []})


# --------------------------------------------------------------------------
# Issue 14 item 14: what a record may say, whatever the hidden hands hold
# --------------------------------------------------------------------------
def _case_record(name: str) -> dict:
    import json
    from pathlib import Path

    return json.loads((Path(__file__).resolve().parents[1] / "data" / "cases" / name).read_text())["record"]


def test_a_pot_is_refused_in_a_ruleset_without_litige():
    """RULES.md §6.2/§6.3: only a litige ruleset (all-trumps) carries a pot; a classic record
    with a pot was scored with it added. Refused, naming the field; all-trumps takes it."""
    from referee.rules import RecordError, parse_record

    for ruleset in ("classic", "strict", "two-player"):
        with pytest.raises(RecordError, match=f"pot: {ruleset} has no litige"):
            parse_record({**_first_case(ruleset), "pot": 10})
    assert parse_record({**_first_case("all-trumps"), "pot": 10}).pot == 10


def _first_case(ruleset: str) -> dict:
    import json
    from pathlib import Path

    path = sorted((Path(__file__).resolve().parents[1] / "data" / "cases" / ruleset).glob("*.json"))[0]
    return json.loads(path.read_text())["record"]


def test_an_empty_declaration_is_nothing_declared_from_any_seat():
    """`"declare": []` before a seat's first card means nothing declared, for every seat —
    also one whose hand holds nothing to declare (it was refused for those only, so the
    answer told whether a hidden hand held a declaration). The score is the record's without it."""
    from referee.rules import parse_record, replay

    rec = _case_record("classic/made_81_81.json")
    want = replay(parse_record(rec)).outcome().score
    actions, seen = [], set()
    for a in rec["actions"]:
        if "card" in a and a["seat"] not in seen:
            seen.add(a["seat"])
            actions.append({"seat": a["seat"], "declare": []})
        actions.append(a)
    assert len(seen) == 4
    assert replay(parse_record({**rec, "actions": actions})).outcome().score == want
