"""Test bot 'spy': plays a random legal action and writes down everything it is told.

``python bot.py --out DIR`` (tests/bots/README.md). Writes ``DIR/<id>.jsonl``, where
``id`` is its ``BELOTE_BOT_SEED`` (unique per process; the referee's ``BotClient.seed``,
so a test can tell which process wrote what — a sandboxed bot cannot know its host pid):
a first line ``{"id", "pid", "procs", "cwd", "env", "argv"}`` (its pid and the pids it
can see in ``/proc``, the whole ``os.environ`` the referee gave it), then one line per
call: ``{"call": "start"|"decide"|"end", "id", "msg"}`` with the request serialised (base64 of the protobuf bytes), so
a test can read it back exactly. Without ``--out`` it writes to ``./spy-out``.
Each line is flushed at once, so a killed spy loses nothing it was told.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from pathlib import Path

from belote_arena_sdk import Bot, pb, serve


def process_id() -> int:
    """This process's identity for the test: its RNG seed, different in every bot process."""
    return int(os.environ.get("BELOTE_BOT_SEED", "0"))


def visible_pids() -> list[int]:
    """The processes this bot can see in ``/proc``: listed, or found one by one where listing
    /proc is denied.  None in the sandbox: it has no procfs (SECURITY.md "The inode numbers")."""
    try:
        return sorted(int(d) for d in os.listdir("/proc") if d.isdigit())
    except OSError:
        return [n for n in range(1, 1 << 16) if os.path.isdir(f"/proc/{n}")]


class SpyBot(Bot):
    def __init__(self, out: Path):
        super().__init__()
        out.mkdir(parents=True, exist_ok=True)
        self.file = open(out / f"{process_id()}.jsonl", "a", encoding="utf-8")
        self.write({"id": process_id(), "pid": os.getpid(), "procs": visible_pids(), "cwd": os.getcwd(),
                    "env": dict(os.environ), "argv": sys.argv})

    def write(self, line: dict) -> None:
        self.file.write(json.dumps(line) + "\n")
        self.file.flush()

    def log(self, call: str, msg) -> None:
        self.write({"call": call, "id": process_id(), "msg": base64.b64encode(msg.SerializeToString()).decode()})

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        self.log("start", request)

    def on_end_match(self, request: pb.EndMatchRequest) -> None:
        self.log("end", request)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        self.log("decide", request)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", type=Path, default=Path("spy-out"))
    args, rest = p.parse_known_args()
    raise SystemExit(serve(SpyBot(args.out.resolve()), rest))
