"""The sample bots' strength, measured the way the arena does: duplicate boards.

200 classic boards per pairing (each played at both tables, seats swapped,
suits renamed at table 2). The duplicate margin cancels the luck of the cards,
so these are comparisons of play: heuristic > greedy > random, and heuristic
wins more than 70 % of its boards against random. Deterministic: the boards,
the bots' seeds and (heuristic, greedy) their play are fixed.
"""

from __future__ import annotations

import time

import pytest

from arena.play.schedule import suit_permutation
from referee.match import MatchConfig, play_match
from referee.rules import RULESETS, make_board

from .botkit import entrant, leftover_processes

BOARDS = 200
BOARD_SEED = 7


def duplicate(tmp_path, a_bot: str, b_bot: str):
    """Play ``a_bot`` against ``b_bot``; return (A's total margin, A's wins, B's wins, ties, seconds)."""
    a, b = entrant(tmp_path, a_bot), entrant(tmp_path, b_bot)
    rs = RULESETS["classic"]
    boards = [make_board(BOARD_SEED, k, rs.seats) for k in range(BOARDS)]
    t0 = time.perf_counter()
    results = play_match(f"strength/{a_bot}-{b_bot}", a, b, boards, MatchConfig(ruleset=rs, seed=1),
                         permutations=lambda k: suit_permutation(BOARD_SEED, k))
    seconds = time.perf_counter() - t0
    assert not leftover_processes(tmp_path)
    assert not [f for r in results for f in r.faults], "a sample bot faulted"
    margin = sum(r.margin for r in results)
    wins = sum(r.margin > 0 for r in results)
    losses = sum(r.margin < 0 for r in results)
    print(f"\n{a_bot} vs {b_bot}, {BOARDS} classic duplicate boards: margin {margin:+d} "
          f"({margin / BOARDS:+.1f} per board), {a_bot} wins {wins} ({wins / BOARDS:.0%}), "
          f"loses {losses}, ties {BOARDS - wins - losses}; {seconds:.1f} s")
    return margin, wins, losses, seconds


@pytest.mark.slow
@pytest.mark.guard(300)
def test_heuristic_beats_random_on_more_than_70_percent_of_boards(tmp_path):
    margin, wins, _, _ = duplicate(tmp_path, "heuristic", "random")
    assert margin > 0
    assert wins / BOARDS > 0.70


@pytest.mark.slow
@pytest.mark.guard(300)
def test_heuristic_beats_greedy(tmp_path):
    margin, wins, losses, _ = duplicate(tmp_path, "heuristic", "greedy")
    assert margin > 0 and wins > losses


@pytest.mark.slow
@pytest.mark.guard(300)
def test_greedy_beats_random(tmp_path):
    margin, wins, losses, _ = duplicate(tmp_path, "greedy", "random")
    assert margin > 0 and wins > losses
