"""The web view's pages in Chromium, on a database built for them (issue 20, items 14, 16–18,
24): names with markup and long names, a 78-digit seed, an `arena sprt` test; and on the demo
tournament: who took at each table, the match's deal records to download, bidding and
declarations on the board page."""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from arena.stats import sprt as sp
from arena.store import Store, match_id
from referee.rules import get_ruleset, make_board, parse_record

from tests.store.test_store import make_result

from .conftest import DEMO, DEMO_BOARDS, Page, Server

#: A tournament and a bot named with markup (a tournament name is free text but '/'; a
#: bot's name is checked by its manifest, but the store and the pages must not trust that).
MARKUP_T = '<i class="pwn">cup<img class="pwn" src="x" onerror="window.pwned = 1">&amp;"\''
MARKUP_BOT = '<b class="pwn">bot'
LONG_T = "a-tournament-name-much-longer-than-a-phone-screen-is-wide-" + "x" * 30
LONG_BOT = "a-bot-with-a-name-just-under-forty-chars"
SEED = 2**256 - 1  # 78 digits, the largest seed
GAME = "classic · declarations on · contrée off · 2 boards a pair"
TEST = "sprt-plain-long"


def pair_of(mid: str) -> tuple[str, str]:
    t, pair = mid.split("/", 1)
    return quote(t, safe=""), quote(pair, safe="")


@pytest.fixture(scope="module")
def odd_db(tmp_path_factory) -> Path:
    """Three complete tournaments of 2 boards (real deals, random play), created a day
    apart: MARKUP_T (bots MARKUP_BOT, plain), LONG_T (LONG_BOT, plain; seed SEED, given; at
    board 1, plain times out once),
    and the `arena sprt` test TEST (plain against LONG_BOT, H1 accepted)."""
    path = tmp_path_factory.mktemp("pages") / "arena.duckdb"
    rs = get_ruleset("classic")
    rng = random.Random(4)
    day = datetime(2026, 1, 1)
    with Store.open(path) as store:
        for k, name in enumerate((MARKUP_BOT, LONG_BOT, "plain")):
            store.add_bot(name, "1", '<i class="pwn">author</i>', "", f"hash{k}", "/nowhere")
        for k, (name, bots, seed) in enumerate(((MARKUP_T, (MARKUP_BOT, "plain"), 11), (LONG_T, (LONG_BOT, "plain"), SEED),
                                                (TEST, ("plain", LONG_BOT), 5))):
            keys = [f"{b}@1" for b in bots]
            store.create_tournament(name, rs.name, rs.options(), seed, 2, [(b, "1") for b in bots], secret=False,
                                    created_at=day + timedelta(days=k))
            store.add_boards(name, [make_board(seed, j) for j in range(2)])
            mid = match_id(name, *keys)
            store.add_match(name, mid, *keys)
            store.write_board_pairs(name, [(mid, make_result(rs, j, *keys, rng, seed=seed, fault=name == LONG_T and j == 1))
                                           for j in range(2)])
            store.set_tournament_status(name, "complete")
        settings = sp.SprtSettings(elo0=0.0, elo1=50.0, max_boards=2)
        state = sp.SprtState(board_pairs=2, wins=2, draws=0, losses=0, llr=3.1, lower=-2.94, upper=2.94,
                             decision="H1", elo=600.0, elo_low=100.0, elo_high=float("inf"))
        sp.save(store, TEST, "plain@1", f"{LONG_BOT}@1", settings, state, 2)
    return path


@pytest.fixture(scope="module")
def odd(odd_db):
    s = Server(odd_db)
    yield s
    err = s.stop()
    assert "Traceback" not in err, err


def pages_of(db: Path, tournament: str, bot: str) -> list[str]:
    """Every page that shows the tournament or the bot: the index, the tournament, its live
    page, its match, both boards, the bot's page."""
    with Store.open(db, read_only=True) as s:
        mid = s.matches(tournament=tournament)[0].match_id
    t, pair = pair_of(mid)
    return ["/", f"/tournaments/{t}", f"/tournaments/{t}/live", f"/matches/{t}/{pair}",
            f"/matches/{t}/{pair}/boards/0", f"/matches/{t}/{pair}/boards/1", f"/bots/{quote(bot, safe='')}"]


