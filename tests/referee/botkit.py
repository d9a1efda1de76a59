"""Helpers of the referee tests: bot folders with arguments, call logs, leftover processes.

Every test copies the bots it plays into its own temporary folder (rewriting the
manifest's ``command`` to pass arguments: the referee scrubs a bot's
environment), so a bot process can be traced back to its test by its working
directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from referee import match as match_module
from referee import secret
from referee.botproc import BotClient
from referee.manifest import load_manifest
from referee.match import Entrant
from referee import evict, image
from referee.sandbox import GUARDIAN_NAME

REPO = Path(__file__).resolve().parents[2]
TEST_BOTS = REPO / "tests" / "bots"
SAMPLE_BOTS = REPO / "sample_bots"


def bot_folder(tmp: Path, bot: str, *args: object, name: str | None = None) -> Path:
    """Copy bot ``bot`` (a folder of tests/bots or sample_bots) to ``tmp/<name or bot>``,
    with ``command = ["python", "bot.py", *args]`` and, given ``name``, that manifest name."""
    src = TEST_BOTS / bot if (TEST_BOTS / bot).is_dir() else SAMPLE_BOTS / bot
    dst = tmp / (name or bot)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if src.parent == TEST_BOTS:  # the fault bots share when-to-misbehave code
        shutil.copy(TEST_BOTS / "trigger.py", dst / "trigger.py")
    toml = dst / "bot.toml"
    command = "command = " + json.dumps(["python", "bot.py", *map(str, args)])
    text = re.sub(r"(?m)^command = .*$", lambda _: command, toml.read_text(encoding="utf-8"))
    if name is not None:
        text = re.sub(r"(?m)^name = .*$", f"name = {json.dumps(name)}", text)
    toml.write_text(text, encoding="utf-8")
    return dst


def entrant(tmp: Path, bot: str, *args: object, name: str | None = None) -> Entrant:
    """An entrant started from a copy of ``bot`` (see :func:`bot_folder`); its key is ``name@version``."""
    manifest = load_manifest(bot_folder(tmp, bot, *args, name=name))
    return Entrant(key=manifest.key, manifest=manifest)


def deals(*boards: int, seed: int = 3, match_id: str = "test-match") -> str:
    """The ``--deals`` argument of a fault bot (tests/bots/README.md) that misbehaves on
    ``boards`` at both tables: their ``Observation.deal_number``s, opaque numbers the
    referee derives from the match's seed and name (``referee.secret.deal_number``).
    The defaults are those of ``tests/referee/test_match.play``."""
    key = secret.bot_key(seed)
    return ",".join(str(secret.deal_number(key, match_id, t, b)) for b in boards for t in (1, 2))


# ------------------------------------------------------------------ processes
def _proc_info(pid: str) -> tuple[int, str, str, str] | None:
    """(ppid, state, cwd, cmdline) of a live process, None if it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except (OSError, IndexError):
        return None
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = ""
    return int(rest[1]), rest[0], cwd, cmd


