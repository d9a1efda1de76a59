"""Decisions the engine skips cost what asked ones do (issue 19 item 4; red team 40).

A seat with nothing to declare is not asked about its declarations (RULES.md §5.4), and
the trump-7 exchange is asked of the seven's holder only (RULES.md §7): a call made or not
made there says what a hidden hand holds, through the time before the next request (red
team 40: which opponent held the seven of trumps in two-player, AUC 0.87).  The referee
pauses for each skipped one as for a forced move (``DuplicateMatch._unasked_pause``), drawn
from the seat's answers at that point of the deal (``referee.match.decision_point``).

Checked here by recording every pause and replaying each table's record: every skipped
declaration and every unasked exchange seat got one pause at its point, and no other pause
is at those points.  The timing's effect is attacked in ``test_forced_timing.py``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from referee import match as match_module
from referee.rules import RULESETS, Declare, Exchange, Phase
from referee.rules.deal import DealState

from .botkit import entrant
from .test_match import assert_no_leftovers, play

BOARDS = 12


def expected_pauses(results, ruleset) -> Counter:
    """(table, seat, phase) of every decision the engine skipped, from the stored records."""
    out: Counter = Counter()
    for r in results:
        for t in r.tables:
            state = DealState(RULESETS[ruleset], t.record.deck, t.record.dealer)
            asked_declare = {s for s, a in t.record.actions if isinstance(a, Declare)}
            asked_exchange = {s for s, a in t.record.actions if isinstance(a, Exchange)}
            for seat, action in t.record.actions:
                state.apply(action)
            for s, d in enumerate(state.declared):
                if d == () and s not in asked_declare:
                    out[(t.table, s, Phase.DECLARATION)] += 1
            if state.tricks and state.exchange_offered():
                for s in range(state.ruleset.seats):
                    if s not in asked_exchange:
                        out[(t.table, s, Phase.EXCHANGE)] += 1
    return out


@pytest.mark.parametrize("ruleset", ["two-player", "classic"])
def test_every_skipped_declaration_and_exchange_is_paused_for(tmp_path, monkeypatch, ruleset):
    paused: Counter = Counter()
    original = match_module.DuplicateMatch._unasked_pause

    async def recording(self, seat, point):
        if point[0] in (Phase.DECLARATION, Phase.EXCHANGE):
            paused[(seat.table, seat.seat, point[0])] += 1
        await original(self, seat, point)

    monkeypatch.setattr(match_module.DuplicateMatch, "_unasked_pause", recording)
    results = play(tmp_path, entrant(tmp_path, "greedy"), entrant(tmp_path, "random"), BOARDS, ruleset=ruleset)
    assert not any(r.faults for r in results)
    assert_no_leftovers(tmp_path)
    expected = expected_pauses(results, ruleset)
    assert sum(n for (_, _, phase), n in expected.items() if phase is Phase.DECLARATION) >= 5  # enough to judge
    if ruleset == "two-player":
        assert sum(n for (_, _, phase), n in expected.items() if phase is Phase.EXCHANGE) >= 2
    assert paused == expected, (sorted(paused.items()), sorted(expected.items()))
