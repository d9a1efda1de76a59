"""Challenges (issue 22 item 5; arena/compete/challenge.py): a participant's unrated match of its
version against chosen active versions on practice boards — asked through the API, played by
the ladder's thread a match at a time, taking turns with ladder units, summarised per opponent,
never rated; its own bot output only; the quota answers 429; another participant's challenge is
404."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from arena.compete import challenge, policy
from arena.compete.ladder import Ladder
from arena.compete.server import build
from arena.store import Store
from referee.sandbox import Limits

from .conftest import SAMPLES, bot_copy, until
from .ladder_helpers import competition, enter


@pytest.fixture
def api(tmp_path):
    """The competition ``cup`` with ann (a random bot that says hello on stderr), bob (greedy) and
    cyd (heuristic) active; the server's app, its hub and ladder (not started), and tokens."""
    db = tmp_path / "arena.duckdb"
    competition(db)
    with Store.open(db) as s:
        tokens = {who: policy.rotate(s, "cup", who)[1] for who in ("ann", "bob", "cyd")}
    app, hub, _, ladder = build(db, "cup", limits=Limits(isolate=False), ladder_workers=0, challenges_per_day=2)
    try:
        talker = bot_copy("random", tmp_path / "talker", name="talker")
        (talker / "talk.py").write_text("import runpy, sys\nprint('ANN-SAYS-HELLO', file=sys.stderr, flush=True)\n"
                                        "runpy.run_path('bot.py', run_name='__main__')\n")
        toml = talker / "bot.toml"
        toml.write_text(toml.read_text().replace('["python", "bot.py"]', '["python", "talk.py"]'))
        versions = {"ann": enter(hub, "ann", talker), "bob": enter(hub, "bob", SAMPLES / "greedy"),
                    "cyd": enter(hub, "cyd", SAMPLES / "heuristic")}
        with TestClient(app, base_url="http://127.0.0.1") as client:
            yield client, hub, ladder, tokens, versions
    finally:
        hub.close()


def _auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_a_challenge_is_played_unrated_against_each_opponent_with_its_own_output(api):
    client, hub, ladder, tokens, v = api
    ann = _auth(tokens["ann"])
    r = client.post("/api/v1/challenges", json={"version": v["ann"].id, "opponents": [v["bob"].id, v["cyd"].id],
                                                 "boards": 2}, headers=ann)
    assert r.status_code == 201, r.text
    ch = r.json()
    assert ch["status"] == "queued" and ch["opponents"] == [v["bob"].id, v["cyd"].id] and ch["boards"] == 2
    done = challenge.play_next(hub, ladder.limits, lambda: False, set())
    assert done.id == ch["id"] and done.status == "done", done.reason
    got = client.get(f"/api/v1/challenges/{ch['id']}", headers=ann).json()
    results = got["result"]["opponents"]
    assert [x["bot"] for x in results] == ["greedy@1.0.0", "heuristic@1.0.0"]
    assert all(x["boards"] == 2 and x["wins"] + x["draws"] + x["losses"] == 2 and x["faults"] == [] for x in results)
    # the challenger's own output only (its two seats at both tables, against each opponent)
    assert {k.split("/")[1] for k in got["logs"]} == {f"vs-{v['bob'].id}", f"vs-{v['cyd'].id}"}  # each opponent's
    assert all(k.split("/")[2].startswith("talker@1.0.0-table") for k in got["logs"])
    assert all("ANN-SAYS-HELLO" in text for text in got["logs"].values())
    # unrated: no board pair, no ladder unit; nothing left of the match's folder
    assert hub.run(lambda s: s.con.execute("SELECT count(*) FROM board_pairs").fetchone()[0]) == 0
    assert hub.run(lambda s: s.ladder_units("cup")) == []
    assert not any((hub.logs / "units").iterdir())
    # another participant's challenge answers as one that does not exist
    assert client.get(f"/api/v1/challenges/{ch['id']}", headers=_auth(tokens["bob"])).status_code == 404
    assert client.get("/api/v1/challenges", headers=_auth(tokens["bob"])).json() == []


