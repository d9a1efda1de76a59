"""Storage: the arena's DuckDB database (the only module that imports duckdb).

The schema is one SQL file, ``arena/schema.sql`` (tables, columns, units and
conventions are documented there). A :class:`Store` wraps one connection:

- **Bots and tournaments**: :meth:`Store.add_bot`, :meth:`Store.create_tournament`,
  :meth:`Store.add_entrants`, :meth:`Store.add_boards`, ...
- **Secret seeds**: a tournament's seed (an integer of up to 256 bits, stored as
  decimal text) is secret unless it was given by hand; :class:`Tournament` shows it
  (:attr:`Tournament.public_seed`) and :meth:`Store.export` writes it, and the
  ``boards`` it deals, only once the tournament is complete. Its commitment
  (``arena.play.schedule.seed_commitment``) is public from the start.
- **Schema versions**: an older database is upgraded when it is opened for
  writing: version 1 (``BIGINT`` seeds) to 2 (:func:`_upgrade_1_to_2`), 2 to 3
  (``board_pairs.outcome_a``, :func:`_upgrade_2_to_3`). The views of
  ``arena/views.sql`` are made after any upgrade.
- **Results**: :meth:`Store.write_board_pair` writes one
  :class:`~referee.records.BoardPairResult` — its ``board_pairs`` row, both
  ``deals`` rows, every ``actions`` row and every ``faults`` row (and the
  ``matches`` row the first time) — **in one transaction, with bulk inserts**
  from Arrow tables. An exception anywhere in the write rolls it back: an
  interrupted run never leaves half a board pair, and a rerun resumes from
  :meth:`Store.done_board_pairs`. :meth:`Store.write_board_pairs` writes many
  board pairs in one transaction (all or none), which is several times faster.
- **Idempotency**: writing a board pair that is already stored is a **no-op**
  (the stored rows are kept, whatever the new result says) and is reported
  by the return value, so a result delivered twice after a crash never stops
  a run.
- **Reading**: :meth:`Store.board_pair_results` (numpy arrays for ratings),
  :meth:`Store.matches` (summaries), :meth:`Store.deal_records` (the full
  table results, for ``arena log``), :meth:`Store.export` (Parquet or JSON
  lines, one file per table, via DuckDB ``COPY``).

Every error a caller can cause, and every database error, is raised as
:class:`StoreError` (a ``ValueError``) with a message that says what to do.

DuckDB allows one writing process per database file (FIELD-NOTES.md,
"Storage"), and while a process holds the file open for writing no other
process can open it at all, not even read-only. So the arena never holds it
for long: a tournament run calls :meth:`Store.release` after each batch (the
next use reconnects), and every open waits for a moment the file is free
(:data:`LOCK_WAIT_S`), so reports read while a tournament writes. Between batches
the latest rows wait in DuckDB's write-ahead log (``<database>.wal``, read by every
open) and are checkpointed into the file every :data:`WAL_CHECKPOINT` bytes and on
:meth:`Store.close`, so that the writer's memory does not grow with the database
(:func:`_writer_settings`). Workers hand their results to a single writer;
:class:`RunLock` (a lock file beside the database) makes sure a tournament has
one writer, and tells readers whether a ``running`` tournament is really
running. A ``Store`` is not thread-safe; use it from one thread.

Words are those of RULES.md §1; points are game points, ``ms`` milliseconds,
timestamps naive UTC.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from importlib import resources
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
from numpy.typing import NDArray
from tenacity import retry, retry_if_exception, stop_after_delay, wait_random_exponential

from referee.records import BoardPairResult, Decision, Fault, TableResult
from referee.rules import RULESETS, Board, Card, DealOutcome, RecordError, Ruleset, get_ruleset, parse_record

from .play.schedule import seed_commitment

__all__ = [
    "SCHEMA_VERSION",
    "SlowDecision",
    "TABLES",
    "LOCK_WAIT_S",
    "Bot",
    "BoardPairRows",
    "BoardPairSummary",
    "RunLock",
    "MatchSummary",
    "Status",
    "TableSummary",
    "Store",
    "StoreError",
    "Tournament",
    "action_json",
    "action_value",
    "entrant_key",
    "match_id",
    "split_entrant",
]

#: The layout version of ``schema.sql``; older ones are upgraded on open for writing, newer ones refused.
SCHEMA_VERSION = 3

#: A tournament's play settings (table ``tournament_settings``), in column order.
PLAY_SETTINGS = ("decision_ms", "max_faults", "cpu_s", "memory_mib")

#: Every table of the schema, in dependency order (the files :meth:`Store.export` writes).
TABLES: tuple[str, ...] = (
    "bots", "tournaments", "tournament_entrants", "boards", "matches", "board_pairs", "deals", "actions", "faults",
    "sprt_tests",
    "contree_calls",
    "tournament_settings",
)

#: How long an open waits for another process to let go of the database file, seconds:
#: (readers, writers). A tournament run holds it for one batch write at a time
#: (tens of ms, every ``arena.play.tournament.FLUSH_S``); a reader for one command.
LOCK_WAIT_S = (15.0, 120.0)

#: A writer checkpoints the database (moves its write-ahead log into the file) after a write
#: that leaves the log this big or bigger, bytes (DuckDB checkpoints at each close); see
#: :func:`_writer_settings`.
WAL_CHECKPOINT = 2 * 2**20

#: :meth:`Store.add_boards` stores this many boards at a time.
BOARDS_AT_ONCE = 500

#: Seeds are integers with fewer than 257 bits (a secret seed has 256).
_MAX_SEED = 2**256 - 1


class StoreError(ValueError):
    """A storage request that cannot be done: bad database file, unknown or
    conflicting tournament, malformed result, or a database error (the message
    says which, and what to do)."""


class _AlreadyStored(Exception):
    """Internal: a board pair of the write is already stored (rolls the transaction back)."""


class Status(str, Enum):
    """A tournament's status."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    #: shown, never stored: complete once, with entrants added since (their pairs unplayed)
    INCOMPLETE = "incomplete"
    #: shown, never stored: the board pairs of an `arena sprt` test that reached its decision
    DECIDED = "decided"


