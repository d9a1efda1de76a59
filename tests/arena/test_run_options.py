"""Issue 20 through ``arena``: what a resume keeps (item 2), bots named every way (3), ``serve``
refusing a bad ``--db`` (8), a gauntlet (9), ``--workers auto`` (10), ``--logs`` (11), a time
bank (13), ``tournament delete/rename`` (14) and ``--records`` (15)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.base import command
from arena.play import tournament
from arena.play.executors import ThreadExecutor
from arena.store import RunLock, Store
from referee.botproc import BotClient
from referee.rules import get_ruleset

from .conftest import SAMPLES, cli, copy_bot, output

CORES = len(os.sched_getaffinity(0))


@pytest.fixture
def tables(monkeypatch):
    """The ``workers`` each run's local executor is made with (threads here, whatever the number)."""
    seen: list[int] = []

    def local_executor(workers: int):
        seen.append(workers)
        return ThreadExecutor(workers)

    monkeypatch.setattr(tournament, "local_executor", local_executor)
    return seen


@pytest.fixture
def stopped_at_once(monkeypatch):
    """Every run is interrupted before its first board (as by Ctrl-C): nothing is played."""
    real = tournament.run

    def run(store, name, **kw):
        kw["stop"].set()
        return real(store, name, **kw)

    monkeypatch.setattr(tournament, "run", run)


@pytest.fixture
def banks(monkeypatch):
    """The ``time_bank_ms`` of every decision request the referee sends (in this process)."""
    seen: list[int] = []
    decide = BotClient.decide_async

    async def logged(self, request, timeout_s):
        seen.append(request.time_bank_ms)
        return await decide(self, request, timeout_s)

    monkeypatch.setattr(BotClient, "decide_async", logged)
    return seen


def test_a_resume_keeps_its_workers_and_prints_the_whole_command(tmp_path, tables, stopped_at_once, monkeypatch):
    """Item 2: --workers is kept with the tournament; the resume hint carries the flags that are
    not (--exclusive-boards, --logs, --records), so pasting it resumes the run as it was.
    Item 3: sample bots by name.  Item 10: a new tournament's default is auto, said in the run line."""
    db = tmp_path / "arena.duckdb"
    fourth = copy_bot(SAMPLES / "random", tmp_path / "random2", "2.0.0")
    field = ["--bots", "random", "--bots", "greedy", "--bots", "heuristic", "--bots", fourth]
    logs, records = tmp_path / "logs", tmp_path / "records.jsonl"
    r = cli("tournament", "run", "t", *field, "--boards", 1, "--seed", 1, "--workers", 2, "--exclusive-boards",
            "--logs", logs, "--records", records, "--db", db)
    assert r.exit_code == 130, output(r)
    hint = command("tournament", "run", "t", "--exclusive-boards", "--logs", logs, "--records", records, db=db)
    assert f"Resume with: {hint}\n" in r.stderr
    assert tables == [2] and "tables: 2 tables at once, 2 threads (--workers 2)" in r.stdout

    r = cli("tournament", "run", "t", "--db", db)  # no --workers: the last run's
    assert r.exit_code == 130, output(r)
    assert tables == [2, 2] and "(--workers 2)" in r.stdout
    assert f"Resume with: {command('tournament', 'run', 't', db=db)}\n" in r.stderr

    field[1] = "random@1.0.0"  # registered now: "random" is its newest version, random2's 2.0.0
    r = cli("tournament", "run", "u", *field, "--boards", 1, "--db", db)  # a new tournament: auto
    assert r.exit_code == 130, output(r)
    # auto: the cores, no more than a field of 4 keeps busy (2 matches with no entrant in common)
    assert tables[-1] == min(CORES, 2)
    assert f"(--workers auto: {CORES} core{'s' if CORES > 1 else ''} here)" in r.stdout
    r = cli("tournament", "run", "t", "--workers", "auto", "--db", db)
    assert r.exit_code == 130 and tables[-1] == min(CORES, 2)
    with Store.open(db, read_only=True) as s:
        assert (s.run_workers("t"), s.run_workers("u")) == (0, 0)  # 0: auto

    monkeypatch.setenv("COLUMNS", "200")  # the usage error's box is not cut
    r = cli("tournament", "run", "t", "--workers", "many", "--db", db)
    assert r.exit_code == 2 and "'many' is neither a number of tables (1 to 64) nor auto" in output(r)


