"""Test bot 'startfail': never becomes ready.

``python bot.py [--how exit|silent]`` (tests/bots/README.md). ``exit`` (default)
exits with status 3 at start-up, before listening; ``silent`` listens on its
socket but never speaks gRPC (the referee must give up after its start-up time).
The referee should record a ``start`` fault for each decision it could not ask.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time

from belote_arena_sdk import LISTEN_ENV, parse_listen


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--how", choices=("exit", "silent"), default="exit")
    p.add_argument("--listen", default=os.environ.get(LISTEN_ENV))
    p.add_argument("--seed", default="0")
    args = p.parse_args()
    if args.how == "exit":
        print("startfail: giving up at start-up", file=sys.stderr)
        return 3
    path = parse_listen(args.listen).socket_path
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(8)
    held = []
    listener.settimeout(0.2)
    while True:  # accept connections and never answer; the referee kills us
        try:
            held.append(listener.accept()[0])
        except TimeoutError:
            time.sleep(0.05)


if __name__ == "__main__":
    raise SystemExit(main())
