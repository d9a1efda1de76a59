"""A participant in a real browser (headless Chromium; issue 22's target "token login, upload,
the status page, own logs, the leaderboard"): a competition server on loopback, a token pasted
into /login, a packed bot uploaded through /me's form, its status followed to active, its
validation output read, and the ladder on the site's index."""

from __future__ import annotations

from playwright.sync_api import expect

from arena.compete import policy
from arena.compete.archive import pack
from arena.compete.hub import Hub
from arena.store import Store

from tests.compete.conftest import SAMPLES, Server, bot_copy, until
from tests.compete.ladder_helpers import competition, enter

from .conftest import Page


def test_a_participant_logs_in_uploads_follows_and_reads_its_logs(browser, tmp_path):
    db = tmp_path / "results" / "arena.duckdb"
    competition(db, participants=("ann", "bob"), block_boards=1, validation_boards=1)
    with Store.open(db) as s:
        token = policy.rotate(s, "cup", "ann")[1]
    hub = Hub(db, "cup")
    try:
        enter(hub, "bob", SAMPLES / "greedy")
    finally:
        hub.close()
    archive = tmp_path / "anns.tar.gz"
    archive.write_bytes(pack(bot_copy("random", tmp_path / "anns", name="anns")))
    server = Server(db, "cup", "--no-isolate")
    tab = Page(browser, server.url)
    try:
        tab.goto("/login")
        tab.page.get_by_test_id("token").fill(token)
        tab.page.get_by_test_id("login").click()
        expect(tab.page.locator("h1")).to_have_text("ann in cup")
        tab.page.get_by_test_id("archive").set_input_files(str(archive))
        tab.page.get_by_test_id("upload").click()
        expect(tab.page.get_by_test_id("upload-result")).to_contain_text("version 2: queued")

        def active() -> bool:
            tab.goto("/me")
            return tab.page.get_by_test_id("status-2").inner_text() == "active"

        until(active, 180, "the upload to be validated and active", every=1.0)
        tab.page.get_by_test_id("logs-2").click()
        expect(tab.page.locator("h1")).to_contain_text("Version 2 (anns@1.0.0)")
        expect(tab.page.get_by_test_id("log").first).to_be_visible()
        assert "greedy" not in tab.page.locator("h2").first.inner_text()  # its own processes' files only
        tab.goto("/")
        expect(tab.page.get_by_text("cup:ladder").first).to_be_visible()
        assert tab.errors == [], tab.errors
        assert all(r.startswith(server.url) for r in tab.requests)  # nothing from outside the server
    finally:
        tab.close()
        server.stop()
