"""Deal suites: a file of chosen boards played instead of dealt ones (``--deals FILE``,
issue 20 item 12), like a chess opening book.

A board is a dealer and a 32-card deck in dealing order, index 0 dealt first (RULES.md §3.1,
§7 for two players), the same shape as :class:`referee.rules.Board`.  The file's boards are
numbered 0, 1, … in the order they stand in it; every pair of entrants plays each of them as
a duplicate, at both tables with the seats swapped and table 2's suits renamed (RULES.md §8),
exactly as dealt boards.

Two formats, which may be mixed line by line:

* **deal records** as ``arena replay`` reads them (:func:`referee.rules.parse_record`): a
  file that is one JSON value (a record, a hand-checked case ``{"record": …, "expected": …}``
  as in ``tests/data/cases``, or a list of them: ``arena log --json``'s output), or one JSON
  value a line (``arena tournament run --records`` output).  Of the records that say their
  table (``{…, "table": T, "record": …}``, as ``--records`` and ``arena log --json`` write
  them) only table 1's are boards: table 2's is the same board with its suits renamed.  Only the record's dealer and deck are used: its actions are checked for
  syntax but not replayed, and its ruleset must have as many players as the tournament's
  (another four-player ruleset's board is played under the tournament's own rules);
* **compact lines**: the dealer's seat number and the 32 cards, whitespace-separated, in
  dealing order, cards as everywhere (rank then suit, ``7S 10H JD AC``; ``T`` read as 10)::

      # dealer, then the deck from the top
      3 JS 9S AS 10S KS QS 8S 7S JH 9H AH 10H KH QH 8H 7H JD 9D AD 10D KD QD 8D 7D JC 9C AC 10C KC QC 8C 7C

Blank lines and lines starting with ``#`` are skipped.  Anything else is refused at start,
with the line (or the record's index) and what is wrong: :class:`DealFileError`.

A tournament keeps its suite's boards (the ``boards`` table) with the file's name and the
SHA-256 of its bytes (``deal_suites``): a resume plays the stored boards, with or without the
file, and refuses another file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from referee.rules import Board, Card, RecordError, parse_record
from referee.rules.cards import CARD_TEXT, CARDS

__all__ = ["DealFileError", "DealSuite", "deck_line", "load_deals", "parse_deals"]


class DealFileError(ValueError):
    """A deal file that cannot be played: the message names the file, the line (or record) and
    what is wrong, in one line."""


@dataclass(frozen=True)
class DealSuite:
    """The boards of a deal file.

    Attributes:
        name: the file's name (no folder), as stored with the tournament.
        sha256: lowercase hex SHA-256 of the file's bytes.
        boards: the boards, numbered 0 … n−1 in file order, each with its dealer and deck.
    """

    name: str
    sha256: str
    boards: tuple[Board, ...]

    def first(self, n: int) -> tuple[Board, ...]:
        """The first ``n`` boards (what a tournament of ``n`` boards a pair plays).

        Raises:
            DealFileError: the file holds fewer than ``n`` boards.
        """
        if n > len(self.boards):
            raise DealFileError(f"{self.name} holds {_boards(len(self.boards))}, fewer than the {n} asked for: "
                                f"ask for {len(self.boards)} or fewer, or add boards to the file")
        return self.boards[:n]


def load_deals(path: str | Path, seats: int) -> DealSuite:
    """Read the deal file ``path`` for a ruleset of ``seats`` players (4, or 2 for ``two-player``).

    Raises:
        DealFileError: the file cannot be read, is not text, holds no board, or a line or
            record is malformed (the message says which and what is wrong).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise DealFileError(f"--deals {path}: cannot read the file: {e.strerror}") from None
    return parse_deals(data, path.name, seats)


