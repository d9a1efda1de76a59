"""Actions: every decision a seat can take (RULES.md §4, §5, §6.1, §7).

Actions are small frozen values.  Their JSON form is the one used in deal
records (README "Deal records"):

=================  ================================================
action             JSON (the record adds ``"seat"``)
=================  ================================================
Bid                ``{"bid": "pass"}``, ``{"bid": "take"}`` (round 1, the
                   turned suit), ``{"bid": "take", "trump": "H"}`` (naming a
                   suit), ``{"bid": "all-trumps"}``, ``{"bid": "no-trumps"}``,
                   ``{"bid": "schmeiss"}``
SchmeissAnswer     ``{"schmeiss": "accept"}`` / ``{"schmeiss": "refuse"}``
NameTrump          ``{"trump": "H"}`` (two-player, after a refused round-2 schmeiss)
Declare            ``{"declare": [["7H", "8H", "9H"], ...]}``
Exchange           ``{"exchange": true}``
Call               ``{"call": "pass"}``, ``{"call": "contre"}``, ``{"call": "surcontre"}``
                   (§6.4 option ``contree``)
Play               ``{"card": "JH"}``, ``{"card": "KS", "belote": true}``
=================  ================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Union

from .cards import CARD_TEXT, CARDS, Card, Suit
from .declarations import Declaration


class BidKind(str, Enum):
    """The kinds of bid (RULES.md §4, §7)."""

    PASS = "pass"
    TAKE = "take"
    ALL_TRUMPS = "all-trumps"
    NO_TRUMPS = "no-trumps"
    SCHMEISS = "schmeiss"


class CallKind(str, Enum):
    """The contrée calls after the bidding (RULES.md §6.4 option ``contree``)."""

    PASS = "pass"
    CONTRE = "contre"
    """a defender doubles"""
    SURCONTRE = "surcontre"
    """an attacker redoubles a contre"""


class ActionParseError(ValueError):
    """An action that cannot be read at all (malformed JSON shape or text)."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid. ``trump`` is the suit named by a *take*; ``None`` for a round-1 take
    of the turned card's suit and for the other kinds."""

    kind: BidKind
    trump: Suit | None = None

    def to_json(self) -> dict:
        out: dict = {"bid": self.kind.value}
        if self.trump is not None:
            out["trump"] = str(self.trump)
        return out

    def __str__(self) -> str:
        return self.kind.value + (f" {self.trump.symbol}" if self.trump is not None else "")


