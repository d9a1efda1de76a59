"""The competition server's HTTP layer against slow and stalled clients (red team 42), on
loopback: an upload begun before `close` and finished after it is refused (409)."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from arena.compete import policy
from arena.compete.archive import pack
from arena.compete.hub import Hub
from arena.store import Store

from .conftest import SAMPLES, Server, bot_copy
from .ladder_helpers import competition, enter


@pytest.fixture
def cup(tmp_path):
    """The competition ``cup`` with ann and bob active (enough for a final), cyd with no version,
    an admin; its server up (no ladder, bots unsandboxed: none is run here)."""
    db = tmp_path / "results" / "arena.duckdb"
    competition(db, participants=("ann", "bob", "cyd", "dan", "eve"))
    with Store.open(db) as s:
        tokens = {who: policy.rotate(s, "cup", who)[1] for who in ("ann", "bob", "cyd", "dan", "eve")}
        tokens["boss"] = policy.add_participant(s, "cup", "boss", admin=True)[1]
    hub = Hub(db, "cup")
    try:
        enter(hub, "ann", SAMPLES / "random")
        enter(hub, "bob", SAMPLES / "greedy")
    finally:
        hub.close()
    server = Server(db, "cup", "--no-isolate", "--ladder-workers", "0")
    try:
        host, port = server.url.removeprefix("http://").split(":")
        yield {"db": db, "url": server.url, "addr": (host, int(port)), "tokens": tokens, "server": server,
               "tmp": tmp_path}
    finally:
        server.stop()


def head(path: str, token: str | None, length: int, *extra: str) -> bytes:
    """A POST's request head with ``Content-Length: length``."""
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/gzip",
             f"Content-Length: {length}", *extra]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def answer(sock: socket.socket) -> tuple[int, bytes]:
    """The status and body of the HTTP answer on ``sock`` (read to its Content-Length or its end)."""
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else b""


def _length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0


def admin_versions(cup) -> list[dict]:
    r = httpx.get(f"{cup['url']}/api/v1/versions", headers={"Authorization": f"Bearer {cup['tokens']['boss']}"},
                  timeout=30)
    return r.json()


def test_an_upload_begun_before_close_and_finished_after_it_is_refused(cup):
    """Red team 42: its last byte after `close`, it got 201 and its version turned active."""
    body = pack(bot_copy("random", cup["tmp"] / "cyd_bot", name="cyds"))
    with socket.create_connection(cup["addr"], timeout=60) as sock:
        # Expect: 100-continue: the server says Continue once the route reads the body, past its checks
        sock.sendall(head("/api/v1/versions", cup["tokens"]["cyd"], len(body), "Expect: 100-continue"))
        continued = sock.recv(4096)
        assert continued.startswith(b"HTTP/1.1 100"), continued
        sock.sendall(body[:-1])
        r = httpx.post(f"{cup['url']}/api/v1/close", json={"boards": 2},
                       headers={"Authorization": f"Bearer {cup['tokens']['boss']}"}, timeout=60)
        assert r.status_code == 200 and r.json()["tournament"] == "cup:final", r.text
        fresh = httpx.post(f"{cup['url']}/api/v1/versions", content=body + b"x", timeout=30,
                           headers={"Authorization": f"Bearer {cup['tokens']['cyd']}"})
        assert fresh.status_code == 409
        sock.sendall(body[-1:])
        status, text = answer(sock)
    assert status == 409 and "is closed" in json.loads(text)["detail"], (status, text)
    assert [v["participant"] for v in admin_versions(cup)] == ["ann", "bob"]
    assert not list((cup["db"].parent / "compete" / "cup" / "archives").iterdir())