def test_a_name_with_markup_is_text_on_every_page(browser, odd, odd_db):
    """issue 20, item 24: MARKUP_T and MARKUP_BOT are shown as the text they are on every page
    that shows them — no element of theirs in the page, no script of theirs run."""
    tab = Page(browser, odd.url, viewport={"width": 1280, "height": 900})
    try:
        for path in pages_of(odd_db, MARKUP_T, MARKUP_BOT):
            assert tab.goto(path).status == 200, path
            tab.page.wait_for_load_state("load")
            assert tab.page.locator(".pwn").count() == 0, path
            assert tab.page.evaluate("window.pwned === undefined"), path
            text = tab.page.locator("body").inner_text()
            assert MARKUP_T in text or path.startswith("/bots/"), path  # the bot page names it in its ratings
            if path.startswith("/bots/"):
                assert MARKUP_T in text and MARKUP_BOT in text
            elif path != f"/tournaments/{quote(MARKUP_T, safe='')}/live":
                assert MARKUP_BOT in text, path
        # the live page's standings are filled in by its script, as text too
        tab.goto(f"/tournaments/{quote(MARKUP_T, safe='')}/live")
        tab.page.locator("#standings tbody tr").first.wait_for()
        assert MARKUP_BOT + "@1" in tab.page.locator("#standings").inner_text()
        expect(tab.page.locator("#updated")).to_have_text(re.compile(r"^updated "))
        assert tab.page.locator(".pwn").count() == 0
        assert tab.errors == []
    finally:
        tab.close()


def test_the_index_is_newest_first_with_sprt_tests_apart(browser, odd):
    """issue 20, items 14 and 16: tournaments newest first, each with its game in words (no
    "target"); the `arena sprt` test only in its own list, with its decision."""
    tab = Page(browser, odd.url)
    try:
        tab.goto("/")
        names = tab.page.locator("#tournaments tbody tr td.name:first-child").all_inner_texts()
        assert names == [LONG_T, MARKUP_T]
        assert tab.page.locator("#tournaments [data-col=game]").all_inner_texts() == [GAME, GAME]
        assert "target" not in tab.page.locator("main").inner_text()
        test = tab.page.locator("#sprt tbody tr")
        assert test.count() == 1 and test.get_attribute("data-test") == TEST
        assert test.locator("[data-col=decision]").inner_text() == "H1 accepted"
        assert tab.page.locator("h2").all_inner_texts() == ["SPRT tests"]
    finally:
        tab.close()


def test_an_sprt_test_has_a_page_with_its_llr_against_the_bounds(browser, odd, odd_db):
    """issue 20, item 4: the index links the test to its page: H0/H1, the decision, and a
    chart of the LLR after each board pair counted (from the stored board pairs, as
    ``arena.stats.sprt.llr`` computes it) against the two bounds, H1's above H0's."""
    with Store.open(odd_db, read_only=True) as store:
        s = sp.scores_in_order(store, TEST, "plain@1")
    w, d = int((s == 1.0).sum()), int((s == 0.5).sum())
    want = float(sp.llr(w, d, len(s) - w - d, 0.0, 50.0))
    tab = Page(browser, odd.url)
    try:
        tab.goto("/")
        tab.page.locator("#sprt tbody tr a").click()
        page = tab.page
        expect(page.locator("h1")).to_have_text(f"{TEST} · SPRT")
        assert page.locator("[data-col=decision]").inner_text().startswith("H1 accepted")
        api = page.request.get(f"{tab.base}/api/sprt/{quote(TEST, safe='')}").json()
        assert len(api["path"]) == 2 and abs(api["path"][-1] - want) < 1e-3, (api["path"], want)
        chart = page.locator("#llr-chart")
        points = chart.locator("polyline").get_attribute("points").split()
        assert len(points) == 3  # the start (0) and each board pair
        h1, h0 = (float(chart.locator(f"#bound-{h}").get_attribute("y1")) for h in ("h1", "h0"))
        assert h1 < h0  # H1's bound higher up
        ticks = [(float(t.get_attribute("y")), float(t.text_content())) for t in chart.locator("text.tick.y").all()]
        (y0, v0), (y1, v1) = ticks[0], ticks[-1]
        assert abs(y0 + (y1 - y0) * (api["upper_bound"] - v0) / (v1 - v0) - h1) < 0.2  # the bound at its LLR on the axis
        last_y = float(points[-1].split(",")[1])
        assert abs(y0 + (y1 - y0) * (want - v0) / (v1 - v0) - last_y) < 0.2
        assert tab.errors == []
    finally:
        tab.close()


