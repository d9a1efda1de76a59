"""RULES.md §6.4: the options ``declarations`` (on/off) and ``contree`` (contre / surcontre).

Whole deals come from hand-checked case files (tests/data/cases/*/contree_*, *no_declarations*
and the invalid ones); here: the worked example of §6.4, the order of the calls, the
refusals, the record and observation shapes, and random deals per option set.
"""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import (
    CARDS, Bid, BidKind, Call, CallKind, DealState, Declaration, Phase, TrumpMode, get_ruleset, observe,
    parse_option, parse_record, record_of, replay,
)
from referee.rules.scoring import score_deal

from .records import case_record
from .test_properties import check_observations, check_record_round_trip, choose

PASS, CONTRE, SURCONTRE = Call(CallKind.PASS), Call(CallKind.CONTRE), Call(CallKind.SURCONTRE)


# ------------------------------------------------------------------ §6.4 worked example
def _stub(ruleset, *, taker, trick_points, tricks_won, declared, declaration_team, belotes, multiplier):
    return SimpleNamespace(
        ruleset=ruleset, taker=taker, team_of=lambda s: s % 2, declared=declared,
        declaration_team=declaration_team, belotes=belotes, trick_points=list(trick_points),
        tricks_won=list(tricks_won), trump_mode=TrumpMode.SUIT, trump=None, pot=0, multiplier=multiplier,
    )


def test_s6_4_worked_example_doubled_made():
    """§6.4 example (classic, doubled, not redoubled): attackers 90 trick points, defenders 72,
    the attackers' tierce won the comparison, the defenders hold belote → made: attackers
    324 + 20 = 344, defenders 0 + 20 = 20."""
    tierce = Declaration.parse(["7H", "8H", "9H"])
    state = _stub(get_ruleset("classic", contree=True), taker=1, trick_points=(72, 90), tricks_won=(3, 5),
                  declared=[None, (tierce,), (), ()], declaration_team=1, belotes=[(0, None)], multiplier=2)
    out = score_deal(state)
    assert (out.contract, out.score, out.multiplier) == ("made", (20, 344), 2)
    # the same deal undoubled: 90 + 20 = 110 and 72 + 20 = 92 (§6.2)
    state.multiplier = 1
    assert score_deal(state).score == (92, 110)


def test_s6_4_redoubled_dedans_in_strict_rounds_after_everything():
    """§6.4 + §6.2 strict: attackers 76 + tierce 20 = 96 < defenders 86 + belote 20 = 106 → dedans;
    redoubled: defenders 162 x 4 = 648 + every declaration 20 + their belote 20 = 688 → 690; attackers
    keep only their belote: 0."""
    tierce = Declaration.parse(["7D", "8D", "9D"])
    state = _stub(get_ruleset("strict", contree=True), taker=1, trick_points=(86, 76), tricks_won=(5, 3),
                  declared=[None, (tierce,), (), ()], declaration_team=1, belotes=[(2, None)], multiplier=4)
    out = score_deal(state)
    assert (out.contract, out.score) == ("dedans", (690, 0))


# case, multiplier, trick_points, declared per team, declaration team, score (hand-checked, see the case's why)
OPTION_ROWS = [
    ("s6_4_doubled_dedans", "classic/contree_doubled_dedans", 2, (86, 76), (0, 20), 1, (324, 20)),
    ("s6_4_redoubled_capot", "classic/contree_redoubled_capot", 4, (162, 0), (50, 20), 0, (1058, 0)),
    ("s6_4_strict_doubled_rounded", "strict/contree_doubled_made_rounded", 2, (86, 76), (0, 20), 1, (0, 340)),
    ("s6_4_no_declarations", "classic/no_declarations_carres_not_scored", 1, (132, 30), (0, 0), None, (132, 30)),
    ("s6_4_strict_no_declarations", "strict/no_declarations_dedans", 1, (86, 76), (0, 0), None, (160, 0)),
]


@pytest.mark.parametrize("case,multiplier,tp,declared,team,score", [r[1:] for r in OPTION_ROWS],
                         ids=[r[0] for r in OPTION_ROWS])
def test_option_case_outcome_parts(case, multiplier, tp, declared, team, score):
    out = replay(case_record(case)).outcome()
    assert (out.multiplier, out.trick_points, out.declarations, out.declaration_team, out.score) == (
        multiplier, tp, declared, team, score)


