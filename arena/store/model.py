"""What the store holds and hands out: its error, a tournament's status, the keys of
entrants and matches, stored actions as ``(kind, value)`` text, the frozen values the
reads return (:class:`Bot`, :class:`Tournament`, :class:`MatchSummary`,
:class:`BoardPairRows`, ...) and the seed commitment. No database access here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from referee.rules import RULESETS, Ruleset, get_ruleset

#: A tournament's play settings (table ``tournament_settings``), fixed once it is created: ms,
#: faults, CPU seconds, MiB, ms, ms.
PLAY_SETTINGS = ("decision_ms", "max_faults", "cpu_s", "memory_mib", "time_bank_ms", "time_increment_ms")


class StoreError(ValueError):
    """A storage request that cannot be done: bad database file, unknown or
    conflicting tournament, malformed result, or a database error (the message
    says which, and what to do)."""


class Status(str, Enum):
    """A tournament's status."""

    RUNNING = "running"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    #: shown, never stored: complete once, with entrants added since (their pairs unplayed)
    INCOMPLETE = "incomplete"
    #: shown, never stored: the board pairs of an `arena sprt` test that reached its decision
    DECIDED = "decided"
    #: shown, never stored: an `arena sprt` test that played its --max-boards without a decision
    UNDECIDED = "undecided"
    #: shown, never stored: the ladder of a competition still open (it has no total: its board
    #: pairs grow until `arena compete close`, which makes it complete and reveals its seed)
    LADDER = "ladder"


def _shown_status(stored: str, pairs: int, total: int, running: bool) -> str:
    """The status a tournament is shown with: ``complete`` when every board pair is
    stored; ``running`` while an arena holds its :class:`RunLock`; else
    ``incomplete`` (it was complete, then entrants were added) or
    ``interrupted`` (stopped, or its arena was killed while ``running``)."""
    if total > 0 and pairs >= total:
        return Status.COMPLETE.value
    if running:
        return Status.RUNNING.value
    if stored == Status.COMPLETE.value:
        return Status.INCOMPLETE.value
    return Status.INTERRUPTED.value if total > 0 or stored == Status.RUNNING.value else stored


