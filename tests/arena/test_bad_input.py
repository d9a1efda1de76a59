"""Bad input: a one-line message, a non-zero exit, never a traceback."""

from __future__ import annotations

import pytest

from .conftest import SAMPLES, cli, copy_bot, output


def refused(r, *words: str, code: int | None = None) -> str:
    text = output(r)
    assert r.exit_code != 0, text
    if code is not None:
        assert r.exit_code == code, text
    assert "Traceback" not in text
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    for w in words:
        assert w in text, text
    return text


def test_unknown_tournament_for_ratings(tmp_path):
    db = tmp_path / "a.duckdb"
    r = cli("ratings", "--tournament", "nope", "--db", db)
    refused(r, "no results database")  # no file yet
    assert cli("tournament", "run", "t", "--db", db).exit_code != 0  # creates the db, no entrants
    r = cli("ratings", "--tournament", "nope", "--db", db)
    refused(r, "no tournament 'nope'")


def test_tournament_without_entrants(tmp_path):
    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", "t", "--db", db)
    refused(r, "give at least two bots")
    r = cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--db", db)
    refused(r, "give at least two bots")
    r = cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "random", "--db", db)
    refused(r, "the same bot is given twice")
    r = cli("tournament", "list", "--db", db)  # nothing was created by the refused commands
    assert r.exit_code == 0 and " t " not in r.stdout


def test_bot_folder_without_manifest(tmp_path):
    (tmp_path / "bot").mkdir()
    r = cli("bots", "submit", tmp_path / "bot", "--db", tmp_path / "a.duckdb")
    refused(r, "bot.toml")
    r = cli("tournament", "run", "t", "--bots", tmp_path / "missing", "--db", tmp_path / "a.duckdb")
    refused(r, "not a folder")


def test_manifest_missing_field(tmp_path):
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    toml = bot / "bot.toml"
    toml.write_text("\n".join(l for l in toml.read_text().splitlines() if not l.startswith("command")))
    r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
    refused(r, "missing field 'command'")


def test_wrong_protocol_version(tmp_path):
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('protocol = "1.0"', 'protocol = "2.0"'))
    r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
    refused(r, "protocol", "not supported")


def test_db_path_under_regular_file(tmp_path):
    (tmp_path / "file").write_text("x")
    r = cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--db", tmp_path / "file" / "a.duckdb")
    refused(r, "cannot create the directory")
    r = cli("bots", "list", "--db", tmp_path / "file" / "a.duckdb")
    refused(r)


def test_db_file_not_duckdb(tmp_path):
    db = tmp_path / "garbage.duckdb"
    db.write_bytes(bytes(range(256)) * 64)
    for args in (["bots", "list"], ["ratings", "--tournament", "t"], ["tournament", "run", "t"],
                 ["matches"], ["export", "--out", tmp_path / "x"]):
        r = cli(*args, "--db", db)
        refused(r, "not a DuckDB database")


def test_db_path_is_directory(tmp_path):
    r = cli("bots", "list", "--db", tmp_path)
    refused(r, "is a directory")


def test_match_with_one_bot():
    r = cli("match", "--bot", SAMPLES / "random", "--boards", 2)
    refused(r, "exactly two --bot")


def test_replay_non_json(tmp_path):
    f = tmp_path / "deal.json"
    f.write_text("this is not { json")
    refused(cli("replay", f), code=2)
    refused(cli("replay", f, "--json"), code=2)
    refused(cli("replay", tmp_path / "missing.json"), code=2)


@pytest.mark.parametrize("cmd", [["match", "--bot", "a", "--bot", "b"], ["tournament", "run", "t"]])
def test_boards_zero_rejected(tmp_path, cmd):
    r = cli(*cmd, "--boards", 0, "--db", tmp_path / "a.duckdb") if cmd[0] == "tournament" else cli(*cmd, "--boards", 0)
    refused(r, code=2)
    assert not (tmp_path / "a.duckdb").exists()


def test_submit_from_inside_the_bot_folder_is_refused(tmp_path):
    """Issue 14 item 5: `arena bots submit .` from the bot's folder would copy the folder into itself."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "mine", "1.0.0")
    before = sorted(p.relative_to(bot) for p in bot.rglob("*"))
    r = cli("bots", "submit", bot, "--db", bot / "results" / "arena.duckdb")
    refused(r, "is inside the bot's folder", "--db", code=1)
    assert sorted(p.relative_to(bot) for p in bot.rglob("*")) == before  # nothing written into it
