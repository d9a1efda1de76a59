"""Test bot 'clock': plays a random legal action and notes when each request reached it.

``python bot.py --out DIR`` (tests/bots/README.md). Appends to ``DIR/<pid>-<seed>.jsonl``
one line per decision: ``{"deal": deal_number, "seat": seat, "t": CLOCK_MONOTONIC seconds}``,
taken as the request arrives, flushed at once.  What a bot that decodes the game's pace
measures (issue 19 item 4: whether another seat was asked shows in the gaps).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from belote_arena_sdk import Bot, pb, serve


class ClockBot(Bot):
    def __init__(self, out: Path):
        super().__init__()
        out.mkdir(parents=True, exist_ok=True)
        self.file = open(out / f"{os.getpid()}-{os.environ.get('BELOTE_BOT_SEED', '0')}.jsonl", "a")

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        t = time.monotonic()
        obs = request.observation
        self.file.write(json.dumps({"deal": obs.deal_number, "seat": obs.seat, "t": t}) + "\n")
        self.file.flush()
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, default=Path("clock-out"))
    args, rest = p.parse_known_args()
    raise SystemExit(serve(ClockBot(args.out), rest))
