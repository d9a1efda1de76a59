"""Reading back what the spy bot (tests/bots/spy) was told."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

from belote_arena_sdk.proto import bot_pb2 as pb

_MESSAGES = {"start": pb.StartMatchRequest, "decide": pb.DecideRequest, "end": pb.EndMatchRequest}


@dataclass
class SpyLog:
    """One spy process: its id (its ``BELOTE_BOT_SEED``), its pid and the pids it could
    see, working directory, environment, argv and every request it received, in order."""

    id: int
    pid: int
    procs: list[int]
    cwd: str
    env: dict[str, str]
    argv: list[str]
    starts: list[pb.StartMatchRequest] = field(default_factory=list)
    decides: list[pb.DecideRequest] = field(default_factory=list)
    ends: list[pb.EndMatchRequest] = field(default_factory=list)


def read_spy_logs(folder: Path) -> dict[int, SpyLog]:
    """Every spy log in ``folder`` by id (the process's ``BELOTE_BOT_SEED``)."""
    logs = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        head = lines[0]
        log = SpyLog(id=head["id"], pid=head["pid"], procs=head["procs"], cwd=head["cwd"], env=head["env"],
                     argv=head["argv"])
        for line in lines[1:]:
            assert line["id"] == log.id
            msg = _MESSAGES[line["call"]].FromString(base64.b64decode(line["msg"]))
            getattr(log, line["call"] + "s").append(msg)
        logs[log.id] = log
    return logs