@dataclass(frozen=True, slots=True)
class SchmeissAnswer:
    """The other player's answer to a schmeiss (§7): accept → redeal, refuse → the bidder takes."""

    accept: bool

    def to_json(self) -> dict:
        return {"schmeiss": "accept" if self.accept else "refuse"}

    def __str__(self) -> str:
        return "accepts the schmeiss" if self.accept else "refuses the schmeiss"


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The suit named by the taker after a refused round-2 schmeiss (§7)."""

    trump: Suit

    def to_json(self) -> dict:
        return {"trump": str(self.trump)}

    def __str__(self) -> str:
        return f"names {self.trump.symbol}"


@dataclass(frozen=True, slots=True)
class Declare:
    """A declaration choice: the declarations announced (``()`` = none) (§6.1, §7)."""

    declarations: tuple[Declaration, ...]

    def __post_init__(self) -> None:
        # a choice is a set of declarations: one canonical order, so equal choices compare equal
        object.__setattr__(self, "declarations", tuple(sorted(self.declarations, key=lambda d: d.cards)))

    def to_json(self) -> dict:
        return {"declare": [[CARD_TEXT[c] for c in d.cards] for d in self.declarations]}

    def __str__(self) -> str:
        return "declares " + (", ".join(map(str, self.declarations)) or "nothing")


@dataclass(frozen=True, slots=True)
class Exchange:
    """Whether the holder of the 7 of trump swaps it for the turned card (§7)."""

    exchange: bool

    def to_json(self) -> dict:
        return {"exchange": self.exchange}

    def __str__(self) -> str:
        return "exchanges the 7 of trump" if self.exchange else "keeps the 7 of trump"


@dataclass(frozen=True, slots=True)
class Call:
    """A contrée call (§6.4): pass, contre (a defender doubles) or surcontre (an attacker redoubles)."""

    kind: CallKind

    def to_json(self) -> dict:
        return {"call": self.kind.value}

    def __str__(self) -> str:
        return "passes (no call)" if self.kind is CallKind.PASS else self.kind.value


@dataclass(frozen=True, slots=True)
class Play:
    """Playing ``card``; ``belote`` announces belote with the first of a K/Q pair (§5)."""

    card: Card
    belote: bool = False

    def to_json(self) -> dict:
        out: dict = {"card": CARD_TEXT[self.card]}
        if self.belote:
            out["belote"] = True
        return out

    def __str__(self) -> str:
        return CARD_TEXT[self.card] + (" (belote)" if self.belote else "")


Action = Union[Bid, SchmeissAnswer, NameTrump, Declare, Exchange, Call, Play]

#: Interned play actions: ``PLAYS[card][belote]``.
PLAYS: tuple[tuple[Play, Play], ...] = tuple((Play(c, False), Play(c, True)) for c in CARDS)
PASS = Bid(BidKind.PASS)
CALL_PASS, CONTRE, SURCONTRE = Call(CallKind.PASS), Call(CallKind.CONTRE), Call(CallKind.SURCONTRE)


def _suit(value) -> Suit:
    if not isinstance(value, str):
        raise ActionParseError(f"trump must be a suit letter S, H, D or C, got {value!r}")
    try:
        return Suit.parse(value)
    except ValueError as e:
        raise ActionParseError(str(e)) from None


#: The keys each action shape may hold besides ``seat``, by the key that names the shape.
_KEYS = {
    "card": {"card", "belote"},
    "bid": {"bid", "trump"},
    "schmeiss": {"schmeiss"},
    "declare": {"declare"},
    "exchange": {"exchange"},
    "call": {"call"},
    "trump": {"trump"},
}


def action_from_json(obj: dict) -> Action:
    """Read one record action (without its ``seat``; see the module table).

    Raises:
        ActionParseError: when the object matches no action shape, holds keys that
            shape does not have (a misspelt ``belote`` would silently change a score),
            or holds bad values.
    """
    if not isinstance(obj, dict):
        raise ActionParseError(f"an action must be a JSON object, got {type(obj).__name__}")
    for key, allowed in _KEYS.items():
        if key in obj:
            extra = sorted(set(obj) - allowed - {"seat"})
            if extra:
                raise ActionParseError(
                    f"unknown key(s) {', '.join(map(repr, extra))} in a {key!r} action "
                    f"(it may hold: {', '.join(sorted(allowed))})")
            break
    try:
        if "card" in obj:
            belote = obj.get("belote", False)
            if not isinstance(belote, bool):
                raise ActionParseError(f"belote must be true or false, got {belote!r}")
            return PLAYS[Card.parse(obj["card"])][belote]
        if "bid" in obj:
            try:
                kind = BidKind(obj["bid"])
            except ValueError:
                raise ActionParseError(
                    f"unknown bid {obj['bid']!r}: expected one of {', '.join(k.value for k in BidKind)}"
                ) from None
            trump = _suit(obj["trump"]) if obj.get("trump") is not None else None
            if trump is not None and kind is not BidKind.TAKE:
                raise ActionParseError(f"only a take names a trump, not {kind.value!r}")
            return Bid(kind, trump)
        if "schmeiss" in obj:
            answer = obj["schmeiss"]
            if answer not in ("accept", "refuse"):
                raise ActionParseError(f"schmeiss answer must be 'accept' or 'refuse', got {answer!r}")
            return SchmeissAnswer(answer == "accept")
        if "declare" in obj:
            decl = obj["declare"]
            if not isinstance(decl, list) or not all(isinstance(d, list) for d in decl):
                raise ActionParseError("declare must be a list of card lists, e.g. [[\"7H\", \"8H\", \"9H\"]]")
            return Declare(tuple(sorted((Declaration.parse(d) for d in decl), key=lambda d: d.cards)))
        if "exchange" in obj:
            if not isinstance(obj["exchange"], bool):
                raise ActionParseError(f"exchange must be true or false, got {obj['exchange']!r}")
            return Exchange(obj["exchange"])
        if "call" in obj:
            try:
                return Call(CallKind(obj["call"]))
            except ValueError:
                raise ActionParseError(
                    f"unknown call {obj['call']!r}: expected one of {', '.join(k.value for k in CallKind)}"
                ) from None
        if "trump" in obj:
            return NameTrump(_suit(obj["trump"]))
    except ActionParseError:
        raise
    except ValueError as e:
        raise ActionParseError(str(e)) from None
    raise ActionParseError(
        "unknown action: expected one of the keys card, bid, schmeiss, declare, exchange, call, trump; got "
        + ", ".join(sorted(k for k in obj if k != "seat"))
    )
