"""The web view in a real browser (headless Chromium, the system's): the leaderboard
shows what `arena ratings --json` prints, the replay viewer steps through every trick
of a board (buttons and arrow keys) and ends on the stored score, live progress moves
while a tournament runs in another process, and no page logs a console error or loads
anything from outside the server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import expect

from arena.report.boardview import in_board_suits
from arena.report.tables import whole
from arena.store import Store

from .conftest import ARENA, DEMO, DEMO_BOARDS, Page, ratings_cli

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "docs" / "screenshots"


def exists(url: str) -> bool:
    """Whether GET ``url`` answers 200 (404: not yet)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status == 200
    except urllib.error.HTTPError as e:
        assert e.code == 404, e
        return False


def first_match(db: Path) -> str:
    with Store.open(db, read_only=True) as s:
        return s.matches(tournament=DEMO)[0].match_id


def board_url(match_id: str, board: int, suits: str = "board") -> str:
    t, pair = match_id.split("/", 1)
    return f"/matches/{quote(t, safe='')}/{quote(pair, safe='')}/boards/{board}?suits={suits}"


def stored_tables(db: Path, match_id: str, board: int):
    with Store.open(db, read_only=True) as s:
        return s.deal_records(match_id, board)


def test_leaderboard_shows_the_numbers_of_arena_ratings_json(tab, demo_db):
    """The columns of `arena ratings` with its numbers, in its order (RULES.md §8: the board
    pair is the unit): rank, bot, version, whole Elo, 95% CI, boards, W-D-L, field (Butler),
    MP%, LOS>next and Δnext with its interval (issue 20, item 19)."""
    want = ratings_cli(demo_db)
    assert [r["rank"] for r in want] == [1, 2, 3]
    tab.goto(f"/tournaments/{DEMO}")
    heads = [h.strip() for h in tab.page.locator("#leaderboard thead th").all_inner_texts()]
    assert heads == ["#", "bot", "version", "Elo", "95% CI", "interval", "boards", "W-D-L", "field", "MP%",
                     "LOS>next", "Δnext 95% CI", "faults"]
    rows = tab.page.locator("#leaderboard tbody tr")
    assert rows.count() == len(want)
    for i, r in enumerate(want):
        row = rows.nth(i)

        def col(name: str) -> str:
            return row.locator(f'[data-col="{name}"]').inner_text().strip()

        def elo(x) -> str:  # the JSON's value rounded half up, as `arena ratings` shows it
            return whole(x)

        def signed(x) -> str:
            return f"{x:+.0f}"

        assert col("rank") == str(r["rank"])
        assert col("name") == r["name"]
        assert col("version") == r["version"]
        assert col("elo") == elo(r["elo"]) and "." not in col("elo")
        if r["ci_high"] is None:
            assert col("ci") == f"≥ {elo(r['ci_low'])}"
        elif r["ci_low"] is None:
            assert col("ci") == f"≤ {elo(r['ci_high'])}"
        else:
            assert col("ci") == f"{elo(r['ci_low'])}–{elo(r['ci_high'])}"
        assert col("wdl") == f"{r['wins']}-{r['draws']}-{r['losses']}"
        assert col("boards") == str(r["boards"]) == str(2 * DEMO_BOARDS)  # 2 opponents × 4 boards
        assert col("field") == f"{r['butler']:+.1f}"
        assert col("mp") == f"{100 * r['matchpoints']:.1f}"
        assert col("los") == ("–" if r["los_next"] is None else f"{100 * r['los_next']:.1f}%")
        if r["diff_next"] is None:
            assert col("dnext") == "–"
        else:
            low = r["diff_next_low"]
            high = r["diff_next_high"]
            interval = f"≥ {signed(low)}" if high is None else f"{signed(low)}…{signed(high)}"
            assert col("dnext") == f"{signed(r['diff_next'])} ({interval})" + (" *" if r["significant_next"] else "")
        assert col("faults") == "0"
    # the interval bar: the best entrant's mark is right of the worst's
    marks = [float(re.search(r"left: ([\d.]+)%", rows.nth(i).locator(".bar .elo").get_attribute("style"))[1])
             for i in range(len(want))]
    assert marks == sorted(marks, reverse=True)
    # the head-to-head grid: 3 entrants, 6 filled cells (the diagonal empty)
    assert tab.page.locator("#head-to-head td.sig").count() == 6
    assert tab.page.locator("#head-to-head td.empty").count() == 3


