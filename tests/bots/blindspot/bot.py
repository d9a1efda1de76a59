"""Test bot 'blindspot': plays at random, but gets one kind of decision wrong (issue 24 item 4).

``python bot.py [--ruleset NAME] [--phase PHASE] [--surcontre]`` (tests/bots/README.md): every
decision of ruleset ``NAME`` (e.g. ``two-player``), of phase ``PHASE`` (the proto's name without
``PHASE_``, e.g. ``DECLARATION``), or (``--surcontre``) the surcontre call is answered with
an action of another kind (a pass bid; a card where a bid is asked): a ``wrong-kind`` fault.
Everything else is answered legally, so a check that never asks the blind spot passes it.
"""

from __future__ import annotations

import argparse
import sys

from belote_arena_sdk import Bot, pb, serve


class BlindspotBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.args = args

    def blind(self, request: pb.DecideRequest) -> bool:
        obs, a = request.observation, self.args
        if a.ruleset and obs.ruleset == a.ruleset:
            return True
        if a.phase and obs.phase == pb.Phase.Value("PHASE_" + a.phase):
            return True
        return a.surcontre and obs.phase == pb.PHASE_CONTREE and obs.multiplier == 2

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.blind(request):
            if request.observation.phase == pb.PHASE_BIDDING:
                return pb.Action(play=pb.PlayCard(card=pb.Card(suit=pb.SUIT_SPADES, rank=pb.RANK_ACE)))
            return pb.Action(bid=pb.Bid(kind=pb.BID_KIND_PASS))
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ruleset", default="")
    parser.add_argument("--phase", default="")
    parser.add_argument("--surcontre", action="store_true")
    args, rest = parser.parse_known_args(sys.argv[1:])
    raise SystemExit(serve(BlindspotBot(args), rest))
