"""Where a tournament's units of work are played, behind one interface (:class:`Executor`).

A **unit** is a match (the boards of it still to play), played by one referee
with its own bot processes, block by block and one table at a time
(:mod:`referee.match`); each finished board pair goes back to the one writer, the
arena (:func:`arena.play.tournament.run`), which alone writes DuckDB.  Three executors:

* :class:`ThreadExecutor` — a thread of the arena's own process (``--workers 1``);
* :class:`ProcessExecutor` — worker processes of this machine (``--workers N``,
  N ≥ 2: N tables at once, one per process), started with the ``spawn`` method:
  each referee has an interpreter of its own, so tables run on every core instead
  of sharing one interpreter's lock;
* :class:`arena.play.cluster.DaskExecutor` — Dask workers, here or on other machines
  (``--cluster``).

**No entrant is in two units at once** (:class:`Dispatcher`, issue 19 item 1): every
match of a tournament plays the same boards, so an entrant's processes in two matches
played at once could hold both sides of one board (NS in one, EW in the other) and
pass hidden cards between them through the machine.  Units are handed out so that
the running ones have no entrant in common; with ``exclusive_boards`` (finals) one at
a time, so that no two tables of one board are ever played at once, whoever sits there.

Results never depend on the executor: the board is ``make_board(seed, k)`` (or a deal
suite's board *k*: :attr:`Work.boards`), table
2's suits ``suit_permutation(seed, k)``, a match is one unit played in blocks of
fixed boards (an entrant's forfeit depends on its faults at earlier blocks, and a
resumed match starts at the first block not wholly stored), and bots reseed at every
deal from HMACs of the match and board (:mod:`referee.secret`), so a board pair is
the same whoever plays it and when.

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

import dataclasses
import multiprocessing
import os
import re
import queue
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from referee.match import Entrant, MatchConfig, play_match
from referee.records import BoardPairResult
from referee.rules import Board, make_board

from ..report.render import plural
from .malloc import TRIM_EVERY, few_malloc_arenas, trim_memory
from .schedule import suit_permutation

#: A board pair as it reaches the writer: ``(match_id, result)``.
Item = tuple[str, BoardPairResult]


@dataclass(frozen=True)
class Work:
    """What every unit of a run shares.

    Attributes:
        config: how matches are played (ruleset, deadlines, limits, the tournament seed,
            the block size).
        board_count: boards per pair: the length of a match, told to the bots.
        boards: a deal suite's boards by number (``--deals``, :mod:`arena.play.deals`), played
            instead of ``make_board(seed, k)``; None: dealt from the seed.
    """

    config: MatchConfig
    board_count: int
    boards: tuple[Board, ...] | None = None

    def board(self, k: int) -> Board:
        """Board ``k``: the deal suite's, or ``make_board(seed, k)``."""
        if self.boards is not None:
            return self.boards[k]
        return make_board(self.seed, k, self.config.ruleset.seats)

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


def play_unit(work: Work, unit: Unit, emit: Callable[[str, BoardPairResult], None],
              stopped: Callable[[], bool], on_table: Callable[[], None] | None = None) -> int:
    """Play ``unit``'s boards in order, block by block; hand each board pair to
    ``emit(match_id, result)`` as its block finishes (nothing more is kept: memory is bounded
    by a block).  Once ``stopped()`` is true the block in flight is dropped (a resumed run
    plays it again).  ``on_table()`` is called as each board is played at one table (the
    progress inside a block).  Returns the board pairs handed over.  Bot processes are
    stopped when it returns or raises."""
    count = 0

    def hand_over(result: BoardPairResult) -> None:
        nonlocal count
        emit(unit.match_id, result)
        count += 1
        if count % TRIM_EVERY == 0:
            trim_memory()

    if stopped():
        return 0
    config = work.config
    if config.log_dir is not None:
        config = dataclasses.replace(config, log_dir=_new_folder(match_log_dir(config.log_dir, unit.match_id,
                                                                               unit.boards[0])))
    play_match(unit.match_id, unit.a, unit.b, (work.board(k) for k in unit.boards), config,
               permutations=lambda k: suit_permutation(work.seed, k), on_board_pair=hand_over, pots=unit.pots,
               board_count=work.board_count, keep=False, faults=unit.faults, stopped=stopped,
               on_table=None if on_table is None else lambda _: on_table())
    return count


