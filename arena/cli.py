"""The ``arena`` command line (typer + rich).

Thin commands calling service functions; diagnostics on stderr; domain errors
become a one-line ``error:`` message and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
import json
import math
import os
import re
import shlex
import sys
import signal
import threading
import typing
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from referee.manifest import ManifestError
from referee.records import printable
from referee.sandbox import report as sandbox_report
from referee.rules import RULESETS, RecordError, get_ruleset, replay as replay_record

from .report.render import render_deal, show_table, table_fits
from .play.schedule import new_seed

def _metavar(param) -> str:
    """The placeholder shown for a parameter, in one style: FILE, FOLDER, NAME, MATCH,
    N, MS, MIB, S; nothing for a flag; a short choice list, else a word (the choices
    go into the help text)."""
    name, desc = param.name or "", param.type_descriptor
    kind = desc.annotation
    if typing.get_origin(kind) is list:
        kind = typing.get_args(kind)[0]
    if getattr(param, "is_flag", False) or kind is bool:
        return ""
    if desc.is_choice:
        values = [str(getattr(c, "value", c)) for c in desc.choices or ()]
        if len("|".join(values)) <= 16:
            return "|".join(values)
        if param.help and "one of:" not in param.help:
            param.help += f"; one of: {', '.join(values)}"
        return name.upper().replace("_", "-")
    if kind is Path:
        return "FILE" if name in ("db", "file") else "FOLDER" if name in ("out", "folder", "bots", "bot") else "PATH"
    if kind is int:
        return "MS" if name.endswith("_ms") else "MIB" if name.endswith("_mib") else "S" if name.endswith("_s") else "N"
    if kind is float:
        return "X"
    return {"match_id": "MATCH", "name": "NAME", "tournament": "NAME", "bots": "BOT", "bot": "BOT",
            "file": "FILE"}.get(name, "TEXT")


def _reflow(help_text: str) -> str:
    """Join the lines of each paragraph of a docstring (typer's rich help keeps a docstring's
    line breaks, so a wrapped sentence broke mid-line in an 80-column terminal); lines that
    start a list item (``-``, ``*``, ``1.``) keep their break."""
    paragraphs = []
    for par in inspect.cleandoc(help_text).split("\n\n"):
        lines: list[str] = []
        for line in par.splitlines():
            item = re.match(r"\s*([-*]|\d+\.)\s", line)
            if lines and not item and not par.startswith("\b"):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _tidy(command, ctx) -> None:
    """Give each parameter of ``command`` (and its help option) a placeholder in one style
    (:func:`_metavar`) unless it names its own: typer's default shows Python types
    (``<list[Path]>``, ``<bool>``, ``{folder}``); reflow its help (:func:`_reflow`)."""
    if command.help:
        command.help = _reflow(command.help)  # idempotent: a command fetched twice is reflowed twice
    for param in [*command.params, command.get_help_option(ctx)]:
        if param is None:
            continue
        if param.metavar is None:
            param.metavar = _metavar(param)
        if param.param_type_name == "argument":  # the placeholder says it: no "<str>" column
            param.display_type_rich = lambda ctx=None: None
        if (getattr(param, "max", None) or 0) > 2**64:  # a 78-digit bound helps nobody: the help says "256 bits"
            param._get_number_range_help_str = lambda: None


class _Group(TyperGroup):
    """A command group whose commands show placeholders in one style (:func:`_tidy`)."""

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _tidy(command, ctx)
        return command

    def get_params(self, ctx):
        _tidy(self, ctx)
        return super().get_params(ctx)


DEFAULT_DB = Path("results/arena.duckdb")

app = typer.Typer(
    help="Belote Arena: play Belote bots against each other over gRPC, run duplicate round robins, "
    "store every move in DuckDB and rate the bots with Elo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=_Group,
)
bots_app = typer.Typer(help="Submit, list and check bots.", no_args_is_help=True, cls=_Group)
tournament_app = typer.Typer(help="Run, list and show duplicate round-robin tournaments.", no_args_is_help=True,
                             cls=_Group)
app.add_typer(bots_app, name="bots")
app.add_typer(tournament_app, name="tournament")
# Piped or captured output is not cut to 80 columns: tables and messages stay whole
# (COLUMNS, when set, still wins, as in a terminal).
console = Console(width=None if sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit() else 200)
err = Console(stderr=True, soft_wrap=True)


class RulesetName(str, Enum):
    classic = "classic"
    strict = "strict"
    all_trumps = "all-trumps"
    two_player = "two-player"


def did_you_mean(given: str, known) -> str:
    """``": did you mean 'x'?"`` for the closest known name, or ``""``."""
    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    return f": did you mean {close[0]!r}?" if close else ""


class ExportFormat(str, Enum):
    parquet = "parquet"
    jsonl = "jsonl"


DbOption = Annotated[Path, typer.Option("--db", help="the DuckDB results file", show_default=True)]
#: The largest seed: a secret seed has 256 bits.
MAX_SEED = 2**256 - 1
#: How anyone checks a revealed seed against its commitment.
VERIFY = "printf '%s' SEED | sha256sum"
DecisionMsOption = Annotated[int, typer.Option(min=10, max=600_000, help="deadline of one decision, ms")]
CpuOption = Annotated[int, typer.Option("--cpu-s", min=0, help="bot sandbox: CPU seconds per process (0 = unlimited)")]
MemoryOption = Annotated[int, typer.Option(
    "--memory-mib", min=0,
    help="bot sandbox: memory, MiB, of each process and (where cgroups can be made) of the whole bot (0 = unlimited)")]
OptionOption = Annotated[list[str] | None, typer.Option(
    "--option", metavar="NAME=on|off",
    help="a RULES.md §6.4 option, repeatable: declarations (classic, strict, two-player; "
    "default on), contree (classic, strict; default off)", show_default=False)]
NoIsolateOption = Annotated[bool, typer.Option(
    "--no-isolate", help="run bots without the sandbox (bubblewrap, SECURITY.md), as this user: trusted bots only")]


#: A new tournament's play settings when no flag gives them (arena.store.PLAY_SETTINGS).
PLAY_DEFAULTS = {"decision_ms": 1000, "max_faults": 3, "cpu_s": 0, "memory_mib": 1024}



def _stored_options(when: str) -> tuple:
    """The options of :data:`PLAY_DEFAULTS` for a command that stores them with what it makes
    (``when``: "new tournament", "new test"): None = the stored value, or the default."""
    def option(*names: str, **kw):
        return Annotated[int | None, typer.Option(*names, show_default=False, **kw)]

    d = PLAY_DEFAULTS
    return (option(min=10, max=600_000, help=f"deadline of one decision, ms ({when}: {d['decision_ms']})"),
            option(min=1, help=f"faults after which an entrant forfeits a match ({when}: {d['max_faults']})"),
            option("--cpu-s", min=0, help=f"bot sandbox: CPU seconds per process, 0 = unlimited ({when}: {d['cpu_s']})"),
            option("--memory-mib", min=0, help="bot sandbox: memory, MiB, of each process and of the whole bot, "
                   f"0 = unlimited ({when}: {d['memory_mib']})"))


StoredOptions = {when: _stored_options(when) for when in ("new tournament", "new test")}


def _play_settings(store, name: str, exists: bool, given: dict, new_name: str) -> tuple[dict | None, dict]:
    """How a tournament's matches are played, fixed once it is created: a resumed run plays
    as the first did.  ``given``: the command's values (None = not given).  Returns (the
    stored settings or None, the settings to play with: stored, else given or
    :data:`PLAY_DEFAULTS`).  Raises a refusal (exit 1) when a given value differs from
    the stored one."""
    stored = store.play_settings(name) if exists else None
    if stored is None:
        return None, {k: v if v is not None else PLAY_DEFAULTS[k] for k, v in given.items()}
    for key, value in given.items():
        if value is not None and value != stored[key]:
            flag = "--" + key.replace("_", "-")
            raise fail(f"{name!r} exists with {flag} {stored[key]}, fixed once it is created: "
                       f"leave {flag} out to resume it, or choose a new {new_name}")
    return stored, stored


def _limits(cpu_s: int, memory_mib: int, isolate: bool, manifests: list | None = None):
    """The bots' sandbox limits, refused (exit 1) where the sandbox cannot be made for untrusted bots."""
    from referee.sandbox import Limits

    from .play.entrants import SandboxRefused, sandbox_limits

    limits = Limits(cpu_s=cpu_s, memory_mib=memory_mib, isolate=isolate)
    try:
        return sandbox_limits(limits, manifests or [], lambda m: err.print(f"[yellow]warning:[/] {m}", highlight=False))
    except SandboxRefused as e:
        raise fail(str(e)) from None


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        console.print(f"arena (belote-arena) {version('belote-arena')}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="print the version and exit")] = False,
) -> None:
    """Belote Arena."""