# ------------------------------------------------------------------ options as data
def test_options_are_refused_where_s6_4_does_not_allow_them():
    with pytest.raises(ValueError, match=r"all-trumps cannot set contree=on: RULES.md §6.4 allows contree only "
                                         r"in classic, strict"):
        get_ruleset("all-trumps", contree=True)
    with pytest.raises(ValueError, match="two-player cannot set contree=on"):
        get_ruleset("two-player", contree=True)
    with pytest.raises(ValueError, match="all-trumps cannot set declarations=off"):
        get_ruleset("all-trumps", declarations=False)
    assert get_ruleset("two-player", declarations=False).declarations is None
    assert get_ruleset("strict", declarations=False, contree=True).variant_options() == {
        "declarations": "off", "contree": "on"}
    assert get_ruleset("all-trumps").variant_options() == {}
    # switching back on restores the ruleset's own declaration rules
    assert get_ruleset("classic", declarations=False).with_options(declarations=True) == get_ruleset("classic")


@pytest.mark.parametrize("text,want", [("contree=on", ("contree", True)), ("declarations=off", ("declarations", False)),
                                       (" Contree = ON ", ("contree", True))])
def test_parse_option(text, want):
    assert parse_option(text) == want


@pytest.mark.parametrize("text", ["contree", "contree=yes", "doubling=on", "=on"])
def test_parse_option_refuses(text):
    with pytest.raises(ValueError, match="NAME=on or NAME=off with NAME one of declarations, contree"):
        parse_option(text)


def test_record_carries_only_the_options_that_differ_and_reads_them_back():
    record = case_record("classic/contree_redoubled_capot")
    obj = record.to_json()
    assert obj["options"] == {"contree": "on"}
    assert {"seat": 1, "call": "contre"} in obj["actions"] and {"seat": 0, "call": "surcontre"} in obj["actions"]
    assert parse_record(json.loads(json.dumps(obj))).ruleset == get_ruleset("classic", contree=True)
    with pytest.raises(ValueError, match="record option 'contree=maybe'"):
        parse_record({**obj, "options": {"contree": "maybe"}})
    with pytest.raises(ValueError, match="all-trumps cannot set contree=on"):
        parse_record({**obj, "ruleset": "all-trumps"})


# ------------------------------------------------------------------ the calls (§6.4)
def _taken(ruleset, dealer=3, takes=1):
    """A deal of the ordered deck where seat ``takes`` takes in round 1 (eldest = dealer + 1)."""
    state = DealState(ruleset, list(CARDS), dealer)
    while state.to_act != takes:
        state.apply_checked(state.to_act, Bid(BidKind.PASS))
    state.apply_checked(takes, Bid(BidKind.TAKE))
    return state


def test_calls_defenders_from_the_seat_after_the_taker_then_attackers_from_the_taker():
    state = _taken(get_ruleset("classic", contree=True), takes=2)
    assert (state.phase, state.to_act, state.legal_actions()) == (Phase.CONTREE, 3, [PASS, CONTRE])
    state.apply_checked(3, PASS)
    assert state.to_act == 1
    state.apply_checked(1, CONTRE)  # the first contre ends the defenders' calls
    assert (state.to_act, state.legal_actions(), state.multiplier) == (2, [PASS, SURCONTRE], 2)
    state.apply_checked(2, PASS)
    assert state.to_act == 0
    state.apply_checked(0, SURCONTRE)
    assert state.multiplier == 4 and state.phase in (Phase.PLAY, Phase.DECLARATION) and state.to_act == 0
    obs = observe(state, 3)
    assert obs.calls == ((3, PASS), (1, CONTRE), (2, PASS), (0, SURCONTRE)) and obs.multiplier == 4


def test_two_defender_passes_end_the_calls_undoubled():
    state = _taken(get_ruleset("strict", contree=True), takes=0)
    state.apply_checked(1, PASS)
    state.apply_checked(3, PASS)
    assert state.phase is not Phase.CONTREE and state.multiplier == 1 and state.to_act == 0


@pytest.mark.parametrize("calls,message", [
    ([(0, CONTRE)], "seat 0 may not contre: only a defender doubles"),
    ([(1, SURCONTRE)], "seat 1 may not surcontre: nobody has doubled"),
    ([(3, CONTRE)], "seat 3 may not contre: it is seat 1's turn to call"),
    ([(1, CONTRE), (3, CONTRE)], "seat 3 may not contre: the defenders have already doubled"),
    ([(1, CONTRE), (2, SURCONTRE)], "seat 2 may not surcontre: it is seat 0's turn to call"),
    ([(1, PASS), (3, PASS), (0, SURCONTRE)], "nobody has doubled"),
])
def test_illegal_calls_name_the_call_and_s6_4(calls, message):
    state = _taken(get_ruleset("classic", contree=True), takes=0)
    *ok, (seat, bad) = calls
    for s, a in ok:
        state.apply_checked(s, a)
    with pytest.raises(ValueError, match=message) as err:
        state.apply_checked(seat, bad)
    assert "RULES.md §6.4" in str(err.value)


def test_no_calls_without_the_option():
    state = _taken(get_ruleset("classic"), takes=0)
    assert state.phase is not Phase.CONTREE
    with pytest.raises(ValueError, match="option contree is off"):
        state.check(state.to_act, CONTRE)


