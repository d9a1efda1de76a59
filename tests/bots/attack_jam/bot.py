"""Attack bot 'attack_jam' (tests/bots/README.md, issue 9): jamming the other bots' sockets.

``python bot.py --out DIR``. From start-up, a thread looks every 20 ms for the sockets of
other bots (``/proc/*/root/arena/work/*.sock``, ``/tmp/belote-referee-*/*/*.sock``,
``/arena/work/*.sock`` and beside its own folder) and opens 8 idle ``DecideStream``
calls on each one that is not its own: the SDK serves with 4 threads, so a jammed bot
never answers the referee. At every decision it reports (tests/bots/attack_common.py)
``jam:sockets``: ``SUCCEEDED: streams opened on [...]`` or ``blocked: no other bot's
socket found (N scans)``. Plays a random legal action.
"""

from __future__ import annotations

import argparse
import glob
import os
import threading
import time

import grpc

from attack_common import Reporter
from belote_arena_sdk.proto import bot_pb2_grpc
from belote_arena_sdk import Bot, pb, serve

PATTERNS = ("/proc/*/root/arena/work/*.sock", "/tmp/belote-referee-*/*/*.sock", "/arena/work/*.sock")


def never():
    threading.Event().wait()
    yield  # never reached


class JamBot(Bot):
    def __init__(self, out: str):
        super().__init__()
        self.report = Reporter(out, bot="attack_jam")
        self.jammed: dict[str, list] = {}
        self.scans = 0
        self.own = os.environ.get("BELOTE_BOT_LISTEN", "")
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self) -> None:
        home = os.environ.get("HOME", "/arena/work")
        patterns = (*PATTERNS, f"{os.path.dirname(home)}/*/*.sock")
        while True:
            try:  # its own socket: never jammed (it appears only once its server listens)
                own = os.stat(self.own)
                own_id = (own.st_dev, own.st_ino)
            except OSError:
                time.sleep(0.02)
                continue
            for pattern in patterns:
                for sock in glob.glob(pattern):
                    try:
                        st = os.stat(sock)
                    except OSError:
                        continue
                    key = f"{sock} ({st.st_dev}:{st.st_ino})"
                    if (st.st_dev, st.st_ino) == own_id or key in self.jammed:
                        continue
                    stub = bot_pb2_grpc.BotServiceStub(grpc.insecure_channel(f"unix:{sock}"))
                    self.jammed[key] = [stub.DecideStream(never()) for _ in range(8)]
            self.scans += 1
            time.sleep(0.02)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        jammed = sorted(self.jammed)
        self.report.attempt("jam:sockets", lambda: f"streams opened on {jammed}" if jammed else
                            f"blocked: no other bot's socket found ({self.scans} scans)")
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(JamBot(args.out), rest))
