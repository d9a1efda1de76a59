"""Test bot 'lateend': times a table's end, as red team 50's ``endclock`` did.

``python bot.py --out DIR [--end-sleep S]`` (tests/bots/README.md). Plays a random legal
action. Writes one JSON line per event to a file of its own in ``DIR``: ``{"event":
"start", "t"}`` when the process started (before its imports), ``{"event": "end", "t"}`` when ``EndMatch`` arrives
(``t``: the wall clock, ``time.time()``, which every sandbox shares). On ``EndMatch`` it
sleeps ``S`` seconds before answering: if the referee waited for it, the
other table's processes would start ``S`` seconds later, and read the delay from their own
start time (a bit of the closing table's hand, chosen by ``S``).
"""

from __future__ import annotations

import time

STARTED = time.time()  # before the imports: as early as a Python bot can read the clock

import argparse
import json
import os
from pathlib import Path

from belote_arena_sdk import Bot, pb, serve


class LateEnd(Bot):
    def __init__(self, out: Path, end_sleep: float):
        super().__init__()
        out.mkdir(parents=True, exist_ok=True)
        self.file = open(out / f"{os.urandom(8).hex()}.jsonl", "x", encoding="utf-8")  # one per process
        self.end_sleep = end_sleep
        self.write("start", STARTED)

    def write(self, event: str, t: float | None = None) -> None:
        self.file.write(json.dumps({"event": event, "t": time.time() if t is None else t}) + "\n")
        self.file.flush()

    def on_end_match(self, request: pb.EndMatchRequest) -> None:
        self.write("end")
        time.sleep(self.end_sleep)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, default=Path("lateend-out"))
    p.add_argument("--end-sleep", type=float, default=0.0)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(LateEnd(args.out.resolve(), args.end_sleep), rest))
