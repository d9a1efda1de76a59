"""The ``arena`` command line (typer + rich).

Thin commands calling service functions; diagnostics on stderr; domain errors
become a one-line message and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from referee.manifest import ManifestError
from referee.rules import RULESETS, RecordError, load_record, replay as replay_record

from .render import render_deal

app = typer.Typer(
    help="Belote Arena: play Belote bots against each other over gRPC, run duplicate round robins, "
    "store every move in DuckDB and rate the bots with Elo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Belote Arena."""


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code=code)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="a deal record (JSON); a hand-checked case file also works")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object: contract, score, points")] = False,
) -> None:
    """Check every action of a deal record against the rules and print the deal.

    Exit status 2 when the record is malformed or an action breaks the rules
    (the message names the action's index, the seat and the RULES.md section).
    """
    try:
        record = load_record(file)
        state = replay_record(record)
    except RecordError as e:
        raise fail(str(e), code=2) from None
    outcome = state.outcome()
    if as_json:
        out = outcome.to_json()
        out["ruleset"] = record.ruleset.name
        out["tricks"] = [
            {"leader": t.leader, "cards": [str(c) for _, c in t.cards], "winner": t.winner, "points": t.points}
            for t in state.tricks
        ]
        print(json.dumps(out))
    else:
        console.print(render_deal(state, title=file.name))


class RulesetName(str, Enum):
    classic = "classic"
    strict = "strict"
    all_trumps = "all-trumps"
    two_player = "two-player"


@app.command()
def match(
    bots: Annotated[list[str], typer.Option("--bot", help="a bot folder (with bot.toml) or host:port; give two")],
    boards: Annotated[int, typer.Option(min=1, max=100_000, help="number of boards (each played at two tables)")] = 20,
    seed: Annotated[int, typer.Option(min=0, help="board set seed: the same seed deals the same boards")] = 1,
    ruleset: Annotated[RulesetName, typer.Option(help="rule system (RULES.md)")] = RulesetName.classic,
    decision_ms: Annotated[int, typer.Option(min=10, max=600_000, help="deadline of one decision, ms")] = 1000,
    time_bank_ms: Annotated[int, typer.Option(min=0, help="extra ms per bot process per match")] = 0,
    max_faults: Annotated[int, typer.Option(min=1, help="faults after which an entrant forfeits the match")] = 3,
) -> None:
    """Play one duplicate match between two bots and print the result per board."""
    from arena.matchview import run_match

    if len(bots) != 2:
        raise fail(f"give exactly two --bot options (got {len(bots)})")
    try:
        run_match(bots, boards=boards, seed=seed, ruleset=RULESETS[ruleset.value], decision_ms=decision_ms,
                  time_bank_ms=time_bank_ms, max_faults=max_faults, console=console)
    except ManifestError as e:
        raise fail(str(e)) from None


def main() -> None:  # pragma: no cover - console entry point
    app()
