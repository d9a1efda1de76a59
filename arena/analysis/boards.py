"""Double-dummy analysis of played deals (issue 23): every card against perfect play.

For each card played at a table, the solver (:mod:`.solver`) values every legal card of
the seat with the other hands in view (double dummy): the **best** value and the value of
the card **played**, both in the trick points the seat's team ends the deal with
(RULES.md §6.2: card points + dix de der, a capot 252). Their difference is the points
the card lost to double dummy (0 for a best card). Each table's double-dummy result (from
its first card) stands beside what was scored.

Perfect-information play is a yardstick, not a verdict: a real seat does not see the
other hands, so a card that loses points here may still have been a good guess.

The analysis is computed on demand (``arena analyze``), never while a tournament plays,
and cached in the database (tables ``dd_deals`` and ``dd_cards``, schema version 5);
:data:`SOLVER_VERSION` marks the rows, and rows of another version are computed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.rules import Card, DealRecord, Phase, Play, replay
from referee.rules.cards import CARD_TEXT
from referee.rules.deal import DealState

if TYPE_CHECKING:  # the solver (numba) is imported only where a deal is solved: reports read the cache
    from .solver import DDResult, Solver

#: Bumped when the solver's values change meaning; cached rows of another version are recomputed.
SOLVER_VERSION = 1


@dataclass(frozen=True)
class CardAnalysis:
    """One card played, against double dummy.

    Attributes:
        play: the card's index among the table's cards played (0 = the first card).
        trick: the trick it was played to, 1..8 (1..9 with two players).
        seat: who played it.
        card: the card played; ``best_card``: a card of the best double-dummy value
            (the card played when it is one of them).
        best_points: the seat's team's trick points at the end of the deal after the best
            card, with perfect play by every seat after it (points, RULES.md §6.2).
        points: the same after the card played.
    """

    play: int
    trick: int
    seat: int
    card: Card
    best_card: Card
    best_points: int
    points: int

    @property
    def lost(self) -> int:
        """Points lost to double dummy by this card: ``best_points - points`` (≥ 0)."""
        return self.best_points - self.points

    def to_json(self) -> dict:
        return {"play": self.play, "trick": self.trick, "seat": self.seat, "card": CARD_TEXT[self.card],
                "best_card": CARD_TEXT[self.best_card], "best_points": self.best_points, "points": self.points,
                "lost": self.lost}


@dataclass(frozen=True)
class DealAnalysis:
    """A deal's card play against double dummy.

    Attributes:
        trick_points: double-dummy trick points per team ``(NS, EW)`` from the first card
            (RULES.md §6.2; a capot 252 and 0), or ``None`` for a deal without card play
            (passed out, §3.3; an accepted schmeiss, §7).
        score: the double-dummy deal score per team, points, as the ruleset scores it
            (§6.2–§6.4, §7), or ``None``.
        cards: every card played, in order.
    """

    trick_points: tuple[int, int] | None
    score: tuple[int, int] | None
    cards: tuple[CardAnalysis, ...]

    def points_lost(self, team: int) -> int:
        """Points lost to double dummy by the cards of ``team``'s seats (0 = NS, 1 = EW)."""
        return sum(c.lost for c in self.cards if c.seat % 2 == team)


def _team_points(result: DDResult, team: int) -> int:
    return result.trick_points[team]


def _margin(result: DDResult, team: int) -> int:
    return result.trick_points[team] - result.trick_points[1 - team]


def analyse_deal(record: DealRecord, solver: Solver | None = None) -> DealAnalysis:
    """Every card of a deal record against double dummy (see the module docstring).

    Args:
        record: a complete deal record (:func:`referee.rules.parse_record`).
        solver: a solver to reuse (its table carries over); a new one by default.

    Raises:
        referee.rules.RecordError: the record breaks the rules or ends early.
    """
    from .solver import Solver

    final = replay(record)
    if final.taker is None or not final.tricks:
        return DealAnalysis(None, None, ())
    solver = solver or Solver()
    state = DealState(record.ruleset, record.deck, record.dealer, pot=record.pot)
    cards: list[CardAnalysis] = []
    first: DDResult | None = None
    for seat, action in final.history:
        if isinstance(action, Play) and state.phase is Phase.PLAY:
            values = solver.card_values(state, final=final)
            team = seat % 2
            best = max(values, key=lambda c: (_margin(values[c], team), c == action.card))
            if first is None:
                first = values[best]
            cards.append(CardAnalysis(
                play=len(cards), trick=len(state.tricks) + 1, seat=seat, card=action.card, best_card=best,
                best_points=_team_points(values[best], team), points=_team_points(values[action.card], team),
            ))
        state.apply(action)
    assert first is not None
    return DealAnalysis(first.trick_points, tuple(first.score), tuple(cards))