def code_folder(pid: int | str) -> str:
    """The host folder a sandboxed process's ``/arena/bot`` is a copy of ("" if none):
    a sandboxed bot's cwd is ``/arena/bot`` in its own mount namespace, so its
    ``/proc/PID/mountinfo`` tells which bot folder it runs."""
    try:
        with open(f"/proc/{pid}/mountinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 4 and fields[4] == "/arena/bot":
                    source = fields[3].replace("\\040", " ")
                    # the image's copy (referee.image.code_copy): .../bots/DIGEST/<the folder's own path>
                    copy = re.search(r"/belote-arena-images-\d+/[0-9a-f]+/bots/[0-9a-f]+(/.*)$", source)
                    return copy.group(1) if copy else source
    except OSError:
        pass
    return ""


#: Children of the test process when the test began (``conftest._no_child_left``): not the
#: test's own (a server another module's fixture keeps, the same worker under pytest-xdist).
CHILDREN_BEFORE: set[int] = set()


def bot_processes(root: Path) -> list[str]:
    """Processes of this test: children of this process started during the test (zombies
    included) or any process whose working directory or sandboxed code folder is under
    ``root`` (where the test's bots live)."""
    me, root_s = os.getpid(), str(root)
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        info = _proc_info(pid)
        if info is None:
            continue
        ppid, state, cwd, cmd = info
        if GUARDIAN_NAME in cmd or image.HELPER in cmd or evict.HELPER in cmd:  # the referee's guardian and helpers live
            continue  # as long as the test process
        if "multiprocessing.resource_tracker" in cmd:  # so does multiprocessing's, once worker
            continue  # processes ran in this test process (arena.play.executors.ProcessExecutor)
        code = code_folder(pid) if cwd == "/arena/bot" else ""
        ours = ppid == me and int(pid) not in CHILDREN_BEFORE
        if ours or any(p == root_s or p.startswith(root_s + os.sep) for p in (cwd, code)):
            out.append(f"pid {pid} ({state}) cwd={code or cwd or '?'}: {cmd}")
    return out


def leftover_processes(root: Path, wait_s: float = 3.0) -> list[str]:
    """:func:`bot_processes` once they have had ``wait_s`` seconds to disappear."""
    deadline = time.monotonic() + wait_s
    while True:
        left = bot_processes(root)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


# ------------------------------------------------------------------ call log
@dataclass
class CallLog:
    """What the referee did, in order, seen from its own classes (patched by :func:`install_call_log`):

    ``("start", key, table, seat, pid, seed)`` a bot process started (``pid``: the process the
    referee started, the sandbox's bwrap; ``seed``: its ``BELOTE_BOT_SEED``) and answered StartMatch;
    ``("start-failed", key, table, seat, None)`` an attempt that failed;
    ``("decide", key, pid)`` a decision call; ``("table", table, board)`` a table of a board
    begins; ``("board", number)`` appended by the test's ``on_board_pair``.
    """

    events: list[tuple] = field(default_factory=list)

    def board_done(self, result) -> None:
        self.events.append(("board", result.board))

    def decides_by_board(self, key: str) -> dict[int, int]:
        """Decision calls to ``key`` per board (calls after the ``("table", table, board)``
        marker the referee's ``_play_table`` leaves, both tables summed; boards with a marker
        and no call count 0)."""
        counts: dict[int, int] = {}
        board = None
        for e in self.events:
            if e[0] == "table":
                board = e[2]
                counts.setdefault(board, 0)
            elif e[0] == "decide" and e[1] == key and board is not None:
                counts[board] += 1
        return counts

    def starts(self, key: str | None = None) -> list[tuple]:
        return [e for e in self.events if e[0] == "start" and (key is None or e[1] == key)]

    def failed_starts(self, key: str | None = None) -> list[tuple]:
        return [e for e in self.events if e[0] == "start-failed" and (key is None or e[1] == key)]


def install_call_log(monkeypatch) -> CallLog:
    """Patch ``_Seat.ensure``, ``BotClient.decide_async`` (the referee's call) and
    ``DuplicateMatch._play_table`` to record every start, call and table."""
    log = CallLog()
    ensure, decide = match_module._Seat.ensure, BotClient.decide_async
    play_table = match_module.DuplicateMatch._play_table

    async def logged_play_table(self, table, board, *args):
        log.events.append(("table", table, board.number))
        return await play_table(self, table, board, *args)

    def logged_ensure(self, start_request, loop=None):
        before = self.client
        client = ensure(self, start_request, loop)
        if client is None:
            log.events.append(("start-failed", self.entrant.key, self.table, self.seat, None))
        elif client is not before:
            pid = client.process.pid if client.process is not None else None
            log.events.append(("start", self.entrant.key, self.table, self.seat, pid, client.seed))
        return client

    async def logged_decide(self, request, timeout_s):
        log.events.append(("decide", self.name, self.process.pid if self.process is not None else None))
        return await decide(self, request, timeout_s)

    monkeypatch.setattr(match_module._Seat, "ensure", logged_ensure)
    monkeypatch.setattr(BotClient, "decide_async", logged_decide)
    monkeypatch.setattr(match_module.DuplicateMatch, "_play_table", logged_play_table)
    return log
