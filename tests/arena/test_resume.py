"""Interrupting ``arena tournament run`` (SIGKILL, SIGINT) and resuming gives exactly the uninterrupted results."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from arena.store import Store
from arena.play.submit import submit
from referee.rules import get_ruleset

from .conftest import REPO, SAMPLES, procs_under, wait_no_procs

NAME = "resume"
BOARDS = 16
PAIRS = 3  # random, greedy, heuristic
BOARD_PAIRS = BOARDS * PAIRS
SEED = 11
COMPARED = ("board_pairs", "deals", "actions", "faults", "matches", "boards")
EXCLUDED = {"written_at", "ms"}


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A database with the tournament created and two bots entered (nothing played), and the finished reference."""
    root = tmp_path_factory.mktemp("resume")
    db = root / "template" / "arena.duckdb"
    with Store.open(db) as store:
        rs = get_ruleset("classic")
        store.create_tournament(NAME, rs.name, rs.options(), SEED, BOARDS)
        # random included: the SDK restarts a bot's RNG at every deal from (process seed, deal
        # number) and the referee numbers deals by board, so a resumed match replays identically.
        for bot in ("random", "greedy", "heuristic"):
            submit(store, SAMPLES / bot, store_root=root / "bots", tournament=NAME)
    ref = fresh_copy(db, root / "ref")
    p = start(ref, root)
    out, errs = p.communicate(timeout=120)
    assert p.returncode == 0, out + errs
    assert f"{BOARD_PAIRS} board pairs played now, 0 already stored" in out
    return root, db, snapshot(ref)


def fresh_copy(db: Path, folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(db, folder / db.name)
    return folder / db.name


def start(db: Path, root: Path, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="200")
    return subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run", NAME, "--db", str(db)],
        cwd=REPO, env=env, stdout=kw.get("stdout", subprocess.PIPE), stderr=kw.get("stderr", subprocess.PIPE),
        text=True, start_new_session=True,
    )


def snapshot(db: Path) -> dict[str, list[tuple]]:
    out = {}
    with duckdb.connect(str(db), read_only=True) as con:
        for table in COMPARED:
            cols = [c for c, *_ in con.execute(f"DESCRIBE {table}").fetchall() if c not in EXCLUDED]
            sel = ", ".join(cols)
            out[table] = con.execute(f"SELECT {sel} FROM {table} ORDER BY ALL").fetchall()
    return out


def stored_pairs(db: Path) -> int:
    with Store.open(db, read_only=True) as s:  # waits while the run writes a batch
        return s.con.execute("SELECT count(*) FROM board_pairs").fetchone()[0]


def run_until_started(db: Path, root: Path, folder: Path) -> tuple[subprocess.Popen, Path, Path]:
    """Start a run writing to files; return once it printed its header (bots are being started)."""
    out, err = folder / "stdout", folder / "stderr"
    p = start(db, root, stdout=out.open("w"), stderr=err.open("w"))
    end = time.monotonic() + 60
    while "entrants:" not in out.read_text():
        assert p.poll() is None, out.read_text() + err.read_text()
        assert time.monotonic() < end, "the run never started"
        time.sleep(0.05)
    return p, out, err


def wait_for_writes(db: Path, p: subprocess.Popen, at_least: int = 3, timeout: float = 60.0) -> None:
    """Wait until the run stored ``at_least`` board pairs, read while it runs (it holds
    the file only while it writes a batch)."""
    end = time.monotonic() + timeout
    while stored_pairs(db) < at_least:
        assert p.poll() is None, "the run ended before it was interrupted"
        assert time.monotonic() < end, f"fewer than {at_least} board pairs stored after {timeout} s"
        time.sleep(0.05)


def finish(db: Path, root: Path) -> str:
    p = start(db, root)
    out, errs = p.communicate(timeout=120)
    assert p.returncode == 0, out + errs
    assert "Traceback" not in out + errs
    return out


def compare(got: dict, want: dict) -> None:
    for table in COMPARED:
        assert len(got[table]) == len(want[table]), table
        for g, w in zip(got[table], want[table]):
            assert g == w, f"{table} differs:\n{g}\n{w}"


def test_resume_after_sigkill(template):
    root, db, want = template
    kdb = fresh_copy(db, root / "killed")
    p, out, err = run_until_started(kdb, root, kdb.parent)
    wait_for_writes(kdb, p, at_least=random.randint(3, BOARD_PAIRS // 2))  # a random point, not a time
    end = time.monotonic() + 30  # between two matches no bot runs: wait for the next one's (a condition, not a time)
    while not procs_under(root):
        assert p.poll() is None and time.monotonic() < end, "no bot process found: the scan would prove nothing"
        time.sleep(0.02)
    os.kill(p.pid, signal.SIGKILL)  # only the arena process: its bots must die with it (PDEATHSIG)
    assert p.wait(timeout=10) == -signal.SIGKILL
    left = wait_no_procs(root)
    assert not left, f"bot processes left after SIGKILL: {left}"
    n = stored_pairs(kdb)
    print(f"SIGKILL: {n} of {BOARD_PAIRS} board pairs stored before the resume")
    assert 0 < n < BOARD_PAIRS, "killed before any or after every board pair was stored"
    text = finish(kdb, root)
    assert f"{BOARD_PAIRS - n} board pairs played now, {n} already stored" in text
    compare(snapshot(kdb), want)
    assert not wait_no_procs(root)


def test_sigint_then_resume(template):
    root, db, want = template
    idb = fresh_copy(db, root / "interrupted")
    p, out, err = run_until_started(idb, root, idb.parent)
    wait_for_writes(idb, p, at_least=random.randint(3, BOARD_PAIRS // 2))
    os.kill(p.pid, signal.SIGINT)
    rc = p.wait(timeout=60)
    text = out.read_text() + err.read_text()
    assert rc == 130, text
    assert "Resume with" in text and "Traceback" not in text
    assert not wait_no_procs(root), "bot processes left after SIGINT"
    n = stored_pairs(idb)
    print(f"SIGINT: {n} of {BOARD_PAIRS} board pairs stored before the resume")
    assert n < BOARD_PAIRS
    finish(idb, root)
    compare(snapshot(idb), want)
