"""Challenges: unrated matches a participant asks for (issue 22 item 5; ``arena remote challenge``).

A participant names one of its active versions, up to :data:`MAX_OPPONENTS` other active
versions of the competition (anyone's) and a number of boards (≤ :data:`MAX_BOARDS`). The
server plays a duplicate match against each opponent (both tables, seats swapped, table 2's
suits renamed) on **practice boards** dealt from a seed of the challenge's own
(:func:`challenge_seed`: from the competition's secret practice seed, never the ladder's or the
final's seed), in the competition's ruleset and deadline. Nothing of it is rated: no board pair
is stored, only a summary per opponent (``compete_challenges.result``); the challenger's own bot
output is kept for it (``ROOT/logs/<version>/challenge-<id>/``), the opponents' is not kept.

Challenges are played by the ladder's threads before ladder units (fast feedback), one at a
time per thread. A participant may ask for ``per_day`` challenges in any 24 hours (``arena
compete serve --challenges-per-day``; 429 past it). A challenge left ``playing`` by a stopped
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

__all__ = ["DEFAULT_PER_DAY", "MAX_BOARDS", "MAX_OPPONENTS", "ChallengeRefused", "ask", "challenge_seed",
           "play_next", "quota"]

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


def play(hub: Hub, ch: Challenge, limits: Limits, stopped: Callable[[], bool]) -> Challenge:
    """Play a claimed challenge and store its summary (``done``), or why it could not be played
    (``failed``: a version no longer active, a failure of the server's). Stopped meanwhile, it is
    left ``playing`` (played again at the next start)."""
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

    c, entrants, extra = hub.run(read)
    if entrants is None:
        return hub.run(lambda s: s.set_challenge(ch.id, "failed", reason=f"version {extra} is no longer active"))
    rules = resolved_ruleset(c)
    seed = challenge_seed(extra, ch.id)
    folder = hub.logs / "units" / f"challenge-{ch.id}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    me = entrants[ch.version_id]
    result = []
    try:
        for vid in ch.opponents:
            them = entrants[vid]
            config = MatchConfig(ruleset=rules, decision_ms=c.policy["decision_ms"], seed=seed, limits=limits,
                                 log_dir=folder / str(vid), quote_output=False)
            (folder / str(vid)).mkdir()
            boards = [make_board(seed, k, rules.seats) for k in range(ch.boards)]
            pairs = play_match(f"challenge-{ch.id}/{vid}", me, them, boards, config,
                               permutations=lambda k: suit_permutation(seed, k), stopped=stopped)
            if stopped():
                return ch
            outcomes = [r.outcome_a for r in pairs]
            result.append({"opponent": vid, "bot": them.key, "boards": len(pairs), "wins": outcomes.count("win"),
                           "draws": outcomes.count("draw"), "losses": outcomes.count("loss"),
                           "margin": sum(r.margin for r in pairs),
                           "faults": [f"board {f.board} table {f.table} seat {f.seat}: {f.kind}: "
                                      f"{printable(f.detail, 200)}" for r in pairs for f in r.faults
                                      if f.entrant == me.key][:10]})
    except Exception as e:  # noqa: BLE001 - the server's failure: the challenge says so
        log.error("challenge %s failed:\n%s", ch.id, traceback.format_exc())
        return hub.run(lambda s: s.set_challenge(ch.id, "failed", reason=f"the server failed ({type(e).__name__}): "
                                                 "ask again"))
    finally:
        if not stopped():
            for vid in ch.opponents:  # each opponent's match its own folder: the file names repeat
                file_logs(hub, folder / str(vid), [(ch.version_id, me.key)], f"challenge-{ch.id}/vs-{vid}")
            shutil.rmtree(folder, ignore_errors=True)
    return hub.run(lambda s: s.set_challenge(ch.id, "done", result={"opponents": result}))


def play_next(hub: Hub, limits: Limits, stopped: Callable[[], bool], running: set[int]) -> Challenge | None:
    """Claim the next challenge (:func:`claim`) and play it (:func:`play`); the challenge as stored
    after, or None when none waits. ``running``: the ids this server's threads play (shared)."""
    with hub.lock:
        ch = hub.run(lambda s: claim(s, hub.competition, running))
        if ch is None:
            return None
        running.add(ch.id)
    try:
        return play(hub, ch, limits, stopped)
    finally:
        with hub.lock:
            running.discard(ch.id)
