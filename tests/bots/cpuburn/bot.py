"""Test bot 'cpuburn': busy-loops on chosen decisions.

``python bot.py [--burn S] [--deals 2,3] [--nth N] [--every]`` (tests/bots/README.md).
On a trigger it spins the CPU for ``--burn`` seconds (default: forever), then
answers at random. Forever: the referee records a ``timeout``. Short burns on
``--every`` decision under ``Limits(cpu_s=...)``: the kernel ends the process
(SIGXCPU, then SIGKILL): ``crash`` (or ``timeout`` if it dies mid-decision late).
"""

from __future__ import annotations

import argparse
import time

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


class CpuBurnBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args)
        self.burn = args.burn

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            end = time.process_time() + self.burn if self.burn > 0 else float("inf")
            x = 0
            while time.process_time() < end:
                for i in range(10_000):
                    x += i * i
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    args, rest = parse_args(lambda p: p.add_argument("--burn", type=float, default=0.0))
    raise SystemExit(serve(CpuBurnBot(args), rest))
