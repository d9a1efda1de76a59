"""Playing a duplicate match between two entrants (RULES.md §8).

Every board is played at two tables: at table 1 entrant A holds the NS seats
(two players: seat 0) and B the EW seats; at table 2 they swap, and the board's
suits are renamed by the board's permutation.  Each seat of each table is its
own bot process (partners never share one; a process never plays both tables
of a board).  Every decision call has a deadline; every answer is validated
against the legal actions.  A fault — timeout, crash, lost connection,
malformed, wrong-kind or illegal answer, or any answer that cannot be read —
never stops the match: the referee plays the fallback (the first legal action,
in the engine's order), records the fault, restarts a bot that timed out or
died, and the faulting entrant forfeits the board.  After ``max_faults`` faults
an entrant forfeits the rest of the match (its seats then play the fallback
without being asked).

**One table at a time, in blocks (issue 19 item 1).**  The boards of a match are
played in blocks of ``config.block_boards`` boards (block *k*: board numbers
``k·B … k·B + B − 1``): every board of the block at one table, then every board
of it at the other.  Only one table's bot processes are alive at any moment: the
processes of a table are stopped before the other table's are started, so an
entrant's process that holds one side's cards of a board never runs beside its
process holding the other side's cards of that board (a table-1 process of
board *k* cannot pass its hand to the table-2 process, where it is an
opponent's, through any channel that needs both alive: kernel counters, timing,
the CPU).  The table played last in a block is played first in the next, with
its processes kept: a match of *n* blocks starts *n* + 1 sets of processes.  A
table counts the faults of earlier blocks (both tables) and its own; the other
table's faults of the same block count from the next block: the results do not
depend on which table of a block is played first, nor on where or when a block
is played.

Decisions are asked over ``grpc.aio`` (:meth:`referee.botproc.BotClient.decide_async`)
on the match's own event loop.

**Forced moves tell nothing (issue 19 item 4).**  A decision with exactly one
legal action is played by the referee without a call (its time is recorded as
0 ms), after a pause drawn from that seat's own recent answer times: the time
before another bot's next request does not show whether a seat was asked.  A
seat's last card needs no pause: every seat knows it is forced.  The decisions the
engine skips are paused for alike: a seat with nothing to declare, and the seats not
holding the seven of trumps when the trump-7 exchange is offered (red team 40).  The
pause is drawn from the seat's answers at the same point of the deal
(:func:`decision_point`).

Bots are told nothing that contains or derives invertibly from the match's seed
(issue 9): their match id, RNG seeds and deal numbers are HMACs keyed by it
(:mod:`referee.secret`).
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from belote_arena_sdk.proto import bot_pb2 as pb
from referee.rules import Board, DealState, Phase, Ruleset, observe, relabel
from referee.rules.game import BoardMatchTable
from referee.rules.record import DealRecord

from . import secret, wire
from .botproc import BotClient, BotStartError, Limits
from .manifest import Manifest
from .records import BoardPairResult, Decision, Fault, FaultKind, TableResult, printable

IDENTITY = (0, 1, 2, 3)
#: Boards of a block (module docstring): a tournament's matches are played in blocks of this many.
BLOCK_BOARDS = 100
#: Answer times (ms) of a seat's bot from which a forced move's pause is drawn: its last this many.
RECENT_ANSWERS = 32
#: Starts of a bot process tried before a slow start is charged as a fault (issue 20 item 7).
START_ATTEMPTS = 3
#: Seconds waited before the second start of a slow bot; doubled before each further one.
START_BACKOFF_S = 1.0


def log_name(entrant_key: str) -> str:
    """An entrant's name as it begins the file names of its kept output (``MatchConfig.log_dir``:
    ``<name>-table<T>-seat<S>-<n>.log``): its key with every character but letters, digits and
    ``.@#+-`` replaced by ``_``."""
    return re.sub(r"[^\w.@#+-]", "_", entrant_key)

@dataclass(frozen=True)
class Entrant:
    """One side of a match: a manifest (started locally) or a ``host:port`` endpoint."""

    key: str
    manifest: Manifest | None = None
    endpoint: str | None = None
    content_hash: str | None = None
    """a frozen copy's registered hash: checked before every start of the bot (None: not checked)"""