def parse_deals(data: bytes, name: str, seats: int) -> DealSuite:
    """The boards of a deal file's bytes ``data`` (``name``: the file's name, for messages).

    Raises:
        DealFileError: as :func:`load_deals`.
    """
    if seats not in (2, 4):
        raise ValueError(f"seats must be 2 or 4, got {seats}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DealFileError(f"{name}: not a text file (byte {e.start} is not UTF-8): give deal records or "
                            "compact lines (README: a deal suite)") from None
    boards: list[Board] = []
    whole = _whole_json(text)
    if whole is not None:  # one JSON value over several lines (a case file, a list)
        items = whole if isinstance(whole, list) else [whole]
        for i, item in enumerate(items):
            where = f"{name}, record {i}" if isinstance(whole, list) else name
            board = _from_record(item, where, seats, len(boards))
            if board is not None:
                boards.append(board)
    else:
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{name} line {number}"
            if line.startswith(("{", "[")):
                try:
                    item = json.loads(line)
                except json.JSONDecodeError as e:
                    raise DealFileError(f"{where}: not JSON: {e.msg} at column {e.colno}") from None
                except RecursionError:
                    raise DealFileError(f"{where}: JSON nested too deeply to be a deal record") from None
                for i, one in enumerate(item if isinstance(item, list) else [item]):
                    board = _from_record(one, f"{where}, record {i}" if isinstance(item, list) else where,
                                         seats, len(boards))
                    if board is not None:
                        boards.append(board)
                continue
            else:
                board = _from_compact(line, where, seats, len(boards))
            if board is not None:
                boards.append(board)
    if not boards:
        raise DealFileError(f"{name} holds no board: give one deal record or compact line "
                            "(dealer and 32 cards) per board")
    return DealSuite(name=name, sha256=hashlib.sha256(data).hexdigest(), boards=tuple(boards))


def _whole_json(text: str):
    """The file as one JSON value when it is one spread over lines (a case file, an indented
    list); None when it is to be read line by line (JSON lines, compact lines, or a first line
    that is JSON by itself)."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        json.loads(stripped.splitlines()[0])
        return None  # its first line is a whole value: JSON lines
    except (json.JSONDecodeError, RecursionError):
        pass
    try:
        return json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None


def _from_record(item, where: str, seats: int, number: int) -> Board | None:
    """Board ``number`` from a deal record (any shape :func:`referee.rules.parse_record`
    reads), or None for a table-2 line of ``--records`` output."""
    if isinstance(item, dict) and item.get("table") == 2 and isinstance(item.get("record"), dict):
        return None
    try:
        record = parse_record(item)
    except RecordError as e:
        raise DealFileError(f"{where}: {e}") from None
    if record.ruleset.seats != seats:
        raise DealFileError(f"{where}: a {record.ruleset.name} record ({record.ruleset.seats} players) in a game of "
                            f"{seats} players: give boards of a {seats}-player ruleset")
    return Board(number=number, dealer=record.dealer, deck=tuple(record.deck))


def _from_compact(line: str, where: str, seats: int, number: int) -> Board:
    """Board ``number`` from a compact line: the dealer's seat, then the 32 cards."""
    words = line.split()
    dealer, cards = words[0], words[1:]
    if not dealer.isdigit() or not 0 <= int(dealer) < seats:
        raise DealFileError(f"{where}: the line must start with the dealer's seat, 0..{seats - 1}, then the 32 "
                            f"cards; got {dealer[:20]!r}")
    if len(cards) != 32:
        raise DealFileError(f"{where}: {len(cards)} card{'' if len(cards) == 1 else 's'} after the dealer: a deck is the 32 cards, each once, "
                            "in dealing order")
    deck = []
    for i, text in enumerate(cards):
        try:
            deck.append(Card.parse(text))
        except ValueError as e:
            raise DealFileError(f"{where}: card {i + 1}: {e}") from None
    repeated = sorted({CARD_TEXT[c] for c in deck if deck.count(c) > 1})
    if repeated:
        missing = sorted(CARD_TEXT[c] for c in set(CARDS) - set(deck))
        raise DealFileError(f"{where}: {' '.join(repeated)} given twice (so {' '.join(missing)} missing): a deck "
                            "holds each of the 32 cards once")
    return Board(number=number, dealer=int(dealer), deck=tuple(deck))


def _boards(n: int) -> str:
    return f"{n} board{'' if n == 1 else 's'}"


def deck_line(board: Board) -> str:
    """``board`` as a compact line (dealer, then the deck): what :func:`parse_deals` reads back."""
    return " ".join([str(board.dealer), *(CARD_TEXT[c] for c in board.deck)])
