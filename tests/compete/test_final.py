"""The final (arena/compete/final.py): `arena compete close` locks uploads, reveals the ladder's
seed, plays a duplicate round robin of each participant's latest active version under a new
secret seed, every pair on the same boards, and publishes the seed whose SHA-256 is the
commitment printed first, with the standings beside the ladder's."""

from __future__ import annotations

import hashlib
import json
import re

import duckdb
import pytest

from arena.cli.compete import rating_text
from arena.compete import final
from arena.compete.hub import Hub
from arena.compete.ladder import Ladder
from arena.store import StoreError
from referee.sandbox import Limits

from .conftest import SAMPLES, bot_copy, cli, output
from .ladder_helpers import competition, enter


def test_close_plays_a_final_on_identical_boards_and_reveals_the_committed_seed(tmp_path):
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=2)
    hub = Hub(db, "cup")
    try:
        old = enter(hub, "ann", bot_copy("random", tmp_path / "r1", name="anns"))
        latest = enter(hub, "ann", bot_copy("random", tmp_path / "r2", name="anns", version="2.0.0"))
        enter(hub, "bob", SAMPLES / "greedy")
        enter(hub, "cyd", SAMPLES / "heuristic")
        ladder = Ladder(hub, Limits(isolate=False))
        assert ladder.step().status == "done"  # one ladder block before the close
        ladder_commitment = hub.run(lambda s: s.get_tournament("cup:ladder").commitment)
    finally:
        hub.close()
    r = cli("compete", "close", "cup", "--boards", 3, "--no-isolate", "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report["status"] == "closed"
    fin = report["final"]
    assert fin["status"] == "complete" and fin["board_pairs"] == fin["total"] == 3 * 3
    assert [e["bot"] for e in fin["entrants"]] == ["anns@2.0.0", "greedy@1.0.0", "heuristic@1.0.0"]
    assert fin["entrants"][0]["version"] == latest.id != old.id  # ann's latest active version
    # commit and reveal: the seed's SHA-256 is the commitment, for the final and the ladder
    assert hashlib.sha256(fin["seed"].encode()).hexdigest() == fin["commitment"]
    assert report["ladder"]["commitment"] == ladder_commitment
    assert hashlib.sha256(report["ladder"]["seed"].encode()).hexdigest() == ladder_commitment
    assert fin["seed"] != report["ladder"]["seed"]
    assert {s["name"] for s in fin["standings"]} == {"anns", "greedy", "heuristic"}
    assert all(s["boards"] == 6 for s in fin["standings"])  # 2 opponents x 3 boards
    con = duckdb.connect(str(db), read_only=True)
    try:
        decks = con.execute("SELECT d.board, d.table_no, count(DISTINCT d.deck::VARCHAR), count(*) FROM deals d "
                            "JOIN matches m USING (match_id) WHERE m.tournament = 'cup:final' "
                            "GROUP BY ALL ORDER BY ALL").fetchall()
        # every pair played each board: the same deck at table 1, the same renamed deck at table 2
        assert decks == [(b, t, 1, 3) for b in range(3) for t in (1, 2)]
        assert con.execute("SELECT status FROM competitions").fetchall() == [("closed",)]
        assert con.execute("SELECT count(*) FROM ladder_units WHERE status = 'playing'").fetchall() == [(0,)]
    finally:
        con.close()
    # the standings, the ladder's and the final's, as text too
    r = cli("compete", "standings", "cup", "--db", db)
    assert r.exit_code == 0, output(r)
    assert "final (complete)" in r.stdout and fin["seed"] in r.stdout.replace("\n", "")
    # the final's lines as the ladder's: whole Elo, its interval, never None
    lines = r.stdout.splitlines()
    final_lines = lines[[k for k, line in enumerate(lines) if line.startswith("final (")][0] + 1:]
    assert len(final_lines) == 3 and "None" not in r.stdout, r.stdout
    for line in final_lines:
        assert re.fullmatch(r" +\d\. \S+@\d\.0\.0 \((ann|bob|cyd)\) \d+ \[(\d+, \d+|≥ \d+|≤ \d+)\] 6 board pairs",
                            line), line


def test_the_standings_show_whole_elo_and_a_one_sided_interval_as_the_readme_does():
    """The final's line of the trial (`1746.1 [1037.7, None]`) and the ladder's, one formatter."""
    assert rating_text({"elo": 1746.1, "ci_low": 1037.7, "ci_high": None}) == "1746 [≥ 1038]"
    assert rating_text({"elo": 1253.9, "ci_low": None, "ci_high": 1962.3}) == "1254 [≤ 1962]"
    assert rating_text({"elo": 1512.4, "ci_low": 1440.0, "ci_high": 1589.6}) == "1512 [1440, 1590]"


def test_a_participants_own_choice_enters_the_final(tmp_path):
    """Issue 22 item 6: the version a participant chose (not its latest) enters the final; a
    choice of a version that is not an active one of its own is refused, and so is any choice
    once the competition is closed."""
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    hub = Hub(db, "cup")
    try:
        old = enter(hub, "ann", bot_copy("random", tmp_path / "r1", name="anns"))
        enter(hub, "ann", bot_copy("random", tmp_path / "r2", name="anns", version="2.0.0"))
        bob_v = enter(hub, "bob", SAMPLES / "greedy")
        hub.run(lambda s: s.choose_final("cup", "ann", old.id))
        with pytest.raises(StoreError, match="not an active version of 'ann'"):
            hub.run(lambda s: s.choose_final("cup", "ann", bob_v.id))
        assert hub.run(lambda s: s.final_choices("cup")) == {"ann": old.id}
        t = hub.run(lambda s: final.close(s, "cup", boards=1))
        assert sorted(hub.run(lambda s: s.entrants(t.name))) == [("anns", "1.0.0"), ("greedy", "1.0.0")]
        with pytest.raises(StoreError, match="is not open"):
            hub.run(lambda s: s.choose_final("cup", "ann", old.id))
    finally:
        hub.close()


def test_whoami_and_list_show_the_options_the_status_and_the_final_once_closed(tmp_path, remote_env, monkeypatch):
    """`arena remote whoami` (the /me of the app, in process) and `arena compete list`: the §6.4
    options and the status; once closed, the final under way then played, never a choice."""
    import threading

    from fastapi.testclient import TestClient

    from arena.compete import policy
    from arena.compete.client import Remote
    from arena.compete.server import build
    from arena.store import Store

    db = tmp_path / "arena.duckdb"
    with Store.open(db) as s:
        policy.create(s, "cup", "classic", {"contree": True})
        tokens = {who: policy.add_participant(s, "cup", who)[1] for who in ("ann", "bob")}
    app, hub, _, _ = build(db, "cup", limits=Limits(isolate=False), ladder_workers=0)
    try:
        mine = enter(hub, "ann", SAMPLES / "random")
        enter(hub, "bob", SAMPLES / "greedy")
        client = TestClient(app, base_url="http://127.0.0.1")
        monkeypatch.setattr(Remote, "me", lambda self: client.get("/api/v1/me", headers=self._http.headers).json())
        monkeypatch.setenv("ARENA_TOKEN", tokens["ann"])

        def whoami() -> str:
            r = cli("remote", "whoami", "--server", "http://127.0.0.1:9")
            assert r.exit_code == 0, output(r)
            return " ".join(r.stdout.split())

        text = whoami()
        assert text.startswith("ann (participant) in cup (open): classic declarations=on contree=on; uploads_per_day=")
        assert "choose another with `arena remote final VERSION`" in text
        hub.run(lambda s: final.close(s, "cup", boards=1))
        text = whoami()
        assert "in cup (closed): classic declarations=on contree=on;" in text and "uploads: none" in text
        assert f"the final is under way, your version {mine.id} in it" in text and "choose" not in text
        assert final.play_in_server(hub, Limits(isolate=False), threading.Event())
        assert (f"the final is played, your version {mine.id} in it: `arena compete standings cup --server "
                "http://127.0.0.1:9` shows it") in whoami()
        r = cli("remote", "whoami", "--server", "http://127.0.0.1:9", "--json")
        assert json.loads(r.stdout)["final"] == {"status": "complete", "version": mine.id}
    finally:
        hub.close()
    r = cli("compete", "list", "--db", db)
    assert r.exit_code == 0, output(r)
    assert " ".join(r.stdout.split()).startswith("cup (closed): classic declarations=on contree=on; uploads_per_day=")


def test_the_finals_boards_are_public_only_once_every_pair_has_played_them(tmp_path):
    """Red team 42: with the final at some of its board pairs, its seed secret, anyone read the
    full deals of every final board (the boards the other pairs had yet to play) from the first
    stored match: its boards, records and match pages. Every route that shows a final board's
    cards now answers 404 "not yet" until the final is complete, then shows it; the ladder's
    blocks stay public as they are stored, and the final's standings and match list too."""
    import threading
    from urllib.parse import quote

    from fastapi.testclient import TestClient

    from arena.compete.server import build
    from arena.play.executors import play_unit

    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    app, hub, _, ladder = build(db, "cup", limits=Limits(isolate=False), ladder_workers=0)
    try:
        enter(hub, "ann", bot_copy("random", tmp_path / "anns", name="anns"))
        enter(hub, "bob", SAMPLES / "greedy")
        enter(hub, "cyd", SAMPLES / "heuristic")
        assert ladder.step().status == "done"  # a ladder block before the close
        block = hub.run(lambda s: s.matches(tournament="cup:ladder"))[0].match_id.split("/", 1)[1]
        hub.run(lambda s: final.close(s, "cup", boards=2))
        stop = threading.Event()

        def one_match(work, unit, emit):  # the final stopped after its first match: 1 of 3 stored
            play_unit(work, unit, emit, lambda: False)
            stop.set()

        assert not final.play_in_server(hub, Limits(isolate=False), stop, one_match)
        stored = hub.run(lambda s: s.matches(tournament="cup:final"))
        assert len(stored) == 1
        pair = quote(stored[0].match_id.split("/", 1)[1], safe="")
        client = TestClient(app, base_url="http://127.0.0.1")
        m = f"/matches/cup:final/{pair}"
        cards = [f"/api{m}", f"/api{m}/boards/0", f"/api{m}/boards/1?suits=table", m, f"{m}/boards/0",
                 f"{m}/boards/1?suits=table", f"{m}/records.jsonl", f"{m}/boards/0/logs/1/0/0"]
        for url in cards:
            r = client.get(url)
            assert r.status_code == 404 and "not yet: the final of cup is being played" in r.text, (url, r.text[:300])
        for name in ("anns", "greedy", "heuristic"):  # a bot's slowest decisions: none of the final's
            assert all(not d["match_id"].startswith("cup:final/") for d in client.get(f"/api/bots/{name}").json()
                       ["slowest"])
            page = client.get(f"/bots/{name}")
            assert page.status_code == 200 and "cup:final/" not in page.text
        # the ladder's block stays public; the final's standings and its list of matches too
        assert client.get(f"/api/matches/cup:ladder/{quote(block, safe='')}/boards/0").status_code == 200
        assert client.get("/api/tournaments/cup:final").json()["board_pairs"] == 2
        assert client.get("/tournaments/cup:final").status_code == 200
        assert len(client.get("/api/tournaments/cup:final/matches").json()) == 1
        # complete (the seed revealed): every board of the final is public
        assert final.play_in_server(hub, Limits(isolate=False), threading.Event())
        for url in cards[:-1]:
            r = client.get(url)
            assert r.status_code == 200, (url, r.text[:300])
        assert len(client.get(f"{m}/records.jsonl").text.splitlines()) == 2 * 2  # 2 boards x 2 tables
        assert "not yet" not in client.get(cards[-1]).text  # no output kept: a plain 404
    finally:
        hub.close()
