"""What the competition server's threads share: the one writing store (:class:`Hub`), its lock,
and the folders beside the database where uploads, unpacked bots and logs are kept.

Layout (``ROOT`` = ``<database folder>/compete/<competition>``):

- ``ROOT/incoming/upload-*.partial``: an upload's body as it is received (on disk, never held in
  memory whole), moved to ``archives/`` once accepted, removed otherwise (a killed server's are
  removed when it starts again);
- ``ROOT/archives/<sha256>.tar.gz``: every accepted upload, named by its bytes' SHA-256 (written
  once, before its ``compete_versions`` row; an upload made twice is stored once);
- ``ROOT/work/<version id>/``: an upload unpacked while the intake checks it (removed after);
- ``ROOT/logs/<version id>/``: the output of every bot process of its validation matches
  (``<ruleset>/<entrant>-table<T>-seat<S>-<n>.log``, :class:`referee.match.MatchConfig`) and of
  its newest ladder units (``ladder-<block>/…``, :data:`arena.compete.intake.LOGS_KEPT` of them);
  its owner reads its own bot's files only;
- ``ROOT/logs/units/<block>/``: a ladder unit's output while it plays (then filed per version);
- ``<database folder>/bots/``: frozen copies, as ``arena bots submit`` makes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

from ..store import ReadStore, Store

T = TypeVar("T")


class Hub:
    """The server's store, opened for writing once for the server's life (DuckDB lets one
    process write a file; this one is it), and a lock that lets one thread use it at a time.

    Use :meth:`run` for any read or write of the API and the intake; :meth:`reader` gives the
    web pages a read-only view on a connection of their own to the same database.
    """

    def __init__(self, db: Path, competition: str):
        """Open ``db`` for writing. Raises: StoreError (the database cannot be opened)."""
        self.db = Path(db)
        self.competition = competition
        self.store: Store = Store.open(self.db)
        self.lock = threading.RLock()
        self.root = self.db.parent / "compete" / competition
        self.archives = self.root / "archives"
        self.incoming = self.root / "incoming"
        self.work = self.root / "work"
        self.logs = self.root / "logs"
        self.bots_root = self.db.parent / "bots"
        for folder in (self.archives, self.incoming, self.work, self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        for partial in self.incoming.glob("upload-*.partial"):  # a killed server's, half received
            partial.unlink(missing_ok=True)
        self.uploading: set[str] = set()  # participants whose upload is being received (one at a time each)
        self.wake = threading.Event()  # set when an upload is queued: the intake looks at once
        self.challenges_per_day = 5  # arena compete serve --challenges-per-day (arena.compete.challenge)
        self.sessions: dict = {}  # the browser's sessions by id (arena.compete.pages), in memory only
        self.ladder_cache: tuple[float, dict | None] = (0.0, None)  # (time.monotonic(), GET /api/v1/ladder)
        self.wake_ladder: Callable[[], None] = lambda: None  # the ladder looks at once (a version turned active, the competition closed)

    def run(self, work: Callable[[Store], T]) -> T:
        """``work(store)`` with the store to itself."""
        with self.lock:
            return work(self.store)

    def reader(self) -> ReadStore:
        """A read-only store on a connection of its own to the server's database (the same
        DuckDB instance in this process: it sees every committed write): what a web page reads
        with, from any thread; close it after use. Not a cursor of :attr:`store`'s connection:
        the store closes that after each checkpoint (:meth:`Store.write_board_pairs`), and its
        cursors with it."""
        with self.lock:
            return ReadStore(duckdb.connect(str(self.db)), self.db, read_only=True)

    def close(self) -> None:
        with self.lock:
            self.store.close()
