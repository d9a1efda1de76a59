"""The solver against brute force (issue 23): plain minimax over the rules engine's legal
cards (RULES.md §5, §7 "Play") on random endgames of up to 4 tricks, in every ruleset and
option; and the solver's own legal cards against the engine's at every node searched.

Brute force plays every legal card with :meth:`DealState.apply` down to the end of the
deal and reads each team's trick points from the engine's scored outcome (RULES.md §6.2:
card points + dix de der; a capot 252 to 0). NS maximises the capot-adjusted margin, EW
minimises it. The double-dummy score must be the engine's score of a perfect line with
every belote announced (§5).
"""

from __future__ import annotations

import random
import time

import pytest

from arena.analysis.solver import Solver, legal_mask_of
from referee.rules import CARDS

from .endgames import RULESETS, clone, play, random_endgame

#: endgames checked per ruleset and option: (tricks to go, count with 4 players, count with 2).
#: 7 rulesets and options: 10,124 endgames, about 40 s (a 4-trick brute force of 4 players
#: visits up to 10^5 nodes).
PLAN = ((1, 300, 300), (2, 700, 700), (3, 400, 400), (4, 4, 300))


def _trick_points(outcome, ruleset) -> tuple[int, int]:
    """Each team's trick points, a capot 252 and 0 (RULES.md §6.2; none with two players, §7)."""
    if outcome.capot is not None and ruleset.capot_bonus:
        tp = [0, 0]
        tp[outcome.capot] = 152 + ruleset.dix_de_der + ruleset.capot_bonus
        return tp[0], tp[1]
    return outcome.trick_points


def _brute(state, counter):
    """(NS trick points, EW trick points, outcome) of perfect play by plain minimax."""
    counter[0] += 1
    if state.is_terminal():
        out = state.outcome()
        ns, ew = _trick_points(out, state.ruleset)
        return ns, ew, out
    return _best(state, _children(state, counter))


def _children(state, counter) -> dict:
    """Each legal card (the engine's) → the brute-force result after it."""
    legal = state.legal_card_mask()
    assert legal_mask_of(state) == legal, "the solver's legal cards differ from the rules engine's"
    out = {}
    for c in CARDS:
        if legal >> c & 1:
            child = clone(state)
            play(child, c)
            out[c] = _brute(child, counter)
    return out


def _best(state, children: dict):
    sign = 1 if state.to_act % 2 == 0 else -1  # NS maximises the margin, EW minimises it
    return max(children.values(), key=lambda r: sign * (r[0] - r[1]))


def test_solver_equals_brute_force_on_random_endgames():
    rng = random.Random(20231)
    solver = Solver()
    checked = nodes = 0
    start = time.perf_counter()
    for tricks_left, four, two in PLAN:
        for ruleset in RULESETS:
            for _ in range(four if ruleset.seats == 4 else two):
                state = random_endgame(rng, ruleset, tricks_left)
                counter = [0]
                children = _children(state, counter)
                ns, ew, outcome = _best(state, children)
                nodes += counter[0] + 1
                result = solver.solve(state)
                assert result.trick_points == (ns, ew), (ruleset.name, tricks_left, state.history)
                assert result.score == outcome.score, (ruleset.name, tricks_left, state.history)
                values = solver.card_values(state)
                assert {c: v.trick_points for c, v in values.items()} == {c: r[:2] for c, r in children.items()}
                checked += 1
    elapsed = time.perf_counter() - start
    assert checked >= 10_000
    print(f"\n{checked} endgames, {nodes} brute-force nodes, {elapsed:.1f} s")
