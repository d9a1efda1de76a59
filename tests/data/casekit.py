"""Build hand-checked case files (tests/data/cases/**) from intended hands.

This is a writing aid, not an oracle: it lays the deck out so that each seat
receives the hand we want (RULES.md §3 for four players, §7 for two) and turns
a compact script of bids, declarations and tricks into a deal record.  It
computes nothing about who wins a trick or what anything scores: the
``expected`` value and the ``why`` of every case are worked out by hand from
RULES.md and typed into the case specification (tests/data/case_specs.py).

Hands: a seat's *final* hand as card texts, the first cards being the ones of
the first deal (5 for four players: packet of 3 then of 2; 6 for two players:
two packets of 3) and the rest the ones dealt after the bidding.  With four
players the taker's hand lists 7 cards (the turned card is added by the
deal); for a passed-out deal only the first 5 are needed.  Cards not placed
by the hands fill the bottom of the deck in natural order.

Script syntax: bids ``"0:pass 1:take 2:take:H 3:all-trumps 0:schmeiss
1:refuse 1:accept 0:name:H"``; tricks ``"0:AS 1:7S 2:8S 3:9S"`` (seat:card,
in play order; ``KH*`` announces belote with that card).

Options of RULES.md §6.4: ``"options": {"contree": "on"}`` goes into the
record; contrée calls ``"calls": "1:pass 3:contre 0:surcontre"`` follow the
bids (seat:call).

Invalid cases: a trailing ``!`` on a bid, a call or a card (or ``"bad_declare": seat``,
``"bad_exchange": True``) marks the action the referee must refuse; the case
then expects ``{"error_index": <its index in actions>}`` — the index is where
we put the illegal action, not something the engine computed.
"""

from __future__ import annotations

import json
from pathlib import Path

SUITS = "SHDC"
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
ALL_CARDS = [r + s for s in SUITS for r in RANKS]


def _cards(text: str) -> list[str]:
    out = text.split()
    for c in out:
        if c not in ALL_CARDS:
            raise ValueError(f"bad card {c!r}")
    return out


def _bid(item: str) -> dict:
    item = item.rstrip("!")
    seat, *rest = item.split(":")
    seat = int(seat)
    word = rest[0]
    if word in ("accept", "refuse"):
        return {"seat": seat, "schmeiss": word}
    if word == "name":
        return {"seat": seat, "trump": rest[1]}
    out = {"seat": seat, "bid": word}
    if len(rest) > 1:
        out["trump"] = rest[1]
    return out


def build(spec: dict) -> dict:
    """The case file object of one specification (see tests/data/case_specs.py)."""
    ruleset = spec["ruleset"]
    seats = 2 if ruleset == "two-player" else 4
    dealer = spec["dealer"]
    order = [(dealer + 1 + i) % seats for i in range(seats)]
    hands = {int(s): _cards(h) for s, h in spec["hands"].items()}
    packets = (3, 3) if seats == 2 else (3, 2)
    deck: list[str] = []
    pos = 0
    for size in packets:
        for s in order:
            deck += hands[s][pos : pos + size]
        pos += size
    deck.append(spec["turned"])
    for s in order:
        deck += hands[s][pos:]
    for c in ALL_CARDS:
        if c not in deck:
            deck.append(c)
    if len(deck) != 32 or len(set(deck)) != 32:
        dup = sorted({c for c in deck if deck.count(c) > 1})
        raise ValueError(f"{spec['name']}: deck of {len(deck)} cards, repeated {dup}")
    actions = []
    bad = None
    for b in spec.get("bids", "").split():
        if b.endswith("!"):
            bad = len(actions)
        actions.append(_bid(b))
    for c in spec.get("calls", "").split():
        if c.endswith("!"):
            bad = len(actions)
        seat_text, call = c.rstrip("!").split(":")
        actions.append({"seat": int(seat_text), "call": call})
    declares = {int(s): d for s, d in spec.get("declares", {}).items()}
    if seats == 2:
        for s, d in spec.get("declare_order", []):
            if spec.get("bad_declare") == s:
                bad = len(actions)
            actions.append({"seat": s, "declare": [_cards(x) for x in d]})
        if spec.get("exchange") is not None:
            if spec.get("bad_exchange"):
                bad = len(actions)
            actions.append({"seat": spec["exchange"], "exchange": True})
    first_card_done: set[int] = set()
    for trick in spec.get("tricks", []):
        for item in trick.split():
            seat_text, card = item.split(":")
            seat = int(seat_text)
            if card.endswith("!"):
                bad = len(actions) + (1 if seats == 4 and seat not in first_card_done and seat in declares else 0)
                card = card[:-1]
            belote = card.endswith("*")
            card = card.rstrip("*")
            _cards(card)
            if seats == 4 and seat not in first_card_done and seat in declares:
                if spec.get("bad_declare") == seat:
                    bad = len(actions)
                actions.append({"seat": seat, "declare": [_cards(x) for x in declares[seat]]})
            first_card_done.add(seat)
            a = {"seat": seat, "card": card}
            if belote:
                a["belote"] = True
            actions.append(a)
    record = {"ruleset": ruleset, "dealer": dealer, "deck": deck}
    if spec.get("options"):
        record["options"] = spec["options"]
    if spec.get("pot"):
        record["pot"] = spec["pot"]
    record["actions"] = actions
    expected = spec.get("expected")
    if bad is not None:
        if expected is not None:
            raise ValueError(f"{spec['name']}: an invalid case expects only its error index")
        expected = {"error_index": bad}
    return {"record": record, "expected": expected, "why": spec["why"]}


def write(specs, root: Path) -> list[Path]:
    """Write every specification to ``root/<name>.json``; return the paths."""
    paths = []
    for spec in specs:
        path = root / f"{spec['name']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(build(spec), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
