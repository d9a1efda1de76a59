"""The connection to the database file and its one writer: :class:`Connection` (open,
wait for a file another process holds, release between batches, checkpoint, close, one
transaction at a time) and :class:`RunLock`. See ``arena/store/__init__.py`` for why the
arena never holds the file for long.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Sequence
from pathlib import Path

import duckdb
from tenacity import retry, retry_if_exception, stop_after_delay, wait_random_exponential

from .model import StoreError, _now
from .schema import SCHEMA_VERSION, _rollback, migrate

#: How long an open waits for another process to let go of the database file, seconds:
#: (readers, writers). A tournament run holds it for one batch write at a time
#: (tens of ms, every ``arena.play.tournament.FLUSH_S``); a reader for one command.
LOCK_WAIT_S = (15.0, 120.0)


#: How a competition server names itself in the run lock (``compete:<competition>``): unlike a
#: tournament run, it holds the database file for its whole life.
SERVER_LOCK_PREFIX = "compete:"


def held_by_server(db: str | Path) -> str | None:
    """Why the database ``db`` cannot be opened: a competition server of another process holds
    it until it stops (its run lock says so), with what to do instead; None otherwise."""
    holder = RunLock(db).holder()
    name = str((holder or {}).get("tournament", ""))
    if not name.startswith(SERVER_LOCK_PREFIX) or holder.get("pid") == os.getpid():
        return None
    return (f"{Path(db).expanduser()} is held by pid {holder.get('pid', '?')} ({name}): a running competition server "
            "has the database to itself until it stops; go through it with --server URL (writes need an admin "
            "token) or its web pages, or stop it first")


#: The size of what a run lock's holder writes in it (:meth:`RunLock.note`), padded with spaces.
LOCK_NOTE_BYTES = 1024


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
            raise StoreError(self.busy_message(self.holder() or {})) from None
        os.ftruncate(fd, 0)
        self._fd, self._size = fd, LOCK_NOTE_BYTES
        self._said = {"tournament": tournament, "pid": os.getpid(), "started_at": str(_now())}
        self._write()

    def busy_message(self, holder: dict) -> str:
        """The one refusal for a command that would play while ``holder`` (what
        :meth:`holder` read) plays a tournament here: its pid and tournament, and what to do."""
        return (f"another arena (pid {holder.get('pid', '?')}) is running tournament "
                f"{holder.get('tournament', '?')!r} in {str(self.path)[:-len('.run-lock')]}: one arena plays a "
                "database's tournaments at a time; wait for it to finish (reports work meanwhile) or pass another "
                "--db path")

    def note(self, **fields) -> None:
        """Add ``fields`` (JSON values) to what the holder says (:meth:`holder`), e.g. the
        tables played in the blocks in flight, for the live page; nothing when not held."""
        if self._fd is not None:
            self._said.update(fields)
            self._write()

    def _write(self) -> None:
        """What the holder says, in one write padded with spaces to the longest written yet
        (at least :data:`LOCK_NOTE_BYTES`; a reader parses JSON with trailing spaces, and a
        read that meets a write half done fails to parse: ``{}``, nothing new said)."""
        data = json.dumps(self._said).encode()
        self._size = max(self._size, len(data))
        os.pwrite(self._fd, data.ljust(self._size), 0)

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
        """What the holding arena wrote (``tournament``, ``pid``, ``started_at``, and what
        it added with :meth:`note`), or ``None`` when no arena is running a tournament in
        this database."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                try:
                    return json.loads(os.pread(fd, 4 * LOCK_NOTE_BYTES, 0) or b"{}")
                except ValueError:
                    return {}
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)


class Connection:
    """One DuckDB connection to the arena database and what every part of the store
    does with it; :class:`arena.store.Store` and :class:`arena.store.ReadStore` add the
    reads and writes. Open with :meth:`open`; use as a context manager or call :meth:`close`."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: Path | None, *, read_only: bool = False):
        """Wrap an open connection whose schema is applied; use :meth:`Store.open`."""
        self._con: duckdb.DuckDBPyConnection | None = con
        self.path = path
        self.read_only = read_only
        self._closed = False
        self._rulesets: dict[str, str] = {}  # tournament -> ruleset (tournaments never change ruleset)
        self._matches: dict[str, tuple[str, str, str]] = {}  # match_id -> (tournament, a, b), committed rows only

    @classmethod
    def open(cls, path: str | Path | None = None, *, read_only: bool = False) -> Connection:
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
        if (why := held_by_server(p)) is not None:  # no wait: it holds the file until it stops
            raise StoreError(why)
        if p.is_file() and p.stat().st_size == 0:
            raise StoreError(f"{p} is an empty file, not a DuckDB database: delete it or pass another --db path")
        return cls._connect(str(p), p, read_only=read_only)

    @classmethod
    def _connect(cls, target: str, p: Path | None, *, read_only: bool) -> Connection:
        con = _duckdb_connect(target, p, read_only=read_only)
        try:
            version = migrate(con, p, read_only=read_only)
        except duckdb.CatalogException:
            con.close()
            raise StoreError(
                f"{p} is a DuckDB database but not an arena database (no schema_version table): "
                "open it once without read-only, or pass another --db path"
            ) from None
        except duckdb.Error as e:
            con.close()
            raise StoreError(_open_message(p, e)) from None
        if version is not None and version != SCHEMA_VERSION:
            con.close()
            raise StoreError(
                f"{p} was written with arena schema version {version}; this arena uses version "
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

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store.open({str(self.path) if self.path else None!r})"

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
    log holds :data:`~arena.store.writer.WAL_CHECKPOINT` bytes — writing that much as new row groups, with
    vacuuming off (the arena never deletes rows, so there is nothing else to vacuum). The
    writer's peak is then bounded by :data:`~arena.store.writer.WAL_CHECKPOINT` whatever the size of the
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
