"""Test bot 'illegal': answers chosen play decisions with a card that is not legal.

``python bot.py [--how unheld|held] [--deals 2,3] [--nth N] [--every]``
(tests/bots/README.md). ``unheld`` (default) plays a card it does not hold;
``held`` one it holds that the rules forbid now (else an unheld one).
Only play decisions misbehave (the first at or after the ``--nth`` asked decision); others are legal.
The referee should record an ``illegal`` fault and play the fallback.
"""

from __future__ import annotations

import argparse

from sample_bots.sdk import RANKS, SUITS, Bot, card_key, legal_cards, pb, serve


class Trigger:
    """When to misbehave (tests/bots/README.md): on asked decisions of ``--deals``
    (``Observation.deal_number``; default all), from the ``--nth`` asked decision
    of a deal counted by this process, only once per deal unless ``--every``."""

    def __init__(self, args: argparse.Namespace, phases: tuple[int, ...] = ()):
        self.deals = None if args.deals == "all" else {int(d) for d in args.deals.split(",")}
        self.nth, self.every, self.phases = args.nth, args.every, phases
        self.deal, self.count, self.fired = None, 0, False

    def __call__(self, request: pb.DecideRequest) -> bool:
        obs = request.observation
        if obs.deal_number != self.deal:
            self.deal, self.count, self.fired = obs.deal_number, 0, False
        self.count += 1
        if self.deals is not None and obs.deal_number not in self.deals:
            return False
        if (self.phases and obs.phase not in self.phases) or self.count < self.nth:
            return False
        if self.fired and not self.every:
            return False
        self.fired = True
        return True


def parse_args(extra=None) -> tuple[argparse.Namespace, list[str]]:
    """This bot's own options; the rest (``--listen``, ``--seed``) go to ``serve``."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--deals", default="all")
    p.add_argument("--nth", type=int, default=1)
    p.add_argument("--every", action="store_true")
    if extra is not None:
        extra(p)
    return p.parse_known_args()


class IllegalBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger, self.how = Trigger(args, phases=(pb.PHASE_PLAY,)), args.how

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if not self.trigger(request):
            return self.rng.choice(request.legal_actions)
        hand = {card_key(c) for c in request.observation.hand_cards}
        legal = {card_key(c) for c in legal_cards(request.legal_actions)}
        held_not_legal = sorted(hand - legal)
        if self.how == "held" and held_not_legal:
            suit, rank = held_not_legal[0]
        else:
            suit, rank = next((s, r) for s in SUITS for r in RANKS if (s, r) not in hand)
        return pb.Action(play=pb.PlayCard(card=pb.Card(suit=suit, rank=rank)))


if __name__ == "__main__":
    args, rest = parse_args(lambda p: p.add_argument("--how", choices=("unheld", "held"), default="unheld"))
    raise SystemExit(serve(IllegalBot(args), rest))
