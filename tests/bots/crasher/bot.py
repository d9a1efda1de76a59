"""Test bot 'crasher': exits abruptly (``os._exit(3)``) in the middle of chosen decisions.

``python bot.py [--deals 2,3] [--nth N] [--every]`` (tests/bots/README.md).
The referee should record a ``crash`` fault, play the fallback and start a
new process for the seat at its next decision.
"""

from __future__ import annotations

import argparse
import os
import sys

from belote_arena_sdk import Bot, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


class CrasherBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            print(f"crasher: exiting at deal {request.observation.deal_number}", file=sys.stderr, flush=True)
            os._exit(3)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    args, rest = parse_args()
    raise SystemExit(serve(CrasherBot(args), rest))
