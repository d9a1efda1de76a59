"""The moment a table's processes end is not the bots' to choose (issue 19 item 1, red team
50's ``endclock``): a bot that answered ``EndMatch`` late delayed the other table's start,
and that table's processes of its entrant, for which its hand was an opponent's, read the
delay from their own start time (40 of 40 bits, 30 of 30 claims about a hidden hand right).

Effect checked: the time from a table's ``EndMatch`` (as its bots see it) to the first start of
the other table's processes does not depend on how long the closing table's bots take to
answer it (``tests/bots/lateend``: 3 s, against 0 s for the control)."""

from __future__ import annotations

import json
import statistics

import pytest

from referee.botproc import END_MATCH_S, Limits
from referee.match import MatchConfig, play_match
from referee.rules import RULESETS, make_board

from .botkit import entrant, leftover_processes

SLEEP_S = 3.0  # the referee gave EndMatch 1 s, then a SIGTERM 0.5 s: 1.5 s of delay at most
BOARDS = 4  # blocks of one board: a switch between tables in each (the live table plays first)


def gaps(tmp_path, name: str, end_sleep: float) -> list[float]:
    """Seconds from each ``EndMatch`` of a table's bots to the next start of a process, in a
    two-player match of ``lateend`` (answering ``EndMatch`` after ``end_sleep`` s) against the
    prompt ``lateend``, one board per block."""
    out = tmp_path / f"{name}-out"
    out.mkdir(mode=0o1777)
    out.chmod(0o1777)  # bound read-write into every sandbox; the bots run as other uids
    a = entrant(tmp_path / name, "lateend", "--out", out, "--end-sleep", end_sleep, name=f"{name}A")
    b = entrant(tmp_path / name, "lateend", "--out", out, name=f"{name}B")
    rs = RULESETS["two-player"]
    config = MatchConfig(ruleset=rs, decision_ms=5000, seed=3, block_boards=1, limits=Limits(writable=(str(out),)))
    results = play_match(name, a, b, [make_board(7, k, rs.seats) for k in range(BOARDS)], config)
    assert not [f for r in results for f in r.faults]
    events = sorted((e["t"], e["event"]) for p in out.glob("*.jsonl")
                    for e in map(json.loads, p.read_text().splitlines()))
    ends = [t for t, kind in events if kind == "end"]
    starts = [t for t, kind in events if kind == "start"]
    last_end = {}  # each switch, by the first start after it: its last EndMatch seen
    for t in ends:
        later = [x for x in starts if x > t]
        if later:
            last_end[min(later)] = max(last_end.get(min(later), t), t)
    # a switch a bot logged no EndMatch for (killed first, on a loaded machine) is not counted;
    # the match's close starts nothing
    assert 2 <= len(last_end) <= BOARDS, (ends, starts)
    return [start - end for start, end in sorted(last_end.items())]


@pytest.mark.guard(300)
def test_a_late_end_match_answer_does_not_move_the_other_tables_start(tmp_path):
    late = gaps(tmp_path, "late", SLEEP_S)
    prompt = gaps(tmp_path, "prompt", 0.0)
    assert not leftover_processes(tmp_path)
    # before the fix the switch waited for the answer (1 s) and the SIGTERM (0.5 s): the late gaps
    # were 1.5 s longer; now both are END_MATCH_S (0.2 s) and a sandbox's start
    print(f"gaps, s: late {late}, prompt {prompt}")
    assert statistics.median(late) - statistics.median(prompt) < 0.75, (late, prompt)
    assert min(late) >= END_MATCH_S - 0.05, late  # EndMatch still gets its fixed time