def match_log_dir(root: Path, match_id: str, first_board: int) -> Path:
    """Where a unit keeps its bots' output (``--logs ROOT``): ``ROOT/TOURNAMENT/A~B/from-board-K``
    (K: the unit's first board; a match resumed at the same board gets ``from-board-K-2``, …,
    so nothing is overwritten),
    each process's output in it as ``ENTRANT-tableT-seatS-N.log``
    (:attr:`referee.match.MatchConfig.log_dir`: N counts the seat's processes, one per block
    of boards from K on, and one more after each restart).  Characters other than letters,
    digits and ``.@~#+-`` become ``_``, and leading dots go (no ``..``)."""
    tournament, _, pair = match_id.partition("/")
    safe = [re.sub(r"[^\w.@~#+-]", "_", part).lstrip(".") or "_" for part in (tournament, pair)]
    return root / safe[0] / safe[1] / f"from-board-{first_board}"


def _new_folder(path: Path) -> Path:
    """Make ``path``, or ``path-2``, ``path-3``, … when it exists (a match resumed at the same
    block keeps the earlier run's output); returns the folder made."""
    n = 1
    while True:
        folder = path if n == 1 else path.with_name(f"{path.name}-{n}")
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            n += 1


class Dispatcher:
    """Hands out a run's units so that no two running units share an entrant (issue 19 item 1).

    Every match of a tournament plays the same boards: an entrant's processes in two matches
    played at once could hold both sides of one board and pass hidden cards between them
    through the machine (its counters, its CPU).  :meth:`take` gives the next unit whose
    entrants are in no running unit, looking past units that must wait (kept in order);
    :meth:`release` frees a unit's entrants once it has ended, however it ended.

    Args:
        units: the run's units, in the schedule's order (taken lazily).
        exclusive_boards: one unit at a time (finals: no two tables of one board are ever
            played at once, whoever sits there — against collusion between entrants).
    """

    def __init__(self, units: Iterable[Unit], *, exclusive_boards: bool = False):
        self._units: Iterator[Unit] | None = iter(units)
        self._waiting: list[Unit] = []
        self._running: dict[int, Unit] = {}
        self.exclusive_boards = exclusive_boards

    def _busy(self, unit: Unit) -> bool:
        if self.exclusive_boards and self._running:
            return True
        return any({u.a.key, u.b.key} & {unit.a.key, unit.b.key} for u in self._running.values())

    def take(self) -> Unit | None:
        """The next unit that may start now (it then counts as running), or None: every unit
        left waits for a running one, or none is left (:attr:`exhausted`)."""
        for i, unit in enumerate(self._waiting):
            if not self._busy(unit):
                del self._waiting[i]
                self._running[unit.number] = unit
                return unit
        while self._units is not None:
            unit = next(self._units, None)
            if unit is None:
                self._units = None
                break
            if self._busy(unit):
                self._waiting.append(unit)
                continue
            self._running[unit.number] = unit
            return unit
        return None

    def release(self, number: int) -> None:
        """Unit ``number`` has ended (done, failed or cancelled): its entrants are free."""
        self._running.pop(number, None)

    @property
    def exhausted(self) -> bool:
        """No unit is left to hand out."""
        return self._units is None and not self._waiting

    @property
    def running(self) -> int:
        """Units handed out and not yet released."""
        return len(self._running)


class Executor(Protocol):
    """Plays units and hands back their board pairs (to the arena's writer loop).

    Use: :meth:`start`, then :meth:`results` until :meth:`finished`; :meth:`stop` to
    stop after the board pairs in flight; :meth:`close` always (it returns the errors).
    """

    description: str
    """Where units are played, in words (e.g. "2 worker processes"), for the progress display."""
    slots: int
    """Units played at once, at most."""

    def start(self, work: Work, units: Dispatcher) -> None:
        """Begin playing the units ``units`` hands out (taken as workers free up)."""

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

    try:  # a table played: (number, match, None), counted by the arena until its block's board pairs come
        play_unit(work, unit, emit, stop.is_set, lambda: results.put((unit.number, unit.match_id, None)))
    except Exception as e:  # noqa: BLE001 - reported by the arena, never lost
        return count, f"{unit.match_id} boards {unit.boards[0]}–{unit.boards[-1]}: {e!r}"
    return count, None