def command(*words: object, db: Path | None = None) -> str:
    """A command line to suggest, shell-quoted (``arena ratings --tournament 'my club'``),
    with ``--db`` when it is not the default."""
    args = ["arena", *map(str, words)] + (["--db", str(db)] if db is not None and db != DEFAULT_DB else [])
    return shlex.join(args)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code=code)


def open_store(db: Path, *, must_exist: bool = False, read_only: bool = False):
    """The store at ``db`` (read-only for reports: they work while a tournament
    runs, and need only read permission); a missing or unusable file is an error
    message, exit 1."""
    from .store import Store, StoreError

    if (must_exist or read_only) and not db.exists():
        raise fail(f"no results database at {db}: run a tournament first (arena tournament run NAME --bots DIR ...) "
                   "or pass --db PATH")
    try:
        return Store.open(db, read_only=read_only)
    except StoreError as e:
        raise fail(str(e)) from None


# ---------------------------------------------------------------- replay / match
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
        "--bot", "--bots", help="a bot folder (with bot.toml) or host:port; give two")],
    boards: Annotated[int, typer.Option(min=1, max=100_000, help="number of boards (each played at two tables)")] = 20,
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
    logs: Annotated[Path | None, typer.Option(
        file_okay=False, help="keep each bot process's output (stdout, stderr) in this folder, a file per "
        "process: ENTRANT-tableT-seatS-N.log", show_default=False)] = None,
) -> None:
    """Play one duplicate match between two bots and print the result per board (nothing is stored).

    Without --seed the boards come from a secret random seed: its commitment is
    printed at the start and the seed itself at the end.
    """
    isolate = not no_isolate
    from .play.matchview import MatchInterrupted, run_match

    from .play.entrants import resolve_entrant

    if len(bots) != 2:
        raise fail(f"give exactly two --bot options (got {len(bots)})", code=2)
    try:
        rules = get_ruleset(ruleset.value, **_parse_options(option))
    except ValueError as e:
        raise fail(str(e)) from None
    try:
        manifests = [e.manifest for e in map(resolve_entrant, bots) if e.manifest is not None]
        for m in manifests:  # as bots submit and tournament run do
            m.check_plays(ruleset.value)
        limits = _limits(cpu_s, memory_mib, isolate, manifests)
        if logs is not None:
            try:
                logs.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise fail(f"--logs {escape(str(logs))}: cannot make the folder: {e.strerror}") from None
        run_match(bots, boards=boards, seed=seed, ruleset=rules, decision_ms=decision_ms,
                  time_bank_ms=time_bank_ms, max_faults=max_faults, console=console, limits=limits,
                  log_dir=logs.resolve() if logs is not None else None)
        if logs is not None:
            console.print(f"bot output kept in {logs}: {len(list(logs.glob('*.log')))} files", highlight=False,
                          markup=False)
    except ManifestError as e:
        raise fail(str(e)) from None
    except MatchInterrupted:
        raise typer.Exit(code=130) from None


# ------------------------------------------------------------------------ bots
def _print_check(report) -> None:
    info = report.info
    said = (f"protocol {escape(info.get('protocol_version', '?'))}, bot-info rulesets "
            f"{escape(', '.join(info.get('rulesets', [])) or '?')}" if info else
            "no GetBotInfo answer (the bot did not start or did not answer: see the problems below)")
    console.print(f"[bold]{escape(report.manifest.key)}[/] by {escape(report.manifest.author)} — {said}")
    if report.decisions:
        t = Table(title="decisions asked of the bot", header_style="bold")
        t.add_column("kind")
        t.add_column("asked", justify="right")
        for kind, n in sorted(report.decisions.items()):
            t.add_row(kind, str(n))
        show_table(console, t)
    if report.transport:
        console.print({"DecideStream": "transport: DecideStream, one gRPC stream per bot process",
                       "Decide": "transport: unary Decide calls (the bot does not serve DecideStream, "
                                 "which is about 1.5x faster)"}.get(report.transport, f"transport: {report.transport}"),
                      highlight=False, markup=False)
    if report.latencies_ms:
        console.print(f"latency of good answers: median {report.median_ms:.2f} ms, p99 {report.p99_ms:.2f} ms "
                      f"over {len(report.latencies_ms)} decisions")
    for p in report.problems:
        err.print(f"[red]problem:[/] {escape(p)}", highlight=False)
    for f in report.faults[:20]:
        err.print(f"[red]fault:[/] {escape(f)}", highlight=False)
    console.print("[green]conformance check passed[/]" if report.ok else
                  f"[red]conformance check failed[/]: {len(report.problems)} problem(s), {len(report.faults)} fault(s)")


@bots_app.command("check")
def bots_check(
    folder: Annotated[Path, typer.Argument(help="the bot's folder (holding bot.toml)")],
    ruleset: Annotated[RulesetName | None, typer.Option(help="ruleset to test (default: the manifest's first)")] = None,
    boards: Annotated[int, typer.Option(min=1, max=50, help="boards to play with the bot in every seat")] = 2,
    decision_ms: DecisionMsOption = 1000,
    no_isolate: NoIsolateOption = False,
) -> None:
    """Run the conformance check on a bot without submitting it (exit 1 if it fails)."""
    isolate = not no_isolate
    from referee.manifest import load_manifest

    from .play.bots import check_bot

    try:
        limits = _limits(0, 1024, isolate, [load_manifest(folder)])
        console.print(sandbox_report(limits), style="dim", highlight=False)
        report = check_bot(folder, ruleset=RULESETS[ruleset.value] if ruleset else None, boards=boards,
                           decision_ms=decision_ms, limits=limits)
    except ManifestError as e:
        raise fail(str(e)) from None
    _print_check(report)
    if not report.ok:
        raise typer.Exit(code=1)


