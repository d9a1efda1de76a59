"""Card play by sampling and double-dummy solving (PIMC), over the SDK's compiled search.

For a card decision (RULES.md §5, §7 "Play"): draw deals of the unseen cards consistent with
what the seat knows (:mod:`.knowledge`), solve each one double dummy with the SDK's search
(:mod:`belote_arena_sdk.dd`: every legal card's exact value, every hand in view), turn each
value into the deal's score margin for the seat's team (:func:`score_margin`: the contract
made or not, §6.2–§6.4, §7), and play the card with the best mean over the deals.

This module imports numpy and numba (through :mod:`belote_arena_sdk.dd`); the bot imports it
in a thread of its own at start (compiled code loaded from numba's cache in ~1 s).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

import numpy as np

from belote_arena_sdk import Trump, pb
from belote_arena_sdk import dd

try:
    from .knowledge import Knowledge, PlayRules, card_index, knowledge, play_rules, sample
except ImportError:  # run as a script from the bot's folder
    from knowledge import Knowledge, PlayRules, card_index, knowledge, play_rules, sample

_TRUMP_ORDER = (0, 1, 6, 4, 7, 2, 3, 5)   # strength of ranks 7 8 9 10 J Q K A in trump order J 9 A 10 K Q 8 7
_PLAIN_ORDER = (0, 1, 2, 6, 3, 4, 5, 7)   # in plain order A 10 K Q J 9 8 7
_TRUMP_PTS = (0, 0, 14, 10, 20, 3, 4, 11)
_PLAIN_PTS = (0, 0, 0, 10, 2, 3, 4, 11)
_ALL_TRUMPS_PTS = (0, 0, 9, 5, 13, 2, 3, 6)
_NO_TRUMPS_PTS = (0, 0, 0, 10, 2, 3, 4, 19)


def tables(rules: PlayRules, trump: Trump) -> tuple[np.ndarray, np.ndarray]:
    """The search's per-card table ``int64[3, 32]`` (strength, points, stronger cards of the suit:
    RULES.md §2) and rules block ``int64[dd.W_HANDS]`` (§5, §6.2, §7) for ``trump``."""
    tab = np.zeros((3, 32), np.int64)
    tsuit = trump.suit - 1 if trump.mode == pb.TRUMP_MODE_SUIT else -1
    for c in range(32):
        s, r = c >> 3, c & 7
        if trump.mode == pb.TRUMP_MODE_ALL_TRUMPS:
            order, pts = _TRUMP_ORDER, _ALL_TRUMPS_PTS
        elif trump.mode == pb.TRUMP_MODE_NO_TRUMPS:
            order, pts = _PLAIN_ORDER, _NO_TRUMPS_PTS
        elif s == tsuit:
            order, pts = _TRUMP_ORDER, _TRUMP_PTS
        else:
            order, pts = _PLAIN_ORDER, _PLAIN_PTS
        tab[dd.T_STRENGTH, c] = order[r]
        tab[dd.T_POINTS, c] = pts[r]
        tab[dd.T_ABOVE, c] = sum(1 << (s * 8 + q) for q in range(8) if order[q] > order[r])
    block = np.zeros(dd.W_HANDS, np.int64)
    block[dd.R_SEATS] = rules.seats
    block[dd.R_TRUMP] = tsuit
    if trump.mode == pb.TRUMP_MODE_SUIT:
        block[dd.R_MONTER] = (1 << tsuit) if rules.monter else 0
    elif trump.mode == pb.TRUMP_MODE_ALL_TRUMPS:
        block[dd.R_MONTER] = 0b1111 if rules.monter else 0
    block[dd.R_OVERTRUMP] = rules.must_overtrump
    block[dd.R_UNDERTRUMP] = rules.undertrump
    block[dd.R_VS_OPPONENT] = rules.vs_opponent
    block[dd.R_DIX] = rules.dix_de_der
    block[dd.R_CAPOT_HALF] = rules.capot_bonus // 2
    return tab, block


@dataclass(frozen=True)
class Contract:
    """What turns a deal's trick points into the seat's team's score margin (RULES.md §6.2–§6.4, §7).

    Attributes:
        ruleset: its name; ``seats`` 4 or 2.
        my_team: the observing seat's team (two players: its seat).
        attackers: the taker's team.
        multiplier: 1, 2 (contre) or 4 (surcontre), §6.4.
        bonus: per team, the declarations and belote points known to score so far (public).
        total: the deal's trick points without capot, 162.
    """

    ruleset: str
    seats: int
    my_team: int
    attackers: int
    multiplier: int
    bonus: tuple[int, int]
    total: int


def contract_of(obs: pb.Observation, rules: PlayRules) -> Contract:
    """The :class:`Contract` of an observation in its card play."""
    bonus = [0, 0]
    for p in obs.played_cards:
        if p.belote:
            bonus[p.seat % 2] += 20
    for d in obs.declarations:
        if d.cards:  # public: the winning team's (§6.1), two players the scoring player's (§7)
            bonus[d.seat % 2] += d.points
    taker = obs.taker if obs.HasField("taker") else obs.seat
    return Contract(ruleset=obs.ruleset, seats=rules.seats, my_team=obs.team, attackers=taker % 2,
                    multiplier=max(1, obs.multiplier), bonus=(bonus[0], bonus[1]),
                    total=152 + rules.dix_de_der)


def score_margin(c: Contract, ns_points: int) -> float:
    """The seat's team's deal score minus the other team's, from NS's final trick points
    ``ns_points`` as the search counts them (a capot: the total + half the bonus, or minus half
    of it: RULES.md §6.2), the rest of the score as far as the seat knows it.

    Four players: the contract made or *dedans* by the ruleset's rule (§6.2; ``all-trumps``: a
    tie is a litige, counted as the attackers scoring nothing), contrée multipliers (§6.4).
    Two players: the score sheet of §7 (taker's total greater: both record; else the
    opponent records what it may). Declarations and belote enter as the known ``bonus``.
    """
    margin_ns = 2 * ns_points - c.total          # capot: ±252 (four players)
    att = c.attackers
    att_margin = margin_ns if att == 0 else -margin_ns
    capot = abs(att_margin) >= 252 and c.seats == 4
    att_tp = (c.total + att_margin) // 2
    def_tp = c.total - att_tp
    ab, db = c.bonus[att], c.bonus[1 - att]
    if c.seats == 2:
        t, o = att_tp + ab, def_tp + db
        m = t - o if t > o else -o if t == o else -(t + o)
    else:
        if c.ruleset == "strict":
            made = att_tp + ab > def_tp + db
        elif c.ruleset == "all-trumps":
            made = att_margin > 0
        else:
            made = att_margin >= 0
        full = 252 if capot else c.total
        if made:
            m = (att_margin if c.multiplier == 1 else full * c.multiplier) + ab - db
        elif c.ruleset == "all-trumps" and att_margin == 0:
            m = -def_tp + ab - db
        else:
            m = -full * c.multiplier + ab - db
    return float(m if c.my_team == att else -m)


@dataclass
class Choice:
    """A PIMC decision: the chosen card (search number) or ``None``, the deals solved, and the
    mean score margin (points) of each card valued in every deal."""

    card: int | None
    samples: int
    means: dict[int, float]


class Pimc:
    """The sampler and the search, with one transposition table (16 MB) reused across decisions.

    ``rate``: the search's speed measured so far (nodes per ms), which turns the time left into
    a node budget so that one deal's solve cannot overrun the decision's time.
    """

    def __init__(self) -> None:
        self.tt = dd.new_table()
        self.ws = dd.new_workspace()
        self.gen = 0
        self.rate = 1500.0
        self._stopped = threading.Event()
        self._tables: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def _tab(self, rules: PlayRules, trump: Trump):
        key = (rules, trump.mode, trump.suit)
        if key not in self._tables:
            self._tables[key] = tables(rules, trump)
        return self._tables[key]

    def solve_values(self, obs: pb.Observation, rules: PlayRules, hands: list[int], legal: list[int],
                     others: int, node_limit: int) -> dict[int, int] | None:
        """NS's final trick points (past tricks included, the search's capot encoding) after each
        card of ``legal`` (search numbers) of the seat to play, every hand ``hands`` in view;
        ``others``: the cards still in play outside the seat's hand (unseen and in the trick).
        ``None`` when the search ran out of ``node_limit`` nodes."""
        trump = Trump.of(obs)
        tab, block = self._tab(rules, trump)
        ws = self.ws
        ws[:dd.W_HANDS] = block
        ws[dd.W_HANDS:dd.W_HANDS + 4] = 0
        ws[dd.W_HANDS:dd.W_HANDS + len(hands)] = hands
        ws[dd.W_DEPTH] = 0
        self.gen += 1
        ws[dd.W_GEN] = self.gen
        ws[dd.W_NODES] = 0
        ws[dd.W_LIMIT] = max(1, min(node_limit, 1 << 40))
        if self._stopped.is_set():  # the watchdog fired: the search stops at its first node
            ws[dd.W_LIMIT] = 1
        n = rules.seats
        trick = obs.current_trick
        leader = trick.leader if trick.cards else obs.seat
        led, best, best_seat, trick_pts = -1, 0, 0, 0
        for i, p in enumerate(trick.cards):
            c = card_index(p.card)
            ws[dd.W_TRICK + i] = c
            trick_pts += int(tab[dd.T_POINTS, c])
            if i == 0:
                led, best, best_seat = c >> 3, c, p.seat
            elif (c >> 3 == best >> 3 and tab[dd.T_STRENGTH, c] > tab[dd.T_STRENGTH, best]) or (
                    c >> 3 != best >> 3 and c >> 3 == block[dd.R_TRUMP]):
                best, best_seat = c, p.seat
        rem = 0
        for h in hands:
            rem |= h
        rem_pts = int(sum(int(tab[dd.T_POINTS, c]) for c in range(32) if rem >> c & 1))
        past = [0, 0]
        won = [0, 0]
        for t in obs.tricks:
            team = t.winner % 2
            past[team] += t.points
            won[team] += 1
        capot = 0 if won == [0, 0] else 1 if won[1] == 0 else 2 if won[0] == 0 else 3
        tricks_left = rules.tricks - len(obs.tricks)
        ntrick = len(trick.cards)
        seat = (leader + ntrick) % n
        hand = hands[seat]
        trump_suit = int(block[dd.R_TRUMP])
        out: dict[int, int] = {}
        guess = rem_pts // 2
        for c, twins in _root_cards(tab, hand, legal, others):
            bit = 1 << c
            ws[dd.W_HANDS + seat] = hand ^ bit
            ws[dd.W_TRICK + ntrick] = c
            if ntrick == 0:
                nled, nbest, nseat = c >> 3, c, seat
            elif (c >> 3 == best >> 3 and tab[dd.T_STRENGTH, c] > tab[dd.T_STRENGTH, best]) or (
                    c >> 3 != best >> 3 and c >> 3 == trump_suit):
                nled, nbest, nseat = led, c, seat
            else:
                nled, nbest, nseat = led, best, best_seat
            pc = int(tab[dd.T_POINTS, c])
            tp = trick_pts + pc
            if ntrick + 1 == n:
                team = nseat & 1
                ns = tp if team == 0 else 0
                if tricks_left == 1:
                    v = _end_value(tp + rules.dix_de_der, team, capot, rules.capot_bonus // 2)
                else:
                    v = ns + int(dd.solve(tab, self.tt, ws, 0, nseat, -1, 0, 0, 0, rem_pts - pc,
                                          int(dd._CAPOT_AFTER[capot, team]), tricks_left - 1, guess - ns))
            else:
                v = int(dd.solve(tab, self.tt, ws, ntrick + 1, leader, nled, nbest, nseat, tp, rem_pts - pc, capot,
                                 tricks_left, guess))
            ws[dd.W_HANDS + seat] = hand
            if dd.aborted(ws):
                self.gen += 1  # the entries written while aborting are not to be trusted
                return None
            guess = v
            for d in twins:
                out[d] = past[0] + v
        return out

    def position_value(self, obs: pb.Observation, hands: list[int], node_limit: int) -> int | None:
        """NS's final trick points (past tricks included, the search's capot encoding) of the
        observation's position played double dummy with every hand ``hands`` in view; before the
        first card (a declaration, RULES.md §6.1, §7) eldest leads. ``None`` when the search ran
        out of ``node_limit`` nodes."""
        rules = play_rules(obs)
        tab, block = self._tab(rules, Trump.of(obs))
        ws = self.ws
        ws[:dd.W_HANDS] = block
        ws[dd.W_HANDS:dd.W_HANDS + 4] = 0
        ws[dd.W_HANDS:dd.W_HANDS + len(hands)] = hands
        ws[dd.W_DEPTH] = 0
        self.gen += 1
        ws[dd.W_GEN] = self.gen
        ws[dd.W_NODES] = 0
        ws[dd.W_LIMIT] = max(1, min(node_limit, 1 << 40))
        if self._stopped.is_set():
            ws[dd.W_LIMIT] = 1
        trick = obs.current_trick
        leader = trick.leader if trick.cards else (obs.seat if obs.tricks else obs.eldest)
        led, best, best_seat, trick_pts = -1, 0, 0, 0
        for i, p in enumerate(trick.cards):
            c = card_index(p.card)
            ws[dd.W_TRICK + i] = c
            trick_pts += int(tab[dd.T_POINTS, c])
            if i == 0:
                led, best, best_seat = c >> 3, c, p.seat
            elif (c >> 3 == best >> 3 and tab[dd.T_STRENGTH, c] > tab[dd.T_STRENGTH, best]) or (
                    c >> 3 != best >> 3 and c >> 3 == block[dd.R_TRUMP]):
                best, best_seat = c, p.seat
        rem = 0
        for h in hands:
            rem |= h
        rem_pts = int(sum(int(tab[dd.T_POINTS, c]) for c in range(32) if rem >> c & 1))
        past = [0, 0]
        won = [0, 0]
        for t in obs.tricks:
            past[t.winner % 2] += t.points
            won[t.winner % 2] += 1
        capot = 0 if won == [0, 0] else 1 if won[1] == 0 else 2 if won[0] == 0 else 3
        v = int(dd.solve(tab, self.tt, ws, len(trick.cards), leader, led, best, best_seat, trick_pts, rem_pts, capot,
                         rules.tricks - len(obs.tricks), (rem_pts + trick_pts) // 2))
        if dd.aborted(ws):
            self.gen += 1
            return None
        return past[0] + v

    def _stop(self) -> None:
        """The watchdog: stop the search under way (it releases the GIL, :mod:`belote_arena_sdk.dd`)."""
        self._stopped.set()
        self.ws[dd.W_LIMIT] = 1

    def choose(self, obs: pb.Observation, legal: list[int], rng: random.Random, *, budget_ms: float,
               max_samples: int, min_samples: int = 1, prefer: int | None = None,
               hard_ms: float | None = None) -> Choice:
        """See :meth:`_choose`; ``hard_ms`` (from now): a watchdog thread stops a search still
        running then, whatever the node budget said (a machine suddenly slower: the node budget
        comes from the speed measured before)."""
        self._stopped.clear()
        timer = threading.Timer((hard_ms if hard_ms is not None else 3 * budget_ms) / 1000.0, self._stop)
        timer.daemon = True
        timer.start()
        try:
            return self._choose(obs, legal, rng, budget_ms=budget_ms, max_samples=max_samples,
                                min_samples=min_samples, prefer=prefer)
        finally:
            timer.cancel()
            self._stopped.clear()

    def _choose(self, obs: pb.Observation, legal: list[int], rng: random.Random, *, budget_ms: float,
                max_samples: int, min_samples: int = 1, prefer: int | None = None) -> Choice:
        """The legal card (search numbers ``legal``) with the best mean score margin over deals drawn
        until ``budget_ms`` (from now) or ``max_samples`` deals; ``prefer`` (the heuristic's card)
        wins ties within a quarter point. ``Choice.card`` is ``None`` when fewer than ``min_samples``
        deals were solved in time."""
        start = time.monotonic()
        rules = play_rules(obs)
        k: Knowledge = knowledge(obs)
        contract = contract_of(obs, rules)
        others = k.unseen
        for p in obs.current_trick.cards:
            others |= 1 << card_index(p.card)
        sums = {c: 0.0 for c in legal}
        tie = {c: 0.0 for c in legal}
        samples = 0
        while samples < max_samples:
            left_ms = budget_ms - (time.monotonic() - start) * 1000.0
            if left_ms <= 1.0:
                break
            hands = sample(k, rng)
            if hands is None:
                break
            t0 = time.monotonic()
            values = self.solve_values(obs, rules, hands, legal, others, int(left_ms * self.rate))
            spent = (time.monotonic() - t0) * 1000.0
            nodes = int(self.ws[dd.W_NODES])
            if spent > 2.0 and nodes > 2000:
                self.rate = 0.7 * self.rate + 0.3 * (nodes / spent)
            if values is None or any(c not in values for c in legal):
                break
            samples += 1
            for c in legal:
                sums[c] += score_margin(contract, values[c])
                tie[c] += values[c] if obs.team == 0 else -values[c]
        if samples < min_samples:  # too few deals to outvote the heuristic
            return Choice(None, samples, {})
        means = {c: sums[c] / samples for c in legal}

        def key(c: int) -> tuple[float, float]:
            return (means[c] + (0.25 if c == prefer else 0.0), tie[c] / samples)

        return Choice(max(legal, key=key), samples, means)


def _end_value(pts: int, team: int, capot: int, capot_half: int) -> int:
    """NS's points from the last trick (``pts`` with the dix de der) and the capot's half bonus
    (as :mod:`belote_arena_sdk.dd` counts them)."""
    cap = int(dd._CAPOT_AFTER[capot, team])
    v = pts if team == 0 else 0
    return v + capot_half if cap == 1 else v - capot_half if cap == 2 else v


def _root_cards(tab: np.ndarray, hand: int, legal: list[int], others: int) -> list[tuple[int, list[int]]]:
    """The legal cards to search, each with the legal cards it stands for (itself included): two
    cards of one suit and the same points with no card of ``others`` between them in strength
    are equivalent (they take the same tricks; the search prunes them alike, :mod:`~belote_arena_sdk.dd`)."""
    groups: list[tuple[int, list[int]]] = []
    for c in sorted(legal, key=lambda x: (x >> 3, int(tab[dd.T_STRENGTH, x]))):
        if groups:
            rep, members = groups[-1]
            top = members[-1]
            between = int(tab[dd.T_ABOVE, top]) & ~int(tab[dd.T_ABOVE, c]) & ~(1 << c)
            if (top >> 3 == c >> 3 and tab[dd.T_POINTS, top] == tab[dd.T_POINTS, c]
                    and not between & others):
                members.append(c)
                continue
        groups.append((c, [c]))
    return groups