def test_a_gauntlet_plays_one_entrant_against_the_others(tmp_path):
    """Item 9: --gauntlet random --bots greedy heuristic plays random-greedy and random-heuristic
    only; the total, the status and the ratings follow."""
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", "g", "--gauntlet", "random", "--bots", "greedy", "--bots", "heuristic",
            "--boards", 1, "--seed", 5, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "a gauntlet: random@1.0.0 plays each other entrant" in r.stdout
    assert "2 board pairs played now, 0 already stored" in r.stdout
    info = json.loads(cli("tournament", "show", "g", "--json", "--db", db).stdout)
    assert (info["gauntlet"], info["board_pairs"], info["board_pairs_total"], info["status"]) == (
        "random@1.0.0", 2, 2, "complete")
    matches = json.loads(cli("matches", "--tournament", "g", "--json", "--db", db).stdout)
    assert sorted(sorted(f"{e['name']}@{e['version']}" for e in (m["entrant_a"], m["entrant_b"])) for m in matches) == [
        ["greedy@1.0.0", "random@1.0.0"], ["heuristic@1.0.0", "random@1.0.0"]]
    rows = {o["name"]: o for o in json.loads(cli("ratings", "--tournament", "g", "--json", "--db", db).stdout)}
    assert {k: o["boards"] for k, o in rows.items()} == {"random": 2, "greedy": 1, "heuristic": 1}
    assert all(isinstance(o["elo"], float) for o in rows.values())

    r = cli("tournament", "run", "g", "--gauntlet", "greedy", "--db", db)
    assert r.exit_code == 1 and "exists as a gauntlet of random@1.0.0" in r.stderr


def test_the_time_bank_is_told_grows_by_its_increment_and_is_kept(tmp_path, banks):
    """Item 13: --time-bank-ms and --time-increment-ms in tournament run and sprt, stored with
    the tournament (another value on resume is refused); item 11: sprt --logs."""
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--boards", 1, "--seed", 2,
            "--workers", 1, "--time-bank-ms", 500, "--time-increment-ms", 7, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "a time bank of 500 ms per bot process per match, 7 ms added after each answer" in r.stdout
    # a seat's first, second and third request (0: the conformance checks of submitting the bots)
    assert {500, 507, 514} <= set(banks) and min(b for b in banks if b) == 500
    with Store.open(db, read_only=True) as s:
        assert {k: s.play_settings("t")[k] for k in ("time_bank_ms", "time_increment_ms")} == {
            "time_bank_ms": 500, "time_increment_ms": 7}
    r = cli("tournament", "run", "t", "--time-bank-ms", 100, "--db", db)
    assert r.exit_code == 1 and "'t' exists with --time-bank-ms 500, fixed once it is created" in r.stderr
    r = cli("bots", "submit", copy_bot(SAMPLES / "greedy", tmp_path / "greedy2", "2.0.0"), "--tournament", "t",
            "--db", db)
    assert r.exit_code == 0, output(r)
    banks.clear()
    r = cli("tournament", "run", "t", "--db", db)  # a resume: the new entrant's pairs, with the stored bank
    assert r.exit_code == 0 and "2 board pairs played now" in r.stdout, output(r)
    assert {500, 507, 514} <= set(banks) and min(banks) == 500

    banks.clear()
    r = cli("sprt", "random", "greedy@1.0.0", "--max-boards", 1, "--seed", 3, "--time-bank-ms", 300,
            "--logs", tmp_path / "logs", "--db", db)
    assert r.exit_code == 0, output(r)
    assert banks[0] == 300 and max(banks) == 300  # no increment
    with Store.open(db, read_only=True) as s:
        assert s.play_settings("sprt-random@1.0.0-greedy@1.0.0-0-50")["time_bank_ms"] == 300
    assert list((tmp_path / "logs").glob("sprt-*/random@1.0.0~greedy@1.0.0/from-board-0/random@1.0.0-table1-*.log"))


