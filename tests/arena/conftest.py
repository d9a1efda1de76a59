"""Shared helpers of the arena end-to-end tests: the CLI runner and bot-process scans."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from tests.referee.botkit import code_folder

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_bots"
BOTS3 = [str(SAMPLES / "random"), str(SAMPLES / "greedy"), str(SAMPLES / "heuristic")]


def cli(*args: str):
    """Invoke ``arena ARGS`` in process; stderr is kept apart from stdout."""
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:  # click >= 8.2 always separates them
        runner = CliRunner()
    return runner.invoke(app, [str(a) for a in args])


def output(result) -> str:
    try:
        return result.stdout + result.stderr
    except ValueError:
        return result.output


def procs_under(root: Path) -> list[int]:
    """PIDs (not ours) whose cwd, or sandboxed code folder, is under ``root`` — bot processes
    started from frozen copies there."""
    root = str(root.resolve())
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(d / "cwd")
        except OSError:
            continue
        if cwd == "/arena/bot":  # sandboxed: its own mount namespace
            cwd = code_folder(d.name)
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(int(d.name))
    return found


def wait_no_procs(root: Path, timeout: float = 120.0) -> list[int]:
    """The bot processes left under ``root`` once none is (at once when none is), or after
    ``timeout`` s: a bound on a hang (a frozen bot dies when the guardian thaws it, slower on
    a loaded machine), not a timing."""
    end = time.monotonic() + timeout
    while True:
        left = procs_under(root)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)


def copy_bot(src: Path, dst: Path, version: str) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    toml = dst / "bot.toml"
    toml.write_text(toml.read_text().replace('version = "1.0.0"', f'version = "{version}"'))
    return dst


@pytest.fixture
def bots3():
    return BOTS3
