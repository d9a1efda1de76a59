"""Duplicate round robins: scheduling, playing with workers, storing, resuming.

Every pair of entrants plays the same boards (board *k* of a tournament is
``make_board(seed, k)``), each at two tables with seats swapped and table 2's
suits renamed by :func:`arena.schedule.suit_permutation` (RULES.md §8).  A
match (one pair) is played by one worker with its own bot processes; each
finished board pair goes to the single writer (this thread), which stores it
in one transaction.  A rerun plays only what is missing: new pairs after new
entrants, the rest of a match after an interruption (the litige pot at each
table is carried on from the stored boards).
"""

from __future__ import annotations

import queue
import shlex
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from referee.botproc import Limits
from referee.manifest import load_manifest
from referee.match import Entrant, MatchConfig, play_match
from referee.records import BoardPairResult
from referee.rules import Ruleset, make_board
from referee.rules.ruleset import TieRule

from .schedule import missing, schedule, suit_permutation
from .store import RunLock, Store, match_id


#: Finished board pairs are written together at most this often, seconds (each batch one transaction).
FLUSH_S = 0.5


class TournamentError(ValueError):
    """A tournament request that cannot be carried out; the message says what to do."""


class Interrupted(Exception):
    """Raised inside workers to stop a match after the current board pair."""


@dataclass
class RunSummary:
    """What a run did: board pairs played now, already stored, and whether it was interrupted."""

    played: int = 0
    already: int = 0
    total: int = 0
    interrupted: bool = False
    faults: int = 0
    errors: list[str] = field(default_factory=list)


def entrants_of(store: Store, tournament: str) -> list[Entrant]:
    """The tournament's entrants, in order, each started from its frozen copy."""
    out = []
    for name, version in store.entrants(tournament):
        bot = store.get_bot(name, version)
        manifest = load_manifest(bot.path)
        out.append(Entrant(key=manifest.key, manifest=manifest, content_hash=bot.content_hash))
    return out


