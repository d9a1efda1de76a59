"""The competition server's HTTP layer against slow and stalled clients (red team 42), on
loopback: a request head not whole in 15 s and a body stalled 30 s are cut off, connections
are capped per address and in all, and an upload begun before `close` and finished after it
is refused (409)."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import socket
import struct
import termios
import threading
import time

import httpx
import pytest

from arena.compete import policy
from arena.compete.archive import pack
from arena.compete.connections import (BODY_STALL_S, HEAD_TIMEOUT_S, MAX_CONNECTIONS_PER_CLIENT, ConnectionLimits,
                                       protocol)
from arena.compete.hub import Hub
from arena.store import Store

from .conftest import SAMPLES, Server, bot_copy, until
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


def connect(addr, source: str = "127.0.0.1", first: bytes = b"") -> socket.socket:
    """A connection to ``addr`` from the loopback address ``source``, ``first`` sent; non-blocking."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(addr)
    if first:
        sock.sendall(first)
    sock.setblocking(False)
    return sock


def ended(sock: socket.socket, got: dict) -> bool:
    """Whether the server closed ``sock`` (what it sent before, in ``got[sock]``)."""
    while True:
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            return False
        except OSError:  # reset: closed with our bytes unread
            return True
        if not chunk:
            return True
        got[sock] = got.get(sock, b"") + chunk


HALF_HEAD = b"GET /api/v1/ladder HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def test_half_sent_heads_are_cut_off_and_one_address_holds_a_capped_number(cup):
    """Red team 42's slowloris: 1,100 to 10,300 half-sent heads held for good. Now 100 from one
    address: 64 held (the rest 503 at once), the API answering meanwhile, and each of the 64
    answered 408 and closed once its head is 15 s late, bytes trickling in or not."""
    n = MAX_CONNECTIONS_PER_CLIENT + 36
    start = time.monotonic()
    attack = [connect(cup["addr"], "127.0.0.2", HALF_HEAD) for _ in range(n)]
    silent = connect(cup["addr"], "127.0.0.3")  # sends nothing at all
    got: dict = {}
    try:
        refused = until(lambda: (lambda k: k if k >= n - MAX_CONNECTIONS_PER_CLIENT else None)(
            sum(ended(s, got) for s in attack[MAX_CONNECTIONS_PER_CLIENT:])), HEAD_TIMEOUT_S / 2,
            "the connections past the cap to be refused")
        assert refused == n - MAX_CONNECTIONS_PER_CLIENT
        assert time.monotonic() - start < HEAD_TIMEOUT_S - 1  # at once, not by the head's timeout
        assert any(b"503" in got.get(s, b"") for s in attack[MAX_CONNECTIONS_PER_CLIENT:]), got
        held = attack[:MAX_CONNECTIONS_PER_CLIENT]
        assert not any(ended(s, got) for s in held)
        assert httpx.get(f"{cup['url']}/api/v1/ladder", timeout=10).status_code == 200  # another address

        def all_closed():
            for s in held:
                try:
                    s.send(b"X")  # trickled: extends nothing
                except OSError:
                    pass
            return all([ended(s, got) for s in held + [silent]])

        until(all_closed, HEAD_TIMEOUT_S + 30, "the half-sent heads to be closed", every=0.5)
        took = time.monotonic() - start
        assert HEAD_TIMEOUT_S - 0.5 <= took <= HEAD_TIMEOUT_S + 30, took  # (clocks' skew, as below)
        assert all(got.get(s, b"").startswith(b"HTTP/1.1 408") for s in held), got
        # the address holds nothing now: a new connection from it is served
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=10) as client:
            assert client.get(f"{cup['url']}/api/v1/ladder").status_code == 200
    finally:
        for s in attack + [silent]:
            s.close()


def test_a_stalled_request_body_is_cut_off(cup):
    """A body that stops short of its Content-Length, a JSON one and an upload: 408 and closed
    30 s after its last byte, no traceback in the server's log; the participant uploads again."""
    admin, cyd = cup["tokens"]["boss"], cup["tokens"]["cyd"]
    with socket.create_connection(cup["addr"], timeout=BODY_STALL_S + 60) as json_sock, \
            socket.create_connection(cup["addr"], timeout=BODY_STALL_S + 60) as upload_sock:
        json_sock.sendall(head("/api/v1/participants", admin, 100).replace(b"application/gzip", b"application/json")
                          + b'{"name": ')
        sent = [time.monotonic()]  # each socket's last byte (the server's clock starts when it reads it)
        upload_sock.sendall(head("/api/v1/versions", cyd, 5 << 20) + b"\x1f\x8b" + bytes(1 << 20))
        sent.append(time.monotonic())
        outcomes = [answer(sock) + (time.monotonic() - t,) for sock, t in zip((json_sock, upload_sock), sent)]
    for status, text, took in outcomes:
        assert status == 408 and b"no byte of the request body" in text, (status, text)
        # timed from the client's send, the server's read a little after: 0.5 s of skew allowed (a fresh
        # clone measured 29.9955 s, then from after both sends)
        assert BODY_STALL_S - 0.5 <= took <= BODY_STALL_S + 30, took
    r = httpx.post(f"{cup['url']}/api/v1/versions", content=b"\x1f\x8bnot a tar", timeout=30,
                   headers={"Authorization": f"Bearer {cyd}"})
    assert r.status_code == 422, r.text  # its slot free again: no 429
    assert "Traceback" not in cup["server"].errors(), cup["server"].errors()


