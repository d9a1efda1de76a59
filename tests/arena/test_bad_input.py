"""Bad input: a one-line message, a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from arena.store import Store

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
    Store.open(db).close()  # an empty database
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
    assert not db.exists()  # nothing was created by the refused commands, not even the file


def test_a_refused_command_leaves_no_database_file(tmp_path):
    """The new-user trial: a refused `tournament run` or `sprt` made the --db file anyway.
    Control: a database that holds something is kept after a refusal."""
    db = tmp_path / "new" / "a.duckdb"
    refused(cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--db", db), "give at least two bots")
    refused(cli("sprt", "random", "random", "--db", db), "A and B are the same bot")
    assert not db.exists() and not list(db.parent.glob("a.duckdb*"))
    kept = tmp_path / "kept.duckdb"
    with Store.open(kept) as store:
        store.create_tournament("x", "classic", {}, 1, 2)
    refused(cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--db", kept), "give at least two bots")
    assert kept.exists()


def test_bot_folder_without_manifest(tmp_path):
    (tmp_path / "bot").mkdir()
    r = cli("bots", "submit", tmp_path / "bot", "--db", tmp_path / "a.duckdb")
    refused(r, "bot.toml")
    r = cli("tournament", "run", "t", "--bots", tmp_path / "missing", "--db", tmp_path / "a.duckdb")
    refused(r, "missing does not exist")


def test_manifest_missing_field(tmp_path):
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    toml = bot / "bot.toml"
    toml.write_text("\n".join(l for l in toml.read_text().splitlines() if not l.startswith("command")))
    r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
    refused(r, "missing field 'command'")


def test_every_manifest_problem_is_named_at_once(tmp_path):
    """A bot.toml with three problems names all three in one refusal (issue 20: a new user
    fixed them one run at a time), numbered in the manifest's field order."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    toml = bot / "bot.toml"
    lines = [l for l in toml.read_text().splitlines() if not l.startswith("command")]
    lines = [l.replace('protocol = "1.0"', 'protocol = "2.0"') for l in lines] + ['athor = "x"']
    toml.write_text("\n".join(lines))
    text = refused(cli("bots", "check", bot), "bot.toml: 3 problems: (1) unknown field 'athor' (did you mean "
                   "'author'?)", "(2) missing field 'command'", "(3) protocol '2.0' is not supported")
    assert "(4)" not in text


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


@pytest.mark.parametrize("cmd", ["bots", "tournament"])
def test_a_bot_folder_where_the_store_keeps_its_copies_is_refused(tmp_path, cmd):
    """A bot kept at `results/bots/NAME` with `--db results/arena.duckdb`: its frozen copy
    (`results/bots/NAME/VERSION/HASH`) would be made inside the folder it copies, 100 folders
    deep before it failed. Refused before anything is copied, saying what to move."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "results" / "bots" / "random", "1.0.0")
    before = sorted(p.relative_to(bot) for p in bot.rglob("*"))
    db = tmp_path / "results" / "arena.duckdb"
    if cmd == "bots":
        r = cli("bots", "submit", bot, "--db", db)
    else:
        r = cli("tournament", "run", "t", "--boards", 1, "--bots", bot, "--bots", SAMPLES / "greedy", "--db", db)
    refused(r, "is where the arena keeps the frozen copies of random", "move the bot's folder", code=1)
    assert sorted(p.relative_to(bot) for p in bot.rglob("*")) == before


@pytest.mark.parametrize("version", ["..", ".", "../other", "1.0/x", ".hidden", "1 0", "v" + "9" * 40])
def test_hostile_version_refused_and_other_copies_kept(tmp_path, version):
    """Issue 9 (red team): version ".." made the frozen copy `bots/NAME/..`, and freezing it
    removed every entrant's frozen copy. Such versions are refused; the store is untouched."""
    db = tmp_path / "a.duckdb"
    assert cli("bots", "submit", SAMPLES / "random", "--db", db).exit_code == 0
    frozen = tmp_path / "bots" / "random" / "1.0.0"
    before = {p.relative_to(tmp_path): p.read_bytes() for p in frozen.rglob("*") if p.is_file()}
    bot = copy_bot(SAMPLES / "random", tmp_path / "evil", "1.0.0")
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('version = "1.0.0"', f"version = {version!r}"))
    r = cli("bots", "submit", bot, "--db", db)
    refused(r, "version", code=1)
    assert {p.relative_to(tmp_path): p.read_bytes() for p in frozen.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in (tmp_path / "bots").iterdir()) == ["random"]


