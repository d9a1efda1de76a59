"""Duplicate round robins: scheduling, playing with workers, storing, resuming.

Every pair of entrants plays the same boards (board *k* of a tournament is
``make_board(seed, k)``, or board *k* of its deal suite: :mod:`arena.play.deals`), each at two tables with seats swapped and table 2's
suits renamed by :func:`arena.play.schedule.suit_permutation` (RULES.md §8).  A
match (one pair: the boards of it still to play) is a unit of work played by one
referee with its own bot processes, on an executor (:mod:`arena.play.executors`:
a thread here, worker processes, or a Dask cluster); each finished board pair
comes back to the single writer (this thread), which stores it in one
transaction per batch.  A rerun plays only what is missing: new pairs after new
entrants, the rest of a match after an interruption (the litige pot at each
table and the entrants' fault counts are carried on from the stored boards).
A match is never cut into runs played at once: an entrant's forfeit of the rest
of a match depends on its faults at every earlier block, so results would then
depend on the cut (and on the number of workers).  A match is played in blocks of
boards, one table at a time (:mod:`referee.match`), and no entrant plays two
matches at once (:class:`arena.play.executors.Dispatcher`): an entrant's processes never
hold both sides of one board at the same time (issue 19).

Nothing is made up front in proportion to the board pairs: units are made one
at a time as workers free up, boards as they are played, and board pairs are
forgotten once stored (memory is flat in the length of a match and of a
tournament).
"""

from __future__ import annotations

import shlex
import threading
from pathlib import Path
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from referee.botproc import Limits
from referee.manifest import load_manifest
from referee.match import BLOCK_BOARDS, Entrant, MatchConfig
from referee.records import BoardPairResult
from referee.rules import Ruleset, make_board
from referee.rules.ruleset import TieRule

from .executors import Dispatcher, Executor, Unit, Work, local_executor
from .malloc import trim_memory
from .schedule import match_order
from ..store import RunLock, Store, match_id


#: Finished board pairs are written together at most this often, seconds (each batch one transaction).
FLUSH_S = 0.5
#: The writer gives freed memory back to the system this often, seconds (:func:`arena.play.malloc.trim_memory`).
TRIM_S = 5.0


class TournamentError(ValueError):
    """A tournament request that cannot be carried out; the message says what to do."""


@dataclass
class RunSummary:
    """What a run did: board pairs played now, already stored, and whether it was interrupted."""

    played: int = 0
    already: int = 0
    total: int = 0
    interrupted: bool = False
    faults: int = 0
    errors: list[str] = field(default_factory=list)
    where: str = ""
    """where units were played, in words (``Executor.description``)"""


def entrants_of(store: Store, tournament: str) -> list[Entrant]:
    """The tournament's entrants, in order, each started from its frozen copy."""
    out = []
    for name, version in store.entrants(tournament):
        bot = store.get_bot(name, version)
        manifest = load_manifest(bot.path)
        out.append(Entrant(key=manifest.key, manifest=manifest, content_hash=bot.content_hash))
    return out


def units(store: Store, tournament: str, entrants: list[Entrant], board_count: int, ruleset: Ruleset,
          block_boards: int, gauntlet: str | None = None, replayed: set | None = None) -> Iterator[Unit]:
    """The units of work of a run, made one at a time: each match's boards from the first
    block not wholly stored (its stored boards are played again and skipped by the store:
    a block is played whole, :mod:`referee.match`), in the schedule's order of matches
    (:func:`arena.play.schedule.match_order`), with the litige pots and the entrants' fault
    counts the boards before it leave.  Results do not depend on where or when a unit is
    played: bots reseed per deal.  A match's ``matches`` row is created when its unit is made.
    With ``gauntlet`` (an entrant key) only the matches of that entrant are played.
    ``replayed`` (if given) gets the ``(match_id, board)`` of stored boards played again.
    """
    by_key = {e.key: e for e in entrants}
    stored = store.stored_counts(tournament)
    pairs = [(a, b) for a, b in match_order([e.key for e in entrants])
             if stored.get(match_id(tournament, a, b), 0) < board_count and (gauntlet is None or gauntlet in (a, b))]
    litige = ruleset.tie is TieRule.LITIGE
    for number, (a, b) in enumerate(pairs):
        mid = match_id(tournament, a, b)
        done = store.stored_boards(mid) if stored.get(mid) else set()
        first = min(k for k in range(board_count) if k not in done)
        first -= first % block_boards
        todo = tuple(range(first, board_count))
        if replayed is not None:
            replayed.update((mid, k) for k in done if k >= first)
        store.add_match(tournament, mid, a, b, ruleset.name)
        pots = (store.last_pot(mid, 1, before=first), store.last_pot(mid, 2, before=first)) if litige and first else (0, 0)
        counted = store.faults_before(mid, first) if first else {}
        yield Unit(number, mid, by_key[a], by_key[b], todo, pots, (counted.get(a, 0), counted.get(b, 0)))