class RunLock:
    """The one writer of a database's results: an exclusive ``flock`` on the
    file ``<database>.run-lock``, held by ``arena tournament run`` for its whole
    run, with the tournament's name and the process id written in it.

    The kernel drops the lock when its process ends, however it ends, so a
    ``running`` status whose lock nobody holds belongs to an arena that was
    killed: readers show it as ``interrupted`` (:meth:`Store.get_tournament`).
    """

    def __init__(self, db: str | Path):
        """``db``: the database file the lock guards (the lock file is beside it)."""
        self.path = Path(str(Path(db).expanduser()) + ".run-lock")
        self._fd: int | None = None

    def acquire(self, tournament: str) -> None:
        """Take the lock for a run of ``tournament`` (waits up to 2 s for a reader's
        quick look at it to end).

        Raises:
            StoreError: another arena is running a tournament in this database
                (its pid and tournament in the message), or the lock file cannot
                be made (with the reason).
        """
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise StoreError(f"cannot make the lock file {self.path}: {e.strerror or e}: pass another --db path") from None
        take = retry(retry=retry_if_exception(lambda e: isinstance(e, BlockingIOError)), stop=stop_after_delay(2),
                     wait=wait_random_exponential(multiplier=0.01, max=0.2), reraise=True)(fcntl.flock)
        try:
            take(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            who = self.holder() or {}
            raise StoreError(
                f"another arena (pid {who.get('pid', '?')}) is running tournament {who.get('tournament', '?')!r} "
                f"in {str(self.path)[:-len('.run-lock')]}: one arena plays a database's tournaments at a time; wait "
                "for it to finish (reports work meanwhile) or pass another --db path"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"tournament": tournament, "pid": os.getpid(), "started_at": str(_now())}).encode())
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def holder(self) -> dict | None:
        """What the holding arena wrote (``tournament``, ``pid``, ``started_at``), or
        ``None`` when no arena is running a tournament in this database."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                try:
                    return json.loads(os.pread(fd, 4096, 0) or b"{}")
                except ValueError:
                    return {}
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)


def _shown_status(stored: str, pairs: int, total: int, running: bool) -> str:
    """The status a tournament is shown with: ``complete`` when every board pair is
    stored; ``running`` while an arena holds its :class:`RunLock`; else
    ``incomplete`` (it was complete, then entrants were added) or
    ``interrupted`` (stopped, or its arena was killed while ``running``)."""
    if total > 0 and pairs >= total:
        return Status.COMPLETE.value
    if running:
        return Status.RUNNING.value
    if stored == Status.COMPLETE.value:
        return Status.INCOMPLETE.value
    return Status.INTERRUPTED.value if total > 0 or stored == Status.RUNNING.value else stored


# --------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------


def entrant_key(name: str, version: str) -> str:
    """The entrant key of a bot version: ``"<name>@<version>"``."""
    return f"{name}@{version}"


def split_entrant(key: str) -> tuple[str, str]:
    """``(name, version)`` of an entrant key, split at its last ``@``.

    Raises:
        StoreError: no ``@``, or an empty name or version.
    """
    name, at, version = key.rpartition("@")
    if not at or not name or not version:
        raise StoreError(f"entrant {key!r} is not of the form <bot name>@<bot version>")
    return name, version


def match_id(tournament: str, a: str, b: str) -> str:
    """The id of the match between entrants ``a`` and ``b``: ``"<tournament>/<a>~<b>"``
    (A is the earlier entrant in the tournament's order)."""
    return f"{tournament}/{a}~{b}"


# --------------------------------------------------------------------------
# Actions as (kind, value) text
# --------------------------------------------------------------------------


def action_value(action: Mapping) -> tuple[str, str]:
    """``(kind, value)`` of a record action (JSON form, without ``seat``), as stored in ``actions``.

    ====================================  ==========  ==============================
    action                                kind        value
    ====================================  ==========  ==============================
    ``{"bid": "take", "trump": "H"}``     bid         ``"take H"`` (``"pass"``, ``"take"``, ...)
    ``{"schmeiss": "refuse"}``            schmeiss    ``"refuse"``
    ``{"trump": "H"}``                    trump       ``"H"``
    ``{"declare": [["7H","8H","9H"]]}``   declare     ``'[["7H","8H","9H"]]'`` (JSON; ``"[]"`` = none)
    ``{"exchange": true}``                exchange    ``"true"`` / ``"false"``
    ``{"card": "KS", "belote": true}``    card        ``"KS belote"`` (``"JH"`` without belote)
    ``{"call": "contre"}``                call        ``"contre"`` (table ``contree_calls``, §6.4)
    ====================================  ==========  ==============================

    Raises:
        StoreError: an object that is no action shape.
    """
    if "card" in action:
        return "card", str(action["card"]) + (" belote" if action.get("belote") else "")
    if "bid" in action:
        trump = action.get("trump")
        return "bid", str(action["bid"]) + (f" {trump}" if trump is not None else "")
    if "schmeiss" in action:
        return "schmeiss", str(action["schmeiss"])
    if "declare" in action:
        return "declare", json.dumps(action["declare"], separators=(",", ":"))
    if "exchange" in action:
        return "exchange", "true" if action["exchange"] else "false"
    if "call" in action:
        return "call", str(action["call"])
    if "trump" in action:
        return "trump", str(action["trump"])
    raise StoreError(
        f"not an action: {dict(action)!r} (expected a key card, bid, schmeiss, declare, exchange, call or trump)"
    )


def action_json(kind: str, value: str) -> dict:
    """The record action (JSON form) of a stored ``(kind, value)``; inverse of :func:`action_value`.

    Raises:
        StoreError: an unknown kind.
    """
    if kind == "card":
        card, _, belote = value.partition(" ")
        return {"card": card, "belote": True} if belote else {"card": card}
    if kind == "bid":
        bid, _, trump = value.partition(" ")
        return {"bid": bid, "trump": trump} if trump else {"bid": bid}
    if kind == "schmeiss":
        return {"schmeiss": value}
    if kind == "declare":
        return {"declare": json.loads(value)}
    if kind == "exchange":
        return {"exchange": value == "true"}
    if kind == "trump":
        return {"trump": value}
    if kind == "call":
        return {"call": value}
    raise StoreError(f"unknown action kind {kind!r}")


# --------------------------------------------------------------------------
# Values returned
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Bot:
    """A submitted bot version (table ``bots``); ``submitted_at`` is naive UTC."""

    name: str
    version: str
    author: str | None
    manifest: str
    content_hash: str
    path: str
    submitted_at: datetime

    @property
    def key(self) -> str:
        """The entrant key ``name@version``."""
        return entrant_key(self.name, self.version)


@dataclass(frozen=True)
class Tournament:
    """A tournament (table ``tournaments``) with its ``entrants`` (entrant keys, in
    order) and the number of ``board_pairs`` stored so far.

    ``seed`` is the tournament seed itself, secret when ``seed_secret`` until the
    tournament is complete: show :attr:`public_seed` (``None`` while hidden) and
    ``commitment`` (hex SHA-256 of the seed's decimal digits), never ``seed``; it is
    left out of the repr.
    """

    name: str
    ruleset: str
    options: dict
    seed: int = field(repr=False)
    boards_per_pair: int
    created_at: datetime
    status: str
    entrants: tuple[str, ...]
    board_pairs: int = 0
    seed_secret: bool = False
    commitment: str = ""
    #: the status as stored (``status`` is the one shown: see :func:`_shown_status`)
    stored_status: str = ""

    @property
    def seed_revealed(self) -> bool:
        """Whether the seed may be shown: it was never secret, or the tournament was
        complete (its stored status, set by the run that played its last board pair)."""
        return not self.seed_secret or (self.stored_status or self.status) == Status.COMPLETE.value

    @property
    def public_seed(self) -> int | None:
        """The seed if it may be shown (:attr:`seed_revealed`), else ``None``."""
        return self.seed if self.seed_revealed else None

    @property
    def variant_options(self) -> dict[str, str]:
        """The RULES.md §6.4 options of the tournament's ruleset with their stored values,
        e.g. ``{"declarations": "on", "contree": "on"}`` (``{}`` for ``all-trumps``); see
        :func:`variant_options`."""
        return variant_options(self.ruleset, self.options)

    def resolved_ruleset(self) -> Ruleset:
        """The :class:`~referee.rules.Ruleset` the tournament is played with: its
        ruleset with the stored options (target, and the §6.4 options).

        A tournament stored before the §6.4 options existed has neither ``contree``
        nor ``variants`` in its options: it is read as contree off.

        Raises:
            StoreError: the stored options are not what this referee's ruleset of
                that name gives (the rules changed since the tournament began:
                finish it with the referee that began it, or start a new one).
        """
        try:
            values = {k: v == "on" for k, v in self.variant_options.items()}
            rules = get_ruleset(self.ruleset, target=self.options.get("target"), **values)
        except ValueError as e:
            raise StoreError(f"tournament {self.name!r}: {e}") from None
        expected = json.loads(_json(rules.options()))
        stored = {**{k: expected[k] for k in _OPTIONS_ADDED if k in expected}, **self.options}
        if expected != stored:
            raise StoreError(
                f"tournament {self.name!r} was begun under other {self.ruleset} options than this referee's: "
                "finish it with the referee that began it, or start a new tournament"
            )
        return rules


#: Keys of ``Ruleset.options()`` added after tournaments were first stored (RULES.md §6.4):
#: a stored tournament without them was played with their default values.
_OPTIONS_ADDED = ("contree", "variants")


def variant_options(ruleset: str, options: Mapping) -> dict[str, str]:
    """The RULES.md §6.4 options (``declarations``, ``contree``: ``"on"``/``"off"``) that
    ``ruleset`` has, read from a tournament's stored resolved ``options``
    (``Ruleset.options()``; a missing ``contree`` is off). ``{}`` for an unknown ruleset."""
    base = RULESETS.get(ruleset)
    if base is None:
        return {}
    values = {"declarations": options.get("declarations", True) is not None,
              "contree": bool(options.get("contree", False))}
    return {k: "on" if values[k] else "off" for k in base.variants}


@dataclass(frozen=True)
class MatchSummary:
    """One match summed over its stored board pairs (points in game points;
    ``total_margin`` = ``points_a`` − ``points_b``, A's duplicate margin summed;
    ``wins_a``/``draws``/``losses_a``: A's board-pair results as ratings count
    them, ``board_pairs.outcome_a``: a forfeit loses whatever the margin)."""

    match_id: str
    tournament: str
    entrant_a: str
    entrant_b: str
    ruleset: str
    boards: int
    points_a: int
    points_b: int
    total_margin: int
    forfeits_a: int
    forfeits_b: int
    faults: int
    wins_a: int = 0
    draws: int = 0
    losses_a: int = 0

    @property
    def mean_margin(self) -> float:
        """A's duplicate margin per board pair, game points."""
        return self.total_margin / self.boards if self.boards else 0.0


@dataclass(frozen=True)
class TableSummary:
    """One board at one table as a match page lists it (table ``deals``): entrants,
    contract, taker seat, trump, points scored per team (RULES.md §6.2), capot team
    and litige pot carried out (§6.3)."""

    table: int
    ns: str
    ew: str
    contract: str
    taker: int | None
    trump_mode: str | None
    trump: str | None
    score_ns: int
    score_ew: int
    capot: int | None
    pot: int


@dataclass(frozen=True)
class BoardPairSummary:
    """One stored board pair (table ``board_pairs``) with its two tables, in table order;
    ``margin`` is A's duplicate margin in points (RULES.md §8)."""

    board: int
    points_a: int
    points_b: int
    margin: int
    forfeit_a: bool
    forfeit_b: bool
    tables: tuple[TableSummary, ...]


@dataclass(frozen=True)
class SlowDecision:
    """One stored decision (table ``actions``) with the entrant that took it; ``ms`` is
    the wall time of the bot's call."""

    match_id: str
    board: int
    table: int
    idx: int
    seat: int
    entrant: str
    kind: str
    value: str
    ms: float
    fault: str | None


@dataclass(frozen=True, eq=False)
class BoardPairRows:
    """Board-pair results as columns, for ratings (``arena.stats.ratings.tally_arrays``).

    Attributes:
        entrants: the entrant keys that appear, sorted; ``a`` and ``b`` index it.
        a, b: int64 arrays of shape (m,): entrant A's and B's index.
        board: int64 array of shape (m,): the board number.
        margin: int64 array of shape (m,): A's duplicate margin, in points.
        forfeit_a, forfeit_b: bool arrays of shape (m,).

    Rows are in no particular order.
    """

    entrants: tuple[str, ...]
    a: NDArray[np.int64]
    b: NDArray[np.int64]
    board: NDArray[np.int64]
    margin: NDArray[np.int64]
    forfeit_a: NDArray[np.bool_]
    forfeit_b: NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.a)

    def rows(self) -> Iterator[tuple[str, str, int, int, bool, bool]]:
        """The rows ``(entrant_a, entrant_b, board, margin, forfeit_a, forfeit_b)`` (slow path)."""
        names = self.entrants
        for i in range(len(self.a)):
            yield (
                names[self.a[i]], names[self.b[i]], int(self.board[i]), int(self.margin[i]),
                bool(self.forfeit_a[i]), bool(self.forfeit_b[i]),
            )


# --------------------------------------------------------------------------
# Arrow staging schemas (column names = schema.sql)
# --------------------------------------------------------------------------

_I32, _STR, _BOOL = pa.int32(), pa.string(), pa.bool_()
_TS = pa.timestamp("us")

