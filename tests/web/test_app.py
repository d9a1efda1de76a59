"""The web application without a browser (FastAPI's TestClient): the JSON equals the
CLI's, unknown ids and bad URLs are 404s, errors never show a traceback, the database
is only read, and nothing is loaded from the internet."""

from __future__ import annotations

import hashlib
import json
import re
import socket
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from arena.store import Store
from arena.web import create_app, is_loopback
from arena.web import views

from tests.arena.conftest import cli, output

from .conftest import DEMO, DEMO_BOARDS, INSTALL, ratings_cli, require_chromium

WEB = Path(views.__file__).resolve().parent


@pytest.fixture(scope="module")
def client(demo_db):
    with TestClient(create_app(demo_db), base_url="http://127.0.0.1") as c:
        yield c


def match_ids(db: Path) -> list[str]:
    with Store.open(db, read_only=True) as s:
        return [m.match_id for m in s.matches(tournament=DEMO)]


def api_match(mid: str) -> str:
    t, pair = mid.split("/", 1)
    return f"/api/matches/{quote(t, safe='')}/{quote(pair, safe='')}"


#: Field scores are means of DuckDB float aggregates, whose parallel sums may differ in the
#: last bit from one query to the next: after rounding, by one unit of the last digit.
FIELD = {"butler": 0.011, "butler_low": 0.011, "butler_high": 0.011, "matchpoints": 0.00011}


def test_ratings_json_is_arena_ratings_json(client, demo_db):
    r = client.get(f"/api/tournaments/{DEMO}/ratings")
    assert r.status_code == 200
    got, want = r.json(), ratings_cli(demo_db)
    assert [{k: v for k, v in x.items() if k not in FIELD} for x in got] == \
        [{k: v for k, v in x.items() if k not in FIELD} for x in want]
    for x, y in zip(got, want):
        for k, tol in FIELD.items():
            assert abs(x[k] - y[k]) <= tol, (k, x[k], y[k])


def test_head_to_head_and_tournaments_json_are_the_cli_s(client, demo_db):
    h = cli("ratings", "--tournament", DEMO, "--head-to-head", "--json", "--db", demo_db)
    assert h.exit_code == 0, output(h)
    got = client.get(f"/api/tournaments/{DEMO}/head-to-head").json()
    assert got["pairs"] == json.loads(h.stdout)
    # the grid, from each side: 3 entrants, 2 opponents each, W-D-L mirrored
    grid = got["grid"]
    for i in range(3):
        assert grid[i][i] is None
        for j in range(3):
            if i != j:
                a, b = grid[i][j], grid[j][i]
                assert (a["wins"], a["draws"], a["losses"]) == (b["losses"], b["draws"], b["wins"])
                assert a["boards"] == DEMO_BOARDS and a["mean_margin"] == -b["mean_margin"]
    t = cli("tournament", "list", "--json", "--db", demo_db)
    assert t.exit_code == 0, output(t)
    demo = [x for x in client.get("/api/tournaments").json() if x["name"] == DEMO]
    assert demo == [x for x in json.loads(t.stdout) if x["name"] == DEMO]
    assert demo[0]["status"] == "complete" and demo[0]["board_pairs"] == demo[0]["board_pairs_total"] == 12


def test_match_and_board_json_hold_the_duplicate_margin(client, demo_db):
    """A is NS at table 1 and EW at table 2 (RULES.md §8): A's points on a board are
    table 1's NS score plus table 2's EW score, and the margin is A's minus B's."""
    mid = match_ids(demo_db)[0]
    m = client.get(api_match(mid)).json()
    assert [b["board"] for b in m["boards"]] == list(range(DEMO_BOARDS))
    for b in m["boards"]:
        t1, t2 = b["tables"]
        assert b["points_a"] == t1["score_ns"] + t2["score_ew"]
        assert b["points_b"] == t1["score_ew"] + t2["score_ns"]
        assert b["margin"] == b["points_a"] - b["points_b"]
    assert m["match"]["total_margin"] == sum(b["margin"] for b in m["boards"])
    v = client.get(api_match(mid) + "/boards/0").json()
    assert v["pair"]["margin"] == m["boards"][0]["margin"]
    for table in v["tables"]:
        o = table["outcome"]
        if table["tricks"]:  # the running trick points end on the stored trick points (§6.2)
            assert table["tricks"][-1]["running"] == o["trick_points"]
            assert sum(t["points"] for t in table["tricks"]) == sum(o["trick_points"])
        assert sorted(c["card"] for h in table["hands"] for c in h if c["trick"]) == \
            sorted(c["card"] for t in table["tricks"] for c in t["cards"])