def test_a_fault_is_told_in_plain_words_its_detail_folded(browser, odd, odd_db):
    """issue 20, item 7: the board page says what the fault was in plain words; the referee's
    own detail is there, folded away."""
    with Store.open(odd_db, read_only=True) as s:
        t, pair = pair_of(s.matches(tournament=LONG_T)[0].match_id)
    tab = Page(browser, odd.url)
    try:
        tab.goto(f"/matches/{t}/{pair}/boards/1")
        fault = tab.page.locator("ul.faults li")
        assert fault.count() == 1
        assert fault.inner_text().startswith("fault: seat N (plain@1) timeout: the bot did not answer within the "
                                             "deadline (--decision-ms, plus its time bank)")
        detail = fault.locator("details pre")
        assert not detail.is_visible()
        fault.locator("summary").click()
        expect(detail).to_have_text("no answer within 1000 ms")
        assert tab.errors == []
    finally:
        tab.close()


def test_the_tournament_header_says_the_game_and_shortens_the_seed(browser, odd):
    """issue 20, items 16 and 17: the game in words, the raw options folded away; the
    78-digit seed shortened, its copy button puts the whole seed on the clipboard."""
    tab = Page(browser, odd.url, permissions=["clipboard-read", "clipboard-write"])
    try:
        tab.goto(f"/tournaments/{quote(LONG_T, safe='')}")
        page = tab.page
        game = page.locator("[data-testid=game]")
        assert game.inner_text().splitlines()[0].strip() == GAME
        assert "target" not in page.locator("main").inner_text()
        options = game.locator("details")
        assert options.get_attribute("open") is None and not options.locator("code").is_visible()
        seed = str(SEED)
        assert page.locator("[data-testid=seed]").inner_text() == f"{seed[:12]}…{seed[-6:]}"
        assert not page.locator("[data-testid=seed-full]").is_visible()
        page.locator("button.copy").click()
        expect(page.locator("button.copy")).to_have_text("copied")
        assert page.evaluate("navigator.clipboard.readText()") == seed
        assert tab.errors == []
    finally:
        tab.close()


def test_every_page_fits_a_390px_phone(browser, odd, odd_db):
    """issue 20, item 17: with a 78-digit seed and long names, no page is wider than a
    390 px phone (wide tables scroll inside their own box)."""
    tab = Page(browser, odd.url, viewport={"width": 390, "height": 844})
    try:
        for path in pages_of(odd_db, LONG_T, LONG_BOT) + [f"/sprt/{quote(TEST, safe='')}"]:
            assert tab.goto(path).status == 200, path
            width = tab.page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (path, width)
        assert tab.errors == []
    finally:
        tab.close()


def test_a_match_says_who_took_and_offers_its_deal_records(tab, demo_db):
    """issue 20, item 18: each table's cell says the side that took, how it went and the
    trump ("EW dedans ♦"), in the board's own suits (table 2's stored trump renamed back, as
    the replay shows it: the new-user trial); the link downloads the match's deal records, one
    line per table, each parsing as a deal record of the board played."""
    with Store.open(demo_db, read_only=True) as s:
        mid = s.matches(tournament=DEMO)[0].match_id
        boards = s.match_boards(mid)
        stored = s.deal_records(mid)
    t, pair = pair_of(mid)
    tab.goto(f"/matches/{t}/{pair}")
    cells = tab.page.locator("#boards [data-col=took]").all_inner_texts()
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    want = []
    for b in boards:
        for x in b.tables:
            if x.taker is None:
                want.append(x.contract)
            else:
                trump = "SHDC"[x.permutation.index("SHDC".index(x.trump))] if x.trump in symbols else x.trump
                text = f"{('NS', 'EW')[x.taker % 2]} {x.contract} {symbols.get(trump or '', x.trump_mode)}"
                want.append(text + (" · capot" if x.capot is not None else "") + (f" · pot {x.pot}" if x.pot else ""))
    assert [c.strip() for c in cells] == want
    assert any(w.startswith(("NS ", "EW ")) for w in want)
    with tab.page.expect_download() as info:
        tab.page.locator("#records").click()
    lines = Path(info.value.path()).read_text().splitlines()
    assert len(lines) == 2 * DEMO_BOARDS == len(stored)
    for line, table in zip(lines, stored):
        assert parse_record(json.loads(line)) == table.record