_BOARD_PAIRS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("points_a", _I32), ("points_b", _I32), ("margin", _I32),
    ("forfeit_a", _BOOL), ("forfeit_b", _BOOL), ("written_at", _TS), ("outcome_a", _STR),
])
_DEALS = pa.schema(
    [("match_id", _STR), ("board", _I32), ("table_no", _I32), ("ns_entrant", _STR), ("ew_entrant", _STR),
     ("permutation", pa.list_(_I32)), ("dealer", _I32), ("deck", pa.list_(_STR)), ("contract", _STR),
     ("taker", _I32), ("trump_mode", _STR), ("trump", _STR)]
    + [(f"{name}_{team}", _I32) for name in ("trick_points", "tricks_won", "declarations") for team in ("ns", "ew")]
    + [("declaration_team", _I32), ("belote_ns", _I32), ("belote_ew", _I32), ("capot", _I32),
       ("score_ns", _I32), ("score_ew", _I32), ("pot_in", _I32), ("pot_to", _I32), ("pot", _I32), ("record", _STR)]
)
_ACTIONS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("table_no", _I32), ("idx", _I32), ("seat", _I32),
    ("kind", _STR), ("value", _STR), ("ms", pa.float64()), ("fault", _STR),
])
_CALLS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("table_no", _I32), ("idx", _I32), ("seat", _I32),
    ("value", _STR), ("ms", pa.float64()), ("fault", _STR),
])
_FAULTS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("table_no", _I32), ("seat", _I32), ("entrant", _STR),
    ("kind", _STR), ("detail", _STR),
])


@dataclass(frozen=True)
class _Pair:
    """The entrants of a match (what :meth:`Store._match_rows` reads of a result)."""

    a: str
    b: str