@pytest.mark.parametrize("path", [
    "/tournaments/nope", "/api/tournaments/nope", "/api/tournaments/nope/ratings", "/tournaments/nope/live",
    f"/matches/{DEMO}/a~b", f"/api/matches/{DEMO}/a~b/boards/0", "/bots/nobody", "/api/bots/nobody",
    "/no/such/page", "/api/nothing", "/static/nothing.css",
])
def test_unknown_ids_and_urls_are_404(client, path):
    r = client.get(path)
    assert r.status_code == 404
    if path.startswith("/api"):
        assert "detail" in r.json()
    else:
        assert "404 · Not found" in r.text
    assert "Traceback" not in r.text


def test_bad_board_numbers_and_options_are_404(client, demo_db):
    base = api_match(match_ids(demo_db)[0])
    for tail in ("/boards/x", "/boards/-1", f"/boards/{DEMO_BOARDS}", "/boards/0?suits=upside-down"):
        for prefix in (base, base.replace("/api", "", 1)):
            r = client.get(prefix + tail)
            assert r.status_code == 404, prefix + tail
            assert "Traceback" not in r.text
    r = client.get(base.replace("/api", "", 1) + f"/boards/{DEMO_BOARDS}")
    assert f"its {DEMO_BOARDS} stored boards are 0–{DEMO_BOARDS - 1}" in r.text


