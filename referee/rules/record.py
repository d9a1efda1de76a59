"""Deal records: one deal as JSON, and replaying it under the rules.

Format (README "Deal records")::

    {"ruleset": "classic", "dealer": 3, "deck": ["JS", "9S", ...32 cards],
     "pot": 0,                        # optional: litige pot carried in (§6.3)
     "options": {"contree": "on"},    # optional: §6.4 options that differ from the default
     "actions": [{"seat": 0, "bid": "pass"}, {"seat": 1, "bid": "take"},
                 {"seat": 0, "declare": [["7H", "8H", "9H"]]},
                 {"seat": 0, "card": "JH"}, {"seat": 1, "card": "KS", "belote": true}]}

Actions are in the order they were taken (see :mod:`referee.rules.actions`
for every shape).  A ``declare`` action, if any, stands just before that
seat's first card (two players: after the bidding, taker first); absent means
nothing declared.  ``exchange`` absent means the 7 of trump was kept.
``belote`` absent means not announced.  With ``contree`` on, the contrée
calls (``{"seat": 1, "call": "contre"}``, ``"pass"``, ``"surcontre"``) stand
right after the bid that ended the bidding, every one of them, passes
included (§6.4).  Each action's ``seat`` is checked against whose turn it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .actions import Action, ActionParseError, Bid, BidKind, Declare, Exchange, action_from_json
from .cards import CARD_TEXT, Card
from .deal import DealState, IllegalActionError, Phase
from .ruleset import RULESETS, Ruleset, TieRule, get_ruleset, parse_option


class RecordError(ValueError):
    """A deal record that is malformed or breaks the rules.

    Attributes:
        index: the index of the offending action in ``actions`` (``None`` for the header).
        seat: the seat of that action, if known.
        rule: the RULES.md section broken, if any.
    """

    def __init__(self, message: str, *, index: int | None = None, seat: int | None = None, rule: str | None = None):
        where = f"action {index}" + (f" (seat {seat})" if seat is not None else "") + ": " if index is not None else ""
        super().__init__(where + message)
        self.index, self.seat, self.rule = index, seat, rule


@dataclass
class DealRecord:
    """A parsed deal record: ``actions`` as (seat, action) pairs in order."""

    ruleset: Ruleset
    dealer: int
    deck: tuple[Card, ...]
    actions: list[tuple[int, Action]]
    pot: int = 0

    def to_json(self) -> dict:
        options = changed_options(self.ruleset)
        return {
            "ruleset": self.ruleset.name,
            **({"options": options} if options else {}),
            "dealer": self.dealer,
            "deck": [CARD_TEXT[c] for c in self.deck],
            **({"pot": self.pot} if self.pot else {}),
            "actions": [{"seat": s, **a.to_json()} for s, a in self.actions],
        }


def changed_options(ruleset: Ruleset) -> dict[str, str]:
    """The §6.4 options of ``ruleset`` whose value differs from its default, e.g. ``{"contree": "on"}``."""
    base = RULESETS[ruleset.name].variant_options() if ruleset.name in RULESETS else {}
    return {k: v for k, v in ruleset.variant_options().items() if base.get(k) != v}


def _options(obj) -> dict[str, bool]:
    """Read a record's ``options`` object ({"contree": "on", ...}, RULES.md §6.4)."""
    if not isinstance(obj, dict):
        raise RecordError('options must be an object such as {"contree": "on", "declarations": "off"}')
    out = {}
    for k, v in obj.items():
        try:
            name, value = parse_option(f"{k}={v}" if isinstance(v, str) else f"{k}=?")
        except ValueError as e:
            raise RecordError(str(e).replace("option", "record option", 1)) from None
        out[name] = value
    return out


