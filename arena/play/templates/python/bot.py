"""A Belote Arena bot in Python: follows suit with the lowest winning card, otherwise the cheapest.

The server, the readiness line and GetBotInfo (from bot.toml) are the SDK's
(``belote_arena_sdk``); this file holds only the decisions. Change ``decide``:
it gets the seat's whole observation and every legal action (docs/PROTOCOL.md
§4-§5) and returns one of the legal actions, unchanged.

It plays every ruleset (classic, strict, all-trumps, two-player) and option:
- bidding: takes a suit when it holds its jack and at least three cards of it
  (counting the turned card it would pick up); never all-trumps, no-trumps or
  schmeiss; otherwise passes;
- play: leads its strongest card; follows with the lowest card that wins the
  trick, otherwise the cheapest; always announces belote;
- declarations: the choice listing the most cards; the two-player exchange: yes;
  a schmeiss: refused; contrée calls: pass; naming a trump: its longest suit.

Run: ``python bot.py --listen /tmp/mybot/bot.sock``.
"""

from __future__ import annotations

from belote_arena_sdk import Bot, Trump, legal_cards, pb, play_of, serve


def first(request: pb.DecideRequest, want) -> pb.Action:
    """The first legal action for which ``want`` is true, else the first legal action."""
    return next((a for a in request.legal_actions if want(a)), request.legal_actions[0])


def bid(request: pb.DecideRequest) -> pb.Action:
    obs = request.observation
    for a in request.legal_actions:
        if a.bid.kind != pb.BID_KIND_TAKE:
            continue
        suit = [c for c in obs.hand_cards if c.suit == a.bid.suit]
        length = len(suit) + (obs.turned_card.suit == a.bid.suit)
        if any(c.rank == pb.RANK_JACK for c in suit) and length >= 3:
            return a
    return first(request, lambda a: a.bid.kind == pb.BID_KIND_PASS)


def play(request: pb.DecideRequest) -> pb.Action:
    obs = request.observation
    trump = Trump.of(obs)
    trick = obs.current_trick
    # the card now winning the trick; None when we lead
    winning = next((p.card for p in trick.cards if p.seat == trick.winner), None) if trick.HasField("winner") else None

    def key(c: pb.Card) -> tuple:  # the order of preference: smaller first
        if winning is None:  # we lead: our strongest card
            return (-trump.strength(c), -trump.points(c))
        if trump.beats(c, winning, winning.suit):  # the lowest card that wins the trick
            return (0, trump.is_trump(c), trump.strength(c))
        return (1, trump.points(c), trump.strength(c))  # otherwise the cheapest

    best = min(legal_cards(request.legal_actions), key=key)
    return play_of(request.legal_actions, best, belote=True)  # belote announced when it is listed


class StarterBot(Bot):
    """One method to write: ``decide``. ``self.rng`` is a seeded ``random.Random``."""

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        phase = request.observation.phase
        if phase == pb.PHASE_BIDDING:
            return bid(request)
        if phase == pb.PHASE_PLAY:
            return play(request)
        if phase == pb.PHASE_DECLARATION:  # the choice listing the most cards
            return max(request.legal_actions, key=lambda a: sum(len(d.cards) for d in a.declaration.declarations))
        if phase == pb.PHASE_NAME_TRUMP:  # our longest suit
            hand = request.observation.hand_cards
            return max(request.legal_actions, key=lambda a: sum(c.suit == a.name_trump.suit for c in hand))
        if phase == pb.PHASE_SCHMEISS_ANSWER:
            return first(request, lambda a: a.schmeiss_answer.kind == pb.SCHMEISS_ANSWER_KIND_REFUSE)
        if phase == pb.PHASE_EXCHANGE:
            return first(request, lambda a: a.exchange.exchange)
        if phase == pb.PHASE_CONTREE:
            return first(request, lambda a: a.call.kind == pb.CONTREE_CALL_KIND_PASS)
        return request.legal_actions[0]  # a phase added after this bot was written: always allowed


if __name__ == "__main__":
    raise SystemExit(serve(StarterBot()))
