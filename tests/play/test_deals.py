"""Deal suites (``--deals FILE``, issue 20 item 12): the file formats and every refusal, each
naming the line and what is wrong (arena/play/deals.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from arena.play.deals import DealFileError, deck_line, load_deals, parse_deals
from referee.rules import Board, make_board

CASES = Path(__file__).resolve().parents[1] / "data" / "cases"
CASE = CASES / "classic" / "made_81_81.json"


def _case_board(number: int) -> Board:
    record = json.loads(CASE.read_text())["record"]
    from referee.rules import Card

    return Board(number, record["dealer"], tuple(Card.parse(t) for t in record["deck"]))


def test_compact_lines_and_json_lines_mixed_with_comments():
    a, b = make_board(9, 0), make_board(9, 5)
    case_line = json.dumps(json.loads(CASE.read_text()))  # a hand-checked case on one line
    text = f"# a suite\n\n{deck_line(a)}\n  {deck_line(b)}  \n{case_line}\n".encode()
    suite = parse_deals(text, "s.txt", 4)
    # numbered 0, 1, 2 in file order; each with its own dealer (RULES.md §3.1: deck index 0 dealt first)
    assert suite.boards == (Board(0, a.dealer, a.deck), Board(1, b.dealer, b.deck), _case_board(2))
    assert suite.boards[1].dealer == 1 and suite.boards[2].dealer == 3
    assert suite.name == "s.txt" and suite.sha256 == hashlib.sha256(text).hexdigest()


def test_a_case_file_and_a_list_of_records_as_arena_log_json_gives():
    (one,) = load_deals(CASE, 4).boards
    assert one == _case_board(0)
    board = make_board(4, 2)
    records = [{"board": 2, "table": t, "record": {"ruleset": "classic", "dealer": board.dealer,
                                                    "deck": board.deck_text(), "actions": []}} for t in (1, 2)]
    suite = parse_deals(json.dumps(records, indent=1).encode(), "log.json", 4)
    # a list is read whole; table 2 is the same board with its suits renamed: skipped
    assert [b.deck for b in suite.boards] == [board.deck]


def test_records_lines_skip_table_2_the_same_board_with_its_suits_renamed():
    lines = []
    for k in range(2):
        board = make_board(6, k)
        for t in (1, 2):
            deck = board.deck_text() if t == 1 else list(reversed(board.deck_text()))
            lines.append(json.dumps({"match_id": "t/a~b", "board": k, "table": t, "ns": "a", "ew": "b",
                                     "permutation": [0, 1, 2, 3], "record": {
                                         "ruleset": "classic", "dealer": board.dealer, "deck": deck, "actions": []}}))
    suite = parse_deals("\n".join(lines).encode(), "games.jsonl", 4)
    assert [b.deck for b in suite.boards] == [make_board(6, 0).deck, make_board(6, 1).deck]


def test_two_player_boards():
    board = make_board(3, 1, seats=2)
    suite = parse_deals(f"{deck_line(board)}\n".encode(), "duel.txt", 2)
    assert suite.boards == (Board(0, 1, board.deck),)


GOOD = deck_line(make_board(1, 0))
CARDS = GOOD.split()[1:]


@pytest.mark.parametrize("text, seats, message", [
    ("{\"ruleset\": \"classic\"\n", 4, "bad.txt line 1: not JSON: Expecting ',' delimiter at column 22"),
    (f"{GOOD}\n3 {' '.join(CARDS[:31])}\n", 4,
     "bad.txt line 2: 31 cards after the dealer: a deck is the 32 cards, each once, in dealing order"),
    (f"# x\n3 {' '.join(CARDS[:31] + [CARDS[0]])}\n", 4,
     f"bad.txt line 2: {CARDS[0]} given twice (so {CARDS[31]} missing): a deck holds each of the 32 cards once"),
    (f"3 {' '.join(CARDS[:31] + ['1Z'])}\n", 4, "bad.txt line 1: card 32: not a card: '1Z'"),
    (f"N {' '.join(CARDS)}\n", 4, "bad.txt line 1: the line must start with the dealer's seat, 0..3, then the 32 "
                                  "cards; got 'N'"),
    (f"3 {' '.join(CARDS)}\n", 2, "bad.txt line 1: the line must start with the dealer's seat, 0..1"),
    (json.dumps({"ruleset": "two-player", "dealer": 0, "deck": CARDS, "actions": []}) + "\n", 4,
     "bad.txt line 1: a two-player record (2 players) in a game of 4 players: give boards of a 4-player ruleset"),
    (f"{GOOD}\n" + json.dumps({"ruleset": "classic", "dealer": 0, "deck": CARDS, "actions": []}) + "\n", 2,
     "bad.txt line 2: a classic record (4 players) in a game of 2 players: give boards of a 2-player ruleset"),
    ("\n" + json.dumps({"ruleset": "classic", "dealer": 0, "deck": CARDS[:30], "actions": []}) + "\n", 4,
     "bad.txt line 2: deck must be a list of the 32 cards, top (index 0) first"),
    ("# only a comment\n\n", 4, "bad.txt holds no board"),
])
def test_a_bad_file_is_refused_naming_the_line_and_what_is_wrong(text, seats, message):
    with pytest.raises(DealFileError) as e:
        parse_deals(text.encode(), "bad.txt", seats)
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)


def test_a_two_player_record_in_a_four_player_list_names_the_record():
    records = [{"ruleset": "classic", "dealer": 0, "deck": CARDS, "actions": []},
               {"ruleset": "two-player", "dealer": 0, "deck": CARDS, "actions": []}]
    with pytest.raises(DealFileError, match=r"^s.json line 1, record 1: a two-player record \(2 players\) in a game of 4"):
        parse_deals(json.dumps(records).encode(), "s.json", 4)


def test_not_text_and_unreadable(tmp_path):
    with pytest.raises(DealFileError, match="^b.bin: not a text file"):
        parse_deals(b"\xff\xfe\x00", "b.bin", 4)
    with pytest.raises(DealFileError, match="cannot read the file"):
        load_deals(tmp_path / "nothing.txt", 4)


def test_more_boards_than_the_file_holds_are_refused():
    suite = parse_deals(f"{GOOD}\n{GOOD}\n".encode(), "two.txt", 4)
    assert len(suite.first(1)) == 1 and suite.first(2) == suite.boards
    with pytest.raises(DealFileError, match="^two.txt holds 2 boards, fewer than the 3 asked for: ask for 2 or fewer"):
        suite.first(3)
