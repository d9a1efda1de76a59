"""The ``arena`` application and what its commands share: the typer app and its two
groups, the consoles, option types and defaults, the play settings and sandbox limits of
a run, opening the store, and the one-line ``error:`` exit (:func:`fail`).
"""

from __future__ import annotations

import contextlib
import difflib
import inspect
import os
import re
import shlex
import sys
import typing
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup
from rich.console import Console
from rich.markup import escape


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
tournament_app = typer.Typer(help="Run, list, show, rename and delete duplicate round-robin tournaments.",
                             no_args_is_help=True,
                             cls=_Group)
app.add_typer(bots_app, name="bots")
app.add_typer(tournament_app, name="tournament")
# Piped or captured output is not cut to 80 columns: tables are laid out in 200 and messages
# are never wrapped, as on stderr (a new user saw the two wrap at different widths); COLUMNS,
# when set, still wins, as in a terminal.
_SIZED = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
console = Console(width=None if _SIZED else 200, soft_wrap=not _SIZED)
err = Console(stderr=True, soft_wrap=True)


class RulesetName(str, Enum):
    classic = "classic"
    strict = "strict"
    all_trumps = "all-trumps"
    two_player = "two-player"


def did_you_mean(given: str, known) -> str:
    """``" (did you mean 'x'?)"`` for the closest known name, or ``""``."""
    close = difflib.get_close_matches(given, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


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
WeakLimitsOption = Annotated[bool, typer.Option(
    "--weak-limits", help="play even where the whole-bot memory and CPU limits cannot be enforced (no cgroups)")]


#: A new tournament's play settings when no flag gives them (arena.store.model.PLAY_SETTINGS).
PLAY_DEFAULTS = {"decision_ms": 1000, "max_faults": 3, "cpu_s": 0, "memory_mib": 1024, "time_bank_ms": 0,
                 "time_increment_ms": 0}



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
                   f"0 = unlimited ({when}: {d['memory_mib']})"),
            option("--time-bank-ms", min=0, max=3_600_000, help="extra ms per bot process per match, spent when a "
                   f"decision takes longer than --decision-ms, as `arena match` has ({when}: {d['time_bank_ms']})"),
            option("--time-increment-ms", min=0, max=600_000, help="ms added to a bot process's time bank after "
                   f"each answer, a chess clock's increment ({when}: {d['time_increment_ms']})"))


StoredOptions = {when: _stored_options(when) for when in ("new tournament", "new test")}


