"""Attack bot 'attack_xtable': every process of the entrant publishes its hand to the entrant's
other live processes, through a channel that works only while both ends are alive.

``python bot.py --out DIR`` (tests/bots/README.md).  ``DIR`` is a folder bound read-write
into every sandbox by the test (the channel stands in for what kernel counters, timing or
the CPU give to processes that run at the same time: it needs both ends alive).  At start-up a
process binds a datagram socket ``DIR/<pid>-<seed>.sock`` and makes one to send from (once the
match has begun the sandbox makes no socket and accepts no connection: SECURITY.md "The inode
numbers"; datagrams need neither); at every decision it
receives what its entrant's other processes sent, writes each reception to
``DIR/<pid>-<seed>.recv.jsonl`` (``{"seat", "deal", "own", "got", "from_seat", "from_deal"}``:
its seat, deal number and hand, and the sender's; hands
the sender's — the fullest of the deal so far, 5 cards in the bidding, then 8 — cards as
``"RS"`` strings of the protocol's enums), then sends its seat, deal number and hand to every
other ``*.sock`` of the folder.  A datagram to a process that has ended is refused, so nothing
passes between processes that never live at once.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
from pathlib import Path

from belote_arena_sdk import Bot, card_key, pb, serve


class XTableBot(Bot):
    def __init__(self, out: Path):
        super().__init__()
        self.out, self.me = out, f"{os.getpid()}-{os.environ.get('BELOTE_BOT_SEED', '0')}"
        self.deal, self.hand = None, []
        path = self.out / f"{self.me}.sock"
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.listener.bind(str(path))
        os.chmod(path, 0o777)  # every process runs as a uid of its own: let them all send
        self.listener.setblocking(False)
        self.sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sender.setblocking(False)
        self.log = open(self.out / f"{self.me}.recv.jsonl", "a")  # noqa: SIM115 - open for the process's life

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        hand = sorted(f"{r}{s}" for s, r in (card_key(c) for c in obs.hand_cards))
        if obs.deal_number != self.deal or len(hand) > len(self.hand):  # the deal's fullest hand: 5, then 8 cards
            self.deal, self.hand = obs.deal_number, hand
        own = self.hand
        while True:  # what the others sent since the last decision
            try:
                data = self.listener.recv(65536)
            except BlockingIOError:
                break
            try:
                got = json.loads(data)
            except ValueError:
                continue
            self.log.write(json.dumps({"seat": obs.seat, "deal": obs.deal_number, "own": own, "got": got["hand"],
                                       "from_seat": got["seat"], "from_deal": got["deal"]}) + "\n")
            self.log.flush()
        message = json.dumps({"seat": obs.seat, "deal": obs.deal_number, "hand": own}).encode()
        for other in self.out.glob("*.sock"):
            if other.name == f"{self.me}.sock":
                continue
            try:
                self.sender.sendto(message, str(other))
            except OSError:
                pass  # its process has ended (refused), or its queue is full
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, default=Path("xtable-out"))
    args, rest = p.parse_known_args()
    raise SystemExit(serve(XTableBot(args.out), rest))
