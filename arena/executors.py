"""Where a tournament's units of work are played, behind one interface (:class:`Executor`).

A **unit** is a match (the boards of it still to play), played by one referee
with its own bot processes (kept alive from board to board of the unit),
the two tables of each board at once (:attr:`Work.concurrent_tables`);
each finished board pair goes back to the one writer, the arena
(:func:`arena.tournament.run`), which alone writes DuckDB.  Three executors:

* :class:`ThreadExecutor` — threads of the arena's own process (``--workers 1``:
  one table at a time, the referee sharing the arena's interpreter);
* :class:`ProcessExecutor` — worker processes of this machine (``--workers N``,
  N ≥ 2: N tables at once, two per process), started with the ``spawn`` method:
  each referee has an interpreter of its own, so tables run on every core instead
  of sharing one interpreter's lock;
* :class:`arena.cluster.DaskExecutor` — Dask workers, here or on other machines
  (``--cluster``).

Results never depend on the executor: the board is ``make_board(seed, k)``, table
2's suits ``suit_permutation(seed, k)``, a match is one unit (an entrant's forfeit
depends on its faults at every earlier board of the match, and a resumed match
starts from the stored count), and bots reseed at every deal from HMACs of the match
and board (:mod:`referee.secret`), so a board pair is the same whoever plays it and when.
Partners never share a process and no process plays both tables of a board
(:class:`referee.match.DuplicateMatch`), whatever the executor.

A worker process dies with the arena (``PR_SET_PDEATHSIG``, and it exits at once if
the arena died before it could ask); its bots die with it (their launcher's own
death signal and the sandbox's guardian, :mod:`referee.sandbox`).  The kernel sends a
death signal when the *thread* that started the process ends: worker processes are
started by the thread that calls :meth:`Executor.results` (the arena's writer, alive
for the whole run), and bots by their match's starter threads, which live until the
match has stopped them (:class:`referee.match.DuplicateMatch`) — never start either
from a short-lived thread.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Protocol

from referee.match import Entrant, MatchConfig, play_match
from referee.records import BoardPairResult
from referee.rules import make_board

from .malloc import TRIM_EVERY, few_malloc_arenas, trim_memory
from .schedule import suit_permutation

#: A board pair as it reaches the writer: ``(match_id, result)``.
Item = tuple[str, BoardPairResult]


@dataclass(frozen=True)
class Work:
    """What every unit of a run shares.

    Attributes:
        config: how matches are played (ruleset, deadlines, limits, the tournament seed).
        board_count: boards per pair: the length of a match, told to the bots.
        concurrent_tables: play each board's two tables at once (the same results:
            :class:`referee.match.DuplicateMatch`); False plays them in turn.
    """

    config: MatchConfig
    board_count: int
    concurrent_tables: bool = True

    @property
    def seed(self) -> int:
        return self.config.seed


@dataclass(frozen=True)
class Unit:
    """A match, or a run of its boards, played by one referee with its own bot processes.

    Attributes:
        number: the unit's number in this run (0, 1, …).
        match_id: the match (:func:`arena.store.match_id`).
        a, b: the entrants (A holds NS at table 1).
        boards: the board numbers to play, ascending.
        pots: the litige pot carried into the first board at tables 1 and 2 (RULES.md §6.3).
        faults: A's and B's faults at the match's boards before the first (a resumed match
            goes on counting towards ``max_faults``).
    """

    number: int
    match_id: str
    a: Entrant
    b: Entrant
    boards: tuple[int, ...]
    pots: tuple[int, int] = (0, 0)
    faults: tuple[int, int] = (0, 0)


class Interrupted(Exception):
    """Raised inside a unit to stop it after the board pair just handed over."""


def play_unit(work: Work, unit: Unit, emit: Callable[[str, BoardPairResult], None],
              stopped: Callable[[], bool]) -> int:
    """Play ``unit``'s boards in order; hand each board pair to ``emit(match_id, result)`` as it
    finishes (nothing is kept: memory is flat in the length of the unit); stop after the
    board pair in flight once ``stopped()`` is true.  Returns the board pairs handed over.
    Bot processes are stopped when it returns or raises."""
    seats = work.config.ruleset.seats
    count = 0

    def hand_over(result: BoardPairResult) -> None:
        nonlocal count
        emit(unit.match_id, result)
        count += 1
        if count % TRIM_EVERY == 0:
            trim_memory()
        if stopped():
            raise Interrupted

    if stopped():
        return 0
    try:
        play_match(unit.match_id, unit.a, unit.b, (make_board(work.seed, k, seats) for k in unit.boards), work.config,
                   permutations=lambda k: suit_permutation(work.seed, k), on_board_pair=hand_over, pots=unit.pots,
                   board_count=work.board_count, keep=False, concurrent_tables=work.concurrent_tables,
                   faults=unit.faults)
    except Interrupted:
        pass
    return count


class Executor(Protocol):
    """Plays units and hands back their board pairs (to the arena's writer loop).

    Use: :meth:`start`, then :meth:`results` until :meth:`finished`; :meth:`stop` to
    stop after the board pairs in flight; :meth:`close` always (it returns the errors).
    """

    description: str
    """Where units are played, in words (e.g. "2 worker processes"), for the progress display."""
    slots: int
    """Units played at once."""
    concurrent_tables: bool
    """Whether a unit plays each board's two tables at once (:attr:`Work.concurrent_tables`)."""

    def start(self, work: Work, units: Iterator[Unit]) -> None:
        """Begin playing ``units`` (taken from the iterator as workers free up)."""

    def results(self, timeout: float) -> list[Item]:
        """The board pairs finished since the last call (waits up to ``timeout`` s for one)."""

    def finished(self) -> bool:
        """Every unit is done and every board pair it played was returned by :meth:`results`."""

    def stop(self) -> None:
        """Start no new unit; running units stop after the board pair in flight."""

    def close(self) -> list[str]:
        """Wait for running units, shut everything down; the errors of units that failed."""


# ---------------------------------------------------------------- local pools
_channel: tuple | None = None  # in a worker process: (results queue, stop event)


def _worker_init(results, stop, parent: int) -> None:
    """A worker process's start: die with the arena, leave Ctrl-C to the arena (it sets
    ``stop``; the worker finishes the board pair in flight)."""
    from referee.launch import die_with_parent

    few_malloc_arenas()
    die_with_parent()
    if os.getppid() != parent:  # the arena died before the death signal was asked for
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _channel
    _channel = (results, stop)


def _unit_task(work: Work, unit: Unit, channel: tuple | None = None) -> tuple[int, str | None]:
    """Run in a worker: play the unit; return (board pairs handed over, error or None).
    Board pairs travel tagged with the unit's number so the arena can count them in."""
    results, stop = channel or _channel
    count = 0

    def emit(mid: str, result: BoardPairResult) -> None:
        nonlocal count
        results.put((unit.number, mid, result))
        count += 1

    try:
        play_unit(work, unit, emit, stop.is_set)
    except Exception as e:  # noqa: BLE001 - reported by the arena, never lost
        return count, f"{unit.match_id} boards {unit.boards[0]}–{unit.boards[-1]}: {e!r}"
    return count, None


class _PoolExecutor:
    """Units on a :mod:`concurrent.futures` pool, board pairs back through a queue; a few
    units queued ahead per worker, taken lazily from the unit iterator."""

    AHEAD = 2  # units submitted per worker before one finishes

    def __init__(self, workers: int, concurrent_tables: bool = True):
        self.workers = self.slots = max(1, workers)
        self.concurrent_tables = concurrent_tables
        self._pending: dict[int, Future] = {}
        self._expected: dict[int, int] = {}  # unit number -> board pairs its task reported
        self._received: dict[int, int] = {}
        self._errors: list[str] = []
        self._units: Iterator[Unit] | None = None
        self._stopping = False
        self._closed = False

    # subclasses: self._pool, self._queue, self._stop, _submit(unit)
    def start(self, work: Work, units: Iterator[Unit]) -> None:
        self._work, self._units = work, units
        self._top_up()

    def _top_up(self) -> None:
        while not self._stopping and self._units is not None and len(self._pending) < self.AHEAD * self.workers:
            unit = next(self._units, None)
            if unit is None:
                self._units = None
                return
            self._received.setdefault(unit.number, 0)
            try:
                self._pending[unit.number] = self._submit(unit)
            except BrokenProcessPool:  # a worker died: what it played is stored, the rest is not started
                self._stopping = True
                error = "a worker process died (killed?): its unit is not finished; run again to resume"
                if error not in self._errors:
                    self._errors.append(error)
                return

    def _reap(self) -> None:
        for number, f in list(self._pending.items()):
            if not f.done():
                continue
            del self._pending[number]
            if f.cancelled():
                continue
            try:
                count, error = f.result()
            except BrokenProcessPool:
                count, error = None, "a worker process died (killed?): its unit is not finished; run again to resume"
            except Exception as e:  # noqa: BLE001
                count, error = None, repr(e)
            if error and error not in self._errors:
                self._errors.append(error)
            if count is not None:
                self._expected[number] = count

    def results(self, timeout: float) -> list[Item]:
        out: list[Item] = []
        try:
            out.append(self._take(self._queue.get(timeout=timeout)))
            while True:
                out.append(self._take(self._queue.get_nowait()))
        except queue.Empty:
            pass
        self._reap()
        self._top_up()
        return out

    def _take(self, item) -> Item:
        number, mid, result = item
        self._received[number] = self._received.get(number, 0) + 1
        return mid, result

    def finished(self) -> bool:
        self._reap()
        if self._pending or (self._units is not None and not self._stopping):
            return False
        # every reported board pair is in (a queue delivers a moment after the task returns)
        return all(self._received.get(n, 0) >= c for n, c in self._expected.items())

    def stop(self) -> None:
        self._stopping = True
        self._stop.set()
        for f in self._pending.values():
            f.cancel()

    def close(self) -> list[str]:
        self._stopping = True
        if not self._closed:
            self._closed = True
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._reap()
        return self._errors


class ThreadExecutor(_PoolExecutor):
    """Units on threads of this process (``--workers 1``, and the old multi-thread path for benchmarks)."""

    def __init__(self, workers: int = 1, concurrent_tables: bool = True):
        super().__init__(workers, concurrent_tables)
        self._queue: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="match")
        tables = self.workers * (2 if concurrent_tables else 1)
        self.description = f"{_tables(tables)} at once, {_plural(self.workers, 'thread')}"

    def _submit(self, unit: Unit) -> Future:
        return self._pool.submit(_unit_task, self._work, unit, (self._queue, self._stop))


