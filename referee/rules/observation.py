"""What a seat may know: ``observe(state, seat)`` (RULES.md §9, §6.1 public parts, §7).

The observation holds exactly: the ruleset and its options, the seat and its
team, the dealer and eldest, the scores so far and the litige pot, the seat's
own hand, the turned card (shown face up to everyone, §3.1/§7) and whether it
is still on the table, every bid, the contrée calls (§6.4), the trump mode and
taker once known, the
public part of every declaration, the trump-7 exchange, every card played with
who played it and the belote/rebelote announcements, the finished tricks, the
current trick and the legal actions when it is the seat's turn.  Never another
hand, never the undealt cards, never a board seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action
from .cards import CARDS, Card, Rank, Suit
from .deal import DealState, Phase, Trick
from .ruleset import Ruleset, TrumpMode


@dataclass(frozen=True)
class PublicDeclaration:
    """The public part of one declaration.

    Four players (§6.1): one per declaration as soon as it is made, with its
    ``kind`` (e.g. ``"quarte"``, ``"carré of nines"``), ``length`` and ``points``;
    a carré's rank (``top``) is part of its kind; a sequence's ``top`` and every
    declaration's ``cards`` become public once the first trick is over, and only
    for the team whose declarations scored (else ``None`` / ``()``).
    Two players (§7): one per declaring seat, for its best sequence: its
    ``length`` (and the points that length is worth); ``top`` only when both
    players' best lengths are equal; never the cards.
    """

    seat: int
    kind: str
    length: int
    points: int
    top: Rank | None
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Observation:
    """One seat's view of a deal (RULES.md §9). Scores and points are in points."""

    ruleset: Ruleset
    seat: int
    team: int
    dealer: int
    eldest: int
    phase: Phase
    to_act: int | None
    bidding_round: int
    scores: tuple[int, ...]
    pot: int
    hand: tuple[Card, ...]
    turned_card: Card
    turned_card_on_table: bool
    bids: tuple[tuple[int, Action], ...]
    calls: tuple[tuple[int, Action], ...]
    """the contrée calls so far, in order (§6.4; empty when option contree is off)"""
    multiplier: int
    """1, 2 after a contre, 4 after a surcontre (§6.4)"""
    trump_mode: TrumpMode | None
    trump: Suit | None
    taker: int | None
    declarations: tuple[PublicDeclaration, ...]
    exchanged_by: int | None
    exchange_taken: Card | None
    """the turned card the exchanger took for the 7 of trump (public, §7)"""
    plays: tuple[tuple[int, Card, bool, bool], ...]
    """every card played: (seat, card, belote announced, rebelote)"""
    tricks: tuple[Trick, ...]
    trick: tuple[tuple[int, Card], ...]
    """the current, unfinished trick: (seat, card) in play order"""
    master: int | None
    """the seat whose card wins the current trick so far (``None`` while it is empty)"""
    legal_actions: tuple[Action, ...]
    """the seat's legal actions when it is to act, else ``()``"""


def _public_declarations(state: DealState) -> tuple[PublicDeclaration, ...]:
    rules = state.ruleset.declarations
    if rules is None:
        return ()
    made = [(s, d) for s, d in enumerate(state.declared) if d]
    out = []
    if rules.public_kind:
        reveal = bool(state.tricks)
        for s, decls in made:
            shown = reveal and state.team_of(s) == state.declaration_team
            for d in decls:
                out.append(PublicDeclaration(
                    seat=s, kind=d.kind, length=d.length, points=d.points(rules),
                    top=d.top if (shown or d.is_carre) else None,
                    cards=d.cards if shown else (),
                ))
        return tuple(out)
    best = {s: max(decls, key=lambda d: (d.length, d.top)) for s, decls in made}
    tie = (
        all(d is not None for d in state.declared)
        and len(best) == state.ruleset.seats
        and len({d.length for d in best.values()}) == 1
    )
    for s, d in best.items():
        out.append(PublicDeclaration(
            seat=s, kind=d.kind, length=d.length, points=d.points(rules), top=d.top if tie else None, cards=(),
        ))
    return tuple(out)


def observe(state: DealState, seat: int) -> Observation:
    """Everything ``seat`` may know now, and nothing more (RULES.md §9).

    Raises:
        ValueError: if ``seat`` is not a seat of this deal.
    """
    if not 0 <= seat < state.ruleset.seats:
        raise ValueError(f"seat must be 0..{state.ruleset.seats - 1}, got {seat}")
    done = state.phase is Phase.DONE
    to_act = None if done else state.to_act
    hand_mask = state.hands[seat]
    return Observation(
        ruleset=state.ruleset,
        seat=seat,
        team=state.team_of(seat),
        dealer=state.dealer,
        eldest=state.eldest,
        phase=state.phase,
        to_act=to_act,
        bidding_round=state.bidding_round,
        scores=state.scores,
        pot=state.pot,
        hand=tuple(CARDS[c] for c in range(32) if hand_mask >> c & 1),
        turned_card=state.turned,
        turned_card_on_table=state.turned_on_table,
        bids=tuple(state.bids),
        calls=tuple(state.calls),
        multiplier=state.multiplier,
        trump_mode=state.trump_mode,
        trump=state.trump,
        taker=state.taker,
        declarations=_public_declarations(state),
        exchanged_by=state.exchanged_by,
        exchange_taken=state.exchange_taken,
        plays=tuple(state.plays),
        tricks=tuple(state.tricks),
        trick=tuple(state.trick),
        master=state.master,
        legal_actions=tuple(state.legal_actions()) if to_act == seat else (),
    )
