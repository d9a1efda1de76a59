"""Double-dummy solving of a deal's card play (RULES.md §2, §5, §6.2, §6.4, §7).

Double dummy: every hand is known to every seat (perfect information), and each side
plays to take the most **trick points** (card points + dix de der, RULES.md §6.2) it can,
a capot counting as 252 to 0 (§6.2; no capot bonus with two players, §7). A deal's score
is a non-decreasing function of that capot-adjusted margin in every ruleset and option
(the contract, a litige, dedans, contrée multipliers, the two-player score sheet), so the
play that is perfect for trick points is perfect for the score too, and the
double-dummy **score** is the ruleset's own scoring (:func:`referee.rules.scoring.score_deal`)
of the double-dummy trick points, with the declarations as made and every belote pair
still held taken as announced (§5).

It is a yardstick, not a verdict: real players do not see the other hands.

Usage::

    solver = Solver()
    result = solver.solve(state)            # a DealState in its play phase
    result.trick_points                     # (NS, EW) with perfect play, e.g. (97, 65)
    solver.card_values(state)               # {card: DDResult} for each legal card

Teams: index 0 = NS (seats 0, 2), 1 = EW; with two players the seat itself.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import numpy as np

from referee.rules import Card, DealState, Phase, Ruleset, TrumpMode
from referee.rules.cards import CARDS
from referee.rules.declarations import declaration_options, declaration_winner
from referee.rules.ruleset import (
    ALL_TRUMPS_POINTS, NO_TRUMPS_POINTS, PLAIN_POINTS, PLAIN_STRENGTH, TRUMP_POINTS, TRUMP_STRENGTH,
)
from referee.rules.scoring import DealOutcome, score_deal

from belote_arena_sdk import dd as _k


@dataclass(frozen=True)
class DDResult:
    """The double-dummy result of a position (or of one card played from it).

    Attributes:
        trick_points: each team's trick points at the end of the deal with perfect play from
            here, past tricks included: card points + dix de der (RULES.md §6.2), a capot
            being 252 and 0 (4 players; two players keep their points, §7). Per team
            ``(NS, EW)``.
        capot: the team that takes every trick, or ``None``.
        outcome: the deal scored by the ruleset from those trick points
            (:class:`~referee.rules.scoring.DealOutcome`; ``outcome.score`` per team, points).
    """

    trick_points: tuple[int, int]
    capot: int | None
    outcome: DealOutcome

    @property
    def score(self) -> tuple[int, ...]:
        """The double-dummy deal score per team, points (RULES.md §6.2–§6.4, §7)."""
        return self.outcome.score


@dataclass(frozen=True)
class Position:
    """The numeric form of a card-play position (what the search reads).

    Attributes:
        hands: cards held per seat, as 32-bit masks (:mod:`referee.rules.cards`).
        leader: the seat that led the trick in progress (or leads the next one).
        trick: the cards of the trick in progress, in play order.
        past_points: trick points taken by each team in finished tricks.
        tricks_won: finished tricks taken by each team.
        tricks_left: tricks still to finish (the one in progress included).
    """

    hands: tuple[int, ...]
    leader: int
    trick: tuple[Card, ...]
    past_points: tuple[int, int]
    tricks_won: tuple[int, int]
    tricks_left: int


@functools.lru_cache(maxsize=64)
def _tables(ruleset: Ruleset, trump_mode: TrumpMode, trump: int | None) -> _Tables:
    return _Tables(ruleset, trump_mode, trump)


class _Tables:
    """The per-card arrays of one trump mode (RULES.md §2) and the rules array (§5, §6.2)."""

    def __init__(self, ruleset: Ruleset, trump_mode: TrumpMode, trump: int | None):
        strength = np.zeros(32, np.int64)
        points = np.zeros(32, np.int64)
        above = np.zeros(32, np.int64)
        for c in range(32):
            s, r = c >> 3, c & 7
            if trump_mode is TrumpMode.SUIT:
                order, pts = (TRUMP_STRENGTH, TRUMP_POINTS) if s == trump else (PLAIN_STRENGTH, PLAIN_POINTS)
            elif trump_mode is TrumpMode.ALL_TRUMPS:
                order, pts = TRUMP_STRENGTH, ALL_TRUMPS_POINTS
            else:
                order, pts = PLAIN_STRENGTH, NO_TRUMPS_POINTS
            strength[c], points[c] = order[r], pts[r]
            above[c] = sum(1 << (s * 8 + q) for q in range(8) if order[q] > order[r])
        if trump_mode is TrumpMode.SUIT:
            monter = (1 << trump) if ruleset.monter else 0
        elif trump_mode is TrumpMode.ALL_TRUMPS:
            monter = 0b1111 if ruleset.monter else 0
        else:
            monter = 0
        rules = np.zeros(_k.W_HANDS, np.int64)
        rules[_k.R_SEATS] = ruleset.seats
        rules[_k.R_TRUMP] = trump if trump_mode is TrumpMode.SUIT else -1
        rules[_k.R_MONTER] = monter
        rules[_k.R_OVERTRUMP] = ruleset.must_overtrump
        rules[_k.R_UNDERTRUMP] = ruleset.undertrump
        rules[_k.R_VS_OPPONENT] = ruleset.trump_only_against_opponent
        rules[_k.R_DIX] = ruleset.dix_de_der
        rules[_k.R_CAPOT_HALF] = ruleset.capot_bonus // 2
        self.tab = np.stack([strength, points, above])
        self.strength, self.points, self.rules = strength, points, rules
        self.trump = int(rules[_k.R_TRUMP])

    def beats(self, card: int, best: int) -> bool:
        if card >> 3 == best >> 3:
            return self.strength[card] > self.strength[best]
        return card >> 3 == self.trump


def position_of(state: DealState) -> Position:
    """The card-play position of ``state`` (its play phase, or a declaration choice in trick 1).

    Raises:
        ValueError: the deal is not in its card play (bidding, passed out, over).
    """
    if state.phase not in (Phase.PLAY, Phase.DECLARATION) or state.taker is None or (
            state.phase is Phase.DECLARATION and state.ruleset.declarations.during_first_trick is False):
        raise ValueError(f"no card play to solve: the deal is in its {state.phase.value} phase")
    trick = tuple(c for _, c in state.trick)
    leader = state.trick[0][0] if state.trick else state.to_act
    return Position(
        hands=tuple(state.hands), leader=leader, trick=trick, past_points=tuple(state.trick_points),
        tricks_won=tuple(state.tricks_won), tricks_left=state.ruleset.tricks - len(state.tricks),
    )


class _ScoreView:
    """What :func:`referee.rules.scoring.score_deal` reads of a finished deal, for trick points
    that were not played out (the double-dummy ones)."""

    def __init__(self, state: DealState, trick_points, tricks_won, declared, declaration_team, belotes):
        self.ruleset, self.taker, self.trump_mode, self.trump = state.ruleset, state.taker, state.trump_mode, state.trump
        self.pot, self.multiplier = state.pot, state.multiplier
        self.trick_points, self.tricks_won = list(trick_points), list(tricks_won)
        self.declared, self.declaration_team, self.belotes = declared, declaration_team, belotes

    @staticmethod
    def team_of(seat: int) -> int:
        return seat % 2


def _declarations(state: DealState, final: DealState | None):
    """The declarations as they stand at the end of the deal (RULES.md §6.1, §7): ``final``'s
    (a replay of the same record) when given; else those made, a seat yet to choose in trick 1
    taking its best-scoring choice."""
    if final is not None:
        return list(final.declared), final.declaration_team
    rules = state.ruleset.declarations
    if rules is None or not rules.during_first_trick or state.tricks:
        return list(state.declared), state.declaration_team  # resolved (or none in this deal)
    declared = []
    for seat, d in enumerate(state.declared):
        if d is None:
            d = max(declaration_options(state.hands[seat], rules), key=lambda o: sum(x.points(rules) for x in o))
        declared.append(d)
    team = declaration_winner({s: d for s, d in enumerate(declared) if d}, rules,
                              state.trump if state.trump_mode is TrumpMode.SUIT else None,
                              state.order_from_eldest(), lambda s: s % 2)
    return declared, team


class Solver:
    """A double-dummy solver with its own transposition table (16 MB).

    Reuse one solver for the positions of one deal: the table carries over between them
    (a position of another deal starts a new generation of it). Calls from several threads
    are taken one at a time (a lock); a solver per thread solves in parallel.
    """

    def __init__(self) -> None:
        self._tt = _k.new_table()
        self._gen = 0
        self._deal_key: tuple | None = None
        self._ws = _k.new_workspace()
        self._lock = threading.Lock()

    @property
    def nodes(self) -> int:
        """Search nodes visited since the solver was made."""
        return int(self._ws[_k.W_NODES])

    def _prepare(self, state: DealState):
        key = (state.ruleset, state.trump_mode, state.trump)
        tables = _tables(*key)
        pos = position_of(state)
        # the table is keyed by the cards still held: a new deal (other owners) takes a new generation
        owners = tuple(pos.hands[s] | sum(1 << c for c in _played_by(state, s)) for s in range(state.ruleset.seats))
        deal_key = (owners, key)
        if deal_key != self._deal_key:
            self._gen += 1
            self._deal_key = deal_key
        return tables, pos

    def _args(self, tables: _Tables, pos: Position):
        """The search's arguments for ``pos`` (the workspace filled with its rules, hands and trick)."""
        ws = self._ws
        ws[:_k.W_HANDS] = tables.rules
        ws[_k.W_HANDS:_k.W_HANDS + 4] = 0
        ws[_k.W_HANDS:_k.W_HANDS + len(pos.hands)] = pos.hands
        ws[_k.W_DEPTH] = 0
        ws[_k.W_GEN] = self._gen
        led, best, best_seat, trick_pts = -1, 0, 0, 0
        n = len(pos.hands)
        for i, c in enumerate(pos.trick):
            ws[_k.W_TRICK + i] = c
            trick_pts += int(tables.points[c])
            if i == 0:
                led, best, best_seat = c >> 3, c, pos.leader
            elif tables.beats(c, best):
                best, best_seat = c, (pos.leader + i) % n
        rem = 0
        for h in pos.hands:
            rem |= h
        rem_pts = int(sum(int(tables.points[c]) for c in range(32) if rem >> c & 1))
        won = pos.tricks_won
        capot = 0 if won == (0, 0) else 1 if won[1] == 0 else 2 if won[0] == 0 else 3
        return (tables.tab, self._tt, ws, len(pos.trick), pos.leader, led, best, best_seat, trick_pts, rem_pts, capot,
                pos.tricks_left)

    def _result(self, state: DealState, tables: _Tables, pos: Position, future_ns: int, final) -> DDResult:
        rules = state.ruleset
        rem = 0
        for h in pos.hands:
            rem |= h
        total = (sum(pos.past_points) + sum(int(tables.points[c]) for c in pos.trick)
                 + sum(int(tables.points[c]) for c in range(32) if rem >> c & 1) + rules.dix_de_der)
        ns = pos.past_points[0] + future_ns
        half = rules.capot_bonus // 2
        capot = None
        if half and ns == total + half:
            capot, raw, won = 0, (total, 0), (rules.tricks, 0)
        elif half and ns == -half:
            capot, raw, won = 1, (0, total), (0, rules.tricks)
        else:
            raw, won = (ns, total - ns), (0, 0)
        declared, team = _declarations(state, final)
        belotes = list(state.belotes) + [(seat, s) for seat in range(rules.seats) for s in range(4)
                                         if state.belote_suits[seat] >> s & 1]
        outcome = score_deal(_ScoreView(state, raw, won, declared, team, belotes))
        if capot is not None:
            tp = [0, 0]
            tp[capot] = 152 + rules.dix_de_der + rules.capot_bonus
            shown = (tp[0], tp[1])
        else:
            shown = raw
        return DDResult(trick_points=shown, capot=capot, outcome=outcome)

    def solve(self, state: DealState, *, final: DealState | None = None) -> DDResult:
        """The double-dummy result of ``state`` with perfect play by every seat from here.

        Args:
            state: a deal in its card play (RULES.md §5; §7 "Play").
            final: the same deal played to its end, whose declarations to score (a seat
                still to declare in trick 1 otherwise takes its best-scoring choice, §6.1).

        Raises:
            ValueError: ``state`` is not in its card play.
        """
        with self._lock:
            tables, pos = self._prepare(state)
            args = self._args(tables, pos)
            if pos.tricks_left == 0:
                v = 0
            else:
                v = int(_k.solve(*args, -_k.INF))  # no guess: halving from the start
            return self._result(state, tables, pos, v, final)

    def card_values(self, state: DealState, *, final: DealState | None = None) -> dict[Card, DDResult]:
        """The double-dummy result of playing each legal card of the seat to act (RULES.md §5),
        the others playing perfectly after it; in card order.

        Raises:
            ValueError: ``state`` is not in its card play.
        """
        with self._lock:
            tables, pos = self._prepare(state)
            cards = np.zeros(32, np.int64)
            values = np.zeros(32, np.int64)
            m = _k.card_values(*self._args(tables, pos), cards, values)
            return {CARDS[int(cards[i])]: self._result(state, tables, pos, int(values[i]), final) for i in range(m)}


def _played_by(state: DealState, seat: int) -> list[Card]:
    return [c for s, c, *_ in state.plays if s == seat]


def legal_mask_of(state: DealState) -> int:
    """The search's legal cards for the seat to act (the same as the rules engine's
    :meth:`~referee.rules.deal.DealState.legal_card_mask`; kept for the tests that check it)."""
    tables = _tables(state.ruleset, state.trump_mode, state.trump)
    pos = position_of(state)
    ws = _k.new_workspace()
    ws[:_k.W_HANDS] = tables.rules
    ws[_k.W_HANDS:_k.W_HANDS + len(pos.hands)] = pos.hands
    led, best, best_seat = -1, 0, 0
    n = len(pos.hands)
    for i, c in enumerate(pos.trick):
        if i == 0:
            led, best, best_seat = c >> 3, c, pos.leader
        elif tables.beats(c, best):
            best, best_seat = c, (pos.leader + i) % n
    seat = (pos.leader + len(pos.trick)) % n
    return int(_k.legal_mask(tables.tab, ws, seat, len(pos.trick), led, best, best_seat))


__all__ = ["DDResult", "Position", "Solver", "legal_mask_of", "position_of"]
