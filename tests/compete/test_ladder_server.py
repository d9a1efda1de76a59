"""The ladder in the server process, on loopback: SIGKILL while a unit plays, then a restart —
the unit is replayed on its own block and stored once, no block is played twice, nothing is
lost; then `POST /api/v1/close` and the server plays the final and reveals its seed."""

from __future__ import annotations

import hashlib

import duckdb
import httpx

from arena.compete import policy
from arena.compete.hub import Hub
from arena.store import Store

from tests.arena.conftest import wait_no_procs

from .conftest import SAMPLES, Server, until
from .ladder_helpers import competition, enter

BLOCK = 3


def ladder(url: str) -> dict:
    return httpx.get(f"{url}/api/v1/ladder", timeout=30).json()


def _query(db, sql):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_a_killed_server_replays_its_unit_and_plays_no_block_twice(tmp_path):
    db = tmp_path / "results" / "arena.duckdb"
    competition(db, block_boards=BLOCK)
    with Store.open(db) as s:
        _, admin = policy.add_participant(s, "cup", "boss", admin=True)
        tokens = {who: policy.rotate(s, "cup", who)[1] for who in ("ann", "bob")}
    hub = Hub(db, "cup")
    try:
        for who, bot in (("ann", "random"), ("bob", "greedy"), ("cyd", "heuristic")):
            enter(hub, who, SAMPLES / bot)
    finally:
        hub.close()
    server = Server(db, "cup", "--no-isolate")
    try:
        # killed while a unit plays, with at least one stored before it
        until(lambda: (lambda lad: lad["units"]["done"] >= 1 and lad["units"]["playing"] >= 1)(ladder(server.url)["ladder"]),
              120, "a unit stored and the next one playing", every=0.05)
        server.kill()
        assert not wait_no_procs(db.parent / "bots"), "bot processes outlived the killed server"
    finally:
        server.kill()
    playing = _query(db, "SELECT block, version_a, version_b FROM ladder_units WHERE status = 'playing'")
    done_before = _query(db, "SELECT count(*) FROM ladder_units WHERE status = 'done'")[0][0]
    assert playing and done_before >= 1
    # whatever was stored is whole: the board pairs of done units only, BLOCK each
    assert _query(db, "SELECT count(*) FROM board_pairs")[0][0] == done_before * BLOCK
    server = Server(db, "cup", "--no-isolate")
    try:
        until(lambda: ladder(server.url)["ladder"]["units"]["done"] >= done_before + len(playing) + 1, 180,
              "the killed unit replayed and one more stored")
        # issue 22 item 5: the owner sees its ladder rating and reads its own output of a ladder block
        ann = {"Authorization": f"Bearer {tokens['ann']}"}
        mine = httpx.get(f"{server.url}/api/v1/versions", headers=ann, timeout=30).json()
        assert len(mine) == 1 and mine[0]["ladder"]["standing"]["boards"] >= BLOCK
        logs = httpx.get(f"{server.url}/api/v1/versions/{mine[0]['id']}/logs", headers=ann, timeout=30).json()
        block = logs["ladder_blocks"][-1]
        one = httpx.get(f"{server.url}/api/v1/versions/{mine[0]['id']}/logs", params={"block": block}, headers=ann,
                        timeout=30).json()
        assert one["logs"] and all(k.startswith(f"ladder-{block:06d}/random@1.0.0-table") for k in one["logs"])
        bob = {"Authorization": f"Bearer {tokens['bob']}"}
        assert httpx.get(f"{server.url}/api/v1/versions/{mine[0]['id']}/logs", params={"block": block},
                         headers=bob, timeout=30).status_code == 404  # another participant's
        assert httpx.get(f"{server.url}/api/v1/versions/{mine[0]['id']}/logs", params={"block": 10_000},
                         headers=ann, timeout=30).status_code == 404  # a block not kept
        # item 6: a participant chooses its version of the final; another's version is not its to choose
        choose = (lambda who: httpx.put(f"{server.url}/api/v1/final", json={"version": mine[0]["id"]}, headers=who,
                                        timeout=30))
        assert choose(ann).json() == {"participant": "ann", "version": mine[0]["id"]}
        assert httpx.get(f"{server.url}/api/v1/me", headers=ann, timeout=30).json()["final_choice"] == mine[0]["id"]
        assert choose(bob).status_code == 404
        # close through the server: the final is played by it, its seed revealed at the end
        r = httpx.post(f"{server.url}/api/v1/close", json={"boards": 2}, timeout=30,
                       headers={"Authorization": f"Bearer {admin}"})
        assert r.status_code == 200, r.text
        commitment = r.json()["commitment"]
        assert r.json()["seed"] is None and len(r.json()["entrants"]) == 3
        fin = until(lambda: (lambda f: f if f and f["status"] == "complete" else None)(ladder(server.url)["final"]), 180,
                    "the final to be complete")
        assert fin["board_pairs"] == 3 * 2 and fin["commitment"] == commitment
        assert hashlib.sha256(fin["seed"].encode()).hexdigest() == commitment
        report = ladder(server.url)
        assert report["status"] == "closed" and report["ladder"]["seed"] is not None
        assert choose(ann).status_code == 409  # chosen while open only
    finally:
        server.stop()
    # each unit killed while playing was replayed on its block by the same versions, and stored once
    units = _query(db, "SELECT block, version_a, version_b, status, attempts FROM ladder_units ORDER BY block")
    for block, a, b in playing:
        assert (block, a, b, "done") in [u[:4] for u in units]
    assert [u[0] for u in units] == list(range(len(units)))  # the block counter: each block once
    done = [u for u in units if u[3] == "done"]
    rows = _query(db, "SELECT m.entrant_a, m.entrant_b, p.board FROM board_pairs p JOIN matches m USING (match_id) "
                      "WHERE m.tournament = 'cup:ladder'")
    assert len(rows) == len(set(rows)) == len(done) * BLOCK  # nothing stored twice, nothing lost
    assert sorted({board // BLOCK for _, _, board in rows}) == sorted(u[0] for u in done)
    per_block = {}
    for a, b, board in rows:
        per_block.setdefault(board // BLOCK, set()).add((a, b))
    assert all(len(pairs) == 1 for pairs in per_block.values())  # a block is played by one pair only