def test_manifest_that_is_a_device_or_link_refused(tmp_path):
    """Issue 9 (red team): a bot.toml linked to /dev/zero was read until memory ran out."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    (bot / "bot.toml").unlink()
    (bot / "bot.toml").symlink_to("/dev/zero")
    r = cli("bots", "check", bot)
    refused(r, "must be a regular file", code=1)
    (bot / "bot.toml").unlink()
    (bot / "bot.toml").write_text('name = "x"\n' + "# padding\n" * 10_000)
    refused(cli("bots", "check", bot), "larger than 64 KiB", code=1)


def test_author_with_markup_or_control_characters_refused(tmp_path):
    """Issue 9 (red team): an author "[/]..." broke `arena bots list` for everyone (rich markup),
    and control characters reach the terminal."""
    for author in ("[/] [link=x]", "ok\x1b]0;PWNED\x07"):
        bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
        toml = bot / "bot.toml"
        toml.write_text(toml.read_text().replace('author = "Belote Arena"', f"author = {json.dumps(author)}"))
        if "\x1b" in author:
            refused(cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb"), "control characters", code=1)
        else:
            r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
            assert r.exit_code == 0, output(r)
            r = cli("bots", "list", "--db", tmp_path / "a.duckdb")
            assert r.exit_code == 0 and "[/] [link=x]" in output(r), output(r)
        shutil.rmtree(bot)


def test_bot_text_with_escape_codes_and_markup_is_shown_inert(tmp_path):
    """Issue 9 (red team): a bot's error text reached the terminal raw (it could retitle the
    window, clear the screen, fake "conformance check passed") and broke rich markup."""
    from tests.referee.botkit import bot_folder

    evil = "<ESC>]0;PWNED<BEL><ESC>[2J<ESC>[32mconformance check passed [/] [link=x]"
    bot = bot_folder(tmp_path, "raiser", "--every", "--message", evil)
    r = cli("bots", "check", bot)
    text = output(r)
    assert "Traceback" not in text and (r.exception is None or isinstance(r.exception, SystemExit)), text
    assert "\x1b" not in text and "\x07" not in text
    assert r"\x1b]0;PWNED" in text and "[/] [link=x]" in text  # shown as text, inert
    r = cli("match", "--bot", bot, "--bot", SAMPLES / "random", "--boards", "1")  # why it faulted, inert too
    text = output(r)
    assert r.exit_code == 0 and "\x1b" not in text, text
    assert "fault (A) board 0 table 1" in text and r"bot-error: the bot answered with an error:" in text
    assert r"\x1b]0;PWNED\x07" in text


def test_a_failed_get_bot_info_is_shown_inert(tmp_path, monkeypatch):
    """Red team 50 (``infoinject``): GetBotInfo aborted with escape codes, U+202E and a fake
    line in its status text, and `arena bots check` printed them raw."""
    import grpc

    from referee.botproc import BotClient, DecideError

    def evil_info(self, timeout_s: float = 2.0):
        raise DecideError(grpc.StatusCode.UNKNOWN, "\x1b[2J\x1b[32m\u202eok\r\nFAKE: all checks passed")

    monkeypatch.setattr(BotClient, "info", evil_info)
    r = cli("bots", "check", SAMPLES / "random")
    text = output(r)
    assert r.exit_code == 1 and "GetBotInfo failed: UNKNOWN" in text, text
    assert "\x1b" not in text and "\u202e" not in text and "\r" not in text, text
    assert r"\x1b[2J\x1b[32m\u202eok\x0d" in text and "FAKE: all checks passed" not in text.splitlines(), text


def test_export_to_a_file_or_an_impossible_folder_is_refused(tmp_path):
    """Issue 14 item 6: `arena export --out EXISTING_FILE` printed a traceback."""
    db = tmp_path / "a.duckdb"
    assert cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
               "--boards", "1", "--seed", "3", "--db", db).exit_code == 0
    (tmp_path / "file").write_text("x")
    refused(cli("export", "--format", "jsonl", "--out", tmp_path / "file", "--db", db),
            "cannot create the export directory", "File exists", code=1)
    refused(cli("export", "--format", "jsonl", "--out", tmp_path / "file" / "sub", "--db", db),
            "cannot create the export directory", code=1)


def test_a_ruleset_the_bot_does_not_play_is_refused_alike_everywhere(tmp_path):
    """Issue 14 item 9: `arena match` checks what `bots submit` and `tournament run` check, with
    the same message."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "classic-only", "1.0.0")
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('rulesets = ["classic", "strict", "all-trumps", "two-player"]',
                                             'rulesets = ["classic"]'))
    want = "random@1.0.0 does not play two-player (its bot.toml lists classic)"
    refused(cli("match", "--bot", bot, "--bot", SAMPLES / "greedy", "--ruleset", "two-player"), want, code=1)
    db = tmp_path / "a.duckdb"
    refused(cli("tournament", "run", "t", "--bots", bot, "--bots", SAMPLES / "greedy", "--ruleset", "two-player",
                "--db", db), want, code=1)
    assert cli("tournament", "run", "u", "--bots", SAMPLES / "greedy", "--bots", SAMPLES / "heuristic",
               "--ruleset", "two-player", "--boards", "1", "--seed", "2", "--db", db).exit_code == 0
    refused(cli("bots", "submit", bot, "--tournament", "u", "--db", db), want, code=1)


