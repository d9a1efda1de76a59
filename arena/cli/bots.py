"""``arena bots check|submit|list``."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from referee.manifest import ManifestError
from referee.records import printable
from referee.sandbox import report as sandbox_report
from referee.rules import RULESETS

from ..report.render import show_table
from .base import (
    DEFAULT_DB,
    bot_folders,
    registered_bots,
    bots_app,
    console,
    err,
    RulesetName,
    _limits,
    fail,
    open_store,
    DbOption,
    DecisionMsOption,
    NoIsolateOption,
    WeakLimitsOption,
)


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


#: How a bot argument may be given (:func:`arena.cli.base.bot_folders`).
BOT_HELP = ("the bot: its folder (holding bot.toml), a registered bot's name or name@version (its frozen copy), "
            "or a sample bot's name (random, greedy, heuristic)")


@bots_app.command("check")
def bots_check(
    bot: Annotated[str, typer.Argument(metavar="BOT", help=BOT_HELP)],
    ruleset: Annotated[RulesetName | None, typer.Option(help="ruleset to test (default: the manifest's first)")] = None,
    boards: Annotated[int, typer.Option(min=1, max=50, help="boards to play with the bot in every seat")] = 2,
    decision_ms: DecisionMsOption = 1000,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Run the conformance check on a bot without submitting it (exit 1 if it fails)."""
    isolate = not no_isolate
    from referee.manifest import load_manifest

    from ..play.bots import check_bot

    (folder,) = bot_folders([bot], lambda: registered_bots(db))
    try:
        limits = _limits(0, 1024, isolate, [load_manifest(folder)], weak_limits)
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
    bot: Annotated[str, typer.Argument(metavar="BOT", help=BOT_HELP + " (registered: only entered in --tournament)")],
    tournament: Annotated[str | None, typer.Option(help="also enter the bot in this tournament")] = None,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Check a bot (in the sandbox), freeze a read-only copy of its folder in the store, and register it."""
    isolate = not no_isolate
    from referee.manifest import load_manifest

    from ..store import StoreError
    from ..play.submit import SubmitError, check_store_outside, submit

    (folder,) = bot_folders([bot], lambda: registered_bots(db))
    try:
        check_store_outside(folder, db.parent / "bots")
        limits = _limits(0, 1024, isolate, [load_manifest(folder)], weak_limits)
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
