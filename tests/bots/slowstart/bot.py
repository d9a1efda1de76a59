"""Test bot 'slowstart': slow to listen on its first start only.

``python bot.py --marker DIR [--slow N]`` (tests/bots/README.md). The first ``N``
processes (default 1) of every copy sharing the writable folder ``DIR`` (the test binds it
with ``Limits(writable=...)``) each claim a marker file there (``O_EXCL``: exactly one
process wins each) and then never listen: the referee gives up after its start-up time, as
on an overloaded machine, while the process is alive and did nothing wrong. Every later
process plays at random. The referee should start it again (issue 20 item 7) and record no
fault when a later start succeeds.
"""

from __future__ import annotations

import os
import time

from belote_arena_sdk import Bot, pb, serve

from trigger import parse_args  # copied beside bot.py by the test kit


class RandomBot(Bot):
    def decide(self, request: pb.DecideRequest) -> pb.Action:
        return self.rng.choice(request.legal_actions)


def claim_slow_start(folder: str, slow: int) -> bool:
    """Whether this process is one of the first ``slow`` to start: it claims ``slow-K``."""
    for k in range(slow):
        try:
            os.close(os.open(os.path.join(folder, f"slow-{k}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            return True
        except FileExistsError:
            continue
    return False


if __name__ == "__main__":
    def options(p) -> None:
        p.add_argument("--marker", required=True)
        p.add_argument("--slow", type=int, default=1)

    args, rest = parse_args(options)
    if claim_slow_start(args.marker, args.slow):
        print("slowstart: not listening on this first start", flush=True)
        while True:  # alive, never listening: the referee stops it
            time.sleep(1)
    raise SystemExit(serve(RandomBot(), rest))
