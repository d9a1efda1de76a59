"""Test bot 'illegal': answers chosen play decisions with a card that is not legal.

``python bot.py [--how unheld|held] [--deals 2,3] [--nth N] [--every]``
(tests/bots/README.md). ``unheld`` (default) plays a card it does not hold;
``held`` one it holds that the rules forbid now; then only the play decisions where it
holds such a card are counted by ``--nth`` (whatever the random play before, it misbehaves
the held way). Only play decisions misbehave (the first at or after the ``--nth`` asked
decision); others are legal.
The referee should record an ``illegal`` fault and play the fallback.
"""

from __future__ import annotations

import argparse

from belote_arena_sdk import RANKS, SUITS, Bot, card_key, legal_cards, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


class IllegalBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger, self.how = Trigger(args, phases=(pb.PHASE_PLAY,)), args.how

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        hand = {card_key(c) for c in request.observation.hand_cards}
        legal = {card_key(c) for c in legal_cards(request.legal_actions)}
        held_not_legal = sorted(hand - legal)
        playing = request.observation.phase == pb.PHASE_PLAY
        if self.how == "held" and not (playing and held_not_legal):  # not a decision that counts
            return self.rng.choice(request.legal_actions)
        if not self.trigger(request):
            return self.rng.choice(request.legal_actions)
        if self.how == "held" and held_not_legal:
            suit, rank = held_not_legal[0]
        else:
            suit, rank = next((s, r) for s in SUITS for r in RANKS if (s, r) not in hand)
        return pb.Action(play=pb.PlayCard(card=pb.Card(suit=suit, rank=rank)))


if __name__ == "__main__":
    args, rest = parse_args(lambda p: p.add_argument("--how", choices=("unheld", "held"), default="unheld"))
    raise SystemExit(serve(IllegalBot(args), rest))
