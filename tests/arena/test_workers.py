"""`--workers`: a match is cut into runs of boards played at once when there are fewer
matches than workers; the results are the same as with one worker (bots reseed per deal)."""

from __future__ import annotations

import duckdb

from .conftest import SAMPLES, cli, output


def _rows(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return (
            con.sql("SELECT board, points_a, points_b, margin, forfeit_a, forfeit_b FROM board_pairs ORDER BY ALL").fetchall(),
            con.sql("SELECT board, table_no, idx, seat, kind, value FROM actions ORDER BY ALL").fetchall(),
        )
    finally:
        con.close()


def test_workers_give_the_results_of_one_worker(tmp_path):
    got = []
    for workers in (1, 3):
        db = tmp_path / f"w{workers}" / "a.duckdb"
        r = cli("tournament", "run", "w", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
                "--boards", 6, "--seed", 9, "--workers", workers, "--db", db)
        assert r.exit_code == 0, output(r)
        assert "6 board pairs played now" in output(r)
        got.append(_rows(db))
    assert got[0] == got[1]
    assert len(got[0][0]) == 6 and len(got[0][1]) > 6 * 2 * 20
