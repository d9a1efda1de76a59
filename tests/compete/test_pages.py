"""A participant's pages (issue 22 item 3; arena/compete/pages.py): token login to a session
cookie (HttpOnly, SameSite=Strict), the upload form's endpoint guarded by the page's CSRF token,
own logs only, and a revoked token ending the session."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from arena.compete import policy
from arena.compete.archive import pack
from arena.compete.pages import COOKIE
from arena.compete.server import build
from arena.store import Store
from referee.sandbox import Limits

from .conftest import SAMPLES, bot_copy
from .ladder_helpers import competition, enter

BASE = "http://127.0.0.1"


@pytest.fixture
def site(tmp_path):
    db = tmp_path / "arena.duckdb"
    competition(db, participants=("ann", "bob"))
    with Store.open(db) as s:
        tokens = {who: policy.rotate(s, "cup", who)[1] for who in ("ann", "bob")}
        _, tokens["boss"] = policy.add_participant(s, "cup", "boss", admin=True)
    app, hub, _, _ = build(db, "cup", limits=Limits(isolate=False), ladder_workers=0)
    try:
        bob = enter(hub, "bob", SAMPLES / "greedy")
        with TestClient(app, base_url=BASE) as client:
            yield client, hub, tokens, bob, tmp_path
    finally:
        hub.close()


def _login(client, token: str):
    return client.post("/login", content=f"token={token}", follow_redirects=False,
                       headers={"Content-Type": "application/x-www-form-urlencoded"})


def _csrf(page: str) -> str:
    return page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]


def test_login_opens_a_strict_http_only_session_and_the_page_shows_own_versions(site):
    client, hub, tokens, bob, tmp_path = site
    assert client.get("/me", follow_redirects=False).headers["location"] == "/login"
    r = _login(client, "bat_wrong")
    assert r.status_code == 401 and "wrong or revoked" in r.text
    assert _login(client, tokens["boss"]).status_code == 401  # an admin enters no bots
    r = _login(client, tokens["bob"])
    assert r.status_code == 303 and r.headers["location"] == "/me"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie.replace(
        "SameSite=Strict", "SameSite=strict") and "Path=/" in cookie
    page = client.get("/me").text
    assert "bob in cup" in page and "greedy@1.0.0" in page and f'data-testid="version-{bob.id}"' in page
    assert bob.key in client.get(f"/me/versions/{bob.id}/logs").text


def test_an_upload_needs_the_pages_csrf_token_and_lands_as_a_queued_version(site):
    client, hub, tokens, bob, tmp_path = site
    _login(client, tokens["ann"])
    csrf = _csrf(client.get("/me").text)
    data = pack(bot_copy("random", tmp_path / "mine", name="anns"))
    headers = {"Content-Type": "application/gzip"}
    r = client.post("/me/versions", content=data, headers=headers)
    assert r.status_code == 403 and "CSRF" in r.text  # a cross-site post carries no token
    r = client.post("/me/versions", content=data, headers={**headers, "X-CSRF-Token": csrf[:-1] + "x"})
    assert r.status_code == 403
    r = client.post("/me/versions", content=data, headers={**headers, "X-CSRF-Token": csrf})
    assert r.status_code == 201 and r.json()["status"] == "queued" and r.json()["participant"] == "ann"
    r = client.post("/me/versions", content=b"not a gzip", headers={**headers, "X-CSRF-Token": csrf})
    assert r.status_code == 422  # refused as the API refuses it
    # another participant's version's logs: as one that does not exist
    assert client.get(f"/me/versions/{bob.id}/logs").status_code == 404


def test_a_revoked_token_ends_its_session_and_logout_needs_the_csrf_token(site):
    client, hub, tokens, bob, tmp_path = site
    _login(client, tokens["bob"])
    csrf, sid = _csrf(client.get("/me").text), client.cookies[COOKIE]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    client.post("/logout", content="csrf=forged", headers=form)  # a forged logout: the session lives on
    client.cookies.set(COOKIE, sid)
    assert client.get("/me", follow_redirects=False).status_code == 200
    hub.run(lambda s: policy.revoke(s, "cup", "bob"))
    assert client.get("/me", follow_redirects=False).headers["location"] == "/login"
    assert csrf  # the old page's token is worthless now: its session is gone
    r = client.post("/me/versions", content=b"x", headers={"Content-Type": "application/gzip", "X-CSRF-Token": csrf})
    assert r.status_code == 401


def test_another_sites_page_can_neither_log_a_visitor_in_nor_out_and_bodies_are_capped(site):
    """Red team 22: login CSRF (another site's form logs the visitor into the attacker's session,
    whose uploads then become the attacker's) and an anonymous body read whole."""
    client, hub, tokens, bob, tmp_path = site
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for foreign in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}):
        r = client.post("/login", content=f"token={tokens['bob']}", headers={**form, **foreign},
                        follow_redirects=False)
        assert r.status_code == 403 and COOKIE not in r.headers.get("set-cookie", "")
    r = client.post("/login", content=f"token={tokens['bob']}", follow_redirects=False,
                    headers={**form, "Origin": BASE, "Sec-Fetch-Site": "same-origin"})  # its own form
    assert r.status_code == 303
    csrf = _csrf(client.get("/me").text)
    r = client.post("/logout", content=f"csrf={csrf}", headers={**form, "Sec-Fetch-Site": "cross-site"},
                    follow_redirects=False)
    assert r.headers["location"] == "/me" and "set-cookie" not in r.headers  # nothing ended, no cookie dropped
    assert client.get("/me", follow_redirects=False).status_code == 200
    r = client.post("/login", content=b"token=" + b"x" * 100_000, headers=form)
    assert r.status_code == 413


def test_a_body_that_is_no_upload_is_refused_past_64_kib_before_its_token_is_checked(site):
    """Red team 22b: FastAPI parsed an anonymous 32 MiB JSON body (820 MiB of memory) before the
    route's token check answered 401."""
    client, hub, tokens, bob, tmp_path = site
    big = b'{"x": [' + b"{}," * 40_000 + b'{}]}'
    for method, path in (("POST", "/api/v1/close"), ("POST", "/api/v1/challenges"), ("PUT", "/api/v1/final"),
                         ("POST", "/api/v1/participants")):
        r = client.request(method, path, content=big, headers={"Content-Type": "application/json"})
        assert r.status_code == 413, (path, r.status_code)
    r = client.put("/api/v1/final", json={"version": bob.id}, headers={"Authorization": f"Bearer {tokens['bob']}"})
    assert r.status_code == 200  # a small body passes through whole
