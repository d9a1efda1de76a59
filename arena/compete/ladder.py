"""The ladder: active versions play fresh blocks of boards, and are rated as the blocks land.

**Boards.** The ladder deals from a secret seed of its own, the seed of the tournament
``<competition>:ladder`` (:func:`ensure_ladder`): its commitment (SHA-256 of the seed's
digits, :func:`arena.store.seed_commitment`) is public from the start, the seed revealed when
the competition closes. The boards come in **blocks** of the policy's ``block_boards`` (B):
block k is boards ``k·B … k·B + B − 1``, with table 2's suits renamed as in every tournament
(:func:`arena.play.schedule.suit_permutation`). Each block is claimed once, in the transaction
that makes its unit (:meth:`arena.store.Store.claim_block`: the block counter), played by that
unit and never by another: its deals are public as soon as they are stored, and nobody can tune
a version to boards it could meet again.

**Units.** A unit is one block played by two versions (A the older, NS at table 1), one
match of the ladder tournament per pair (``<competition>:ladder/A~B``), played by
:func:`arena.play.executors.play_unit` as tournaments play theirs. Its board pairs are stored
in the transaction that marks it done (:meth:`arena.store.Store.write_board_pairs` with
``also``): all or none. A unit that fails for the server's reasons (an exception of the referee,
a stop, a SIGKILL) stays ``playing`` and is **replayed** on the same block by the same versions,
charging no bot (after :data:`MAX_ATTEMPTS` failures it is ``void``: its block is spent,
nobody played it); a unit whose version left the ladder meanwhile is ``void`` too.

**Who plays.** A new active version first plays its **placement gauntlet**: a block against each
older active version (:func:`arena.compete.pairing.placement_panel`: every one, or ≤ 32 spread
over the ratings), its owner's own versions included but unrated. Then
:func:`arena.compete.pairing.next_pair` gives blocks to the pairs carrying the most information,
with a floor so nobody starves; one owner's versions never meet there.

**Ratings** (:func:`standings`) are Bradley–Terry Elo over the ladder's board pairs
(:func:`arena.report.tables.rating_table`), without those between one owner's versions; a
version is *provisional* while its 95% interval is wider than :data:`PROVISIONAL_WIDTH` Elo.

**Logs.** Each version's bot output of its newest :data:`arena.compete.intake.LOGS_KEPT` units
is kept for its owner (``arena remote logs VERSION [--block N]``), and its faults are listed in
its status (:func:`version_ladder`).

**Bot failures.** A unit in which a version forfeited a board pair (a fault of its own: crash,
timeout, illegal answer, …) is a failed unit for it; after :data:`MAX_BOT_FAILURES` failed
units in a row it is ``retired``, the reason saying why (its owner reads it in ``arena remote
status``).
"""

from __future__ import annotations

import logging
import math
import shutil
import threading
import time
import traceback
from dataclasses import dataclass

from referee.manifest import load_manifest
from referee.match import Entrant, MatchConfig
from referee.records import BoardPairResult, printable
from referee.sandbox import Limits

from ..play.executors import Unit, Work, play_unit
from ..play.schedule import new_seed
from ..report.tables import rating_table
from ..store import Competition, LadderUnit, Store, StoreError, Tournament, Version, match_id
from ..store.compete import final_tournament, ladder_tournament
from .final import play_in_server
from . import challenge
from .hub import Hub
from .intake import file_logs, ladder_folder
from .pairing import Entry, next_pair, placement_panel

__all__ = ["Ladder", "MAX_ATTEMPTS", "MAX_BOT_FAILURES", "PROVISIONAL_WIDTH", "ensure_ladder", "ladder_report",
           "standings", "version_ladder"]

log = logging.getLogger("arena.compete")

#: Failed units in a row (the version forfeited board pairs in each) after which a version is retired.
MAX_BOT_FAILURES = 3
#: A version's rating is provisional while its 95% interval is wider than this, Elo.
PROVISIONAL_WIDTH = 200.0
#: Starts of one unit (failures of the server's) after which it is void (its block spent, never rated).
MAX_ATTEMPTS = 5
#: Seconds before a unit that failed for the server's reasons is started again.
RETRY_S = 10.0
#: Opponents of a placement gauntlet, at most.
PANEL = 32


def ensure_ladder(store: Store, c: Competition) -> Tournament:
    """The ladder tournament of ``c``, made with a new secret seed if it is not there yet."""
    name = ladder_tournament(c.name)
    t = store.get_tournament(name)
    if t is None:
        t = store.create_tournament(name, c.ruleset, c.options, new_seed(), c.policy["block_boards"], secret=True)
    return t