def test_records_and_logs_of_a_tournament(tmp_path):
    """Item 15: --records FILE holds each table's deal record as stored (`arena log --json`'s
    shape, each line replayable); item 11: --logs DIR keeps every bot process's output."""
    db, records, logs = tmp_path / "arena.duckdb", tmp_path / "games.jsonl", tmp_path / "logs"
    r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--boards", 2, "--seed", 4,
            "--records", records, "--logs", logs, "--db", db)
    assert r.exit_code == 0, output(r)
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    assert len(lines) == 4  # 2 boards x 2 tables
    (mid,) = {x.pop("match_id") for x in lines}
    assert lines == json.loads(cli("log", mid, "--json", "--db", db).stdout)
    one = tmp_path / "one.json"
    one.write_text(records.read_text().splitlines()[1])
    r = cli("replay", one, "--json")
    assert r.exit_code == 0, output(r)  # every action checked against the rules
    assert json.loads(r.stdout)["ruleset"] == "classic"

    a, b = mid.split("/")[1].split("~")
    folder = logs / "t" / f"{a}~{b}" / "from-board-0"
    # table 1: A holds NS (seats 0, 2), B EW; table 2 swapped; one process per seat (N = 0)
    want = {f"{e}-table{t}-seat{s}-0.log" for t, ns, ew in ((1, a, b), (2, b, a))
            for e, seats in ((ns, (0, 2)), (ew, (1, 3))) for s in seats}
    assert {p.name for p in folder.iterdir()} == want

    # resumed: board 1 lost, its block (boards 0-1) played again; board 0 is stored already, so
    # its records are not written again, and the first run's logs are kept beside the new ones
    with duckdb.connect(str(db)) as con:
        for table in ("board_pairs", "deals", "actions"):
            con.execute(f"DELETE FROM {table} WHERE board = 1")
    r = cli("tournament", "run", "t", "--records", records, "--logs", logs, "--db", db)
    assert r.exit_code == 0 and "1 board pairs played now, 1 already stored" in r.stdout, output(r)
    again = [json.loads(x) for x in records.read_text().splitlines()]
    assert len(again) == 6 and [(x["board"], x["table"]) for x in again[4:]] == [(1, 1), (1, 2)]
    assert again[4:] == [dict(x, match_id=mid) for x in json.loads(cli("log", mid, "--board", 1, "--json",
                                                                       "--db", db).stdout)]
    assert {p.name for p in folder.iterdir()} == want
    assert {p.name for p in folder.with_name("from-board-0-2").iterdir()} == want