def rss_mib(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def unsent(sock: socket.socket) -> int:
    """Bytes written to ``sock`` that the server's kernel has not taken yet (SIOCOUTQ)."""
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, struct.pack("i", 0)))[0]


def test_stalled_uploads_pin_no_memory_and_a_participant_sends_one_at_a_time(cup):
    """Red team 42: 4 uploads of 60 MiB stalled a byte short of their end took the server from
    306 to 547 MiB, for good. Now 4 of 48 MiB (4 participants) add less than one of them; a
    second upload of one of them is refused at once (429); dropped, they leave no traceback
    and no file behind."""
    pid, url, tokens = cup["server"].proc.pid, cup["url"], cup["tokens"]
    assert httpx.get(f"{url}/api/v1/me", headers={"Authorization": f"Bearer {tokens['cyd']}"},
                     timeout=30).status_code == 200
    before = rss_mib(pid)
    size, chunk = 48 << 20, b"\x1f\x8b" + os.urandom((1 << 20) - 2)
    socks = []
    try:
        for who in ("ann", "cyd", "dan", "eve"):
            sock = socket.create_connection(cup["addr"], timeout=60)
            socks.append(sock)
            sock.sendall(head("/api/v1/versions", tokens[who], size))
            for _ in range(47):
                sock.sendall(chunk)
            sock.sendall(chunk[:-1])  # all but the last byte
        until(lambda: all(unsent(s) == 0 for s in socks), 60, "the server to take the bodies' bytes")
        held = rss_mib(pid) - before
        assert held < 48, f"4 stalled uploads of 48 MiB took {held:.0f} MiB of the server's memory"
        r = httpx.post(f"{url}/api/v1/versions", content=b"\x1f\x8bnot a tar", timeout=30,
                       headers={"Authorization": f"Bearer {tokens['cyd']}"})
        assert r.status_code == 429 and "one at a time" in r.json()["detail"], r.text
    finally:
        for sock in socks:
            sock.close()  # abandoned
    until(lambda: httpx.post(f"{url}/api/v1/versions", content=b"\x1f\x8bnot a tar", timeout=30,
                             headers={"Authorization": f"Bearer {tokens['cyd']}"}).status_code == 422,
          30, "cyd's abandoned upload to be dropped")
    errors = cup["server"].errors()
    assert "Traceback" not in errors and "Exception in ASGI" not in errors, errors
    root = cup["db"].parent / "compete" / "cup"
    until(lambda: not [p for p in root.rglob("*") if p.is_file() and p.stat().st_size >= 1 << 20], 30,
          "the abandoned bodies' bytes to be removed from disk")
    assert admin_versions(cup) and {v["participant"] for v in admin_versions(cup)} == {"ann", "bob"}


def _guarded_server(limits: ConnectionLimits):
    """uvicorn with :func:`protocol` of ``limits`` in a thread on 127.0.0.1, serving an
    application that reads the body (after 2 s for /slow) and answers how many bytes it got;
    ``(address, stop)``."""
    import uvicorn

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        if scope["path"] == "/slow":
            await asyncio.sleep(2)
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            size, more = size + len(message.get("body", b"")), message.get("more_body", False)
        body = str(size).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, http=protocol(limits), ws="none", lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    until(lambda: server.started, 30, "the server to start", every=0.05)

    def stop():
        server.should_exit = True
        thread.join(30)
        sock.close()

    return sock.getsockname(), stop


def test_the_total_cap_and_a_body_that_keeps_coming_or_waits_on_the_server():
    """With small bounds: past the total cap a connection from any address is refused at once;
    a body trickling in slower than the whole timeout but never stalling for it is served, and
    so is one the application is slow to read (its time is not the client's)."""
    addr, stop = _guarded_server(ConnectionLimits(head_s=1.5, body_stall_s=1.0, per_client=5, total=8))
    got: dict = {}
    held = []
    try:
        held = [connect(addr, "127.0.0.2", HALF_HEAD) for _ in range(5)]
        held += [connect(addr, "127.0.0.3", HALF_HEAD) for _ in range(3)]
        late = connect(addr, "127.0.0.4", HALF_HEAD)
        until(lambda: ended(late, got), 1.0, "the connection past the total cap to be refused", every=0.02)
        assert got.get(late, b"").startswith(b"HTTP/1.1 503"), got
        late.close()
        until(lambda: all([ended(s, got) for s in held]), 10, "the held heads to be cut off")
        # trickled: 8 bytes, one each 0.4 s (3.2 s in all, past both bounds), then served
        with socket.create_connection(addr, timeout=10) as sock:
            sock.sendall(b"POST /trickle HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\n")
            for _ in range(8):
                time.sleep(0.4)
                sock.sendall(b"x")
            assert answer(sock) == (200, b"8")
        # 4 MiB sent to an application that reads nothing for 2 s: not a stall of the client's
        with socket.create_connection(addr, timeout=10) as sock:
            sock.sendall(b"POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 4194304\r\n\r\n" + bytes(4 << 20))
            assert answer(sock) == (200, b"4194304")
    finally:
        for s in held:
            s.close()
        stop()
