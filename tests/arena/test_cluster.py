"""Issue 12: a tournament on a Dask cluster gives exactly the results of ``--workers 1``,
even when a worker is killed mid-run (its unit is played again elsewhere; every board pair
is stored once), and bots travel as frozen copies checked by content hash."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import duckdb
import pytest

from arena.play import tournament
from arena.play.cluster import BotArchive, ClusterError, DaskExecutor
from arena.store import Store
from arena.play.submit import submit
from referee.manifest import content_hash
from referee.rules import get_ruleset

from .conftest import SAMPLES, cli, output, wait_no_procs

NAME = "cluster"
BOARDS = 8  # per pair: 3 matches, 24 board pairs
SEED = 5


def _make(root: Path) -> Path:
    db = root / "arena.duckdb"
    with Store.open(db) as store:
        rs = get_ruleset("classic")
        store.create_tournament(NAME, rs.name, rs.options(), SEED, BOARDS)
        for bot in ("random", "greedy", "heuristic"):
            submit(store, SAMPLES / bot, store_root=root / "bots", tournament=NAME)
    return db


def _rows(db: Path):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return (
            con.sql("SELECT match_id, board, points_a, points_b, margin, forfeit_a, forfeit_b FROM board_pairs "
                    "ORDER BY ALL").fetchall(),
            con.sql("SELECT match_id, board, table_no, idx, seat, kind, value FROM actions ORDER BY ALL").fetchall(),
        )
    finally:
        con.close()


def test_local_cluster_with_a_worker_killed_gives_the_results_of_one_worker(tmp_path, monkeypatch):
    ref = _make(tmp_path / "ref")
    with Store.open(ref) as store:
        s = tournament.run(store, NAME, workers=1)
    assert s.played == 3 * BOARDS and not s.errors

    # the cluster's workers (and so their bots) put their files under this folder
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    db = _make(tmp_path / "dask")
    ex = DaskExecutor("local:2")  # 3 units (the matches) on 2 worker processes
    assert ex.workers() == 2
    killed: list[int] = []
    over = threading.Event()

    def kill_a_busy_worker() -> None:
        """Kill the first worker seen playing a unit, after the first board pairs are stored
        (waited for as conditions: a fresh clone under load found no worker busy at the
        moments board pairs came in, a field of 3 playing one match at a time)."""
        while not over.is_set() and not stored:
            time.sleep(0.05)
        while not over.is_set():
            busy = [w for w, keys in ex.client.processing().items() if keys]
            if busy:
                pid = ex.client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    stored: list[int] = []
    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    try:
        with Store.open(db) as store:
            s = tournament.run(store, NAME, executor=ex, on_progress=lambda done, total: stored.append(done))
    finally:
        over.set()
        killer.join()
    assert killed, "no worker was seen busy after the first board pairs: nothing was killed"
    assert not s.errors, s.errors
    assert (s.played, s.total, s.interrupted) == (3 * BOARDS, 3 * BOARDS, False)
    assert _rows(db) == _rows(ref)
    assert len(_rows(db)[0]) == 3 * BOARDS  # each board pair stored once
    assert not wait_no_procs(tmp_path / "tmp"), "bot processes left by the cluster's workers"


def test_a_frozen_copy_that_arrives_changed_is_refused(tmp_path):
    folder = SAMPLES / "random"
    digest = content_hash(folder)
    archive = BotArchive.pack(folder, digest)
    assert content_hash(archive.unpack(tmp_path / "ok")) == digest
    forged = BotArchive("0" * 64, archive.data)
    with pytest.raises(ClusterError, match="arrived changed"):
        forged.unpack(tmp_path / "forged")
    assert not (tmp_path / "forged" / ("0" * 64)).exists()
    assert not list((tmp_path / "forged").iterdir())  # no partial copy left


def test_cluster_local_from_the_command_line(tmp_path):
    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", "c", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
            "--boards", 3, "--seed", 2, "--cluster", "local:1", "--db", db)
    assert r.exit_code == 0, output(r)
    assert "3 board pairs played now" in output(r)
    r = cli("tournament", "run", "c", "--cluster", "local:0", "--db", db)
    assert r.exit_code == 1 and "local:N with N ≥ 1" in output(r)