@dataclass(frozen=True)
class Standing:
    """A version's place on the ladder."""

    version: Version
    elo: float
    ci_low: float
    ci_high: float
    sd: float
    boards: int
    units: int

    @property
    def provisional(self) -> bool:
        return not (math.isfinite(self.ci_low) and math.isfinite(self.ci_high)) or \
            self.ci_high - self.ci_low > PROVISIONAL_WIDTH

    def public(self) -> dict:
        num = (lambda x: round(x, 1) if math.isfinite(x) else None)
        return {"version": self.version.id, "participant": self.version.participant, "bot": self.version.key,
                "status": self.version.status, "elo": num(self.elo), "ci_low": num(self.ci_low),
                "ci_high": num(self.ci_high), "boards": self.boards, "units": self.units,
                "provisional": self.provisional}


#: The last standings computed, by what they depend on (:func:`standings`): readers of the API
#: ask for them far more often than a unit lands.
_memo: dict[tuple, list[Standing]] = {}


def standings(store, competition: str) -> list[Standing]:
    """Every version that played on the ladder (or is active), best first (unrated last): its
    Elo over the ladder's board pairs (one owner's versions never rated against each other).
    Fitted again only when a version's status or the done units changed since the last call."""
    versions = [v for v in store.versions(competition) if v.key is not None and
                (v.status == "active" or v.status == "retired")]
    units = store.ladder_units(competition, statuses=("done",))
    key = (str(getattr(store, "path", None) or id(store)), competition, tuple((v.id, v.status) for v in versions),
           tuple(u.block for u in units))
    if key not in _memo:
        if len(_memo) >= 16:
            _memo.clear()
        _memo[key] = _standings(store, competition, versions, units)
    return _memo[key]


def _standings(store, competition: str, versions: list[Version], units: list[LadderUnit]) -> list[Standing]:
    count: dict[int, int] = {}
    for u in units:
        count[u.version_a] = count.get(u.version_a, 0) + 1
        count[u.version_b] = count.get(u.version_b, 0) + 1
    versions = [v for v in versions if v.status == "active" or count.get(v.id)]
    table = rating_table(store.board_pair_results(tournament=ladder_tournament(competition)))  # own versions' left out
    fitted = {}
    if table is not None:
        for i, r in enumerate(table.fit.ratings):
            c = table.fit.covariance[i, i]
            open_end = not (math.isfinite(r.ci_low) and math.isfinite(r.ci_high))  # a sweep: no finite σ
            fitted[r.name] = (r.elo, r.ci_low, r.ci_high, math.nan if open_end or not c >= 0 else math.sqrt(c),
                              r.games)
    nan = (math.nan, -math.inf, math.inf, math.nan, 0)
    out = [Standing(v, *fitted.get(v.key, nan), units=count.get(v.id, 0)) for v in versions]
    return sorted(out, key=lambda s: (not math.isfinite(s.elo), -s.elo if math.isfinite(s.elo) else 0, s.version.id))


def version_ladder(store, competition: str, versions: list[Version]) -> dict[int, dict]:
    """What each of ``versions`` shows its owner of the ladder, by version id: ``standing``
    (:meth:`Standing.public`, None before it played) and ``faults``, its newest 20 faults there
    (``block``, ``board``, ``table``, ``seat``, ``kind``, ``detail``; ``arena remote logs VERSION
    --block N`` shows its output in that block)."""
    c = store.get_competition(competition)
    size = c.policy["block_boards"] if c else 1
    table = {st.version.id: st for st in standings(store, competition)}
    out = {}
    for v in versions:
        st = table.get(v.id)
        played = v.key is not None and v.status != "rejected"  # a rejected one may carry another's name@version
        faults = store.faults_of(ladder_tournament(competition), v.key) if played else []
        out[v.id] = {"standing": st.public() if st is not None and st.boards else None,
                     "faults": [{"block": f["board"] // size, **{k: f[k] for k in ("board", "table", "seat", "kind",
                                                                                   "detail")}} for f in faults]}
    return out