def test_viewer_steps_through_every_trick_and_ends_on_the_stored_score(tab, demo_db):
    """Next, trick after trick: each step shows one more trick played at each table (4 cards
    each, RULES.md §5), and the last step shows the stored score of both tables (§6.2)."""
    mid = first_match(demo_db)
    board = 1
    stored = stored_tables(demo_db, mid, board)
    tab.goto(board_url(mid, board))
    page = tab.page
    steps = int(page.locator("#controls").get_attribute("data-steps"))
    tricks = [len(t.record.actions) and sum(1 for _, a in t.record.actions if hasattr(a, "card")) // 4
              for t in stored]
    assert steps == max(tricks)
    assert page.locator("#step-label").inner_text() == "deal and bidding"
    assert page.locator(".outcome:visible").count() == sum(1 for n in tricks if n == 0)
    for k in range(1, steps + 1):
        page.locator("#next").click()
        label = page.locator("#step-label").inner_text()
        assert label.startswith(f"trick {k} of {steps}"), label
        for t, n in zip(page.locator(".table-view").all(), tricks):
            assert t.locator(".hand .card.gone").count() == 4 * min(k, n)
            assert t.locator(".center .panel:visible").count() == 1
    assert page.locator("#step-label").inner_text() == f"trick {steps} of {steps} · final score"
    assert page.locator("#next").is_disabled()
    for t, result in zip(page.locator(".table-view").all(), stored):
        assert t.locator(".outcome").is_visible()
        assert t.locator('[data-testid="score-ns"]').inner_text() == str(result.outcome.score[0])
        assert t.locator('[data-testid="score-ew"]').inner_text() == str(result.outcome.score[1])
        tp = result.outcome.trick_points
        assert t.locator(".running:visible").inner_text() == f"{tp[0]}–{tp[1]}"


def test_viewer_keyboard_arrows_home_and_end(tab, demo_db):
    """→ and ← move one trick, End goes to the final score, Home back to the bidding; the
    step is kept in the URL (#step=K) and restored when the page is opened with it."""
    mid = first_match(demo_db)
    tab.goto(board_url(mid, 0))
    page = tab.page
    steps = int(page.locator("#controls").get_attribute("data-steps"))
    assert steps == 8
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.locator("#step-label").inner_text() == "trick 3 of 8"
    page.keyboard.press("ArrowLeft")
    assert page.locator("#step-label").inner_text() == "trick 2 of 8"
    assert page.url.endswith("#step=2")
    page.keyboard.press("End")
    assert page.locator("#step-label").inner_text() == "trick 8 of 8 · final score"
    page.keyboard.press("ArrowRight")  # no step past the last
    assert page.locator("#step-label").inner_text() == "trick 8 of 8 · final score"
    page.keyboard.press("Home")
    assert page.locator("#step-label").inner_text() == "deal and bidding"
    page.keyboard.press("ArrowLeft")  # none before the first
    assert page.locator("#step-label").inner_text() == "deal and bidding"
    tab.goto(board_url(mid, 0) + "#step=5")
    assert page.locator("#step-label").inner_text() == "trick 5 of 8"


def test_table_two_in_the_board_suits_and_in_its_own(tab, demo_db):
    """Both tables play the same deck; table 2's suits are renamed (RULES.md §8). Shown in
    the board's suits, both tables turn up the same card; shown in its own suits, table 2
    turns up that card renamed by its stored permutation."""
    mid = first_match(demo_db)
    board = next(b for b in range(DEMO_BOARDS)
                 if tuple(stored_tables(demo_db, mid, b)[1].permutation) != (0, 1, 2, 3))
    t1, t2 = stored_tables(demo_db, mid, board)
    turned = sum(t1.record.ruleset.first_packets) * t1.record.ruleset.seats
    tab.goto(board_url(mid, board))
    cards = tab.page.locator(".center .panel[data-step='0'] .card")
    assert cards.nth(0).get_attribute("data-card") == cards.nth(1).get_attribute("data-card") \
        == str(t1.record.deck[turned])
    tab.page.locator("#suits-toggle").click()
    tab.page.wait_for_url(re.compile(r"suits=table"))
    cards = tab.page.locator(".center .panel[data-step='0'] .card")
    assert cards.nth(0).get_attribute("data-card") == str(t1.record.deck[turned])
    assert cards.nth(1).get_attribute("data-card") == str(t2.record.deck[turned])
    assert in_board_suits(t2.record, t2.permutation).deck[turned] == t1.record.deck[turned]
    assert t2.record.deck[turned] != t1.record.deck[turned]