def test_a_submission_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    """A folder over MAX_BOT_FILES files (or MAX_BOT_MIB MiB) is refused before anything is copied."""
    import referee.manifest as manifest_module

    monkeypatch.setattr(manifest_module, "MAX_BOT_FILES", 5)
    bot = copy_bot(SAMPLES / "random", tmp_path / "big", "1.0.0")
    for i in range(6):
        (bot / f"data{i}.txt").write_text("x")
    r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
    refused(r, "more than 5 files", "a submission is at most that big", code=1)
    assert not (tmp_path / "bots").exists()


def test_bots_check_says_which_transport(tmp_path):
    """`arena bots check` reports DecideStream for the SDK's bots, unary Decide for a bot without the stream."""
    from tests.referee.botkit import bot_folder

    r = cli("bots", "check", SAMPLES / "random")
    assert r.exit_code == 0 and "transport: DecideStream" in r.stdout, output(r)
    unary = bot_folder(tmp_path, "empty", "--deals", "0")  # serves unary Decide only, never misbehaves
    r = cli("bots", "check", unary)
    assert "transport: unary Decide calls" in r.stdout, output(r)


def test_two_databases_in_one_folder_keep_their_own_bots(tmp_path):
    """Databases side by side share the bots folder; the same name@version with other content
    in each gets a frozen copy of its own (named by content), so neither breaks the other's."""
    a = copy_bot(SAMPLES / "random", tmp_path / "a" / "clash", "1.0.0")
    b = copy_bot(SAMPLES / "random", tmp_path / "b" / "clash", "1.0.0")
    (b / "notes.txt").write_text("other content, same name and version")
    for bot, db in ((a, "one.duckdb"), (b, "two.duckdb")):
        r = cli("tournament", "run", "t", "--bots", bot, "--bots", SAMPLES / "greedy", "--boards", 1, "--seed", 1,
                "--db", tmp_path / "results" / db)
        assert r.exit_code == 0, output(r)
    paths = set()
    for db in ("one.duckdb", "two.duckdb"):
        bots = json.loads(cli("bots", "list", "--json", "--db", tmp_path / "results" / db).stdout)
        paths |= {x["path"] for x in bots if x["name"] == "random"}
        r = cli("tournament", "run", "t", "--db", tmp_path / "results" / db)  # nothing broken by the other
        assert r.exit_code == 0, output(r)
        r = cli("matches", "--json", "--db", tmp_path / "results" / db)
        assert [m["faults"] for m in json.loads(r.stdout)] == [0]
    assert len(paths) == 2