def _log_rows(items: list[tuple[str, BoardPairResult]], root: Path) -> list[tuple[str, int, int, int, str, str]]:
    """The ``bot_logs`` rows of some board pairs: each kept log's path relative to ``root``
    (the ``--logs`` folder; a path outside it is left out)."""
    rows = []
    for mid, r in items:
        for t in r.tables:
            for seat, path in t.logs:
                try:
                    rows.append((mid, r.board, t.table, seat, str(root), str(Path(path).relative_to(root))))
                except ValueError:
                    continue
    return rows


def run(
    store: Store,
    tournament: str,
    *,
    workers: int = 1,
    decision_ms: int = 1000,
    max_faults: int = 3,
    on_progress: Callable[[int, int], None] | None = None,
    stop: threading.Event | None = None,
    limits: Limits | None = None,
    executor: Executor | None = None,
    exclusive_boards: bool = False,
    block_boards: int = BLOCK_BOARDS,
    time_bank_ms: int = 0,
    time_increment_ms: int = 0,
    log_dir: Path | None = None,
    on_stored: Callable[[list[tuple[str, BoardPairResult]]], None] | None = None,
    quote_output: bool = True,
    on_tables: Callable[[int], None] | None = None,
) -> RunSummary:
    """Play every missing board pair of ``tournament``; store each as it finishes.

    Args:
        workers: tables played at once: 1 in a thread of this process, more in ⌈N/2⌉
            worker processes, two tables each (:func:`arena.play.executors.local_executor`).
        on_progress: called as ``on_progress(done, total)`` after each stored batch.
        stop: set it (e.g. on Ctrl-C) to stop at once: the blocks in flight are dropped
            (a rerun plays them again).
        limits: the bots' sandbox (default :class:`referee.botproc.Limits`).
        executor: where to play (default ``local_executor(workers)``; a
            :class:`arena.play.cluster.DaskExecutor` for a cluster); closed here.
        exclusive_boards: one match at a time, so that no two tables of one board are ever
            played at once, whoever sits there (finals: against collusion between entrants);
            the results are the same.
        block_boards: boards of a block (:class:`referee.match.MatchConfig`): the same for
            every run of a tournament (it decides when the other table's faults count).
        time_bank_ms, time_increment_ms: each bot process's time bank, ms, spent when a
            decision takes longer than ``decision_ms``, and what each answer adds to it
            (:class:`referee.match.MatchConfig`); fixed with the tournament.
        log_dir: keep each bot process's output in this folder, a folder per match
            (:func:`arena.play.executors.match_log_dir`); None: discarded.
        on_stored: called with each batch of ``(match_id, board pair)`` just stored (in the
            writer's thread, in the order stored), e.g. to write them out as they come.
        quote_output: a fault quotes the end of the bot's output (off for a competition's
            final: faults are public, the output its owner's; :class:`referee.match.MatchConfig`).
        on_tables: called as ``on_tables(n)`` when ``n`` changes: the tables played and not
            yet stored (each board at each table, in the blocks in flight and the next
            batch), the progress inside a block, which a 100-board block of slow bots keeps
            for minutes (local executors only); also written in the run lock
            (``tables_in_flight``) for the web's live page.

    A gauntlet (the tournament's ``gauntlet`` entrant) plays only that entrant's matches.

    The run holds the database's :class:`~arena.store.RunLock` throughout, and
    the database file only while it uses it (:meth:`Store.release` after each
    batch and each new unit), so reports can read it meanwhile.

    Raises:
        TournamentError: unknown tournament or fewer than two entrants.
        StoreError: another arena is running a tournament in this database.
    """
    lock = RunLock(store.path) if store.path is not None else None
    if lock is not None:
        try:
            lock.acquire(tournament)
        except BaseException:
            if executor is not None:
                executor.close()
            raise
    try:
        config = dict(decision_ms=decision_ms, max_faults=max_faults, block_boards=block_boards,
                      time_bank_ms=time_bank_ms, time_increment_ms=time_increment_ms, log_dir=log_dir,
                      quote_output=quote_output)

        if lock is not None:  # for the live page's ETA, reckoned as the CLI's: this run's own speed
            t = store.get_tournament(tournament)
            lock.note(board_pairs_at_start=t.board_pairs if t is not None else 0, started_unix=time.time())

        def tables_played(n: int) -> None:  # said in the run lock too, for the live page
            if lock is not None:
                lock.note(tables_in_flight=n)
            if on_tables is not None:
                on_tables(n)

        return _run(store, tournament, workers=workers, config=config, on_progress=on_progress, stop=stop,
                    limits=limits, executor=executor, exclusive_boards=exclusive_boards, on_stored=on_stored,
                    on_tables=tables_played)
    except BaseException:
        if executor is not None:  # refused before it started (closing is idempotent)
            executor.close()
        raise
    finally:
        store.release()
        if lock is not None:
            lock.release()


