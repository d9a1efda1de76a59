"""A stored board at one table as plain data, for the web replay viewer and ``arena log``.

:func:`in_board_suits` turns table 2's record back into the board's own suits
(RULES.md §8, *Suit relabelling*); :func:`table_view` replays a stored table
under the rules (``referee.rules.replay``) and lays it out as JSON-able
dicts: the hands at the first trick, the bidding, declarations, the trump-7
exchange, belote-rebelote, the tricks with their running trick points, and the
stored outcome (contract, score, capot, litige pot; RULES.md §6.2, §6.3).
"""

from __future__ import annotations

from referee.records import TableResult
from referee.rules import Bid, Card, DealRecord, NameTrump, SchmeissAnswer, relabel, replay
from referee.rules.actions import Call, action_from_json
from referee.rules.cards import CARD_TEXT, cards_of

__all__ = ["card_json", "in_board_suits", "relabel_action_json", "seat_names", "table_view", "team_names"]

_SUITS = "SHDC"
_SYMBOLS = "♠♥♦♣"
IDENTITY = (0, 1, 2, 3)


def seat_names(seats: int) -> tuple[str, ...]:
    """The seats' names: ``N E S W`` (seats 0..3), or ``P0 P1`` with two players."""
    return ("N", "E", "S", "W") if seats == 4 else tuple(f"P{s}" for s in range(seats))


def team_names(seats: int) -> tuple[str, str]:
    """The teams' names: ``NS``/``EW``, or ``P0``/``P1`` with two players."""
    return ("NS", "EW") if seats == 4 else ("P0", "P1")


def card_json(card: Card) -> dict:
    """``{"card": "JH", "rank": "J", "suit": "H", "symbol": "♥", "red": true}``."""
    text = CARD_TEXT[card]
    return {"card": text, "rank": text[:-1], "suit": text[-1], "symbol": _SYMBOLS[_SUITS.index(text[-1])],
            "red": text[-1] in "HD"}


def relabel_action_json(action: dict, perm) -> dict:
    """Rename the suits of one record action's JSON (cards, trump, declared cards) by
    ``perm`` (``perm[s]`` = the new suit of suit ``s``, S H D C = 0..3)."""

    def card(t: str) -> str:
        return t[:-1] + _SUITS[perm[_SUITS.index(t[-1])]]

    out = dict(action)
    if "card" in out:
        out["card"] = card(out["card"])
    if "trump" in out and out["trump"]:
        out["trump"] = _SUITS[perm[_SUITS.index(out["trump"])]]
    if "declare" in out:
        out["declare"] = [[card(c) for c in d] for d in out["declare"]]
    return out


def in_board_suits(record: DealRecord, permutation) -> DealRecord:
    """The record of a table whose suits were renamed by ``permutation`` (table 2,
    RULES.md §8), written back in the board's own suits; the record itself if the
    permutation is the identity. The scores are the same: renaming suits changes no
    point (a new record is returned; ``record`` is left as it was)."""
    perm = tuple(permutation)
    if perm == IDENTITY:
        return record
    inverse = [0] * 4
    for s, p in enumerate(perm):
        inverse[p] = s
    return DealRecord(
        ruleset=record.ruleset, dealer=record.dealer, deck=relabel(record.deck, inverse),
        actions=[(s, action_from_json(relabel_action_json(a.to_json(), inverse))) for s, a in record.actions],
        pot=record.pot,
    )


def _suit_text(text: str | None) -> str | None:
    return None if text is None else _SYMBOLS[_SUITS.index(text)]