def test_bots_by_name_in_match_and_bots_commands(tmp_path):
    """Item 3: `arena match`, `bots check` and `bots submit` take a sample bot's name and a
    registered bot's name@version, as `arena sprt` does."""
    db = tmp_path / "arena.duckdb"
    r = cli("bots", "submit", "greedy", "--db", db)
    assert r.exit_code == 0, output(r)
    assert "registered greedy@1.0.0" in r.stdout
    r = cli("match", "--bot", "greedy@1.0.0", "--bot", "random", "--boards", 1, "--seed", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "greedy@1.0.0" in r.stdout and "random@1.0.0" in r.stdout
    r = cli("bots", "check", "greedy@1.0.0", "--boards", 1, "--db", db)
    assert r.exit_code == 0 and "conformance check passed" in r.stdout, output(r)
    r = cli("match", "--bot", "nobody", "--bot", "random", "--db", db)
    assert r.exit_code == 1
    assert "'nobody' is not a bot folder (holding bot.toml), a registered bot or a sample bot" in r.stderr


def test_serve_refuses_a_folder_as_db_at_start(tmp_path, monkeypatch):
    """Item 8: as every command does, before serving anything."""
    import arena.web

    started = []
    monkeypatch.setattr(arena.web, "serve", lambda *a, **kw: started.append(a))
    r = cli("serve", "--db", tmp_path, "--port", 0)
    assert r.exit_code == 1 and started == []
    assert f"{tmp_path} is a directory: pass a database file path (--db)" in r.stderr


def _runner():
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


def test_delete_and_rename_ask_and_refuse_a_running_tournament(tmp_path):
    """Item 14: confirmation (--yes skips it); a tournament whose run lock is held is refused."""
    db = tmp_path / "arena.duckdb"
    rs = get_ruleset("classic")
    with Store.open(db) as s:
        for name in ("a", "b"):
            s.create_tournament(name, rs.name, rs.options(), 1, 2)
    r = _runner().invoke(app, ["tournament", "delete", "a", "--db", str(db)], input="n\n")
    assert r.exit_code == 1 and "delete tournament 'a' (interrupted, 0 board pairs stored)?" in r.stdout
    lock = RunLock(db)
    lock.acquire("a")
    try:
        r = cli("tournament", "delete", "a", "--yes", "--db", db)
        assert r.exit_code == 1 and "tournament 'a' is running" in r.stderr
        r = cli("tournament", "rename", "a", "c", "--yes", "--db", db)
        assert r.exit_code == 1 and "tournament 'a' is running" in r.stderr
    finally:
        lock.release()
    r = _runner().invoke(app, ["tournament", "rename", "a", "c", "--db", str(db)], input="y\n")
    assert r.exit_code == 0 and "renamed tournament a to c" in r.stdout
    r = cli("tournament", "rename", "c", "b", "--yes", "--db", db)
    assert r.exit_code == 1 and "a tournament named 'b' exists" in r.stderr
    r = cli("tournament", "delete", "b", "--yes", "--db", db)
    assert r.exit_code == 0, output(r)
    with Store.open(db, read_only=True) as s:
        assert [t.name for t in s.list_tournaments()] == ["c"]


def test_a_fault_is_told_in_plain_words_with_its_board(tmp_path):
    """Item 7: the run's summary says what each kind of fault means, where it first happened
    (board, table, seat, match) and the command that shows that board; `arena log` says it too."""
    from tests.referee.botkit import bot_folder, deals

    db = tmp_path / "arena.duckdb"
    # it raises on board 0 of the tournament's match only (either order of the pair): its conformance check passes
    on = ",".join(deals(0, seed=1, match_id=f"t/{a}~{b}") for a, b in (("raiser@1.0.0", "random@1.0.0"),
                                                                       ("random@1.0.0", "raiser@1.0.0")))
    bot = bot_folder(tmp_path, "raiser", "--deals", on, "--every", "--message", "boom")
    r = cli("tournament", "run", "t", "--bots", bot, "--bots", "random", "--boards", 1, "--seed", 1,
            "--max-faults", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    text = " ".join(r.stderr.split())
    mid = json.loads(cli("matches", "--tournament", "t", "--json", "--db", db).stdout)[0]["match_id"]
    with Store.open(db, read_only=True) as s:
        (first,) = s.first_faults("t")
    entrant, kind, n, where, board, table, seat, detail = first
    assert (entrant, kind, where, board) == ("raiser@1.0.0", "bot-error", mid, 0) and n >= 1 and "boom" in detail
    assert (f"faults: raiser@1.0.0: {n} bot-error: the bot answered with an error: an exception in its decide "
            f"code (its output, kept with --logs, says which). First at board 0 table {table} seat {seat} of {mid}: "
            f"{detail}. See: {command('log', mid, '--board', 0, db=db)}") in text
    r = cli("log", mid, "--board", 0, "--db", db)
    assert "bot-error: the bot answered with an error: an exception in its decide code" in " ".join(r.stdout.split())
