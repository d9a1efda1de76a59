"""Attack bot 'attack_caches': the red teams' rounds 4 and 5 channels through the caches of
the files every sandbox shares (SECURITY.md).

``python bot.py --out DIR [--channel pages|names]`` (tests/bots/README.md).  Every process of
the entrant, for (deal N of the process, seat S, card C):

* ``pages``: its folder holds ``pages/N_S_C``, one 4 KiB file each, written by the test and
  dropped from the page cache before the match.  To "write" C it reads one byte of the file
  (its page is then cached); to "read", it times a one-byte read: under 20 µs (cached: ~1 µs,
  from disk ≥ 45 µs here) means a process of the entrant held C at seat S.
* ``names``: ``/usr/bin/.belote-SALT-N-S-C-K`` (K < 8 copies; ``SALT`` from the file of that
  name in its folder) do not exist.  To "write" C it ``stat``s them (the kernel remembers the
  failed lookups); to "read", it times ``stat`` of each copy and takes their median per card:
  the five cards of the lowest medians were written when they stand apart from the sixth
  (``GAP`` times lower: a fresh name's lookup time varies between runs, ~3.6 to 6 µs here, a
  remembered one's ~1.6 to 3 µs) and the fifth is nearer a remembered name's time than a
  fresh one's.

It writes the five cards it holds in the bidding at each decision there (the three dealt
after it depend on who took, which may differ between tables: RULES.md §3), and at its first
decision of a deal reads the hand of the opponent on its right (reading writes too: each
opponent is read by one partner only).  Its processes at the two tables of a board play it as
the same N-th deal, so the table played second reads what the first wrote: the opponents'
hidden cards there.  Each non-empty reception is written to ``DIR/<pid>-<seed>.recv.jsonl`` as
``{"seat", "deal", "from_seat", "got"}`` (cards as ``"RS"`` strings of the protocol's enums, in
the writer's suits).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from belote_arena_sdk import Bot, card_key, pb, serve

CACHED_NS = 20_000
COPIES = 8
GAP = 1.4
CARDS = [(s, r) for s in range(1, 5) for r in range(7, 15)]  # the protocol's suits 1..4, ranks 7..14


def _ns(call, path: str) -> int:
    t = time.perf_counter_ns()
    try:
        call(path)
    except OSError:
        pass
    return time.perf_counter_ns() - t


def _read_byte(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.pread(fd, 1, 0)
    finally:
        os.close(fd)


class Pages:
    """One cold file a bit: a read caches its page."""

    def write(self, n: int, seat: int, card: str) -> None:
        _read_byte(f"pages/{n}_{seat}_{card}")

    def receive(self, n: int, seat: int) -> list[str]:
        return [f"{r}{s}" for s, r in CARDS if _ns(_read_byte, f"pages/{n}_{seat}_{r}{s}") < CACHED_NS]


class Names:
    """Names that do not exist, ``COPIES`` a bit: a ``stat`` leaves a negative dentry."""

    def __init__(self) -> None:
        self.salt = open("SALT").read().strip()

    def _name(self, n: int, seat: int, card: str, k: int) -> str:
        return f"/usr/bin/.belote-{self.salt}-{n}-{seat}-{card}-{k}"

    def write(self, n: int, seat: int, card: str) -> None:
        for k in range(COPIES):
            _ns(os.stat, self._name(n, seat, card, k))

    def receive(self, n: int, seat: int) -> list[str]:
        fresh = [f"/usr/bin/.belote-{self.salt}-cal-{os.getpid()}-{time.monotonic_ns()}-{j}" for j in range(24)]
        miss = sorted(_ns(os.stat, p) for p in fresh)[4:]
        hit = sorted(_ns(os.stat, p) for p in fresh)[4:]
        threshold = (miss[len(miss) // 2] + hit[len(hit) // 2]) / 2
        medians = []
        for s, r in CARDS:
            times = sorted(_ns(os.stat, self._name(n, seat, f"{r}{s}", k)) for k in range(COPIES))
            medians.append(((times[COPIES // 2 - 1] + times[COPIES // 2]) / 2, f"{r}{s}"))
        medians.sort()
        if medians[4][0] < threshold and medians[5][0] > GAP * medians[4][0]:
            return [card for _, card in medians[:5]]
        return []


class CacheBot(Bot):
    def __init__(self, out: Path, channel: Pages | Names):
        super().__init__()
        self.out, self.me = out, f"{os.getpid()}-{os.environ.get('BELOTE_BOT_SEED', '0')}"
        self.channel = channel
        self.deal, self.n, self.full = None, -1, False

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        if obs.deal_number != self.deal:
            self.deal, self.n, self.full = obs.deal_number, self.n + 1, False
            seat = (obs.seat + 3) % 4  # the opponent on its right
            got = self.channel.receive(self.n, seat)
            if got:
                with open(self.out / f"{self.me}.recv.jsonl", "a") as log:
                    log.write(json.dumps({"seat": obs.seat, "deal": obs.deal_number, "from_seat": seat,
                                          "got": got}) + "\n")
        self.full = self.full or len(obs.hand_cards) == 8
        if len(obs.hand_cards) == 5 and not self.full:  # the first five: the same at both tables (RULES.md §3)
            for c in obs.hand_cards:
                s, r = card_key(c)
                self.channel.write(self.n, obs.seat, f"{r}{s}")
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, default=Path("cache-out"))
    p.add_argument("--channel", choices=("pages", "names"), default="pages")
    args, rest = p.parse_known_args()
    raise SystemExit(serve(CacheBot(args.out, Pages() if args.channel == "pages" else Names()), rest))
