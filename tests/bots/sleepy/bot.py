"""Test bot 'sleepy': sleeps past the deadline before answering chosen decisions.

``python bot.py [--sleep S] [--deals 2,3] [--nth N] [--every]`` (tests/bots/README.md).
The referee should record a ``timeout`` fault, play the fallback and restart
this process (a sync bot stuck in its handler is never reused).
"""

from __future__ import annotations

import argparse
import time

from belote_arena_sdk import Bot, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


class SleepyBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger, self.sleep_s = Trigger(args), args.sleep

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            time.sleep(self.sleep_s)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    args, rest = parse_args(lambda p: p.add_argument("--sleep", type=float, default=2.0))
    raise SystemExit(serve(SleepyBot(args), rest))
