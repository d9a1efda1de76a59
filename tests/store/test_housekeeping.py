"""Issue 20 in the store: the settings a resume keeps (time bank, increment, --workers, a
gauntlet), schema version 4's upgrade, and deleting or renaming a tournament (item 14)."""

from __future__ import annotations

import random

import pytest

from arena.store import SCHEMA_VERSION, Store, StoreError, match_id
from referee.rules import get_ruleset

from .test_store import A, B, C, count, make_result, new_store

SETTINGS = {"decision_ms": 700, "max_faults": 2, "cpu_s": 5, "memory_mib": 512, "time_bank_ms": 3000,
            "time_increment_ms": 40}


def test_time_bank_workers_and_gauntlet_are_kept_with_the_tournament(tmp_path):
    path = tmp_path / "arena.duckdb"
    with new_store(path) as s:
        s.set_play_settings("t1", SETTINGS)
        assert s.run_workers("t1") is None  # never given: a resume uses auto
        s.set_run_options("t1", workers=3, gauntlet=B)
        s.set_run_options("t1", workers=0)  # a later run's --workers auto; the gauntlet stays
        with pytest.raises(StoreError, match="no play settings"):
            s.set_run_options("nobody", workers=1)
    with Store.open(path, read_only=True) as s:
        assert s.play_settings("t1") == SETTINGS
        assert s.run_workers("t1") == 0
        t = s.get_tournament("t1")
        # a gauntlet of B among A, B, C: B-A and B-C only (a round robin of 3 would be 3 pairs)
        assert t.gauntlet == B and t.pairs == 2


def test_a_schema_version_3_database_is_upgraded(tmp_path):
    """Version 3's settings had no time bank, increment, workers or gauntlet: they read as
    0, 0, never given, a round robin."""
    path = tmp_path / "old.duckdb"
    with new_store(path) as s:
        s.con.execute("DROP TABLE tournament_settings")
        s.con.execute("CREATE TABLE tournament_settings (tournament VARCHAR PRIMARY KEY, decision_ms INTEGER NOT NULL, "
                      "max_faults INTEGER NOT NULL, cpu_s INTEGER NOT NULL, memory_mib INTEGER NOT NULL)")
        s.con.execute("INSERT INTO tournament_settings VALUES ('t1', 900, 3, 0, 1024)")
        s.con.execute("UPDATE schema_version SET version = 3")
    with pytest.raises(StoreError, match="schema version 3.*open it once for writing"):
        Store.open(path, read_only=True)
    with Store.open(path) as s:
        assert s.con.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)] == [(6,)]
        assert s.play_settings("t1") == {"decision_ms": 900, "max_faults": 3, "cpu_s": 0, "memory_mib": 1024,
                                         "time_bank_ms": 0, "time_increment_ms": 0}
        assert s.run_workers("t1") is None
        t = s.get_tournament("t1")
        assert t.gauntlet is None and t.pairs == 3


def _two_tournaments(path):
    """t1 and t2 with the same entrants, two board pairs each stored (one with a fault)."""
    rs = get_ruleset("classic")
    s = new_store(path)
    s.create_tournament("t2", rs.name, rs.options(), 11, 6, [A, B, C])
    rng = random.Random(1)
    for name in ("t1", "t2"):
        s.set_play_settings(name, SETTINGS)
        mid = match_id(name, A, B)
        s.write_board_pairs(name, [(mid, make_result(rs, k, A, B, rng, fault=k == 0)) for k in range(2)])
    return s


def _rows(s: Store, tournament: str) -> dict[str, int]:
    matches = "SELECT match_id FROM matches WHERE tournament = ?"
    out = {t: count(s, t, f"WHERE match_id IN ({matches})", [tournament])
           for t in ("board_pairs", "deals", "actions", "faults")}
    out |= {t: count(s, t, "WHERE tournament = ?", [tournament])
            for t in ("matches", "boards", "tournament_entrants", "tournament_settings")}
    return out


def test_delete_removes_one_tournament_and_leaves_the_other(tmp_path):
    with _two_tournaments(tmp_path / "arena.duckdb") as s:
        before = _rows(s, "t2")
        assert _rows(s, "t1")["faults"] == before["faults"] == 1 and before["actions"] > 0
        s.delete_tournament("t1")
        assert s.get_tournament("t1") is None
        assert set(_rows(s, "t1").values()) == {0}
        assert _rows(s, "t2") == before  # the other tournament, same entrants, untouched
        with pytest.raises(StoreError, match="no tournament 't1'"):
            s.delete_tournament("t1")


def test_rename_moves_every_row_and_the_match_ids(tmp_path):
    with _two_tournaments(tmp_path / "arena.duckdb") as s:
        before, other = _rows(s, "t1"), _rows(s, "t2")
        records = [r.record for r in s.deal_records(match_id("t1", A, B))]
        s.rename_tournament("t1", "club")
        assert s.get_tournament("t1") is None
        t = s.get_tournament("club")
        assert t.entrants == (A, B, C) and t.board_pairs == 2
        assert _rows(s, "club") == before and set(_rows(s, "t1").values()) == {0}
        assert _rows(s, "t2") == other
        assert s.play_settings("club") == SETTINGS
        assert [r.record for r in s.deal_records(match_id("club", A, B))] == records
        with pytest.raises(StoreError, match="named 't2' exists"):
            s.rename_tournament("club", "t2")