@dataclass
class MatchConfig:
    """How a match is played.

    Attributes:
        ruleset: the rule system.
        decision_ms: deadline of one decision call, milliseconds (default 1,000).
        time_bank_ms: extra milliseconds per bot process per match, spent when a
            decision takes longer than ``decision_ms`` (0 = none).
        time_increment_ms: milliseconds added to the bank after each answer (a chess
            clock's increment; 0 = none).
        max_faults: faults after which an entrant forfeits the rest of the match.
        startup_s: seconds a bot has to start and listen (each start).
        start_attempts: starts of a bot process tried (≥ 1) when it was alive but did not
            listen or accept a connection within ``startup_s`` (a slow start, or an overloaded
            machine), :data:`START_BACKOFF_S` seconds apart, doubled each time, before a
            ``start`` fault is charged; a bot that exits or crashes at start-up is charged at once.
        seed: the match's secret seed (in a tournament, the tournament seed). Bots never
            see it: their RNG seeds, the match id and the deal numbers they are told are
            HMACs under :func:`referee.secret.bot_key` of it.
        limits: resource limits of each bot process.
        log_dir: a folder where each bot process's output (stdout and stderr, at most the
            sandbox's file-size limit) is kept once it stops, as
            ``<entrant>-table<T>-seat<S>-<n>.log`` (``n``: 0, then 1, … after restarts and
            at every new set of processes: module docstring); None: discarded.
        block_boards: boards of a block (≥ 1): each block is played at one table, then at
            the other, with one table's processes alive at a time (module docstring). The
            forfeit rule counts the other table's faults from the next block, so a
            tournament keeps its block size for all its matches.
        quote_output: a fault at a bot's start quotes the end of its output (False: it says
            only what happened, for faults shown to all while the output is its owner's).
    """

    ruleset: Ruleset
    decision_ms: int = 1000
    time_bank_ms: int = 0
    time_increment_ms: int = 0
    max_faults: int = 3
    startup_s: float = 10.0
    start_attempts: int = START_ATTEMPTS
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    log_dir: Path | None = None
    block_boards: int = BLOCK_BOARDS
    quote_output: bool = True

    @property
    def key(self) -> bytes:
        """The key of everything bots are told about the match (:func:`referee.secret.bot_key`)."""
        return secret.bot_key(self.seed)