def _run(store: Store, tournament: str, *, workers: int, config: dict,
         on_progress: Callable[[int, int], None] | None, stop: threading.Event | None, limits: Limits | None,
         executor: Executor | None, exclusive_boards: bool,
         on_stored: Callable[[list[tuple[str, BoardPairResult]]], None] | None,
         on_tables: Callable[[int], None] | None = None) -> RunSummary:
    t = store.get_tournament(tournament)
    if t is None:
        raise TournamentError(f"no tournament {tournament!r}: create it with `arena tournament run {shlex.quote(tournament)} --bots DIR ...`")
    ruleset: Ruleset = t.resolved_ruleset()
    entrants = entrants_of(store, tournament)
    if len(entrants) < 2:
        raise TournamentError(
            f"tournament {tournament!r} has {len(entrants)} entrant(s): add bots with --bots DIR or `arena bots submit DIR --tournament {shlex.quote(tournament)}`")
    seed, n_boards = t.seed, t.boards_per_pair
    n_pairs = t.pairs
    already = sum(store.stored_counts(tournament).values())
    summary = RunSummary(already=already, total=n_pairs * n_boards)
    if already >= summary.total:
        store.set_tournament_status(tournament, "complete")
        if executor is not None:
            executor.close()
        return summary
    store.set_tournament_status(tournament, "running")
    suite = None
    if store.deal_suite(tournament) is not None:  # a deal suite's boards, stored when it was created
        suite = tuple(store.boards(tournament))
        if [b.number for b in suite] != list(range(n_boards)):
            raise TournamentError(f"tournament {tournament!r} plays a deal suite, but {len(suite)} of its "
                                  f"{n_boards} boards are stored: delete it and create it again with --deals")
    else:
        store.add_boards(tournament, (make_board(seed, k, ruleset.seats) for k in range(n_boards)))
    store.release()  # DuckDB holds the boards just written until the connection closes (issue 14 item 3)
    stop = stop or threading.Event()
    block_boards = config["block_boards"]
    log_root = config["log_dir"]
    config = MatchConfig(ruleset=ruleset, seed=seed, limits=limits or Limits(), **config)
    executor = executor or local_executor(workers)
    summary.where = executor.description
    done_count = summary.already
    batch: dict[tuple[str, int], tuple[str, BoardPairResult]] = {}
    replayed: set[tuple[str, int]] = set()  # stored board pairs played again (a resumed block): not new
    last_write = time.monotonic()
    next_trim = last_write + TRIM_S
    stopping = False
    in_flight = 0  # tables played in blocks in flight (on_tables)

    def flush() -> None:
        nonlocal batch, done_count, last_write, in_flight
        if batch:
            items = list(batch.values())
            summary.played += store.write_board_pairs(tournament, items)
            new = [(mid, r) for mid, r in items if (mid, r.board) not in replayed]
            if log_root is not None:  # the stored board pairs' kept logs: the first run's of a replayed one
                store.add_bot_logs(_log_rows(new, log_root))
            if on_stored:
                on_stored(new)
            summary.faults += sum(len(r.faults) for _, r in items)
            done_count = summary.already + summary.played
            batch = {}
            if on_tables is not None and in_flight:  # the batch's tables are stored now
                in_flight = max(0, in_flight - 2 * len(items))
                on_tables(in_flight)
            if on_progress:
                on_progress(done_count, summary.total)
        last_write = time.monotonic()

    try:
        executor.start(Work(config, n_boards, suite),
                       Dispatcher(units(store, tournament, entrants, n_boards, ruleset, block_boards, t.gauntlet, replayed),
                                  exclusive_boards=exclusive_boards))
        while True:
            try:
                if stop.is_set() and not stopping:
                    stopping = True
                    executor.stop()
                for mid, r in executor.results(0.05):
                    batch[(mid, r.board)] = (mid, r)  # a board pair delivered twice is stored once
                if on_tables is not None and (counter := getattr(executor, "tables_in_flight", None)):
                    if (n := counter() + 2 * len(batch)) != in_flight:  # the batch to store: its tables
                        in_flight = n
                        on_tables(n)
                finished = executor.finished()
                # one transaction per batch (whole board pairs only), at most every FLUSH_S seconds
                if finished or time.monotonic() - last_write >= FLUSH_S:
                    flush()
                store.release()  # readers may open the file between batches (a no-op when not held)
                if time.monotonic() >= next_trim:
                    trim_memory()
                    next_trim = time.monotonic() + TRIM_S
                if finished:
                    break
            except KeyboardInterrupt:  # not through the CLI's handler: stop after the pairs in flight
                stop.set()
    finally:
        summary.errors.extend(executor.close())
        try:
            for mid, r in executor.results(0):  # anything that came in while closing
                batch[(mid, r.board)] = (mid, r)
        except Exception:  # noqa: BLE001 - a closed queue: nothing more came
            pass
        flush()
    if stop.is_set():
        summary.interrupted = True
    complete = summary.already + summary.played >= summary.total
    store.set_tournament_status(tournament, "complete" if complete else "interrupted")
    return summary