def test_a_challenge_is_refused_with_what_to_change(api):
    client, hub, _, tokens, v = api
    ann = _auth(tokens["ann"])
    ask = (lambda **body: client.post("/api/v1/challenges", json={"version": v["ann"].id, "opponents":
                                                                   [v["bob"].id], **body}, headers=ann))
    r = ask(version=v["bob"].id)
    assert r.status_code == 404 and "no version" in r.json()["detail"]  # another's version
    r = ask(opponents=[v["ann"].id])
    assert r.status_code == 404 and "not another active version" in r.json()["detail"]  # itself
    assert ask(opponents=[]).status_code == 422 and ask(boards=17).status_code == 422
    assert ask().status_code == 201 and ask().status_code == 201
    r = ask()  # the server's quota: 2 in any 24 hours
    assert r.status_code == 429 and 0 < int(r.headers["retry-after"]) <= 86400
    assert "2 challenges in the last 24 hours" in r.json()["detail"]
    hub.run(lambda s: s.set_competition_status("cup", "closed"))
    assert client.post("/api/v1/challenges", json={"version": v["bob"].id, "opponents": [v["ann"].id]},
                       headers=_auth(tokens["bob"])).status_code == 409
    assert challenge.challenge_seed(1, 1) != challenge.challenge_seed(1, 2)  # each challenge its own boards


def test_the_ladder_thread_plays_a_challenges_match_before_the_next_unit(api, monkeypatch):
    """A queued challenge's match comes before the ladder's next unit: a one-opponent challenge
    is done at the thread's first ask for a unit."""
    client, hub, ladder, tokens, v = api
    r = client.post("/api/v1/challenges", json={"version": v["cyd"].id, "opponents": [v["ann"].id], "boards": 1},
                    headers=_auth(tokens["cyd"]))
    assert r.status_code == 201
    seen = []
    monkeypatch.setattr(ladder, "step", lambda: seen.append(hub.run(lambda s: s.get_challenge(r.json()["id"]))))
    ladder.workers = 1
    ladder.start()
    try:
        until(lambda: seen, 120, "the ladder to ask for a unit")
    finally:
        ladder.stop(timeout=30)
    assert seen[0].status == "done" and seen[0].result["opponents"][0]["boards"] == 1


def test_a_slow_challenge_takes_turns_with_the_ladder_and_still_completes(tmp_path, monkeypatch):
    """Red team 42: a challenge whose play is slow (here each match is held 1.5 s longer, as a bot
    answering near its deadline would) held the ladder's thread until it was done: no ladder block
    was stored for 25.8 minutes. Now the ladder plays between the challenge's matches: blocks are
    stored before each of its 2nd and 3rd matches, and the challenge completes."""
    db = tmp_path / "arena.duckdb"
    competition(db, participants=("ann", "bob", "cyd", "dan"), block_boards=1)
    _, hub, _, ladder = build(db, "cup", limits=Limits(isolate=False), ladder_workers=0)
    try:
        v = {who: enter(hub, who, SAMPLES / bot) for who, bot in
             (("ann", "random"), ("bob", "greedy"), ("cyd", "heuristic"))}
        v["dan"] = enter(hub, "dan", bot_copy("random", tmp_path / "dans", name="dans"))
        ch = hub.run(lambda s: challenge.ask(s, "cup", "ann", v["ann"].id, [v[w].id for w in ("bob", "cyd", "dan")],
                                             1, 5))
        blocks_before = []  # ladder blocks stored when each of the challenge's matches began
        real = challenge.play_match

        def slow(*args, **kwargs):
            blocks_before.append(hub.run(lambda s: len(s.ladder_units("cup", statuses=("done",)))))
            time.sleep(1.5)  # the slow bot's play (not a wait for a condition)
            return real(*args, **kwargs)

        monkeypatch.setattr(challenge, "play_match", slow)
        ladder.workers, ladder.poll_s = 1, 0.2
        ladder.start()
        try:
            done = until(lambda: (c := hub.run(lambda s: s.get_challenge(ch.id))).status in ("done", "failed") and c,
                         180, "the challenge to be played")
        finally:
            ladder.stop(timeout=60)
        assert done.status == "done", done.reason
        assert [x["boards"] for x in done.result["opponents"]] == [1, 1, 1]
        assert len(blocks_before) == 3
        assert blocks_before[1] > blocks_before[0] and blocks_before[2] > blocks_before[1], blocks_before
    finally:
        hub.close()
