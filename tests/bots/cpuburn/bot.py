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

from belote_arena_sdk import Bot, pb, serve

from trigger import Trigger, parse_args  # copied beside bot.py by the test kit


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
