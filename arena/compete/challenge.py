"""Challenges: unrated matches a participant asks for (issue 22 item 5; ``arena remote challenge``).

A participant names one of its active versions, up to :data:`MAX_OPPONENTS` other active
versions of the competition (anyone's) and a number of boards (≤ :data:`MAX_BOARDS`). The
server plays a duplicate match against each opponent (both tables, seats swapped, table 2's
suits renamed) on **practice boards** dealt from a seed of the challenge's own
(:func:`challenge_seed`: from the competition's secret practice seed, never the ladder's or the
final's seed), in the competition's ruleset and deadline. Nothing of it is rated: no board pair
is stored, only a summary per opponent (``compete_challenges.result``); the challenger's own bot
output is kept for it (``ROOT/logs/<version>/challenge-<id>/``), the opponents' is not kept.

Challenges are played by the ladder's threads, one at a time per thread, a match (one opponent)
at a time (:class:`Play`), taking turns with ladder units: after a challenge's match the thread
plays ladder units for as long as that match took before the next one (when any unit is due), so
a slow challenge delays the ladder but never stalls it (red team 42: one challenge of 3 opponents
× 16 boards with a bot answering in 850 ms held the ladder for 25.8 minutes). A participant may
ask for ``per_day`` challenges in any 24 hours (``arena compete serve --challenges-per-day``; 429
past it). A challenge left ``playing`` by a stopped
server is played again from the start at the next start (its seed is the same: the same boards).
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import traceback
from collections.abc import Callable

from referee.manifest import load_manifest
from referee.match import Entrant, MatchConfig, play_match
from referee.records import printable
from referee.rules import make_board
from referee.sandbox import Limits

from ..play.schedule import suit_permutation
from ..store import Challenge, Store
from ..store.compete import day_ago
from ..store.model import _now
from . import policy
from .hub import Hub
from .intake import file_logs, resolved_ruleset

__all__ = ["DEFAULT_PER_DAY", "MAX_BOARDS", "MAX_OPPONENTS", "ChallengeRefused", "Play", "ask", "challenge_seed",
           "play", "play_next", "quota", "start_next"]

log = logging.getLogger("arena.compete")

#: Opponents of one challenge, at most.
MAX_OPPONENTS = 8
#: Boards against each opponent, at most (each played at both tables).
MAX_BOARDS = 16
#: Challenges a participant may ask for in any 24 hours, unless the server says otherwise.
DEFAULT_PER_DAY = 5


class ChallengeRefused(Exception):
    """A challenge not accepted: HTTP ``status`` (404 a version that is not the caller's or not
    active, 409 a closed competition, 422 a bad request, 429 the quota spent), the message, and
    ``retry_after_s`` for 429."""

    def __init__(self, status: int, message: str, retry_after_s: int = 0):
        super().__init__(message)
        self.status, self.retry_after_s = status, retry_after_s


def challenge_seed(practice_seed: int, challenge_id: int) -> int:
    """The seed of a challenge's boards: SHA-256 of the competition's practice seed and the
    challenge id (256 bits). Never a ladder, final or validation seed."""
    return int.from_bytes(hashlib.sha256(f"{practice_seed}:challenge:{challenge_id}".encode()).digest(), "big")


def quota(store: Store, competition: str, participant: str, per_day: int) -> dict:
    """The participant's challenge quota: ``per_day``, ``used`` (in the last 24 hours), ``left``,
    ``retry_after_s`` (seconds until one is free again; 0 when one is left)."""
    now = _now()
    times = [c.created_at for c in store.challenges(competition, participant) if c.created_at >= day_ago(now)]
    return policy.quota(times, per_day, now)


def ask(store: Store, competition: str, participant: str, version_id: int, opponents: list[int], boards: int,
        per_day: int) -> Challenge:
    """Store a ``queued`` challenge of ``participant``'s version ``version_id`` against ``opponents``
    (version ids), ``boards`` boards each.

    Raises:
        ChallengeRefused: as its docstring says, with a message saying what to change.
    """
    c = store.get_competition(competition)
    if c is None or c.status != "open":
        raise ChallengeRefused(409, f"competition {competition!r} is closed: no more challenges")
    v = store.get_version(version_id)
    if v is None or v.competition != competition or v.participant != participant:
        raise ChallengeRefused(404, f"no version {version_id} of yours: `arena remote status` lists your versions")
    if v.status != "active":
        raise ChallengeRefused(404, f"version {version_id} is {v.status}, not active: only an active version "
                               "plays challenges")
    if not 1 <= boards <= MAX_BOARDS:
        raise ChallengeRefused(422, f"boards must be 1 to {MAX_BOARDS}, got {boards}")
    if not 1 <= len(opponents) <= MAX_OPPONENTS:
        raise ChallengeRefused(422, f"name 1 to {MAX_OPPONENTS} opponents, got {len(opponents)}")
    twice = sorted({o for o in opponents if opponents.count(o) > 1})
    if twice:
        raise ChallengeRefused(422, f"version {', '.join(map(str, twice))} named twice among the opponents (an id "
                               "and a name@version can be the same version): name each once")
    active = {o.id for o in store.versions(competition, statuses=("active",))}
    for o in opponents:
        if o == version_id or o not in active:
            raise ChallengeRefused(404, f"version {o} is not another active version of the competition: "
                                   "`arena compete standings` lists them")
    q = quota(store, competition, participant, per_day)
    if q["left"] == 0:
        raise ChallengeRefused(429, f"{q['used']} challenges in the last 24 hours, the server's limit: the next is "
                               f"possible in {q['retry_after_s']} s", q["retry_after_s"])
    return store.add_challenge(competition, participant, version_id, list(opponents), boards)


def claim(store: Store, competition: str, running: set[int]) -> Challenge | None:
    """The next challenge to play (one left ``playing`` by a stopped server that no thread of
    this one plays, else the oldest ``queued``), marked ``playing``; None when there is none."""
    for ch in store.challenges(competition, statuses=("playing", "queued")):
        if ch.id not in running:
            return store.set_challenge(ch.id, "playing")
    return None


class Play:
    """A claimed challenge played one opponent's match at a time (:meth:`step`), so that the
    ladder's thread can play ladder units between its matches (:class:`arena.compete.ladder.Ladder`):
    a challenge never holds the thread for more than one match (≤ :data:`MAX_BOARDS` boards).
    ``running`` (the ids this server's threads play) loses the challenge's id once it is finished
    or dropped (:meth:`close`)."""

    def __init__(self, hub: Hub, ch: Challenge, limits: Limits, stopped: Callable[[], bool],
                 running: set[int] | None = None):
        self.hub, self.ch, self.limits, self.stopped, self.running = hub, ch, limits, stopped, running
        self.result: list[dict] = []
        self.left = list(ch.opponents)  # the opponents whose match is still to play, in order
        self.finished: Challenge | None = None  # the challenge as stored once finished (or left playing: stopped)
        comp = hub.competition

        def read(s):
            c = s.get_competition(comp)
            entrants = {}
            for vid in (ch.version_id, *ch.opponents):
                v = s.get_version(vid)
                if v is None or v.status != "active":
                    return c, None, vid
                bot = s.get_bot(v.bot_name, v.bot_version)
                entrants[vid] = Entrant(v.key, manifest=load_manifest(bot.path), content_hash=bot.content_hash)
            return c, entrants, s.practice_seed(comp)

        c, self.entrants, extra = hub.run(read)
        if self.entrants is None:
            self._finish(lambda s: s.set_challenge(ch.id, "failed", reason=f"version {extra} is no longer active"))
            return
        self.rules = resolved_ruleset(c)
        self.decision_ms = c.policy["decision_ms"]
        self.seed = challenge_seed(extra, ch.id)
        self.folder = hub.logs / "units" / f"challenge-{ch.id}"
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)

    def _finish(self, work=None) -> Challenge:
        self.finished = self.hub.run(work) if work is not None else self.ch
        if self.running is not None:
            with self.hub.lock:
                self.running.discard(self.ch.id)
        return self.finished

    def close(self) -> None:
        """Drop an unfinished challenge (a stopping server): it stays ``playing``, played again
        from the start at the next start."""
        if self.finished is None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self._finish()

    def step(self) -> Challenge | None:
        """Play the match against the next opponent; None while opponents are left, else the
        challenge as stored (``done``; ``failed``: a failure of the server's; still ``playing``:
        stopped meanwhile, to be played again at the next start)."""
        if self.finished is not None:
            return self.finished
        ch, me, vid = self.ch, self.entrants[self.ch.version_id], self.left[0]
        them = self.entrants[vid]
        seed = self.seed
        try:
            config = MatchConfig(ruleset=self.rules, decision_ms=self.decision_ms, seed=seed, limits=self.limits,
                                 log_dir=self.folder / str(vid), quote_output=False)
            (self.folder / str(vid)).mkdir()
            boards = [make_board(seed, k, self.rules.seats) for k in range(ch.boards)]
            pairs = play_match(f"challenge-{ch.id}/{vid}", me, them, boards, config,
                               permutations=lambda k: suit_permutation(seed, k), stopped=self.stopped)
            if self.stopped():
                self.close()
                return self.finished
            outcomes = [r.outcome_a for r in pairs]
            self.result.append({"opponent": vid, "bot": them.key, "boards": len(pairs), "wins": outcomes.count("win"),
                                "draws": outcomes.count("draw"), "losses": outcomes.count("loss"),
                                "margin": sum(r.margin for r in pairs),
                                "faults": [f"board {f.board} table {f.table} seat {f.seat}: {f.kind}: "
                                           f"{printable(f.detail, 200)}" for r in pairs for f in r.faults
                                           if f.entrant == me.key][:10]})
        except Exception as e:  # noqa: BLE001 - the server's failure: the challenge says so
            log.error("challenge %s failed:\n%s", ch.id, traceback.format_exc())
            self._file_logs()
            return self._finish(lambda s: s.set_challenge(ch.id, "failed", reason=f"the server failed "
                                                          f"({type(e).__name__}): ask again"))
        self.left.pop(0)
        if self.left:
            return None
        self._file_logs()
        return self._finish(lambda s: s.set_challenge(ch.id, "done", result={"opponents": self.result}))

    def _file_logs(self) -> None:
        if self.stopped():
            return
        for vid in self.ch.opponents:  # each opponent's match its own folder: the file names repeat
            file_logs(self.hub, self.folder / str(vid), [(self.ch.version_id, self.entrants[self.ch.version_id].key)],
                      f"challenge-{self.ch.id}/vs-{vid}")
        shutil.rmtree(self.folder, ignore_errors=True)


def play(hub: Hub, ch: Challenge, limits: Limits, stopped: Callable[[], bool]) -> Challenge:
    """Play a claimed challenge whole (:class:`Play`, every match in turn) and store its summary
    (``done``), or why it could not be played (``failed``: a version no longer active, a failure
    of the server's). Stopped meanwhile, it is left ``playing`` (played again at the next start)."""
    p = Play(hub, ch, limits, stopped)
    while (out := p.step()) is None:
        pass
    return out


def start_next(hub: Hub, limits: Limits, stopped: Callable[[], bool], running: set[int]) -> Play | None:
    """Claim the next challenge (:func:`claim`) for the calling thread to play a match at a time
    (:meth:`Play.step`), or None when none waits. ``running``: the ids this server's threads play
    (shared); the challenge's id is in it until the :class:`Play` is finished or closed."""
    with hub.lock:
        ch = hub.run(lambda s: claim(s, hub.competition, running))
        if ch is None:
            return None
        running.add(ch.id)
    try:
        return Play(hub, ch, limits, stopped, running)
    except BaseException:
        with hub.lock:
            running.discard(ch.id)
        raise


def play_next(hub: Hub, limits: Limits, stopped: Callable[[], bool], running: set[int]) -> Challenge | None:
    """Claim the next challenge (:func:`claim`) and play it whole (:func:`play`); the challenge as
    stored after, or None when none waits. ``running``: the ids this server's threads play (shared)."""
    p = start_next(hub, limits, stopped, running)
    if p is None:
        return None
    try:
        while (out := p.step()) is None:
            pass
        return out
    finally:
        p.close()
