"""Helpers of the competition tests: a competition server in a subprocess on loopback, bots to
upload, and waiting for a condition (never for a time)."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.arena.conftest import REPO, SAMPLES, cli, output

__all__ = ["REPO", "SAMPLES", "Server", "bot_copy", "cli", "node_bot", "output", "until"]


def until(condition, timeout: float, what: str, every: float = 0.1):
    """Poll ``condition()`` until it returns something true (returned), failing after ``timeout`` s."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (last: {value!r})")
        time.sleep(every)


def bot_copy(src: str, dst: Path, *, name: str | None = None, version: str = "1.0.0",
             rulesets: str = '["classic"]') -> Path:
    """A copy of a sample bot under ``dst`` playing only ``rulesets`` (validation is one match a ruleset)."""
    shutil.copytree(SAMPLES / src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    toml = dst / "bot.toml"
    text = toml.read_text().replace('version = "1.0.0"', f'version = "{version}"')
    text = "\n".join(f"rulesets = {rulesets}" if line.startswith("rulesets") else line for line in text.splitlines())
    if name is not None:
        text = text.replace(f'name = "{src}"', f'name = "{name}"')
    toml.write_text(text + "\n")
    if name is not None:  # the bot says its name in GetBotInfo too
        bot = dst / "bot.py"
        bot.write_text(bot.read_text().replace(f'"{src}"', f'"{name}"'))
    return dst


def node_bot(dst: Path, *, requirements: bool = True) -> Path:
    """A copy of the Node.js sample bot named nodebot (no ``node_modules/``: nothing here runs it),
    naming its ``package.json`` as ``requirements`` unless told not to."""
    shutil.copytree(SAMPLES / "node", dst, ignore=shutil.ignore_patterns("node_modules"))  # as in a fresh clone
    toml = dst / "bot.toml"
    text = toml.read_text().replace('name = "starter-node"', 'name = "nodebot"').replace('"1.0.0"', '"0.1.0"')
    toml.write_text(text + ('requirements = "package.json"\n' if requirements else ""))
    return dst


class Server:
    """``arena compete serve NAME --port 0 --json`` in a process group of its own."""

    def __init__(self, db: Path, name: str, *extra: str):
        self.db, self.name = db, name
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from arena.cli import main; main()", "compete", "serve", name, "--db", str(db),
             "--port", "0", "--json", *extra],
            cwd=REPO, stdout=subprocess.PIPE, stderr=open(db.parent / f"serve-{time.time_ns()}.err", "wb"),
            start_new_session=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline() if ready else b""
        if not line:
            self.kill()
            raise AssertionError(f"the server did not start: {self.errors()}")
        self.url = json.loads(line)["url"].rstrip("/")

    def errors(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.db.parent.glob("serve-*.err")))

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """Ctrl-C's way: SIGINT, then wait for the process (it checkpoints the database)."""
        self.kill(signal.SIGINT)


@pytest.fixture
def remote_env(tmp_path, monkeypatch):
    """``arena remote`` with its config file in ``tmp_path`` and no token in the environment."""
    monkeypatch.setenv("ARENA_CONFIG", str(tmp_path / "config" / "remote.json"))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    return tmp_path
