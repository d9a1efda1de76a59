"""The competition server's tables (``competitions``, ``compete_participants``,
``compete_versions``; documented in ``schema.sql``): :class:`CompeteReads` for every store,
:class:`CompeteWriter` for :class:`arena.store.Store` only. The server (``arena/compete/``)
is their one writer; the values they hand out are frozen dataclasses.

A version's status moves ``queued → checking → validating → active`` (and ``active →
retired`` when newer versions push it out), or to ``rejected`` with a reason;
:data:`PENDING` are the statuses the intake works on, picked up again after a restart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

import duckdb

from .model import StoreError, _json, _now

#: The columns of a competition's policy, in ``competitions`` order (all integers).
POLICY = ("uploads_per_day", "active_versions", "archive_mib", "unpacked_mib", "archive_files", "max_ratio",
          "decision_ms", "cpu_s", "memory_mib", "block_boards", "validation_boards")
#: A version's statuses; :data:`PENDING` ones are the intake's work (resumed after a restart).
STATUSES = ("queued", "checking", "validating", "active", "rejected", "retired")
PENDING = ("queued", "checking", "validating")
SCOPES = ("participant", "admin")
#: A ladder unit's kinds and statuses (``ladder_units``).
UNIT_KINDS = ("placement", "ladder")
UNIT_STATUSES = ("playing", "done", "void")


def ladder_tournament(competition: str) -> str:
    """The tournament holding a competition's ladder (its secret seed, its board pairs)."""
    return f"{competition}:ladder"


def final_tournament(competition: str) -> str:
    """The tournament of a competition's final (a duplicate round robin with a seed of its own)."""
    return f"{competition}:final"


@dataclass(frozen=True)
class Competition:
    """A competition: its ruleset and resolved options, its policy (:data:`POLICY`, integers),
    status (``open`` or ``closed``). The practice seed is read by :meth:`CompeteReads.practice_seed` only."""

    name: str
    ruleset: str
    options: dict
    policy: dict
    status: str
    created_at: datetime

    def public(self) -> dict:
        """As JSON: name, ruleset, options, policy, status, created_at (ISO 8601, UTC)."""
        return {"name": self.name, "ruleset": self.ruleset, "options": self.options, "policy": self.policy,
                "status": self.status, "created_at": self.created_at.isoformat()}


@dataclass(frozen=True)
class Participant:
    """Who may call a competition's API; ``active`` is False once its token is revoked."""

    competition: str
    name: str
    scope: str
    active: bool
    created_at: datetime

    def public(self) -> dict:
        return {"competition": self.competition, "name": self.name, "scope": self.scope, "active": self.active,
                "created_at": self.created_at.isoformat()}


@dataclass(frozen=True)
class Version:
    """One uploaded archive and its status (``compete_versions``); ``validation`` is the JSON
    summary of its validation matches (None before)."""

    id: int
    competition: str
    participant: str
    archive_sha256: str
    archive_bytes: int
    status: str
    reason: str | None
    bot_name: str | None
    bot_version: str | None
    content_hash: str | None
    validation: dict | None
    uploaded_at: datetime
    updated_at: datetime

    @property
    def key(self) -> str | None:
        """``name@version`` once known (from its manifest), else None."""
        return f"{self.bot_name}@{self.bot_version}" if self.bot_name else None

    def public(self) -> dict:
        """As JSON (what its owner and admins see): id, participant, bot, status, reason,
        validation, archive size and SHA-256, times (ISO 8601, UTC)."""
        return {"id": self.id, "competition": self.competition, "participant": self.participant, "bot": self.key,
                "status": self.status, "reason": self.reason, "validation": self.validation,
                "archive_sha256": self.archive_sha256, "archive_bytes": self.archive_bytes,
                "content_hash": self.content_hash, "uploaded_at": self.uploaded_at.isoformat(),
                "updated_at": self.updated_at.isoformat()}


@dataclass(frozen=True)
class LadderUnit:
    """One block of the ladder played by two versions (``ladder_units``): ``block`` deals
    boards ``block·B … block·B + B − 1`` of the ladder seed (B: the policy's ``block_boards``);
    A is the older version."""

    competition: str
    block: int
    kind: str
    version_a: int
    version_b: int
    status: str
    attempts: int
    forfeit_a: bool | None
    forfeit_b: bool | None
    detail: str | None
    claimed_at: datetime
    done_at: datetime | None

    def public(self) -> dict:
        return {"block": self.block, "kind": self.kind, "version_a": self.version_a, "version_b": self.version_b,
                "status": self.status, "attempts": self.attempts, "forfeit_a": self.forfeit_a,
                "forfeit_b": self.forfeit_b, "detail": self.detail}


