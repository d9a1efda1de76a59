"""Test bot 'wrongkind': answers a bid (pass) to chosen play decisions.

``python bot.py [--deals 2,3] [--nth N] [--every]`` (tests/bots/README.md).
Only play decisions can trigger; other decisions are answered legally.
The referee should record a ``wrong-kind`` fault and play the fallback.
"""

from __future__ import annotations

import argparse

from belote_arena_sdk import Bot, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


class WrongKindBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args, phases=(pb.PHASE_PLAY,))

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            return pb.Action(bid=pb.Bid(kind=pb.BID_KIND_PASS))
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    args, rest = parse_args()
    raise SystemExit(serve(WrongKindBot(args), rest))