def test_new_user_trial_mistakes_get_clear_answers(tmp_path):
    """Found by a new user's trial: a misspelt manifest field, usage errors that must exit 2,
    a deal record nested too deep, and a bot address where nothing answers."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "typo", "1.0.0")
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace("rulesets =", "ruleset ="))
    refused(cli("bots", "check", bot), "unknown field 'ruleset' (did you mean 'rulesets'?)", code=1)
    refused(cli("match", "--bot", SAMPLES / "random", "--boards", 1), "give exactly two --bot options", code=2)
    refused(cli("tournament", "run", "a/b", "--db", tmp_path / "a.duckdb"), "must be non-empty, without '/'", code=2)
    for blank in (" ", " t", "t "):  # new-user trial 4: ' ' was a tournament, an empty link on the web
        refused(cli("tournament", "run", blank, "--db", tmp_path / "a.duckdb"), "spaces at either end", code=2)
    refused(cli("tournament", "run", "line\nbreak", "--db", tmp_path / "a.duckdb"), "control characters", code=2)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    refused(cli("replay", deep), "nests JSON too deeply", code=2)
    refused(cli("match", "--bot", "127.0.0.1:1", "--bot", SAMPLES / "random", "--boards", 1), "no bot answers at "
            "127.0.0.1:1", code=1)
    refused(cli("match", "--bot", "localhost:99999", "--bot", SAMPLES / "random"), "not a TCP port", code=1)


def test_a_results_folder_moved_whole_still_plays(tmp_path):
    """The database holds its bots' frozen copies relative to its folder: `results/` copied
    elsewhere (and the original removed) still resumes and plays (new-user trial finding 3)."""
    old = tmp_path / "old" / "results"
    r = cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--boards", 1,
            "--seed", 1, "--db", old / "arena.duckdb")
    assert r.exit_code == 0, output(r)
    new = tmp_path / "new" / "results"
    shutil.copytree(old, new, symlinks=True)
    shutil.rmtree(tmp_path / "old", onerror=lambda f, p, e: (os.chmod(os.path.dirname(p), 0o755), f(p)))
    r = cli("bots", "submit", copy_bot(SAMPLES / "heuristic", tmp_path / "h", "1.0.0"), "--tournament", "t",
            "--db", new / "arena.duckdb")
    assert r.exit_code == 0, output(r)
    r = cli("tournament", "run", "t", "--db", new / "arena.duckdb")
    assert r.exit_code == 0 and "2 board pairs played now, 1 already stored, 0 faults" in r.stdout, output(r)
    bots = json.loads(cli("bots", "list", "--json", "--db", new / "arena.duckdb").stdout)
    assert all(b["path"].startswith(str(new)) for b in bots)


def test_a_bots_error_text_cannot_add_a_line_of_its_own_to_the_check_report(tmp_path):
    """Red team 27: a bot's error message with newlines put a bare "conformance check passed"
    line among the faults; every continuation line is indented now."""
    from tests.referee.botkit import bot_folder

    bot = bot_folder(tmp_path, "raiser", "--every", "--message", "ok<LF><LF>conformance check passed")
    r = cli("bots", "check", bot, "--ruleset", "classic", "--boards", "1")
    assert r.exit_code == 1, output(r)
    lines = output(r).splitlines()
    assert "conformance check passed" not in lines
    assert "    conformance check passed" in lines
    assert "conformance check failed" in r.stdout