_UNIT_COLS = ("competition, block, kind, version_a, version_b, status, attempts, forfeit_a, forfeit_b, detail, "
              "claimed_at, done_at")

_VERSION_COLS = ("id, competition, participant, archive_sha256, archive_bytes, status, reason, bot_name, bot_version, "
                 "content_hash, validation, uploaded_at, updated_at")


def _version(row) -> Version:
    return Version(*row[:10], json.loads(row[10]) if row[10] is not None else None, *row[11:])


@dataclass(frozen=True)
class Challenge:
    """An unrated match a participant asked for (``compete_challenges``)."""

    id: int
    competition: str
    participant: str
    version_id: int
    opponents: list[int]
    boards: int
    status: str
    result: dict | None
    reason: str | None
    created_at: datetime
    updated_at: datetime

    def public(self) -> dict:
        """As JSON (its participant and admins see it)."""
        return {"id": self.id, "participant": self.participant, "version": self.version_id,
                "opponents": self.opponents, "boards": self.boards, "status": self.status, "result": self.result,
                "reason": self.reason, "created_at": self.created_at.isoformat(),
                "updated_at": self.updated_at.isoformat()}


_CHALLENGE_COLS = ("id, competition, participant, version_id, opponents, boards, status, result, reason, created_at, "
                   "updated_at")
CHALLENGE_STATUSES = ("queued", "playing", "done", "failed")


def _challenge(r) -> Challenge:
    return Challenge(int(r[0]), r[1], r[2], int(r[3]), json.loads(r[4]), int(r[5]), r[6],
                     json.loads(r[7]) if r[7] is not None else None, r[8], r[9], r[10])


