"""Each bot process's kept output (``--logs DIR``) linked from its board in the replay viewer
(issue 20 item 11): the link per seat serves the log's text, and nothing outside the run's
logs folder is ever served (no path traversal)."""

from __future__ import annotations

import re
import shutil
from html import unescape
from urllib.parse import quote

import duckdb
import pytest
from fastapi.testclient import TestClient

from arena.store import Store
from arena.web import create_app

from tests.arena.conftest import cli, output


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A tournament of one board played with --logs: (db, logs folder, match id)."""
    root = tmp_path_factory.mktemp("logged")
    db, logs = root / "arena.duckdb", root / "logs"
    r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--boards", 1, "--seed", 9,
            "--workers", 1, "--logs", logs, "--db", db)
    assert r.exit_code == 0, output(r)
    with Store.open(db, read_only=True) as s:
        (m,) = s.matches(tournament="t")
    return db, logs, m.match_id


def _board_url(mid: str) -> str:
    t, pair = mid.split("/", 1)
    return f"/matches/{quote(t, safe='')}/{quote(pair, safe='')}/boards/0"


def test_each_seat_links_its_process_output(logged):
    db, logs, mid = logged
    with TestClient(create_app(db), base_url="http://127.0.0.1") as client:
        page = client.get(_board_url(mid))
        assert page.status_code == 200
        links = dict(re.findall(r'data-testid="log-(\d-\d)" href="([^"]+)"', page.text))
        # both tables, every seat: one process each (one block of one board)
        assert sorted(links) == [f"{t}-{s}" for t in (1, 2) for s in range(4)]
        a, b = mid.split("/")[1].split("~")
        folder = logs / "t" / f"{a}~{b}" / "from-board-0"
        for key, href in links.items():
            table, seat = map(int, key.split("-"))
            entrant = (a, b)[(seat % 2) ^ (table == 2)]
            assert href == f"{_board_url(mid)}/logs/{table}/{seat}/0"
            r = client.get(unescape(href))
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
            assert r.text == (folder / f"{entrant}-table{table}-seat{seat}-0.log").read_text()
        assert client.get(f"{_board_url(mid)}/logs/1/0/1").status_code == 404  # one process only


def _copy(db, to, *statements, params=()):
    """A copy of the database ``db`` at ``to`` with ``statements`` run on it."""
    shutil.copyfile(db, to)  # no writer has it open: the file is whole
    with duckdb.connect(str(to)) as con:
        for sql in statements:
            con.execute(sql)
        for row in params:
            con.execute("INSERT INTO bot_logs VALUES (?, ?, ?, ?, ?, ?)", list(row))
    return to


def test_no_path_outside_the_logs_folder_is_served(logged, tmp_path):
    db, logs, mid = logged
    secret = logs.parent / "secret.txt"
    secret.write_text("not a bot's output")
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not a bot's output either")
    (logs / "link.log").symlink_to(outside)
    # a database whose rows point out of the folder: up, absolute, through a symbolic link
    copy = _copy(db, tmp_path / "copy.duckdb", "DELETE FROM bot_logs WHERE NOT (table_no = 1 AND seat = 0)",
                 params=[(mid, 0, 1, seat, str(logs), path)
                         for seat, path in ((1, "../secret.txt"), (2, str(secret)), (3, "link.log"))])
    with TestClient(create_app(copy), base_url="http://127.0.0.1") as client:
        page = client.get(_board_url(mid)).text
        assert len(re.findall('class="small bot-log"', page)) == 4  # linked, but not served
        for seat in (1, 2, 3):
            r = client.get(f"{_board_url(mid)}/logs/1/{seat}/0")
            assert r.status_code == 404, seat
            assert "not a bot&#39;s output" not in r.text and "not a bot's output" not in r.text
            assert "is not in its logs folder" in r.text
        assert client.get(f"{_board_url(mid)}/logs/1/0/0").status_code == 200
        for bad in ("/logs/1/..%2f..%2fsecret.txt/0", "/logs/1/0/..%2F..", "/logs/3/0/0", "/logs/1/9/0",
                    "/logs/1/0/-1"):
            r = client.get(_board_url(mid) + bad)
            assert r.status_code == 404 and "not a bot" not in r.text, bad


def test_a_board_without_kept_output_has_no_links(logged, tmp_path):
    db, _, mid = logged
    copy = _copy(db, tmp_path / "none.duckdb", "DELETE FROM bot_logs")
    with TestClient(create_app(copy), base_url="http://127.0.0.1") as client:
        page = client.get(_board_url(mid))
        assert page.status_code == 200 and "bot-log" not in page.text
        r = client.get(f"{_board_url(mid)}/logs/1/0/0")
        assert r.status_code == 404 and "the run kept none" in r.text
