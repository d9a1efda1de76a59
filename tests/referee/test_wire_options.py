"""RULES.md §6.4 in the protocol (belote.bot.v1): the contrée calls as PHASE_CONTREE decisions,
the options and the calls in the observation, and the fallback for a bot that does not know them."""

from __future__ import annotations

import pytest

from belote_arena_sdk.proto import bot_pb2 as pb
from referee import wire
from referee.rules import CARDS, Bid, BidKind, Call, CallKind, DealState, Phase, get_ruleset, observe


def _at_calls(ruleset, takes=0, dealer=3):
    state = DealState(ruleset, list(CARDS), dealer)
    while state.to_act != takes:
        state.apply_checked(state.to_act, Bid(BidKind.PASS))
    state.apply_checked(takes, Bid(BidKind.TAKE))
    return state


@pytest.mark.parametrize("kind,pb_kind", [(CallKind.PASS, pb.CONTREE_CALL_KIND_PASS),
                                          (CallKind.CONTRE, pb.CONTREE_CALL_KIND_CONTRE),
                                          (CallKind.SURCONTRE, pb.CONTREE_CALL_KIND_SURCONTRE)])
def test_calls_round_trip(kind, pb_kind):
    msg = wire.action_pb(Call(kind), 0)
    assert msg.WhichOneof("kind") == "call" and msg.call.kind == pb_kind
    assert wire.action_from_pb(msg, Phase.CONTREE, 0, False) == Call(kind)


def test_a_call_of_unknown_kind_is_malformed_and_another_kind_is_wrong_kind():
    with pytest.raises(wire.MalformedAction, match="unknown contree call kind 9"):
        wire.action_from_pb(pb.Action(call=pb.ContreeCall(kind=9)), Phase.CONTREE, 0, False)
    # a bot that knows only the older phases and answers "pass" as a bid: a wrong-kind fault,
    # and the referee plays the fallback, the first legal action
    with pytest.raises(wire.WrongKind, match="answered bid to a contree decision"):
        wire.action_from_pb(pb.Action(bid=pb.Bid(kind=pb.BID_KIND_PASS)), Phase.CONTREE, 0, False)


def test_the_fallback_of_every_call_is_pass():
    """The referee's fallback (the first legal action) never doubles (§6.4)."""
    state = _at_calls(get_ruleset("classic", contree=True), takes=2)
    state.apply_checked(3, Call(CallKind.CONTRE))
    for _ in range(2):
        assert state.phase is Phase.CONTREE and state.legal_actions()[0] == Call(CallKind.PASS)
        state.apply(state.legal_actions()[0])
    assert state.multiplier == 2 and state.phase is not Phase.CONTREE


def test_the_observation_carries_the_options_the_phase_and_the_calls():
    rules = get_ruleset("strict", contree=True, declarations=False)
    options = wire.ruleset_options_pb(rules, board_count=4)
    assert options.contree and not options.declarations_enabled
    assert options.values["contree"] == "true" and options.values["declarations"] == "null"
    state = _at_calls(rules, takes=0)
    state.apply_checked(1, Call(CallKind.CONTRE))
    obs = wire.observation_pb(observe(state, 0), options=options)
    assert obs.phase == pb.PHASE_CONTREE and obs.options.contree
    assert [(c.seat, c.kind) for c in obs.calls] == [(1, pb.CONTREE_CALL_KIND_CONTRE)]
    assert obs.multiplier == 2 and obs.taker == 0
    plain = wire.ruleset_options_pb(get_ruleset("classic"))
    assert not plain.contree and plain.declarations_enabled


def _old_action_class():
    """pb.Action as generated before the calls: the same file without Action field 7 (``call``)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    fd = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(fd)
    fd.name = "old_bot.proto"
    fd.package = "old.belote.bot.v1"
    action = next(m for m in fd.message_type if m.name == "Action")
    kept = [f for f in action.field if f.number != 7]
    del action.field[:]
    action.field.extend(kept)
    for m in fd.message_type:  # point the type names at the renamed package
        for f in m.field:
            if f.type_name:
                f.type_name = f.type_name.replace(".belote.bot.v1.", ".old.belote.bot.v1.")
    for svc in fd.service:
        for meth in svc.method:
            meth.input_type = meth.input_type.replace(".belote.bot.v1.", ".old.belote.bot.v1.")
            meth.output_type = meth.output_type.replace(".belote.bot.v1.", ".old.belote.bot.v1.")
    pool = descriptor_pool.DescriptorPool()
    return message_factory.GetMessageClass(pool.Add(fd).message_types_by_name["Action"])


def test_a_bot_built_before_the_calls_answers_them_by_echoing_a_legal_action():
    """A bot whose generated code predates Action field 7 keeps it as an unknown field: echoing a
    legal action unchanged (as the protocol asks, e.g. its first one) still answers the call."""
    OldAction = _old_action_class()
    assert "call" not in OldAction.DESCRIPTOR.fields_by_name
    legal = wire.action_pb(Call(CallKind.PASS), 0)
    seen_by_old_bot = OldAction.FromString(legal.SerializeToString())
    assert seen_by_old_bot.WhichOneof("kind") is None  # the old bot cannot see what it is
    answer = pb.Action.FromString(seen_by_old_bot.SerializeToString())
    assert wire.action_from_pb(answer, Phase.CONTREE, 0, False) == Call(CallKind.PASS)
