"""Test bot 'ponder': tries to think (or burn CPU) between its decisions (issue 19).

``python bot.py --out DIR [--threads N] [--procs N] [--forks N] [--busy S] [--nap S]``:

- ``--threads N``: N background threads, started at ``StartMatch``, each counting as fast
  as it can (one shared counter);
- ``--procs N``: N child processes, forked at ``StartMatch``, spinning forever (a partner
  that would steal the deciding bot's CPU);
- ``--forks N``: N background threads, started at ``StartMatch``, each forking children that
  spin 20 ms and exit, one after another (a bot forking while it is being stopped);
- ``--busy S``: each decision spins S seconds of wall time and measures the CPU time it got;
- ``--nap S``: each decision sleeps S seconds (its threads count meanwhile).

At every decision it appends one JSON line to ``DIR/ponder-<pid>-<random>.jsonl``: the counter and
``time.monotonic()`` when the decision starts and ends, and with ``--busy`` the decision's
CPU time over its wall time (``share``).  It answers the first legal action.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from belote_arena_sdk import Bot, pb, serve


class PonderBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.args, self.count = args, 0
        self.log = open(os.path.join(args.out, f"ponder-{os.getpid()}-{os.urandom(4).hex()}.jsonl"), "a", buffering=1)

    def _count(self) -> None:
        while True:
            self.count += 1

    @staticmethod
    def _fork_forever() -> None:
        while True:
            try:
                pid = os.fork()
            except OSError:  # the process limit: try again
                continue
            if pid == 0:
                end = time.monotonic() + 0.02
                while time.monotonic() < end:
                    pass
                os._exit(0)
            os.waitpid(pid, 0)

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        for _ in range(self.args.procs):
            if os.fork() == 0:
                while True:
                    pass
        for _ in range(self.args.threads):
            threading.Thread(target=self._count, daemon=True).start()
        for _ in range(self.args.forks):
            threading.Thread(target=self._fork_forever, daemon=True).start()

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        at_start, t_start, cpu = self.count, time.monotonic(), time.process_time()
        share = None
        if self.args.busy:
            while time.monotonic() - t_start < self.args.busy:
                pass
            share = (time.process_time() - cpu) / (time.monotonic() - t_start)
        time.sleep(self.args.nap)
        at_end = self.count
        self.log.write(json.dumps({"at_start": at_start, "t_start": t_start, "at_end": at_end,
                                   "t_end": time.monotonic(), "share": share}) + "\n")
        return request.legal_actions[0]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--procs", type=int, default=0)
    parser.add_argument("--forks", type=int, default=0)
    parser.add_argument("--busy", type=float, default=0.0)
    parser.add_argument("--nap", type=float, default=0.0)
    args, rest = parser.parse_known_args()
    sys.setswitchinterval(1e-4)  # the counting threads hand the GIL to the server's at once
    raise SystemExit(serve(PonderBot(args), rest))