def parse_record(obj) -> DealRecord:
    """Read a record object (already decoded from JSON).

    Raises:
        RecordError: for a missing or bad field, naming it; for a malformed action, naming its index.
    """
    if not isinstance(obj, dict):
        raise RecordError("a deal record must be a JSON object with ruleset, dealer, deck and actions")
    if "record" in obj and isinstance(obj["record"], dict):  # a hand-checked case file: {"record": ..., "expected": ...}
        obj = obj["record"]
    extra = sorted(set(obj) - {"ruleset", "dealer", "deck", "actions", "pot", "target", "options"})
    if extra:
        raise RecordError(f"unknown field(s) {', '.join(map(repr, extra))}: a record holds ruleset, dealer, deck, "
                          "actions and optionally pot, target and options")
    missing = [key for key in ("ruleset", "dealer", "deck", "actions") if key not in obj]
    if missing:
        raise RecordError(f"missing field{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
                          "(a record needs ruleset, dealer, deck and actions)")
    try:
        ruleset = get_ruleset(obj["ruleset"]) if isinstance(obj["ruleset"], str) else get_ruleset(str(obj["ruleset"]))
        target = obj.get("target")
        if target is not None:
            ruleset = ruleset.with_options(target=target)
        if "options" in obj:
            ruleset = ruleset.with_options(**_options(obj["options"]))
    except ValueError as e:
        raise RecordError(str(e)) from None
    dealer = obj["dealer"]
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < ruleset.seats:
        raise RecordError(f"dealer must be a seat number 0..{ruleset.seats - 1}, got {dealer!r}")
    deck_in = obj["deck"]
    if not isinstance(deck_in, list) or len(deck_in) != 32:
        raise RecordError("deck must be a list of the 32 cards, top (index 0) first")
    try:
        deck = tuple(Card.parse(t) for t in deck_in)
    except ValueError as e:
        raise RecordError(f"deck: {e}") from None
    if len(set(deck)) != 32:
        dup = sorted({CARD_TEXT[c] for c in deck if deck.count(c) > 1})
        raise RecordError(f"deck must hold each card once; repeated: {' '.join(dup)}")
    pot = obj.get("pot", 0)
    if not isinstance(pot, int) or isinstance(pot, bool) or pot < 0:
        raise RecordError(f"pot must be a whole number of points >= 0, got {pot!r}")
    if pot and ruleset.tie is not TieRule.LITIGE:
        raise RecordError(f"pot: {ruleset.name} has no litige, so no pot is carried (RULES.md §6.2, §6.3); "
                          "leave pot out")
    if not isinstance(obj["actions"], list):
        raise RecordError("actions must be a list")
    actions = []
    for i, item in enumerate(obj["actions"]):
        seat = item.get("seat") if isinstance(item, dict) else None
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < ruleset.seats:
            raise RecordError(f"seat must be a seat number 0..{ruleset.seats - 1}, got {seat!r}", index=i)
        try:
            actions.append((seat, action_from_json(item)))
        except ActionParseError as e:
            raise RecordError(str(e), index=i, seat=seat) from None
    return DealRecord(ruleset=ruleset, dealer=dealer, deck=deck, actions=actions, pot=pot)


def load_record(path) -> DealRecord:
    """Read and parse a record file.

    Raises:
        RecordError: unreadable file, not JSON (with line and column), or a bad record.
    """
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    return parse_record(obj)


def _normalise(state: DealState, action: Action) -> Action:
    """A round-1 take that names the turned suit is the plain round-1 take."""
    if isinstance(action, Bid) and action.kind is BidKind.TAKE and action.trump is not None:
        rnd = state.ruleset.bidding_rounds[state.bidding_round] if state.phase is Phase.BIDDING else None
        if rnd is not None and rnd.take_turned and not rnd.take_any_suit and action.trump == state.turned >> 3:
            return Bid(BidKind.TAKE)
    return action


#: The phases where a declaration may stand in a record (RULES.md §5: after the bidding).
_AFTER_BIDDING = (Phase.DECLARATION, Phase.EXCHANGE, Phase.PLAY)


def replay(record: DealRecord, *, scores: tuple[int, ...] | None = None) -> DealState:
    """Play every action of ``record`` through the rules; return the final state.

    Optional decisions left out of the record (a declaration, the exchange) are
    taken as "nothing declared" / "kept"; ``"declare": []`` from any seat after
    the bidding is "nothing declared" too (whatever its hand holds).

    Raises:
        RecordError: at the first action the rules refuse (with its index, seat and
            RULES.md section), or when the record ends before the deal does.
    """
    state = DealState(record.ruleset, record.deck, record.dealer, pot=record.pot, scores=scores)
    for i, (seat, action) in enumerate(record.actions):
        if isinstance(action, Declare) and not action.declarations and state.phase in _AFTER_BIDDING and not (
                state.phase is Phase.DECLARATION and seat == state.to_act):
            continue  # "declare": [] is nothing declared, from any seat: the same as leaving it out
        while state.phase is Phase.DECLARATION and not (isinstance(action, Declare) and seat == state.to_act):
            state.apply(Declare(()))  # two players declare one after the other: each may be left out
        if state.phase is Phase.EXCHANGE and not (isinstance(action, Exchange) and seat == state.to_act):
            state.apply(Exchange(False))
        try:
            state.apply_checked(seat, _normalise(state, action))
        except IllegalActionError as e:
            raise RecordError(str(e), index=i, seat=seat, rule=e.rule) from None
    if not state.is_terminal():
        raise RecordError(
            f"the record ends before the deal does: {len(record.actions)} actions, "
            f"next is seat {state.to_act} in phase {state.phase.value}"
        )
    return state


def record_of(state: DealState) -> DealRecord:
    """The deal record of a state (the actions so far), leaving out implicit defaults."""
    actions = [
        (s, a) for s, a in state.history
        if not (isinstance(a, Declare) and not a.declarations) and not (isinstance(a, Exchange) and not a.exchange)
    ]
    return DealRecord(ruleset=state.ruleset, dealer=state.dealer, deck=state.deck, actions=actions, pot=state.pot)
