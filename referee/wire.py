"""Conversion between the rules engine and the bot protocol (belote.bot.v1).

The only module of the referee that knows the generated protobuf classes.
Suits map to ``Suit`` enum values ``suit + 1``, ranks to ``rank + 7`` (so
``RANK_SEVEN == 7`` … ``RANK_ACE == 14``).
"""

from __future__ import annotations

import json

from belote_arena_sdk.proto import bot_pb2 as pb
from referee.rules import (
    Bid, BidKind, Call, CallKind, Declare, Exchange, NameTrump, Observation, Play, SchmeissAnswer,
)
from referee.rules.actions import PLAYS, Action
from referee.rules.cards import CARDS, Card, Suit
from referee.rules.declarations import Declaration
from referee.rules.deal import Phase

PROTOCOL_VERSION = "1.0"

_BID_KIND = {
    BidKind.PASS: pb.BID_KIND_PASS,
    BidKind.TAKE: pb.BID_KIND_TAKE,
    BidKind.ALL_TRUMPS: pb.BID_KIND_ALL_TRUMPS,
    BidKind.NO_TRUMPS: pb.BID_KIND_NO_TRUMPS,
    BidKind.SCHMEISS: pb.BID_KIND_SCHMEISS,
}
_BID_KIND_BACK = {v: k for k, v in _BID_KIND.items()}
_PHASE = {
    Phase.BIDDING: pb.PHASE_BIDDING,
    Phase.SCHMEISS_ANSWER: pb.PHASE_SCHMEISS_ANSWER,
    Phase.NAME_TRUMP: pb.PHASE_NAME_TRUMP,
    Phase.DECLARATION: pb.PHASE_DECLARATION,
    Phase.EXCHANGE: pb.PHASE_EXCHANGE,
    Phase.PLAY: pb.PHASE_PLAY,
    Phase.CONTREE: pb.PHASE_CONTREE,
    Phase.DONE: pb.PHASE_UNSPECIFIED,
}
_CALL_KIND = {
    CallKind.PASS: pb.CONTREE_CALL_KIND_PASS,
    CallKind.CONTRE: pb.CONTREE_CALL_KIND_CONTRE,
    CallKind.SURCONTRE: pb.CONTREE_CALL_KIND_SURCONTRE,
}
_CALL_KIND_BACK = {v: k for k, v in _CALL_KIND.items()}
_TRUMP_MODE = {"suit": pb.TRUMP_MODE_SUIT, "all-trumps": pb.TRUMP_MODE_ALL_TRUMPS, "no-trumps": pb.TRUMP_MODE_NO_TRUMPS}
_ACTION_FOR_PHASE = {
    Phase.BIDDING: "bid",
    Phase.SCHMEISS_ANSWER: "schmeiss_answer",
    Phase.NAME_TRUMP: "name_trump",
    Phase.DECLARATION: "declaration",
    Phase.EXCHANGE: "exchange",
    Phase.PLAY: "play",
    Phase.CONTREE: "call",
}


class MalformedAction(ValueError):
    """An answer that is not a readable action (empty, unknown enum value, bad card)."""


class WrongKind(ValueError):
    """A readable action of another kind than the decision asked for."""


def card_pb(c: int) -> pb.Card:
    return pb.Card(suit=(c >> 3) + 1, rank=(c & 7) + 7)


_CARD_PB = tuple(card_pb(c) for c in range(32))
"""Every card's message, built once: message constructors and ``extend`` copy it
(cheaper than building a new one); never hand these out or mutate them."""


def card_from_pb(c: pb.Card) -> Card:
    if not 1 <= c.suit <= 4 or not 7 <= c.rank <= 14:
        raise MalformedAction(f"not a card: suit={c.suit} rank={c.rank}")
    return CARDS[(c.suit - 1) * 8 + c.rank - 7]


def _suit_from_pb(s: int) -> Suit:
    if not 1 <= s <= 4:
        raise MalformedAction(f"not a suit: {s}")
    return Suit(s - 1)


def _declaration_kind(d_length: int, is_carre: bool) -> int:
    if is_carre:
        return pb.DECLARATION_KIND_CARRE
    return {3: pb.DECLARATION_KIND_TIERCE, 4: pb.DECLARATION_KIND_QUARTE, 5: pb.DECLARATION_KIND_QUINTE}.get(
        d_length, pb.DECLARATION_KIND_SEQUENCE
    )


_ACTION_PB: dict[tuple[Action, int], pb.Action] = {}
"""Action messages of plays and bids by (action, turned suit), built once like :data:`_CARD_PB`."""


