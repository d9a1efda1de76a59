"""``arena tournament run`` killed with SIGKILL at 20+ random points, restarted each time,
then finished: the database equals an uninterrupted run's with the same seed
(every compared table, row by row), the ratings are identical, and no bot process is left."""

from __future__ import annotations

import json
import os
import random
import signal
import time

import pytest

from arena.store import Store
from arena.play.submit import submit
from referee.rules import get_ruleset

from .conftest import SAMPLES, cli, output, procs_under, wait_no_procs
from .test_resume import NAME, compare, fresh_copy, snapshot, start, stored_pairs

BOARDS = 50  # per pair (150 board pairs: room for 20 kills before 80% are stored)
PAIRS = 3  # random, greedy, heuristic
BOARD_PAIRS = BOARDS * PAIRS
SEED = 23
KILLS = 20
CAP = 0.8  # the kills stop every run before this share of the board pairs is stored


def kill_point(p, kdb, root, delay: float, cap: int) -> float:
    """Return ``delay`` s after the run's first bot process is up under ``root`` (the arena's
    start — the interpreter, the sandbox's files held in memory — takes longer on a loaded
    machine), or sooner once ``cap`` board pairs are stored: however fast the machine plays,
    the 20 kills land at random points before the end (conditions, not times).  Returns the
    seconds waited from the first bot."""
    while not procs_under(root) and stored_pairs(kdb) < cap:
        assert p.poll() is None, "the run ended before it was killed\n" + "".join(p.communicate())
        time.sleep(0.05)
    t0 = time.monotonic()
    while time.monotonic() < t0 + delay:
        assert p.poll() is None, "the run ended before it was killed\n" + "".join(p.communicate())
        if stored_pairs(kdb) >= cap:
            break
        time.sleep(min(0.05, max(0.0, t0 + delay - time.monotonic())))
    return time.monotonic() - t0


def describe(pids: list[int]) -> str:
    lines = []
    for pid in pids:
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            ppid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
        except OSError:
            cmd, ppid = "(gone)", "?"
        lines.append(f"pid {pid} ppid {ppid}: {cmd}")
    return "\n".join(lines)


def ratings_json(db) -> list:
    r = cli("ratings", "--tournament", NAME, "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    return json.loads(r.stdout)


def run_to_end(db, root) -> str:
    p = start(db, root)
    out, errs = p.communicate(timeout=600)  # a bound on a hang: up to 150 board pairs on a loaded machine
    assert p.returncode == 0, out + errs
    assert "Traceback" not in out + errs
    return out


@pytest.mark.slow
def test_twenty_sigkills_then_finish_equals_the_uninterrupted_run(tmp_path):
    t0 = time.monotonic()
    rng = random.Random()
    db = tmp_path / "template" / "arena.duckdb"
    with Store.open(db) as store:
        rs = get_ruleset("classic")
        store.create_tournament(NAME, rs.name, rs.options(), SEED, BOARDS)
        for bot in ("random", "greedy", "heuristic"):
            submit(store, SAMPLES / bot, store_root=tmp_path / "bots", tournament=NAME)

    ref = fresh_copy(db, tmp_path / "ref")
    text = run_to_end(ref, tmp_path)
    assert f"{BOARD_PAIRS} board pairs played now, 0 already stored" in text
    want, want_ratings = snapshot(ref), ratings_json(ref)
    assert not wait_no_procs(tmp_path)

    kdb = fresh_copy(db, tmp_path / "killed")
    stored, delays, saw_bots = [], [], 0
    while len(delays) < KILLS:
        p = start(kdb, tmp_path)
        done = stored[-1] if stored else 0
        cap = done + (int(CAP * BOARD_PAIRS) - done) // (KILLS - len(delays))
        delay = kill_point(p, kdb, tmp_path, rng.uniform(0.3, 2.5), cap)
        saw_bots += bool(procs_under(tmp_path))
        os.kill(p.pid, signal.SIGKILL)  # only the arena process: its bots die with it (PDEATHSIG)
        assert p.wait(timeout=10) == -signal.SIGKILL
        p.communicate()
        left = wait_no_procs(tmp_path)
        assert not left, f"bot processes left after kill {len(delays) + 1}:\n" + describe(left)
        delays.append(delay)
        stored.append(stored_pairs(kdb))
    print(f"{KILLS} kills after {', '.join(f'{d:.2f}' for d in delays)} s; board pairs stored after each: {stored}")
    assert stored == sorted(stored), "a kill lost board pairs already stored"
    assert stored[-1] < BOARD_PAIRS, "the kills came after the end"
    assert saw_bots, "no bot process was ever running when killed: the scan would prove nothing"

    text = run_to_end(kdb, tmp_path)
    n = stored[-1]
    assert f"{BOARD_PAIRS - n} board pairs played now, {n} already stored" in text
    compare(snapshot(kdb), want)
    assert ratings_json(kdb) == want_ratings
    assert not wait_no_procs(tmp_path)
    # its time is reported, not asserted: at load 8 it took 291 s against the 240 s once asserted
    # (tests wait for conditions, never for times)
    print(f"test_crash: {time.monotonic() - t0:.0f} s")
