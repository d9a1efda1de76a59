"""A deal suite through ``arena`` (issue 20 item 12): ``--deals FILE`` plays the file's boards
at both tables of every pair, stores them and the file's name and SHA-256, resumes on them
without the file, and refuses a bad file, another file or more boards than it holds."""

from __future__ import annotations

import hashlib
import json

import duckdb

from arena.play.deals import deck_line
from arena.play.schedule import suit_permutation
from arena.store import Store
from referee.rules import get_ruleset, make_board, relabel

from .conftest import cli, output

CASE = "tests/data/cases/classic/made_81_81.json"


def _suite(tmp_path):
    """Two compact lines and a hand-checked case on one line: three boards, dealers 0, 1 and 3."""
    case = json.loads(open(CASE).read())
    path = tmp_path / "suite.txt"
    path.write_text("# dealer, then the deck from the top\n" + deck_line(make_board(77, 0)) + "\n"
                    + deck_line(make_board(77, 1)) + "\n" + json.dumps(case) + "\n")
    decks = [make_board(77, 0).deck_text(), make_board(77, 1).deck_text(), case["record"]["deck"]]
    return path, decks, [0, 1, case["record"]["dealer"]]


def test_a_tournament_plays_the_deal_file_and_resumes_on_its_stored_boards(tmp_path):
    path, decks, dealers = _suite(tmp_path)
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--deals", path, "--seed", 3,
            "--workers", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert f"boards: the deal suite suite.txt (3 boards, SHA-256 {digest}), not dealt from the seed" in r.stdout
    assert "3 board pairs played now, 0 already stored, " in r.stdout
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT file_name, sha256, file_boards FROM deal_suites WHERE tournament = 't'"
                           ).fetchall() == [("suite.txt", digest, 3)]
        assert con.execute("SELECT board, dealer, deck FROM boards ORDER BY board").fetchall() == [
            (k, dealers[k], decks[k]) for k in range(3)]
        played = con.execute("SELECT board, table_no, dealer, deck FROM deals ORDER BY board, table_no").fetchall()
    # every board at both tables (RULES.md §8): table 1 as in the file, table 2 with its suits renamed
    want = []
    for k in range(3):
        board = make_board(0, 0)
        deck = tuple(type(board.deck[0]).parse(c) for c in decks[k])
        renamed = [str(c) for c in relabel(deck, suit_permutation(3, k))]
        want += [(k, 1, dealers[k], decks[k]), (k, 2, dealers[k], renamed)]
    assert played == want
    info = json.loads(cli("tournament", "show", "t", "--json", "--db", db).stdout)
    assert info["deals"] == {"file": "suite.txt", "sha256": digest, "file_boards": 3}
    ratings = json.loads(cli("ratings", "--tournament", "t", "--json", "--db", db).stdout)
    assert sorted((o["name"], o["boards"]) for o in ratings) == [("greedy", 3), ("random", 3)]

    # another file is refused; board 2 lost: the resume, without --deals, plays it on the stored board
    other = tmp_path / "other.txt"
    other.write_text(deck_line(make_board(5, 0)) + "\n")
    r = cli("tournament", "run", "t", "--deals", other, "--db", db)
    assert r.exit_code == 1
    assert (f"'t' was created with the deal file suite.txt (SHA-256 {digest[:16]}…), and {other} is another file "
            "(SHA-256 ") in " ".join(r.stderr.split())
    with duckdb.connect(str(db)) as con:
        for table in ("board_pairs", "deals", "actions"):
            con.execute(f"DELETE FROM {table} WHERE board = 2")
    path.unlink()
    r = cli("tournament", "run", "t", "--db", db)
    assert r.exit_code == 0 and "1 board pairs played now, 2 already stored" in r.stdout, output(r)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT dealer, deck FROM deals WHERE board = 2 AND table_no = 1").fetchall() == [
            (dealers[2], decks[2])]