def test_the_bidding_is_one_ordered_list_and_declarations_show_their_cards(tab, demo_db):
    """issue 20, item 18: one <ol> of the bidding per table, its items in the order of the
    record's bids, laid out in one column; each declaration shows its cards as card faces."""
    with Store.open(demo_db, read_only=True) as s:
        mid = s.matches(tournament=DEMO)[0].match_id
    t, pair = pair_of(mid)
    found = 0
    for board in range(DEMO_BOARDS):
        tab.goto(f"/matches/{t}/{pair}/boards/{board}")
        view = tab.page.request.get(f"{tab.base}/api/matches/{t}/{pair}/boards/{board}").json()
        for section, table in zip(tab.page.locator(".table-view").all(), view["tables"]):
            lists = section.locator("ol.bidding")
            assert lists.count() == 1
            items = [x.strip() for x in lists.locator("li").all_inner_texts()]
            assert items == [f"{a['name']} {a['text']}" for a in table["bidding"]]
            assert lists.evaluate("e => getComputedStyle(e).columnCount") == "auto"
            shown = section.locator(".declaration .card")
            assert shown.count() == sum(len(c["cards"]) for d in table["declarations"] for c in d["combos"])
            found += shown.count()
    assert found > 0, "no declaration in the demo's first match"


def test_the_bot_page_has_one_rating_chart_with_axes(browser, odd):
    """issue 20, item 19: one chart of the bot's Elo in each tournament it was rated in,
    oldest first, with a y axis of round Elo values and on the x axis each tournament's name
    and time created (the new-user trial: same-day dates alone looked alike); each dot sits
    at its Elo on that axis. Its `arena sprt` test is listed apart and left out of the chart
    (a test's Elo is against one opponent, not a field)."""
    tab = Page(browser, odd.url)
    try:
        tab.goto("/bots/plain")
        chart = tab.page.locator("#rating-chart")
        assert tab.page.locator("figure").count() == 1
        assert [t.text_content() for t in chart.locator("text.tick.x").all()] == [
            MARKUP_T[:13] + "…", "2026-01-01 00:00", LONG_T[:13] + "…", "2026-01-02 00:00"]
        tests = tab.page.locator("#sprt-tests tbody tr")
        assert tests.count() == 1 and tests.locator("a").text_content() == TEST
        assert tests.locator("a").get_attribute("href") == f"/sprt/{TEST}"
        assert TEST not in tab.page.locator("#ratings").inner_text()
        ticks = [(float(t.get_attribute("y")), float(t.text_content())) for t in chart.locator("text.tick.y").all()]
        assert len(ticks) >= 3 and [v for _, v in ticks] == sorted(v for _, v in ticks)
        assert [a for a, _ in ticks] == sorted((a for a, _ in ticks), reverse=True)  # higher Elo, higher up
        (y0, v0), (y1, v1) = ticks[0], ticks[-1]
        rated = [r for r in tab.page.request.get(f"{tab.base}/api/bots/plain").json()["ratings"]
                 if r["elo"] is not None and r["sprt"] is None]
        dots = chart.locator("circle").all()
        assert len(dots) == len(rated) == 2
        for dot, r in zip(dots, rated):
            want = y0 + (y1 - y0) * (r["elo"] - v0) / (v1 - v0)
            assert abs(float(dot.get_attribute("cy")) - want) < 0.2, r
        assert {t.text_content().strip() for t in chart.locator("text.axis-title").all()} == {
            "Elo", "tournament, by time created (UTC)"}
        assert tab.errors == []
    finally:
        tab.close()


def test_no_column_is_cut_at_1280px(browser, odd, odd_db):
    """issue 20, item 17: at 1280 px every table of every page fits its box (nothing to
    scroll sideways, no column cut)."""
    tab = Page(browser, odd.url, viewport={"width": 1280, "height": 900})
    try:
        for path in pages_of(odd_db, LONG_T, LONG_BOT) + [f"/sprt/{quote(TEST, safe='')}"]:
            tab.goto(path)
            boxes = tab.page.locator(".scroll").all()
            for box in boxes:
                over = box.evaluate("e => e.scrollWidth - e.clientWidth")
                assert over <= 0, (path, box.evaluate("e => e.firstElementChild.id"), over)
            assert tab.page.evaluate("document.documentElement.scrollWidth") <= 1280, path
    finally:
        tab.close()