def table_view(result: TableResult, *, board_suits: bool = True) -> dict:
    """One stored table of a board, replayed, as JSON-able data for the viewer.

    Args:
        result: the stored table (``Store.deal_records``).
        board_suits: show table 2 in the board's own suits (the default) rather
            than in the suits it was played with.

    Returns:
        A dict with ``table``, ``ns``/``ew`` entrants, ``seats``, ``seat_names``,
        ``seat_entrants``, ``dealer``, ``turned`` (the card turned up at the deal, §3.1, §7),
        ``relabelled`` (suits shown
        differ from those played), ``hands`` (per seat, the cards held at the first
        trick, each card with ``trick``: the 1-based trick it was played in, or
        ``None``), ``bidding`` (``{"seat", "text"}`` in order), ``taker``, ``trump``
        (symbol or mode), ``declarations`` (``seat``, ``name``, ``text``, and ``combos``: each
        declaration's ``kind`` and ``cards`` as card faces), ``exchange``, ``belotes``, ``tricks``
        (``n``, ``leader``, ``cards`` [``{"seat", "card", "belote", "rebelote"}``],
        ``winner``, ``points``, ``running``: trick points per team so far) and
        ``outcome`` (the stored :class:`~referee.rules.DealOutcome` as JSON).

    Raises:
        referee.rules.RecordError: the stored record does not replay under the rules.
    """
    perm = tuple(result.permutation)
    relabelled = board_suits and perm != IDENTITY
    record = in_board_suits(result.record, perm) if relabelled else result.record
    state = replay(record)
    n = record.ruleset.seats
    names = seat_names(n)
    played_in: dict[int, int] = {}
    for k, trick in enumerate(state.tricks, 1):
        for _, c in trick.cards:
            played_in[int(c)] = k
    hands = []
    for seat in range(n):
        mask = state.hands[seat]
        for s, c, _, _ in state.plays:
            if s == seat:
                mask |= 1 << c
        hands.append([{**card_json(c), "trick": played_in.get(int(c))} for c in cards_of(mask)])
    bidding = [{"seat": s, "name": names[s], "text": str(a)} for s, a in record.actions
               if isinstance(a, (Bid, SchmeissAnswer, NameTrump, Call))]
    flags = {(s, int(c)): (b, r) for s, c, b, r in state.plays}
    running = [0, 0]
    tricks = []
    for k, t in enumerate(state.tricks, 1):
        running[t.winner % 2] += t.points
        tricks.append({
            "n": k, "leader": t.leader, "winner": t.winner, "points": t.points, "running": list(running),
            "cards": [{"seat": s, **card_json(c), "belote": flags.get((s, int(c)), (False, False))[0],
                       "rebelote": flags.get((s, int(c)), (False, False))[1]} for s, c in t.cards],
        })
    outcome = result.outcome
    if state.trump is not None:
        trump = state.trump.symbol
    elif state.trump_mode is not None:
        trump = state.trump_mode.value
    else:
        trump = None
    out_json = outcome.to_json()
    if relabelled and out_json.get("trump"):
        inverse = [0] * 4
        for s, p in enumerate(perm):
            inverse[p] = s
        out_json["trump"] = _SUITS[inverse[_SUITS.index(out_json["trump"])]]
    entrants = (result.ns, result.ew)
    return {
        "table": result.table, "ns": result.ns, "ew": result.ew, "seats": n, "seat_names": list(names),
        "team_names": list(team_names(n)), "seat_entrants": [entrants[s % 2] for s in range(n)],
        "dealer": record.dealer,
        "turned": card_json(record.deck[sum(record.ruleset.first_packets) * n]), "relabelled": relabelled,
        "permutation": list(perm), "hands": hands, "bidding": bidding, "taker": state.taker, "trump": trump,
        "declarations": [{"seat": s, "name": names[s], "text": ", ".join(map(str, d)),
                          "combos": [{"kind": x.kind, "cards": [card_json(c) for c in x.cards]} for x in d]}
                         for s, d in enumerate(state.declared) if d],
        "exchange": None if state.exchanged_by is None else {"seat": state.exchanged_by,
                                                              "name": names[state.exchanged_by]},
        "belotes": [{"seat": s, "name": names[s], "suit": suit.symbol} for s, suit in state.belotes],
        "tricks": tricks, "outcome": out_json, "trump_symbol": _suit_text(out_json.get("trump")),
        "faults": [{"seat": f.seat, "entrant": f.entrant, "kind": f.kind, "detail": f.detail} for f in result.faults],
    }
