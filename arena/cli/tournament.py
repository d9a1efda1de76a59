"""``arena tournament run|list|show``."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from referee.manifest import ManifestError
from referee.sandbox import report as sandbox_report
from referee.rules import get_ruleset

from ..report.faults import fault_words
from ..report.render import plural, print_trimmed, show_table
from ..play.schedule import new_seed
from ..store.model import Status
from .base import (
    check_tournament_name,
    discard_if_empty,
    refuse_if_running,
    stopped_before_play,
    DEFAULT_DB,
    tournament_app,
    console,
    err,
    RulesetName,
    did_you_mean,
    MAX_SEED,
    VERIFY,
    _play_settings,
    _limits,
    command,
    fail,
    open_store,
    _parse_options,
    _options_text,
    DbOption,
    OptionOption,
    NoIsolateOption,
    WeakLimitsOption,
    WorkersOption,
    StoredOptions,
    bot_folders,
    cores,
    DealsOption,
    deal_suite,
    keep_deal_suite,
    suite_line,
)


#: Seconds between the plain progress lines of a run whose output is no terminal (a log, CI).
PLAIN_EVERY_S = 30.0


def rate_text(pairs: float, seconds: float, unit: str | None = None) -> str:
    """A speed of ``pairs`` board pairs in ``seconds``, in ``unit`` (``"s"``, ``"min"`` or
    ``"h"``) or, with none, the unit that shows it: ``"2.5/s"``, ``"4.0/min"`` or ``"1.5/h"``
    (a slow field's "0.0/s" said nothing); ``""`` before the first."""
    if pairs <= 0 or seconds <= 0:
        return ""
    rate = pairs / seconds
    unit = unit or rate_unit(rate)
    return f"{rate * {'s': 1, 'min': 60, 'h': 3600}[unit]:.1f}/{unit}"


def rate_unit(rate: float) -> str:
    """The unit that shows ``rate`` (board pairs a second) with a digit before the point."""
    return "s" if rate >= 1 else "min" if rate * 60 >= 1 else "h"


def clock(seconds: float) -> str:
    """``seconds`` as ``H:MM:SS``."""
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


@tournament_app.command("run")
def tournament_run(
    name: Annotated[str, typer.Argument(help="tournament name (created on first run, resumed after)")],
    bots: Annotated[list[str] | None, typer.Option(
        "--bots", "--bot", metavar="BOT", help="a bot to enter (repeatable): a folder (submitted first), a registered "
        "bot's name or name@version, or a sample bot's name (random, greedy, heuristic, expert)")] = None,
    gauntlet: Annotated[str | None, typer.Option(
        metavar="BOT", help="a gauntlet: this bot (given as --bots is) plays every other entrant, who do not play "
        "each other (cutechess's -tournament gauntlet); new tournament only", show_default=False)] = None,
    boards: Annotated[int | None, typer.Option(min=1, max=100_000, help="boards per pair (new tournament: 50)")] = None,
    ruleset: Annotated[RulesetName | None, typer.Option(help="rule system (new tournament: classic)")] = None,
    option: OptionOption = None,
    seed: Annotated[int | None, typer.Option(
        min=0, max=MAX_SEED, help="tournament seed, for reproducible runs: NOT secret "
        "(new tournament: 256 random bits, secret until it is complete)")] = None,
    workers: WorkersOption = None,
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
    time_bank_ms: StoredOptions["new tournament"][4] = None,
    time_increment_ms: StoredOptions["new tournament"][5] = None,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    logs: Annotated[Path | None, typer.Option(
        file_okay=False, metavar="FOLDER", help="keep each bot process's output (stdout, stderr) in this folder, as `arena match` "
        "does: TOURNAMENT/A~B/from-board-K/ENTRANT-tableT-seatS-N.log, N counting a seat's processes (one per "
        "block of boards from K)", show_default=False)] = None,
    deals: DealsOption = None,
    records: Annotated[Path | None, typer.Option(
        dir_okay=False, metavar="FILE", help="append every deal record to this file as it is stored: JSON lines, one per table, "
        "{match_id, board, table, ns, ew, permutation, record} (`arena log --json`'s shape; each line is an input "
        "of `arena replay -`), like cutechess's -pgnout", show_default=False)] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Play a duplicate round robin: every pair of entrants on the same boards, both tables.

    With --gauntlet, one entrant plays every other one instead (they do not play each other).
    With --deals FILE, the boards are the file's (deal records or compact lines: README,
    "A deal suite") instead of boards dealt from the seed.

    Running it again plays only what is missing (new entrants' pairs, or the
    rest after an interruption), with the tournament's own deadline, time bank, fault limit,
    sandbox limits and the last run's --workers.  A match is played in blocks of 100 boards, one table at a
    time, and no entrant plays two matches at once (SECURITY.md).  Ctrl-C stops at
    once; the blocks in flight are played again on resume.
    """
    isolate = not no_isolate
    from ..play import tournament as tour
    from ..store import StoreError
    from ..play.submit import SubmitError, submit

    from referee.manifest import load_manifest

    chosen = _parse_options(option)
    check_tournament_name(name)
    refuse_if_running(db)
    log_dir = _logs_folder(logs)
    if records is not None:  # refused before anything is written
        with _records_file(records):
            pass
    fresh = not db.exists()
    store = open_store(db)
    try:
        # check everything before anything is written: a failed command leaves no tournament behind
        folders = bot_folders(bots or [], store.list_bots(), what="--bots")
        if gauntlet is not None:
            (lead,) = bot_folders([gauntlet], store.list_bots(), what="--gauntlet")
            lead_key = load_manifest(lead).key
            if lead_key not in [load_manifest(f).key for f in folders]:
                folders.insert(0, lead)
        manifests = [load_manifest(folder) for folder in folders]
        keys = [m.key for m in manifests]
        if len(set(keys)) != len(keys):
            raise fail(f"the same bot is given twice: {', '.join(sorted({k for k in keys if keys.count(k) > 1}))}")
        existing = store.get_tournament(name)
        if existing is None:
            if gauntlet is not None and len(manifests) < 2:
                raise fail(f"no tournament {name!r} yet: a gauntlet needs opponents, give them with --bots BOT")
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
            if gauntlet is not None and existing.gauntlet != lead_key:
                is_now = f"a gauntlet of {existing.gauntlet}" if existing.gauntlet else "a round robin"
                raise fail(f"tournament {name!r} exists as {is_now}, fixed once it is created: leave --gauntlet out "
                           "to resume it, or choose a new tournament name")
            rs = existing.resolved_ruleset()
        suite = deal_suite(store, name, existing, deals, rs, boards, "--boards", "tournament name")
        if suite is not None and boards is None:
            boards = len(suite.boards)
        given = {"decision_ms": decision_ms, "max_faults": max_faults, "cpu_s": cpu_s, "memory_mib": memory_mib,
                 "time_bank_ms": time_bank_ms, "time_increment_ms": time_increment_ms}
        stored_settings, settings = _play_settings(store, name, existing is not None, given, "tournament name")
        decision_ms, max_faults, cpu_s, memory_mib, time_bank_ms, time_increment_ms = (settings[k] for k in given)
        if workers is None:  # a resume plays with the last run's --workers
            workers = (store.run_workers(name) if existing is not None else None)
        workers = 0 if workers is None else workers
        for m in manifests:
            m.check_plays(rs.name)
        known = tour.entrants_of(store, name) if existing is not None else []
        limits = _limits(cpu_s, memory_mib, isolate, manifests + [e.manifest for e in known], weak_limits)
        with stopped_before_play():
            for folder in folders:  # check, freeze and register each bot (a registered one: only entered)
                submit(store, folder, store_root=db.parent / "bots", console=console, limits=limits,
                       decision_ms=decision_ms)
        if existing is None:
            store.create_tournament(name, rs.name, rs.options(), seed if seed is not None else new_seed(),
                                    boards if boards is not None else 50, secret=seed is None)
            if suite is not None:
                keep_deal_suite(store, name, suite, boards)
            if seed is not None:
                err.print(f"note: seed {seed} was given with --seed: it is [bold]not secret[/] (anyone who knows or "
                          "guesses it can deal every board, bots included); leave --seed out for a secret "
                          "random seed", highlight=False)
        if stored_settings is None:
            store.set_play_settings(name, settings)
        store.set_run_options(name, workers=workers, gauntlet=lead_key if existing is None and gauntlet else None)
        store.add_entrants(name, [(m.name, m.version) for m in manifests])
        t = store.get_tournament(name)
        opts = _options_text(t.variant_options)
        console.print(f"tournament [bold]{escape(name)}[/]: {t.ruleset}" + (f" ({opts})" if opts else "")
                      + f", {t.boards_per_pair} boards per pair, entrants: {escape(', '.join(t.entrants) or 'none')}"
                      + (f"; a gauntlet: {escape(t.gauntlet)} plays each other entrant" if t.gauntlet else ""),
                      highlight=False)
        bank = (f", a time bank of {time_bank_ms} ms per bot process per match" if time_bank_ms else "") + (
            f", {time_increment_ms} ms added after each answer" if time_increment_ms else "")
        console.print(f"decisions within {decision_ms} ms{bank}; {max_faults} faults forfeit the rest of a match "
                      f"(each table counts its own within a block of boards: up to {2 * max_faults} may be recorded)",
                      highlight=False)
        console.print(f"seed commitment {t.commitment} ({_seed_words(t)})", highlight=False)
        suite_line(store, name)
        console.print(sandbox_report(limits, brief=True), style="dim", highlight=False)
        executor = None
        if cluster is not None:
            from ..play.cluster import ClusterError, DaskExecutor

            try:
                executor = DaskExecutor(cluster, store)
            except ClusterError as e:
                raise fail(str(e)) from None
        # no entrant plays two matches at once (issue 19): a field of n keeps n // 2 tables busy (a gauntlet 1)
        at_once = 1 if exclusive_boards or t.gauntlet else max(1, len(t.entrants) // 2)
        tables = workers or min(cores(), at_once)  # auto: the cores, no more than the field keeps busy
        if executor is None:
            executor = tour.local_executor(tables)
        where = executor.description
        if cluster is None:
            where += f" (--workers auto: {plural(cores(), 'core')} here)" if not workers else f" (--workers {workers})"
        if at_once < executor.slots:
            where += (" — 1 table at once here: --exclusive-boards" if exclusive_boards else
                      " — 1 table at once here: a gauntlet's entrant plays every match" if t.gauntlet else
                      f" — {at_once} at once here: {len(t.entrants)} entrants, none in two matches at once")
        console.print(f"tables: {escape(where)}", highlight=False)
        if 0 < t.board_pairs < t.pairs * t.boards_per_pair:
            console.print(f"resuming: {t.board_pairs} of {t.pairs * t.boards_per_pair} board pairs already stored "
                          "(the speed and ETA are this run's own)", highlight=False)
        progress = Progress(
            TextColumn("[bold]board pairs"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[inblock]}"),
            TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[took]}"), TextColumn("ETA {task.fields[eta]}"),
            TextColumn("{task.fields[where]}"),
            console=console, disable=not console.is_terminal,  # no terminal (a log, CI): plain lines instead
        )
        stop = threading.Event()
        # a complete tournament has nothing to play: no "0/?" bar (entrants added since make it incomplete)
        with progress if t.status != "complete" else contextlib.nullcontext():
            first = t.board_pairs  # board pairs already stored when this run began: no speed of its own
            seen = {"done": first, "total": t.pairs * t.boards_per_pair, "tables": 0, "unit": None}
            task = progress.add_task("", total=seen["total"], completed=first, rate="", where="", took="",
                                     eta="-:--:--", inblock="")
            if executor is not None:
                executor.on_workers = lambda text: progress.update(task, where=escape(text))
            began = time.monotonic()
            next_line = [began + PLAIN_EVERY_S]

            def show(plain: bool = True) -> None:
                """The bar from this run's own speed (board pairs stored, and the tables played in
                the blocks in flight as halves): the elapsed time, the rate in a unit kept for the
                run, the ETA from them (rich's own ETA, from the last seconds' bursts of stored
                blocks, said 15 s with 150 board pairs to go at 41/min)."""
                done, total, tables = seen["done"], seen["total"], seen["tables"]
                spent = time.monotonic() - began
                own = done - first + tables / 2
                if own > 0 and seen["unit"] is None and spent > 0:
                    seen["unit"] = rate_unit(own / spent)
                eta = clock((total - done - tables / 2) * spent / own) if own > 0 else "-:--:--"
                progress.update(task, completed=done, total=total, rate=rate_text(own, spent, seen["unit"]),
                                took=clock(spent), eta=eta, inblock=f"+{plural(tables, 'table')}" if tables else "")
                if plain and not console.is_terminal and (time.monotonic() >= next_line[0] or done == total):
                    # no bar in a log file or CI: a plain line now and then
                    next_line[0] = time.monotonic() + PLAIN_EVERY_S
                    fields = progress.tasks[task].fields
                    console.print(" ".join(x for x in (f"board pairs {done}/{total}", fields["inblock"],
                                                       fields["rate"], f"ETA {eta}") if x), highlight=False)

            def on_progress(done: int, total: int) -> None:
                seen.update(done=done, total=total)
                show()

            def on_tables(n: int) -> None:
                # fewer: a batch was just stored, its board pairs not yet counted (on_progress is next)
                plain, seen["tables"] = n >= seen["tables"], n
                show(plain)

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
                with _records_file(records) as on_stored:
                    summary = tour.run(store, name, workers=tables, decision_ms=decision_ms, max_faults=max_faults,
                                       on_progress=on_progress, on_tables=on_tables, stop=stop, limits=limits,
                                       executor=executor,
                                       exclusive_boards=exclusive_boards, time_bank_ms=time_bank_ms,
                                       time_increment_ms=time_increment_ms, on_stored=on_stored,
                                       log_dir=log_dir)
            finally:
                if in_main:
                    signal.signal(signal.SIGINT, previous)
        faults = store.first_faults(name) if summary.faults else []
        after = store.get_tournament(name)
    except (ManifestError, SubmitError, tour.TournamentError, StoreError) as e:
        raise fail(str(e)) from None
    finally:
        store.close()
        if fresh and sys.exc_info()[0] is not None:  # refused: no database file left behind
            discard_if_empty(db)
    for e in summary.errors:
        err.print(f"[red]worker error:[/] {escape(e)}", highlight=False)
    # the whole command to resume: what is kept with the tournament (settings, --workers) is left out
    again = [("--cluster", cluster), ("--exclusive-boards", exclusive_boards), ("--no-isolate", no_isolate),
             ("--weak-limits", weak_limits), ("--logs", logs), ("--records", records)]
    resume = command("tournament", "run", name,
                     *(w for flag, v in again if v for w in ((flag,) if v is True else (flag, v))), db=db)
    if summary.interrupted and summary.already + summary.played < summary.total:  # a Ctrl-C after the last: done
        err.print(f"interrupted: {summary.already + summary.played} of {summary.total} board pairs stored. "
                  f"Resume with: {resume}", markup=False, highlight=False)
        raise typer.Exit(code=130)
    console.print(f"{summary.played} board pairs played now, {summary.already} already stored, "
                  f"{summary.faults} faults. See: {command('ratings', '--tournament', name, db=db)}", markup=False,
                  highlight=False)
    for entrant, kind, n, mid, board, table, seat, detail in faults:  # by entrant and kind: what, where first
        err.print(f"[yellow]faults:[/] {escape(entrant)}: {n} {escape(kind)}: {escape(fault_words(kind, detail))}. First at "
                  f"board {board} table {table} seat {seat} of {escape(mid)}: {escape(detail)}. "
                  f"See: {escape(command('log', mid, '--board', board, db=db))}", highlight=False)
    if after is not None and after.status == "incomplete":  # entrants added while it ran
        err.print(f"note: entrants were added meanwhile: {after.board_pairs} of {after.boards_per_pair * after.pairs} "
                  f"board pairs stored; play the rest with: {resume}", markup=False, highlight=False)


@contextlib.contextmanager
def _records_file(path: Path | None):
    """``--records FILE``: yields the ``on_stored`` callback of :func:`arena.play.tournament.run`
    that appends each stored board pair's two deal records as JSON lines (flushed per batch),
    or None without a file.  A file that cannot be opened is an error message, exit 1."""
    if path is None:
        yield None
        return
    try:
        out = path.open("a", encoding="utf-8")
    except OSError as e:
        raise fail(f"--records {path}: cannot open the file for appending: {e.strerror}") from None

    def on_stored(items) -> None:
        for mid, r in items:
            for t in sorted(r.tables, key=lambda t: t.table):
                out.write(json.dumps({"match_id": mid, "board": r.board, "table": t.table, "ns": t.ns, "ew": t.ew,
                                      "permutation": list(t.permutation), "record": t.record.to_json()},
                                     separators=(",", ":")) + "\n")
        out.flush()

    with out:
        yield on_stored


def _logs_folder(path: Path | None) -> Path | None:
    """``--logs DIR`` made and resolved (worker processes may start elsewhere), or None; a folder
    that cannot be made is an error message, exit 1."""
    if path is None:
        return None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise fail(f"--logs {path}: cannot make the folder: {e.strerror}") from None
    return path.resolve()


def _short(digits: str, keep: int = 16) -> str:
    """A long number cut for a table (``arena tournament show`` prints it whole)."""
    return digits if len(digits) <= keep + 1 else digits[:keep] + "…"


def _entrant_json(key: str) -> dict:
    """An entrant as JSON, the one shape of every command: ``{"name", "version"}``."""
    name, _, version = key.rpartition("@")
    return {"name": name, "version": version}


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
    from ..report.tables import tournament_json

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
        suite = store.deal_suite(name) if t is not None else None
    finally:
        store.close()
    if t is None:
        raise fail(f"no tournament {name!r} in {db}{did_you_mean(name, names)}: see `arena tournament list`")
    info = _tournament_json(t)
    info["deals"] = None if suite is None else {"file": suite.file_name, "sha256": suite.sha256,
                                                "file_boards": suite.file_boards}
    if as_json:
        print(json.dumps(info))
        return
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("tournament", t.name)
    grid.add_row("ruleset", t.ruleset)
    opts = _options_text(t.variant_options)
    grid.add_row("options", (f"{opts} (RULES.md §6.4) " if opts else "none ")  # no target: played board by board
                 + f"(every resolved rule: `arena tournament show {t.name} --json`)")
    grid.add_row("boards", f"{t.boards_per_pair} per pair" + (
        f", the first of the deal suite {suite.file_name} ({suite.file_boards} boards, SHA-256 {suite.sha256})"
        if suite is not None else ""))
    pairs = t.pairs
    grid.add_row("entrants", ", ".join(t.entrants) + f" ({pairs} pair{'' if pairs == 1 else 's'})" if t.entrants
                 else "none")
    if t.gauntlet:
        grid.add_row("gauntlet", f"{t.gauntlet} plays each other entrant; they do not play each other")
    grid.add_row("board pairs", f"{t.board_pairs} stored (a competition's ladder: they grow until it is closed)"
                 if t.status == Status.LADDER.value else f"{t.board_pairs} of {info['board_pairs_total']} stored")
    grid.add_row("status", t.status)
    grid.add_row("created", info["created_at"] + " UTC")
    grid.add_row("commitment", f"{t.commitment} (SHA-256 of the seed's decimal digits)")
    if t.public_seed is None:
        grid.add_row("seed", "secret until the tournament is complete")
    else:
        grid.add_row("seed", str(t.seed) + ("" if t.seed_secret else " (given with --seed: not secret)"))
        grid.add_row("verify", f"{VERIFY} gives the commitment; " + (
            "the boards are the deal suite's (the seed renames table 2's suits: "
            "arena.play.schedule.suit_permutation(SEED, k))" if suite is not None
            else "board k is referee.rules.make_board(SEED, k)"))
    print_trimmed(console, grid)
