"""Reading back what the spy bot (tests/bots/spy) was told."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

from belote.bot.v1 import bot_pb2 as pb

_MESSAGES = {"start": pb.StartMatchRequest, "decide": pb.DecideRequest, "end": pb.EndMatchRequest}


@dataclass
class SpyLog:
    """One spy process: its pid, parent, working directory, environment, argv and
    every request it received, in order."""

    pid: int
    ppid: int
    cwd: str
    env: dict[str, str]
    argv: list[str]
    starts: list[pb.StartMatchRequest] = field(default_factory=list)
    decides: list[pb.DecideRequest] = field(default_factory=list)
    ends: list[pb.EndMatchRequest] = field(default_factory=list)


def read_spy_logs(folder: Path) -> dict[int, SpyLog]:
    """Every spy log in ``folder`` by pid."""
    logs = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        head = lines[0]
        log = SpyLog(pid=head["pid"], ppid=head["ppid"], cwd=head["cwd"], env=head["env"], argv=head["argv"])
        for line in lines[1:]:
            assert line["pid"] == log.pid
            msg = _MESSAGES[line["call"]].FromString(base64.b64decode(line["msg"]))
            getattr(log, line["call"] + "s").append(msg)
        logs[log.pid] = log
    return logs
