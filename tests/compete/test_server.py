"""The competition server end to end, on loopback: a server process, participants submitting with
`arena remote submit`, the intake taking uploads to active, who sees what (401, 403, 404), bad
archives refused with nothing written, the upload quota (429 with Retry-After), and a server
killed with SIGKILL resuming its pending uploads with nothing stored twice."""

from __future__ import annotations

import io
import json
import os
import socket
import stat
import tarfile
import time

import duckdb
import httpx
import pytest

from arena.compete.archive import pack

from tests.arena.conftest import wait_no_procs

from .conftest import Server, bot_copy, cli, output, until

NAME = "cup"


def create(db, *policy: str) -> None:
    r = cli("compete", "create", NAME, "--ruleset", "classic", "--validation-boards", 2, *policy, "--db", db, "--json")
    assert r.exit_code == 0, output(r)
    assert json.loads(r.stdout)["policy"]["validation_boards"] == 2


def add(db, name: str, *flags: str) -> str:
    r = cli("compete", "participant", "add", name, *flags, "--db", db, "--json")
    assert r.exit_code == 0, output(r)
    token = json.loads(r.stdout)["token"]
    assert token.startswith("bat_") and len(token) == 47
    return token


def remote(token: str | None, *args, server=None):
    """`arena remote ARGS --json` as the holder of ``token`` (None: the logged-in one); (exit code, JSON)."""
    old = os.environ.get("ARENA_TOKEN")
    if token is not None:
        os.environ["ARENA_TOKEN"] = token
    try:
        r = cli("remote", *args, *(["--server", server] if server else []), "--json")
    finally:
        if token is not None:
            if old is None:
                os.environ.pop("ARENA_TOKEN", None)
            else:
                os.environ["ARENA_TOKEN"] = old
    return r.exit_code, json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else output(r)


def status_of(url, token, version_id) -> dict:
    return remote(token, "status", str(version_id), server=url)[1]


def settled(url, token, version_id) -> dict | None:
    s = status_of(url, token, version_id)
    return s if s.get("status") in ("active", "rejected") else None


