"""Tests for arena.store: the DuckDB storage of tournaments and board pairs.

Results are real deals played with seeded random legal actions through
referee.rules, at both tables of a board (RULES.md §8), written and read back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import subprocess
import time
import sys
from pathlib import Path

import duckdb
import numpy as np
import pyarrow.parquet as pq
import pytest

import arena.store.writer as store_module
from arena.stats.tally import board_pair_outcome, tally, tally_arrays
from arena.play.schedule import missing, new_seed, schedule
from arena.store import (
    SCHEMA_VERSION,
    TABLES,
    VIEWS,
    BoardPairRows,
    Status,
    Store,
    StoreError,
    action_json,
    action_value,
    entrant_key,
    match_id,
    seed_commitment,
    split_entrant,
)
from referee.records import BoardPairResult, Decision, Fault, FaultKind, TableResult
from referee.rules import RULESETS, DealState, get_ruleset, make_board, record_of, relabel, replay

ROOT = Path(__file__).resolve().parents[2]
A, B, C = "alpha@1.0", "beta@2", "gamma@0.1"
PERMUTATION = (1, 0, 3, 2)


# --------------------------------------------------------------------------
# Building results from real deals
# --------------------------------------------------------------------------


def play_table(ruleset, deck, dealer, rng: random.Random, pot: int = 0) -> DealState:
    state = DealState(ruleset, deck, dealer, pot=pot)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state


def make_result(ruleset, board: int, a: str, b: str, rng: random.Random, *, seed: int = 11,
                fault: bool = False, pots: tuple[int, int] = (0, 0)) -> BoardPairResult:
    """Board ``board`` of ``seed`` played by a and b at both tables; with ``fault``,
    b times out once at table 2 and forfeits the board."""
    bd = make_board(seed, board, ruleset.seats)
    tables = []
    for number, ns, ew, perm in ((1, a, b, (0, 1, 2, 3)), (2, b, a, PERMUTATION)):
        state = play_table(ruleset, relabel(bd.deck, perm), bd.dealer, rng, pot=pots[number - 1])
        decisions = [Decision(s, act.to_json(), round(rng.uniform(0.1, 80.0), 3)) for s, act in state.history]
        faults = []
        if fault and number == 2:
            seat = 0  # b holds NS (seat 0) at table 2
            i = next(i for i, d in enumerate(decisions) if d.seat == seat)
            decisions[i] = dataclasses.replace(decisions[i], ms=1000.0, fault=FaultKind.TIMEOUT)
            faults.append(Fault(FaultKind.TIMEOUT, board, 2, seat, b, "no answer within 1000 ms"))
        tables.append(TableResult(board, number, ns, ew, perm, record_of(state), state.outcome(), decisions, faults))
    return BoardPairResult(board=board, a=a, b=b, tables=(tables[0], tables[1]), forfeit_b=fault)


def new_store(path=None, ruleset_name: str = "classic", name: str = "t1", entrants=(A, B, C), boards: int = 6):
    store = Store.open(path)
    ruleset = get_ruleset(ruleset_name)
    store.create_tournament(name, ruleset.name, ruleset.options(), 11, boards, list(entrants))
    return store


def count(store: Store, table: str, where: str = "", params=()) -> int:
    return store.con.execute(f"SELECT count(*) FROM {table} {where}", list(params)).fetchone()[0]


def result_counts(store: Store, mid: str | None = None, board: int | None = None) -> dict[str, int]:
    """Rows per result table (of one match, or one board pair; ``matches`` by match only)."""
    out = {}
    for t in ("board_pairs", "deals", "actions", "faults", "matches"):
        conds, params = [], []
        if mid is not None:
            conds, params = ["match_id = ?"], [mid]
        if board is not None and t != "matches":
            conds, params = conds + ["board = ?"], params + [board]
        out[t] = count(store, t, "WHERE " + " AND ".join(conds) if conds else "", params)
    return out


def same_outcome(stored, played) -> bool:
    """Outcomes equal but for what is not stored (notes, redeal flag)."""
    return stored == dataclasses.replace(played, notes=(), redeal_same_dealer=False)


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    s = new_store(None if request.param == "memory" else tmp_path / "db" / "arena.duckdb")
    yield s
    s.close()


# --------------------------------------------------------------------------
# Schema and keys
# --------------------------------------------------------------------------


def test_schema_tables_and_staging_columns_agree():
    with Store.open(None) as s:
        tables = {r[0] for r in s.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        assert set(TABLES) | {"schema_version"} == tables
        # the Arrow staging schemas are inserted by position: their columns must be the table's, in order
        for table, schema in (("board_pairs", store_module._BOARD_PAIRS), ("deals", store_module._DEALS),
                              ("actions", store_module._ACTIONS), ("faults", store_module._FAULTS)):
            cols = [r[0] for r in s.con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index", [table]
            ).fetchall()]
            assert cols == schema.names, table


def test_keys():
    assert entrant_key("random", "1.2") == "random@1.2"
    assert split_entrant("a@b@3") == ("a@b", "3")
    assert match_id("t1", A, B) == "t1/alpha@1.0~beta@2"
    for bad in ("nobody", "@1", "x@"):
        with pytest.raises(StoreError, match="<bot name>@<bot version>"):
            split_entrant(bad)


@pytest.mark.parametrize("action, kind, value", [
    ({"bid": "pass"}, "bid", "pass"),
    ({"bid": "take"}, "bid", "take"),
    ({"bid": "take", "trump": "H"}, "bid", "take H"),
    ({"bid": "all-trumps"}, "bid", "all-trumps"),
    ({"bid": "schmeiss"}, "bid", "schmeiss"),
    ({"schmeiss": "refuse"}, "schmeiss", "refuse"),
    ({"trump": "C"}, "trump", "C"),
    ({"declare": []}, "declare", "[]"),
    ({"declare": [["7H", "8H", "9H"], ["JS", "JH", "JD", "JC"]]},
     "declare", '[["7H","8H","9H"],["JS","JH","JD","JC"]]'),
    ({"exchange": True}, "exchange", "true"),
    ({"exchange": False}, "exchange", "false"),
    ({"card": "JH"}, "card", "JH"),
    ({"card": "KS", "belote": True}, "card", "KS belote"),
    ({"card": "10D"}, "card", "10D"),
])
def test_action_value_round_trip(action, kind, value):
    assert action_value(action) == (kind, value)
    assert action_json(kind, value) == action


def test_action_value_rejects_unknown_shapes():
    with pytest.raises(StoreError, match="not an action"):
        action_value({"seat": 1, "pass": True})
    with pytest.raises(StoreError, match="unknown action kind"):
        action_json("dance", "x")


@pytest.mark.parametrize("ruleset_name", sorted(RULESETS))
def test_every_played_action_round_trips(ruleset_name):
    rng = random.Random(ruleset_name)
    ruleset = get_ruleset(ruleset_name)
    for board in range(40):
        state = play_table(ruleset, make_board(5, board, ruleset.seats).deck, board % ruleset.seats, rng)
        for _, act in state.history:
            assert action_json(*action_value(act.to_json())) == act.to_json()


# --------------------------------------------------------------------------
# Opening
# --------------------------------------------------------------------------


def test_open_memory_and_file(tmp_path):
    for path in (None, ":memory:"):
        with Store.open(path) as s:
            assert s.list_tournaments() == []
    path = tmp_path / "new" / "dir" / "arena.duckdb"
    with new_store(path) as s:
        mid = match_id("t1", A, B)
        s.write_board_pair("t1", mid, make_result(get_ruleset("classic"), 0, A, B, random.Random(1)))
    assert path.is_file()
    with Store.open(path) as s:  # reopening applies the schema again, harmlessly, and keeps the rows
        assert s.done_board_pairs("t1") == {(mid, 0)}
    with Store.open(path, read_only=True) as s:
        assert s.get_tournament("t1").entrants == (A, B, C)


def test_not_a_duckdb_file(tmp_path):
    bad = tmp_path / "results.duckdb"
    bad.write_bytes(b"this is not a database\x00\x01\x02" * 300)
    with pytest.raises(StoreError, match=r"is not a DuckDB database: pass another --db path") as e:
        Store.open(bad)
    assert isinstance(e.value, ValueError)
    assert str(bad) in str(e.value)


def test_corrupt_duckdb_file(tmp_path):
    path = tmp_path / "arena.duckdb"
    with new_store(path) as s:
        rng = random.Random(2)
        s.write_board_pairs("t1", [
            (match_id("t1", A, B), make_result(get_ruleset("classic"), k, A, B, rng)) for k in range(6)
        ])
    data = bytearray(path.read_bytes())
    garbage = random.Random(3).randbytes(len(data) - 8192)
    data[8192:] = garbage
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"is a corrupt DuckDB database") as e:
        Store.open(path)
    assert "--db" in str(e.value)


def test_unusable_paths(tmp_path):
    afile = tmp_path / "plain.txt"
    afile.write_text("x")
    with pytest.raises(StoreError, match="cannot create the directory"):
        Store.open(afile / "sub" / "arena.duckdb")
    with pytest.raises(StoreError, match="is a directory"):
        Store.open(tmp_path)
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    with pytest.raises(StoreError, match="empty file"):
        Store.open(empty)
    with pytest.raises(StoreError, match="there is no database"):
        Store.open(tmp_path / "missing.duckdb", read_only=True)


_OPEN_IN_CHILD = (
    "import sys, arena.store as st, arena.store.connection as connection\n"
    "connection.LOCK_WAIT_S = (float(sys.argv[2]), float(sys.argv[2]))\n"
    "try:\n    st.Store.open(sys.argv[1], read_only=True).close(); print('opened')\n"
    "except st.StoreError as e:\n    print(e)\n"
)


def test_database_held_by_another_process(tmp_path):
    """A file held longer than the wait is an error that says what holds it and what to do."""
    path = tmp_path / "arena.duckdb"
    with Store.open(path):
        out = subprocess.run([sys.executable, "-c", _OPEN_IN_CHILD, str(path), "0.5"], capture_output=True,
                             text=True, cwd=ROOT, timeout=60)
    assert "held by another process for more than 0.5 s" in out.stdout, out.stdout + out.stderr
    assert "pass another --db path" in out.stdout


def test_open_waits_while_another_process_writes(tmp_path):
    """An open waits for the file while a writer holds it, then succeeds (the arena
    holds it one batch at a time): here the writer lets go after about a second."""
    path = tmp_path / "arena.duckdb"
    s = Store.open(path)
    child = subprocess.Popen([sys.executable, "-c", _OPEN_IN_CHILD, str(path), "30"], stdout=subprocess.PIPE,
                             text=True, cwd=ROOT)
    time.sleep(1.0)  # the child is waiting meanwhile (its answer is checked below, not the time)
    s.release()
    out, _ = child.communicate(timeout=60)
    assert out.strip() == "opened"
    assert s.list_bots() == []  # the released store reconnects on its next use
    s.close()


def test_a_writer_reconnecting_per_batch_never_rewrites_stored_row_groups(tmp_path, monkeypatch):
    """Issue 14 item 3: a tournament's writer connects for each batch. Its batches pass
    from one connection to the next in DuckDB's write-ahead log (readers see them), a
    checkpoint writes them once the log is big enough, and row groups once written are
    never merged and rewritten again (the rewrites grew with the table: the writer's
    peak memory grew with the length of a match). Closing the store leaves no log."""
    monkeypatch.setattr(store_module, "WAL_CHECKPOINT", 64 * 2**10)  # a checkpoint every few batches
    path = tmp_path / "arena.duckdb"
    wal = Path(str(path) + ".wal")
    ruleset = get_ruleset("classic")
    rng = random.Random(14)
    s = new_store(path)
    s.close()
    assert not wal.exists()

    def stored_blocks() -> set[tuple]:
        with duckdb.connect(str(path), read_only=True) as con:
            return set(con.execute("SELECT row_group_id, column_id, block_id, block_offset, count "
                                   "FROM pragma_storage_info('actions') WHERE persistent").fetchall())

    s = Store.open(path)
    s.release()
    written, logs, blocks = 0, [], [stored_blocks()]
    for board in range(6):
        batch = [(match_id("t1", a, b), make_result(ruleset, board, a, b, rng)) for a, b in ((A, B), (A, C), (B, C))]
        assert s.write_board_pairs("t1", batch) == 3
        written += 3
        s.release()
        logs.append(wal.exists())
        with Store.open(path, read_only=True) as r:  # a reader sees every batch, logged or checkpointed
            assert count(r, "board_pairs") == written
        blocks.append(stored_blocks())
        assert blocks[-2] <= blocks[-1]  # what was stored stays where it was
    assert logs == [True, True, False, True, True, False]  # the log carries batches to the next connection ...
    assert [len(b) for b in blocks] == [0, 0, 0, 18, 18, 18, 36]  # ... checkpoints add row groups (18 segments each)
    n_actions = count(s, "actions")
    s.close()
    assert not wal.exists()
    with Store.open(path, read_only=True) as r:
        assert count(r, "board_pairs") == 18 and count(r, "actions") == n_actions
        assert r.done_board_pairs("t1") == {(match_id("t1", a, b), k) for a, b in ((A, B), (A, C), (B, C))
                                             for k in range(6)}


def test_other_schema_version_is_refused(tmp_path):
    path = tmp_path / "arena.duckdb"
    with Store.open(path) as s:
        s.con.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        Store.open(path)


def test_closed_store():
    s = Store.open(None)
    s.close()
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.list_bots()


# --------------------------------------------------------------------------
# Bots, tournaments, boards
# --------------------------------------------------------------------------


def test_bots():
    with Store.open(None) as s:
        bot = s.add_bot("alpha", "1.0", "Ann", 'name = "alpha"\n', "h1", "/bots/alpha/1.0")
        assert bot.key == A
        assert s.add_bot("alpha", "1.0", None, "x", "h1", "elsewhere") == bot
        s.add_bot("alpha", "0.9", None, "m", "h0", "p")
        assert s.get_bot("alpha", "1.0") == bot
        assert s.get_bot("alpha", "2.0") is None
        assert [b.key for b in s.list_bots()] == ["alpha@0.9", "alpha@1.0"]
        with pytest.raises(StoreError, match="new version"):
            s.add_bot("alpha", "1.0", None, "m", "h2", "p")
        with pytest.raises(StoreError, match="without '@'"):
            s.add_bot("al@pha", "1", None, "m", "h", "p")


def test_tournament_create_idempotent_and_extend():
    ruleset = get_ruleset("classic", target=501)
    with Store.open(None) as s:
        t = s.create_tournament("cup", "classic", ruleset.options(), -5, 8, [A, ("beta", "2")])
        assert (t.name, t.ruleset, t.seed, t.boards_per_pair, t.status) == ("cup", "classic", -5, 8, "running")
        assert t.entrants == (A, B)
        assert t.options == json.loads(json.dumps(ruleset.options()))
        assert t.options["target"] == 501
        assert s.create_tournament("cup", "classic", ruleset.options(), -5, 8, [A, B]) == t
        # appending an entrant extends the tournament
        assert s.create_tournament("cup", "classic", ruleset.options(), -5, 8, [A, B, C]).entrants == (A, B, C)
        assert s.create_tournament("cup", "classic", ruleset.options(), -5, 8).entrants == (A, B, C)
        assert s.add_entrants("cup", [B, "delta@1"]) == (A, B, C, "delta@1")
        assert s.entrants("cup") == [("alpha", "1.0"), ("beta", "2"), ("gamma", "0.1"), ("delta", "1")]
        assert s.get_tournament("cup").resolved_ruleset() == ruleset
        assert s.get_tournament("cup").board_pairs == 0
        for args, message in (
            (("strict", ruleset.options(), -5, 8, [A, B]), "ruleset 'classic'"),
            (("classic", ruleset.options(), 6, 8, [A, B]), "seed -5"),
            (("classic", ruleset.options(), -5, 9, [A, B]), "boards per pair 8"),
            (("classic", get_ruleset("classic").options(), -5, 8, [A, B]), "other ruleset options"),
            (("classic", ruleset.options(), -5, 8, [B, A]), "in that order"),
        ):
            with pytest.raises(StoreError, match=message):
                s.create_tournament("cup", *args)
        assert s.get_tournament("cup").entrants == (A, B, C, "delta@1")
        s.set_tournament_status("cup", Status.COMPLETE)
        assert s.get_tournament("cup").status == "complete"
        s.set_tournament_status("cup", "interrupted")
        assert [t.status for t in s.list_tournaments()] == ["interrupted"]
        with pytest.raises(StoreError, match="unknown tournament status"):
            s.set_tournament_status("cup", "paused")
        with pytest.raises(StoreError, match="no tournament 'nope'"):
            s.set_tournament_status("nope", "complete")
        assert s.get_tournament("nope") is None
        for bad in ({"seed": 2**256}, {"seed": "7"}, {"boards": 0}, {"entrants": [A, A]}, {"entrants": ["nobody"]}):
            kw = dict(name="x", ruleset_name="classic", options={}, seed=1, boards=1, entrants=[A, B]) | bad
            with pytest.raises(StoreError):
                s.create_tournament(**kw)
        assert s.get_tournament("x") is None


def test_boards_round_trip():
    with new_store() as s:
        boards = [make_board(11, k) for k in range(6)]
        assert s.add_boards("t1", boards[:4]) == 4
        assert s.add_boards("t1", boards) == 2
        assert s.boards("t1") == boards
        with pytest.raises(StoreError, match="another dealer or deck"):
            s.add_boards("t1", [make_board(12, 0)])
        with pytest.raises(StoreError, match="no tournament"):
            s.add_boards("t9", boards)


def test_boards_are_added_a_few_at_a_time_all_or_nothing(monkeypatch):
    """add_boards takes its boards BOARDS_AT_ONCE at a time (what it builds does not grow
    with a long match, issue 14 item 3) and still writes all of them or none."""
    monkeypatch.setattr(store_module, "BOARDS_AT_ONCE", 2)
    with new_store() as s:
        boards = [make_board(11, k) for k in range(7)]
        assert s.add_boards("t1", iter(boards[2:4])) == 2
        assert s.add_boards("t1", iter(boards)) == 5  # chunks: 0-1 new, 2-3 stored, 4-5 and 6 new
        assert s.boards("t1") == boards
        bad = [make_board(11, k) for k in range(7, 12)] + [make_board(12, 3)]  # board 3 in the third chunk
        with pytest.raises(StoreError, match="board 3 of 't1' is already stored with another dealer or deck"):
            s.add_boards("t1", iter(bad))
        assert s.boards("t1") == boards  # the two chunks before it were rolled back
        with pytest.raises(StoreError, match="a deck has 32 cards"):
            s.add_boards("t1", iter([make_board(11, 7), dataclasses.replace(make_board(11, 8), deck=())]))
        assert count(s, "boards") == 7


# --------------------------------------------------------------------------
# Writing and reading board pairs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset_name", sorted(RULESETS))
def test_write_and_read_back(ruleset_name, tmp_path):
    ruleset = get_ruleset(ruleset_name)
    rng = random.Random(ruleset_name)
    with new_store(tmp_path / "arena.duckdb", ruleset_name) as s:
        written = {}
        for board in range(3):
            for a, b in ((A, B), (A, C), (B, C)):
                r = make_result(ruleset, board, a, b, rng, fault=(a, b, board) == (B, C, 1))
                written[(match_id("t1", a, b), board)] = r
                assert s.write_board_pair("t1", match_id("t1", a, b), r) is True

        # counts
        n_actions = sum(len(t.decisions) for r in written.values() for t in r.tables)
        assert result_counts(s) == {"board_pairs": 9, "deals": 18, "actions": n_actions, "faults": 1, "matches": 3}
        assert s.done_board_pairs("t1") == set(written)

        # deals rows: the outcome columns are those of the outcome, NS/EW as team 0/1
        rows = s.con.execute(
            "SELECT match_id, board, table_no, score_ns, score_ew, trick_points_ns, contract, pot, "
            "record->>'ruleset', len(deck), permutation FROM deals"
        ).fetchall()
        for mid, board, table, s_ns, s_ew, tp_ns, contract, pot, rs_name, n_deck, perm in rows:
            t = written[(mid, board)].tables[table - 1]
            o = t.outcome
            assert (s_ns, s_ew, tp_ns, contract, pot) == (o.score[0], o.score[1], o.trick_points[0], o.contract, o.pot)
            assert (rs_name, n_deck, tuple(perm)) == (ruleset_name, 32, t.permutation)

        # the read-back results are the referee's, and their records replay to the stored outcome
        for (mid, board), r in written.items():
            back = s.board_pair_result(mid, board)
            assert (back.a, back.b, back.board, back.forfeit_a, back.forfeit_b) == (
                r.a, r.b, r.board, r.forfeit_a, r.forfeit_b)
            assert (back.points_a, back.points_b, back.margin) == (r.points_a, r.points_b, r.margin)
            for got, want in zip(back.tables, r.tables):
                assert (got.table, got.ns, got.ew, got.permutation) == (want.table, want.ns, want.ew, want.permutation)
                assert got.record == want.record
                assert got.decisions == want.decisions
                assert got.faults == want.faults
                assert same_outcome(got.outcome, want.outcome)
                assert replay(got.record).outcome().score == got.outcome.score

        # ratings input
        rows = s.board_pair_results("t1")
        assert isinstance(rows, BoardPairRows) and len(rows) == 9
        assert rows.entrants == tuple(sorted((A, B, C)))
        assert rows.a.dtype == np.int64 and rows.margin.dtype == np.int64 and rows.forfeit_b.dtype == np.bool_
        got = sorted(rows.rows())
        want = sorted((r.a, r.b, r.board, r.margin, r.forfeit_a, r.forfeit_b) for r in written.values())
        assert got == want
        assert len(s.board_pair_results(ruleset=ruleset_name)) == 9
        assert len(s.board_pair_results(ruleset="no-such-ruleset")) == 0
        assert len(s.board_pair_results("other")) == 0

        # match summaries
        summaries = {m.match_id: m for m in s.matches("t1")}
        assert set(summaries) == {mid for mid, _ in written}
        for mid, m in summaries.items():
            rs = [r for (k, _), r in written.items() if k == mid]
            assert m.boards == 3 and m.ruleset == ruleset_name
            assert m.total_margin == sum(r.margin for r in rs) == m.points_a - m.points_b
            assert m.faults == sum(len(r.faults) for r in rs)
            assert m.forfeits_b == sum(r.forfeit_b for r in rs)
        assert {m.match_id for m in s.matches(bot="gamma")} == {match_id("t1", A, C), match_id("t1", B, C)}
        assert {m.match_id for m in s.matches(bot=B)} == {match_id("t1", A, B), match_id("t1", B, C)}
        assert s.matches(bot="gamma@9") == []

        # deal_records of a whole match: boards then tables
        recs = s.deal_records(match_id("t1", A, B))
        assert [(t.board, t.table) for t in recs] == [(0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)]


def test_write_is_idempotent(store):
    ruleset = get_ruleset("classic")
    rng = random.Random(4)
    mid = match_id("t1", A, B)
    r0, r1, r2 = (make_result(ruleset, k, A, B, rng) for k in range(3))
    assert store.write_board_pair("t1", mid, r0) is True
    before = result_counts(store)
    other = make_result(ruleset, 0, A, B, random.Random(99))  # the same board pair, played differently
    assert store.write_board_pair("t1", mid, other) is False
    assert store.write_board_pair("t1", mid, r0) is False
    assert result_counts(store) == before
    assert store.board_pair_result(mid, 0).tables[0].decisions == r0.tables[0].decisions
    # a batch holding a stored board pair writes the others
    assert store.write_board_pairs("t1", [(mid, r0), (mid, r1), (mid, r2)]) == 2
    assert store.write_board_pairs("t1", [(mid, r1), (mid, r2)]) == 0
    assert store.done_board_pairs("t1") == {(mid, 0), (mid, 1), (mid, 2)}
    with pytest.raises(StoreError, match="twice"):
        store.write_board_pairs("t1", [(mid, r1), (mid, r1)])


def test_failed_write_leaves_nothing(store, monkeypatch):
    ruleset = get_ruleset("classic")
    rng = random.Random(5)
    mid = match_id("t1", A, B)
    first, second = make_result(ruleset, 0, A, B, rng), make_result(ruleset, 1, A, B, rng, fault=True)
    new_mid = match_id("t1", A, C)
    third = make_result(ruleset, 0, A, C, rng)
    store.write_board_pair("t1", mid, first)
    before = result_counts(store)

    # a Python exception in the middle of the write (after board_pairs and deals are inserted)
    real_insert = Store._insert

    def failing_insert(self, table, data):
        if table == "actions":
            raise RuntimeError("disk on fire")
        real_insert(self, table, data)

    monkeypatch.setattr(Store, "_insert", failing_insert)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.write_board_pair("t1", mid, second)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.write_board_pair("t1", new_mid, third)  # its new matches row goes too
    with pytest.raises(RuntimeError):
        store.write_board_pairs("t1", [(mid, second), (new_mid, third)])
    assert result_counts(store) == before
    assert result_counts(store, mid, 1) == {"board_pairs": 0, "deals": 0, "actions": 0, "faults": 0, "matches": 1}
    assert result_counts(store, new_mid)["matches"] == 0

    # a database error in the middle of the write (a CHECK fails in the actions insert)
    monkeypatch.setattr(Store, "_insert", real_insert)
    real_stage = store_module._stage

    def bad_stage(items):
        bp, deals, actions, faults, calls = real_stage(items)
        kinds = actions.column("kind").to_pylist()
        kinds[-1] = "sneeze"
        return bp, deals, actions.set_column(actions.schema.get_field_index("kind"), "kind", [kinds]), faults, calls

    monkeypatch.setattr(store_module, "_stage", bad_stage)
    with pytest.raises(StoreError, match="nothing written"):
        store.write_board_pair("t1", mid, second)
    assert result_counts(store) == before

    # and the same board pair writes cleanly afterwards
    monkeypatch.setattr(store_module, "_stage", real_stage)
    assert store.write_board_pair("t1", mid, second) is True
    assert store.write_board_pair("t1", new_mid, third) is True
    assert result_counts(store, mid, 1)["faults"] == 1


def test_write_refuses_inconsistent_results(store):
    ruleset = get_ruleset("classic")
    rng = random.Random(6)
    r = make_result(ruleset, 0, A, B, rng)
    with pytest.raises(StoreError, match="no tournament"):
        store.write_board_pair("t9", match_id("t9", A, B), r)
    store.write_board_pair("t1", match_id("t1", A, B), r)
    swapped = dataclasses.replace(make_result(ruleset, 1, A, B, rng), a=B, b=A)
    with pytest.raises(StoreError, match="not 't1' between beta@2 and alpha@1.0"):
        store.write_board_pair("t1", match_id("t1", A, B), swapped)
    wrong_board = dataclasses.replace(r, board=5)
    with pytest.raises(StoreError, match="table 1 played board 0"):
        store.write_board_pair("t1", match_id("t1", A, B), wrong_board)
    stranger = dataclasses.replace(r, b=C)
    with pytest.raises(StoreError, match="not alpha@1.0 v gamma@0.1"):
        store.write_board_pair("t1", match_id("t1", A, C), stranger)
    rc = make_result(ruleset, 0, A, C, rng)
    t1, t2 = rc.tables
    bad_action = dataclasses.replace(t2, decisions=t2.decisions + [Decision(0, {"dance": True}, 1.0)])
    with pytest.raises(StoreError, match="table 2 decision .*not an action"):
        store.write_board_pair("t1", match_id("t1", A, C), dataclasses.replace(rc, tables=(t1, bad_action)))
    bad_perm = dataclasses.replace(t2, permutation=(0, 0, 1, 2))
    with pytest.raises(StoreError, match="permutation"):
        store.write_board_pair("t1", match_id("t1", A, C), dataclasses.replace(rc, tables=(t1, bad_perm)))
    assert result_counts(store)["board_pairs"] == 1


def test_last_pot_per_table(store):
    """The litige pot carried out of the highest stored board at a table (RULES.md §6.3)."""
    ruleset = get_ruleset("all-trumps")
    rng = random.Random(7)
    mid = match_id("t1", A, B)
    assert store.last_pot(mid, 1) == 0
    pots = {0: (81, 0), 1: (0, 76), 2: (40, 12)}
    expected = {0: (81, 0), 2: (40, 12), 1: (40, 12)}  # after writing boards 0, 2, then 1: the highest board counts
    for board in (0, 2, 1):
        r = make_result(ruleset, board, A, B, rng)
        tables = tuple(dataclasses.replace(t, outcome=dataclasses.replace(t.outcome, pot=pots[board][t.table - 1]))
                       for t in r.tables)
        store.write_board_pair("t1", mid, dataclasses.replace(r, tables=tables))
        assert (store.last_pot(mid, 1), store.last_pot(mid, 2)) == expected[board]
    assert store.last_pot(match_id("t1", A, C), 1) == 0


def test_done_keys_resume_the_schedule(store):
    ruleset = get_ruleset("classic")
    rng = random.Random(8)
    jobs = schedule([A, B, C], 2, 11)
    for job in jobs[:4]:
        store.write_board_pair("t1", match_id("t1", job.a, job.b), make_result(ruleset, job.board, job.a, job.b, rng))
    assert store.done_keys("t1") == {job.key for job in jobs[:4]}
    assert missing(jobs, store.done_keys("t1")) == jobs[4:]


def test_board_pair_results_feed_the_ratings(store):
    rng = random.Random(12)
    ruleset = get_ruleset("two-player")
    results = [(match_id("t1", a, b), make_result(ruleset, k, a, b, rng, fault=(k == 2 and a == A)))
               for k in range(4) for a, b in ((A, B), (A, C), (B, C))]
    store.write_board_pairs("t1", results)
    rows = store.board_pair_results("t1")
    score = [board_pair_outcome(int(m), bool(fa), bool(fb))
             for m, fa, fb in zip(rows.margin, rows.forfeit_a, rows.forfeit_b)]
    by_arrays = tally_arrays(len(rows.entrants), rows.a, rows.b, score)
    by_rows = tally(rows.entrants, ((r[0], r[1], board_pair_outcome(*r[3:])) for r in rows.rows()))
    assert np.array_equal(by_arrays.wins, by_rows.wins)
    assert by_arrays.games.sum() == 2 * len(results)


def test_deal_records_errors(store):
    with pytest.raises(StoreError, match="no match"):
        store.deal_records("t1/x@1~y@1")
    store.write_board_pair("t1", match_id("t1", A, B), make_result(get_ruleset("classic"), 0, A, B, random.Random(9)))
    with pytest.raises(StoreError, match="board 3 .* is not stored"):
        store.deal_records(match_id("t1", A, B), 3)
    assert len(store.deal_records(match_id("t1", A, B), 0)) == 2


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_export(store, tmp_path, fmt):
    rng = random.Random(10)
    store.add_bot("alpha", "1.0", "Ann", "m", "h", "p")
    store.add_boards("t1", [make_board(11, k) for k in range(2)])
    ruleset = get_ruleset("classic")
    results = [(match_id("t1", A, B), make_result(ruleset, k, A, B, rng, fault=k == 1)) for k in range(2)]
    assert store.write_board_pairs("t1", results) == 2
    paths = store.export(tmp_path / "out", fmt)
    assert [p.name for p in paths] == [f"{t}.{fmt}" for t in TABLES + VIEWS]
    for table, path in zip(TABLES + VIEWS, paths):
        if fmt == "parquet":
            n = pq.read_table(path).num_rows
        else:
            lines = path.read_text().splitlines()
            n = len([json.loads(line) for line in lines])
        assert n == count(store, table), table
    if fmt == "jsonl":
        deal = json.loads((tmp_path / "out" / "deals.jsonl").read_text().splitlines()[0])
        assert deal["match_id"] == match_id("t1", A, B) and len(deal["deck"]) == 32
    with pytest.raises(StoreError, match="unknown export format"):
        store.export(tmp_path / "out", "csv")


def test_add_match_and_tournament_progress(store):
    mid = match_id("t1", A, B)
    store.add_match("t1", mid, A, B, "classic")
    store.add_match("t1", mid, A, B)  # idempotent
    assert store.last_pot(mid, 1) == 0
    assert result_counts(store)["matches"] == 1 and store.matches("t1") == []  # listed once it has board pairs
    with pytest.raises(StoreError, match="not strict"):
        store.add_match("t1", match_id("t1", A, C), A, C, "strict")
    with pytest.raises(StoreError, match="between alpha@1.0 .A. and beta@2 .B."):
        store.add_match("t1", mid, B, A)
    rng = random.Random(13)
    store.write_board_pairs("t1", [(mid, make_result(get_ruleset("classic"), k, A, B, rng)) for k in range(3)])
    assert store.get_tournament("t1").board_pairs == 3
    assert [t.board_pairs for t in store.list_tournaments()] == [3]


def test_resolved_ruleset_refuses_changed_rules():
    with Store.open(None) as s:
        options = get_ruleset("strict").options() | {"rounding": 1}
        s.create_tournament("old", "strict", options, 1, 2, [A, B])
        with pytest.raises(StoreError, match="other strict options"):
            s.get_tournament("old").resolved_ruleset()


# --------------------------------------------------------------------------
# Secret seeds (issue 9 / secret boards) and the schema version 1 upgrade
# --------------------------------------------------------------------------


def test_secret_seed_hidden_until_complete_then_revealed(tmp_path):
    """Issue 9 / secret boards: a 256-bit seed round-trips as text; it is hidden (public_seed,
    repr, export) until the tournament is complete; its commitment is public from the start."""
    seed = new_seed() | 2**255  # 256 bits for sure
    ruleset = get_ruleset("classic")
    with Store.open(tmp_path / "arena.duckdb") as s:
        t = s.create_tournament("sec", "classic", ruleset.options(), seed, 2, [A, B], secret=True)
        s.create_tournament("pub", "classic", ruleset.options(), 7, 2, [A, B])
        assert (t.seed, t.seed_secret, t.seed_revealed, t.public_seed) == (seed, True, False, None)
        assert t.commitment == seed_commitment(seed) == hashlib.sha256(str(seed).encode()).hexdigest()
        assert str(seed) not in repr(t)
        assert s.con.execute("SELECT seed FROM tournaments WHERE name = 'sec'").fetchone()[0] == str(seed)
        pub = s.get_tournament("pub")
        assert (pub.seed_secret, pub.public_seed, pub.commitment) == (False, 7, seed_commitment(7))
        with pytest.raises(StoreError, match="another .secret. seed") as e:
            s.create_tournament("sec", "classic", ruleset.options(), seed + 1, 2, [A, B])
        assert str(seed) not in str(e.value)
        for name, k in (("sec", seed), ("pub", 7)):
            s.add_boards(name, [make_board(k, b) for b in range(2)])

        def exported() -> tuple[dict, set, str]:
            out = tmp_path / "export"
            s.export(out, "jsonl")
            rows = [json.loads(line) for line in (out / "tournaments.jsonl").read_text().splitlines()]
            boards = {json.loads(line)["tournament"] for line in (out / "boards.jsonl").read_text().splitlines()}
            text = "".join(p.read_text() for p in out.iterdir())
            return {r["name"]: r for r in rows}, boards, text

        rows, boards, text = exported()
        assert rows["sec"]["seed"] is None and rows["sec"]["commitment"] == t.commitment
        assert rows["pub"]["seed"] == "7"
        assert boards == {"pub"} and str(seed) not in text  # the secret's decks are left out too

        s.set_tournament_status("sec", Status.COMPLETE)
        done = s.get_tournament("sec")
        assert (done.seed_revealed, done.public_seed) == (True, seed)
        rows, boards, _ = exported()
        assert rows["sec"]["seed"] == str(seed) and boards == {"pub", "sec"}
        assert hashlib.sha256(rows["sec"]["seed"].encode()).hexdigest() == rows["sec"]["commitment"]
        # the revealed seed re-deals every stored board
        assert s.boards("sec") == [make_board(int(rows["sec"]["seed"]), b) for b in range(2)]

        # a revealed secret seed takes no new entrant (it could know every board); a public seed does
        with pytest.raises(StoreError, match="secret seed is revealed"):
            s.add_entrants("sec", [C])
        assert s.get_tournament("sec").entrants == (A, B)
        s.set_tournament_status("pub", Status.COMPLETE)
        assert s.add_entrants("pub", [C]) == (A, B, C)


def test_a_schema_version_1_database_is_upgraded(tmp_path):
    """A database written before 256-bit seeds (tests/data/schema_v1.sql) opens: its seeds become
    public text seeds with their commitments; every row of the tables rebuilt is kept."""
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute((ROOT / "tests" / "data" / "schema_v1.sql").read_text())
    con.execute("INSERT INTO schema_version VALUES (1)")
    options = json.dumps(get_ruleset("classic").options())
    con.execute("INSERT INTO tournaments VALUES ('club', 'classic', ?, 7, 3, now(), 'complete'), "
                "('neg', 'classic', ?, -5, 2, now(), 'running')", [options, options])
    con.execute("INSERT INTO tournament_entrants VALUES ('club', 0, 'alpha', '1.0'), ('club', 1, 'beta', '2')")
    con.execute("INSERT INTO boards VALUES ('club', 0, 0, ?)", [make_board(7, 0).deck_text()])
    con.execute("INSERT INTO matches VALUES (?, 'club', ?, ?, 'classic')", [match_id("club", A, B), A, B])
    con.close()
    with pytest.raises(StoreError, match="schema version 1.*open it once for writing"):
        Store.open(path, read_only=True)
    with Store.open(path) as s:
        t = s.get_tournament("club")
        assert (t.seed, t.seed_secret, t.public_seed, t.commitment) == (7, False, 7, seed_commitment(7))
        assert t.entrants == (A, B) and (t.stored_status, t.status) == ("complete", "incomplete") and t.boards_per_pair == 3
        assert s.get_tournament("neg").seed == -5
        assert s.boards("club") == [make_board(7, 0)]
        s.write_board_pair("club", match_id("club", A, B), make_result(get_ruleset("classic"), 0, A, B,
                                                                        random.Random(1), seed=7))
        assert s.con.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    with Store.open(path, read_only=True) as s:  # upgraded once: read-only opens work again
        assert s.get_tournament("club").board_pairs == 1


# --------------------------------------------------------------------------
# Outcomes and views (schema version 3)
# --------------------------------------------------------------------------


def test_outcome_column_and_views_agree_with_ratings(tmp_path):
    """board_pairs.outcome_a, the entrant_board_pairs view and the ratings' tally count the
    same wins, draws and losses (RULES.md §8: a forfeit loses whatever the margin), so a
    plain SQL count of wins is the one `arena ratings` shows; entrant_actions names the
    entrant of every action."""
    rs = get_ruleset("classic")
    with new_store(tmp_path / "arena.duckdb") as s:
        rng = random.Random(3)
        mid = match_id("t1", A, B)
        results = [make_result(rs, k, A, B, rng, fault=k % 3 == 0) for k in range(6)]
        results.append(dataclasses.replace(make_result(rs, 6, A, B, rng), forfeit_a=True, forfeit_b=True))
        s.write_board_pairs("t1", [(mid, r) for r in results])
        stored = dict(s.con.execute("SELECT board, outcome_a FROM board_pairs").fetchall())
        want = {r.board: {1.0: "win", 0.5: "draw", 0.0: "loss"}[board_pair_outcome(r.margin, r.forfeit_a, r.forfeit_b)]
                for r in results}
        assert stored == want
        assert stored[0] == stored[3] == "win"  # B forfeited: A wins whatever the margin
        assert stored[6] == "draw"  # both forfeited
        wdl = dict(s.con.execute(
            "SELECT entrant, [count(*) FILTER (WHERE outcome = 'win'), count(*) FILTER (WHERE outcome = 'draw'), "
            "count(*) FILTER (WHERE outcome = 'loss')] FROM entrant_board_pairs GROUP BY entrant").fetchall())
        w, d, l = (sum(v == o for v in stored.values()) for o in ("win", "draw", "loss"))
        assert wdl == {A: [w, d, l], B: [l, d, w]}
        who = s.con.execute("SELECT DISTINCT table_no, seat, entrant FROM entrant_actions ORDER BY ALL").fetchall()
        assert who == [(1, 0, A), (1, 1, B), (1, 2, A), (1, 3, B), (2, 0, B), (2, 1, A), (2, 2, B), (2, 3, A)]
        assert count(s, "entrant_actions") == count(s, "actions")


def test_a_schema_version_2_database_is_upgraded(tmp_path):
    """A version 2 database (no outcome_a) gets the column, filled from its rows, and the views."""
    path = tmp_path / "old.duckdb"
    rs = get_ruleset("classic")
    with new_store(path) as s:
        r = make_result(rs, 0, A, B, random.Random(5), fault=True)
        s.write_board_pair("t1", match_id("t1", A, B), r)
        s.con.execute("DROP VIEW entrant_board_pairs")
        s.con.execute("DROP VIEW entrant_actions")
        s.con.execute("ALTER TABLE board_pairs DROP COLUMN outcome_a")
        s.con.execute("UPDATE schema_version SET version = 2")
    with pytest.raises(StoreError, match="schema version 2.*open it once for writing"):
        Store.open(path, read_only=True)
    with Store.open(path) as s:
        assert s.con.execute("SELECT outcome_a FROM board_pairs").fetchall() == [("win",)]
        assert s.con.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert count(s, "entrant_board_pairs") == 2
