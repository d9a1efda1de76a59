"""``arena replay`` and ``arena match``: one deal checked against the rules, one match played and shown."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from referee.manifest import ManifestError
from referee.rules import RecordError, get_ruleset, replay as replay_record

from ..report.render import render_deal
from .base import (
    DEFAULT_DB,
    DbOption,
    bot_folders,
    registered_bots,
    app,
    console,
    RulesetName,
    MAX_SEED,
    _limits,
    fail,
    _parse_options,
    DecisionMsOption,
    CpuOption,
    MemoryOption,
    OptionOption,
    NoIsolateOption,
    WeakLimitsOption,
    DealsOption,
)


@app.command()
def replay(
    file: Annotated[str, typer.Argument(
        metavar="FILE", help="a deal record (JSON), a hand-checked case, or the output of `arena log --json` "
        "(each record of the list); - reads standard input")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON: one object per record (a list for a list)")] = False,
) -> None:
    """Check every action of a deal record against the rules and print the deal.

    Exit status 2 when the file is not JSON, a record is malformed, or an action
    breaks the rules (the message names the record, the action's index, the seat
    and the RULES.md section).
    """
    from referee.rules import parse_record

    where = "standard input" if file == "-" else file
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as e:
        raise fail(f"cannot read {file}: {e.strerror or e}" + (": the file does not exist" if not Path(file).exists()
                                                                 else ""), code=2) from None
    except UnicodeDecodeError:
        raise fail(f"{where} is not a text file: give a deal record in JSON", code=2) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise fail(f"{where} is not JSON: {e.msg} at line {e.lineno} column {e.colno}", code=2) from None
    except RecursionError:
        raise fail(f"{where} nests JSON too deeply to be a deal record", code=2) from None
    items = obj if isinstance(obj, list) else [obj]
    if not items:
        raise fail(f"{where} holds an empty list: no deal record to replay", code=2)
    out = []
    for i, item in enumerate(items):
        name = where if not isinstance(obj, list) else f"{where}, record {i}" + (
            f" (board {item['board']} table {item['table']})" if isinstance(item, dict) and "board" in item
            and "table" in item else "")
        try:
            record = parse_record(item)
            state = replay_record(record)
        except RecordError as e:
            raise fail(f"{name}: {e}" if isinstance(obj, list) else str(e), code=2) from None
        outcome = state.outcome()
        if as_json:
            o = outcome.to_json()
            o["ruleset"] = record.ruleset.name
            o["options"] = record.ruleset.variant_options()
            o["calls"] = [{"seat": s, **a.to_json()} for s, a in state.calls]
            o["tricks"] = [
                {"leader": t.leader, "cards": [str(c) for _, c in t.cards], "winner": t.winner, "points": t.points}
                for t in state.tricks
            ]
            out.append(o)
        else:
            console.print(render_deal(state, title=name if isinstance(obj, list) or file == "-" else Path(file).name))
    if as_json:
        print(json.dumps(out if isinstance(obj, list) else out[0]))


@app.command()
def match(
    bots: Annotated[list[str], typer.Option(
        "--bot", "--bots", metavar="BOT", help="a bot: a folder (with bot.toml), a registered bot's name or "
        "name@version (its frozen copy, from --db), a sample bot's name (random, greedy, heuristic, expert), or host:port "
        "of a bot already running; give two")],
    boards: Annotated[int | None, typer.Option(min=1, max=100_000, help="number of boards (each played at two tables; "
                                               "default 20, with --deals the file's)", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        min=0, max=MAX_SEED, help="board set seed: the same seed deals the same boards; not secret "
        "(default: 256 random bits, secret until the match ends)", show_default=False)] = None,
    ruleset: Annotated[RulesetName, typer.Option(help="rule system (RULES.md)")] = RulesetName.classic,
    option: OptionOption = None,
    decision_ms: DecisionMsOption = 1000,
    time_bank_ms: Annotated[int, typer.Option(min=0, help="extra ms per bot process per match")] = 0,
    max_faults: Annotated[int, typer.Option(min=1, help="faults after which an entrant forfeits the match")] = 3,
    cpu_s: CpuOption = 0,
    memory_mib: MemoryOption = 1024,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    logs: Annotated[Path | None, typer.Option(
        file_okay=False, help="keep each bot process's output (stdout, stderr) in this folder, a file per "
        "process: ENTRANT-tableT-seatS-N.log", show_default=False)] = None,
    deals: DealsOption = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Play one duplicate match between two bots and print the result per board (nothing is stored).

    Without --seed the boards come from a secret random seed: its commitment is
    printed at the start and the seed itself at the end.  With --deals FILE they are the
    file's boards (README: a deal suite).
    """
    isolate = not no_isolate
    from ..play.matchview import MatchInterrupted, run_match

    from ..play.entrants import is_endpoint, resolve_entrant

    if len(bots) != 2:
        raise fail(f"give exactly two --bot options (got {len(bots)})", code=2)
    hashes: dict[str, str] = {}  # registered bots' frozen copies: their content hashes
    bots = [spec if is_endpoint(spec) and not Path(spec).exists() else str(bot_folders(
        [spec], lambda: registered_bots(db), what="--bot", hashes=hashes)[0]) for spec in bots]
    try:
        rules = get_ruleset(ruleset.value, **_parse_options(option))
    except ValueError as e:
        raise fail(str(e)) from None
    suite = None
    if deals is not None:
        from ..play.deals import DealFileError, load_deals

        try:
            suite = load_deals(deals, rules.seats)
            suite = suite.first(boards if boards is not None else len(suite.boards))
        except DealFileError as e:
            raise fail(str(e) + (" (--boards)" if "fewer than the" in str(e) else "")) from None
    boards = len(suite) if suite is not None else boards if boards is not None else 20

    from ..play.bots import built
    from ..play.build import BuildError

    stack = contextlib.ExitStack()
    try:
        # a folder whose requirements are not installed plays from a temporary built copy
        bots = [spec if is_endpoint(spec) and not Path(spec).exists() else str(stack.enter_context(built(Path(spec))))
                for spec in bots]
        manifests = [e.manifest for e in map(resolve_entrant, bots) if e.manifest is not None]
        for m in manifests:  # as bots submit and tournament run do
            m.check_plays(ruleset.value)
        limits = _limits(cpu_s, memory_mib, isolate, manifests, weak_limits)
        if logs is not None:
            try:
                logs.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise fail(f"--logs {escape(str(logs))}: cannot make the folder: {e.strerror}") from None
        run_match(bots, boards=boards, seed=seed, ruleset=rules, decision_ms=decision_ms,
                  time_bank_ms=time_bank_ms, max_faults=max_faults, console=console, limits=limits,
                  log_dir=logs.resolve() if logs is not None else None, deals=suite, content_hashes=hashes)
        if logs is not None:
            console.print(f"bot output kept in {logs}: {len(list(logs.glob('*.log')))} files", highlight=False,
                          markup=False)
    except (ManifestError, BuildError) as e:
        raise fail(str(e)) from None
    except MatchInterrupted:
        raise typer.Exit(code=130) from None
    finally:
        stack.close()
