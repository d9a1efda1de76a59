"""A fault in plain words (issue 20 item 7): what happened, said from the referee's detail,
and the same fault of one bot told once with every place it happened."""

from __future__ import annotations

from referee.records import Fault

from arena.report.faults import fault_lines, fault_words

EXITED = "x@1 exited with status 1 at start-up: Traceback ...\nModuleNotFoundError: No module named 'trigger'"
SLOW = "x@1 did not listen on its socket within 10 s: a slow start or an overloaded machine"


def test_a_start_fault_says_which_of_its_causes_happened():
    assert fault_words("start", EXITED) == ("the bot's process ended at start-up (not retried: its own error, "
                                            "in the detail)")
    assert fault_words("start", SLOW).startswith("the bot did not accept a connection within the start-up time")
    assert fault_words("start", "x@1 accepted no gRPC connection within 10 s").startswith("the bot did not accept")
    # a cause not named: the kind's whole meaning
    assert "or the sandbox could not start it" in fault_words("start", "cannot start x@1 in the sandbox: EPERM")
    assert fault_words("timeout").startswith("the bot did not answer within the deadline")
    assert fault_words("no-such-kind") == "no-such-kind"


def test_the_same_fault_is_told_once_with_its_places():
    faults = [Fault(entrant="x@1", kind="start", board=0, table=t, seat=s, detail=EXITED)
              for t, s in ((1, 2), (1, 0), (1, 0), (2, 1), (2, 3), (2, 1))]
    faults.append(Fault(entrant="y@1", kind="timeout", board=3, table=2, seat=1, detail="no answer within 1000 ms"))
    lines = fault_lines(faults)
    assert len(lines) == 2
    (who, line), (other, single) = lines
    assert who == "x@1" and line.startswith(
        "board 0 table 1 seat 2; board 0 table 1 seat 0; board 0 table 2 seat 1; board 0 table 2 seat 3 "
        "(6 times): start: the bot's process ended at start-up")  # each place once
    assert line.count("ModuleNotFoundError") == 1
    assert other == "y@1" and single == ("board 3 table 2 seat 1: timeout: " + fault_words("timeout")
                                          + "; detail: no answer within 1000 ms")
    many = [Fault(entrant="x@1", kind="illegal", board=k, table=1, seat=0, detail=f"played {k}") for k in range(12)]
    told = fault_lines(many, limit=10)
    assert len(told) == 11 and told[-1] == (None, "… and 2 more kinds of fault")