@bots_app.command("submit")
def bots_submit(
    folder: Annotated[Path, typer.Argument(help="the bot's folder (holding bot.toml)")],
    tournament: Annotated[str | None, typer.Option(help="also enter the bot in this tournament")] = None,
    no_isolate: NoIsolateOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Check a bot (in the sandbox), freeze a read-only copy of its folder in the store, and register it."""
    isolate = not no_isolate
    from referee.manifest import load_manifest

    from .store import StoreError
    from .play.submit import SubmitError, check_store_outside, submit

    try:
        check_store_outside(folder, db.parent / "bots")
        limits = _limits(0, 1024, isolate, [load_manifest(folder)])
    except (ManifestError, SubmitError) as e:
        raise fail(str(e)) from None
    console.print(sandbox_report(limits), style="dim", highlight=False)
    store = open_store(db)
    try:
        bot, fresh = submit(store, folder, store_root=db.parent / "bots", tournament=tournament, console=console,
                            limits=limits)
    except (ManifestError, SubmitError, StoreError) as e:  # StoreError: e.g. a tournament whose seed is revealed
        raise fail(str(e)) from None
    finally:
        store.close()
    console.print(("registered " if fresh else "already registered (same content): ")
                  + f"[bold]{bot.key}[/] → {bot.path}"
                  + (f"; entered in {tournament}" if tournament else ""))


@bots_app.command("list")
def bots_list(
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON list of objects")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """List the registered bots: name, version, author, content hash, frozen copy."""
    store = open_store(db, read_only=True)
    try:
        rows = store.list_bots()
    finally:
        store.close()
    if as_json:
        print(json.dumps([{"name": b.name, "version": b.version, "author": b.author, "content_hash": b.content_hash,
                           "submitted_at": str(b.submitted_at)[:19], "path": b.path} for b in rows]))
        return
    def make(skip: tuple[str, ...]) -> Table:
        t = Table(title="bots", header_style="bold")
        heads = ("name", "version", "author", "content hash", "submitted", "frozen copy")
        for col in heads:
            if col not in skip:
                t.add_column(col, overflow="fold" if col == "frozen copy" else "ellipsis")
        for b in rows:
            cells = (b.name, b.version, escape(printable(b.author or "", 200)), b.content_hash[:12],
                     str(b.submitted_at)[:19],
                     escape(b.path))
            t.add_row(*(c for col, c in zip(heads, cells) if col not in skip))
        return t

    show_table(console, make, drop=("author", "submitted"))


# ------------------------------------------------------------------ tournaments
@tournament_app.command("run")
def tournament_run(
    name: Annotated[str, typer.Argument(help="tournament name (created on first run, resumed after)")],
    bots: Annotated[list[Path] | None, typer.Option(
        "--bots", "--bot", help="bot folder to submit and enter (repeatable)")] = None,
    boards: Annotated[int | None, typer.Option(min=1, max=100_000, help="boards per pair (new tournament: 50)")] = None,
    ruleset: Annotated[RulesetName | None, typer.Option(help="rule system (new tournament: classic)")] = None,
    option: OptionOption = None,
    seed: Annotated[int | None, typer.Option(
        min=0, max=MAX_SEED, help="tournament seed, for reproducible runs: NOT secret "
        "(new tournament: 256 random bits, secret until it is complete)")] = None,
    workers: Annotated[int, typer.Option(
        min=1, max=64, help="tables played at once, at most: 1 in the arena's process, more in worker "
        "processes of one table each (as many as there are matches with no entrant in common)")] = 1,
    cluster: Annotated[str | None, typer.Option(
        metavar="ADDRESS", help="play on a Dask cluster: its scheduler, tcp://HOST:8786, or local:N "
        "for N worker processes here (README: running on a cluster)", show_default=False)] = None,
    exclusive_boards: Annotated[bool, typer.Option(
        "--exclusive-boards", help="one table at a time on the whole run, so that no two tables of a "
        "board are ever played at once, whoever sits there (finals: against collusion between "
        "entrants; slower)")] = False,
    decision_ms: StoredOptions["new tournament"][0] = None,
    max_faults: StoredOptions["new tournament"][1] = None,
    cpu_s: StoredOptions["new tournament"][2] = None,
    memory_mib: StoredOptions["new tournament"][3] = None,
    no_isolate: NoIsolateOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Play a duplicate round robin: every pair of entrants on the same boards, both tables.

    Running it again plays only what is missing (new entrants' pairs, or the
    rest after an interruption), with the tournament's own deadline, fault limit
    and sandbox limits.  A match is played in blocks of 100 boards, one table at a
    time, and no entrant plays two matches at once (SECURITY.md).  Ctrl-C stops at
    once; the blocks in flight are played again on resume.
    """
    isolate = not no_isolate
    from .play import tournament as tour
    from .store import RunLock, StoreError
    from .play.submit import SubmitError, submit

    from referee.manifest import load_manifest

    chosen = _parse_options(option)
    if not name or "/" in name or any(not c.isprintable() for c in name):
        raise fail(f"tournament name {name!r} must be non-empty, without '/' or control characters", code=2)
    holder = RunLock(db).holder()
    if holder is not None:  # refused before anything is checked or written
        raise fail(f"another arena (pid {holder.get('pid', '?')}) is running tournament "
                   f"{holder.get('tournament', '?')!r} in {db}: one arena plays a database's tournaments at a time; "
                   "wait for it to finish (reports work meanwhile) or pass another --db path")
    store = open_store(db)
    try:
        # check everything before anything is written: a failed command leaves no tournament behind
        manifests = [load_manifest(folder) for folder in bots or []]
        keys = [m.key for m in manifests]
        if len(set(keys)) != len(keys):
            raise fail(f"the same bot is given twice: {', '.join(sorted({k for k in keys if keys.count(k) > 1}))}")
        existing = store.get_tournament(name)
        if existing is None:
            if len(manifests) < 2:
                raise fail(f"no tournament {name!r} yet: to create it, give at least two bots with --bots DIR "
                           "(see `arena tournament list` for existing ones)")
            try:
                rs = get_ruleset((ruleset or RulesetName.classic).value, **chosen)
            except ValueError as e:
                raise fail(str(e)) from None
        else:
            for flag, given, have in (("--ruleset", ruleset.value if ruleset else None, existing.ruleset),
                                      ("--seed", seed, existing.seed), ("--boards", boards, existing.boards_per_pair)):
                if given is not None and given != have:
                    shown = "a secret seed" if flag == "--seed" and not existing.seed_revealed else f"{flag} {have}"
                    raise fail(f"tournament {name!r} exists with {shown}; leave {flag} out to resume it, "
                               "or choose a new tournament name")
            new = [k for k in keys if k not in existing.entrants]
            if new and existing.seed_secret and existing.seed_revealed:
                raise fail(f"tournament {name!r} is complete and its secret seed is revealed: a new entrant "
                           f"({', '.join(new)}) could know every board. Enter it in a new tournament")
            stored = existing.variant_options
            if any(stored.get(k) != ("on" if v else "off") for k, v in chosen.items()):
                raise fail(f"tournament {name!r} exists with options {_options_text(stored) or 'none'} "
                           "(RULES.md §6.4), fixed once it is created: leave --option out to resume it, "
                           "or choose a new tournament name")
            rs = existing.resolved_ruleset()
        given = {"decision_ms": decision_ms, "max_faults": max_faults, "cpu_s": cpu_s, "memory_mib": memory_mib}
        stored_settings, settings = _play_settings(store, name, existing is not None, given, "tournament name")
        decision_ms, max_faults, cpu_s, memory_mib = (settings[k] for k in given)
        for m in manifests:
            m.check_plays(rs.name)
        known = tour.entrants_of(store, name) if existing is not None else []
        limits = _limits(cpu_s, memory_mib, isolate, manifests + [e.manifest for e in known])
        for folder in bots or []:  # check, freeze and register each bot
            submit(store, folder, store_root=db.parent / "bots", console=console, limits=limits)
        if existing is None:
            store.create_tournament(name, rs.name, rs.options(), seed if seed is not None else new_seed(),
                                    boards if boards is not None else 50, secret=seed is None)
            if seed is not None:
                err.print(f"note: seed {seed} was given with --seed: it is [bold]not secret[/] (anyone who knows or "
                          "guesses it can deal every board, bots included); leave --seed out for a secret "
                          "random seed", highlight=False)
        if stored_settings is None:
            store.set_play_settings(name, settings)
        store.add_entrants(name, [(m.name, m.version) for m in manifests])
        t = store.get_tournament(name)
        opts = _options_text(t.variant_options)
        console.print(f"tournament [bold]{escape(name)}[/]: {t.ruleset}" + (f" ({opts})" if opts else "")
                      + f", {t.boards_per_pair} boards per pair, entrants: {', '.join(t.entrants) or 'none'}",
                      highlight=False)
        console.print(f"decisions within {decision_ms} ms; {max_faults} faults forfeit the rest of a match",
                      highlight=False)
        console.print(f"seed commitment {t.commitment} ({_seed_words(t)})", highlight=False)
        console.print(sandbox_report(limits), style="dim", highlight=False)
        executor = None
        if cluster is not None:
            from .play.cluster import ClusterError, DaskExecutor

            try:
                executor = DaskExecutor(cluster, store)
            except ClusterError as e:
                raise fail(str(e)) from None
        if executor is None:
            executor = tour.local_executor(workers)
        where = executor.description
        progress = Progress(
            TextColumn("[bold]board pairs"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), TextColumn("{task.fields[where]}"),
            console=console,
        )
        stop = threading.Event()
        # a complete tournament has nothing to play: no "0/?" bar (entrants added since make it incomplete)
        with progress if t.status != "complete" else contextlib.nullcontext():
            task = progress.add_task("", total=None, rate="", where=escape(where))
            if executor is not None:
                executor.on_workers = lambda text: progress.update(task, where=escape(text))
            first: list[int] = []  # board pairs already stored when this run began

            def on_progress(done: int, total: int) -> None:
                if not first:
                    first.append(done - 1)
                progress.update(task, completed=done, total=total)
                tk = progress.tasks[task]
                if tk.elapsed:  # the rate of this run's own board pairs
                    progress.update(task, rate=f"{(done - first[0]) / max(tk.elapsed, 1e-9):.1f}/s")

            # Ctrl-C sets `stop` (workers drop the blocks in flight, everything played is
            # written); a KeyboardInterrupt raised inside a DuckDB write would abort that write.
            # A second Ctrl-C interrupts at once.
            def on_sigint(signum, frame) -> None:
                if stop.is_set():
                    raise KeyboardInterrupt
                stop.set()
                err.print("stopping: the blocks of boards in flight are dropped and played again on resume… "
                          "(Ctrl-C again to stop at once)", highlight=False)

            in_main = threading.current_thread() is threading.main_thread()
            previous = signal.signal(signal.SIGINT, on_sigint) if in_main else None
            try:
                summary = tour.run(store, name, workers=workers, decision_ms=decision_ms, max_faults=max_faults,
                                   on_progress=on_progress, stop=stop, limits=limits, executor=executor,
                                   exclusive_boards=exclusive_boards)
            finally:
                if in_main:
                    signal.signal(signal.SIGINT, previous)
        faults = store.fault_counts(tournament=name) if summary.faults else []
        after = store.get_tournament(name)
    except (ManifestError, SubmitError, tour.TournamentError, StoreError) as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    for e in summary.errors:
        err.print(f"[red]worker error:[/] {escape(e)}", highlight=False)
    if summary.interrupted:
        err.print(f"interrupted: {summary.already + summary.played} of {summary.total} board pairs stored. "
                  f"Resume with: {command('tournament', 'run', name, db=db)}", markup=False, highlight=False)
        raise typer.Exit(code=130)
    console.print(f"{summary.played} board pairs played now, {summary.already} already stored, "
                  f"{summary.faults} faults. See: {command('ratings', '--tournament', name, db=db)}", markup=False,
                  highlight=False)
    for entrant, kind, n in faults:  # every fault of the tournament, by entrant and kind
        why = " (it never started: see the fault details with `arena matches` and `arena log`)" if kind == "start" else ""
        err.print(f"[yellow]faults:[/] {escape(entrant)}: {n} {escape(kind)}{why}", highlight=False)
    if after is not None and after.status == "incomplete":  # entrants added while it ran
        n = len(after.entrants)
        err.print(f"note: entrants were added meanwhile: {after.board_pairs} of {after.boards_per_pair * n * (n - 1) // 2} "
                  f"board pairs stored; play the rest with: {command('tournament', 'run', name, db=db)}",
                  markup=False, highlight=False)


def _short(digits: str, keep: int = 16) -> str:
    """A long number cut for a table (``arena tournament show`` prints it whole)."""
    return digits if len(digits) <= keep + 1 else digits[:keep] + "…"


def _entrant_json(key: str) -> dict:
    """An entrant as JSON, the one shape of every command: ``{"name", "version"}``."""
    name, _, version = key.rpartition("@")
    return {"name": name, "version": version}


def _parse_options(texts: list[str] | None) -> dict[str, bool]:
    """``--option NAME=on|off`` values as ``get_ruleset`` keywords; a bad one is a usage error (exit 2)."""
    from referee.rules import parse_option

    out: dict[str, bool] = {}
    for text in texts or []:
        try:
            name, value = parse_option(text)
        except ValueError as e:
            raise fail(str(e), code=2) from None
        if name in out and out[name] != value:
            raise fail(f"--option {name} is given twice with different values", code=2)
        out[name] = value
    return out


def _options_text(options: dict[str, str]) -> str:
    """RULES.md §6.4 options as ``declarations=on contree=off``."""
    return " ".join(f"{k}={v}" for k, v in options.items())


def _seed_words(t) -> str:
    """How a tournament's seed stands, in words (never the secret itself)."""
    if not t.seed_secret:
        return f"seed {t.seed}, given with --seed: not secret"
    if t.seed_revealed:
        return "seed revealed now that the tournament is complete: arena tournament show " + t.name
    return "seed secret until the tournament is complete"


def _tournament_json(t) -> dict:
    """A tournament as JSON (:func:`arena.report.tables.tournament_json`): the seed (decimal
    text) only once it may be shown, else null."""
    from .report.tables import tournament_json

    return tournament_json(t)


@tournament_app.command("list")
def tournament_list(
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON list of objects")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """List tournaments: status, seed commitment, and the seed once it may be shown.

    A secret seed is shown once the tournament is complete; until then only its
    commitment (SHA-256 of the seed's decimal digits), which the seed will match.
    """
    store = open_store(db, read_only=True)
    try:
        rows = store.list_tournaments()
    finally:
        store.close()
    if as_json:
        print(json.dumps([_tournament_json(r) for r in rows]))
        return
    def make(skip: tuple[str, ...]) -> Table:
        t = Table(title="tournaments (full commitment and seed: arena tournament show NAME)", header_style="bold")
        heads = ("name", "ruleset", "options", "boards/pair", "entrants", "board pairs", "status", "created",
                 "commitment", "seed")
        for col in heads:
            if col not in skip:
                t.add_column(col)
        for r in rows:
            seed = "secret" if r.public_seed is None else (
                _short(str(r.public_seed)) + ("" if r.seed_secret else " (not secret)"))
            cells = (escape(r.name), r.ruleset, _options_text(r.variant_options) or "-", str(r.boards_per_pair),
                     str(len(r.entrants)), str(r.board_pairs), r.status, str(r.created_at)[:19],
                     r.commitment[:16] + "…", seed)
            t.add_row(*(c for col, c in zip(heads, cells) if col not in skip))
        return t

    show_table(console, make, drop=("created", "options", "commitment", "entrants"))


@tournament_app.command("show")
def tournament_show(
    name: Annotated[str, typer.Argument(help="tournament name")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Show a tournament: ruleset, entrants, board pairs, status, seed commitment.

    The seed itself is shown once it may be (a secret seed: when the tournament is complete).

    The commitment is the SHA-256 of the seed's decimal digits (ASCII, no newline):
    check a revealed seed with `printf '%s' SEED | sha256sum`, then re-deal board k
    with referee.rules.make_board(SEED, k).
    """
    store = open_store(db, read_only=True)
    try:
        t = store.get_tournament(name)
        names = [] if t is not None else [x.name for x in store.list_tournaments()]
    finally:
        store.close()
    if t is None:
        raise fail(f"no tournament {name!r} in {db}{did_you_mean(name, names)}: see `arena tournament list`")
    info = _tournament_json(t)
    if as_json:
        print(json.dumps(info))
        return
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    n = len(t.entrants)
    grid.add_row("tournament", t.name)
    grid.add_row("ruleset", t.ruleset)
    opts = _options_text(t.variant_options)
    grid.add_row("options", (f"{opts} (RULES.md §6.4); " if opts else "") + "resolved: "
                 + json.dumps(t.options, sort_keys=True))
    grid.add_row("boards", f"{t.boards_per_pair} per pair")
    pairs = n * (n - 1) // 2
    grid.add_row("entrants", ", ".join(t.entrants) + f" ({pairs} pair{'' if pairs == 1 else 's'})" if t.entrants
                 else "none")
    grid.add_row("board pairs", f"{t.board_pairs} of {info['board_pairs_total']} stored")
    grid.add_row("status", t.status)
    grid.add_row("created", info["created_at"] + " UTC")
    grid.add_row("commitment", f"{t.commitment} (SHA-256 of the seed's decimal digits)")
    if t.public_seed is None:
        grid.add_row("seed", "secret until the tournament is complete")
    else:
        grid.add_row("seed", str(t.seed) + ("" if t.seed_secret else " (given with --seed: not secret)"))
        grid.add_row("verify", f"{VERIFY} gives the commitment; board k is referee.rules.make_board(SEED, k)")
    console.print(grid, highlight=False)


# ---------------------------------------------------------------------- reports
def _fmt(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"


def _num(x: float | None, digits: int = 1) -> float | None:
    """A number for JSON: None for NaN or an infinite end (JSON has neither)."""
    return None if x is None or not math.isfinite(x) else round(x, digits)


def _ci(low: float, high: float) -> str:
    """A 95% interval of Elo: "1450–1550", "≥ 1620" (100%), "≤ 1380" (0%), "-"."""
    if math.isnan(low) or math.isnan(high):
        return "-"
    if math.isinf(high) and math.isinf(low):
        return "-"
    if math.isinf(high):
        return f"≥ {low:.0f}"
    if math.isinf(low):
        return f"≤ {high:.0f}"
    return f"{low:.0f}–{high:.0f}"


@app.command()
def ratings(
    tournament: Annotated[str | None, typer.Option(help="one tournament (default: every tournament of the ruleset)")] = None,
    ruleset: Annotated[RulesetName | None, typer.Option(help="ruleset when no tournament is given (default: classic)")] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", metavar="NAME=on|off", show_default=False,
        help="with --ruleset: only tournaments with this RULES.md §6.4 option, repeatable "
        "(default: the ruleset's defaults, declarations=on contree=off)")] = None,
    any_options: Annotated[bool, typer.Option(
        "--any-options", help="with --ruleset: mix tournaments whatever their §6.4 options")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON list of objects")] = False,
    h2h: Annotated[bool, typer.Option("--head-to-head", help="per pair: W/D/L, margin, Elo difference")] = False,
    history: Annotated[str | None, typer.Option(
        "--history", metavar="NAME", help="ratings of bot NAME (every version) as results came in")] = None,
    steps: Annotated[int, typer.Option(min=1, max=1000, help="with --history: checkpoints")] = 10,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Elo ratings: maximum-likelihood Bradley–Terry over board pairs, 95% CI, anchor mean 1500.

    A board pair is won by the larger duplicate margin (RULES.md §8), drawn on
    an equal margin, lost by an entrant that forfeited it. README ("Reading
    the ratings") explains every column. A ruleset's ratings take only
    its tournaments with the same §6.4 options (contree doubles the stakes, so its
    margins are not comparable), unless --any-options.
    """
    from .report import tables as reports

    given = _parse_options(option)
    if tournament is not None and (given or any_options):
        raise fail("--option and --any-options choose tournaments of a --ruleset; a --tournament has its own "
                   "options (see `arena tournament show NAME`)", code=2)
    if given and any_options:
        raise fail("give --option or --any-options, not both", code=2)
    store = open_store(db, read_only=True)
    left_out: list = []
    try:
        if tournament is not None and store.get_tournament(tournament) is None:
            raise fail(f"no tournament {tournament!r} in {db}"
                       f"{did_you_mean(tournament, [t.name for t in store.list_tournaments()])}: see `arena tournament list`")
        if tournament is not None and ruleset is not None:
            raise fail("give --tournament or --ruleset, not both (a tournament has one ruleset)", code=2)
        rs = None if tournament else (ruleset or RulesetName.classic).value
        names = None
        wanted: dict[str, str] = {}
        if rs is not None and not any_options:
            try:
                wanted = get_ruleset(rs, **given).variant_options()
            except ValueError as e:
                raise fail(str(e)) from None
            of_ruleset = [t for t in store.list_tournaments() if t.ruleset == rs]
            names = [t.name for t in of_ruleset if t.variant_options == wanted]
            left_out = [t for t in of_ruleset if t.variant_options != wanted]
        rows = store.board_pair_results(tournament=tournament, ruleset=rs, tournaments=names)
        field = reports.field_scores(store, tournament=tournament, ruleset=rs, tournaments=names) \
            if not (h2h or history) else {}
        hist_rows = reports.history_rows(store, tournament=tournament, ruleset=rs, tournaments=names) \
            if history else []
        scoped = [t for t in store.list_tournaments() if t.name == tournament or (
            tournament is None and t.ruleset == rs and (names is None or t.name in names))]
        # a decided `arena sprt` test stops short of its --max-boards on purpose: not "standings so far"
        unfinished = [t for t in scoped if t.status not in ("complete", "decided")]
        order = list(dict.fromkeys(e for t in scoped for e in t.entrants))  # pairs oriented as `arena matches` shows them
    finally:
        store.close()
    scope = f"tournament {tournament}" if tournament else f"ruleset {rs}" + (
        " (any options)" if any_options else f" ({_options_text(wanted)})" if wanted else "")
    if left_out:
        err.print(f"note: {len(left_out)} {rs} tournament(s) with other RULES.md §6.4 options left out ("
                  + escape(", ".join(f"{t.name}: {_options_text(t.variant_options)}" for t in left_out[:5]))
                  + (", ..." if len(left_out) > 5 else "")
                  + "); rate them with --option NAME=on|off, or mix them with --any-options", highlight=False)
    for t in unfinished:  # standings so far: say so (on stderr, so --json stays one JSON document)
        n = len(t.entrants)
        err.print(f"note: tournament {escape(t.name)} is {t.status}: {t.board_pairs} of "
                  f"{t.boards_per_pair * n * (n - 1) // 2} board pairs stored, so these are the standings so far",
                  highlight=False)
    if history is not None:
        _print_history(reports.rating_history(hist_rows, history, steps), history, scope, as_json)
        return
    table = reports.rating_table(rows)
    if h2h:
        _print_head_to_head(reports.head_to_head_table(rows, order), table, scope, as_json)
        return
    if table is None:
        if as_json:
            print("[]")
            return
        raise fail(f"no results for {scope} yet: run `arena tournament run NAME --bots DIR ...`")
    out = reports.ratings_json(table, field)
    if as_json:
        print(json.dumps(out))
        return
    groups = table.fit.groups

    t = _ratings_rich_table(table, out, scope, compact=False)
    compact = not table_fits(console, t)
    if compact:  # e.g. an 80-column terminal: Δnext without its interval, then fewer columns
        t = _ratings_rich_table(table, out, scope, compact=True)
    show_table(console, lambda skip: _ratings_rich_table(table, out, scope, compact, skip),
               drop=("field", "MP%", "LOS>next", "Δnext"))
    console.print("LOS>next: probability this bot is stronger than the next one down; Δnext: the Elo difference "
                  + ("(its 95% interval: in a wider terminal or with --json)" if compact else "with its 95% interval")
                  + ", * = significant (the interval excludes 0, LOS > 97.5%). "
                  "field: points per table above the field's average on the same cards; MP%: share of the "
                  "field's tables with the same cards beaten. See README, \"Reading the ratings\".",
                  style="dim", highlight=False)
    if groups > 1:
        members = {}
        for r in table.fit.ratings:
            members.setdefault(r.group + 1, []).append(r.name)
        err.print(f"note: the results form {groups} groups that never met, directly or through others "
                  f"({'; '.join(f'group {g}: ' + ', '.join(v) for g, v in sorted(members.items()))}): "
                  "ratings compare only within a group, and each group's mean is 1500. Play a match "
                  "between the groups to join them.", highlight=False)
    if any(r.bound for r in table.fit.ratings):
        err.print("note: a bot that won (or lost) every board pair has no finite upper (lower) bound: its "
                  "interval is one-sided (≥ or ≤), the bound at which such a clean sweep has a 5% chance.",
                  highlight=False)


def _ratings_rich_table(table, out: list[dict], scope: str, compact: bool, skip: tuple[str, ...] = ()) -> Table:
    """The ratings as a rich table; ``compact`` for a narrow terminal: Δnext without its interval;
    without the columns headed ``skip``."""
    groups = table.fit.groups
    t = Table(title=f"Elo ratings — {scope} (unit: board pair; anchor: mean 1500"
              + (" of each group" if groups > 1 else "") + ")", header_style="bold")
    t.add_column("#", justify="right", no_wrap=True, min_width=1)
    if groups > 1:
        t.add_column("grp", justify="right", no_wrap=True)
    t.add_column("bot", no_wrap=True, min_width=max(len(f"{o['name']}@{o['version']}") for o in out))
    heads = ("Elo", "95% CI", "boards", "W-D-L", "field", "MP%", "LOS>next", "Δnext" if compact else "Δnext 95% CI")
    for col in heads:
        if col not in skip:
            t.add_column(col, justify="right", no_wrap=True)
    for k, o in enumerate(out):
        r = table.fit.ratings[table.order[k]]
        d = table.diff_next[k]
        los = table.los_next[k]
        star = " *" if o["significant_next"] else ""
        cells = [
            "-" if math.isnan(r.elo) else f"{r.elo:.0f}",
            _ci(r.ci_low, r.ci_high), str(o["boards"]), f"{o['wins']}-{o['draws']}-{o['losses']}",
            "-" if o["butler"] is None else f"{o['butler']:+.1f}",
            "-" if o["matchpoints"] is None else f"{100 * o['matchpoints']:.1f}",
            "-" if los is None else f"{los:.1%}",
            "-" if d is None else (f"{d[0]:+.0f}" if compact else f"{d[0]:+.0f} ({d[1]:+.0f}…{d[2]:+.0f})") + star,
        ]
        t.add_row(str(o["rank"]), *([str(o["group"])] if groups > 1 else []),
                  escape(f"{o['name']}@{o['version']}"), *(c for h, c in zip(heads, cells) if h not in skip))
    return t


def _has_table(store, name: str) -> bool:
    """Whether the database has the table (one opened read-only keeps the schema it was written with)."""
    return bool(store.con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchone()[0])


def _print_head_to_head(table, fit_table, scope: str, as_json: bool) -> None:
    """Per pair: board W/D/L, mean margin with its interval, and the Elo difference from the fit."""
    from .report.tables import head_to_head_json

    if as_json:
        print(json.dumps(head_to_head_json(table, fit_table)))
        return
    diffs = {}
    if fit_table is not None:
        for h in table:
            d = fit_table.fit.difference(h.a, h.b)
            diffs[(h.a, h.b)] = (*d, fit_table.fit.los(h.a, h.b))
    notes = [(f"{h.a} - {h.b}", h.ci_note) for h in table if h.ci_note]

    def make(skip: tuple[str, ...]) -> Table:
        t = Table(title=f"head to head — {scope} (A's margin in points per board, 95% CI)", header_style="bold")
        width = max([len(h.a) for h in table] + [len(h.b) for h in table] + [1])
        for col in ("A", "B"):
            t.add_column(col, no_wrap=True, min_width=width)
        heads = ("boards", "W-D-L", "margin", "95% CI", "Elo A-B", "95% CI ", "LOS A>B")
        for col in heads:
            if col not in skip:
                t.add_column(col, justify="right", no_wrap=True)
        k = 0
        for h in table:
            diff, low, high, los = diffs[(h.a, h.b)]
            mark = ""
            if h.ci_note:
                k += 1
                mark = f" [{k}]"
            cells = (str(h.boards), f"{h.wins}-{h.draws}-{h.losses}", f"{h.mean_margin:+.0f}",
                     (f"{h.ci_low:+.0f}…{h.ci_high:+.0f}" if not math.isnan(h.ci_low) else "-") + escape(mark),
                     "-" if math.isnan(diff) else f"{diff:+.0f}",
                     "-" if math.isnan(low) else f"{low:+.0f}…{high:+.0f}",
                     "-" if math.isnan(los) else f"{los:.1%}")
            t.add_row(escape(h.a), escape(h.b), *(c for col, c in zip(heads, cells) if col not in skip))
        return t

    show_table(console, make, drop=("95% CI ", "95% CI", "W-D-L"))
    console.print("Elo A-B: the pair's difference in the fitted ratings (all results, not only this pair's) with its "
                  "95% interval; LOS A>B: probability A is the stronger. See README, \"Reading the ratings\".",
                  style="dim", highlight=False)
    for k, (pair, note) in enumerate(notes, 1):
        console.print(f"[{k}] {escape(pair)}: {escape(note)}", highlight=False)


def _print_history(points, name: str, scope: str, as_json: bool) -> None:
    """Ratings of every version of a bot after successive slices of the stored board pairs."""
    if not points:
        raise fail(f"no board pairs of a bot {name!r} in {scope}: see `arena bots list`")
    if as_json:
        print(json.dumps([{"board_pairs": p.board_pairs, "entrant": p.entrant, "elo": _num(p.elo),
                           "ci_low": _num(p.ci_low), "ci_high": _num(p.ci_high), "boards": p.games}
                          for p in points]))
        return
    t = Table(title=f"rating history of {escape(name)} — {scope} (refitted after each slice of the stored "
              "board pairs, in the order stored)", header_style="bold")
    t.add_column("board pairs stored", justify="right")
    t.add_column("version", no_wrap=True)
    for col in ("Elo", "95% CI", "its boards"):
        t.add_column(col, justify="right", no_wrap=True)
    for p in points:
        t.add_row(str(p.board_pairs), escape(p.entrant), f"{p.elo:.0f}", _ci(p.ci_low, p.ci_high), str(p.games))
    show_table(console, t)


@app.command()
def plan(
    elo: Annotated[float, typer.Option(help="the Elo difference to detect (> 0)")] = 30.0,
    power: Annotated[float, typer.Option(help="chance of detecting it")] = 0.8,
    alpha: Annotated[float, typer.Option(help="two-sided significance level")] = 0.05,
    tournament: Annotated[str | None, typer.Option(help="measure spreads on this tournament's results")] = None,
    ruleset: Annotated[RulesetName | None, typer.Option(help="else on this ruleset's results (classic)")] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """How many board pairs two bots must play to tell an Elo difference, with a given power.

    From the spread of board-pair scores (and of duplicate margins) on stored
    results; without stored results, from a stated default (10% draws).
    """
    from .report import tables as reports
    from .stats.sprt import SprtSettings, simulate

    if not elo > 0:
        raise fail(f"--elo must be above 0, got {elo:g}", code=2)
    if not (0 < power < 1 and 0 < alpha < 1):
        raise fail("--power and --alpha must be between 0 and 1", code=2)
    rows = None
    if db.exists():
        store = open_store(db)
        try:
            if tournament is not None and store.get_tournament(tournament) is None:
                raise fail(f"no tournament {tournament!r} in {db}: see `arena tournament list`")
            rs = None if tournament else (ruleset or RulesetName.classic).value
            rows = store.board_pair_results(tournament=tournament, ruleset=rs)
        finally:
            store.close()
    p = reports.plan(rows, elo, alpha=alpha, power=power)
    console.print(f"to detect {elo:g} Elo at two-sided level {alpha:g} with power {power:g}:", highlight=False)
    console.print(f"  board-pair W/D/L: {p.board_pairs_wdl} board pairs (score sd {p.score_sd:.3f} per board "
                  f"pair, {p.score_source})", highlight=False)
    if p.board_pairs_margin is not None:
        console.print(f"  duplicate margin: {p.board_pairs_margin} board pairs (margin sd {p.margin_sd:.1f} points, "
                      f"{p.margin_per_elo:.3f} points per Elo fitted on the stored pairs)", highlight=False)
    else:
        console.print("  duplicate margin: needs stored results of at least two pairs of different strength",
                      style="dim", highlight=False)
    if power <= 0.5:
        return
    settings = SprtSettings(elo0=0.0, elo1=elo, alpha=alpha / 2, beta=1 - power, max_boards=20 * p.board_pairs_wdl)
    at_elo = simulate(elo, p.draw_rate, settings, reps=200, seed=1)
    at_zero = simulate(0.0, p.draw_rate, settings, reps=200, seed=2)
    console.print(f"  arena sprt --elo0 0 --elo1 {elo:g} --alpha {alpha / 2:g} --beta {1 - power:g} (same errors, "
                  f"one-sided): on average {at_elo.mean_boards:.0f} board pairs when A is {elo:g} Elo stronger, "
                  f"{at_zero.mean_boards:.0f} when they are equal (simulated, 200 tests each)", highlight=False)


@app.command()
def sprt(
    bot_a: Annotated[str, typer.Argument(metavar="A", help="bot folder, registered name or name@version, or sample bot")],
    bot_b: Annotated[str, typer.Argument(metavar="B", help="the other bot, the same ways")],
    elo0: Annotated[float, typer.Option(help="H0: A is this many Elo stronger than B")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: A is this many Elo stronger than B")] = 50.0,
    alpha: Annotated[float, typer.Option(help="chance of accepting H1 when H0 holds")] = 0.05,
    beta: Annotated[float, typer.Option(help="chance of accepting H0 when H1 holds")] = 0.05,
    max_boards: Annotated[int, typer.Option(min=1, max=100_000, help="board pairs after which it stops undecided")] = 2000,
    name: Annotated[str | None, typer.Option(help="test name (default: sprt-A-B-ELO0-ELO1); rerun to resume")] = None,
    ruleset: Annotated[RulesetName, typer.Option(help="rule system (RULES.md)")] = RulesetName.classic,
    seed: Annotated[int | None, typer.Option(
        min=0, max=MAX_SEED, help="board set seed: NOT secret (default: 256 random bits, secret)",
        show_default=False)] = None,
    decision_ms: StoredOptions["new test"][0] = None,
    max_faults: StoredOptions["new test"][1] = None,
    cpu_s: StoredOptions["new test"][2] = None,
    memory_mib: StoredOptions["new test"][3] = None,
    no_isolate: NoIsolateOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Sequential test: play duplicate board pairs of A against B until the evidence decides.

    H1 (A is ELO1 stronger) or H0 (ELO0 stronger), with error rates ALPHA and
    BETA; board-pair W/D/L, generalized SPRT (README, "Deciding with the fewest
    boards").  The board pairs are stored as a tournament of the test's name;
    rerunning the same command resumes it, or prints its stored decision.
    """
    isolate = not no_isolate
    from referee.manifest import load_manifest

    from .stats import sprt as sp
    from .play import tournament as tour
    from .store import StoreError
    from .play.submit import SubmitError, submit

    settings = sp.SprtSettings(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, max_boards=max_boards)
    try:
        settings.check()
    except ValueError as e:
        raise fail(str(e), code=2) from None
    store = open_store(db)
    try:
        rs = get_ruleset(ruleset.value)
        picked = [sp.resolve_bot(spec, store.list_bots()) for spec in (bot_a, bot_b)]
        manifests = [load_manifest(x if kind == "folder" else x.path) for kind, x in picked]
        keys = [m.key for m in manifests]
        if keys[0] == keys[1]:
            raise fail(f"A and B are the same bot ({keys[0]}): give two different bots or versions")
        for m in manifests:
            m.check_plays(rs.name)
        test = name or f"sprt-{keys[0]}-{keys[1]}-{elo0:g}-{elo1:g}"
        stored = sp.load(store, test)
        if stored is not None:
            given = {"entrant_a": keys[0], "entrant_b": keys[1], "alpha": alpha, "beta": beta,
                     "max_boards": max_boards, "elo0": elo0, "elo1": elo1}
            differ = [k for k, v in given.items() if stored[k] != v]
            if differ:
                flags = ", ".join("bots A and B" if k in ("entrant_a", "entrant_b") else "--" + k.replace("_", "-")
                                  for k in dict.fromkeys("entrant_a" if k == "entrant_b" else k for k in differ))
                again = ("give the same ones to resume it" if stored["status"] == "running" else
                         f"it is {'undecided' if stored['status'] == 'inconclusive' else 'decided'} and done")
                raise fail(f"test {test!r} exists with other settings ({flags}): {again}; "
                           "choose a new --name to test again")
        existing = store.get_tournament(test)
        if existing is not None and stored is None:
            raise fail(f"{test!r} is the name of a tournament, not a test: choose another --name")
        if existing is not None and existing.ruleset != rs.name:
            raise fail(f"test {test!r} plays {existing.ruleset}; leave --ruleset out to resume it")
        given = {"decision_ms": decision_ms, "max_faults": max_faults, "cpu_s": cpu_s, "memory_mib": memory_mib}
        stored_settings, play = _play_settings(store, test, existing is not None, given, "--name")
        decision_ms, max_faults, cpu_s, memory_mib = (play[k] for k in given)
        decided = stored is not None and stored["status"] != "running"
        limits = _limits(cpu_s, memory_mib, isolate, manifests) if not decided else None
        for kind, x in picked:
            if kind == "folder" and not decided:
                submit(store, x, store_root=db.parent / "bots", console=console, limits=limits)
        if existing is None:
            store.create_tournament(test, rs.name, rs.options(), seed if seed is not None else new_seed(),
                                    max_boards, [(m.name, m.version) for m in manifests], secret=seed is None)
        if stored_settings is None:
            store.set_play_settings(test, play)
        console.print(f"test [bold]{escape(test)}[/]: {keys[0]} against {keys[1]}, {rs.name}; "
                      f"H0 Elo {elo0:g}, H1 Elo {elo1:g}, alpha {alpha:g}, beta {beta:g}, "
                      f"at most {max_boards} board pairs" + (" (decided before: stored result)" if decided else ""),
                      highlight=False)
        if limits is not None:
            console.print(sandbox_report(limits), style="dim", highlight=False)
        progress = Progress(
            TextColumn("[bold]board pairs"), MofNCompleteColumn(), TextColumn("{task.fields[llr]}"),
            TimeElapsedColumn(), console=console,
        )
        stop_flag = threading.Event()
        with progress:
            task = progress.add_task("", total=max_boards, llr="")

            def on_update(st, n_stored: int) -> None:
                progress.update(task, completed=st.board_pairs,
                                llr=f"LLR {st.llr:+.2f} (H0 at {st.lower:.2f}, H1 at {st.upper:.2f})  "
                                    f"W-D-L {st.wins}-{st.draws}-{st.losses}  Elo {_signed(st.elo)}")

            def play(on_progress, stop) -> None:
                def on_sigint(signum, frame) -> None:
                    if stop.is_set():
                        raise KeyboardInterrupt
                    stop.set()
                    stop_flag.set()

                in_main = threading.current_thread() is threading.main_thread()
                previous = signal.signal(signal.SIGINT, on_sigint) if in_main else None
                try:
                    summary = tour.run(store, test, workers=1, decision_ms=decision_ms, max_faults=max_faults,
                                       on_progress=on_progress, stop=stop, limits=limits,
                                       block_boards=sp.BLOCK_BOARDS)
                finally:
                    if in_main:
                        signal.signal(signal.SIGINT, previous)
                for e in summary.errors:
                    err.print(f"[red]worker error:[/] {escape(e)}", highlight=False)

            state = sp.run_test(store, test, keys[0], keys[1], settings, play, on_update=on_update)
    except (ValueError, ManifestError, SubmitError, tour.TournamentError, StoreError) as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    resume = f"arena sprt {bot_a} {bot_b}" + (f" --name {test}" if name else "") + (
        f" --db {db}" if db != DEFAULT_DB else "")
    if state.decision is None:
        err.print(f"interrupted after {state.board_pairs} board pairs, undecided. Resume with: {resume}")
        raise typer.Exit(code=130 if stop_flag.is_set() else 1)
    words = {"H1": f"H1 accepted: {keys[0]} is stronger than {keys[1]} by about {elo1:g} Elo or more",
             "H0": f"H0 accepted: {keys[0]} is not stronger than {keys[1]} by {elo1:g} Elo "
                   f"(about {elo0:g} Elo or less)",
             "inconclusive": f"no decision after {max_boards} board pairs (--max-boards)"}[state.decision]
    console.print(f"[bold]{escape(words)}[/]", highlight=False)
    console.print(f"board pairs: {state.board_pairs} (W-D-L {state.wins}-{state.draws}-{state.losses}); "
                  f"LLR {state.llr:+.2f}, bounds {state.lower:.2f} / {state.upper:.2f}; "
                  f"Elo {keys[0]} - {keys[1]}: {_signed(state.elo)} (95% CI {_signed(state.elo_low)} to "
                  f"{_signed(state.elo_high)}"
                  + ("; biased away from the bound crossed: read the decision)" if state.decision != "inconclusive"
                     else ")"),
                  highlight=False)


def _signed(x: float) -> str:
    """An Elo value with its sign; ∞ ends and NaN as words."""
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"


@app.command()
def matches(
    tournament: Annotated[str | None, typer.Option(help="only this tournament")] = None,
    bot: Annotated[str | None, typer.Option(help="only matches of this bot (name or name@version)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON list of objects")] = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """List matches (id "TOURNAMENT/A~B"): board pairs, A's W-D-L, A's mean margin per board, forfeits, faults."""
    store = open_store(db, read_only=True)
    try:
        if tournament is not None and store.get_tournament(tournament) is None:
            raise fail(f"no tournament {tournament!r} in {db}"
                       f"{did_you_mean(tournament, [t.name for t in store.list_tournaments()])}: see `arena tournament list`")
        if bot is not None and bot not in {b.name for b in store.list_bots()} | {b.key for b in store.list_bots()}:
            known = {b.name for b in store.list_bots()} | {b.key for b in store.list_bots()}
            raise fail(f"no bot {bot!r} in {db}{did_you_mean(bot, known)}: see `arena bots list` "
                       "(give a name or name@version)")
        rows = store.matches(tournament=tournament, bot=bot)
    finally:
        store.close()
    if as_json:
        from .report.tables import match_json

        print(json.dumps([match_json(r) for r in rows]))
        return
    t = Table(title="matches (A holds NS at table 1; W-D-L: A's board pairs, a forfeit loses; "
              "see one with: arena log ID)", header_style="bold")
    t.add_column("match id", overflow="fold")  # in a narrow terminal the id folds, the numbers stay whole
    for col in ("boards", "W-D-L A", "margin A/board", "forfeits A-B", "faults"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        t.add_row(escape(r.match_id), str(r.boards), f"{r.wins_a}-{r.draws}-{r.losses_a}", f"{r.mean_margin:+.0f}",
                  f"{r.forfeits_a}-{r.forfeits_b}", str(r.faults))
    show_table(console, t)
    if not rows:
        err.print("no matches found" + (f" in tournament {tournament!r}" if tournament else "")
                  + (f" for bot {bot!r}" if bot else ""))


@app.command()
def log(
    match_id: Annotated[str, typer.Argument(metavar="MATCH", help="a match id from `arena matches`, or a short "
                                            "form that names one match: A~B or TOURNAMENT/A~B, bots by name or "
                                            "name@version, in either order")],
    board: Annotated[int | None, typer.Option(min=0, help="only this board")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the deal records as JSON")] = False,
    original_suits: Annotated[bool, typer.Option(help="show table 2 in the board's own suits")] = True,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Replay a match's boards at both tables: hands, bids, declarations, tricks, scores."""
    from .report.boardview import in_board_suits
    from .store import StoreError

    store = open_store(db, read_only=True)
    try:
        match_id = _find_match(store, match_id)
        rows = store.deal_records(match_id, board=board)
    except StoreError as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    if as_json:
        print(json.dumps([{"board": r.board, "table": r.table, "ns": r.ns, "ew": r.ew,
                           "permutation": list(r.permutation), "record": r.record.to_json()} for r in rows]))
        return
    for r in rows:
        perm = tuple(r.permutation)
        record = in_board_suits(r.record, perm) if original_suits else r.record
        state = replay_record(record)
        sides = ("NS", "EW") if record.ruleset.seats == 4 else ("P0", "P1")
        title = (f"board {r.board} table {r.table}: {sides[0]} {r.ns} — {sides[1]} {r.ew}"
                 + ("  (suits shown as on the board)" if perm != (0, 1, 2, 3) and original_suits else ""))
        if len(title) + 6 <= console.width:
            console.rule(escape(title))
        else:  # a rule cuts its title: a narrow terminal gets the rule, then the title whole
            console.rule()
            console.print(title, markup=False, highlight=False)
        console.print(render_deal(state))
        for f in r.faults:  # the referee played the fallback for each, and the entrant forfeits the board
            console.print(f"[red]fault[/] at seat {f.seat} ({escape(f.entrant)}): {f.kind}: {escape(f.detail)}; the "
                      f"referee played the first legal action, and {escape(f.entrant)} forfeits board {f.board}",
                      highlight=False)


def _find_match(store, text: str) -> str:
    """The match id that ``text`` names: the id itself, or a short form ``A~B`` or
    ``TOURNAMENT/A~B`` with each bot as ``name`` or ``name@version``, in either order.

    Raises:
        StoreError: no match, or more than one (listed), fits.
    """
    from .store import StoreError

    found = store.matches()
    if any(m.match_id == text for m in found):
        return text
    tournament, _, pair = text.rpartition("/")
    x, tilde, y = pair.partition("~")

    def names(q: str, key: str) -> bool:
        return q in (key, key.rpartition("@")[0])

    fits = [m.match_id for m in found if tilde and (not tournament or m.tournament == tournament)
            and ((names(x, m.entrant_a) and names(y, m.entrant_b)) or (names(x, m.entrant_b) and names(y, m.entrant_a)))]
    if len(fits) == 1:
        return fits[0]
    if fits:
        raise StoreError(f"{text!r} fits {len(fits)} matches: {', '.join(fits[:6])}{' …' if len(fits) > 6 else ''}; "
                         "give the tournament (TOURNAMENT/A~B) or the versions (name@version)")
    raise StoreError(f"there is no match {text!r}: see `arena matches` for the match ids "
                     "(a match is TOURNAMENT/A~B; A~B alone works when it names one match)")


@app.command()
def export(
    fmt: Annotated[ExportFormat, typer.Option("--format", help="file format")] = ExportFormat.parquet,
    out: Annotated[Path, typer.Option(help="folder to write one file per table into")] = Path("results/export"),
    db: DbOption = DEFAULT_DB,
) -> None:
    """Write every table of the results database to files for other tools.

    Also ratings.FORMAT (per ruleset: Elo, interval, field scores) and
    rating_history.FORMAT (every entrant's rating after each tenth of the
    stored board pairs), computed as `arena ratings` shows them.

    A tournament's secret seed, and its table of boards, are written only once the
    tournament is complete; its commitment always is. The deals and actions of the
    board pairs already played are written as they are: they show those boards, which
    other pairs of a running tournament may have yet to play, so publish an export of
    a tournament only once it is complete.
    """
    from .store import StoreError

    from .report.tables import export_derived

    store = open_store(db, read_only=True)
    try:
        files = store.export(out, fmt.value)
        files += export_derived(store, out, fmt.value)
        hidden = [t.name for t in store.list_tournaments() if not t.seed_revealed]
    except StoreError as e:  # e.g. --out names a file, or a folder that cannot be made
        raise fail(str(e)) from None
    finally:
        store.close()
    for f in files:
        console.print(str(f))
    if hidden:
        err.print(f"secret seeds left out until their tournament is complete (seed null, no boards rows): "
                  f"{', '.join(hidden)}", highlight=False)


@app.command()
def serve(
    db: DbOption = DEFAULT_DB,
    host: Annotated[str, typer.Option(metavar="ADDRESS", help="address to listen on; another than 127.0.0.1 "
                                      "shows the results to anyone who can reach it")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0: any free one)")] = 8000,
) -> None:
    """Show the results in a web browser: ratings, matches, replays, live progress.

    Pages: tournaments, leaderboards, head-to-head grids, matches, a replay of every
    board, bots, and the progress of a running tournament.

    Read-only: the database is opened read-only for each page, so it runs while
    `arena tournament run` writes. Stop it with Ctrl-C.
    """
    from .web import ServeError, is_loopback
    from .web import serve as run_server

    if not db.exists():
        raise fail(f"no results database at {db}: run a tournament first (arena tournament run NAME --bots DIR "
                   "...) or pass --db PATH")
    if not is_loopback(host):
        err.print(f"[yellow]warning:[/] listening on {escape(host)}: anyone who can reach this machine there "
                  "can read every stored deal (of running tournaments too)", highlight=False)
    try:
        run_server(db, host, port, announce=lambda url: console.print(
            f"serving {escape(str(db))} read-only on {url} (Ctrl-C stops)", highlight=False, soft_wrap=True))
    except ServeError as e:
        raise fail(str(e)) from None
    except KeyboardInterrupt:
        pass


def main() -> None:  # pragma: no cover - console entry point
    from .play.malloc import few_malloc_arenas

    few_malloc_arenas()  # memory flat in the length of a run (before any thread starts)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    app()