class _Seat:
    """A seat's bot at one table, restarted after a timeout or a crash."""

    def __init__(self, entrant: Entrant, table: int, seat: int, config: MatchConfig, match_id: str, key: bytes):
        self.entrant, self.table, self.seat, self.config, self.match_id = entrant, table, seat, config, match_id
        self.key = key
        self.generation = 0
        self.client: BotClient | None = None
        self.starting: BotClient | None = None
        self.failed_start: str | None = None  # a start before the first board failed: its fault is due
        self.bank_ms = float(config.time_bank_ms)
        self.start_error: str | None = None
        self.cancelled = threading.Event()  # set when the match closes: no more starts are tried
        # its bot's thaws and answers, ms: at each point of a deal (:func:`decision_point`), and all
        self.recent_ms: dict[tuple, deque[float]] = {}
        self.recent_any: deque[float] = deque(maxlen=RECENT_ANSWERS)
        self.board_logs: list[str] = []  # the kept logs of the processes that held the seat this board

    def ensure(self, start_request: pb.StartMatchRequest, loop: asyncio.AbstractEventLoop | None = None) -> BotClient | None:
        """The seat's bot process, started (and told ``StartMatch``) if it has none alive; None
        when it could not be started (``start_error`` says why, in words, for the fault).

        A start that failed only by being slow (:attr:`referee.botproc.BotStartError.slow`, or a
        ``StartMatch`` past its deadline with the process alive) is tried again, up to
        ``config.start_attempts`` starts, after 1 s, 2 s, … (:data:`START_BACKOFF_S`): a loaded
        machine is not the bot's fault.  A bot that exits or crashes at start-up is not retried.
        ``loop``: the match's event loop, where the decision channel is dialled before
        ``StartMatch`` (:meth:`referee.botproc.BotClient.start_match`)."""
        if self.client is not None and self.client.alive():
            return self.client
        self.close()
        attempts = max(1, self.config.start_attempts)
        wait_s = START_BACKOFF_S
        for attempt in range(1, attempts + 1):
            client, slow = self._start_once(start_request, loop)
            if client is not None:
                self.client = client
                return client
            if not slow or attempt == attempts or self.cancelled.wait(wait_s):
                if slow and attempt > 1:
                    self.start_error = f"{self.start_error} ({attempt} starts, {_waits(attempt - 1)} apart)"
                return None
            wait_s *= 2
        return None

    def _start_once(self, start_request: pb.StartMatchRequest,
                    loop: asyncio.AbstractEventLoop | None = None) -> tuple[BotClient | None, bool]:
        """One start of the seat's bot: ``(client, False)``, or ``(None, slow)`` with
        ``start_error`` set (``slow``: the process was alive but not ready in time)."""
        client = BotClient(
            self.entrant.manifest, self.entrant.endpoint,
            # one seed for every process of a seat: bots reseed at each deal from (seed, deal number), so
            # a deal's play does not depend on when its process started (blocks, restarts, a resume)
            seed=secret.process_seed(self.key, self.match_id, self.table, self.seat, 0),
            startup_s=self.config.startup_s, limits=self.config.limits, content_hash=self.entrant.content_hash,
        )
        client.quote_output = self.config.quote_output
        if self.config.log_dir is not None:
            stem = f"{log_name(self.entrant.key)}-table{self.table}-seat{self.seat}-{self.generation}"
            client.keep_log = self.config.log_dir / f"{stem}.log"
            self.board_logs.append(str(client.keep_log))
        self.generation += 1
        self.starting = client  # the match's close() stops it, from another thread, if it must
        try:
            client.start()
            client.start_match(start_request, loop=loop)
        except BotStartError as e:
            client.close()
            self.start_error = str(e)
            return None, e.slow and not self.cancelled.is_set()
        except grpc.RpcError as e:
            slow = e.code() == grpc.StatusCode.DEADLINE_EXCEEDED and client.alive() and not self.cancelled.is_set()
            client.close()
            self.start_error = (f"the bot did not accept its decision channel and answer StartMatch within 2 s each: "
                                f"a slow start or an overloaded machine"
                                if slow else e.details() if client.quote_output
                                else f"StartMatch failed ({e.code().name}; its message is in its owner's log)")
            return None, slow
        except BaseException:  # e.g. KeyboardInterrupt while it starts: the seat does not hold it yet
            client.close()
            raise
        finally:
            self.starting = None
        return client, False

    def close(self) -> None:
        """The seat's process killed (SIGKILL, no grace: when its table's processes end must not
        be the bot's to choose; :meth:`referee.botproc.BotClient.end_match`)."""
        if self.client is not None:
            self.client.close(0)
            self.client = None

    async def aclose(self, threads: ThreadPoolExecutor) -> None:
        """:meth:`close` from the match's event loop: its ``grpc.aio`` channel closed there first,
        then the process killed on one of ``threads`` (up to 2 s for the kernel to end it), so
        the other table's decisions are not held up."""
        client = self.client
        if client is not None:
            await client.aclose_aio()
            self.client = None
            await asyncio.get_running_loop().run_in_executor(threads, client.close, 0)


def _waits(n: int) -> str:
    """The back-off waits before the 2nd … (n+1)th start, in words: ``"1 s"``, ``"1 s then 2 s"``."""
    return " then ".join(f"{START_BACKOFF_S * 2 ** i:g} s" for i in range(n))


def _exited(client: BotClient, wait_s: float = 0.25) -> bool:
    """Whether the bot's process has exited, allowing it ``wait_s`` seconds to finish:
    the kernel closes a dying process's socket (the call fails UNAVAILABLE) a moment
    before the exit can be waited for, so an immediate check calls a crash a lost connection."""
    if client.process is None:
        return False
    try:
        client.process.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        return False
    return True


def _crash_detail(client: BotClient, when: str = "") -> str:
    tail = client.log_tail(300) if client.quote_output else ""
    return f"the bot process {client.exit_description()}{when}" + (f"; its last output: {tail}" if tail else "")


