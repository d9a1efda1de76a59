"""Watching a running tournament (issue 14 items 1 and 4): every report reads the
database, read-only, while ``arena tournament run`` writes it in another process;
the status shown is the truth (running with N of M, complete, interrupted after a
SIGKILL, incomplete after a new entrant); one arena runs a database at a time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from .conftest import REPO, SAMPLES, cli, copy_bot, output, wait_no_procs

NAME = "watched"
BOARDS = 40
TOTAL = 3 * BOARDS


def start(db, *bots: str) -> subprocess.Popen:
    args = ["tournament", "run", NAME, "--boards", str(BOARDS), "--seed", "5", "--db", str(db)]
    for b in bots:
        args += ["--bots", b]
    return subprocess.Popen([sys.executable, "-c", "from arena.cli import main; main()", *args], cwd=REPO,
                            env=dict(os.environ, COLUMNS="200"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def listing(db) -> dict:
    r = cli("tournament", "list", "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    return {t["name"]: t for t in json.loads(r.stdout)}.get(NAME, {})


def test_reports_read_while_a_tournament_writes_then_status_is_true(tmp_path):
    db = tmp_path / "arena.duckdb"
    p = start(db, *(str(SAMPLES / b) for b in ("random", "greedy", "heuristic")))
    seen: list[int] = []
    refused: list[str] = []
    noted: list[str] = []
    end = time.monotonic() + 600  # a bound on a hang, as below
    try:
        while p.poll() is None and time.monotonic() < end:
            t = listing(db) if db.exists() else {}
            if t.get("status") == "running" and 0 < t["board_pairs"] < TOTAL:
                assert t["board_pairs_total"] == TOTAL
                seen.append(t["board_pairs"])
                r = cli("ratings", "--tournament", NAME, "--json", "--db", db)
                assert r.exit_code == 0, output(r)
                assert sum(o["boards"] for o in json.loads(r.stdout)) >= 2 * t["board_pairs"]
                if "is running: " in r.stderr:  # (unless the run ended meanwhile)
                    assert f"of {TOTAL} board pairs stored, so these are the standings so far" in r.stderr
                    noted.append(r.stderr)
                else:
                    assert listing(db)["status"] == "complete", output(r)
                for cmd in (["matches", "--tournament", NAME], ["tournament", "show", NAME], ["bots", "list"]):
                    r = cli(*cmd, "--db", db)
                    assert r.exit_code == 0, output(r)
                if not refused:  # a second writer is refused, naming what runs (unless the run just ended)
                    r = cli("tournament", "run", NAME, "--db", db)
                    if r.exit_code == 1:
                        assert f"is running tournament '{NAME}'" in r.stderr, output(r)
                        refused.append(r.stderr)
                        # so is a test, before it is stored (the new-user trial: it was left "interrupted")
                        r = cli("sprt", "random", "greedy", "--name", "during", "--max-boards", 20, "--db", db)
                        assert r.exit_code == 1 and f"is running tournament '{NAME}'" in r.stderr, output(r)
                    else:
                        assert f"0 board pairs played now, {TOTAL} already stored" in r.stdout, output(r)
            time.sleep(0.1)
        out, errs = p.communicate(timeout=600)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 0, out + errs
    assert len(seen) >= 2 and seen[-1] > seen[0], f"standings never seen growing while running: {seen}"
    assert noted, "ratings never said the standings were of a running tournament"
    assert refused, "a second arena was never refused while the first ran"
    assert listing(db)["status"] == "complete" and listing(db)["board_pairs"] == TOTAL
    r = cli("tournament", "list", "--json", "--db", db)
    assert "during" not in {t["name"] for t in json.loads(r.stdout)}, r.stdout
    r = cli("ratings", "--tournament", NAME, "--db", db)
    assert r.exit_code == 0 and "standings so far" not in r.stderr, output(r)

    # a new entrant makes it incomplete (its pairs unplayed), and ratings say so
    r = cli("bots", "submit", copy_bot(SAMPLES / "greedy", tmp_path / "greedy2", "2.0.0"), "--tournament", NAME,
            "--db", db)
    assert r.exit_code == 0, output(r)
    t = listing(db)
    assert (t["status"], t["board_pairs"], t["board_pairs_total"]) == ("incomplete", TOTAL, 6 * BOARDS)
    r = cli("ratings", "--tournament", NAME, "--db", db)
    assert r.exit_code == 0 and f"is incomplete: {TOTAL} of {6 * BOARDS} board pairs stored" in r.stderr, output(r)


def test_a_killed_arena_shows_interrupted_not_running(tmp_path):
    db = tmp_path / "arena.duckdb"
    # three matches, each stored as one block of its 40 boards: killed once the first is stored
    p = start(db, str(SAMPLES / "random"), str(SAMPLES / "greedy"), str(SAMPLES / "heuristic"))
    end = time.monotonic() + 600  # a bound on a hang: the first block of 40 boards, on a loaded machine
    while not (db.exists() and listing(db).get("board_pairs", 0) > 0):
        assert p.poll() is None, "".join(p.communicate())
        assert time.monotonic() < end, "nothing stored in 600 s"
        time.sleep(0.05)
    assert listing(db)["status"] == "running"
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=10)
    assert not wait_no_procs(tmp_path)
    t = listing(db)
    assert t["status"] == "interrupted" and 0 < t["board_pairs"] < TOTAL, t


def test_a_reader_needs_only_read_permission(tmp_path):
    """Reports open the file read-only: a user who may only read it (here root without
    the capabilities that bypass file permissions) can still run them, and the file
    is not changed."""
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", NAME, "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--boards", 2,
            "--seed", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    before = db.read_bytes()
    os.chmod(db, 0o444)
    os.chmod(tmp_path, 0o555)
    drop = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
    try:
        out = {cmd[0]: subprocess.run([*drop, sys.executable, "-c", "from arena.cli import main; main()", *cmd,
                                       "--db", str(db)], cwd=REPO, capture_output=True, text=True, timeout=60)
               for cmd in (["ratings", "--tournament", NAME, "--json"], ["matches", "--json"],
                           ["tournament", "list", "--json"], ["bots", "list"])}
        denied = subprocess.run([*drop, "sh", "-c", f"echo x >> {db}"], capture_output=True, text=True)
    finally:
        os.chmod(tmp_path, 0o755)
        os.chmod(db, 0o644)
    assert denied.returncode != 0, "the test's reader could write the file: it would prove nothing"
    for name, o in out.items():
        assert o.returncode == 0, f"{name}: {o.stdout}{o.stderr}"
    assert sorted(o["name"] for o in json.loads(out["ratings"].stdout)) == ["greedy", "random"]
    assert db.read_bytes() == before