def _workers(value: str | int) -> int:
    """``--workers``: a number of tables, 1 to 64, or ``auto`` (0: the machine's cores).

    Raises:
        typer.BadParameter: anything else (a usage error, exit 2)."""
    if isinstance(value, int):
        return value
    if value.strip().lower() == "auto":
        return 0
    try:
        n = int(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is neither a number of tables (1 to 64) nor auto") from None
    if not 1 <= n <= 64:
        raise typer.BadParameter(f"{n} is not between 1 and 64 (or auto)")
    return n


WorkersOption = Annotated[int | None, typer.Option(
    parser=_workers, metavar="N|auto",
    help="tables played at once, at most: 1 in the arena's process, more in worker processes of one table "
    "each (as many as there are matches with no entrant in common); auto: this machine's cores (as a chess "
    "tester's concurrency), no more than the field keeps busy. Kept with the tournament: a resume without it "
    "plays as the last run did (new tournament: auto)", show_default=False)]


def cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def registered_bots(db: Path) -> list:
    """The bots registered in the database at ``db`` (none when there is no database yet),
    for :func:`bot_folders`; an unusable file is an error message, exit 1."""
    if not db.is_file():
        return []
    store = open_store(db, read_only=True)
    try:
        return store.list_bots()
    finally:
        store.close()


def bot_folders(specs: list[str], registered, *, what: str = "bot", hashes: dict[str, str] | None = None) -> list[Path]:
    """Each bot argument as the folder to play: a folder holding ``bot.toml``, a registered
    bot's ``name@version`` or ``name`` (its newest version: its frozen copy), or a sample
    bot's name (``random``, ``greedy``, ``heuristic``), as :func:`arena.stats.sprt.resolve_bot`
    reads them; ``registered``: the database's bots (:func:`registered_bots`), or a function
    giving them, called only when a spec is not a bot folder (so an older database is not
    opened for a folder).  A path (with
    ``/``, or one that exists) that is none of these is returned as it is, for the manifest's
    own message (no such folder, no ``bot.toml``); any other spec is an error message
    (exit 1) listing the known names.  ``hashes``, if given, gets each registered bot's frozen
    copy (as returned) mapped to its registered content hash, which the referee checks before
    every start (and by which a house bot's copy is known: :func:`referee.evict.is_house`)."""
    from ..stats.sprt import resolve_bot

    out: list[Path] = []
    for spec in specs:
        if (Path(spec) / "bot.toml").is_file():
            out.append(Path(spec))
            continue
        if callable(registered):
            registered = registered()
        try:
            kind, x = resolve_bot(str(spec), registered)
        except ValueError as e:
            if "/" in str(spec) or Path(spec).exists():
                out.append(Path(spec))
                continue
            raise fail(f"{what} {e}") from None
        out.append(x if kind == "folder" else Path(x.path))
        if kind == "stored" and hashes is not None:
            hashes[str(out[-1])] = x.content_hash
    return out


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


DealsOption = Annotated[Path | None, typer.Option(
    "--deals", dir_okay=False, metavar="FILE", help="play the boards of this file instead of boards dealt from the "
    "seed (a deal suite, like an opening book): deal records as `arena replay` reads them (JSON, JSON lines, "
    "hand-checked cases) or compact lines `DEALER CARD×32` (the deck in dealing order); every pair plays each "
    "board at both tables; more boards than the file holds are refused. A tournament or test keeps them: its "
    "resume plays the stored boards (README: a deal suite)", show_default=False)]


def deal_suite(store, name: str, existing, path: Path | None, ruleset, boards: int | None, boards_flag: str,
               new_name: str):
    """``--deals FILE`` checked against the tournament (or test) ``name``: the file's
    :class:`arena.play.deals.DealSuite` for a new one (None without ``--deals``); for an
    existing one, None once the file is found to be the one it was created with.  A bad
    file, more boards asked for (``boards``, given with ``boards_flag``) than it holds, or
    another file than the stored one is refused (exit 1), before anything is written."""
    from ..play.deals import DealFileError, load_deals

    if path is None:
        return None
    try:
        suite = load_deals(path, ruleset.seats)
        if existing is None and boards is not None:
            suite.first(boards)
    except DealFileError as e:
        message = str(e)
        if "fewer than the" in message:
            message += f" ({boards_flag})"
        raise fail(message) from None
    if existing is None:
        return suite
    stored = store.deal_suite(name)
    if stored is None:
        raise fail(f"{name!r} exists with boards dealt from its seed, fixed once it is created: leave --deals out "
                   f"to resume it, or choose a new {new_name}")
    if stored.sha256 != suite.sha256:
        raise fail(f"{name!r} was created with the deal file {stored.file_name} (SHA-256 {stored.sha256[:16]}…), "
                   f"and {path} is another file (SHA-256 {suite.sha256[:16]}…): leave --deals out to resume it "
                   f"with its stored boards, or choose a new {new_name}")
    return None


def keep_deal_suite(store, name: str, suite, boards: int) -> None:
    """Store a new tournament's deal suite: its first ``boards`` boards and the file's name and SHA-256."""
    store.add_boards(name, suite.first(boards))
    store.set_deal_suite(name, suite.name, suite.sha256, len(suite.boards))


def suite_line(store, name: str) -> None:
    """Print the deal file a tournament plays, if it plays one."""
    stored = store.deal_suite(name)
    if stored is not None:
        console.print(f"boards: the deal suite {stored.file_name} ({stored.file_boards} board"
                      f"{'' if stored.file_boards == 1 else 's'}, SHA-256 {stored.sha256}), not dealt from the seed",
                      markup=False, highlight=False)


def _limits(cpu_s: int, memory_mib: int, isolate: bool, manifests: list | None = None, weak_limits: bool = False):
    """The bots' sandbox limits, refused (exit 1) where the sandbox cannot be made for untrusted bots,
    or where it cannot enforce the whole-bot limits and ``--weak-limits`` is not given."""
    from referee.sandbox import Limits, unenforced

    from ..play.entrants import SandboxRefused, sandbox_limits

    limits = Limits(cpu_s=cpu_s, memory_mib=memory_mib, isolate=isolate, weak_limits=weak_limits)
    try:
        limits = sandbox_limits(limits, manifests or [], lambda m: err.print(f"[yellow]warning:[/] {m}", highlight=False))
    except SandboxRefused as e:
        raise fail(str(e)) from None
    if (missing := unenforced(limits)) and not weak_limits:
        raise fail(f"this machine cannot enforce {'; '.join(missing)}: pass --weak-limits to play anyway")
    return limits


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


def check_tournament_name(name: str) -> None:
    """Refuse a tournament name that is blank, starts or ends with a space, holds a '/' or a
    control character (new-user trial 4: ' ' was a tournament, an empty link on the web).

    Raises:
        typer.Exit: code 2, naming the name and the rule.
    """
    if not name.strip() or name != name.strip() or "/" in name or any(not c.isprintable() for c in name):
        raise fail(f"tournament name {name!r} must be non-empty, without '/', control characters, or spaces at "
                   "either end", code=2)


def refuse_if_running(db: Path) -> None:
    """Refuse a command that would play in ``db`` while another arena plays a tournament there,
    before anything is checked or written (a refused `arena sprt` had stored its test first).

    Raises:
        typer.Exit: code 1, with the holder's pid and tournament and what to do.
    """
    from ..store import RunLock

    lock = RunLock(db)
    holder = lock.holder()
    if holder is not None:
        raise fail(lock.busy_message(holder))


@contextlib.contextmanager
def stopped_before_play():
    """Ctrl-C while bots are checked and registered, before the first board: said in a line,
    exit 130 (the new-user trial: the arena exited without a word).  A bot already registered
    stays registered; the one being checked is not (its frozen copy removed)."""
    try:
        yield
    except KeyboardInterrupt:
        raise fail("stopped (Ctrl-C) while checking the bots, before the first board: no board was played; "
                   "run the command again to go on", code=130) from None


def discard_if_empty(db: Path) -> None:
    """Remove the database ``db`` (and its lock file) when it holds no tournament and no bot:
    what a command refused before writing anything left, so that a refusal leaves no file
    behind (the new-user trial: `arena sprt random random --db new.duckdb` made new.duckdb)."""
    import duckdb

    try:
        with duckdb.connect(str(db), read_only=True) as con:
            held = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("tournaments", "bots"))
    except duckdb.Error:  # not ours, or in use: leave it
        return
    if held == 0:
        for path in (db, Path(f"{db}.wal"), Path(f"{db}.run-lock")):
            path.unlink(missing_ok=True)


def open_store(db: Path, *, must_exist: bool = False, read_only: bool = False):
    """The store at ``db`` (read-only for reports: they work while a tournament
    runs, and need only read permission); a missing or unusable file is an error
    message, exit 1."""
    from ..store import Store, StoreError

    if (must_exist or read_only) and not db.exists():
        raise fail(f"no results database at {db}: run a tournament first (arena tournament run NAME --bots DIR ... "
                   f"--db {shlex.quote(str(db))}), or give the --db PATH of one")
    try:
        return Store.open(db, read_only=read_only)
    except StoreError as e:
        raise fail(str(e)) from None


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
