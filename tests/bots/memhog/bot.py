"""Test bot 'memhog': allocates memory without bound on chosen decisions.

``python bot.py [--chunk-mib 50] [--deals 2,3] [--nth N] [--every]`` (tests/bots/README.md).
On a trigger it appends ``--chunk-mib`` MiB chunks (every page written) to a list
until the allocation fails: under an address-space limit that is a ``MemoryError``
inside ``decide()`` (the SDK answers INTERNAL: ``bot-error``) or the process
dies (``crash``). The chunks are dropped afterwards; it then plays at random.
"""

from __future__ import annotations

import argparse

from belote_arena_sdk import Bot, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


class MemHogBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args)
        self.chunk = args.chunk_mib << 20

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            hoard = []
            while True:  # MemoryError ends it (or the kernel ends the process)
                hoard.append(b"x" * self.chunk)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    args, rest = parse_args(lambda p: p.add_argument("--chunk-mib", type=int, default=50))
    raise SystemExit(serve(MemHogBot(args), rest))
