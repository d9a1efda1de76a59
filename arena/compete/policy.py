"""A competition's policy, its participants and their tokens.

Tokens are ``bat_`` followed by 43 characters of :func:`secrets.token_urlsafe` (256 random
bits); the database keeps only their SHA-256 (:func:`token_hash`), so a token is shown once,
when it is issued (:func:`add_participant`, :func:`rotate`), and a stolen database lets nobody
in. A revoked token (:func:`revoke`) answers 401 like a wrong one.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Mapping
from datetime import timedelta

from referee.rules import get_ruleset

from ..play.schedule import new_seed
from ..store import Competition, Participant, Store, StoreError
from ..store.compete import POLICY, ladder_tournament

__all__ = ["DEFAULT_POLICY", "POLICY_HELP", "TOKEN_PREFIX", "add_participant", "create", "new_token", "revoke",
           "rotate", "token_hash"]

#: A new competition's policy when ``arena compete create`` is not told otherwise.
DEFAULT_POLICY = {
    "uploads_per_day": 10, "active_versions": 2, "archive_mib": 64, "unpacked_mib": 256, "archive_files": 5000,
    "max_ratio": 200, "decision_ms": 1000, "cpu_s": 0, "memory_mib": 1024, "block_boards": 16, "validation_boards": 4,
}
assert tuple(DEFAULT_POLICY) == POLICY

#: What each policy value means, with its unit (the CLI's help).
POLICY_HELP = {
    "uploads_per_day": "uploads a participant may make in any 24 hours (then 429)",
    "active_versions": "active versions per participant (older ones retire)",
    "archive_mib": "largest upload, compressed, MiB",
    "unpacked_mib": "largest upload, unpacked, MiB",
    "archive_files": "most files and folders in an upload",
    "max_ratio": "highest unpacked / compressed size of an upload",
    "decision_ms": "deadline of one decision, ms",
    "cpu_s": "bot sandbox: CPU seconds per process (0 = unlimited)",
    "memory_mib": "bot sandbox: memory per process and bot, MiB (0 = unlimited)",
    "block_boards": "boards of a ladder block",
    "validation_boards": "boards of a validation match against the house bot",
}

TOKEN_PREFIX = "bat_"


def new_token() -> str:
    """A fresh token: ``bat_`` and 256 random bits (URL-safe base64, 43 characters)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The SHA-256 of a token's text (lowercase hex): what the database keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create(store: Store, name: str, ruleset: str, option_values: Mapping[str, bool] | None = None,
           policy: Mapping[str, int | None] | None = None) -> Competition:
    """Create a competition under ``ruleset`` with RULES.md §6.4 options (``get_ruleset`` keywords)
    and its policy (:data:`DEFAULT_POLICY` for every value not given; every value an integer ≥ 0,
    ≥ 1 but for ``cpu_s`` and ``memory_mib``). A secret practice seed is drawn for its validation boards,
    and the ladder's secret seed (the tournament ``NAME:ladder``, its commitment public).

    Raises:
        StoreError: a taken name; ValueError: an unknown ruleset or option, a policy value out of range.
    """
    rules = get_ruleset(ruleset, **dict(option_values or {}))
    values = dict(DEFAULT_POLICY)
    for key, value in (policy or {}).items():
        if key not in values:
            raise ValueError(f"unknown policy value {key!r}: expected one of {', '.join(POLICY)}")
        if value is not None:
            values[key] = int(value)
    low = [k for k, v in values.items() if v < (0 if k in ("cpu_s", "memory_mib") else 1)]
    if low:
        raise ValueError(f"policy values out of range: {', '.join(f'{k}={values[k]}' for k in low)} "
                         "(each at least 1; cpu_s and memory_mib at least 0)")
    if store.get_competition(name) is None and store.get_tournament(ladder_tournament(name)) is not None:
        raise StoreError(f"a tournament {ladder_tournament(name)!r} exists: the competition's ladder would take that "
                         "name; choose another competition name")
    c = store.create_competition(name, ruleset, rules.options(), values, new_seed())
    # the ladder's secret seed, its commitment public from now on (arena.compete.ladder)
    store.create_tournament(ladder_tournament(name), ruleset, rules.options(), new_seed(), values["block_boards"],
                            secret=True)
    return c


def _competition(store, name: str) -> Competition:
    c = store.get_competition(name)
    if c is None:
        known = [x.name for x in store.list_competitions()]
        raise StoreError(f"no competition {name!r}" + (f" (there are: {', '.join(known)})" if known else "")
                         + ": create it with `arena compete create NAME --ruleset R`")
    return c


def add_participant(store: Store, competition: str, name: str, *, admin: bool = False) -> tuple[Participant, str]:
    """Add a participant (an admin with ``admin``); return it and its token, shown only now.

    Raises:
        StoreError: no such competition, a taken name; ValueError: a name that is empty, longer
        than 64 characters, or holds other than letters, digits, ``-``, ``_``, ``.``.
    """
    _competition(store, competition)
    if not name or len(name) > 64 or not all(c.isascii() and (c.isalnum() or c in "-_.") for c in name):
        raise ValueError(f"participant name {name!r}: use 1 to 64 letters, digits, '-', '_' or '.'")
    token = new_token()
    return store.add_participant(competition, name, "admin" if admin else "participant", token_hash(token)), token


def rotate(store: Store, competition: str, name: str) -> tuple[Participant, str]:
    """Give the participant a new token (the old one answers 401 from now); return it and the token.

    Raises:
        StoreError: no such competition or participant."""
    _competition(store, competition)
    token = new_token()
    return store.set_token_hash(competition, name, token_hash(token)), token


def revoke(store: Store, competition: str, name: str) -> Participant:
    """Revoke the participant's token: every request with it answers 401 (``rotate`` issues a new one).

    Raises:
        StoreError: no such competition or participant."""
    _competition(store, competition)
    return store.set_token_hash(competition, name, None)


def quota(times: list, per_day: int, now) -> dict:
    """A quota of ``per_day`` in any 24 hours, given when the ones in the last 24 hours were used
    (``times``, oldest first, naive UTC datetimes): ``per_day``, ``used``, ``left``, and
    ``retry_after_s`` (seconds until one is free again; 0 when one is left)."""
    wait = 0 if len(times) < per_day else \
        max(1, math.ceil((times[len(times) - per_day] + timedelta(days=1) - now).total_seconds()))
    return {"per_day": per_day, "used": len(times), "left": max(0, per_day - len(times)), "retry_after_s": wait}
