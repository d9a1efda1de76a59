"""Storage: the arena's DuckDB database (the only part that imports duckdb).

The schema is one SQL file, ``arena/store/schema.sql`` (tables, columns, units and
conventions are documented there). A :class:`Store` wraps one connection; what it
does is split by concern, one module each:

- ``model.py``: what the store hands out — :class:`StoreError`, :class:`Status`, the
  keys (:func:`entrant_key`, :func:`match_id`), stored actions as ``(kind, value)``
  text, the frozen values the reads return, :func:`seed_commitment`. No database access.
- ``schema.py``: ``schema.sql`` and ``views.sql`` and the upgrades of an older database.
- ``connection.py``: opening, waiting for the file, releasing it between batches,
  checkpoints, transactions (:class:`~arena.store.connection.Connection`), and the
  :class:`RunLock`.
- ``reads.py``: every read (``TournamentReads``, ``ResultReads``); ``export.py``: the export.
- ``entries.py``: the writes that set a tournament up (bots, tournaments, entrants,
  status, play settings); ``writer.py``: the writes of what is played (boards, matches,
  board pairs).
- ``analysis.py``: the double-dummy analysis cache (``dd_deals``, ``dd_cards``; schema
  version 5): reads for every store, writes for :class:`Store` (``arena/analysis/boards.py``
  is their one writer, on demand, never during a tournament).
- ``compete.py``: the competition server's tables (competitions, participants and their
  token hashes, uploaded versions and their status, the ladder's units): reads for every store, writes for
  :class:`Store` (``arena/compete/`` is their one writer).

**Readers never get the writer**: ``Store.open(path, read_only=True)`` returns a
:class:`ReadStore`, which has the reads and the export and no write method; only an open
for writing returns a :class:`Store`, which adds ``entries.py`` and ``writer.py``.

- **Bots and tournaments**: :meth:`Store.add_bot`, :meth:`Store.create_tournament`,
  :meth:`Store.add_entrants`, :meth:`Store.add_boards`, ...
- **Secret seeds**: a tournament's seed (an integer of up to 256 bits, stored as
  decimal text) is secret unless it was given by hand; :class:`Tournament` shows it
  (:attr:`Tournament.public_seed`) and :meth:`Store.export` writes it, and the
  ``boards`` it deals, only once the tournament is complete. Its commitment
  (:func:`seed_commitment`) is public from the start.
- **Schema versions**: an older database is upgraded when it is opened for
  writing: version 1 (``BIGINT`` seeds) to 2 (``schema._upgrade_1_to_2``), 2 to 3
  (``board_pairs.outcome_a``, ``schema._upgrade_2_to_3``), 3 to 4 (tournament settings) and
  4 to 5 (the double-dummy cache; a version 4 file opened read-only reads without it) and 5 to 6
  (the competition ladder's ``ladder_units``). The views of
  ``arena/store/views.sql`` are made after any upgrade.
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
(``connection.LOCK_WAIT_S``), so reports read while a tournament writes. Between batches
the latest rows wait in DuckDB's write-ahead log (``<database>.wal``, read by every
open) and are checkpointed into the file every ``writer.WAL_CHECKPOINT`` bytes and on
:meth:`Store.close`, so that the writer's memory does not grow with the database
(``connection._writer_settings``). Workers hand their results to a single writer;
:class:`RunLock` (a lock file beside the database) makes sure a tournament has
one writer, and tells readers whether a ``running`` tournament is really
running. A ``Store`` is not thread-safe; use it from one thread.

Words are those of RULES.md §1; points are game points, ``ms`` milliseconds,
timestamps naive UTC.
"""

from __future__ import annotations

from pathlib import Path

from .analysis import AnalysisReads, AnalysisWriter
from .compete import (
    Challenge, CompeteReads, CompeteWriter, Competition, LadderUnit, LadderWriter, Participant, Version,
)
from .connection import LOCK_WAIT_S, SERVER_LOCK_PREFIX, Connection, RunLock, held_by_server
from .entries import EntryWriter
from .export import TABLES, VIEWS, Exporter, write_loader
from .model import (
    BoardPairRows, BoardPairSummary, Bot, DealSuiteRow, MatchSummary, SlowDecision, Status, StoreError, TableSummary, Tournament,
    action_json, action_value, entrant_key, match_id, seed_commitment, split_entrant,
)
from .reads import ResultReads, TournamentReads
from .schema import SCHEMA_VERSION
from .writer import Writer

__all__ = [
    "SCHEMA_VERSION",
    "SlowDecision",
    "TABLES",
    "VIEWS",
    "LOCK_WAIT_S",
    "SERVER_LOCK_PREFIX",
    "held_by_server",
    "Bot",
    "Challenge",
    "Competition",
    "Participant",
    "Version",
    "BoardPairRows",
    "BoardPairSummary",
    "DealSuiteRow",
    "ReadStore",
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
    "seed_commitment",
    "split_entrant",
    "write_loader",
]


class ReadStore(Connection, TournamentReads, ResultReads, Exporter, CompeteReads, AnalysisReads):
    """The arena database opened read-only (``Store.open(path, read_only=True)``): every
    read and the export, no write method."""


class Store(ReadStore, EntryWriter, Writer, CompeteWriter, LadderWriter, AnalysisWriter):
    """The arena database: one DuckDB connection. Open with :meth:`Store.open`;
    use as a context manager or call :meth:`close`."""

    @classmethod
    def open(cls, path: str | Path | None = None, *, read_only: bool = False) -> Store | ReadStore:
        """Open (creating if needed) the database at ``path`` and apply the schema: a
        :class:`Store`, or with ``read_only`` a :class:`ReadStore` (no write methods).
        See :meth:`Connection.open <arena.store.connection.Connection.open>`."""
        if read_only:
            return ReadStore.open(path, read_only=True)
        return super().open(path)