def fault_from_rpc(err: grpc.RpcError, client: BotClient, deadline: str = "the deadline") -> tuple[str, str]:
    """The fault (kind, detail in words) of a decision call that failed with ``err``: a timeout
    (its detail names ``deadline``, e.g. ``"1,000 ms (--decision-ms 1000 + time bank 0 ms)"``),
    a crash (the process is gone), an answer too large, the bot's own error status, or a
    connection fault.  May wait up to 0.25 s for the process's exit (call it off the event loop)."""
    code = err.code()
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return FaultKind.TIMEOUT, f"no answer within {deadline}"
    if not client.alive() or (code == grpc.StatusCode.UNAVAILABLE and _exited(client)):
        return FaultKind.CRASH, _crash_detail(client)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return FaultKind.MALFORMED, f"answer too large: {err.details()}"
    if code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN):
        # the detail is the bot's own message (the kind's words already say it answered with an error)
        if not client.quote_output:  # its message is the bot's own text (an exception's): its owner's alone
            return FaultKind.BOT_ERROR, "its message is in its owner's log"
        return FaultKind.BOT_ERROR, err.details() or client.log_tail(300) or "(no message)"
    return FaultKind.CONNECTION, f"{code.name}: {err.details()}"


def _quiet_interrupts(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """The match loop's exception handler: a table task left with a KeyboardInterrupt (Ctrl-C
    during a decision: the match is closing) is no error to report; anything else is."""
    if isinstance(context.get("exception"), (KeyboardInterrupt, asyncio.CancelledError)):
        return
    loop.default_exception_handler(context)


class Stopped(Exception):
    """Raised by :meth:`DuplicateMatch.play_block` when asked to stop before the block was
    played: its board pairs are not returned (a resumed match plays the block again)."""


#: Faults after which the seat's bot process is stopped and a new one started for its next decision.
RESTART_AFTER = {FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.CONNECTION}


class DuplicateMatch:
    """A duplicate match between entrants ``a`` and ``b`` (RULES.md §8), played in blocks
    with one table's bot processes alive at a time (module docstring).

    Use as a context manager (bot processes are always stopped on exit), then
    call :meth:`play_block` for each block of boards in order (or :meth:`play_board`
    for a block of one board).

    Bots are never told ``match_id`` or ``config.seed``: they get an opaque match id,
    RNG seeds and deal numbers derived from both by :mod:`referee.secret`.

    Args:
        match_id: a name for the match (it keys the bots' seeds, match id and deal numbers).
        a, b: the entrants.
        config: how to play.
        board_count: the number of boards of the match (told to the bots).
        pots: the litige pot carried into the first board at table 1 and 2 (resuming).
        faults: A's and B's faults at the match's earlier boards (resuming), towards ``max_faults``.
    """

    def __init__(self, match_id: str, a: Entrant, b: Entrant, config: MatchConfig, *,
                 board_count: int, pots: tuple[int, int] = (0, 0), faults: tuple[int, int] = (0, 0)):
        self.match_id, self.a, self.b, self.config = match_id, a, b, config
        self.key = config.key
        self.public_id = secret.public_match_id(self.key, match_id)  # the match id bots are told
        n = config.ruleset.seats
        self.seats: dict[tuple[int, int], _Seat] = {}
        for table in (1, 2):
            ns, ew = (a, b) if table == 1 else (b, a)
            for seat in range(n):
                self.seats[(table, seat)] = _Seat(ns if seat % 2 == 0 else ew, table, seat, config, match_id, self.key)
        # running scores and pots only: each board pair goes to the caller as it is played
        self.tables = {t: BoardMatchTable(config.ruleset, keep_outcomes=False) for t in (1, 2)}
        self.tables[1].pot, self.tables[2].pot = pots
        self.faults = {a.key: faults[0], b.key: faults[1]}
        self.options = wire.ruleset_options_pb(config.ruleset, board_count=board_count)
        self.live_table: int | None = None
        """The table whose bot processes may be alive (None: none started yet)."""
        self._pause_rng = random.Random()  # forced moves' pauses: timing only, never a result
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(_quiet_interrupts)
        # bots start on these threads, alive until the match is closed (a bot's death signal is
        # tied to the thread that started it: referee.launch), so a start never stalls the loop
        self._starter = ThreadPoolExecutor(max_workers=n, thread_name_prefix="bot-start")

    def __enter__(self) -> DuplicateMatch:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Tell every bot the match ended, stop its process; safe to call twice."""
        if self._loop.is_closed():
            return
        try:
            for s in self.seats.values():  # a bot still starting (after an interrupt) gives up at once
                s.cancelled.set()
                if s.starting is not None:
                    s.starting.close()
            pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            for s in self.seats.values():
                if s.client is not None:
                    self._end_match(s)
                    self._loop.run_until_complete(s.client.aclose_aio())
        finally:
            for s in self.seats.values():
                s.close()
            self._starter.shutdown(wait=True, cancel_futures=True)
            self._loop.close()

    def _end_match(self, seat: _Seat) -> None:
        try:
            seat.client.end_match(pb.EndMatchRequest(match_id=self.public_id, scores=self.tables[seat.table].scores))
        except grpc.RpcError:
            pass

    def forfeited(self, key: str) -> bool:
        """True once ``key`` has reached ``max_faults`` faults in this match (counted at block ends)."""
        return self.faults[key] >= self.config.max_faults

    def play_board(self, board: Board, permutation: Sequence[int] = IDENTITY) -> BoardPairResult:
        """Play ``board`` at both tables (table 2 with suits renamed by ``permutation``): a block of one."""
        return self.play_block([board], [permutation])[0]

    def play_block(self, boards: Sequence[Board], permutations: Sequence[Sequence[int]], *,
                   stopped: Callable[[], bool] = lambda: False,
                   on_table: Callable[[TableResult], None] | None = None) -> list[BoardPairResult]:
        """Play a block: every board of ``boards`` (ascending) at one table, then at the other
        (table 2's suits renamed by ``permutations[i]`` for ``boards[i]``); return their board
        pairs in order.  The table whose processes are alive is played first, the other's are
        started only once they have stopped.  ``on_table`` is called with each table's result
        as it is played (e.g. for a progress display).

        Raises:
            Stopped: ``stopped()`` was true before a board of a table (checked before each):
                the block's board pairs are dropped (and the match is not to be played on).
        """
        return self._loop.run_until_complete(
            self._play_block(list(boards), [tuple(p) for p in permutations], stopped, on_table))

    async def _play_block(self, boards: list[Board], permutations: list[tuple[int, ...]],
                          stopped: Callable[[], bool],
                          on_table: Callable[[TableResult], None] | None) -> list[BoardPairResult]:
        before = dict(self.faults)
        first = self.live_table or 1
        played: dict[int, list[tuple[TableResult, set[str]]]] = {}
        for table in (first, 3 - first):
            if stopped():
                raise Stopped
            await self._switch_to(table, before)
            counted = dict(before)  # this table's view: earlier blocks and its own faults
            played[table] = []
            for board, perm in zip(boards, permutations):
                if stopped():
                    raise Stopped
                played[table].append(await self._play_table(table, board, IDENTITY if table == 1 else perm, counted))
                if on_table is not None:
                    on_table(played[table][-1][0])
        out = []
        for (t1, barred1), (t2, barred2) in zip(played[1], played[2]):
            for f in t1.faults + t2.faults:
                self.faults[f.entrant] += 1
            faulted = {f.entrant for f in t1.faults + t2.faults} | barred1 | barred2
            out.append(BoardPairResult(board=t1.board, a=self.a.key, b=self.b.key, tables=(t1, t2),
                                       forfeit_a=self.a.key in faulted, forfeit_b=self.b.key in faulted))
        return out

    async def _switch_to(self, table: int, before: dict[str, int]) -> None:
        """Make ``table`` the live one: every process of the other table stopped (and waited
        for), then this table's seats started at once on the starter threads.  A seat that
        fails to start keeps its error for its first decision (a start fault there); an
        entrant that has forfeited the match gets no process."""
        if self.live_table == table:
            return

        async def stop(s: _Seat) -> None:
            await self._loop.run_in_executor(self._starter, self._end_match, s)
            await s.aclose(self._starter)

        await asyncio.gather(*(stop(s) for (t, _), s in self.seats.items() if t != table and s.client is not None))
        self.live_table = table
        todo = [s for (t, _), s in self.seats.items()
                if t == table and s.client is None and before[s.entrant.key] < self.config.max_faults]
        if not todo:
            return
        clients = await asyncio.gather(*(
            self._loop.run_in_executor(self._starter, s.ensure, self._start_request(s), self._loop) for s in todo))
        for s, client in zip(todo, clients):
            s.failed_start = None if client is not None else (s.start_error or "the bot did not start")

    def _start_request(self, seat: _Seat) -> pb.StartMatchRequest:
        return pb.StartMatchRequest(
            match_id=self.public_id, ruleset=self.config.ruleset.name, options=self.options, seat=seat.seat)

    async def _play_table(self, table: int, board: Board, permutation: tuple[int, ...],
                          counted: dict[str, int]) -> tuple[TableResult, set[str]]:
        """One table of a board.  ``counted``: each entrant's faults as this table sees them
        (earlier blocks, and this table's own so far), updated with this board's.  Returns the
        table's result and the entrants that had forfeited before the board (played unasked)."""
        deck = board.deck if permutation == IDENTITY else relabel(board.deck, permutation)
        bm = self.tables[table]
        state = bm.new_deal(deck, board.dealer)
        deal_number = secret.deal_number(self.key, self.match_id, table, board.number)
        decisions: list[Decision] = []
        faults: list[Fault] = []
        max_faults = self.config.max_faults
        barred = {k for k, n in counted.items() if n >= max_faults}
        exchange_asked: set[int] = set()  # seats asked about the trump-7 exchange (RULES.md §7)
        ns = self.a if table == 1 else self.b
        ew = self.b if table == 1 else self.a
        for s in (self.seats[(table, n)] for n in range(self.config.ruleset.seats)):  # the processes of this board
            s.board_logs = [str(s.client.keep_log)] if s.client is not None and s.client.keep_log is not None else (
                s.board_logs[-1:] if s.failed_start is not None else [])
        while not state.is_terminal():
            seat_no = state.to_act
            legal = state.legal_actions()
            seat = self.seats[(table, seat_no)]
            point, declared = decision_point(state), list(state.declared)
            if state.phase is Phase.EXCHANGE:
                exchange_asked.add(seat_no)
            if counted[seat.entrant.key] >= max_faults:  # forfeited: played unasked, at once
                action, ms, kind, detail = legal[0], 0.0, None, ""
            elif len(legal) == 1:  # forced: played unasked, after the pause the bot might have taken
                if len(state.hand(seat_no)) > 1:  # a last card is forced for all to see: no pause
                    await self._unasked_pause(seat, point)
                action, ms, kind, detail = legal[0], 0.0, None, ""
            else:
                action, ms, kind, detail = await self._ask(seat, state, legal, deal_number)
            if kind is not None:
                faults.append(Fault(kind, board.number, table, seat_no, seat.entrant.key, printable(detail)))
                counted[seat.entrant.key] += 1
                action = legal[0]
            decisions.append(Decision(seat_no, action.to_json(), round(ms, 3), kind))
            phase = state.phase
            state.apply(action)
            # decisions the engine skipped (a seat with nothing to declare; the trump-7 exchange,
            # asked of the seven's holder only) cost what asked ones do, as forced moves (red team 40)
            unasked = [(s, (Phase.DECLARATION, 0)) for s in range(len(declared))
                       if declared[s] is None and state.declared[s] == () and (s, phase) != (seat_no, Phase.DECLARATION)]
            if phase is not Phase.PLAY and state.phase is Phase.PLAY and state.exchange_offered():
                unasked += [(s, (Phase.EXCHANGE, 0)) for s in range(self.config.ruleset.seats) if s not in exchange_asked]
            for s, at in unasked:
                other = self.seats[(table, s)]
                if counted[other.entrant.key] < max_faults:
                    await self._unasked_pause(other, at)
        outcome = bm.finish_deal(state)
        # every action as taken, explicit empty declarations included: one row per decision
        record = DealRecord(ruleset=state.ruleset, dealer=state.dealer, deck=state.deck,
                            actions=list(state.history), pot=state.pot)
        result = TableResult(
            board=board.number, table=table, ns=ns.key, ew=ew.key, permutation=tuple(permutation),
            record=record, outcome=outcome, decisions=decisions, faults=faults,
            logs=[(n, path) for n in range(self.config.ruleset.seats) for path in self.seats[(table, n)].board_logs],
        )
        return result, barred

    async def _unasked_pause(self, seat: _Seat, point: tuple) -> None:
        """Spend the time asking the seat's bot might have taken at ``point`` of the deal
        (:func:`decision_point`): a clearing of the caches as before its turn
        (``BotClient.clearing_s``: its time, drawn from the referee's recent ones, nothing
        cleared), then a wait drawn from its own recent thaws and answers at that point (none
        there: at any point; none at all: no wait), so that whether a seat was asked does not
        show in the time before the next request to any bot (issue 19 item 4; red team 40: a
        bot thinking less as the tricks go showed its forced moves late in the deal through
        pauses drawn from all its answers)."""
        wait_s = seat.client.clearing_s(self._pause_rng) if seat.client is not None else 0.0
        recent = seat.recent_ms.get(point) or seat.recent_any
        if recent:
            wait_s += self._pause_rng.choice(recent) / 1000.0
        if wait_s:
            await asyncio.sleep(wait_s)

    async def _ask(self, seat: _Seat, state: DealState, legal: list, deal_number: int):
        """Ask a seat's bot; return (action or None, ms, fault kind or None, detail).

        Whatever the bot answers, or however its transport fails, the result is an action or
        a fault of this seat: nothing a bot sends raises here (issue 19 item 5)."""
        if seat.client is not None and not seat.client.alive():  # every death is a fault, not only one in a call
            detail = _crash_detail(seat.client, " after its last answer")
            await seat.aclose(self._starter)
            return None, 0.0, FaultKind.CRASH, detail
        client = seat.client
        if seat.failed_start is not None:  # its start with its table's other seats failed
            detail, seat.failed_start = seat.failed_start, None
            return None, 0.0, FaultKind.START, detail
        if client is None:
            client = await self._loop.run_in_executor(self._starter, seat.ensure, self._start_request(seat), self._loop)
            if client is None:
                return None, 0.0, FaultKind.START, seat.start_error or "the bot did not start"
        request = decide_request(state, legal, options=self.options, deal_number=deal_number,
                                 deadline_ms=self.config.decision_ms, time_bank_ms=int(seat.bank_ms))
        timeout_ms = self.config.decision_ms + seat.bank_ms
        t0 = time.perf_counter()
        try:
            response = await client.decide_async(request, timeout_ms / 1000.0)
        except grpc.RpcError as err:
            ms = (time.perf_counter() - t0 - client.last_thaw_s) * 1000  # thawing the bot is the referee's time
            # on a thread: telling a crash from a lost connection waits up to 0.25 s for the exit
            deadline = (f"{timeout_ms:,.0f} ms (--decision-ms {self.config.decision_ms}"
                        f" + time bank {seat.bank_ms:,.0f} ms)")
            kind, detail = await self._loop.run_in_executor(self._starter, fault_from_rpc, err, client, deadline)
            if kind in RESTART_AFTER:  # a bot that timed out may be stuck in its handler
                await seat.aclose(self._starter)
            return None, ms, kind, detail
        except Exception as err:  # noqa: BLE001 - anything else the transport raises on a bot's answer
            ms = (time.perf_counter() - t0 - client.last_thaw_s) * 1000
            await seat.aclose(self._starter)
            return None, ms, FaultKind.CONNECTION, f"the call failed: {type(err).__name__}: {err}"
        asked_s = time.perf_counter() - t0
        ms = (asked_s - client.last_thaw_s) * 1000  # thawing the bot is the referee's time
        took_ms = (asked_s - client.last_clear_s) * 1000  # the thaw and the answer
        seat.recent_any.append(took_ms)
        seat.recent_ms.setdefault(decision_point(state), deque(maxlen=RECENT_ANSWERS)).append(took_ms)
        if ms > self.config.decision_ms:
            seat.bank_ms = max(0.0, seat.bank_ms - (ms - self.config.decision_ms))
        seat.bank_ms += self.config.time_increment_ms
        action, kind, detail = judge_answer(response, state, legal)
        return action, ms, kind, detail


def decision_point(state: DealState) -> tuple:
    """Where in the deal the seat to act decides: its phase and, in the play, the trick's number
    (0-based).  A forced move's pause is drawn from the seat's answers at the same point: a bot's
    thinking time changes as the deal goes (red team 40: the expert bot, ~250 ms a bid, ~11 ms at
    the 7th trick)."""
    return (state.phase, len(state.tricks) if state.phase is Phase.PLAY else 0)


def decide_request(state: DealState, legal: list, *, options: pb.RulesetOptions, deal_number: int,
                   deadline_ms: int, time_bank_ms: int = 0) -> pb.DecideRequest:
    """The ``DecideRequest`` of the decision at ``state`` for its seat ``to_act``: its observation
    (RULES.md §9, :func:`referee.wire.observation_pb`) and ``legal`` (its legal actions, ≥ 2 when
    asked), with the deadline and time bank in milliseconds (docs/PROTOCOL.md §3)."""
    turned_suit = state.turned >> 3
    request = pb.DecideRequest(legal_actions=[wire.action_pb(a, turned_suit) for a in legal],
                               deadline_ms=deadline_ms, time_bank_ms=time_bank_ms)
    wire.observation_pb(observe(state, state.to_act), options=options, deal_number=deal_number,
                        out=request.observation)
    return request


def judge_answer(response: pb.DecideResponse | None, state: DealState, legal: list) -> tuple[object, str | None, str]:
    """Read a bot's answer to the decision at ``state``: ``(action, None, "")`` when it is one of
    ``legal``, else ``(None, kind, detail)`` with the fault's kind (:class:`FaultKind`: malformed,
    wrong-kind or illegal) and what was wrong, in words.  ``response`` None: bytes that did not
    deserialize.  Never raises on what a bot sent (issue 19 item 5)."""
    if not isinstance(response, pb.DecideResponse):  # grpc.aio gives None for bytes that do not parse
        return None, FaultKind.MALFORMED, "the answer is not a DecideResponse message (it does not deserialize)"
    turned_suit = state.turned >> 3
    rnd = state.ruleset.bidding_rounds[state.bidding_round] if state.phase is Phase.BIDDING else None
    try:
        action = wire.action_from_pb(
            response.action, state.phase, turned_suit, bool(rnd and rnd.take_turned and not rnd.take_any_suit))
    except wire.WrongKind as e:
        return None, FaultKind.WRONG_KIND, str(e)
    except (wire.MalformedAction, ValueError, KeyError, IndexError, TypeError) as e:
        return None, FaultKind.MALFORMED, str(e) or type(e).__name__
    if action not in legal:
        return None, FaultKind.ILLEGAL, f"{action} is not a legal action"
    return action, None, ""


def blocks(boards: Iterable[Board], block_boards: int) -> Iterator[list[Board]]:
    """``boards`` (ascending numbers) grouped into the match's blocks: consecutive boards whose
    numbers share ``number // block_boards``."""
    block: list[Board] = []
    for board in boards:
        if block and board.number // block_boards != block[0].number // block_boards:
            yield block
            block = []
        block.append(board)
    if block:
        yield block


def play_match(
    match_id: str,
    a: Entrant,
    b: Entrant,
    boards: Iterable[Board],
    config: MatchConfig,
    *,
    permutations: Callable[[int], Sequence[int]] = lambda board: IDENTITY,
    on_board_pair: Callable[[BoardPairResult], None] | None = None,
    pots: tuple[int, int] = (0, 0),
    board_count: int | None = None,
    keep: bool = True,
    faults: tuple[int, int] = (0, 0),
    stopped: Callable[[], bool] = lambda: False,
    on_table: Callable[[TableResult], None] | None = None,
) -> list[BoardPairResult]:
    """Play ``boards`` in order between ``a`` and ``b``, block by block
    (``config.block_boards``: module docstring); return every board pair.

    ``permutations(board_number)`` gives table 2's suit permutation;
    ``on_board_pair`` is called for each board pair once its block is played (e.g. to
    store it).  ``boards`` may be a generator (made one at a time); ``board_count`` is then
    the number told to the bots (default ``len(boards)``).  With ``keep=False`` nothing is
    kept once ``on_board_pair`` has it and an empty list is returned: memory is bounded by
    a block, whatever the length of the match.  A resumed match starts at a block's first
    board.  ``faults``: A's and B's faults at earlier boards of the match (resuming).
    Once ``stopped()`` is true (checked before each board of each table) the block in flight
    is dropped and the board pairs handed over so far are returned.  ``on_table`` sees each
    table's result as it is played (a progress display).  Bot processes are
    stopped when this returns or raises (KeyboardInterrupt included).
    """
    if board_count is None:
        board_count = len(boards)  # type: ignore[arg-type]
    results = []
    with DuplicateMatch(match_id, a, b, config, board_count=board_count, pots=pots, faults=faults) as match:
        for block in blocks(boards, config.block_boards):
            try:
                played = match.play_block(block, [permutations(board.number) for board in block],
                                          stopped=stopped, on_table=on_table)
            except Stopped:
                break
            for result in played:
                if keep:
                    results.append(result)
                if on_board_pair is not None:
                    on_board_pair(result)
    return results
