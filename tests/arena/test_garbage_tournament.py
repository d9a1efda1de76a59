"""A bot that breaks its answers mid-tournament gets faults, not a re-deal (issue 19 item 5).

The round-3 attack ``grpcabuse_garbage_after5`` passed the bots check, then answered bytes
that are no protobuf: the referee raised, the match ended in "worker error", no fault was
charged, the tournament stayed interrupted and on resume the lost board pair was dealt
again — a bot that breaks itself when losing got a re-deal.  Checked by effect: the
tournament completes with every board pair stored once, the garbage charged to its bot
as ``malformed`` faults (it forfeits those boards), no worker error.
"""

from __future__ import annotations

from arena.play import tournament
from arena.store import Store, match_id
from arena.play.submit import submit
from referee.rules import get_ruleset
from tests.referee import conftest as referee_conftest
from tests.referee.botkit import bot_folder, deals

from .conftest import SAMPLES

_time_guard = referee_conftest._time_guard

SEED, BOARDS = 11, 4


def test_garbage_answers_after_the_check_are_faults_and_the_tournament_completes(tmp_path):
    key, other = "garbage@1.0.0", "random@1.0.0"
    mid = match_id("t", key, other)
    # answers garbage from its 3rd decision of every deal of boards 1 and 2 (not in the bots check)
    bad = bot_folder(tmp_path, "garbage", "--payload", "junk", "--nth", 3, "--every",
                     "--deals", deals(1, 2, seed=SEED, match_id=mid))
    db = tmp_path / "results" / "arena.duckdb"
    store = Store.open(db)
    rs = get_ruleset("classic")
    store.create_tournament("t", rs.name, rs.options(), SEED, BOARDS)
    for folder in (bad, SAMPLES / "random"):
        submit(store, folder, store_root=tmp_path / "results" / "bots", tournament="t")
    summary = tournament.run(store, "t", workers=1)
    assert not summary.errors and not summary.interrupted
    assert store.get_tournament("t").status == "complete"
    rows = store.con.execute("SELECT board, forfeit_a, forfeit_b FROM board_pairs WHERE match_id = ? ORDER BY board",
                             [mid]).fetchall()
    # its faults of boards 1 and 2 reach max_faults (3): it forfeits the rest of the match
    assert rows == [(0, False, False), (1, True, False), (2, True, False), (3, True, False)]
    kinds = store.con.execute("SELECT DISTINCT kind, entrant FROM faults WHERE match_id = ?", [mid]).fetchall()
    assert kinds == [("malformed", key)]
    assert store.con.execute("SELECT count(*), count(DISTINCT (match_id, board, table_no)) FROM deals").fetchall() == [
        (2 * BOARDS, 2 * BOARDS)]
    store.close()
    assert summary.played == BOARDS and summary.faults > 0
