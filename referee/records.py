"""Match records: what the referee produces and the arena stores (issue: referee).

A match record alone is enough to replay and re-score a match with the rules
engine: every table's deal record holds the (relabelled) deck, the dealer and
every action; the suit permutation maps table-2 suits back to the board's.
Times are in milliseconds.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from referee.rules import DealOutcome, DealRecord


class FaultKind:
    """The kinds of bot fault (strings, stored as such)."""

    TIMEOUT = "timeout"  # no answer within the deadline
    CRASH = "crash"  # the bot process exited
    CONNECTION = "connection"  # the call failed otherwise (connection lost, refused, gRPC error)
    BOT_ERROR = "bot-error"  # the bot answered the call with an error status (INTERNAL, UNKNOWN)
    MALFORMED = "malformed"  # an empty or unreadable answer
    WRONG_KIND = "wrong-kind"  # an answer of another kind than the decision asked
    ILLEGAL = "illegal"  # a well-formed answer that is not among the legal actions
    START = "start"  # the bot did not start or answer bot-info in time


@dataclass(frozen=True)
class Fault:
    """One fault: its ``kind`` (:class:`FaultKind`), where (board, table 1|2, seat),
    which entrant, and a human-readable ``detail`` (bot-supplied text passed through
    :func:`printable` first)."""

    kind: str
    board: int
    table: int
    seat: int
    entrant: str
    detail: str


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str, limit: int = 2000) -> str:
    """``text`` as it may reach a terminal, a log or the database: control characters (escape
    sequences included; newline and tab kept) shown as ``\\xNN``, format characters (Unicode
    Cf: bidi overrides such as U+202E, zero-width characters) as ``\\uNNNN``, at most ``limit``
    characters.  For any text a bot supplies (its error details, its output, its manifest's author)."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if not text.isascii():
        text = "".join(ascii(c)[1:-1] if unicodedata.category(c) == "Cf" else c for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Decision:
    """One action taken at a table: ``seat``, the action (record JSON, no seat),
    ``ms`` the bot took (wall time of the call; 0 for actions the referee took
    itself) and ``fault`` kind if the referee had to play the fallback."""

    seat: int
    action: dict
    ms: float
    fault: str | None = None


@dataclass
class TableResult:
    """One board at one table.

    ``table`` is 1 or 2; ``ns`` / ``ew`` are the entrants holding team 0 / team 1
    (two players: seat 0 / seat 1); ``permutation[s]`` is the suit this table
    plays for the board's suit ``s`` (identity at table 1, RULES.md §8).
    """

    board: int
    table: int
    ns: str
    ew: str
    permutation: tuple[int, int, int, int]
    record: DealRecord
    outcome: DealOutcome
    decisions: list[Decision]
    faults: list[Fault] = field(default_factory=list)
    logs: list[tuple[int, str]] = field(default_factory=list)
    """``(seat, path)`` of each bot process that held a seat during this board, where its
    output is kept (:attr:`referee.match.MatchConfig.log_dir`; a restart adds one): empty
    when no output is kept.  Absolute paths, written by the referee once the process stops."""


@dataclass
class BoardPairResult:
    """A board played at both tables by entrants ``a`` and ``b`` (RULES.md §8).

    ``points_a`` / ``points_b``: each entrant's points summed over both tables;
    ``margin`` = points_a − points_b (A's duplicate margin); ``forfeit_a`` /
    ``forfeit_b``: the entrant faulted on this board (or had already forfeited
    the match) and loses the board for rating purposes whatever the points.
    """

    board: int
    a: str
    b: str
    tables: tuple[TableResult, TableResult]
    forfeit_a: bool = False
    forfeit_b: bool = False

    @property
    def points_a(self) -> int:
        return sum(t.outcome.score[0 if t.ns == self.a else 1] for t in self.tables)

    @property
    def points_b(self) -> int:
        return sum(t.outcome.score[0 if t.ns == self.b else 1] for t in self.tables)

    @property
    def margin(self) -> int:
        return self.points_a - self.points_b

    @property
    def outcome_a(self) -> str:
        """A's result on the board pair (RULES.md §8): ``"win"``, ``"draw"`` or ``"loss"``.
        A forfeit loses whatever the margin (both forfeited: a draw); otherwise the
        sign of the margin decides. The same rule as ``arena.stats.tally.board_pair_outcome``."""
        if self.forfeit_a != self.forfeit_b:
            return "loss" if self.forfeit_a else "win"
        if self.forfeit_a or self.margin == 0:
            return "draw"
        return "win" if self.margin > 0 else "loss"

    @property
    def faults(self) -> list[Fault]:
        return [f for t in self.tables for f in t.faults]
