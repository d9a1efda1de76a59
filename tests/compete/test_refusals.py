"""Refusals of the organiser's and participants' commands that need no running server: each says
what was wrong and how to fix it, before anything is uploaded, started or printed."""

from __future__ import annotations

import json

import pytest

from arena.compete.archive import ArchiveError, pack

from .conftest import cli, node_bot, output


def test_submit_refuses_a_bot_naming_requirements_before_uploading(remote_env):
    """Nothing listens at the server's address: the refusal comes first, fit for the bot's kind."""
    node = node_bot(remote_env / "nodebot")
    for command in (("submit", "--server", "http://127.0.0.1:9"), ("pack", "--out", remote_env / "nodebot.tar.gz")):
        r = cli("remote", command[0], node, *command[1:], "--json")
        assert r.exit_code == 1, output(r)
        error = json.loads(r.stdout)["error"]
        assert error.startswith("nodebot@0.1.0 names requirements (package.json): a competition installs no packages")
        assert "`npm ci --ignore-scripts --no-bin-links`" in error and "pip" not in error
    assert not list(remote_env.glob("*.tar.gz"))
    (node / "requirements.txt").write_text("sortedcontainers==2.4.0\n")
    toml = node / "bot.toml"
    toml.write_text(toml.read_text().replace('"package.json"', '"requirements.txt"'))
    r = cli("remote", "submit", node, "--server", "http://127.0.0.1:9", "--json")
    assert r.exit_code == 1 and "`pip install --target deps -r requirements.txt`" in json.loads(r.stdout)["error"]


def test_a_link_in_node_modules_bin_says_how_to_install_without_links(tmp_path):
    node = node_bot(tmp_path / "nodebot", requirements=False)
    target = node / "node_modules" / "@grpc" / "proto-loader" / "build" / "bin" / "proto-loader-gen-types.js"
    target.parent.mkdir(parents=True)
    target.write_text("#!/usr/bin/env node\n")
    (node / "node_modules" / ".bin").mkdir()
    (node / "node_modules" / ".bin" / "proto-loader-gen-types").symlink_to(
        "../@grpc/proto-loader/build/bin/proto-loader-gen-types.js")
    with pytest.raises(ArchiveError) as e:
        pack(node)
    assert "proto-loader-gen-types is a symbolic link: an archive carries no links" in str(e.value)
    assert str(e.value).endswith("; run `npm ci --ignore-scripts --no-bin-links` to install node_modules without links")
    (node / "node_modules" / ".bin" / "proto-loader-gen-types").unlink()
    (node / "elsewhere").symlink_to("bot.js")
    with pytest.raises(ArchiveError) as e:
        pack(node)
    assert "npm" not in str(e.value)


def test_serve_refuses_a_bad_certificate_or_key_in_one_line_before_starting(tmp_path):
    """Missing, not PEM, a key of another certificate: one `error:` line naming the file, exit 2,
    nothing printed before it and no run lock taken."""
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert, other = ca.issue_cert("127.0.0.1"), ca.issue_cert("127.0.0.1")
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "cert.pem"))
    cert.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    other.private_key_pem.write_to_path(str(tmp_path / "other-key.pem"))
    (tmp_path / "cert.der").write_bytes(b"0\x82\x03\x1a0\x82\x02\x02\xa0\x03\x02\x01\x02")
    db = tmp_path / "arena.duckdb"
    r = cli("compete", "create", "cup", "--db", db)
    assert r.exit_code == 0, output(r)
    cases = {
        ("nocert.pem", "nokey.pem"): "--certfile {d}/nocert.pem: no such file; give the PEM file of the TLS certificate",
        ("cert.pem", "nokey.pem"): "--keyfile {d}/nokey.pem: no such file; give the PEM file of the TLS private key",
        ("cert.der", "key.pem"): "--certfile {d}/cert.der holds no PEM certificate (no '-----BEGIN … CERTIFICATE-----' "
                                 "line): give the TLS certificate in PEM form",
        ("cert.pem", "cert.pem"): "--keyfile {d}/cert.pem holds no PEM private key",
        ("cert.pem", "other-key.pem"): "--keyfile {d}/other-key.pem does not match the certificate of --certfile "
                                       "{d}/cert.pem: give the private key the certificate was issued for",
    }
    for (certfile, keyfile), message in cases.items():
        r = cli("compete", "serve", "cup", "--host", "127.0.0.1", "--port", 0, "--certfile", tmp_path / certfile,
                "--keyfile", tmp_path / keyfile, "--db", db)
        assert r.exit_code == 2 and r.stdout == "", output(r)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: " + message.format(d=tmp_path)), r.stderr
    assert not (tmp_path / "arena.duckdb.run-lock").exists()


def test_participant_add_on_a_database_without_a_competition_says_to_create_one(tmp_path):
    from arena.compete import policy
    from arena.store import Store

    db = tmp_path / "arena.duckdb"
    advice = (f": create a competition with `arena compete create NAME --ruleset R --db {db}`, or pass the right "
              "--db")
    r = cli("compete", "participant", "add", "carl", "--db", db, "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["error"] == f"no database at {db}{advice}"
    assert not db.exists()  # not made by a command that cannot use it
    Store.open(db).close()
    r = cli("compete", "participant", "add", "carl", "--db", db, "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["error"] == f"{db} holds no competition{advice}"
    with Store.open(db) as s:
        for name in ("cup", "shield"):
            policy.create(s, name, "classic")
    r = cli("compete", "participant", "add", "carl", "--db", db, "--json")
    assert r.exit_code == 1 and json.loads(r.stdout)["error"] == f"pass --competition NAME: {db} holds cup, shield"


def test_plain_http_to_another_machine_is_refused_before_any_connection(remote_env):
    """Red team 42: the client said "http:// on this machine only" but sent the token in clear to
    any host.  A plain-http server that is not this machine is refused, naming https; loopback
    is accepted (the refusal comes before any connection: no address but 127.0.0.1 is reached)."""
    for server in ("http://arena.example.org:8443", "http://10.0.0.1:8443"):
        r = cli("remote", "status", "--server", server)
        assert r.exit_code == 1, output(r)
        assert "send your token in clear" in output(r) and "https://HOST:PORT" in output(r), output(r)
    r = cli("remote", "status", "--server", "http://127.0.0.1:9")  # nothing listens there: refused by the OS
    assert "send your token in clear" not in output(r), output(r)
