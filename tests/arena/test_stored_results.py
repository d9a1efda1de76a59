"""What a stored tournament must hold, checked on the stored rows (issue 14 item 17):
table 2 was dealt the board's deck relabelled by its stored suit permutation
(RULES.md §8, a derangement drawn from the seed), and a board pair stored for one
tournament never counts as done for another tournament of the same entrants."""

from __future__ import annotations

import duckdb
import pytest

from arena.play.schedule import suit_permutation
from referee.rules import Card, make_board, relabel

from .conftest import SAMPLES, cli, output

BOARDS = 4
SEED = 31


@pytest.fixture(scope="module")
def two_tournaments(tmp_path_factory):
    db = tmp_path_factory.mktemp("stored") / "arena.duckdb"
    bots = ["--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy"]
    runs = {}
    for name, seed in (("first", SEED), ("second", SEED + 1)):
        r = cli("tournament", "run", name, *bots, "--boards", BOARDS, "--seed", seed, "--db", db)
        assert r.exit_code == 0, output(r)
        runs[name] = r.stdout
    return db, runs


def test_table_two_is_the_board_relabelled_by_its_stored_permutation(two_tournaments):
    db, _ = two_tournaments
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            """SELECT m.tournament, t.seed, d.board, d.table_no, d.permutation, d.deck, b.deck
               FROM deals d JOIN matches m USING (match_id) JOIN tournaments t ON t.name = m.tournament
               JOIN boards b ON b.tournament = m.tournament AND b.board = d.board ORDER BY ALL""").fetchall()
    assert len(rows) == 2 * 2 * BOARDS
    for tournament, seed, board, table, perm, deck, board_deck in rows:
        cards, dealt = [Card.parse(c) for c in deck], [Card.parse(c) for c in board_deck]
        assert dealt == list(make_board(int(seed), board).deck)
        if table == 1:
            assert tuple(perm) == (0, 1, 2, 3) and cards == dealt
        else:
            assert tuple(perm) == suit_permutation(int(seed), board), (tournament, board)
            assert all(p != s for s, p in enumerate(perm))  # every suit renamed
            assert cards == list(relabel(dealt, perm)), (tournament, board)


def test_a_board_pair_counts_only_for_its_own_tournament(two_tournaments):
    db, runs = two_tournaments
    assert f"{BOARDS} board pairs played now, 0 already stored" in runs["second"]
    with duckdb.connect(str(db), read_only=True) as con:
        per = dict(con.execute("SELECT m.tournament, count(*) FROM board_pairs JOIN matches m USING (match_id) "
                               "GROUP BY ALL").fetchall())
    assert per == {"first": BOARDS, "second": BOARDS}
    r = cli("tournament", "run", "second", "--db", db)  # a rerun finds its own pairs done, not the first's
    assert r.exit_code == 0 and f"0 board pairs played now, {BOARDS} already stored" in r.stdout, output(r)
