"""The double-dummy analysis in the replay viewer (issue 23 item 3): the board page and its
JSON show what `arena analyze --json` computed (the cache), and say when a board is not
analysed yet; in Chromium, each trick card carries its points lost and the table its result."""

from __future__ import annotations

import json
import random
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from arena.store import Store, match_id
from arena.web import create_app
from referee.rules import get_ruleset

from ..arena.conftest import cli, output
from ..store.test_store import A, B, make_result
from .conftest import Page, Server

MATCH = match_id("t1", A, B)


@pytest.fixture(scope="module")
def dd_db(tmp_path_factory):
    """Two boards of a classic match; board 0 analysed by `arena analyze`, board 1 not."""
    path = tmp_path_factory.mktemp("ddweb") / "arena.duckdb"
    ruleset = get_ruleset("classic")
    rng = random.Random(12)
    with Store.open(path) as store:
        store.add_bot("alpha", "1.0", None, 'name = "alpha"\n', "h1", "bots/alpha/1.0")
        store.create_tournament("t1", ruleset.name, ruleset.options(), 11, 2, [A, B])
        for board in range(2):
            store.write_board_pair("t1", MATCH, make_result(ruleset, board, A, B, rng, seed=5))
    r = cli("analyze", MATCH, "--board", 0, "--json", "--db", path)
    assert r.exit_code == 0, output(r)
    return path, json.loads(r.stdout)


def board_path(board: int, api: bool = False) -> str:
    t, pair = MATCH.split("/", 1)
    return f"{'/api' if api else ''}/matches/{quote(t, safe='')}/{quote(pair, safe='')}/boards/{board}"


def test_board_json_holds_arena_analyze_s_numbers(dd_db):
    path, analysed = dd_db
    with TestClient(create_app(path), base_url="http://127.0.0.1") as c:
        v = c.get(board_path(0, api=True) + "?suits=table").json()
        later = c.get(board_path(1, api=True)).json()
    for table, a in zip(v["tables"], analysed["tables"], strict=True):
        assert table["table"] == a["table"]
        if a["dd_trick_points"] is None:
            continue
        assert table["dd"]["trick_points"] == a["dd_trick_points"]
        assert table["dd"]["score"] == a["dd_score"]
        assert table["dd"]["points_lost"] == a["points_lost"]
        assert "not a verdict" in table["dd"]["meaning"]
        cards = [p for t in table["tricks"] for p in t["cards"]]
        assert [p["card"] for p in cards] == [c["card"] for c in a["cards"]]  # the suits it played
        assert [p["dd"]["lost"] for p in cards] == [c["lost"] for c in a["cards"]]
        assert [p["dd"]["best"]["card"] for p in cards] == [c["best_card"] for c in a["cards"]]
    assert all(t["dd"] is None for t in later["tables"])


def test_the_viewer_shows_it_in_chromium(dd_db, browser):
    path, analysed = dd_db
    server = Server(path)
    try:
        tab = Page(browser, server.url, viewport={"width": 1280, "height": 900})
        tab.goto(board_path(0) + "?suits=table")
        page = tab.page
        page.keyboard.press("End")
        for a in analysed["tables"]:
            if a["dd_trick_points"] is None:
                continue
            summary = page.locator(f'[data-testid="dd-{a["table"]}"]')
            text = summary.inner_text()
            tp, score, lost = a["dd_trick_points"], a["dd_score"], a["points_lost"]
            assert f"trick points {tp[0]}–{tp[1]}" in text and f"score {score[0]}–{score[1]}" in text
            assert f"NS {lost[0]}, EW {lost[1]}" in text and "not a verdict" in text
            table = page.locator(f'.table-view[data-table="{a["table"]}"]')
            shown = table.locator(".trick .slot small.dd").all_text_contents()
            assert shown == [f"DD −{c['lost']} · best {c['best_card'][:-1]}{'♠♥♦♣'['SHDC'.index(c['best_card'][-1])]}"
                             if c["lost"] else f"DD {c['points']} ✓" for c in a["cards"]]
        tab.goto(board_path(1))
        page.keyboard.press("End")
        assert page.locator(".dd-summary").first.inner_text().startswith("double dummy: not analysed yet")
        assert tab.errors == [], tab.errors
        tab.close()
    finally:
        err = server.stop()
    assert "Traceback" not in err, err


def test_the_bot_page_shows_points_lost_per_board(dd_db):
    path, analysed = dd_db
    with TestClient(create_app(path), base_url="http://127.0.0.1") as c:
        got = c.get("/api/bots/alpha").json()
        page = c.get("/bots/alpha").text
    row = next(r for r in got["ratings"] if r["entrant"] == A)
    assert row["dd_points_lost"] == round(analysed["entrants"][A]["points_lost_per_board"], 1)
    assert row["dd_boards"] == 1
    assert "DD lost/board" in page and "not a verdict" in page


def test_the_ratings_json_carries_the_double_dummy_figure_as_arena_ratings_does(dd_db):
    """The new-user trial: `arena ratings --json` gave each entrant's points lost to double
    dummy per board; `/api/tournaments/T/ratings` gave null."""
    path, analysed = dd_db
    want = {f"{o['name']}@{o['version']}": o["double_dummy"]
            for o in json.loads(cli("ratings", "--tournament", "t1", "--json", "--db", path).stdout)}
    assert want[A]["boards"] == 1 and want[A]["points_lost_per_board"] == analysed["entrants"][A]["points_lost_per_board"]
    with TestClient(create_app(path), base_url="http://127.0.0.1") as c:
        got = {f"{o['name']}@{o['version']}": o["double_dummy"] for o in c.get("/api/tournaments/t1/ratings").json()}
    assert got == want