def test_sprt_and_match_play_the_deal_file(tmp_path, monkeypatch):
    from arena.play import matchview

    db = tmp_path / "arena.duckdb"
    path = tmp_path / "suite.txt"
    path.write_text(deck_line(make_board(5, 0)) + "\n")
    # arena sprt: no more board pairs than the file holds
    r = cli("sprt", "random", "greedy", "--deals", path, "--max-boards", 2, "--db", db)
    assert r.exit_code == 1
    assert "suite.txt holds 1 board, fewer than the 2 asked for: ask for 1 or fewer" in r.stderr
    assert "(--max-boards)" in r.stderr
    r = cli("sprt", "random", "greedy", "--deals", path, "--max-boards", 1, "--name", "s", "--db", db)
    assert r.exit_code == 0 and "boards: the deal suite suite.txt (1 board," in r.stdout, output(r)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT d.dealer, d.deck FROM deals d JOIN matches m USING (match_id) "
                           "WHERE m.tournament = 's' AND d.table_no = 1").fetchall() == [
            (0, make_board(5, 0).deck_text())]

    # arena match: the file's boards (the board count is the file's)
    played = []
    real = matchview.play_match

    def recording(mid, a, b, boards, config, **kw):
        boards = list(boards)
        played.extend((x.number, x.dealer, x.deck_text()) for x in boards)
        return real(mid, a, b, boards, config, **kw)

    monkeypatch.setattr(matchview, "play_match", recording)
    r = cli("match", "--bot", "random", "--bot", "greedy", "--deals", path, "--seed", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    assert played == [(0, 0, make_board(5, 0).deck_text())]
    r = cli("match", "--bot", "random", "--bot", "greedy", "--deals", path, "--boards", 3, "--db", db)
    assert r.exit_code == 1 and "suite.txt holds 1 board, fewer than the 3 asked for" in r.stderr


def test_a_bad_deal_file_is_refused_at_start_and_nothing_is_stored(tmp_path):
    db = tmp_path / "arena.duckdb"
    bad = tmp_path / "bad.txt"
    cards = deck_line(make_board(1, 0)).split()[1:]
    for text, message in [
        ("# my suite\n3 " + " ".join(cards[:31] + [cards[0]]) + "\n",
         f"bad.txt line 2: {cards[0]} given twice (so {cards[31]} missing): a deck holds each of the 32 cards once"),
        ("0 " + " ".join(cards[:30]) + "\n", "bad.txt line 1: 30 cards after the dealer"),
        ('{"ruleset": "classic", "dealer": 1,\n', "bad.txt line 1: not JSON: "),
    ]:
        bad.write_text(text)
        r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--deals", bad, "--db", db)
        assert r.exit_code == 1 and r.stderr.startswith(f"error: {message}"), output(r)
        assert len(r.stderr.strip().splitlines()) == 1
    # a two-player tournament takes two-player boards only
    bad.write_text(json.dumps({"ruleset": "classic", "dealer": 3, "deck": cards, "actions": []}) + "\n")
    r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--ruleset", "two-player",
            "--deals", bad, "--db", db)
    assert r.exit_code == 1
    assert "bad.txt line 1: a classic record (4 players) in a game of 2 players" in r.stderr
    bad.write_text(deck_line(make_board(1, 0)) + "\n")
    r = cli("tournament", "run", "t", "--bots", "random", "--bots", "greedy", "--deals", bad, "--boards", 2,
            "--db", db)
    assert r.exit_code == 1
    assert "bad.txt holds 1 board, fewer than the 2 asked for: ask for 1 or fewer, or add boards to the file " \
           "(--boards)" in " ".join(r.stderr.split())
    assert not db.exists()  # refused before anything was written: no database file left behind

    # a tournament dealt from its seed takes no deal file
    with Store.open(db) as s:
        s.create_tournament("dealt", "classic", get_ruleset("classic").options(), 1, 1, secret=False)
    r = cli("tournament", "run", "dealt", "--deals", bad, "--db", db)
    assert r.exit_code == 1
    assert "'dealt' exists with boards dealt from its seed, fixed once it is created: leave --deals out" in r.stderr