def _split(matches: dict[tuple[str, str], list[int]], workers: int, ruleset: Ruleset):
    """The units of work: each match's missing boards, in order; when there are fewer
    matches than workers, each match is cut into consecutive runs of boards played by
    separate bot processes (not under a litige rule: its pot carries from board to board
    at a table, RULES.md §6.3).  Results do not depend on the cut: bots reseed per deal."""
    cuts = 1 if ruleset.tie is TieRule.LITIGE else max(1, -(-workers // max(1, len(matches))))
    for pair, boards in matches.items():
        boards = sorted(boards)
        size = -(-len(boards) // cuts)
        for i in range(0, len(boards), size):
            yield pair, boards[i:i + size]


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
) -> RunSummary:
    """Play every missing board pair of ``tournament``; store each as it finishes.

    Args:
        workers: matches, or runs of a match's boards, played at once (each plays its two
            tables in turn); a match's fault count starts again in each run and on a resume.
        on_progress: called as ``on_progress(done, total)`` after each stored board pair.
        stop: set it (e.g. on Ctrl-C) to stop after the board pairs in flight.
        limits: the bots' sandbox (default :class:`referee.botproc.Limits`).

    The run holds the database's :class:`~arena.store.RunLock` throughout, and
    the database file only while it writes (:meth:`Store.release` after each
    batch), so reports can read it meanwhile.

    Raises:
        TournamentError: unknown tournament or fewer than two entrants.
        StoreError: another arena is running a tournament in this database.
    """
    lock = RunLock(store.path) if store.path is not None else None
    if lock is not None:
        lock.acquire(tournament)
    try:
        return _run(store, tournament, workers=workers, decision_ms=decision_ms, max_faults=max_faults,
                    on_progress=on_progress, stop=stop, limits=limits)
    finally:
        store.release()
        if lock is not None:
            lock.release()


def _run(store: Store, tournament: str, *, workers: int, decision_ms: int, max_faults: int,
         on_progress: Callable[[int, int], None] | None, stop: threading.Event | None,
         limits: Limits | None) -> RunSummary:
    t = store.get_tournament(tournament)
    if t is None:
        raise TournamentError(f"no tournament {tournament!r}: create it with `arena tournament run {shlex.quote(tournament)} --bots DIR ...`")
    ruleset: Ruleset = t.resolved_ruleset()
    entrants = entrants_of(store, tournament)
    if len(entrants) < 2:
        raise TournamentError(
            f"tournament {tournament!r} has {len(entrants)} entrant(s): add bots with --bots DIR or `arena bots submit DIR --tournament {shlex.quote(tournament)}`")
    seed, n_boards = t.seed, t.boards_per_pair
    by_key = {e.key: e for e in entrants}
    jobs = schedule([e.key for e in entrants], n_boards, seed)
    todo = missing(jobs, store.done_keys(tournament))
    summary = RunSummary(already=len(jobs) - len(todo), total=len(jobs))
    if not todo:
        store.set_tournament_status(tournament, "complete")
        return summary
    store.set_tournament_status(tournament, "running")
    boards = {k: make_board(seed, k, ruleset.seats) for k in range(n_boards)}
    store.add_boards(tournament, boards.values())
    matches: dict[tuple[str, str], list[int]] = {}
    for job in todo:
        matches.setdefault((job.a, job.b), []).append(job.board)
    stop = stop or threading.Event()
    results: queue.Queue = queue.Queue()
    config = MatchConfig(ruleset=ruleset, decision_ms=decision_ms, max_faults=max_faults, seed=seed,
                         limits=limits or Limits())

    store_pots = {}  # the litige pot each match's tables carry into the first missing board
    for a, b in matches:
        mid = match_id(tournament, a, b)
        store.add_match(tournament, mid, a, b, ruleset.name)
        for table in (1, 2):
            store_pots[(mid, table)] = store.last_pot(mid, table)

    def play(pair: tuple[str, str], board_numbers: list[int]) -> None:
        a, b = pair
        mid = match_id(tournament, a, b)
        pots = (store_pots.get((mid, 1), 0), store_pots.get((mid, 2), 0))

        def hand_over(result: BoardPairResult) -> None:
            results.put((mid, result))
            if stop.is_set():
                raise Interrupted

        try:
            play_match(mid, by_key[a], by_key[b], [boards[k] for k in sorted(board_numbers)], config,
                       permutations=lambda k: suit_permutation(seed, k), on_board_pair=hand_over, pots=pots)
        except Interrupted:
            pass

    store.release()  # readers may open the file between batches
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="match")
    futures = [pool.submit(play, pair, bs) for pair, bs in _split(matches, workers, ruleset)]
    done_count = summary.already
    batch: list[tuple[str, BoardPairResult]] = []
    last_write = time.monotonic()
    try:
        while True:
            try:
                batch.append(results.get(timeout=0.05))
                finished = False
            except queue.Empty:
                finished = all(f.done() for f in futures) and results.empty()
            # one transaction per batch (whole board pairs only), at most every FLUSH_S seconds
            if batch and (finished or time.monotonic() - last_write >= FLUSH_S):
                store.write_board_pairs(tournament, batch)
                store.release()
                summary.played += len(batch)
                summary.faults += sum(len(r.faults) for _, r in batch)
                done_count += len(batch)
                batch = []
                last_write = time.monotonic()
                if on_progress:
                    on_progress(done_count, summary.total)
            if finished:
                break
    except KeyboardInterrupt:
        stop.set()
        summary.interrupted = True
        for f in futures:  # let workers finish the board pair in flight and stop their bots
            try:
                f.result()
            except Exception:  # noqa: BLE001 - reported below, never lost
                pass
        while not results.empty():
            batch.append(results.get())
        store.write_board_pairs(tournament, batch)
        summary.played += len(batch)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    for f in futures:
        if f.done() and f.exception() is not None and not isinstance(f.exception(), Interrupted):
            summary.errors.append(repr(f.exception()))
    if stop.is_set():
        summary.interrupted = True
    complete = summary.already + summary.played == summary.total
    store.set_tournament_status(tournament, "complete" if complete else "interrupted")
    return summary