def test_no_declaration_decisions_when_declarations_are_off():
    """Four jacks and a run in hand still ask nothing: the deal goes from the bid to the cards."""
    for name in ("classic", "strict"):
        state = _taken(get_ruleset(name, declarations=False), takes=1)
        while not state.is_terminal():
            assert state.phase is Phase.PLAY
            state.apply(state.legal_actions()[0])
        assert state.outcome().declarations == (0, 0) and state.outcome().declaration_team is None


# ------------------------------------------------------------------ random deals per option set
OPTION_SETS = [
    ("classic", dict(contree=True)),
    ("classic", dict(declarations=False, contree=True)),
    ("classic", dict(declarations=False)),
    ("strict", dict(contree=True)),
    ("strict", dict(declarations=False, contree=True)),
    ("two-player", dict(declarations=False)),
]
DEALS_PER_OPTION_SET = 10_000


def check_options_outcome(state: DealState) -> None:
    """Points conserved as §6.4 says: the winner of the made/dedans decision scores 162 (252 for
    every trick) x the multiplier, the other team 0 trick points; declarations and belote as in
    §6.2; strict rounds each team to tens after everything."""
    rules, out = state.ruleset, state.outcome()
    if out.contract == "passed":
        assert out.score == (0, 0) and not state.plays and not state.calls
        return
    assert out.multiplier == state.multiplier == {0: 1, 1: 2, 2: 4}[sum(c.kind is not CallKind.PASS
                                                                          for _, c in state.calls)]
    if rules.declarations is None:
        assert out.declarations == (0, 0) and out.declaration_team is None
        assert not any(state.declared) and all(d in (None, ()) for d in state.declared)
    if rules.seats == 2:
        return
    assert sum(out.trick_points) == 162
    att = state.taker % 2
    win = att if out.contract == "made" else 1 - att
    trick_part = (252 if out.capot == win else 162) * out.multiplier
    if out.multiplier == 1 and out.capot is not None:
        trick_part = 252
    belote = sum(out.belote)
    if rules.rounding == 1:
        decl = sum(out.declarations[t] for t in (0, 1) if t == out.declaration_team)
        assert sum(out.score) - decl - belote == trick_part
        if out.multiplier > 1:
            assert out.score[1 - win] == (out.declarations[1 - win] if out.declaration_team == 1 - win else 0) \
                + out.belote[1 - win]
    else:
        decl = sum(out.declarations) if out.contract == "dedans" else sum(
            out.declarations[t] for t in (0, 1) if t == out.declaration_team)
        assert abs(sum(out.score) - (trick_part + decl + belote)) <= 10
        assert all(s % 10 == 0 for s in out.score)


def play_option_deal(ruleset, deck, dealer, rng, *, observe_every=0.0) -> DealState:
    state = DealState(ruleset, deck, dealer)
    turned = {state.turned}
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, f"no legal action in phase {state.phase}"
        assert ruleset.declarations is not None or state.phase is not Phase.DECLARATION
        assert ruleset.contree or state.phase is not Phase.CONTREE
        if observe_every and rng.random() < observe_every:
            check_observations(state, turned)
        action = choose(state, rng, legal)
        assert action in legal
        state.apply(action)
        turned.add(state.turned)
    return state


@pytest.mark.parametrize("name,options", OPTION_SETS,
                         ids=[f"{n}-" + "-".join(f"{k}={'on' if v else 'off'}" for k, v in o.items())
                              for n, o in OPTION_SETS])
def test_random_deals_per_option_set(name, options):
    rules = get_ruleset(name, **options)
    rng = random.Random(f"belote/options/{name}/{sorted(options.items())}")
    multipliers, contracts = set(), set()
    for i in range(DEALS_PER_OPTION_SET):
        deck = list(CARDS)
        rng.shuffle(deck)
        state = play_option_deal(rules, deck, rng.randrange(rules.seats), rng, observe_every=1 / 64)
        check_options_outcome(state)
        if i % 8 == 0:  # the record round trip costs as much as the deal: a sample of 1,250
            check_record_round_trip(state)
        multipliers.add(state.multiplier)
        contracts.add(state.outcome().contract)
    if rules.contree:
        assert multipliers == {1, 2, 4}
    assert {"made", "dedans", "passed"} <= contracts


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(OPTION_SETS) - 1), deck=st.permutations(CARDS), dealer=st.integers(0, 3),
       seed=st.integers(0, 2**32 - 1))
def test_hypothesis_options_any_deck(which, deck, dealer, seed):
    name, options = OPTION_SETS[which]
    rules = get_ruleset(name, **options)
    state = play_option_deal(rules, deck, dealer % rules.seats, random.Random(seed), observe_every=1)
    check_options_outcome(state)
    check_record_round_trip(state)
    again = replay(record_of(state))
    assert again.calls == state.calls
