"""The /api page: each route's description with its `backticked` commands as code, escaped
(new-user trial: the page showed raw Markdown backticks)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from arena.store import Store
from arena.web import create_app


def test_the_api_page_shows_commands_as_code_and_no_backticks(tmp_path):
    db = tmp_path / "arena.duckdb"
    Store.open(db).close()
    with TestClient(create_app(db), base_url="http://127.0.0.1") as client:
        page = client.get("/api").text
    assert "<code>arena tournament list --json</code>" in page
    assert "`" not in page.split("<tbody>", 1)[1]