def test_an_error_is_a_500_page_without_traceback(demo_db, monkeypatch):
    def broken(store):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views, "tournaments", broken)
    with TestClient(create_app(demo_db), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        r = c.get("/")
    assert r.status_code == 500
    assert "500 · Internal error" in r.text
    assert "secret internals" not in r.text and "Traceback" not in r.text


def test_a_missing_database_is_a_503_page(tmp_path):
    with TestClient(create_app(tmp_path / "none.duckdb"), base_url="http://127.0.0.1") as c:
        r = c.get("/")
        assert r.status_code == 503
        assert "there is no database at" in r.text
        assert c.get("/api/tournaments/x/progress").json()["unavailable"].startswith("there is no database")


def test_only_this_machine_s_names_are_answered(client):
    """Bound to 127.0.0.1, a request for another host name (DNS rebinding) is refused."""
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2")


def test_nothing_is_loaded_from_the_internet(client):
    """Pages may load only from the server (Content-Security-Policy); no template or static
    file names another site; the framework's Swagger page (scripts from a CDN) is off."""
    r = client.get("/")
    assert "default-src 'self'" in r.headers["content-security-policy"]
    for f in sorted(WEB.rglob("*")):
        if f.suffix in (".html", ".css", ".js", ".svg"):
            text = f.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")
            assert not re.search(r"https?://|//cdn|@import", text), f
    assert client.get("/docs").status_code == 404
    spec = client.get("/api/openapi.json").json()
    assert "/api/tournaments/{name}/ratings" in spec["paths"]
    assert "/api/matches/{name}/{pair}/boards/{number}" in spec["paths"]
    assert "/api/tournaments/{name}/ratings" in client.get("/api").text


def test_the_database_is_only_read(demo_db):
    before = hashlib.sha256(demo_db.read_bytes()).hexdigest()
    mid = match_ids(demo_db)[0]
    with TestClient(create_app(demo_db), base_url="http://127.0.0.1") as c:
        for path in ("/", f"/tournaments/{DEMO}", api_match(mid), api_match(mid) + "/boards/1", "/bots/random",
                     f"/api/tournaments/{DEMO}/progress"):
            assert c.get(path).status_code == 200, path
    assert hashlib.sha256(demo_db.read_bytes()).hexdigest() == before


def test_bot_json(client, demo_db):
    b = client.get("/api/bots/heuristic").json()
    assert [v["version"] for v in b["versions"]] == ["1.0.0"]
    row = next(r for r in b["ratings"] if r["tournament"] == DEMO)
    want = next(r for r in ratings_cli(demo_db) if r["name"] == "heuristic")
    assert (row["rank"], row["elo"], row["boards"]) == (want["rank"], want["elo"], want["boards"])
    assert b["faults"] == []
    ms = [d["ms"] for d in b["slowest"]]
    assert 0 < len(ms) <= 10 and ms == sorted(ms, reverse=True)
    assert all(d["entrant"] == "heuristic@1.0.0" for d in b["slowest"])
    assert all(d["action"] == views.action_text(d["kind"], d["value"]) for d in b["slowest"])


@pytest.mark.parametrize(("kind", "value", "shown"), [
    ("declare", '[["9S","10S","JS"]]', "declares tierce [9S 10S JS]"),  # was its JSON on the bot page
    ("bid", "take", "take"), ("card", "JS belote", "JS (belote)"), ("nonsense", "1", "nonsense 1")])
def test_a_stored_action_is_shown_in_words(kind, value, shown):
    assert views.action_text(kind, value) == shown


def test_rate_of_writes():
    """Board pairs per second: those written after the first write, over the time since it."""
    t0 = datetime(2026, 1, 1)
    assert views.rate_of([]) is None
    assert views.rate_of([(t0, 5)]) is None
    assert views.rate_of([(t0, 5), (t0 + timedelta(seconds=2), 6), (t0 + timedelta(seconds=4), 2)]) == 2.0


def test_serve_refuses_a_port_in_use_and_a_missing_database(demo_db, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = cli("serve", "--db", demo_db, "--port", port)
    assert r.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in output(r) and "another --port" in output(r)
    r = cli("serve", "--db", tmp_path / "none.duckdb")
    assert r.exit_code == 1 and "no results database" in output(r)


def test_a_missing_chromium_fails_the_browser_tests_saying_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("ARENA_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(pytest.fail.Exception) as failed:
        require_chromium()
    assert "apt-get install -y chromium" in str(failed.value) and str(failed.value) == INSTALL


def test_text_from_the_url_and_the_store_is_escaped(client):
    """A name in the URL comes back as text, never as markup (Jinja2 autoescape)."""
    r = client.get("/tournaments/" + quote("<script>alert(1)</script>", safe=""))
    assert r.status_code == 404
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text


def test_rating_history_ends_on_the_current_rating(client, demo_db):
    """The bot page's history is `arena ratings --history`'s: the last point is today's
    `arena ratings` row; the board pairs counted grow to the 12 stored."""
    b = client.get("/api/bots/greedy").json()
    h = next(x for x in b["history"] if x["tournament"] == DEMO)
    want = next(r for r in ratings_cli(demo_db) if r["name"] == "greedy")
    last = h["points"][-1]
    assert last["board_pairs"] == 12 and last["boards"] == want["boards"]
    assert (last["elo"], last["ci_low"], last["ci_high"]) == (want["elo"], want["ci_low"], want["ci_high"])
    counts = [p["board_pairs"] for p in h["points"]]
    assert counts == sorted(set(counts))
    cli_history = cli("ratings", "--tournament", DEMO, "--history", "greedy", "--steps", 12, "--json", "--db", demo_db)
    assert cli_history.exit_code == 0, output(cli_history)
    assert [(p["board_pairs"], p["elo"]) for p in json.loads(cli_history.stdout)] == \
        [(p["board_pairs"], p["elo"]) for p in h["points"]]
    assert h["chart"]["line"].count(",") == len(h["points"])


def test_every_head_to_head_cell_links_to_its_match(client):
    """Each grid cell names the pair's match as stored (A entered first, as `arena matches`)."""
    grid = client.get(f"/api/tournaments/{DEMO}/head-to-head").json()["grid"]
    links = {c["match"] for row in grid for c in row if c}
    assert len(links) == 3
    for mid in links:
        assert client.get(api_match(mid)).status_code == 200, mid


def test_index_json_is_newest_first_with_the_game_in_words(client, demo_db):
    """The index page's twin: each tournament with its game in words (issue 20, item 16)."""
    out = client.get("/api/index").json()
    assert out["sprt"] == [] or all("status" in x for x in out["sprt"])
    demo = next(t for t in out["tournaments"] if t["name"] == DEMO)
    assert demo["summary"] == f"classic · declarations on · contrée off · {DEMO_BOARDS} boards a pair"
    created = [t["created_at"] for t in out["tournaments"]]
    assert created == sorted(created, reverse=True)
    # a complete tournament links no live progress (new-user trial 4); a running one does (below)
    assert demo["status"] == "complete" and f"/tournaments/{DEMO}/live" not in client.get(f"/tournaments/{DEMO}").text


def _running_tournament(tmp_path):
    """A database with tournament ``t`` (2 entrants, 4 boards) marked running, and the run lock
    taken as its arena takes it: ``(db, lock)``."""
    from arena.store import RunLock
    from referee.rules import get_ruleset

    db = tmp_path / "a.duckdb"
    rs = get_ruleset("classic")
    with Store.open(db) as store:
        store.create_tournament("t", rs.name, rs.options(), 3, 4, [("random", "1.0.0"), ("greedy", "1.0.0")])
        store.set_tournament_status("t", "running")
    lock = RunLock(db)
    lock.acquire("t")
    return db, lock


def test_the_live_progress_counts_the_tables_of_the_blocks_in_flight(tmp_path):
    """issue 20, the new-user trial: inside a 100-board block the live page showed nothing.
    A running arena says in its run lock how many tables it has played and not stored yet
    (``RunLock.note``); the progress JSON and the live page give them, and nothing once no
    arena runs the tournament."""
    db, lock = _running_tournament(tmp_path)
    try:
        lock.note(tables_in_flight=7)
        with TestClient(create_app(db), base_url="http://127.0.0.1") as c:
            got = c.get("/api/tournaments/t/progress").json()
            assert (got["status"], got["stored"], got["tables_in_flight"]) == ("running", 0, 7)
            assert "7 tables played in blocks not stored yet" in c.get("/tournaments/t/live").text
            assert 'href="/tournaments/t/live"' in c.get("/tournaments/t").text
            lock.note(tables_in_flight=0)
            assert c.get("/api/tournaments/t/progress").json()["tables_in_flight"] == 0
            lock.note(tables_in_flight=5)
            lock.release()  # the arena is gone: what it said is no longer true
            got = c.get("/api/tournaments/t/progress").json()
            assert (got["status"], got["tables_in_flight"]) == ("interrupted", 0)
    finally:
        lock.release()


def test_the_live_eta_is_reckoned_as_the_cli_reckons_it(tmp_path):
    """New-user trial 3: the live page said 9m 27s left where `tournament run` said 3:36.  Both
    now take this run's board pairs (a table in flight half of one) over its time: 2 board pairs'
    worth of tables in 60 s with 2 left is 60 s left."""
    import time

    db, lock = _running_tournament(tmp_path)
    try:
        lock.note(tables_in_flight=4, board_pairs_at_start=0, started_unix=time.time() - 60)
        with TestClient(create_app(db), base_url="http://127.0.0.1") as c:
            got = c.get("/api/tournaments/t/progress").json()
        assert got["rate"] == pytest.approx(2 / 60, abs=0.005) and 55 <= got["eta_s"] <= 70, got
    finally:
        lock.release()


@pytest.mark.parametrize("x", [1642.53, 1642.46, 1642.5, 1642.55, 1499.96, -3.5, 0.04])
def test_a_page_and_arena_ratings_show_one_elo_for_one_rating(x):
    """The new-user trial: `arena ratings` showed 1643–2068 where the leaderboard showed
    1642–2068 (the page rounded the JSON's 1642.5, the CLI the raw 1642.53). Both now round
    the JSON's value half up (``arena.report.tables.whole``)."""
    from arena.cli.ratings import _ci as cli_ci
    from arena.report.tables import json_number, whole
    from arena.web.app import _ci as page_ci, _elo

    low, high = x, x + 425.47
    assert page_ci({"ci_low": json_number(low), "ci_high": json_number(high)}) == cli_ci(low, high)
    assert page_ci({"ci_low": json_number(low), "ci_high": None}) == cli_ci(low, float("inf")) == f"≥ {whole(low)}"
    assert _elo(json_number(x)) == whole(x)
    assert whole(1642.53) == "1643" and whole(1642.44) == "1642"


def test_the_match_page_names_each_trump_in_the_board_s_suits(client, demo_db):
    """The new-user trial: the match page named table 2's trump as played there (♣) where the
    replay and `arena log` show the board's suits (♠). The match JSON gives both; the page
    the board's (RULES.md §8: table 2 is dealt with its suits renamed)."""
    mid = match_ids(demo_db)[0]
    got = client.get(api_match(mid)).json()
    seen = 0
    for b in got["boards"]:
        for t in b["tables"]:
            if not t["trump_as_played"]:
                continue
            at_table = "SHDC".index(t["trump_as_played"])
            assert t["trump"] == "SHDC"[t["permutation"].index(at_table)]
            if t["table"] == 1:
                assert t["permutation"] == [0, 1, 2, 3] and t["trump"] == t["trump_as_played"]
            else:
                seen += t["trump"] != t["trump_as_played"]
    assert seen > 0, "no renamed trump on table 2 in the demo's first match"
    # the two tables of a board name the same trump when both took in one suit of the board
    page = client.get("/matches/" + mid.split("/", 1)[0] + "/" + quote(mid.split("/", 1)[1], safe="")).text
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    for b in got["boards"]:
        for t in b["tables"]:
            if t["trump"] in symbols and t["contract"] not in ("passed",):
                assert symbols[t["trump"]] in page
