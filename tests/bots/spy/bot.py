"""Test bot 'spy': plays a random legal action and writes down everything it is told.

``python bot.py --out DIR`` (tests/bots/README.md). Writes ``DIR/<pid>.jsonl``:
a first line ``{"pid", "ppid", "cwd", "env", "argv"}`` (the whole ``os.environ``
the referee gave it), then one line per call: ``{"call": "start"|"decide"|"end",
"pid", "msg"}`` with the request serialised (base64 of the protobuf bytes), so
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

from sample_bots.sdk import Bot, pb, serve


def host_pid() -> int:
    """This process's pid as the machine sees it: in the referee's PID namespace sandbox
    ``os.getpid()`` is 1 in every bot, but ``/proc`` is the host's, so ``/proc/self`` names the real one."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def started_pid() -> int:
    """The pid of the process the referee started for this bot: the bot itself, or, when the
    sandbox runs it as PID 1 of a new PID namespace, its parent (the referee.launch wrapper)."""
    return host_ppid() if os.getpid() == 1 else host_pid()


def host_ppid(pid: int | None = None) -> int:
    """The parent's pid of ``pid`` (default: this process) as the machine sees it
    (field 4 of ``/proc/PID/stat``)."""
    try:
        with open(f"/proc/{pid or host_pid()}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return os.getppid()


class SpyBot(Bot):
    def __init__(self, out: Path):
        super().__init__()
        out.mkdir(parents=True, exist_ok=True)
        self.file = open(out / f"{started_pid()}.jsonl", "a", encoding="utf-8")
        self.write({"pid": started_pid(), "ppid": host_ppid(started_pid()), "cwd": os.getcwd(), "env": dict(os.environ),
                    "argv": sys.argv})

    def write(self, line: dict) -> None:
        self.file.write(json.dumps(line) + "\n")
        self.file.flush()

    def log(self, call: str, msg) -> None:
        self.write({"call": call, "pid": started_pid(), "msg": base64.b64encode(msg.SerializeToString()).decode()})

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