def action_pb(action: Action, turned_suit: int) -> pb.Action:
    """The protocol form of an engine action (a round-1 take names the turned suit).

    Plays and bids (most of a request's legal actions) come from a cache: the message
    returned may be shared, so copy it into another message, never change it."""
    if isinstance(action, (Play, Bid)):
        key = (action, turned_suit)
        msg = _ACTION_PB.get(key)
        if msg is None:
            msg = _ACTION_PB[key] = _action_pb(action, turned_suit)
        return msg
    return _action_pb(action, turned_suit)


def _action_pb(action: Action, turned_suit: int) -> pb.Action:
    if isinstance(action, Play):
        return pb.Action(play=pb.PlayCard(card=_CARD_PB[action.card], belote=action.belote))
    if isinstance(action, Bid):
        suit = 0
        if action.kind is BidKind.TAKE:
            suit = (action.trump if action.trump is not None else turned_suit) + 1
        return pb.Action(bid=pb.Bid(kind=_BID_KIND[action.kind], suit=suit))
    if isinstance(action, Declare):
        return pb.Action(declaration=pb.DeclarationChoice(declarations=[
            pb.Declaration(kind=_declaration_kind(d.length, d.is_carre), length=d.length,
                           cards=[_CARD_PB[c] for c in d.cards])
            for d in action.declarations
        ]))
    if isinstance(action, SchmeissAnswer):
        kind = pb.SCHMEISS_ANSWER_KIND_ACCEPT if action.accept else pb.SCHMEISS_ANSWER_KIND_REFUSE
        return pb.Action(schmeiss_answer=pb.SchmeissAnswer(kind=kind))
    if isinstance(action, NameTrump):
        return pb.Action(name_trump=pb.NameTrump(suit=action.trump + 1))
    if isinstance(action, Exchange):
        return pb.Action(exchange=pb.ExchangeChoice(exchange=action.exchange))
    if isinstance(action, Call):
        return pb.Action(call=pb.ContreeCall(kind=_CALL_KIND[action.kind]))
    raise TypeError(f"not an action: {action!r}")


def action_from_pb(msg: pb.Action, phase: Phase, turned_suit: int, round_takes_turned: bool) -> Action:
    """Read a bot's answer as an engine action for a decision of ``phase``.

    Raises:
        MalformedAction: nothing set, or a value outside its enum / not a card.
        WrongKind: an action of another kind than ``phase`` asks for.
    """
    which = msg.WhichOneof("kind")
    if which is None:
        raise MalformedAction("the answer holds no action")
    if which != _ACTION_FOR_PHASE.get(phase):
        raise WrongKind(f"answered {which} to a {phase.value} decision")
    if which == "play":
        return PLAYS[card_from_pb(msg.play.card)][bool(msg.play.belote)]
    if which == "bid":
        kind = _BID_KIND_BACK.get(msg.bid.kind)
        if kind is None:
            raise MalformedAction(f"unknown bid kind {msg.bid.kind}")
        if kind is not BidKind.TAKE:
            return Bid(kind)
        suit = _suit_from_pb(msg.bid.suit)
        if round_takes_turned and suit == turned_suit:
            return Bid(BidKind.TAKE)
        return Bid(BidKind.TAKE, suit)
    if which == "declaration":
        decls = []
        for d in msg.declaration.declarations:
            try:
                decls.append(Declaration.parse([str(card_from_pb(c)) for c in d.cards]))
            except ValueError as e:
                raise MalformedAction(str(e)) from None
        return Declare(tuple(sorted(decls, key=lambda d: d.cards)))
    if which == "schmeiss_answer":
        if msg.schmeiss_answer.kind not in (pb.SCHMEISS_ANSWER_KIND_ACCEPT, pb.SCHMEISS_ANSWER_KIND_REFUSE):
            raise MalformedAction(f"unknown schmeiss answer {msg.schmeiss_answer.kind}")
        return SchmeissAnswer(msg.schmeiss_answer.kind == pb.SCHMEISS_ANSWER_KIND_ACCEPT)
    if which == "name_trump":
        return NameTrump(_suit_from_pb(msg.name_trump.suit))
    if which == "call":
        kind = _CALL_KIND_BACK.get(msg.call.kind)
        if kind is None:
            raise MalformedAction(f"unknown contree call kind {msg.call.kind}")
        return Call(kind)
    return Exchange(bool(msg.exchange.exchange))


def ruleset_options_pb(ruleset, *, board_count: int = 0) -> pb.RulesetOptions:
    """The protocol's ruleset options; ``board_count`` > 0 for a board match (then no target)."""
    values = {k: json.dumps(v) for k, v in ruleset.options().items() if k != "name"}
    return pb.RulesetOptions(
        seat_count=ruleset.seats,
        trick_count=ruleset.tricks,
        target_score=0 if board_count else ruleset.target,
        board_count=board_count,
        declarations_enabled=ruleset.declarations is not None,
        values=values,
        contree=ruleset.contree,
    )


