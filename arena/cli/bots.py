"""``arena bots new|check|submit|list``."""

from __future__ import annotations

import getpass
import json
from enum import Enum
from pathlib import Path
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
    if report.answers:
        _print_coverage(report)
    if report.decisions:
        console.print(f"then the match: {report.match}", highlight=False, markup=False, soft_wrap=True)
        t = Table(title="the match's decisions", header_style="bold")
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
    if report.seed is not None:
        console.print(f"positions and boards drawn from seed {report.seed}: `--seed {report.seed}` asks the same again",
                      highlight=False, markup=False, soft_wrap=True)
    # continuation lines indented: a bot's own text (an error's message) cannot add a line of its own
    for p in report.problems:
        err.print(f"[red]problem:[/] {escape(_indented(p))}", highlight=False)
    for f in report.faults[:20]:
        err.print(f"[red]fault:[/] {escape(_indented(f))}", highlight=False)
    console.print("[green]conformance check passed[/]" if report.ok else
                  f"[red]conformance check failed[/]: {len(report.problems)} problem(s), {len(report.faults)} fault(s)")


def _indented(text: str) -> str:
    return "\n    ".join(text.splitlines())


def _print_coverage(report) -> None:
    """The chosen positions as a table: a row per situation, a column per ruleset; a cell says
    "ok" (with how many of the ruleset's option configurations were asked it), or each wrong
    answer's fault with the options it was asked under."""
    from ..play.coverage import SITUATIONS

    rulesets = list(dict.fromkeys(c.split(" (")[0] for c in report.configs))
    by: dict[tuple[str, str], list] = {}
    for a in report.answers:
        by.setdefault((a.situation, a.config.split(" (")[0]), []).append(a)
    caption = ("asked under: " + "; ".join(report.configs) + " (ok ×N: answered under N of them; —: the ruleset "
               "has no such decision)" + ("; NOT asked under: " + "; ".join(report.not_asked) if report.not_asked else ""))
    t = Table(title=f"every kind of decision, on chosen positions ({len(report.answers)} asked)", header_style="bold",
              caption=escape(caption), caption_justify="left")
    t.add_column("situation")
    for r in rulesets:
        t.add_column(r)

    def cell(answers: list) -> str:
        if not answers:
            return "[dim]—[/]"
        wrong = [a for a in answers if not a.ok]
        if not wrong:
            return "ok" + (f" ×{len(answers)}" if len(answers) > 1 else "")
        return ", ".join(f"[red]{escape(a.kind)}[/]" + (f" ({escape(a.config.split(' (', 1)[1])}" if " (" in a.config else "")
                         for a in wrong)

    for s in SITUATIONS:
        if any((s, r) in by for r in rulesets):
            t.add_row(s, *(cell(by.get((s, r), [])) for r in rulesets))
    show_table(console, t)


#: How a bot argument may be given (:func:`arena.cli.base.bot_folders`).
BOT_HELP = ("the bot: its folder (holding bot.toml), a registered bot's name or name@version (its frozen copy), "
            "or a sample bot's name (random, greedy, heuristic, expert)")


class Lang(str, Enum):
    python = "python"
    node = "node"
    cpp = "cpp"


def _author() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid
        return "me"


@bots_app.command("new")
def bots_new(
    name: Annotated[str, typer.Argument(help="the bot's name (letters, digits, '-', '_'): its folder and manifest name")],
    lang: Annotated[Lang, typer.Option("--lang", help="the bot's language")] = Lang.python,
    folder: Annotated[Path, typer.Option("--dir", metavar="DIR", help="where to make the bot's folder, DIR/NAME")] = Path("."),
    author: Annotated[str | None, typer.Option(help="the manifest's author (default: your user name)")] = None,
    build: Annotated[bool, typer.Option("--build", help="also run the set-up (npm ci, the C++ build) in the new folder")] = False,
) -> None:
    """Write a ready bot folder from a template: manifest, code, and a README saying how to run and check it."""
    from ..play.newbot import LANGUAGES, NewBotError, missing, new_bot, set_up

    language = LANGUAGES[lang.value]
    try:
        made = new_bot(name, language, folder, author if author is not None else _author())
    except NewBotError as e:
        raise fail(str(e)) from None
    console.print(f"made [bold]{escape(str(made))}[/]: a {language.title} bot; its decisions are in "
                  f"{escape(str(made / language.logic))}", highlight=False, soft_wrap=True)
    if build:
        try:
            set_up(made, language, echo=lambda line: console.print(f"$ {escape(line)}", highlight=False, soft_wrap=True))
        except NewBotError as e:
            raise fail(str(e)) from None
    steps = [f"cd {made}"] + ([] if build else [" ".join(c) for c in language.setup]) + ["arena bots check ."]
    console.print("next: " + " && ".join(escape(s) for s in steps), highlight=False, soft_wrap=True)  # one line to paste
    if not build and (gone := missing(language)):
        err.print(f"[yellow]warning:[/] {language.title} bots need {escape(', '.join(gone))}, not found here: "
                  f"install with `{escape(language.install)}` (Debian, as root)", highlight=False)


@bots_app.command("check")
def bots_check(
    bot: Annotated[str, typer.Argument(metavar="BOT", help=BOT_HELP)],
    ruleset: Annotated[RulesetName | None, typer.Option(help="check only this ruleset, with its default options "
                                                             "(default: every ruleset the manifest lists)")] = None,
    boards: Annotated[int, typer.Option(min=1, max=50, help="boards to play with the bot in every seat")] = 2,
    decision_ms: DecisionMsOption = 1000,
    seed: Annotated[int | None, typer.Option(min=0, help="draw the positions and boards from this seed (default: a "
                                                         "new secret one, printed at the end), to ask them again")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as one JSON object (for a bot's CI)")] = False,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Run the conformance check on a bot without submitting it (exit 1 if it fails): every kind of decision
    on chosen positions, under every ruleset the bot plays with every combination of options (or only
    --ruleset's defaults), then a few duplicate boards against the random bot."""
    isolate = not no_isolate
    from referee.manifest import load_manifest

    from ..play.bots import built, check_bot
    from ..play.build import BuildError

    (folder,) = bot_folders([bot], lambda: registered_bots(db))
    try:
        manifest = load_manifest(folder)
        limits = _limits(0, 1024, isolate, [manifest], weak_limits)
        say = err if as_json else console  # stdout is the JSON alone
        say.print(sandbox_report(limits), style="dim", highlight=False)
        if manifest.requirements is not None:
            say.print(f"installing the packages of {manifest.requirements} into a temporary copy ...",
                      highlight=False)
        with built(folder) as ready:
            report = check_bot(ready, ruleset=RULESETS[ruleset.value] if ruleset else None, boards=boards,
                               decision_ms=decision_ms, limits=limits, seed=seed)
    except (ManifestError, BuildError) as e:
        raise fail(str(e)) from None
    if as_json:
        print(json.dumps(report.to_json()))
    else:
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
        manifest = load_manifest(folder)
        check_store_outside(folder, db.parent / "bots", manifest)
        limits = _limits(0, 1024, isolate, [manifest], weak_limits)
    except (ManifestError, SubmitError) as e:
        raise fail(str(e)) from None
    console.print(sandbox_report(limits, brief=True), style="dim", highlight=False)
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