class CompeteReads:
    """Reads of the competition tables (a mixin of :class:`arena.store.ReadStore`)."""

    def get_competition(self, name: str) -> Competition | None:
        """The competition ``name``, or None."""
        rows = self._query(f"SELECT name, ruleset, options, {', '.join(POLICY)}, status, created_at "
                           "FROM competitions WHERE name = ?", [name])
        if not rows:
            return None
        r = rows[0]
        return Competition(r[0], r[1], json.loads(r[2]), dict(zip(POLICY, r[3:3 + len(POLICY)])), r[-2], r[-1])

    def list_competitions(self) -> list[Competition]:
        """Every competition, oldest first."""
        names = [r[0] for r in self._query("SELECT name FROM competitions ORDER BY created_at, name")]
        return [self.get_competition(n) for n in names]

    def practice_seed(self, competition: str) -> int:
        """The secret seed of the competition's practice boards (validation matches).

        Raises:
            StoreError: no such competition."""
        rows = self._query("SELECT practice_seed FROM competitions WHERE name = ?", [competition])
        if not rows:
            raise StoreError(f"no competition {competition!r}")
        return int(rows[0][0])

    def participant_by_token_hash(self, competition: str, token_hash: str) -> Participant | None:
        """The participant (or admin) holding the live token whose SHA-256 is ``token_hash``, or None."""
        rows = self._query("SELECT competition, name, scope, true, created_at FROM compete_participants "
                           "WHERE competition = ? AND token_hash = ?", [competition, token_hash])
        return Participant(*rows[0]) if rows else None

    def get_participant(self, competition: str, name: str) -> Participant | None:
        rows = self._query("SELECT competition, name, scope, token_hash IS NOT NULL, created_at "
                           "FROM compete_participants WHERE competition = ? AND name = ?", [competition, name])
        return Participant(*rows[0]) if rows else None

    def participants(self, competition: str) -> list[Participant]:
        """Every participant and admin of the competition, in order of creation."""
        rows = self._query("SELECT competition, name, scope, token_hash IS NOT NULL, created_at "
                           "FROM compete_participants WHERE competition = ? ORDER BY created_at, name", [competition])
        return [Participant(*r) for r in rows]

    def final_choices(self, competition: str) -> dict[str, int]:
        """Participant → the version id it chose to enter the final (``arena remote final``)."""
        try:
            rows = self._query("SELECT participant, version_id FROM compete_final_choices WHERE competition = ?",
                               [competition])
        except duckdb.CatalogException:  # a database opened read-only from before the table
            return {}
        return {who: int(vid) for who, vid in rows}

    def challenges(self, competition: str, participant: str | None = None, *,
                   statuses: tuple[str, ...] | None = None) -> list[Challenge]:
        """The competition's challenges (of ``participant`` only, in ``statuses`` only), oldest first."""
        sql = f"SELECT {_CHALLENGE_COLS} FROM compete_challenges WHERE competition = ?"
        params: list = [competition]
        if participant is not None:
            sql += " AND participant = ?"
            params.append(participant)
        if statuses is not None:
            sql += f" AND status IN ({', '.join('?' * len(statuses))})"
            params += list(statuses)
        return [_challenge(r) for r in self._query(sql + " ORDER BY id", params)]

    def get_challenge(self, challenge_id: int) -> Challenge | None:
        rows = self._query(f"SELECT {_CHALLENGE_COLS} FROM compete_challenges WHERE id = ?", [challenge_id])
        return _challenge(rows[0]) if rows else None

    def get_version(self, version_id: int) -> Version | None:
        rows = self._query(f"SELECT {_VERSION_COLS} FROM compete_versions WHERE id = ?", [version_id])
        return _version(rows[0]) if rows else None

    def versions(self, competition: str, participant: str | None = None, *,
                 statuses: tuple[str, ...] | None = None) -> list[Version]:
        """The competition's versions (of ``participant`` only, with one of ``statuses`` only), oldest first."""
        sql = f"SELECT {_VERSION_COLS} FROM compete_versions WHERE competition = ?"
        params: list = [competition]
        if participant is not None:
            sql += " AND participant = ?"
            params.append(participant)
        if statuses is not None:
            sql += " AND list_contains(?, status)"
            params.append(list(statuses))
        return [_version(r) for r in self._query(sql + " ORDER BY id", params)]

    def find_upload(self, competition: str, participant: str, archive_sha256: str) -> Version | None:
        """The participant's version uploaded with these exact bytes and not rejected, or None (bytes
        rejected before may be uploaded again: a new version, checked afresh)."""
        rows = self._query(f"SELECT {_VERSION_COLS} FROM compete_versions WHERE competition = ? AND participant = ? "
                           "AND archive_sha256 = ? AND status <> 'rejected' ORDER BY id LIMIT 1",
                           [competition, participant, archive_sha256])
        return _version(rows[0]) if rows else None

    def uploads_since(self, competition: str, participant: str, since: datetime) -> list[datetime]:
        """When the participant's uploads at or after ``since`` were made, oldest first."""
        rows = self._query("SELECT uploaded_at FROM compete_versions WHERE competition = ? AND participant = ? "
                           "AND uploaded_at >= ? ORDER BY uploaded_at", [competition, participant, since])
        return [r[0] for r in rows]

    def bot_owner(self, competition: str, bot_name: str) -> str | None:
        """The participant whose (not rejected) versions carry the bot name ``bot_name``, or None."""
        rows = self._query("SELECT participant FROM compete_versions WHERE competition = ? AND bot_name = ? "
                           "AND status <> 'rejected' ORDER BY id LIMIT 1", [competition, bot_name])
        return rows[0][0] if rows else None


    def ladder_units(self, competition: str, *, statuses: tuple[str, ...] | None = None,
                     version: int | None = None) -> list[LadderUnit]:
        """The competition's ladder units (with one of ``statuses``, of ``version`` only), by block."""
        if not self._has_table("ladder_units"):
            return []
        sql = f"SELECT {_UNIT_COLS} FROM ladder_units WHERE competition = ?"
        params: list = [competition]
        if statuses is not None:
            sql += " AND list_contains(?, status)"
            params.append(list(statuses))
        if version is not None:
            sql += " AND (version_a = ? OR version_b = ?)"
            params += [version, version]
        return [LadderUnit(*r) for r in self._query(sql + " ORDER BY block", params)]


