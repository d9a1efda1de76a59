"""Driving a deal record into a given state, and moving a record to another dealer."""

from __future__ import annotations

from pathlib import Path

from referee.rules import DealRecord, DealState, Declare, Exchange, Phase, load_record

CASES = Path(__file__).resolve().parents[1] / "data" / "cases"


def case_record(name: str) -> DealRecord:
    """The record of tests/data/cases/<name>.json."""
    return load_record(CASES / f"{name}.json")


def drive(state: DealState, record: DealRecord) -> DealState:
    """Apply the record's actions to ``state`` as :func:`referee.rules.replay` does (a left-out
    declaration is "nothing", a left-out exchange is "kept")."""
    for seat, action in record.actions:
        while state.phase is Phase.DECLARATION and not (isinstance(action, Declare) and seat == state.to_act):
            state.apply_checked(state.to_act, Declare(()))
        if state.phase is Phase.EXCHANGE and not (isinstance(action, Exchange) and seat == state.to_act):
            state.apply_checked(state.to_act, Exchange(False))
        state.apply_checked(seat, action)
    assert state.is_terminal()
    return state


def rotated(record: DealRecord, k: int) -> DealRecord:
    """The same deck dealt by the dealer ``k`` seats on: by §3 / §7 every hand moves ``k`` seats
    on with it, so the same play is the same actions with every seat moved ``k`` on."""
    n = record.ruleset.seats
    return DealRecord(
        ruleset=record.ruleset, dealer=(record.dealer + k) % n, deck=record.deck,
        actions=[((s + k) % n, a) for s, a in record.actions], pot=record.pot,
    )