def tgz_with(name: str, kind=tarfile.REGTYPE, linkname: str = "", data: bytes = b"x", manifest: bool = True) -> bytes:
    """A .tar.gz of a bot.toml (unless told not to) and one entry ``name`` of type ``kind``."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        if manifest:
            text = b'name = "evil"\nversion = "1"\n'
            info = tarfile.TarInfo("bot.toml")
            info.size = len(text)
            tar.addfile(info, io.BytesIO(text))
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, linkname
        if kind == tarfile.REGTYPE:
            info.size = len(data)
        tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    return out.getvalue()


def written(db) -> list[str]:
    """The files kept of uploads (archives, unpacked folders, validation logs), on disk; not the
    ladder's output, which the server's ladder writes meanwhile (``logs/units``, ``logs/N/ladder-*``)."""
    root = db.parent / "compete" / NAME
    paths = (p.relative_to(root).parts for p in root.rglob("*"))
    return sorted("/".join(parts) for parts in paths
                  if not (parts[:2] == ("logs", "units") or (len(parts) > 2 and parts[2].startswith("ladder-"))))


@pytest.fixture(scope="module")
def field(tmp_path_factory):
    """A competition with three participants and an admin, its server up, two bots submitted."""
    tmp = tmp_path_factory.mktemp("compete")
    db = tmp / "results" / "arena.duckdb"
    create(db, "--uploads-per-day", 2)
    tokens = {who: add(db, who) for who in ("ann", "bob", "cyd")}
    tokens["boss"] = add(db, "boss", "--admin")
    server = Server(db, NAME)
    try:
        yield {"db": db, "url": server.url, "tokens": tokens, "tmp": tmp, "server": server}
    finally:
        server.stop()


def test_two_participants_submit_and_their_versions_turn_active(field, remote_env):
    url, tokens, tmp = field["url"], field["tokens"], field["tmp"]
    # ann logs in (the token kept in a 0600 file), bob uses ARENA_TOKEN
    r = cli("remote", "login", "--server", url, "--token", tokens["ann"], "--json")
    assert r.exit_code == 0, output(r)
    config = remote_env / "config" / "remote.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert json.loads(config.read_text())["servers"][url] == tokens["ann"]
    code, ann_v = remote(None, "submit", bot_copy("random", tmp / "ann_bot"))
    assert code == 0, ann_v
    assert ann_v["new"] and ann_v["status"] in ("queued", "checking") and ann_v["bot"] is None
    assert ann_v["local_content_hash"]
    code, bob_v = remote(tokens["bob"], "submit", bot_copy("greedy", tmp / "bob_bot", name="bobs-greedy"),
                         server=url)
    assert code == 0, bob_v
    # the same bytes again: the same version, not a new one
    code, again = remote(None, "submit", tmp / "ann_bot")
    assert code == 0 and not again["new"] and again["id"] == ann_v["id"]
    ann = until(lambda: settled(url, None, ann_v["id"]), 120, "ann's version to settle")
    assert ann["status"] == "active", ann
    assert ann["bot"] == "random@1.0.0" and ann["content_hash"] == ann_v["local_content_hash"]
    assert set(ann["validation"]["rulesets"]) == {"classic"}
    assert ann["validation"]["house"] == "greedy@1.0.0" and ann["validation"]["rulesets"]["classic"]["boards"] == 2
    bob = until(lambda: settled(url, tokens["bob"], bob_v["id"]), 120, "bob's version to settle")
    assert bob["status"] == "active", bob
    # her own logs: her bot's processes only, never the house bot's
    code, logs = remote(None, "logs", ann_v["id"])
    assert code == 0, logs
    assert logs["logs"] and all(k.startswith("classic/random@1.0.0-table") for k in logs["logs"])
    field["ann_version"], field["bob_version"] = ann_v["id"], bob_v["id"]


def test_another_participants_version_and_logs_are_404(field, remote_env):
    url, tokens = field["url"], field["tokens"]
    ann_id = field.get("ann_version")
    if ann_id is None:
        pytest.skip("needs the submissions of the test before")
    code, out = remote(tokens["bob"], "logs", ann_id, server=url)
    assert code == 1 and out["status"] == 404 and "no version" in out["error"]
    code, out = remote(tokens["bob"], "status", ann_id, server=url)
    assert code == 1 and out["status"] == 404
    code, rows = remote(tokens["bob"], "status", server=url)
    assert code == 0 and [v["participant"] for v in rows] == ["bob"]
    # an admin sees every version, reads no logs, and cannot upload
    admin = {"Authorization": f"Bearer {tokens['boss']}"}
    assert len(httpx.get(f"{url}/api/v1/versions", headers=admin).json()) == 2
    assert httpx.get(f"{url}/api/v1/versions/{ann_id}/logs", headers=admin).status_code == 403
    r = httpx.post(f"{url}/api/v1/versions", headers=admin, content=pack(field["tmp"] / "ann_bot"))
    assert r.status_code == 403
    # a participant is no admin
    r = httpx.post(f"{url}/api/v1/participants", json={"name": "eve"},
                   headers={"Authorization": f"Bearer {tokens['bob']}"})
    assert r.status_code == 403


def test_wrong_and_revoked_tokens_are_401(field, remote_env):
    url, tokens = field["url"], field["tokens"]
    assert httpx.get(f"{url}/api/v1/me").status_code == 401
    r = httpx.get(f"{url}/api/v1/me", headers={"Authorization": "Bearer bat_" + "x" * 43})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    # cyd's token, revoked by the admin through the running server, then rotated
    assert remote(tokens["cyd"], "whoami", server=url)[0] == 0
    os.environ["ARENA_TOKEN"] = tokens["boss"]
    try:
        r = cli("compete", "participant", "revoke", "cyd", "--server", url, "--json")
        assert r.exit_code == 0, output(r)
        r = cli("compete", "participant", "rotate", "cyd", "--server", url, "--json")
        assert r.exit_code == 0, output(r)
        new = json.loads(r.stdout)["token"]
        # the database is the server's alone: the CLI says so instead of waiting for the file
        r = cli("compete", "participant", "add", "dan", "--db", field["db"])
        assert r.exit_code == 1 and "--server" in output(r)
    finally:
        os.environ.pop("ARENA_TOKEN")
    code, out = remote(tokens["cyd"], "whoami", server=url)
    assert code == 1 and out["status"] == 401 and "wrong or revoked" in out["error"]
    code, out = remote(new, "whoami", server=url)
    assert code == 0 and out["participant"] == "cyd"
    tokens["cyd"] = new


def test_commands_on_the_servers_database_name_the_server_at_once(field):
    """Reads (standings, list, ratings) and writes without --server, while the server holds the
    database: its pid and name, and --server, at once (not after DuckDB's lock wait, 15 s)."""
    from arena.store import LOCK_WAIT_S

    holder = f"is held by pid {field['server'].proc.pid} (compete:{NAME}): a running competition server"
    for args in (("compete", "standings", NAME), ("compete", "list"), ("ratings",),
                 ("compete", "participant", "add", "dan")):
        start = time.monotonic()
        r = cli(*args, "--db", field["db"])
        assert r.exit_code == 1 and holder in output(r) and "go through it with --server URL" in output(r), output(r)
        assert time.monotonic() - start < LOCK_WAIT_S[0] / 3, args


BAD = {
    "absolute path": (tgz_with("/tmp/owned.py"), "absolute path"),
    "dot-dot": (tgz_with("../../owned.py"), "'..'"),
    "symbolic link": (tgz_with("link", tarfile.SYMTYPE, "/etc/shadow"), "symbolic link"),
    "hard link": (tgz_with("hard", tarfile.LNKTYPE, "bot.toml"), "hard link"),
    "device": (tgz_with("mem", tarfile.CHRTYPE), "a device"),
    "fifo": (tgz_with("pipe", tarfile.FIFOTYPE), "FIFO"),
    "bomb": (tgz_with("zeros", data=bytes(3 << 20)), "tar bomb"),
    "not a tar.gz": (b"PK\x03\x04" + bytes(100), "not a gzip-compressed tar"),
    "truncated": (tgz_with("a.py", data=bytes(range(256)) * 40)[:-300], "not a readable .tar.gz"),
    "no manifest": (tgz_with("bot.py", manifest=False), "no bot.toml"),
}


def _length(head: bytes) -> int:
    """The Content-Length of an HTTP answer's head (0 before it is all there)."""
    for line in head.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0


def test_bad_archives_are_refused_and_nothing_is_written(field):
    url, tokens, db = field["url"], field["tokens"], field["db"]
    headers = {"Authorization": f"Bearer {tokens['cyd']}", "Content-Type": "application/gzip"}
    before = written(db)
    versions = (lambda: [{k: x for k, x in v.items() if k != "ladder"}  # the ladder plays meanwhile
                         for v in httpx.get(f"{url}/api/v1/versions",
                                            headers={"Authorization": f"Bearer {tokens['boss']}"}).json()])
    versions_before = versions()
    for kind, (data, words) in BAD.items():
        r = httpx.post(f"{url}/api/v1/versions", headers=headers, content=data)
        assert r.status_code == 422, (kind, r.status_code, r.text)
        assert words in r.json()["detail"], (kind, r.json())
    # too large for the competition's cap (64 MiB by default): 413 before the body is read
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(f"POST /api/v1/versions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {tokens['cyd']}\r\n"
                     f"Content-Type: application/gzip\r\nContent-Length: {65 << 20}\r\n\r\n".encode())
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < _length(answer):
            chunk = sock.recv(4096)  # the headers and the body may come in separate segments
            if not chunk:
                break
            answer += chunk
        answer = answer.decode()
    assert answer.startswith("HTTP/1.1 413") and "the competition's cap" in answer, answer
    assert written(db) == before
    assert versions() == versions_before
    assert not list((db.parent / "compete" / NAME / "work").iterdir())
    # the refused uploads count nothing against the quota
    assert remote(tokens["cyd"], "whoami", server=url)[1]["quota"]["used"] == 0


def test_the_upload_quota_answers_429_with_retry_after(field, remote_env):
    url, tokens, tmp = field["url"], field["tokens"], field["tmp"]
    if remote(tokens["bob"], "whoami", server=url)[1]["quota"]["used"] == 0:  # run without the module's first test
        assert remote(tokens["bob"], "submit", bot_copy("greedy", tmp / "bob_first", name="bobs-first"),
                      server=url)[0] == 0
    # bob has one upload of two; a second (a bot that does not play classic: rejected at once) spends the quota
    odd = bot_copy("random", tmp / "bob_odd", name="bobs-odd", rulesets='["strict"]')
    code, v = remote(tokens["bob"], "submit", odd, server=url)
    assert code == 0, v
    rejected = until(lambda: settled(url, tokens["bob"], v["id"]), 60, "the odd version to settle")
    assert rejected["status"] == "rejected" and "does not play classic" in rejected["reason"]
    third = bot_copy("random", tmp / "bob_third", name="bobs-third")
    code, out = remote(tokens["bob"], "submit", third, server=url)
    assert code == 1 and out["status"] == 429 and "24 hours" in out["error"], out
    r = httpx.post(f"{url}/api/v1/versions", content=pack(third),
                   headers={"Authorization": f"Bearer {tokens['bob']}", "Content-Type": "application/gzip"})
    assert r.status_code == 429 and 0 < int(r.headers["retry-after"]) <= 86400
    me = remote(tokens["bob"], "whoami", server=url)[1]
    assert me["quota"]["left"] == 0 and me["quota"]["retry_after_s"] > 0


def test_the_pages_are_served_beside_the_api(field):
    url = field["url"]
    assert httpx.get(f"{url}/").status_code == 200
    spec = httpx.get(f"{url}/api/openapi.json").json()
    assert "/api/v1/versions" in spec["paths"] and "/api/tournaments" in spec["paths"]


def test_a_killed_server_resumes_its_pending_uploads(tmp_path, remote_env):
    """SIGKILL while an upload is validated; the server started again takes it to active, and the
    database holds one version row, one bot row and one archive for it."""
    db = tmp_path / "results" / "arena.duckdb"
    create(db)
    token = add(db, "ann")
    server = Server(db, NAME)
    try:
        code, v = remote(token, "submit", bot_copy("greedy", tmp_path / "bot", name="killme"), server=server.url)
        assert code == 0, v
        until(lambda: status_of(server.url, token, v["id"])["status"] == "validating", 90, "validation to start",
              every=0.05)
        server.kill()
        assert not wait_no_procs(db.parent / "bots"), "bot processes outlived the killed server"
    finally:
        server.kill()
    server = Server(db, NAME)
    try:
        done = until(lambda: settled(server.url, token, v["id"]), 120, "the resumed version to settle")
        assert done["status"] == "active", (done, server.errors())
    finally:
        server.stop()
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM compete_versions").fetchone()[0] == 1
        assert con.execute("SELECT name, version FROM bots").fetchall() == [("killme", "1.0.0")]
        assert con.execute("SELECT count(*) FROM compete_participants WHERE token_hash = ?",
                           [token]).fetchone()[0] == 0  # only the hash is stored
    finally:
        con.close()
    assert len(list((db.parent / "compete" / NAME / "archives").iterdir())) == 1
    assert len(list((db.parent / "bots" / "killme" / "1.0.0").iterdir())) == 1


def test_the_server_speaks_tls(tmp_path, remote_env, monkeypatch):
    """--certfile/--keyfile: https on loopback, checked by the client against the CA in SSL_CERT_FILE;
    a client that does not trust it refuses to send its token."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "server.pem"))
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    db = tmp_path / "results" / "arena.duckdb"
    create(db)
    token = add(db, "ann")
    server = Server(db, NAME, "--certfile", str(tmp_path / "server.pem"), "--keyfile", str(tmp_path / "server.pem"))
    try:
        assert server.url.startswith("https://127.0.0.1:")
        code, out = remote(token, "whoami", server=server.url)
        assert code == 1 and "cannot reach" in out["error"]  # the system's CAs do not know this one
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
        r = cli("remote", "login", "--server", server.url, "--token", token, "--json")
        assert r.exit_code == 0, output(r)
        code, out = remote(None, "whoami")
        assert code == 0 and out["participant"] == "ann" and out["quota"]["used"] == 0
    finally:
        server.stop()


def test_bad_requests_say_what_is_wrong(field):
    url, tokens = field["url"], field["tokens"]
    admin = {"Authorization": f"Bearer {tokens['boss']}"}
    r = httpx.post(f"{url}/api/v1/participants", json={"nom": "x"}, headers=admin)
    assert r.status_code == 422 and "body.name" in r.json()["detail"]
    r = httpx.post(f"{url}/api/v1/participants", json={"name": "ann"}, headers=admin)
    assert r.status_code == 400 and "already takes part" in r.json()["detail"]
    r = httpx.post(f"{url}/api/v1/participants/nobody/revoke", headers=admin)
    assert r.status_code == 404 and "no participant" in r.json()["detail"]
    r = httpx.get(f"{url}/api/v1/versions/abc", headers=admin)
    assert r.status_code == 404
    assert httpx.get(f"{url}/tournaments/nope").status_code == 404  # the pages keep their own answers
