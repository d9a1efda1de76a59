"""Hand-built DecideRequests for bot tests, from card and action text.

    request(observation(hand="JH 9H AS", trump="H", current=(1, "KS")), ["play AS", "play JH"])

Seats follow RULES.md §1: the card after seat ``s`` in a trick is played by
``(s + 1) % seat_count``. Completed tricks get their winner and points from the
SDK's card order, which the SDK's own tests check against RULES.md §2.
"""

from __future__ import annotations

from collections.abc import Sequence

from belote_arena_sdk.proto import bot_pb2 as pb
from belote_arena_sdk import Trump, card, cards, parse_action

_SUIT = {"S": pb.SUIT_SPADES, "H": pb.SUIT_HEARTS, "D": pb.SUIT_DIAMONDS, "C": pb.SUIT_CLUBS}
SEATS = {"classic": 4, "strict": 4, "all-trumps": 4, "two-player": 2}


def trump_of(text: str | None) -> Trump:
    """``"H"`` -> hearts trump; ``"all-trumps"``, ``"no-trumps"``; ``None`` -> not known yet."""
    if text is None:
        return Trump(pb.TRUMP_MODE_UNSPECIFIED)
    if text == "all-trumps":
        return Trump.all_trumps()
    if text == "no-trumps":
        return Trump.no_trumps()
    return Trump.suit_mode(_SUIT[text])


def _played(leader: int, text: str, seats: int) -> list[pb.PlayedCard]:
    return [pb.PlayedCard(seat=(leader + i) % seats, card=c) for i, c in enumerate(cards(text))]


def observation(
    ruleset: str = "classic",
    *,
    seat: int = 0,
    dealer: int = 3,
    phase: int = pb.PHASE_PLAY,
    hand: str = "",
    turned: str = "7D",
    turned_on_table: bool = False,
    trump: str | None = None,
    taker: int | None = None,
    bidding_round: int = 1,
    tricks: Sequence[tuple[int, str]] = (),
    current: tuple[int, str] | None = None,
    scores: Sequence[int] = (0, 0),
) -> pb.Observation:
    """An observation of ``seat``. ``tricks``: completed tricks as ``(leader, "AS KS QS JS")``;
    ``current``: the trick in progress as ``(leader, "AS")``."""
    seats = SEATS[ruleset]
    t = trump_of(trump)
    obs = pb.Observation(
        ruleset=ruleset,
        options=pb.RulesetOptions(seat_count=seats, trick_count=8 if seats == 4 else 9, board_count=1,
                                  declarations_enabled=ruleset != "all-trumps"),
        seat=seat,
        team=seat % 2,
        dealer=dealer,
        eldest=(dealer + 1) % seats,
        phase=phase,
        bidding_round=bidding_round,
        scores=list(scores),
        hand_cards=cards(hand),
        turned_card=card(turned),
        turned_card_on_table=turned_on_table,
        trump_mode=t.mode,
        trump_suit=t.suit,
        deal_number=1,
    )
    if taker is not None:
        obs.taker = taker
    for i, (leader, text) in enumerate(tricks):
        played = _played(leader, text, seats)
        win = played[t.master(played) or 0].seat
        pts = t.trick_points(played)
        obs.tricks.append(pb.Trick(leader=leader, cards=played, winner=win, points=pts))
        obs.played_cards.extend(played)
    if current is not None:
        played = _played(current[0], current[1], seats)
        obs.current_trick.leader = current[0]
        obs.current_trick.cards.extend(played)
        if played:
            obs.current_trick.winner = played[t.master(played) or 0].seat
        obs.played_cards.extend(played)
    if phase == pb.PHASE_PLAY or (phase == pb.PHASE_DECLARATION and seats == 4):
        obs.trick_number = len(obs.tricks) + 1
    return obs


def request(obs: pb.Observation, legal: Sequence[str], *, deadline_ms: int = 1000) -> pb.DecideRequest:
    """A DecideRequest with ``legal`` actions in text form (see ``belote_arena_sdk.actions``)."""
    return pb.DecideRequest(
        observation=obs, legal_actions=[parse_action(a) for a in legal], deadline_ms=deadline_ms
    )


def plays(hand: str, belote: Sequence[str] = ()) -> list[str]:
    """``play`` actions for every card of ``hand`` (any card legal, e.g. on a lead), plus
    ``play X belote`` for each card text in ``belote``."""
    return [f"play {c}" for c in hand.split()] + [f"play {c} belote" for c in belote]