class ProcessExecutor(_PoolExecutor):
    """Units on worker processes of this machine (``spawn``: nothing inherited but what is sent)."""

    def __init__(self, workers: int, concurrent_tables: bool = True):
        super().__init__(workers, concurrent_tables)
        ctx = multiprocessing.get_context("spawn")
        self._queue = ctx.Queue()
        self._stop = ctx.Event()
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_worker_init,
                                         initargs=(self._queue, self._stop, os.getpid()))
        tables = self.workers * (2 if concurrent_tables else 1)
        self.description = f"{_tables(tables)} at once, {_plural(self.workers, 'worker process', 'worker processes')}"

    def _submit(self, unit: Unit) -> Future:
        return self._pool.submit(_unit_task, self._work, unit)

    def close(self) -> list[str]:
        if self._closed:
            return self._errors
        errors = super().close()
        self._queue.close()
        self._queue.join_thread()
        return errors


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _tables(n: int) -> str:
    return _plural(n, "table")


def local_executor(workers: int) -> Executor:
    """``--workers N``: N tables played at once (like a chess tester's concurrency).

    N = 1: one table at a time, in a thread of this process.  N ≥ 2: ⌈N/2⌉ worker
    processes, each playing a unit with its board's two tables at once (one set of
    bot processes keeps two tables busy; an odd N is rounded up)."""
    if workers <= 1:
        return ThreadExecutor(1, concurrent_tables=False)
    return ProcessExecutor(-(-workers // 2))