class _Columns:
    """Column lists for one staged table, filled row by row in Python, inserted in one statement."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self.cols: dict[str, list] = {name: [] for name in schema.names}

    def table(self) -> pa.Table:
        return pa.table(self.cols, schema=self.schema)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _schema_sql(name: str = "schema.sql") -> str:
    return resources.files("arena").joinpath(name).read_text(encoding="utf-8")


def _entrant_parts(entrant: str | tuple[str, str]) -> tuple[str, str]:
    if isinstance(entrant, tuple):
        if len(entrant) != 2 or not all(isinstance(x, str) and x for x in entrant):
            raise StoreError(f"entrant {entrant!r} must be (bot name, bot version) or 'name@version'")
        return entrant
    if not isinstance(entrant, str):
        raise StoreError(f"entrant {entrant!r} must be (bot name, bot version) or 'name@version'")
    return split_entrant(entrant)


# --------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------


class Store:
    """The arena database: one DuckDB connection. Open with :meth:`Store.open`;
    use as a context manager or call :meth:`close`."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path | None, *, read_only: bool = False):
        """Wrap an open connection whose schema is applied; use :meth:`Store.open`."""
        self._con: duckdb.DuckDBPyConnection | None = con
        self.path = path
        self.read_only = read_only
        self._closed = False
        self._rulesets: dict[str, str] = {}  # tournament -> ruleset (tournaments never change ruleset)
        self._matches: dict[str, tuple[str, str, str]] = {}  # match_id -> (tournament, a, b), committed rows only

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | Path | None = None, *, read_only: bool = False) -> Store:
        """Open (creating if needed) the database at ``path`` and apply the schema.

        Another process may hold the file (a tournament writing a batch, another
        report): the open waits for it, at most :data:`LOCK_WAIT_S` seconds.

        Args:
            path: a database file; ``None`` or ``":memory:"`` for an in-memory
                database (tests). Missing parent directories are created.
            read_only: open an existing file without writing to it (every
                report); needs only read permission on the file.

        Raises:
            StoreError: the directory cannot be created; the path is a
                directory; the file is not a DuckDB database or is corrupt; it
                stays held by another process longer than :data:`LOCK_WAIT_S`;
                it was written with another schema version; any other failure
                to open (with DuckDB's reason).
        """
        if path is None or str(path) == ":memory:":
            if read_only:
                raise StoreError("an in-memory database cannot be opened read-only")
            return cls._connect(":memory:", None, read_only=False)
        p = Path(path).expanduser()
        if p.is_dir():
            raise StoreError(f"{p} is a directory: pass a database file path (--db), e.g. {p / 'arena.duckdb'}")
        if not read_only:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(
                    f"cannot create the directory {p.parent} for the database {p}: {e.strerror or e}: "
                    "pass another --db path"
                ) from None
        elif not p.exists():
            raise StoreError(f"there is no database at {p}: check the --db path")
        if p.is_file() and p.stat().st_size == 0:
            raise StoreError(f"{p} is an empty file, not a DuckDB database: delete it or pass another --db path")
        return cls._connect(str(p), p, read_only=read_only)

    @classmethod
    def _connect(cls, target: str, p: Path | None, *, read_only: bool) -> Store:
        con = _duckdb_connect(target, p, read_only=read_only)
        try:
            if not read_only:
                con.execute(_schema_sql())
            rows = con.execute("SELECT version FROM schema_version").fetchall()
            if not rows and not read_only:
                con.execute("INSERT INTO schema_version VALUES (?)", [SCHEMA_VERSION])
                rows = [(SCHEMA_VERSION,)]
            if rows and rows[0][0] in (1, 2):
                if read_only:
                    con.close()
                    raise StoreError(
                        f"{p} was written by an older arena (schema version {rows[0][0]}): open it once for "
                        f"writing (e.g. `arena tournament run NAME --db PATH`) to upgrade it to version {SCHEMA_VERSION}"
                    )
                if rows[0][0] == 1:
                    _upgrade_1_to_2(con)
                _upgrade_2_to_3(con)
                rows = [(SCHEMA_VERSION,)]
            if not read_only:
                con.execute(_schema_sql("views.sql"))
        except duckdb.CatalogException:
            con.close()
            raise StoreError(
                f"{p} is a DuckDB database but not an arena database (no schema_version table): "
                "open it once without read-only, or pass another --db path"
            ) from None
        except duckdb.Error as e:
            con.close()
            raise StoreError(_open_message(p, e)) from None
        if rows and rows[0][0] != SCHEMA_VERSION:
            con.close()
            raise StoreError(
                f"{p} was written with arena schema version {rows[0][0]}; this arena uses version "
                f"{SCHEMA_VERSION}: export it with the arena that wrote it, or pass another --db path"
            )
        return cls(con, p, read_only=read_only)

    def release(self) -> None:
        """Let go of the database file until the store is next used (then it
        reconnects, waiting for the file as :meth:`open` does), so that other
        processes can read it meanwhile. A no-op for an in-memory database."""
        if self.path is not None and self._con is not None:
            self._con.close()
            self._con = None

    def close(self) -> None:
        """Close the connection (idempotent); the store cannot be used again.

        A store that wrote a database file checkpoints it first (see
        :func:`_writer_settings`), so that the file holds everything and no log
        is left beside it; if the file is held by another process just then, the
        log stays (it is replayed by the next open, read-only or not)."""
        if not self._closed and self.path is not None and not self.read_only:
            self._checkpoint()
        if self._con is not None:
            self._con.close()
            self._con = None
        self._closed = True

    def _checkpoint(self) -> None:
        """Move the write-ahead log into the database file, if there is one (no wait for
        a file another process holds: the log is safe where it is)."""
        con = self._con
        try:
            if con is None:
                if not _wal_path(self.path).exists():
                    return
                con = self._con = duckdb.connect(str(self.path))
                _writer_settings(con)
            con.execute("CHECKPOINT")
        except duckdb.Error:
            pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store.open({str(self.path) if self.path else None!r})"

    # ------------------------------------------------------------- internals
    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, for tests and ad-hoc SQL; the arena uses the methods.

        Raises:
            StoreError: the store is closed, or (after :meth:`release`) the file
                stays held by another process longer than :data:`LOCK_WAIT_S`.
        """
        if self._closed:
            raise StoreError("the store is closed")
        if self._con is None:
            self._con = _duckdb_connect(str(self.path), self.path, read_only=self.read_only)
        return self._con

    def _query(self, sql: str, params: Sequence | None = None) -> list[tuple]:
        try:
            return self.con.execute(sql, params or []).fetchall()
        except duckdb.Error as e:
            raise StoreError(f"database error: {e}") from None

    def _transaction(self, work):
        """Run ``work()`` in one transaction: commit, or roll back on any exception
        (database errors become :class:`StoreError`; others propagate unchanged)."""
        con = self.con
        con.begin()
        try:
            out = work()
            con.commit()
        except duckdb.Error as e:
            _rollback(con)
            raise StoreError(f"database error, nothing written: {e}") from None
        except BaseException:
            _rollback(con)
            raise
        return out

    def _insert(self, table: str, data: pa.Table) -> None:
        """Bulk insert of a staged Arrow table whose columns are the table's, in order
        (``tests/test_store.py`` checks the staging schemas against ``schema.sql``)."""
        if data.num_rows:
            self.con.from_arrow(data).insert_into(table)

    # ------------------------------------------------------------------ bots
    def add_bot(
        self,
        name: str,
        version: str,
        author: str | None,
        manifest: str,
        content_hash: str,
        path: str | Path,
        submitted_at: datetime | None = None,
    ) -> Bot:
        """Register a bot version (arguments in the order of the ``bots`` columns):
        ``manifest`` is the bot.toml text, ``path`` its frozen copy, ``submitted_at``
        naive UTC (default now).

        Adding the same (name, version) with the same ``content_hash`` again
        returns the stored bot unchanged.

        Raises:
            StoreError: an empty name or version, a name or version containing
                ``@``, or (name, version) already stored with another content hash.
        """
        for what, value in (("name", name), ("version", version)):
            if not isinstance(value, str) or not value or "@" in value:
                raise StoreError(f"bot {what} must be a non-empty text without '@', got {value!r}")
        old = self.get_bot(name, version)
        if old is not None:
            if old.content_hash != content_hash:
                raise StoreError(
                    f"bot {name}@{version} is already stored with other content (hash {old.content_hash}): "
                    "give the new files a new version"
                )
            return old
        bot = Bot(name, version, author, manifest, content_hash, str(path), submitted_at or _now())
        self._query(
            "INSERT INTO bots (name, version, author, manifest, content_hash, path, submitted_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [bot.name, bot.version, bot.author, bot.manifest, bot.content_hash, bot.path, bot.submitted_at],
        )
        return bot

    def get_bot(self, name: str, version: str) -> Bot | None:
        """The bot version, or ``None`` if it is not stored."""
        rows = self._query(
            "SELECT name, version, author, manifest, content_hash, path, submitted_at FROM bots "
            "WHERE name = ? AND version = ?",
            [name, version],
        )
        return self._bot(rows[0]) if rows else None

    def _bot(self, row) -> Bot:
        """A ``bots`` row; a relative ``path`` is relative to the database's folder (the copy
        moves with the database: ``results/`` can be moved or copied whole)."""
        bot = Bot(*row)
        if self.path is not None and not Path(bot.path).is_absolute():
            bot = dataclasses.replace(bot, path=str(self.path.parent.resolve() / bot.path))
        return bot

    def list_bots(self) -> list[Bot]:
        """Every bot version, by name then version (text order)."""
        rows = self._query(
            "SELECT name, version, author, manifest, content_hash, path, submitted_at FROM bots ORDER BY name, version"
        )
        return [self._bot(r) for r in rows]

    # ------------------------------------------------------------ tournaments
    def create_tournament(
        self,
        name: str,
        ruleset_name: str,
        options: Mapping,
        seed: int,
        boards: int,
        entrants: Sequence[str | tuple[str, str]] = (),
        *,
        secret: bool = False,
        created_at: datetime | None = None,
    ) -> Tournament:
        """Create a tournament (status ``running``), or return it if it exists with the same settings.

        Args:
            name: the tournament's name (it prefixes its match ids).
            ruleset_name: ``classic``, ``strict``, ``all-trumps`` or ``two-player``.
            options: the resolved ruleset options (``Ruleset.options()``), JSON-able.
            seed: the tournament seed, an integer with ``|seed| < 2**256``
                (``arena.play.schedule.new_seed`` for a secret one).
            boards: boards per pair, ≥ 1.
            secret: the seed is secret (drawn at random): shown only once the tournament
                is complete. ``False`` for a seed given by hand. Its commitment
                (``arena.play.schedule.seed_commitment``) is stored either way.
            entrants: entrant keys ``"name@version"`` or ``(name, version)``, in
                order (the order decides who is A in each pair); more can be
                added later with :meth:`add_entrants`.

        An existing tournament is returned (status unchanged) when ruleset,
        options, seed and boards are the same and its entrants are the given
        ones or a prefix of them (or none are given); entrants given after the
        stored ones are appended (extending a tournament).

        Raises:
            StoreError: a bad seed, boards or entrant; the name exists with
                another ruleset, options, seed or number of boards (a secret seed is
                not named in the message), or with entrants that are not a prefix of
                ``entrants``.
        """
        if not isinstance(name, str) or not name or "/" in name:
            raise StoreError(f"tournament name must be a non-empty text without '/', got {name!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or not -_MAX_SEED <= seed <= _MAX_SEED:
            raise StoreError(f"seed must be an integer of at most 256 bits, got {seed!r}")
        if not isinstance(boards, int) or isinstance(boards, bool) or boards < 1:
            raise StoreError(f"boards per pair must be an integer >= 1, got {boards!r}")
        try:
            options_json = _json(dict(options))
        except (TypeError, ValueError) as e:
            raise StoreError(f"ruleset options must be JSON-able: {e}") from None
        keys = [entrant_key(*_entrant_parts(e)) for e in entrants]

        def work() -> None:
            old = self.con.execute(
                "SELECT ruleset, options, seed, seed_secret, boards_per_pair FROM tournaments WHERE name = ?", [name]
            ).fetchall()
            if old:
                ruleset0, options0, seed0, secret0, boards0 = old[0]
                diffs = [
                    f"{what} {a!r} (asked {b!r})"
                    for what, a, b in (("ruleset", ruleset0, ruleset_name), ("boards per pair", boards0, boards))
                    if a != b
                ]
                if int(seed0) != seed:
                    diffs.insert(1, "another (secret) seed" if secret0 else f"seed {int(seed0)!r} (asked {seed!r})")
                if json.loads(options0) != json.loads(options_json):
                    diffs.append("other ruleset options")
                if diffs:
                    raise StoreError(
                        f"tournament {name!r} already exists with " + ", ".join(diffs)
                        + ": choose another tournament name"
                    )
            else:
                self.con.execute(
                    "INSERT INTO tournaments (name, ruleset, options, seed, seed_secret, commitment, boards_per_pair, "
                    "created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [name, ruleset_name, options_json, str(seed), bool(secret), seed_commitment(seed), boards,
                     created_at or _now(), Status.RUNNING.value],
                )
            if keys:
                self._add_entrants(name, keys, must_extend=True)

        self._transaction(work)
        t = self.get_tournament(name)
        assert t is not None
        return t

    def _add_entrants(self, tournament: str, keys: list[str], *, must_extend: bool) -> None:
        if len(set(keys)) != len(keys):
            raise StoreError(f"entrants of {tournament!r} must be different, got {keys}")
        have = self._entrants(tournament)
        if must_extend and keys[: len(have)] != list(have):
            raise StoreError(
                f"tournament {tournament!r} has the entrants {', '.join(have)}: list them first, "
                "in that order (new entrants go at the end), or choose another tournament name"
            )
        new = [k for k in keys if k not in have]
        if new and self.con.execute(
            "SELECT 1 FROM tournaments WHERE name = ? AND seed_secret AND status = ?", [tournament, Status.COMPLETE.value]
        ).fetchall():
            raise StoreError(
                f"tournament {tournament!r} is complete and its secret seed is revealed: a new entrant "
                f"({', '.join(new)}) could know every board. Enter it in a new tournament "
                "(arena tournament run NEW --bots DIR ...)"
            )
        if new:
            parts = [split_entrant(k) for k in new]
            self.con.execute(
                "INSERT INTO tournament_entrants (tournament, position, bot_name, bot_version) "
                "SELECT ?, unnest(?) , unnest(?), unnest(?)",
                [tournament, list(range(len(have), len(have) + len(new))),
                 [p[0] for p in parts], [p[1] for p in parts]],
            )

    def _entrants(self, tournament: str) -> tuple[str, ...]:
        rows = self._query(
            "SELECT bot_name || '@' || bot_version FROM tournament_entrants WHERE tournament = ? ORDER BY position",
            [tournament],
        )
        return tuple(r[0] for r in rows)

    def add_entrants(self, tournament: str, entrants: Sequence[str | tuple[str, str]]) -> tuple[str, ...]:
        """Append the entrants not yet in the tournament (in the given order); return all its entrants.

        Raises:
            StoreError: unknown tournament; a malformed or repeated entrant; a new entrant
                in a complete tournament whose secret seed is therefore revealed.
        """
        self._ruleset(tournament)
        keys = [entrant_key(*_entrant_parts(e)) for e in entrants]
        self._transaction(lambda: self._add_entrants(tournament, keys, must_extend=False))
        return self._entrants(tournament)

    def entrants(self, tournament: str) -> list[tuple[str, str]]:
        """The tournament's entrants as ``(bot name, bot version)``, in order (empty if unknown)."""
        return [split_entrant(k) for k in self._entrants(tournament)]

    def get_tournament(self, name: str) -> Tournament | None:
        """The tournament with its entrants and stored board-pair count, or ``None``
        if there is none of that name."""
        rows = self._query(
            """SELECT name, ruleset, options, seed, boards_per_pair, created_at, status,
                      (SELECT count(*) FROM board_pairs p JOIN matches m USING (match_id) WHERE m.tournament = ?),
                      seed_secret, commitment
               FROM tournaments WHERE name = ?""",
            [name, name],
        )
        if not rows:
            return None
        n, ruleset, options, seed, boards, created, status, pairs, secret, commitment = rows[0]
        entrants = self._entrants(name)
        total = boards * len(entrants) * (len(entrants) - 1) // 2
        shown = status
        if self.path is not None:  # an in-memory database has no other process to ask
            holder = RunLock(self.path).holder()
            shown = _shown_status(status, int(pairs), total, bool(holder) and holder.get("tournament") == name)
        if shown == Status.INTERRUPTED.value and self._sprt_decided(name):
            shown = Status.DECIDED.value
        return Tournament(n, ruleset, json.loads(options), int(seed), boards, created, shown,
                          entrants, int(pairs), bool(secret), commitment, status)

    def _sprt_decided(self, tournament: str) -> bool:
        """Whether ``tournament`` holds an ``arena sprt`` test that reached its decision
        (it stops short of its ``max_boards`` on purpose). False where the database
        predates the ``sprt_tests`` table."""
        try:
            return bool(self.con.execute("SELECT 1 FROM sprt_tests WHERE tournament = ? AND status <> 'running'",
                                         [tournament]).fetchall())
        except duckdb.CatalogException:
            return False

    def list_tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        names = self._query("SELECT name FROM tournaments ORDER BY created_at, name")
        return [t for (n,) in names if (t := self.get_tournament(n)) is not None]

    def set_tournament_status(self, name: str, status: Status | str) -> None:
        """Set the status: ``running``, ``complete`` or ``interrupted``.

        Raises:
            StoreError: unknown tournament or status.
        """
        try:
            status = Status(status)
            if status in (Status.INCOMPLETE, Status.DECIDED):
                raise ValueError(status)
        except ValueError:
            raise StoreError(
                f"unknown tournament status {status!r}: expected one of {', '.join(s.value for s in Status)}"
            ) from None
        self._ruleset(name)
        self._query("UPDATE tournaments SET status = ? WHERE name = ?", [status.value, name])

    def _ruleset(self, tournament: str) -> str:
        """The tournament's ruleset (cached).

        Raises:
            StoreError: unknown tournament.
        """
        ruleset = self._rulesets.get(tournament)
        if ruleset is None:
            rows = self._query("SELECT ruleset FROM tournaments WHERE name = ?", [tournament])
            if not rows:
                raise StoreError(f"there is no tournament {tournament!r}: create it first")
            ruleset = self._rulesets[tournament] = rows[0][0]
        return ruleset

    def add_match(self, tournament: str, match_id: str, entrant_a: str, entrant_b: str,
                  ruleset: str | None = None) -> None:
        """Create the ``matches`` row of a match before its first board pair (optional:
        :meth:`write_board_pairs` creates it too). Idempotent.

        Raises:
            StoreError: unknown tournament; ``ruleset`` given and not the
                tournament's; the match id stored with another tournament or entrants.
        """
        have = self._ruleset(tournament)
        if ruleset is not None and ruleset != have:
            raise StoreError(f"tournament {tournament!r} is played under {have}, not {ruleset}")
        if entrant_a == entrant_b:
            raise StoreError(f"match {match_id!r}: entrants A and B are both {entrant_a!r}")

        def work():
            new = self._match_rows(tournament, [(match_id, _Pair(entrant_a, entrant_b))])
            self._insert_matches(new, have)
            return new

        self._matches.update(self._transaction(work))

    # ------------------------------------------------------------------ boards
    def add_boards(self, tournament: str, boards: Iterable[Board]) -> int:
        """Store a tournament's boards (deck in the board's own suits, i.e. table 1's);
        return how many were new. A board already stored with the same dealer and
        deck is skipped. One transaction (all or nothing), taking the boards
        :data:`BOARDS_AT_ONCE` at a time, so that what it builds does not grow with
        the number of boards (issue 14 item 3; DuckDB itself holds the rows written
        until the connection closes: a tournament run releases the store right after).

        Raises:
            StoreError: unknown tournament; a deck that is not 32 cards; a board
                already stored with another dealer or deck.
        """
        self._ruleset(tournament)
        con = self.con

        def add(chunk: dict[int, tuple[int, list[str]]]) -> int:
            given = pa.table({
                "tournament": pa.array([tournament] * len(chunk), _STR),
                "board": pa.array(list(chunk), _I32),
                "dealer": pa.array([d for d, _ in chunk.values()], _I32),
                "deck": pa.array([deck for _, deck in chunk.values()], pa.list_(_STR)),
            })
            con.register("_given_boards", given)
            try:
                clash = con.execute(
                    "SELECT min(g.board) FROM _given_boards g JOIN boards b USING (tournament, board) "
                    "WHERE b.dealer <> g.dealer OR b.deck <> g.deck"
                ).fetchall()[0][0]
                if clash is not None:
                    raise StoreError(
                        f"board {clash} of {tournament!r} is already stored with another dealer or deck: "
                        "a tournament's boards never change"
                    )
                return con.execute(
                    "INSERT INTO boards SELECT * FROM _given_boards "
                    "WHERE board NOT IN (SELECT board FROM boards WHERE tournament = ?) ORDER BY board",
                    [tournament],
                ).fetchall()[0][0]
            finally:
                con.unregister("_given_boards")

        def work() -> int:
            new, chunk = 0, {}
            for b in boards:
                deck = [str(c) for c in b.deck]
                if len(deck) != 32:
                    raise StoreError(f"board {b.number}: a deck has 32 cards, got {len(deck)}")
                chunk[b.number] = (b.dealer, deck)
                if len(chunk) >= BOARDS_AT_ONCE:
                    new, chunk = new + add(chunk), {}
            return new + add(chunk) if chunk else new

        return self._transaction(work)

    def boards(self, tournament: str) -> list[Board]:
        """The tournament's stored boards, by number."""
        rows = self._query(
            "SELECT board, dealer, deck FROM boards WHERE tournament = ? ORDER BY board", [tournament]
        )
        return [Board(number=n, dealer=d, deck=tuple(Card.parse(t) for t in deck)) for n, d, deck in rows]

    # ----------------------------------------------------------------- results
    def write_board_pair(self, tournament: str, match_id: str, result: BoardPairResult) -> bool:
        """Write one board pair in one transaction; see :meth:`write_board_pairs`.

        Returns:
            True if written, False if that (match_id, board) was already stored (nothing written).
        """
        return self.write_board_pairs(tournament, [(match_id, result)]) == 1

    def write_board_pairs(self, tournament: str, results: Iterable[tuple[str, BoardPairResult]]) -> int:
        """Write board pairs — ``board_pairs``, both ``deals``, every ``actions`` and
        ``faults`` row, and each new ``matches`` row — in **one transaction** (all or
        nothing), with one bulk insert per table.

        Args:
            tournament: the tournament (it must exist).
            results: ``(match_id, result)`` pairs. The first write of a match id
                creates its ``matches`` row with entrants ``result.a`` / ``result.b``
                and the tournament's ruleset.

        Speed (bench/store_bench.py): a call costs a few statements of about
        a millisecond each whatever its size, so one board pair per call
        writes ~100 board pairs/s and batches of 100 ~2,000–2,800/s. The single
        writer should pass every result waiting in its queue in one call.

        Returns:
            How many board pairs were written. Board pairs already stored are
            skipped (a no-op: the stored rows stay as they are).

        Raises:
            StoreError: unknown tournament; a malformed result (tables not 1 and 2,
                boards or entrants that disagree, an unknown action shape); a
                match id already used by another tournament or other entrants;
                the same board pair twice in ``results``; any database error.
                Nothing is written then. Any other exception raised during the
                write also rolls it back and propagates.
        """
        ruleset = self._ruleset(tournament)
        items = list(results)
        keys = [(mid, r.board) for mid, r in items]
        if len(set(keys)) != len(keys):
            raise StoreError("the same board pair is given twice in one write")
        for mid, r in items:
            _check_result(mid, r)
        if not items:
            return 0
        try:
            written, new_matches = self._transaction(lambda: self._write(tournament, ruleset, items))
        except _AlreadyStored:
            # Rare (a rerun, a result delivered twice): drop the stored ones and write the rest.
            done = self._stored_keys(keys)
            items = [(mid, r) for mid, r in items if (mid, r.board) not in done]
            if not items:
                return 0
            written, new_matches = self._transaction(lambda: self._write(tournament, ruleset, items, retry=True))
        self._matches.update(new_matches)
        if self.path is not None and _wal_path(self.path).exists() and \
                _wal_path(self.path).stat().st_size >= WAL_CHECKPOINT:
            self._checkpoint()
        return written

    def _write(self, tournament: str, ruleset: str, items, *, retry: bool = False):
        """The body of :meth:`write_board_pairs`' transaction: matches, then one bulk
        insert per table. Relies on the board_pairs primary key to detect a board
        pair already stored (cheaper than looking each one up first)."""
        new_matches = self._match_rows(tournament, items)
        self._insert_matches(new_matches, ruleset)
        bp, deals, actions, faults, calls = _stage(items)
        try:
            self._insert("board_pairs", bp)
        except duckdb.ConstraintException:
            if retry:
                raise
            raise _AlreadyStored from None
        self._insert("deals", deals)
        self._insert("actions", actions)
        self._insert("faults", faults)
        if calls.num_rows:
            self._insert("contree_calls", calls)
        return len(items), new_matches

    def _insert_matches(self, new: dict[str, tuple[str, str, str]], ruleset: str) -> None:
        if new:
            self._insert("matches", pa.table({
                "match_id": pa.array(list(new), _STR),
                "tournament": pa.array([v[0] for v in new.values()], _STR),
                "entrant_a": pa.array([v[1] for v in new.values()], _STR),
                "entrant_b": pa.array([v[2] for v in new.values()], _STR),
                "ruleset": pa.array([ruleset] * len(new), _STR),
            }))

    def _match_rows(self, tournament: str, items) -> dict[str, tuple[str, str, str]]:
        """The matches rows to create; raise if a match id is stored with other values."""
        new: dict[str, tuple[str, str, str]] = {}
        for mid, r in items:
            want = (tournament, r.a, r.b)
            have = self._matches.get(mid) or new.get(mid)
            if have is None:
                rows = self.con.execute(
                    "SELECT tournament, entrant_a, entrant_b FROM matches WHERE match_id = ?", [mid]
                ).fetchall()
                if rows:
                    have = self._matches[mid] = tuple(rows[0])
                else:
                    new[mid] = have = want
            if have != want:
                raise StoreError(
                    f"match {mid!r} is stored for tournament {have[0]!r} between {have[1]} (A) and {have[2]} (B), "
                    f"not {want[0]!r} between {want[1]} and {want[2]}: use arena.store.match_id(tournament, a, b)"
                )
        return new

    def _stored_keys(self, keys: list[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of the (match_id, board) keys are stored (point look-ups on the primary key)."""
        con = self.con
        if len(keys) <= 16:
            found = set()
            for mid, board in keys:
                if con.execute(
                    "SELECT 1 FROM board_pairs WHERE match_id = ? AND board = ?", [mid, board]
                ).fetchall():
                    found.add((mid, board))
            return found
        mids = sorted({m for m, _ in keys})
        rows = con.execute(
            "SELECT match_id, board FROM board_pairs WHERE match_id IN (SELECT unnest(?))", [mids]
        ).fetchall()
        wanted = set(keys)
        return {k for k in rows if k in wanted}

    def done_board_pairs(self, tournament: str) -> set[tuple[str, int]]:
        """The ``(match_id, board)`` of every board pair stored for the tournament."""
        rows = self._query(
            "SELECT p.match_id, p.board FROM board_pairs p JOIN matches m USING (match_id) WHERE m.tournament = ?",
            [tournament],
        )
        return set(rows)

    def done_keys(self, tournament: str) -> set[tuple[str, str, int]]:
        """The ``(a, b, board)`` of every stored board pair: the ``done_keys`` of
        ``arena.play.schedule.missing`` (``BoardPair.key``)."""
        rows = self._query(
            "SELECT m.entrant_a, m.entrant_b, p.board FROM board_pairs p JOIN matches m USING (match_id) "
            "WHERE m.tournament = ?",
            [tournament],
        )
        return set(rows)

    def last_pot(self, match_id: str, table_no: int, before: int | None = None) -> int:
        """The litige pot (points) carried out of the highest-numbered board stored
        for this match at table ``table_no`` (RULES.md §6.3, §8), of the boards numbered below
        ``before`` if given; 0 if none is stored.  What a resumed match carries into its next
        board (``before``) at that table."""
        rows = self._query(
            "SELECT pot FROM deals WHERE match_id = ? AND table_no = ? AND (?::INTEGER IS NULL OR board < ?) "
            "ORDER BY board DESC LIMIT 1",
            [match_id, table_no, before, before],
        )
        return rows[0][0] if rows else 0

    def stored_counts(self, tournament: str) -> dict[str, int]:
        """``{match_id: board pairs stored}`` for every match of the tournament with at least one
        (one small row per match: what a run needs up front, whatever the number of boards)."""
        rows = self._query(
            "SELECT p.match_id, count(*) FROM board_pairs p JOIN matches m USING (match_id) "
            "WHERE m.tournament = ? GROUP BY p.match_id",
            [tournament],
        )
        return {mid: n for mid, n in rows}

    def stored_boards(self, match_id: str) -> set[int]:
        """The board numbers stored for one match (what a resumed match skips)."""
        return {b for (b,) in self._query("SELECT board FROM board_pairs WHERE match_id = ?", [match_id])}

    # ----------------------------------------------------------------- reading
    def _has_table(self, name: str) -> bool:
        """Whether the database holds table ``name`` (an old file opened read-only may lack a new one)."""
        return bool(self.con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall())

    def board_pair_results(self, tournament: str | None = None, ruleset: str | None = None,
                           tournaments: Sequence[str] | None = None) -> BoardPairRows:
        """Every stored board pair as columns (for ratings), optionally only one
        tournament's, one ruleset's and/or those of the ``tournaments`` named. Never mix
        rulesets, nor RULES.md §6.4 options (select ``tournaments`` by
        :attr:`Tournament.variant_options`), in one rating list. ``entrants`` are those
        with a stored board pair (a match just begun adds none)."""
        where = "WHERE (?::VARCHAR IS NULL OR tournament = ?) AND (?::VARCHAR IS NULL OR ruleset = ?)"
        params: list = [tournament, tournament, ruleset, ruleset]
        if tournaments is not None:
            where += " AND list_contains(?::VARCHAR[], tournament)"
            params.append(list(tournaments))
        with_ = f"""
            WITH m AS (SELECT match_id, entrant_a, entrant_b FROM matches {where}
                       AND match_id IN (SELECT match_id FROM board_pairs)),
            e AS (SELECT entrant, (row_number() OVER (ORDER BY entrant) - 1)::BIGINT AS i
                  FROM (SELECT entrant_a AS entrant FROM m UNION SELECT entrant_b FROM m))
        """

        def work():
            names = self.con.execute(with_ + "SELECT entrant FROM e ORDER BY i", params).fetchall()
            cols = self.con.execute(
                with_ + """
                SELECT ea.i AS a, eb.i AS b, p.board::BIGINT AS board, p.margin::BIGINT AS margin,
                       p.forfeit_a, p.forfeit_b
                FROM board_pairs p JOIN m USING (match_id)
                JOIN e ea ON ea.entrant = m.entrant_a JOIN e eb ON eb.entrant = m.entrant_b
                """,
                params,
            ).fetchnumpy()
            return names, cols

        names, cols = self._transaction(work)
        return BoardPairRows(
            entrants=tuple(n for (n,) in names),
            a=np.asarray(cols["a"], np.int64), b=np.asarray(cols["b"], np.int64),
            board=np.asarray(cols["board"], np.int64), margin=np.asarray(cols["margin"], np.int64),
            forfeit_a=np.asarray(cols["forfeit_a"], np.bool_), forfeit_b=np.asarray(cols["forfeit_b"], np.bool_),
        )

    def matches(self, tournament: str | None = None, bot: str | None = None) -> list[MatchSummary]:
        """A summary of every match with at least one stored board pair, by match id.

        Args:
            tournament: only this tournament's matches.
            bot: only matches of this entrant (``"name@version"``) or of any
                version of this bot (``"name"``).
        """
        rows = self._query(
            """
            WITH f AS (SELECT match_id, count(*) AS n FROM faults GROUP BY match_id)
            SELECT m.match_id, m.tournament, m.entrant_a, m.entrant_b, m.ruleset,
                   count(*), sum(p.points_a), sum(p.points_b), sum(p.margin),
                   count(*) FILTER (WHERE p.forfeit_a), count(*) FILTER (WHERE p.forfeit_b),
                   coalesce(any_value(f.n), 0), count(*) FILTER (WHERE p.outcome_a = 'win'),
                   count(*) FILTER (WHERE p.outcome_a = 'draw'), count(*) FILTER (WHERE p.outcome_a = 'loss')
            FROM matches m JOIN board_pairs p USING (match_id) LEFT JOIN f USING (match_id)
            WHERE (?::VARCHAR IS NULL OR m.tournament = ?)
              AND (?::VARCHAR IS NULL OR ? IN (m.entrant_a, m.entrant_b)
                   OR ? IN (regexp_replace(m.entrant_a, '@[^@]*$', ''), regexp_replace(m.entrant_b, '@[^@]*$', '')))
            GROUP BY m.match_id, m.tournament, m.entrant_a, m.entrant_b, m.ruleset
            ORDER BY m.match_id
            """,
            [tournament, tournament, bot, bot, bot],
        )
        return [MatchSummary(*r[:5], *(int(x) for x in r[5:])) for r in rows]

    def deal_records(self, match_id: str, board: int | None = None) -> list[TableResult]:
        """Both tables' results of a match's stored boards (or of one board), by
        board then table: deal record, outcome, suit permutation, every decision
        (with ms and fault) and every fault — what the referee produced.

        The outcome is rebuilt from the ``deals`` columns; its ``notes`` and
        ``redeal_same_dealer`` are not stored (replay the record for them).

        Raises:
            StoreError: no such match, or that board is not stored for it; a
                stored record the rules cannot parse.
        """
        if not self._query("SELECT 1 FROM matches WHERE match_id = ?", [match_id]):
            raise StoreError(f"there is no match {match_id!r}: see `arena matches` for the match ids")
        cond = "match_id = ?" + ("" if board is None else " AND board = ?")
        params = [match_id] + ([] if board is None else [board])

        def work():
            deals = self.con.execute(
                f"""SELECT board, table_no, ns_entrant, ew_entrant, permutation, record, contract, score_ns, score_ew,
                    taker, trump_mode, trump, trick_points_ns, trick_points_ew, tricks_won_ns, tricks_won_ew,
                    declarations_ns, declarations_ew, declaration_team, belote_ns, belote_ew, capot,
                    pot_in, pot_to, pot
                    FROM deals WHERE {cond} ORDER BY board, table_no""",
                params,
            ).fetchall()
            # a database last written before contree_calls existed, opened read-only, has no such table
            calls = self._has_table("contree_calls")
            acts = self.con.execute(
                f"SELECT board, table_no, seat, kind, value, ms, fault FROM ("
                f"SELECT board, table_no, idx, seat, kind, value, ms, fault FROM actions WHERE {cond}"
                + (f" UNION ALL SELECT board, table_no, idx, seat, 'call', value, ms, fault FROM contree_calls "
                   f"WHERE {cond}" if calls else "")
                + ") ORDER BY board, table_no, idx",
                params + params if calls else params,
            ).fetchall()
            faults = self.con.execute(
                f"SELECT kind, board, table_no, seat, entrant, detail FROM faults WHERE {cond} "
                "ORDER BY board, table_no, rowid",
                params,
            ).fetchall()
            return deals, acts, faults

        deals, acts, fault_rows = self._transaction(work)
        if not deals:
            stored = self._query("SELECT min(board), max(board), count(*) FROM board_pairs WHERE match_id = ?", [match_id])
            lo, hi, n = stored[0]
            have = f"its {n} stored boards are {lo}–{hi}" if n else "it has no stored boards yet"
            raise StoreError(f"board {board} of match {match_id!r} is not stored: {have}")
        decisions: dict[tuple[int, int], list[Decision]] = {}
        for b, t, seat, kind, value, ms, fault in acts:
            decisions.setdefault((b, t), []).append(Decision(seat, action_json(kind, value), ms, fault))
        faults: dict[tuple[int, int], list[Fault]] = {}
        for row in fault_rows:
            faults.setdefault((row[1], row[2]), []).append(Fault(*row))
        out = []
        for row in deals:
            (b, t, ns, ew, perm, record, contract, s_ns, s_ew, taker, mode, trump, tp_ns, tp_ew, tw_ns, tw_ew,
             d_ns, d_ew, d_team, be_ns, be_ew, capot, pot_in, pot_to, pot) = row
            try:
                rec = parse_record(json.loads(record))
            except RecordError as e:
                raise StoreError(f"the stored record of {match_id!r} board {b} table {t} is unreadable: {e}") from None
            outcome = DealOutcome(
                contract=contract, score=(s_ns, s_ew), taker=taker, trump_mode=mode, trump=trump,
                trick_points=(tp_ns, tp_ew), tricks_won=(tw_ns, tw_ew), declarations=(d_ns, d_ew),
                declaration_team=d_team, belote=(be_ns, be_ew), capot=capot, pot_in=pot_in, pot_to=pot_to, pot=pot,
            )
            out.append(TableResult(
                board=b, table=t, ns=ns, ew=ew, permutation=tuple(perm), record=rec, outcome=outcome,
                decisions=decisions.get((b, t), []), faults=faults.get((b, t), []),
            ))
        return out

    def board_pair_result(self, match_id: str, board: int) -> BoardPairResult:
        """One stored board pair rebuilt as the referee produced it (see :meth:`deal_records`).

        Raises:
            StoreError: no such match or board.
        """
        tables = self.deal_records(match_id, board)
        row = self._query(
            "SELECT m.entrant_a, m.entrant_b, p.forfeit_a, p.forfeit_b FROM board_pairs p "
            "JOIN matches m USING (match_id) WHERE match_id = ? AND board = ?",
            [match_id, board],
        )[0]
        return BoardPairResult(board=board, a=row[0], b=row[1], tables=(tables[0], tables[1]),
                               forfeit_a=row[2], forfeit_b=row[3])

    # ------------------------------------------------------------ web reads
    def match_boards(self, match_id: str) -> list[BoardPairSummary]:
        """Every stored board pair of a match, by board: both tables' contracts and
        scores and the duplicate margin (what a match page lists).

        Raises:
            StoreError: no such match.
        """
        if not self._query("SELECT 1 FROM matches WHERE match_id = ?", [match_id]):
            raise StoreError(f"there is no match {match_id!r}: see `arena matches` for the match ids")
        rows = self._query(
            """SELECT p.board, p.points_a, p.points_b, p.margin, p.forfeit_a, p.forfeit_b,
                      d.table_no, d.ns_entrant, d.ew_entrant, d.contract, d.taker, d.trump_mode, d.trump,
                      d.score_ns, d.score_ew, d.capot, d.pot
               FROM board_pairs p JOIN deals d USING (match_id, board)
               WHERE p.match_id = ? ORDER BY p.board, d.table_no""",
            [match_id],
        )
        out: dict[int, BoardPairSummary] = {}
        for r in rows:
            table = TableSummary(*r[6:])
            have = out.get(r[0])
            out[r[0]] = BoardPairSummary(*r[:6], tables=(have.tables if have else ()) + (table,))
        return list(out.values())

    def play_settings(self, tournament: str) -> dict[str, int] | None:
        """How ``tournament``'s matches are played: ``{name: value}`` of :data:`PLAY_SETTINGS`
        (ms, faults, CPU seconds, MiB), or None when none are stored (a tournament made by
        an older arena)."""
        try:
            rows = self.con.execute(f"SELECT {', '.join(PLAY_SETTINGS)} FROM tournament_settings WHERE tournament = ?",
                                    [tournament]).fetchall()
        except duckdb.CatalogException:  # an older database opened read-only: no such table yet
            return None
        except duckdb.Error as e:
            raise StoreError(f"database error: {e}") from None
        return dict(zip(PLAY_SETTINGS, rows[0])) if rows else None

    def set_play_settings(self, tournament: str, settings: Mapping[str, int]) -> None:
        """Store how ``tournament``'s matches are played (every name of :data:`PLAY_SETTINGS`).

        Raises:
            StoreError: a name is missing.
        """
        missing = [k for k in PLAY_SETTINGS if k not in settings]
        if missing:
            raise StoreError(f"play settings without {', '.join(missing)}")
        self._query(f"INSERT OR REPLACE INTO tournament_settings VALUES (?, {', '.join('?' * len(PLAY_SETTINGS))})",
                    [tournament, *(int(settings[k]) for k in PLAY_SETTINGS)])

    def faults_before(self, match_id: str, board: int) -> dict[str, int]:
        """Faults stored for each entrant key of ``match_id`` at boards before ``board``: the
        count a resumed match goes on from (RULES.md-independent referee policy:
        :class:`referee.match.DuplicateMatch`)."""
        rows = self._query("SELECT entrant, count(*) FROM faults WHERE match_id = ? AND board < ? GROUP BY entrant",
                           [match_id, board])
        return {k: n for k, n in rows}

    def fault_counts(self, tournament: str | None = None, bot: str | None = None) -> list[tuple[str, str, int]]:
        """``(entrant, kind, count)`` of the stored faults, by entrant then kind, optionally
        only one tournament's and/or one bot's (``"name"`` or ``"name@version"``)."""
        return [
            (e, k, int(n)) for e, k, n in self._query(
                """SELECT f.entrant, f.kind, count(*) FROM faults f JOIN matches m USING (match_id)
                   WHERE (?::VARCHAR IS NULL OR m.tournament = ?)
                     AND (?::VARCHAR IS NULL OR f.entrant = ? OR regexp_replace(f.entrant, '@[^@]*$', '') = ?)
                   GROUP BY f.entrant, f.kind ORDER BY f.entrant, f.kind""",
                [tournament, tournament, bot, bot, bot],
            )
        ]

    def slowest_decisions(self, bot: str, limit: int = 10) -> list[SlowDecision]:
        """A bot's slowest decisions (wall ms of the call, slowest first) over every
        stored board, ``bot`` being ``"name"`` or ``"name@version"``; the referee's own
        actions (0 ms) are left out. Read from the view ``entrant_actions`` (views.sql)."""
        rows = self._query(
            """SELECT match_id, board, table_no, idx, seat, entrant, kind, value, ms, fault
               FROM entrant_actions
               WHERE ms > 0 AND (entrant = ? OR regexp_replace(entrant, '@[^@]*$', '') = ?)
               ORDER BY ms DESC, match_id, board, table_no, idx LIMIT ?""",
            [bot, bot, max(0, int(limit))],
        )
        return [SlowDecision(*r) for r in rows]

    def write_batches(self, tournament: str, window_s: float = 60.0) -> list[tuple[datetime, int]]:
        """``(written_at, board pairs)`` of each write of the tournament's board pairs in
        the last ``window_s`` seconds before its newest write, oldest first: a batch is
        one :meth:`write_board_pairs` call (one ``written_at``). Empty with nothing stored."""
        return [
            (t, int(n)) for t, n in self._query(
                """WITH p AS (SELECT p.written_at FROM board_pairs p JOIN matches m USING (match_id)
                              WHERE m.tournament = ?)
                   SELECT written_at, count(*) FROM p
                   WHERE written_at >= (SELECT max(written_at) FROM p) - to_microseconds(?::BIGINT)
                   GROUP BY written_at ORDER BY written_at""",
                [tournament, int(window_s * 1e6)],
            )
        ]

    # ------------------------------------------------------------------ export
    def export(self, out_dir: str | Path, fmt: str = "parquet") -> list[Path]:
        """Write every table to ``out_dir/<table>.parquet`` or ``.jsonl`` (one JSON
        object per line) with DuckDB ``COPY``; return the paths, in :data:`TABLES` order.

        A secret seed is written only once its tournament is complete (``seed`` is
        NULL before; ``commitment`` is always there), and so are the tournament's
        ``boards`` rows (the decks the seed deals). Results already played
        (``deals``, ``actions``) are written whatever the status.

        Raises:
            StoreError: an unknown format; the directory cannot be created or written.
        """
        if fmt not in ("parquet", "jsonl"):
            raise StoreError(f"unknown export format {fmt!r}: expected parquet or jsonl")
        out = Path(out_dir).expanduser()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the export directory {out}: {e.strerror or e}") from None
        option = "FORMAT parquet" if fmt == "parquet" else "FORMAT json"
        paths = []
        for table in TABLES:
            if table in ("contree_calls", "sprt_tests", "tournament_settings") and not self._has_table(table):
                continue  # a database last written before the table existed, opened read-only
            path = out / f"{table}.{fmt}"
            literal = str(path).replace("'", "''")
            try:
                self.con.execute(f"COPY ({_EXPORTED.get(table, f'FROM {table}')}) TO '{literal}' ({option})")
            except duckdb.Error as e:
                raise StoreError(f"cannot export {table} to {path}: {e}") from None
            paths.append(path)
        return paths


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

#: A tournament whose seed may be shown (SQL condition on ``tournaments``).
_REVEALED = "(NOT seed_secret OR status = 'complete')"

#: What :meth:`Store.export` writes of the tables that hold a secret (others: every row).
_EXPORTED = {
    "tournaments": f"SELECT * REPLACE (CASE WHEN {_REVEALED} THEN seed END AS seed) FROM tournaments",
    "boards": f"SELECT * FROM boards WHERE tournament IN (SELECT name FROM tournaments WHERE {_REVEALED})",
}


def _upgrade_1_to_2(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 1 database to version 2, in one transaction.

    Version 1 held ``tournaments.seed`` as a ``BIGINT``; version 2 holds it as decimal
    text with ``seed_secret`` (false: those seeds were given or defaulted, never
    secret) and ``commitment``. DuckDB cannot alter a table that foreign keys point
    at, so ``tournaments`` and the tables pointing at it (``tournament_entrants``,
    ``boards``, ``matches``) are copied aside, dropped, created by ``schema.sql`` and
    filled again.
    """
    moved = ("tournament_entrants", "boards", "matches")
    con.begin()
    try:
        con.execute("CREATE TEMP TABLE _v1_tournaments AS FROM tournaments")
        for table in moved:
            con.execute(f"CREATE TEMP TABLE _v1_{table} AS FROM {table}")
        for table in (*reversed(moved), "tournaments"):
            con.execute(f"DROP TABLE {table}")
        con.execute(_schema_sql())
        rows = con.execute(
            "SELECT name, ruleset, options, seed, boards_per_pair, created_at, status FROM _v1_tournaments"
        ).fetchall()
        if rows:
            con.executemany(
                "INSERT INTO tournaments (name, ruleset, options, seed, seed_secret, commitment, boards_per_pair, "
                "created_at, status) VALUES (?, ?, ?, ?, false, ?, ?, ?, ?)",
                [[n, r, o, str(seed), seed_commitment(int(seed)), b, c, st] for n, r, o, seed, b, c, st in rows],
            )
        for table in moved:
            con.execute(f"INSERT INTO {table} FROM _v1_{table}")
            con.execute(f"DROP TABLE _v1_{table}")
        con.execute("DROP TABLE _v1_tournaments")
        con.execute("UPDATE schema_version SET version = 2")  # then 3: _upgrade_2_to_3
        con.commit()
    except BaseException:
        _rollback(con)
        raise


def _upgrade_2_to_3(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 2 database to version 3, in one transaction: add
    ``board_pairs.outcome_a`` (A's win, draw or loss as ratings count it, RULES.md
    §8: a forfeit loses whatever the margin) and fill it from the stored rows."""
    con.begin()
    try:
        con.execute("ALTER TABLE board_pairs ADD COLUMN outcome_a VARCHAR")
        con.execute("""UPDATE board_pairs SET outcome_a = CASE
                         WHEN forfeit_a AND forfeit_b THEN 'draw' WHEN forfeit_a THEN 'loss' WHEN forfeit_b THEN 'win'
                         WHEN margin > 0 THEN 'win' WHEN margin < 0 THEN 'loss' ELSE 'draw' END""")
        con.execute("UPDATE schema_version SET version = 3")
        con.commit()
    except BaseException:
        _rollback(con)
        raise


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back, ignoring "no transaction" (DuckDB may have ended it already)."""
    try:
        con.rollback()
    except duckdb.Error:
        pass


def _held(e: BaseException) -> bool:
    """Whether a DuckDB open failed only because another process holds the file."""
    return isinstance(e, duckdb.IOException) and "lock" in str(e).lower()


def _duckdb_connect(target: str, p: Path | None, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect``, waiting (random exponential back-off, 10–250 ms) while
    another process holds the file, at most :data:`LOCK_WAIT_S` seconds.

    Raises:
        StoreError: any failure to open, with :func:`_open_message`'s advice.
    """
    wait_s = LOCK_WAIT_S[0 if read_only else 1]
    connect = retry(retry=retry_if_exception(_held), stop=stop_after_delay(wait_s),
                    wait=wait_random_exponential(multiplier=0.01, max=0.25), reraise=True)(duckdb.connect)
    try:
        con = connect(target, read_only=read_only)
    except duckdb.Error as e:
        raise StoreError(_open_message(p, e, waited_s=wait_s)) from None
    if p is not None and not read_only:
        _writer_settings(con)
    return con


def _wal_path(p: Path) -> Path:
    """DuckDB's write-ahead log of the database file ``p``."""
    return Path(str(p) + ".wal")


def _writer_settings(con: duckdb.DuckDBPyConnection) -> None:
    """Settings of a connection that writes a database file (issue 14 item 3).

    A writer connects for each batch (:meth:`Store.release`). By default DuckDB
    checkpoints at each close, and a checkpoint after small appends "vacuums": it merges
    a table's last row groups into fuller ones, rewriting them in memory, and those
    merges grow with the table (doubling, up to 122,880 rows: for ``deals`` with its
    records, +45 MiB at 8,000 board pairs and growing). So here a close does not
    checkpoint, the write-ahead log carries the batches from one connection to the next
    (replayed at each connect), and :meth:`Store.write_board_pairs` checkpoints once the
    log holds :data:`WAL_CHECKPOINT` bytes — writing that much as new row groups, with
    vacuuming off (the arena never deletes rows, so there is nothing else to vacuum). The
    writer's peak is then bounded by :data:`WAL_CHECKPOINT` whatever the size of the
    database. (DuckDB's own trigger, ``checkpoint_threshold``, compares an estimate many
    times the log's size: it checkpointed nearly every batch, writing row groups of a few
    board pairs and a file 20 times larger.) :meth:`Store.close` checkpoints, so a
    finished command leaves no log behind."""
    con.execute("SET max_vacuum_tasks = 0")
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    con.execute("SET checkpoint_threshold = '1GB'")  # DuckDB's own trigger (an estimate) stays out of the way


def _open_message(p: Path | None, e: duckdb.Error, waited_s: float | None = None) -> str:
    text = str(e)
    where = str(p) if p is not None else "the in-memory database"
    if "not a valid DuckDB database" in text:
        return f"{where} is not a DuckDB database: pass another --db path (or move that file away)"
    if "Corrupt database" in text or "checksum" in text:
        return f"{where} is a corrupt DuckDB database ({text}): restore it from a copy or pass another --db path"
    if "lock" in text.lower():
        waited = f" for more than {waited_s:g} s" if waited_s else ""
        return (
            f"{where} is held by another process{waited} ({text}): the arena holds it only while it writes "
            "a batch, so this is another program (a DuckDB shell, a notebook): close it, or pass another --db path"
        )
    return f"cannot open {where}: {text}: pass another --db path"


def _check_result(mid: str, r: BoardPairResult) -> None:
    """Consistency checks on a result before writing (no database access)."""
    where = f"match {mid!r} board {r.board}"
    if not isinstance(mid, str) or not mid:
        raise StoreError(f"match id must be a non-empty text, got {mid!r}")
    if r.a == r.b:
        raise StoreError(f"{where}: entrants A and B are both {r.a!r}")
    if len(r.tables) != 2 or sorted(t.table for t in r.tables) != [1, 2]:
        raise StoreError(f"{where}: a board pair has tables 1 and 2, got {[t.table for t in r.tables]}")
    for t in r.tables:
        if t.board != r.board:
            raise StoreError(f"{where}: table {t.table} played board {t.board}")
        if {t.ns, t.ew} != {r.a, r.b}:
            raise StoreError(f"{where}: table {t.table} is {t.ns} v {t.ew}, not {r.a} v {r.b}")
        if sorted(t.permutation) != [0, 1, 2, 3]:
            raise StoreError(f"{where}: table {t.table} permutation {t.permutation!r} is not one of the 4 suits")
        for f in t.faults:
            if f.board != r.board or f.table != t.table:
                raise StoreError(f"{where}: table {t.table} holds a fault of board {f.board} table {f.table}")


def _stage(items: list[tuple[str, BoardPairResult]]) -> tuple[pa.Table, pa.Table, pa.Table, pa.Table, pa.Table]:
    """The five staged tables (board_pairs, deals, actions, faults, contree_calls) of some board pairs."""
    now = _now()
    bp, deals, acts, faults = _Columns(_BOARD_PAIRS), _Columns(_DEALS), _Columns(_ACTIONS), _Columns(_FAULTS)
    calls = _Columns(_CALLS)
    b_cols, d_cols, a_cols, f_cols, c_cols = bp.cols, deals.cols, acts.cols, faults.cols, calls.cols
    for mid, r in items:
        for name, value in (
            ("match_id", mid), ("board", r.board), ("points_a", r.points_a), ("points_b", r.points_b),
            ("margin", r.margin), ("forfeit_a", bool(r.forfeit_a)), ("forfeit_b", bool(r.forfeit_b)),
            ("written_at", now), ("outcome_a", r.outcome_a),
        ):
            b_cols[name].append(value)
        for t in sorted(r.tables, key=lambda t: t.table):
            o = t.outcome
            rec = t.record
            row = {
                "match_id": mid, "board": r.board, "table_no": t.table, "ns_entrant": t.ns, "ew_entrant": t.ew,
                "permutation": list(t.permutation), "dealer": rec.dealer, "deck": [str(c) for c in rec.deck],
                "contract": o.contract, "taker": o.taker, "trump_mode": o.trump_mode, "trump": o.trump,
                "trick_points_ns": o.trick_points[0], "trick_points_ew": o.trick_points[1],
                "tricks_won_ns": o.tricks_won[0], "tricks_won_ew": o.tricks_won[1],
                "declarations_ns": o.declarations[0], "declarations_ew": o.declarations[1],
                "declaration_team": o.declaration_team, "belote_ns": o.belote[0], "belote_ew": o.belote[1],
                "capot": o.capot, "score_ns": o.score[0], "score_ew": o.score[1],
                "pot_in": o.pot_in, "pot_to": o.pot_to, "pot": o.pot,
                "record": json.dumps(rec.to_json(), separators=(",", ":")),
            }
            for name, value in row.items():
                d_cols[name].append(value)
            for i, d in enumerate(t.decisions):
                try:
                    kind, value = action_value(d.action)
                except StoreError as e:
                    raise StoreError(f"match {mid!r} board {r.board} table {t.table} decision {i}: {e}") from None
                cols = c_cols if kind == "call" else a_cols  # contrée calls: table contree_calls (§6.4)
                cols["match_id"].append(mid)
                cols["board"].append(r.board)
                cols["table_no"].append(t.table)
                cols["idx"].append(i)
                cols["seat"].append(d.seat)
                if kind != "call":
                    cols["kind"].append(kind)
                cols["value"].append(value)
                cols["ms"].append(float(d.ms))
                cols["fault"].append(d.fault)
            for f in t.faults:
                for name, value in (
                    ("match_id", mid), ("board", r.board), ("table_no", t.table), ("seat", f.seat),
                    ("entrant", f.entrant), ("kind", f.kind), ("detail", f.detail),
                ):
                    f_cols[name].append(value)
    try:
        return bp.table(), deals.table(), acts.table(), faults.table(), calls.table()
    except (pa.ArrowException, TypeError, ValueError) as e:
        raise StoreError(f"a result holds a value of the wrong type: {e}") from None
