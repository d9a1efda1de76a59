"""Fixtures of the web view's tests: a small stored tournament, a running ``arena serve``
on it, and a headless Chromium (the system's ``chromium``, driven by Playwright)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.arena.conftest import BOTS3, cli, output

#: The demo tournament of the tests: 3 sample bots, 4 boards per pair, seed 1 (12 board pairs).
DEMO = "demo"
DEMO_BOARDS = 4
ARENA = str(Path(sys.executable).with_name("arena"))
INSTALL = ("the browser tests drive the system's Chromium: install it with `apt-get install -y chromium` "
           "(Debian; as root), or set ARENA_CHROMIUM to a Chromium executable")


def chromium_path() -> str | None:
    """The system Chromium's executable, or ``None``: ``ARENA_CHROMIUM`` if set (and only
    it), else Debian's ``/usr/lib/chromium/chromium`` or ``chromium`` on the PATH."""
    given = os.environ.get("ARENA_CHROMIUM")
    candidates = [given] if given else ["/usr/lib/chromium/chromium", shutil.which("chromium"),
                                        shutil.which("chromium-browser")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_chromium() -> str:
    """The Chromium to drive; a missing one FAILS the test (never a skip), saying how to install it."""
    path = chromium_path()
    if path is None:
        pytest.fail(INSTALL, pytrace=False)
    return path


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory) -> Path:
    """A results database holding the finished tournament ``demo``, played by ``arena`` in a
    process of its own: the session's browser may already run, and Playwright's sync API keeps
    an event loop running in this thread, under which an arena cannot play in process."""
    db = tmp_path_factory.mktemp("web") / "arena.duckdb"
    bots = [a for b in BOTS3 for a in ("--bots", b)]
    r = subprocess.run([ARENA, "tournament", "run", DEMO, *bots, "--boards", str(DEMO_BOARDS), "--seed", "1",
                        "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return db


def ratings_cli(db: Path, tournament: str = DEMO) -> list[dict]:
    """What `arena ratings --tournament T --json` prints."""
    r = cli("ratings", "--tournament", tournament, "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    return json.loads(r.stdout)


class Server:
    """``arena serve`` in a child process; ``url`` is the address it printed."""

    def __init__(self, db: Path):
        self.proc = subprocess.Popen([ARENA, "serve", "--db", str(db), "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in self.proc.stdout], daemon=True).start()
        try:
            first = lines.get(timeout=30)
        except queue.Empty:
            self.stop()
            raise AssertionError("arena serve printed no address within 30 s") from None
        self.url = first.split(" on ", 1)[1].split()[0].rstrip("/")
        assert self.url.startswith("http://127.0.0.1:"), first

    def stop(self) -> str:
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err or ""


@pytest.fixture(scope="session")
def server(demo_db):
    s = Server(demo_db)
    yield s
    err = s.stop()
    assert "Traceback" not in err, err


@pytest.fixture(scope="package")
def browser():
    """Headless Chromium: the system's browser (never a downloaded one). Missing: the tests fail.
    Closed once the web view's tests are done: Playwright's sync API keeps an event loop running in
    this thread, under which the tests run next (by a worker of ``make test``) could not play."""
    path = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True)
        yield b
        b.close()


class Page:
    """A browser tab that records console errors and uncaught page errors."""

    def __init__(self, browser, base: str, **options):
        self.base = base
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}")
                     if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.requests: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))

    def goto(self, path: str):
        response = self.page.goto(self.base + path)
        return response

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser, server):
    """A fresh tab on the demo server; fails the test on any console error or outside request."""
    t = Page(browser, server.url, viewport={"width": 1280, "height": 900})
    yield t
    t.close()
    assert t.errors == [], t.errors
    outside = [u for u in t.requests if not u.startswith(server.url + "/")]
    assert outside == [], f"the page loaded from outside the server: {outside}"
