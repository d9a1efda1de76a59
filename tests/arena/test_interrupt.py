"""Issue 14 item 8 (Ctrl-C answers at once) and issue 12 (worker processes never outlive the
arena): SIGINT and SIGKILL sent to real ``arena`` processes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO, SAMPLES, procs_under, wait_no_procs


def _arena(args: list[str], folder: Path) -> tuple[subprocess.Popen, Path, Path]:
    out, err = folder / "stdout", folder / "stderr"
    env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="200")
    p = subprocess.Popen([sys.executable, "-c", "from arena.cli import main; main()", *map(str, args)], cwd=REPO,
                         env=env, stdout=out.open("w"), stderr=err.open("w"), text=True, start_new_session=True)
    return p, out, err


def _wait_for(cond, p: subprocess.Popen, what: str, timeout: float = 600.0) -> None:
    """Wait for ``cond`` (a bound on a hang by default; a short ``timeout`` is a requirement)."""
    end = time.monotonic() + timeout
    while not cond():
        assert p.poll() is None, f"the arena ended before {what}"
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.05)


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _stored(db: Path) -> int:
    """Board pairs committed so far, seen from the write-ahead log's growth (the file is held)."""
    wal = Path(str(db) + ".wal")
    return wal.stat().st_size if wal.exists() else 0


@pytest.mark.alone  # Ctrl-C answered within 5 s while 4 workers play
def test_ctrl_c_answers_at_once_and_workers_stop(tmp_path):
    db = tmp_path / "a.duckdb"
    p, out, err = _arena(["tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
                          "--bots", SAMPLES / "heuristic", "--boards", 300, "--seed", 3, "--workers", 4,
                          "--db", db], tmp_path)
    _wait_for(lambda: _stored(db) > 100_000, p, "some board pairs were stored")
    workers = [c for c in _children(p.pid) if "spawn" in Path(f"/proc/{c}/cmdline").read_text(errors="replace")]
    assert workers, "the arena runs no worker process"
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGINT)
    _wait_for(lambda: "stopping: the blocks of boards in flight are dropped" in err.read_text(), p, "Ctrl-C was answered", 10)
    answered = time.monotonic() - t0
    assert p.wait(timeout=60) == 130, out.read_text() + err.read_text()
    text = out.read_text() + err.read_text()
    assert "Resume with" in text and "Traceback" not in text
    assert answered < 5, f"Ctrl-C answered after {answered:.1f} s"
    end = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(map(_alive, workers)), "worker processes outlived the arena"
    assert not wait_no_procs(tmp_path), "bot processes left after Ctrl-C"


def test_worker_processes_die_with_a_killed_arena(tmp_path):
    db = tmp_path / "a.duckdb"
    p, out, err = _arena(["tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
                          "--bots", SAMPLES / "heuristic", "--boards", 300, "--seed", 3, "--workers", 3,
                          "--db", db], tmp_path)
    _wait_for(lambda: _stored(db) > 100_000, p, "some board pairs were stored")
    workers = [c for c in _children(p.pid) if "spawn" in Path(f"/proc/{c}/cmdline").read_text(errors="replace")]
    assert workers and procs_under(tmp_path), "no worker or bot process to check"
    os.kill(p.pid, signal.SIGKILL)
    assert p.wait(timeout=10) == -signal.SIGKILL
    end = time.monotonic() + 10
    while any(map(_alive, workers)) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(map(_alive, workers)), "worker processes outlived the arena"
    assert not wait_no_procs(tmp_path), "bot processes left after the arena was killed"


@pytest.mark.alone  # waits for bot processes under the repository's sample_bots/, which other tests run too
def test_arena_match_interrupted_prints_the_boards_played(tmp_path):
    p, out, err = _arena(["match", "--bot", SAMPLES / "random", "--bot", SAMPLES / "greedy", "--boards", 5000,
                          "--seed", 1], tmp_path)
    _wait_for(lambda: "board seed" in out.read_text() and procs_under(REPO / "sample_bots"), p, "bots started")
    os.kill(p.pid, signal.SIGINT)
    _wait_for(lambda: "stopping: the boards of the block in flight are dropped" in out.read_text(), p, "Ctrl-C was answered", 10)
    assert p.wait(timeout=60) == 130
    text = out.read_text() + err.read_text()
    assert "Traceback" not in text
    m = re.search(r"interrupted: (\d+) of 5000 boards played( \(shown above\))?; (\d+) dropped", text)
    assert m, text
    played, dropped = int(m[1]), int(m[3])
    assert played + dropped == 5000 and dropped > 0
    assert bool(m[2]) == bool(played), text  # "shown above" only when a table of boards is shown
    if played:
        assert f"duplicate, {played} boards" in text  # the table of the boards played


def test_ctrl_c_while_the_bots_are_checked_says_so_and_keeps_nothing(tmp_path):
    """New-user trial 3: Ctrl-C during a first run's conformance check ended the arena without a
    word (and the check had taken an interrupted call for the bot's fault).  It says it stopped
    before the first board, exits 130, and leaves no database behind."""
    from tests.referee.botkit import bot_folder

    slow = bot_folder(tmp_path, "sleepy", "--sleep", "0.3", "--every", name="slow-check")  # a check of ~40 s
    db = tmp_path / "a.duckdb"
    p, out, err = _arena(["tournament", "run", "t", "--bots", slow, "--bots", SAMPLES / "random", "--boards", 2,
                          "--db", db], tmp_path)
    _wait_for(lambda: "checking slow-check@1.0.0" in out.read_text(), p, "the check began")
    os.kill(p.pid, signal.SIGINT)
    try:  # a bot start in flight ends first (up to its 3 starts at load 8+: a fresh clone took over 60 s)
        code = p.wait(timeout=180)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("no exit 180 s after Ctrl-C: " + out.read_text() + err.read_text()) from None
    assert code == 130, out.read_text() + err.read_text()
    said = err.read_text()
    assert "stopped (Ctrl-C) while checking the bots, before the first board" in said and "Traceback" not in said
    assert not db.exists()


def test_a_ctrl_c_during_the_check_is_never_lost():
    """A fresh clone at load 8 ran the whole check and the tournament after a Ctrl-C: the
    cancellation met a decision's deadline and ``asyncio.timeout`` took it for its own, so
    ``asyncio.run`` returned normally.  Here the work swallows the cancellation outright; the
    Ctrl-C still ends in ``KeyboardInterrupt`` (the control: ``asyncio.run`` loses it)."""
    import asyncio

    from arena.play.coverage import _run_interruptible

    async def swallows() -> str:
        os.kill(os.getpid(), signal.SIGINT)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "went on"
        return "slept"

    with pytest.raises(KeyboardInterrupt):
        _run_interruptible(swallows())
    assert asyncio.run(swallows()) == "went on"  # the control: asyncio.run alone loses the Ctrl-C
