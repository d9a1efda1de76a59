"""The solver on whole deals, where brute force cannot go: its legal cards equal the rules
engine's at every position of random deals (RULES.md §5, §7 "Play"), and its values are
consistent — a position's value is its best card's, and playing that card keeps it."""

from __future__ import annotations

import random

from arena.analysis.solver import Solver, legal_mask_of
from referee.rules import Phase

from .endgames import RULESETS, play, random_play_start
from .test_solver_brute import _trick_points


def test_legal_cards_equal_the_engine_s_at_every_position_of_random_deals():
    rng = random.Random(77)
    checked = 0
    for ruleset in RULESETS:
        for _ in range(150):
            state = random_play_start(rng, ruleset)
            while not state.is_terminal():
                if state.phase is Phase.DECLARATION:
                    state.apply(rng.choice(state.legal_actions()))
                    continue
                assert legal_mask_of(state) == state.legal_card_mask(), (ruleset.name, state.history)
                checked += 1
                state.apply(rng.choice(state.legal_actions()))
    assert checked > 25_000


def test_a_position_s_value_is_its_best_card_s_all_the_way_down():
    rng = random.Random(5)
    solver = Solver()
    for ruleset in RULESETS:
        for _ in range(3):
            state = random_play_start(rng, ruleset)
            first = None
            while not state.is_terminal():
                if state.phase is Phase.DECLARATION:
                    state.apply(rng.choice(state.legal_actions()))
                    continue
                result = solver.solve(state)
                first = first or result
                values = solver.card_values(state)
                team = state.to_act % 2
                best = max(values, key=lambda c: values[c].trick_points[team] - values[c].trick_points[1 - team])
                assert values[best].trick_points == result.trick_points, (ruleset.name, state.history)
                assert values[best].score == result.score
                play(state, best)
            # the perfect line played out by the engine takes the trick points solved at its first card
            assert _trick_points(state.outcome(), ruleset) == first.trick_points
