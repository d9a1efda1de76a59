"""Test bot 'memhog': allocates memory without bound on chosen decisions.

``python bot.py [--chunk-mib 50] [--deals 2,3] [--nth N] [--every]`` (tests/bots/README.md).
On a trigger it appends ``--chunk-mib`` MiB chunks (every page written) to a list
until the allocation fails: under an address-space limit that is a ``MemoryError``
inside ``decide()`` (the SDK answers INTERNAL: ``bot-error``) or the process
dies (``crash``). The chunks are dropped afterwards; it then plays at random.
"""

from __future__ import annotations

import argparse

from sample_bots.sdk import Bot, pb, serve


class Trigger:
    """When to misbehave (tests/bots/README.md): on asked decisions of ``--deals``
    (``Observation.deal_number``; default all), from the ``--nth`` asked decision
    of a deal counted by this process, only once per deal unless ``--every``."""

    def __init__(self, args: argparse.Namespace, phases: tuple[int, ...] = ()):
        self.deals = None if args.deals == "all" else {int(d) for d in args.deals.split(",")}
        self.nth, self.every, self.phases = args.nth, args.every, phases
        self.deal, self.count, self.fired = None, 0, False

    def __call__(self, request: pb.DecideRequest) -> bool:
        obs = request.observation
        if obs.deal_number != self.deal:
            self.deal, self.count, self.fired = obs.deal_number, 0, False
        self.count += 1
        if self.deals is not None and obs.deal_number not in self.deals:
            return False
        if (self.phases and obs.phase not in self.phases) or self.count < self.nth:
            return False
        if self.fired and not self.every:
            return False
        self.fired = True
        return True


def parse_args(extra=None) -> tuple[argparse.Namespace, list[str]]:
    """This bot's own options; the rest (``--listen``, ``--seed``) go to ``serve``."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--deals", default="all")
    p.add_argument("--nth", type=int, default=1)
    p.add_argument("--every", action="store_true")
    if extra is not None:
        extra(p)
    return p.parse_known_args()


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