class CompeteWriter:
    """Writes of the competition tables (a mixin of :class:`arena.store.Store`); the
    competition server is their only writer."""

    def create_competition(self, name: str, ruleset: str, options: Mapping, policy: Mapping[str, int],
                           practice_seed: int) -> Competition:
        """Create the competition (status ``open``).

        Raises:
            StoreError: the name is taken, empty or holds ``/``; a policy value is missing.
        """
        if not isinstance(name, str) or not name or "/" in name:
            raise StoreError(f"competition name must be a non-empty text without '/', got {name!r}")
        if self.get_competition(name) is not None:
            raise StoreError(f"competition {name!r} already exists: choose another name "
                             "(`arena compete list` shows them)")
        missing = [k for k in POLICY if k not in policy]
        if missing:
            raise StoreError(f"competition policy without {', '.join(missing)}")
        self._query(f"INSERT INTO competitions (name, ruleset, options, {', '.join(POLICY)}, practice_seed, status, "
                    f"created_at) VALUES (?, ?, ?, {', '.join('?' * len(POLICY))}, ?, 'open', ?)",
                    [name, ruleset, _json(dict(options)), *(int(policy[k]) for k in POLICY), str(practice_seed),
                     _now()])
        return self.get_competition(name)

    def add_participant(self, competition: str, name: str, scope: str, token_hash: str) -> Participant:
        """Add a participant (or admin, ``scope``) with its token's SHA-256.

        Raises:
            StoreError: no such competition, a taken name, an unknown scope.
        """
        if self.get_competition(competition) is None:
            raise StoreError(f"no competition {competition!r}: create it with `arena compete create`")
        if scope not in SCOPES:
            raise StoreError(f"unknown scope {scope!r}: expected one of {', '.join(SCOPES)}")
        if self.get_participant(competition, name) is not None:
            raise StoreError(f"{name!r} already takes part in {competition!r}: choose another name, or give it a "
                             "new token with `arena compete participant rotate`")
        now = _now()
        self._query("INSERT INTO compete_participants VALUES (?, ?, ?, ?, ?, ?)",
                    [competition, name, scope, token_hash, now, now])
        return self.get_participant(competition, name)

    def set_token_hash(self, competition: str, name: str, token_hash: str | None) -> Participant:
        """Replace the participant's token (``None``: revoke it, every request with it answers 401).

        Raises:
            StoreError: no such participant.
        """
        if self.get_participant(competition, name) is None:
            raise StoreError(f"no participant {name!r} in {competition!r} (`arena compete participant list`)")
        self._query("UPDATE compete_participants SET token_hash = ?, token_at = ? WHERE competition = ? AND name = ?",
                    [token_hash, _now(), competition, name])
        return self.get_participant(competition, name)

    def choose_final(self, competition: str, participant: str, version_id: int) -> None:
        """Make ``version_id`` the participant's entrant of the final (replacing an earlier choice).

        Raises:
            StoreError: the competition is not open; the version is not an active one of the participant's.
        """
        c = self.get_competition(competition)
        if c is None or c.status != "open":
            raise StoreError(f"competition {competition!r} is not open: its final's entrants are chosen")
        v = self.get_version(version_id)
        if v is None or v.competition != competition or v.participant != participant or v.status != "active":
            raise StoreError(f"version {version_id} is not an active version of {participant!r}: only an active "
                             "version (`arena remote status`) can enter the final")
        self._query("INSERT OR REPLACE INTO compete_final_choices VALUES (?, ?, ?, ?)",
                    [competition, participant, version_id, _now()])

    def add_challenge(self, competition: str, participant: str, version_id: int, opponents: list[int],
                      boards: int) -> Challenge:
        """Store a ``queued`` challenge and return it (ids count up from 1; the caller checked it)."""
        next_id = self._query("SELECT coalesce(max(id), 0) + 1 FROM compete_challenges")[0][0]
        now = _now()
        self._query(f"INSERT INTO compete_challenges ({_CHALLENGE_COLS}) VALUES (?, ?, ?, ?, ?, ?, 'queued', NULL, "
                    "NULL, ?, ?)", [next_id, competition, participant, version_id, _json(opponents), boards, now, now])
        return self.get_challenge(next_id)

    def set_challenge(self, challenge_id: int, status: str, *, result: dict | None = None,
                      reason: str | None = None) -> Challenge:
        """Move a challenge to ``status`` (:data:`CHALLENGE_STATUSES`) with its ``result`` or ``reason``.

        Raises:
            StoreError: an unknown status.
        """
        if status not in CHALLENGE_STATUSES:
            raise StoreError(f"unknown challenge status {status!r}: expected one of {', '.join(CHALLENGE_STATUSES)}")
        self._query("UPDATE compete_challenges SET status = ?, result = ?, reason = ?, updated_at = ? WHERE id = ?",
                    [status, None if result is None else _json(result), reason, _now(), challenge_id])
        return self.get_challenge(challenge_id)

    def add_version(self, competition: str, participant: str, archive_sha256: str, archive_bytes: int,
                    uploaded_at: datetime | None = None) -> Version:
        """Store an upload as a ``queued`` version and return it (ids count up from 1)."""
        now = uploaded_at or _now()

        def work() -> int:
            (next_id,) = self.con.execute("SELECT coalesce(max(id), 0) + 1 FROM compete_versions").fetchone()
            self.con.execute("INSERT INTO compete_versions (id, competition, participant, archive_sha256, "
                             "archive_bytes, status, uploaded_at, updated_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)",
                             [next_id, competition, participant, archive_sha256, archive_bytes, now, now])
            return next_id

        return self.get_version(self._transaction(work))

    def set_version(self, version_id: int, status: str, *, reason: str | None = None, bot: tuple | None = None,
                    validation: dict | None = None) -> Version:
        """Move a version to ``status`` (:data:`STATUSES`), with the ``reason`` (rejected, retired),
        its bot ``(name, version, content hash)`` once known and its ``validation`` summary.

        Raises:
            StoreError: an unknown status or version.
        """
        if status not in STATUSES:
            raise StoreError(f"unknown version status {status!r}: expected one of {', '.join(STATUSES)}")
        if self.get_version(version_id) is None:
            raise StoreError(f"no version {version_id}")
        sets, params = ["status = ?", "reason = ?", "updated_at = ?"], [status, reason, _now()]
        if bot is not None:
            sets += ["bot_name = ?", "bot_version = ?", "content_hash = ?"]
            params += list(bot)
        if validation is not None:
            sets.append("validation = ?")
            params.append(_json(validation))
        self._query(f"UPDATE compete_versions SET {', '.join(sets)} WHERE id = ?", [*params, version_id])
        return self.get_version(version_id)


