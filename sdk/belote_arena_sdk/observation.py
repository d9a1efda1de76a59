"""Facts a bot derives from its observation: seat count, outstanding cards, known voids.

Each function reads only a ``pb.Observation`` (RULES.md §9), so it knows what
the seat knows and nothing more.
"""

from __future__ import annotations

from belote_arena_sdk.proto import bot_pb2 as pb

from .cards import RANKS, SUITS, Trump, card_key, team_of

_TWO_PLAYER_RULESETS = frozenset({"two-player"})


def seat_count(obs: pb.Observation) -> int:
    """Seats at the table, 4 or 2: ``options.seat_count``, else guessed from the ruleset's name."""
    if obs.options.seat_count:
        return obs.options.seat_count
    return 2 if obs.ruleset in _TWO_PLAYER_RULESETS else 4


def is_partner(obs: pb.Observation, seat: int) -> bool:
    """Whether ``seat`` is the observing seat's partner (never with two players)."""
    return seat_count(obs) == 4 and seat != obs.seat and team_of(seat) == obs.team


def outstanding_cards(obs: pb.Observation) -> list[pb.Card]:
    """Cards another seat may still hold: not in the own hand, not played, not face
    up on the table (two players: the turned card, or after an exchange the 7 of
    trump). In four-player games a turned card picked up by the taker counts as
    outstanding (the taker holds it until it is played)."""
    gone = {card_key(c) for c in obs.hand_cards}
    gone.update(card_key(p.card) for p in obs.played_cards)
    if obs.turned_card_on_table:
        gone.add(card_key(obs.turned_card))
    if obs.HasField("exchange"):
        gone.add(card_key(obs.exchange.trump_seven))
    return [pb.Card(suit=s, rank=r) for s in SUITS for r in RANKS if (s, r) not in gone]


def _trick_voids(trick: pb.Trick, trump: Trump, seats: int, voids: dict[int, set[int]]) -> None:
    cards = trick.cards
    if not cards:
        return
    led = cards[0].card.suit
    for i in range(1, len(cards)):
        p = cards[i]
        if p.card.suit == led:
            continue
        voids[p.seat].add(led)
        # Unable to follow in suit mode with no trump yet in the trick: a seat must
        # trump when it holds one (two players always, §7; four players when an
        # opponent is master, §5.3). Not trumping then shows a void in trumps.
        if trump.mode != pb.TRUMP_MODE_SUIT or trump.is_trump(p.card):
            continue
        if any(trump.is_trump(q.card) for q in cards[:i]):
            continue
        best = trump.master(cards[:i])
        master = cards[best if best is not None else 0].seat
        if seats == 2 or team_of(master) != team_of(p.seat):
            voids[p.seat].add(trump.suit)


def known_voids(obs: pb.Observation) -> dict[int, set[int]]:
    """For each seat, the suits (``pb.Suit`` numbers) it is known not to hold, from
    the tricks played: a seat that did not follow the led suit is void in it, and in
    suit mode one that then did not trump when it had to is void in trumps.
    Empty sets before any card is played; the observing seat is included."""
    seats = seat_count(obs)
    voids: dict[int, set[int]] = {s: set() for s in range(seats)}
    trump = Trump.of(obs)
    for trick in obs.tricks:
        _trick_voids(trick, trump, seats, voids)
    _trick_voids(obs.current_trick, trump, seats, voids)
    return voids


def master_seat(obs: pb.Observation) -> int | None:
    """The seat currently winning the trick in progress (its *master*); ``None`` when it is empty."""
    cards = obs.current_trick.cards
    i = Trump.of(obs).master(cards)
    return None if i is None else cards[i].seat