@dataclass(frozen=True)
class TableAnalysis:
    """One table of a stored board, analysed: who sat where, what was played and scored, and
    the double-dummy :class:`DealAnalysis` (cards in the table's own suits, as its record).

    Attributes:
        trick_points: the trick points taken at the table per team ``(NS, EW)`` (RULES.md
            §6.2; a capot 252 and 0).
        score: the deal's score per team as stored (points).
        seats: 4, or 2 (two-player: "NS" means seat 0, "EW" seat 1).
        permutation: the suit renaming the table was dealt with (table 2: suit ``s`` of the
            board is ``permutation[s]`` at the table, RULES.md §8); the identity at table 1.
    """

    board: int
    table: int
    ns: str
    ew: str
    deal: DealAnalysis
    trick_points: tuple[int, int]
    score: tuple[int, int]
    seats: int = 4
    permutation: tuple[int, ...] = (0, 1, 2, 3)

    def to_json(self) -> dict:
        d = self.deal
        return {"board": self.board, "table": self.table, "ns": self.ns, "ew": self.ew, "seats": self.seats,
                "permutation": list(self.permutation),
                "trick_points": list(self.trick_points), "score": list(self.score),
                "dd_trick_points": list(d.trick_points) if d.trick_points else None,
                "dd_score": list(d.score) if d.score else None,
                "points_lost": [d.points_lost(0), d.points_lost(1)],
                "cards": [c.to_json() for c in d.cards]}


def _played_points(outcome, ruleset) -> tuple[int, int]:
    if outcome.capot is not None and ruleset.capot_bonus:
        tp = [0, 0]
        tp[outcome.capot] = 152 + ruleset.dix_de_der + ruleset.capot_bonus
        return tp[0], tp[1]
    return tuple(outcome.trick_points)


def _deal_of(row: tuple, cards: list[tuple]) -> DealAnalysis:
    tp = (row[6], row[7]) if row[6] is not None else None
    score = (row[8], row[9]) if row[8] is not None else None
    return DealAnalysis(tp, score, tuple(
        CardAnalysis(play=c[3], trick=c[4], seat=c[5], card=Card.parse(c[6]), best_card=Card.parse(c[7]),
                     best_points=c[8], points=c[9]) for c in cards))


def analyse_match(store, match_id: str, board: int | None = None, *, progress=None) -> list[TableAnalysis]:
    """The double-dummy analysis of a stored match's boards (or of one board), both tables,
    by board then table: read from the cache, the tables missing from it computed now and,
    when ``store`` may write, cached board by board (an interrupted analysis keeps what it
    finished).

    Args:
        store: an :class:`arena.store.Store` (caches what it computes) or a read-only
            :class:`arena.store.ReadStore` (computes without caching).
        match_id: a stored match's id.
        board: only this board.
        progress: called as ``progress(done, missing)`` before the first table is solved and
            after each (tables counted), when any is missing from the cache.

    Raises:
        arena.store.StoreError: no such match or board.
    """
    tables = store.deal_records(match_id, board=board)
    cached = {(r[1], r[2]): r for r in store.dd_deals(match_id, SOLVER_VERSION, board)}
    cards: dict[tuple[int, int], list[tuple]] = {}
    for c in store.dd_cards(match_id, board):
        cards.setdefault((c[1], c[2]), []).append(c)
    from .solver import Solver

    missing = sum(1 for t in tables if (t.board, t.table) not in cached)
    if missing and progress is not None:
        progress(0, missing)
    solver: Solver | None = None
    out, new_deals, new_cards = [], [], []
    done = 0
    for i, t in enumerate(tables):
        key = (t.board, t.table)
        if key in cached:
            deal = _deal_of(cached[key], cards.get(key, []))
        else:
            solver = solver or Solver()
            deal = analyse_deal(t.record, solver)
            tp, score = deal.trick_points or (None, None), deal.score or (None, None)
            new_deals.append((match_id, t.board, t.table, SOLVER_VERSION, t.ns, t.ew, *tp, *score,
                              deal.points_lost(0), deal.points_lost(1)))
            new_cards.extend((match_id, t.board, t.table, c.play, c.trick, c.seat, CARD_TEXT[c.card],
                              CARD_TEXT[c.best_card], c.best_points, c.points) for c in deal.cards)
            done += 1
            if progress is not None:
                progress(done, missing)
        out.append(TableAnalysis(t.board, t.table, t.ns, t.ew, deal, _played_points(t.outcome, t.record.ruleset),
                                 tuple(t.outcome.score), t.record.ruleset.seats, tuple(t.permutation)))
        last_of_board = i + 1 == len(tables) or tables[i + 1].board != t.board
        if last_of_board and new_deals and hasattr(store, "write_dd"):
            store.write_dd(new_deals, new_cards)
            new_deals, new_cards = [], []
    return out


def points_lost_per_board(store, tournament: str | None = None,
                          tournaments=None) -> dict[str, tuple[float, int]]:
    """Per entrant key: (points lost to double dummy per board, boards counted), from the cache
    only (boards with both tables analysed; ``arena analyze`` fills it). A yardstick of
    perfect-information play, not a verdict."""
    return store.dd_points_lost(SOLVER_VERSION, tournament=tournament, tournaments=tournaments)


def cached_deals(store, match_id: str, board: int) -> dict[int, DealAnalysis]:
    """The cached analysis of one board's tables, by table number (those analysed by
    ``arena analyze``; nothing is computed here: the web view reads it while tournaments run)."""
    rows = store.dd_deals(match_id, SOLVER_VERSION, board)
    cards: dict[int, list[tuple]] = {}
    for c in store.dd_cards(match_id, board):
        cards.setdefault(c[2], []).append(c)
    return {r[2]: _deal_of(r, cards.get(r[2], [])) for r in rows}