def day_ago(now: datetime | None = None) -> datetime:
    """24 hours before ``now`` (naive UTC): the window of the upload quota."""
    return (now or _now()) - timedelta(days=1)


class LadderWriter:
    """Writes of ``ladder_units`` (a mixin of :class:`arena.store.Store`); the competition
    server's ladder is their only writer."""

    def claim_block(self, competition: str, kind: str, version_a: int, version_b: int) -> LadderUnit:
        """A new unit on the next block (the block counter: one more than any block ever claimed),
        ``playing``, in one transaction: no block is ever given to two units.

        Raises:
            StoreError: an unknown kind, the same version twice."""
        if kind not in UNIT_KINDS:
            raise StoreError(f"unknown ladder unit kind {kind!r}: expected one of {', '.join(UNIT_KINDS)}")
        if version_a == version_b:
            raise StoreError(f"a ladder unit needs two versions, got {version_a} twice")
        a, b = sorted((version_a, version_b))

        def work() -> int:
            (block,) = self.con.execute("SELECT coalesce(max(block), -1) + 1 FROM ladder_units WHERE competition = ?",
                                        [competition]).fetchone()
            self.con.execute(f"INSERT INTO ladder_units ({_UNIT_COLS}) VALUES (?, ?, ?, ?, ?, 'playing', 1, NULL, "
                             "NULL, NULL, ?, NULL)", [competition, block, kind, a, b, _now()])
            return block

        return self._unit(competition, self._transaction(work))

    def _unit(self, competition: str, block: int) -> LadderUnit:
        rows = self._query(f"SELECT {_UNIT_COLS} FROM ladder_units WHERE competition = ? AND block = ?",
                           [competition, block])
        if not rows:
            raise StoreError(f"no ladder block {block} in {competition!r}")
        return LadderUnit(*rows[0])

    def retry_unit(self, competition: str, block: int, detail: str) -> LadderUnit:
        """A unit that failed for the server's reasons: still ``playing``, one more attempt counted."""
        self._query("UPDATE ladder_units SET attempts = attempts + 1, detail = ? WHERE competition = ? AND block = ? "
                    "AND status = 'playing'", [detail, competition, block])
        return self._unit(competition, block)

    def void_unit(self, competition: str, block: int, detail: str) -> LadderUnit:
        """A unit that will never be played (a version left the ladder first): its block is spent."""
        self._query("UPDATE ladder_units SET status = 'void', detail = ?, done_at = ? WHERE competition = ? "
                    "AND block = ? AND status = 'playing'", [detail, _now(), competition, block])
        return self._unit(competition, block)

    def mark_unit_done(self, competition: str, block: int, forfeit_a: bool, forfeit_b: bool) -> None:
        """Mark a unit done (inside the transaction that stores its board pairs).

        Raises:
            StoreError: the unit is not ``playing`` (done or void already: nothing is stored twice)."""
        rows = self.con.execute("UPDATE ladder_units SET status = 'done', forfeit_a = ?, forfeit_b = ?, done_at = ? "
                                "WHERE competition = ? AND block = ? AND status = 'playing' RETURNING block",
                                [forfeit_a, forfeit_b, _now(), competition, block]).fetchall()
        if not rows:
            raise StoreError(f"ladder block {block} of {competition!r} is not being played: not stored again")

    def set_competition_status(self, name: str, status: str) -> Competition:
        """``open`` or ``closed`` (uploads locked, the final to play)."""
        if status not in ("open", "closed"):
            raise StoreError(f"unknown competition status {status!r}")
        self._query("UPDATE competitions SET status = ? WHERE name = ?", [status, name])
        return self.get_competition(name)