def seed_commitment(seed: int) -> str:
    """The commitment published for a tournament seed before it is revealed: the SHA-256
    of the seed's decimal digits in ASCII (a ``-`` first if negative; no newline, no
    padding), as 64 lowercase hex digits. Anyone verifies a revealed seed with
    ``printf '%s' SEED | sha256sum``.

    It hides a secret seed (256 random bits cannot be searched) and binds it: no other
    seed has the same commitment. A small seed given by hand is found by trying seeds.
    (The seed itself: ``arena.play.schedule.new_seed``.)

    Raises:
        ValueError: ``seed`` is not an int.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


# --------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------


def entrant_key(name: str, version: str) -> str:
    """The entrant key of a bot version: ``"<name>@<version>"``."""
    return f"{name}@{version}"


def split_entrant(key: str) -> tuple[str, str]:
    """``(name, version)`` of an entrant key, split at its last ``@``.

    Raises:
        StoreError: no ``@``, or an empty name or version.
    """
    name, at, version = key.rpartition("@")
    if not at or not name or not version:
        raise StoreError(f"entrant {key!r} is not of the form <bot name>@<bot version>")
    return name, version


def match_id(tournament: str, a: str, b: str) -> str:
    """The id of the match between entrants ``a`` and ``b``: ``"<tournament>/<a>~<b>"``
    (A is the earlier entrant in the tournament's order)."""
    return f"{tournament}/{a}~{b}"


# --------------------------------------------------------------------------
# Actions as (kind, value) text
# --------------------------------------------------------------------------


def action_value(action: Mapping) -> tuple[str, str]:
    """``(kind, value)`` of a record action (JSON form, without ``seat``), as stored in ``actions``.

    ====================================  ==========  ==============================
    action                                kind        value
    ====================================  ==========  ==============================
    ``{"bid": "take", "trump": "H"}``     bid         ``"take H"`` (``"pass"``, ``"take"``, ...)
    ``{"schmeiss": "refuse"}``            schmeiss    ``"refuse"``
    ``{"trump": "H"}``                    trump       ``"H"``
    ``{"declare": [["7H","8H","9H"]]}``   declare     ``'[["7H","8H","9H"]]'`` (JSON; ``"[]"`` = none)
    ``{"exchange": true}``                exchange    ``"true"`` / ``"false"``
    ``{"card": "KS", "belote": true}``    card        ``"KS belote"`` (``"JH"`` without belote)
    ``{"call": "contre"}``                call        ``"contre"`` (table ``contree_calls``, §6.4)
    ====================================  ==========  ==============================

    Raises:
        StoreError: an object that is no action shape.
    """
    if "card" in action:
        return "card", str(action["card"]) + (" belote" if action.get("belote") else "")
    if "bid" in action:
        trump = action.get("trump")
        return "bid", str(action["bid"]) + (f" {trump}" if trump is not None else "")
    if "schmeiss" in action:
        return "schmeiss", str(action["schmeiss"])
    if "declare" in action:
        return "declare", json.dumps(action["declare"], separators=(",", ":"))
    if "exchange" in action:
        return "exchange", "true" if action["exchange"] else "false"
    if "call" in action:
        return "call", str(action["call"])
    if "trump" in action:
        return "trump", str(action["trump"])
    raise StoreError(
        f"not an action: {dict(action)!r} (expected a key card, bid, schmeiss, declare, exchange, call or trump)"
    )


def action_json(kind: str, value: str) -> dict:
    """The record action (JSON form) of a stored ``(kind, value)``; inverse of :func:`action_value`.

    Raises:
        StoreError: an unknown kind.
    """
    if kind == "card":
        card, _, belote = value.partition(" ")
        return {"card": card, "belote": True} if belote else {"card": card}
    if kind == "bid":
        bid, _, trump = value.partition(" ")
        return {"bid": bid, "trump": trump} if trump else {"bid": bid}
    if kind == "schmeiss":
        return {"schmeiss": value}
    if kind == "declare":
        return {"declare": json.loads(value)}
    if kind == "exchange":
        return {"exchange": value == "true"}
    if kind == "trump":
        return {"trump": value}
    if kind == "call":
        return {"call": value}
    raise StoreError(f"unknown action kind {kind!r}")


# --------------------------------------------------------------------------
# Values returned
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DealSuiteRow:
    """The deal file a tournament plays (table ``deal_suites``; ``--deals FILE``): its name,
    the lowercase hex SHA-256 of its bytes and the boards it holds."""

    file_name: str
    sha256: str
    file_boards: int


@dataclass(frozen=True)
class Bot:
    """A submitted bot version (table ``bots``); ``submitted_at`` is naive UTC."""

    name: str
    version: str
    author: str | None
    manifest: str
    content_hash: str
    path: str
    submitted_at: datetime

    @property
    def key(self) -> str:
        """The entrant key ``name@version``."""
        return entrant_key(self.name, self.version)


@dataclass(frozen=True)
class Tournament:
    """A tournament (table ``tournaments``) with its ``entrants`` (entrant keys, in
    order) and the number of ``board_pairs`` stored so far.

    ``seed`` is the tournament seed itself, secret when ``seed_secret`` until the
    tournament is complete: show :attr:`public_seed` (``None`` while hidden) and
    ``commitment`` (hex SHA-256 of the seed's decimal digits), never ``seed``; it is
    left out of the repr.
    """

    name: str
    ruleset: str
    options: dict
    seed: int = field(repr=False)
    boards_per_pair: int
    created_at: datetime
    status: str
    entrants: tuple[str, ...]
    board_pairs: int = 0
    seed_secret: bool = False
    commitment: str = ""
    #: the status as stored (``status`` is the one shown: see :func:`_shown_status`)
    stored_status: str = ""
    #: a gauntlet's entrant ``name@version``, who plays every other entrant (they do not play
    #: each other); None: a round robin
    gauntlet: str | None = None

    @property
    def pairs(self) -> int:
        """The pairs of entrants that play a match: n(n−1)/2 in a round robin, n−1 in a gauntlet."""
        n = len(self.entrants)
        return n - 1 if self.gauntlet is not None and self.gauntlet in self.entrants else n * (n - 1) // 2

    @property
    def seed_revealed(self) -> bool:
        """Whether the seed may be shown: it was never secret, or the tournament was
        complete (its stored status, set by the run that played its last board pair), or
        it holds an ``arena sprt`` test that reached its decision (it plays no more)."""
        return (not self.seed_secret or (self.stored_status or self.status) == Status.COMPLETE.value
                or self.status == Status.DECIDED.value)

    @property
    def public_seed(self) -> int | None:
        """The seed if it may be shown (:attr:`seed_revealed`), else ``None``."""
        return self.seed if self.seed_revealed else None

    @property
    def variant_options(self) -> dict[str, str]:
        """The RULES.md §6.4 options of the tournament's ruleset with their stored values,
        e.g. ``{"declarations": "on", "contree": "on"}`` (``{}`` for ``all-trumps``); see
        :func:`variant_options`."""
        return variant_options(self.ruleset, self.options)

    def resolved_ruleset(self) -> Ruleset:
        """The :class:`~referee.rules.Ruleset` the tournament is played with: its
        ruleset with the stored options (target, and the §6.4 options).

        A tournament stored before the §6.4 options existed has neither ``contree``
        nor ``variants`` in its options: it is read as contree off.

        Raises:
            StoreError: the stored options are not what this referee's ruleset of
                that name gives (the rules changed since the tournament began:
                finish it with the referee that began it, or start a new one).
        """
        try:
            values = {k: v == "on" for k, v in self.variant_options.items()}
            rules = get_ruleset(self.ruleset, target=self.options.get("target"), **values)
        except ValueError as e:
            raise StoreError(f"tournament {self.name!r}: {e}") from None
        expected = json.loads(_json(rules.options()))
        stored = {**{k: expected[k] for k in _OPTIONS_ADDED if k in expected}, **self.options}
        if expected != stored:
            raise StoreError(
                f"tournament {self.name!r} was begun under other {self.ruleset} options than this referee's: "
                "finish it with the referee that began it, or start a new tournament"
            )
        return rules


#: Keys of ``Ruleset.options()`` added after tournaments were first stored (RULES.md §6.4):
#: a stored tournament without them was played with their default values.
_OPTIONS_ADDED = ("contree", "variants")


def variant_options(ruleset: str, options: Mapping) -> dict[str, str]:
    """The RULES.md §6.4 options (``declarations``, ``contree``: ``"on"``/``"off"``) that
    ``ruleset`` has, read from a tournament's stored resolved ``options``
    (``Ruleset.options()``; a missing ``contree`` is off). ``{}`` for an unknown ruleset."""
    base = RULESETS.get(ruleset)
    if base is None:
        return {}
    values = {"declarations": options.get("declarations", True) is not None,
              "contree": bool(options.get("contree", False))}
    return {k: "on" if values[k] else "off" for k in base.variants}


@dataclass(frozen=True)
class MatchSummary:
    """One match summed over its stored board pairs (points in game points;
    ``total_margin`` = ``points_a`` − ``points_b``, A's duplicate margin summed;
    ``wins_a``/``draws``/``losses_a``: A's board-pair results as ratings count
    them, ``board_pairs.outcome_a``: a forfeit loses whatever the margin)."""

    match_id: str
    tournament: str
    entrant_a: str
    entrant_b: str
    ruleset: str
    boards: int
    points_a: int
    points_b: int
    total_margin: int
    forfeits_a: int
    forfeits_b: int
    faults: int
    wins_a: int = 0
    draws: int = 0
    losses_a: int = 0

    @property
    def mean_margin(self) -> float:
        """A's duplicate margin per board pair, game points."""
        return self.total_margin / self.boards if self.boards else 0.0


@dataclass(frozen=True)
class TableSummary:
    """One board at one table as a match page lists it (table ``deals``): entrants,
    contract, taker seat, trump, points scored per team (RULES.md §6.2), capot team
    and litige pot carried out (§6.3)."""

    table: int
    ns: str
    ew: str
    contract: str
    taker: int | None
    trump_mode: str | None
    trump: str | None
    score_ns: int
    score_ew: int
    capot: int | None
    pot: int
    permutation: tuple[int, ...] = (0, 1, 2, 3)
    """The table's suit renaming (RULES.md §8): ``permutation[s]`` is the table's suit for the
    board's suit ``s`` (S H D C = 0..3); ``trump`` is as played at the table."""


@dataclass(frozen=True)
class BoardPairSummary:
    """One stored board pair (table ``board_pairs``) with its two tables, in table order;
    ``margin`` is A's duplicate margin in points (RULES.md §8)."""

    board: int
    points_a: int
    points_b: int
    margin: int
    forfeit_a: bool
    forfeit_b: bool
    tables: tuple[TableSummary, ...]


@dataclass(frozen=True)
class SlowDecision:
    """One stored decision (table ``actions``) with the entrant that took it; ``ms`` is
    the wall time of the bot's call."""

    match_id: str
    board: int
    table: int
    idx: int
    seat: int
    entrant: str
    kind: str
    value: str
    ms: float
    fault: str | None


@dataclass(frozen=True, eq=False)
class BoardPairRows:
    """Board-pair results as columns, for ratings (``arena.stats.tally.tally_arrays``).

    Attributes:
        entrants: the entrant keys that appear, sorted; ``a`` and ``b`` index it.
        a, b: int64 arrays of shape (m,): entrant A's and B's index.
        board: int64 array of shape (m,): the board number.
        margin: int64 array of shape (m,): A's duplicate margin, in points.
        forfeit_a, forfeit_b: bool arrays of shape (m,).

    Rows are in no particular order.
    """

    entrants: tuple[str, ...]
    a: NDArray[np.int64]
    b: NDArray[np.int64]
    board: NDArray[np.int64]
    margin: NDArray[np.int64]
    forfeit_a: NDArray[np.bool_]
    forfeit_b: NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.a)

    def rows(self) -> Iterator[tuple[str, str, int, int, bool, bool]]:
        """The rows ``(entrant_a, entrant_b, board, margin, forfeit_a, forfeit_b)`` (slow path)."""
        names = self.entrants
        for i in range(len(self.a)):
            yield (
                names[self.a[i]], names[self.b[i]], int(self.board[i]), int(self.margin[i]),
                bool(self.forfeit_a[i]), bool(self.forfeit_b[i]),
            )


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _entrant_parts(entrant: str | tuple[str, str]) -> tuple[str, str]:
    if isinstance(entrant, tuple):
        if len(entrant) != 2 or not all(isinstance(x, str) and x for x in entrant):
            raise StoreError(f"entrant {entrant!r} must be (bot name, bot version) or 'name@version'")
        return entrant
    if not isinstance(entrant, str):
        raise StoreError(f"entrant {entrant!r} must be (bot name, bot version) or 'name@version'")
    return split_entrant(entrant)