class _PoolExecutor:
    """Units on a :mod:`concurrent.futures` pool, board pairs back through a queue; a unit is
    submitted when a worker is free and the :class:`Dispatcher` allows it."""

    def __init__(self, workers: int):
        self.workers = self.slots = max(1, workers)
        self._pending: dict[int, Future] = {}
        self._expected: dict[int, int] = {}  # unit number -> board pairs its task reported
        self._received: dict[int, int] = {}
        self._tables: dict[int, int] = {}  # unit number -> tables played whose board pairs have not come
        self._errors: list[str] = []
        self._units: Dispatcher | None = None
        self._stopping = False
        self._closed = False
        self._broken = False  # a worker process died: what it had yet to send will never come

    # subclasses: self._pool, self._queue, self._stop, _submit(unit)
    def start(self, work: Work, units: Dispatcher) -> None:
        self._work, self._units = work, units
        self._top_up()

    def _top_up(self) -> None:
        while not self._stopping and self._units is not None and len(self._pending) < self.workers:
            unit = self._units.take()
            if unit is None:
                return
            self._received.setdefault(unit.number, 0)
            try:
                self._pending[unit.number] = self._submit(unit)
            except BrokenProcessPool:  # a worker died: what it played is stored, the rest is not started
                self._units.release(unit.number)
                self._stopping = self._broken = True
                error = "a worker process died (killed?): its unit is not finished; run again to resume"
                if error not in self._errors:
                    self._errors.append(error)
                return

    def _reap(self) -> None:
        for number, f in list(self._pending.items()):
            if not f.done():
                continue
            del self._pending[number]
            self._tables.pop(number, None)  # its block in flight, if any, was dropped
            self._units.release(number)
            if f.cancelled():
                continue
            try:
                count, error = f.result()
            except BrokenProcessPool:
                self._stopping = self._broken = True
                count, error = None, "a worker process died (killed?): its unit is not finished; run again to resume"
            except Exception as e:  # noqa: BLE001
                count, error = None, repr(e)
            if error and error not in self._errors:
                self._errors.append(error)
            if count is not None:
                self._expected[number] = count

    def results(self, timeout: float) -> list[Item]:
        out: list[Item | None] = []
        try:
            out.append(self._take(self._queue.get(timeout=timeout)))
            while True:
                out.append(self._take(self._queue.get_nowait()))
        except queue.Empty:
            pass
        self._reap()
        self._top_up()
        return [item for item in out if item is not None]

    def tables_in_flight(self) -> int:
        """Tables played in blocks whose board pairs have not come yet (each board counts at
        each of its tables): the progress inside the blocks being played."""
        return sum(self._tables.values())

    def _take(self, item) -> Item | None:
        number, mid, result = item
        if result is None:  # a table played (of a unit still running: a finished one's is counted out)
            if number in self._pending:
                self._tables[number] = self._tables.get(number, 0) + 1
            return None
        self._received[number] = self._received.get(number, 0) + 1
        if number in self._tables:
            self._tables[number] = max(0, self._tables[number] - 2)
        return mid, result

    def finished(self) -> bool:
        self._reap()
        if self._pending or (self._units is not None and not self._units.exhausted and not self._stopping):
            return False
        # every reported board pair is in (a queue delivers a moment after the task returns), or
        # the pool broke: a killed worker's queue feeder may have held board pairs its task had
        # reported (a suite run waited for them for an hour); they are played again on a rerun
        return self._broken or all(self._received.get(n, 0) >= c for n, c in self._expected.items())

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

    def __init__(self, workers: int = 1):
        super().__init__(workers)
        self._queue: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="match")
        self.description = f"{_tables(self.workers)} at once, {plural(self.workers, 'thread')}"

    def _submit(self, unit: Unit) -> Future:
        return self._pool.submit(_unit_task, self._work, unit, (self._queue, self._stop))


class ProcessExecutor(_PoolExecutor):
    """Units on worker processes of this machine (``spawn``: nothing inherited but what is sent)."""

    def __init__(self, workers: int):
        super().__init__(workers)
        ctx = multiprocessing.get_context("spawn")
        self._queue = ctx.Queue()
        self._stop = ctx.Event()
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_worker_init,
                                         initargs=(self._queue, self._stop, os.getpid()))
        self.description = (f"up to {_tables(self.workers)} at once, "
                            f"{plural(self.workers, 'worker process', 'worker processes')}")

    def _submit(self, unit: Unit) -> Future:
        return self._pool.submit(_unit_task, self._work, unit)

    def close(self) -> list[str]:
        if self._closed:
            return self._errors
        errors = super().close()
        self._queue.close()
        self._queue.join_thread()
        return errors


def _tables(n: int) -> str:
    return plural(n, "table")


def local_executor(workers: int) -> Executor:
    """``--workers N``: up to N tables played at once (like a chess tester's concurrency).

    N = 1: one table at a time, in a thread of this process.  N ≥ 2: N worker processes,
    each playing a unit one table at a time; as many run at once as there are matches
    with no entrant in common (:class:`Dispatcher`)."""
    if workers <= 1:
        return ThreadExecutor(1)
    return ProcessExecutor(workers)