def test_every_page_loads_without_console_errors(tab, demo_db):
    """Tournaments, a tournament, its live page, a match, a board, a bot, the API page:
    status 200, no console error, nothing loaded from outside the server (the tab fixture)."""
    mid = first_match(demo_db)
    t, pair = mid.split("/", 1)
    for path in ("/", f"/tournaments/{DEMO}", f"/tournaments/{DEMO}/live", f"/matches/{t}/{quote(pair, safe='')}",
                 board_url(mid, 2), "/bots/heuristic", "/api"):
        response = tab.goto(path)
        assert response.status == 200, path
    # the live page's poll has answered at least once, without a reload
    tab.goto(f"/tournaments/{DEMO}/live")
    expect(tab.page.locator("#updated")).to_have_text(re.compile(r"^updated "))


def test_unknown_ids_give_a_404_page(browser, server):
    """A 404 page for an unknown tournament or board, a bad board number and a bad URL."""
    tab = Page(browser, server.url)
    try:
        for path in ("/tournaments/nope", f"/matches/{DEMO}/a~b/boards/0", f"/matches/{DEMO}/a~b/boards/x",
                     "/no/such/page"):
            response = tab.goto(path)
            assert response.status == 404, path
            assert tab.page.locator("h1").inner_text() == "404 · Not found"
            assert "Traceback" not in tab.page.content()
    finally:
        tab.close()


def test_live_progress_moves_while_a_tournament_runs(browser, server, demo_db):
    """A tournament run in another process: its live page (opened once, never reloaded)
    counts up the stored board pairs, then shows it complete with 20 of 20."""
    boards = 20
    run = subprocess.Popen([ARENA, "tournament", "run", "live", "--bots", str(REPO / "sample_bots" / "random"),
                            "--bots", str(REPO / "sample_bots" / "greedy"), "--boards", str(boards),
                            "--seed", "7", "--db", str(demo_db)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    tab = Page(browser, server.url)
    try:
        deadline = time.monotonic() + 60
        while not exists(server.url + "/api/tournaments/live"):  # once the writer has created it
            assert run.poll() is None or run.returncode == 0, run.stderr.read()
            assert time.monotonic() < deadline, "the tournament was not created within 60 s"
            time.sleep(0.2)
        assert tab.goto("/tournaments/live/live").status == 200
        page = tab.page
        page.evaluate("window.__notReloaded = true")
        first = int(page.locator("#stored").inner_text())
        assert int(page.locator("#total").inner_text()) == boards
        assert first < boards
        later = "|".join(str(n) for n in range(first + 1, boards + 1))
        expect(page.locator("#stored")).to_have_text(re.compile(f"^({later})$"), timeout=60_000)
        expect(page.locator("#stored")).to_have_text(str(boards), timeout=90_000)
        expect(page.locator("#status")).to_have_text("complete", timeout=30_000)
        assert page.evaluate("window.__notReloaded") is True
        assert page.locator("#standings tbody tr").count() == 2
        assert tab.errors == []
    finally:
        tab.close()
        try:
            run.wait(timeout=60)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
    assert run.returncode == 0


def test_screenshots(tab, demo_db, tmp_path):
    """Screenshots of the leaderboard and of the viewer at trick 5 (laptop width) and of the
    viewer on a phone. Written to docs/screenshots/ when ARENA_SCREENSHOTS=1 (the README shows
    them), else to a temporary folder."""
    out = SCREENSHOTS if os.environ.get("ARENA_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    mid = first_match(demo_db)
    tab.goto(f"/tournaments/{DEMO}")
    tab.page.screenshot(path=str(out / "leaderboard.png"), full_page=True)
    tab.goto(board_url(mid, 1) + "#step=5")
    assert tab.page.locator("#step-label").inner_text() == "trick 5 of 8"
    tab.page.screenshot(path=str(out / "viewer.png"), full_page=True)
    tab.page.set_viewport_size({"width": 390, "height": 844})
    tab.page.screenshot(path=str(out / "viewer-phone.png"), full_page=True)
    for name in ("leaderboard.png", "viewer.png", "viewer-phone.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, name
