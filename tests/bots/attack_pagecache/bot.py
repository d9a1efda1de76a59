"""Attack bot 'attack_pagecache': the red team's round-4 page-cache channel (SECURITY.md).

``python bot.py --out DIR`` (tests/bots/README.md).  Its folder holds ``pages/N_S_C``: one
4 KiB file per (deal N of the process, seat S, card C), written by the test and dropped from
the page cache before the match, so each starts out cold.  Every process of the entrant:

* "writes" its hand: at each decision of the bidding it reads one byte of ``pages/N_S_C`` for
  each of the five cards C it holds at seat S in its N-th deal — the page is then cached (the
  three cards dealt after the bidding depend on who took, which may differ between tables);
* "reads" an opponent's hand: at its first decision of a deal it times a one-byte read of
  ``pages/N_S_C`` for the opponent S on its right and every card C (reading caches the page:
  each opponent is read by one partner only); a read under 20 µs (cached: ~1 µs, from disk
  ≥ 45 µs here) means a process of the entrant held C at seat S.

Its processes at the two tables of a board play the board as the same N-th deal, so the
table played second reads what the first wrote: the opponents' hidden hands of that table.
Each non-empty reception is written to ``DIR/<pid>-<seed>.recv.jsonl`` as ``{"seat", "deal",
"from_seat", "got"}`` (cards as ``"RS"`` strings of the protocol's enums, in the writer's suits).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from belote_arena_sdk import Bot, card_key, pb, serve

CACHED_NS = 20_000
CARDS = [(s, r) for s in range(1, 5) for r in range(7, 15)]  # the protocol's suits 1..4, ranks 7..14


def _touch(path: str) -> int:
    """ns taken by a one-byte read of ``path`` (which caches its page)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        t = time.perf_counter_ns()
        os.pread(fd, 1, 0)
        return time.perf_counter_ns() - t
    finally:
        os.close(fd)


class PageCacheBot(Bot):
    def __init__(self, out: Path):
        super().__init__()
        self.out, self.me = out, f"{os.getpid()}-{os.environ.get('BELOTE_BOT_SEED', '0')}"
        self.deal, self.n, self.full = None, -1, False

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        if obs.deal_number != self.deal:
            self.deal, self.n, self.full = obs.deal_number, self.n + 1, False
            seat = (obs.seat + 3) % 4  # the opponent on its right: each opponent read by one partner only
            got = [f"{r}{s}" for s, r in CARDS if _touch(f"pages/{self.n}_{seat}_{r}{s}") < CACHED_NS]
            if got:
                with open(self.out / f"{self.me}.recv.jsonl", "a") as log:
                    log.write(json.dumps({"seat": obs.seat, "deal": obs.deal_number, "from_seat": seat,
                                          "got": got}) + "\n")
        self.full = self.full or len(obs.hand_cards) == 8
        if len(obs.hand_cards) == 5 and not self.full:  # the first five: the same at both tables (RULES.md §3)
            for c in obs.hand_cards:
                s, r = card_key(c)
                _touch(f"pages/{self.n}_{obs.seat}_{r}{s}")
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, default=Path("pagecache-out"))
    args, rest = p.parse_known_args()
    raise SystemExit(serve(PageCacheBot(args.out), rest))
