"""Test bot 'hostile': on its first decision it tries to escape, then plays at random.

``python bot.py --out DIR --port P`` (tests/bots/README.md):
- opens a TCP connection to 127.0.0.1:P (the test listens there), with a socket made at
  start-up (once the match has begun the sandbox makes no socket: SECURITY.md "The inode
  numbers"); the sandbox refuses TCP sockets too (EAFNOSUPPORT), and a network namespace of
  its own would keep the connection in anyway;
- starts a child process in a session of its own (``setsid``) that would outlive it
  (``posix_spawn``: ``subprocess`` needs a pipe, which the sandbox no longer makes by then);
- writes a file outside its working folder and outside ``DIR`` (into ``DIR``'s parent).
It records each attempt's result in ``DIR/hostile-<token>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import uuid
from pathlib import Path

from belote_arena_sdk import Bot, pb, serve


class HostileBot(Bot):
    def __init__(self, out: Path, port: int):
        super().__init__()
        self.out, self.port, self.done = out, port, False
        self.token = uuid.uuid4().hex  # pids repeat across PID namespaces (each bot is PID 1 in its own)
        try:  # before StartMatch: see above (the sandbox refuses TCP sockets anyway: no network)
            self.sock: socket.socket | OSError = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        except OSError as e:
            self.sock = e

    def escape(self) -> dict:
        report: dict = {"pid": os.getpid(), "hostname": socket.gethostname()}
        try:
            if isinstance(self.sock, OSError):
                raise self.sock
            with self.sock:
                self.sock.settimeout(1)
                self.sock.connect(("127.0.0.1", self.port))
            report["network"] = "connected"
        except OSError as e:
            report["network"] = f"refused: {e.strerror or e}"
        # the child's command line carries the out folder, so the test can look for it afterwards
        argv = [sys.executable, "-c", f"import time; time.sleep(300)  # {self.out}"]
        report["child"] = os.posix_spawn(argv[0], argv, dict(os.environ), setsid=True)
        try:  # the parent of --out: neither the bot's private folder nor a folder it was given
            (self.out.parent / f"escape-{self.token}.txt").write_text("written outside the working folder")
            report["write_outside"] = "written"
        except OSError as e:
            report["write_outside"] = f"refused: {e.strerror}"
        return report

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if not self.done:
            self.done = True
            report = self.escape()
            (self.out / f"hostile-{self.token}.json").write_text(json.dumps(report))
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--port", type=int, required=True)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(HostileBot(args.out, args.port), rest))