_PLAYED_PB: dict[tuple[int, int, bool, bool], pb.PlayedCard] = {}
"""PlayedCard messages by (seat, card, belote, rebelote), built once like :data:`_CARD_PB`."""


def _played(seat: int, card: int, belote: bool = False, rebelote: bool = False) -> pb.PlayedCard:
    """The shared message of a played card: only ever copied into another message."""
    key = (seat, card, belote, rebelote)
    msg = _PLAYED_PB.get(key)
    if msg is None:
        msg = _PLAYED_PB[key] = pb.PlayedCard(seat=seat, card=_CARD_PB[card], belote=belote, rebelote=rebelote)
    return msg


def _trick_number(obs: Observation) -> int:
    in_play = obs.phase is Phase.PLAY or (
        obs.phase is Phase.DECLARATION and obs.ruleset.declarations.during_first_trick
    )
    return len(obs.tricks) + 1 if in_play else 0


def observation_pb(obs: Observation, *, options: pb.RulesetOptions, deal_number: int = 1,
                   out: pb.Observation | None = None) -> pb.Observation:
    """The protocol form of :class:`~referee.rules.Observation` (RULES.md §9): nothing added.

    ``out``: an empty message to fill in place (e.g. ``request.observation``: building the
    observation inside its request saves copying ~1.4 KB into it, about a third of the
    time of building it); returned.
    """
    turned_suit = obs.turned_card >> 3
    played = [_played(s, c, b, r) for s, c, b, r in obs.plays]
    played_by = {(p[0], p[1]): msg for p, msg in zip(obs.plays, played)}  # the tricks repeat these
    bids = []
    rnd = 1
    n_pass = 0
    for seat, a in obs.bids:
        ev = pb.BidEvent(seat=seat, round=rnd)
        if isinstance(a, Bid):
            ev.bid.CopyFrom(action_pb(a, turned_suit).bid)
            if a.kind is BidKind.PASS:
                n_pass += 1
                if n_pass == obs.ruleset.seats:
                    rnd, n_pass = rnd + 1, 0
        elif isinstance(a, SchmeissAnswer):
            ev.schmeiss_answer.CopyFrom(action_pb(a, turned_suit).schmeiss_answer)
        else:
            ev.name_trump.CopyFrom(action_pb(a, turned_suit).name_trump)
        bids.append(ev)
    if out is None:
        out = pb.Observation()
    out.ruleset = obs.ruleset.name
    out.options.CopyFrom(options)
    out.seat = obs.seat
    out.team = obs.team
    out.dealer = obs.dealer
    out.eldest = obs.eldest
    out.phase = _PHASE[obs.phase]
    out.bidding_round = obs.bidding_round + 1 if obs.taker is None else bids[-1].round if bids else 1
    out.scores.extend(obs.scores)
    out.litige_pot = obs.pot
    out.hand_cards.extend(_CARD_PB[c] for c in obs.hand)
    out.turned_card.CopyFrom(_CARD_PB[obs.turned_card])
    out.turned_card_on_table = obs.turned_card_on_table
    out.bids.extend(bids)
    out.trump_mode = _TRUMP_MODE[obs.trump_mode.value] if obs.trump_mode is not None else 0
    out.trump_suit = obs.trump + 1 if obs.trump is not None else 0
    out.declarations.extend(
        pb.DeclarationEvent(
            seat=d.seat, kind=_declaration_kind(d.length, d.kind.startswith("carré")), length=d.length,
            points=d.points, top_rank=d.top + 7 if d.top is not None else 0, cards=[_CARD_PB[c] for c in d.cards],
        )
        for d in obs.declarations
    )
    out.calls.extend(pb.ContreeCallEvent(seat=seat, kind=_CALL_KIND[c.kind]) for seat, c in obs.calls)
    out.multiplier = obs.multiplier
    out.played_cards.extend(played)
    out.tricks.extend(
        pb.Trick(leader=t.leader, cards=[played_by[sc] for sc in t.cards], winner=t.winner, points=t.points)
        for t in obs.tricks
    )
    out.trick_number = _trick_number(obs)
    out.deal_number = deal_number
    if obs.taker is not None:
        out.taker = obs.taker
    if obs.exchanged_by is not None:
        # after the exchange the card on the table is the 7 of trump; the exchanger took the turned card
        out.exchange.CopyFrom(pb.ExchangeEvent(
            seat=obs.exchanged_by, trump_seven=card_pb(obs.turned_card), turned_card=card_pb(obs.exchange_taken)))
    if obs.trick:
        cur = out.current_trick
        cur.leader = obs.trick[0][0]
        cur.cards.extend(played_by[sc] for sc in obs.trick)
        cur.winner = obs.master
    return out