def ladder_report(store, competition: str) -> dict:
    """The ladder as JSON (``GET /api/v1/ladder``, ``arena compete standings``): ``competition``,
    ``status``, ``ladder`` (``commitment``; ``seed`` once revealed, else None; ``blocks`` claimed,
    ``units`` by status, ``board_pairs`` stored; ``standings``, best first) and ``final``
    (:func:`arena.compete.final.final_report`; None before the competition closes)."""
    from .final import final_report  # noqa: PLC0415 - final imports nothing of this module; kept local for clarity

    c = store.get_competition(competition)
    t = store.get_tournament(ladder_tournament(competition))
    units = store.ladder_units(competition)
    by_status = {k: sum(1 for u in units if u.status == k) for k in ("playing", "done", "void")}
    return {"competition": competition, "status": c.status if c else None, "ladder": {
        "commitment": t.commitment if t else None, "seed": None if t is None or t.public_seed is None else
        str(t.public_seed), "block_boards": c.policy["block_boards"] if c else None, "blocks": len(units),
        "units": by_status, "board_pairs": t.board_pairs if t else 0,
        "standings": [st.public() for st in standings(store, competition)]},
        "final": final_report(store, competition)}


class Ladder:
    """``workers`` threads that claim ladder units and play them, one block each, while the
    competition is open, taking turns with the participants' challenges
    (:mod:`arena.compete.challenge`, a match at a time: :meth:`_loop`). :meth:`step` claims and
    plays one unit in the caller's thread (tests)."""

    def __init__(self, hub: Hub, limits: Limits, *, workers: int = 1, poll_s: float = 2.0,
                 cluster: str | None = None, security=None):
        """``cluster``: a Dask scheduler's address (``tls://HOST:PORT``, with ``security``:
        :func:`arena.play.cluster.tls_security`; ``local-tls:N`` in tests) whose workers play the
        ladder's units and the final instead of this machine; each ladder thread has a client of
        its own. The bots' output then stays on the workers' machines (no owner logs)."""
        self.hub, self.limits, self.workers, self.poll_s = hub, limits, workers, poll_s
        self.cluster, self.security = cluster, security
        self._local = threading.local()  # each thread's Dask client (an executor)
        self._executors: list = []
        self._running: dict[int, LadderUnit] = {}  # block -> the unit this process plays
        self._not_before: dict[int, float] = {}  # block -> monotonic time of its next attempt
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.wake = threading.Event()
        self._final = threading.Lock()
        self._challenges: set[int] = set()  # ids of the challenges this process's threads play

    def _final_due(self) -> bool:
        """The competition is closed and its final not complete."""
        def work(s):
            c = s.get_competition(self.hub.competition)
            t = s.get_tournament(final_tournament(self.hub.competition))
            return c is not None and c.status == "closed" and t is not None and t.stored_status != "complete"

        return self.hub.run(work)

    # ------------------------------------------------------------------ threads
    def start(self) -> None:
        for n in range(self.workers):
            t = threading.Thread(target=self._loop, name=f"ladder-{n}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the board in flight (the unit stays ``playing``: replayed at the next start)."""
        self._stop.set()
        self.wake.set()
        for t in self._threads:
            t.join(timeout)
        for executor in self._executors:
            executor.close()

    def play_unit(self, work: Work, unit: Unit, emit) -> None:
        """Play a unit here (:func:`arena.play.executors.play_unit`) or, with a cluster, on it
        (:func:`arena.play.cluster.play_unit_on`, the calling thread's client)."""
        if self.cluster is None:
            play_unit(work, unit, emit, self._stop.is_set)
            return
        from ..play.cluster import DaskExecutor, play_unit_on

        executor = getattr(self._local, "executor", None)
        if executor is None:
            executor = self._local.executor = DaskExecutor(self.cluster, security=self.security)
            self._executors.append(executor)
        play_unit_on(executor, work, unit, emit, self._stop.is_set)

    def _loop(self) -> None:
        """Challenges and ladder units take turns, weighed by time: a challenge's match (its
        participant waits for it) is played when the ladder is owed no time, and adds its
        duration to what the ladder is owed; ladder units are played while it is owed time (a
        unit's duration taken off), or whenever no challenge waits. Nothing due on the ladder:
        the challenge goes on at once. So a challenge gets at most half of a busy thread's time,
        one match (≤ 16 boards) at most in a row, and still completes."""
        playing: challenge.Play | None = None  # this thread's challenge, between its matches
        owed = 0.0  # seconds of ladder play due before the challenge's next match
        try:
            while not self._stop.is_set():
                try:
                    if playing is None:
                        playing = challenge.start_next(self.hub, self.limits, self._stop.is_set, self._challenges)
                    if playing is not None and owed <= 0:
                        started = time.monotonic()
                        if playing.step() is not None:
                            playing = None
                        owed += time.monotonic() - started
                        continue
                    started = time.monotonic()
                    unit = self.step()
                    if unit is not None:
                        owed = max(0.0, owed - (time.monotonic() - started))
                        continue
                    owed = 0.0  # nothing due on the ladder: the challenge goes on
                    if playing is not None:
                        continue
                    if self._final_due() and self._final.acquire(blocking=False):
                        try:  # a closed competition: one thread plays the final
                            if play_in_server(self.hub, self.limits, self._stop, self.play_unit):
                                log.info("the final of %s is complete: its seed is revealed", self.hub.competition)
                        finally:
                            self._final.release()
                except Exception:  # noqa: BLE001 - the server's own failure: logged, tried again later
                    log.error("the ladder failed:\n%s", traceback.format_exc())
                    if playing is not None and playing.finished is not None:
                        playing = None
                self.wake.wait(self.poll_s)
                self.wake.clear()
        finally:
            if playing is not None:
                playing.close()  # stopped: left playing, played again from the start at the next start

    # ------------------------------------------------------------------ one unit
    def step(self) -> LadderUnit | None:
        """Claim the next unit and play it; the unit as stored after (None: nothing to play now)."""
        unit = self.claim()
        if unit is None:
            return None
        try:
            return self.play(unit)
        finally:
            with self.hub.lock:
                self._running.pop(unit.block, None)

    def claim(self) -> LadderUnit | None:
        """Under the store's lock: a unit to replay (left ``playing``), else the next placement
        block, else the most informative pair's block; None when there is nothing to play."""
        return self.hub.run(self._claim)

    def _claim(self, s: Store) -> LadderUnit | None:
        hub = self.hub
        c = s.get_competition(hub.competition)
        if c is None or c.status != "open":
            return None
        ensure_ladder(s, c)
        active = {v.id: v for v in s.versions(hub.competition, statuses=("active",)) if v.key is not None}
        busy = {v for u in self._running.values() for v in (u.version_a, u.version_b)}
        now = time.monotonic()
        units = s.ladder_units(hub.competition)
        # 1. units left playing (a stopped or killed server, a failure of the referee): the same block again
        for u in units:
            if u.status != "playing" or u.block in self._running:
                continue
            if u.version_a not in active or u.version_b not in active:
                s.void_unit(hub.competition, u.block, "a version left the ladder before its block was played")
                continue
            if busy & {u.version_a, u.version_b} or self._not_before.get(u.block, 0.0) > now:
                continue
            return self._take(s, u)
        # 2. placement gauntlets, oldest version first; 3. the most informative pair
        table = {st.version.id: st for st in standings(s, hub.competition)}
        entries = []
        last: dict[int, int] = {}
        together: dict[tuple[int, int], int] = {}
        for u in units:
            last[u.version_a] = last[u.version_b] = u.block
            if u.status == "done":
                together[(u.version_a, u.version_b)] = together.get((u.version_a, u.version_b), 0) \
                    + c.policy["block_boards"]
        for vid, v in sorted(active.items()):
            st = table.get(vid)
            entries.append(Entry(vid, v.participant, st.elo if st else math.nan, st.sd if st else math.nan,
                                 last.get(vid, -1)))
        met = {(u.version_a, u.version_b) for u in units if u.kind == "placement" and u.status != "void"}
        for e in entries:
            older = [o for o in entries if o.version < e.version]
            placed = sum(1 for a, b in met if b == e.version and a in active)
            if placed >= min(PANEL, len(older)):
                continue
            for o in placement_panel(e, older, PANEL):
                if (o, e.version) not in met and not busy & {o, e.version}:
                    return self._take(s, s.claim_block(hub.competition, "placement", o, e.version))
        next_block = (units[-1].block + 1) if units else 0
        pair = next_pair(entries, together, next_block, busy=busy)
        if pair is None:
            return None
        return self._take(s, s.claim_block(hub.competition, "ladder", *pair))

    def _take(self, s: Store, unit: LadderUnit) -> LadderUnit:
        self._running[unit.block] = unit
        s.add_entrants(ladder_tournament(self.hub.competition),
                       [s.get_version(v).key for v in (unit.version_a, unit.version_b)])
        return unit

    def play(self, unit: LadderUnit) -> LadderUnit:
        """Play a claimed unit's block and store it with the unit done (one transaction); a
        failure of the server's leaves it ``playing`` for a replay."""
        hub = self.hub
        comp = hub.competition

        def read(s):
            c = s.get_competition(comp)
            t = ensure_ladder(s, c)
            entrants = []
            for vid in (unit.version_a, unit.version_b):
                v = s.get_version(vid)
                bot = s.get_bot(v.bot_name, v.bot_version)
                entrants.append(Entrant(v.key, manifest=load_manifest(bot.path), content_hash=bot.content_hash))
            return c, t, entrants

        c, t, (a, b) = hub.run(read)
        size = c.policy["block_boards"]
        logs = hub.logs / "units" / str(unit.block)  # then filed per version: each owner reads its own
        shutil.rmtree(logs, ignore_errors=True)
        logs.mkdir(parents=True)
        config = MatchConfig(ruleset=t.resolved_ruleset(), decision_ms=c.policy["decision_ms"], seed=t.seed,
                             limits=self.limits, block_boards=size, quote_output=False,
                             log_dir=logs if self.cluster is None else None)  # a cluster's stay on its workers
        work = Work(config, size)
        mid = match_id(t.name, a.key, b.key)
        boards = tuple(range(unit.block * size, (unit.block + 1) * size))
        results: list[tuple[str, BoardPairResult]] = []
        try:
            self.play_unit(work, Unit(unit.block, mid, a, b, boards), lambda m, r: results.append((m, r)))
            if len(results) != size:
                raise RuntimeError("stopped" if self._stop.is_set() else f"{len(results)} of {size} board pairs")
        except Exception as e:  # noqa: BLE001 - the server's failure: replayed, never charged to a bot
            return self._failed(unit, e)
        finally:
            file_logs(hub, logs, [(unit.version_a, a.key), (unit.version_b, b.key)], ladder_folder(unit.block))
        forfeit_a = any(r.forfeit_a for _, r in results)
        forfeit_b = any(r.forfeit_b for _, r in results)

        def store(s):
            s.write_board_pairs(t.name, results,
                                also=lambda: s.mark_unit_done(comp, unit.block, forfeit_a, forfeit_b))
            for vid, entrant, failed in ((unit.version_a, a.key, forfeit_a), (unit.version_b, b.key, forfeit_b)):
                if failed:
                    self._maybe_retire(s, vid, entrant, results)

        try:
            hub.run(store)
        except StoreError as e:  # closed meanwhile: `close` voided the unit in flight (a race, no failure)
            if hub.run(lambda s: s.get_competition(comp)).status != "closed":
                raise
            log.info("ladder block %s: the competition closed while it was played: not stored (%s)", unit.block, e)
            return next(u for u in hub.run(lambda s: s.ladder_units(comp)) if u.block == unit.block)
        self._not_before.pop(unit.block, None)
        done = hub.run(lambda s: next(u for u in s.ladder_units(comp) if u.block == unit.block))
        log.info("ladder block %s: %s v%s – v%s stored (%s)", done.block, done.kind, done.version_a, done.version_b,
                 done.status)
        return done

    def _failed(self, unit: LadderUnit, error: Exception) -> LadderUnit:
        detail = f"{type(error).__name__}: {printable(str(error), 200)}"
        if not self._stop.is_set():
            log.error("ladder block %s failed (the server's fault, replayed):\n%s", unit.block, traceback.format_exc())
        self._not_before[unit.block] = time.monotonic() + (0.0 if self._stop.is_set() else RETRY_S)

        def work(s):
            if self._stop.is_set():
                return next(u for u in s.ladder_units(self.hub.competition) if u.block == unit.block)
            u = s.retry_unit(self.hub.competition, unit.block, detail)
            if u.attempts > MAX_ATTEMPTS:
                u = s.void_unit(self.hub.competition, unit.block, f"failed {MAX_ATTEMPTS} times for the server's "
                                f"reasons ({detail}): never rated")
            return u

        return self.hub.run(work)

    def _maybe_retire(self, s: Store, version_id: int, key: str, results) -> None:
        mine = [u for u in s.ladder_units(self.hub.competition, statuses=("done",), version=version_id)]
        streak = 0
        for u in reversed(mine):
            if (u.forfeit_a if u.version_a == version_id else u.forfeit_b):
                streak += 1
            else:
                break
        v = s.get_version(version_id)
        if streak < MAX_BOT_FAILURES or v.status != "active":
            return
        faults = [f for _, r in results for f in r.faults if f.entrant == key]
        example = f" (the last: board {faults[-1].board} table {faults[-1].table}: {faults[-1].kind}: " \
                  f"{printable(faults[-1].detail, 200)})" if faults else ""
        blocks = ", ".join(str(u.block) for u in mine[-streak:])
        s.set_version(version_id, "retired", reason=f"retired from the ladder: the bot faulted in {streak} ladder "
                      f"units in a row (blocks {blocks}){example}; upload a fixed version")
        log.info("version %s retired: %s failed ladder units in a row", version_id, streak)
