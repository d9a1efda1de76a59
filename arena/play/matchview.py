"""``arena match``: one duplicate match between two bots, shown with rich."""

from __future__ import annotations

import dataclasses
import signal
import statistics
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from referee.botproc import Limits, sandbox_report
from referee.match import MatchConfig, play_match
from referee.records import BoardPairResult
from referee.rules import Board, Ruleset, make_board

from ..report.faults import fault_lines
from ..report.render import plural, show_table
from ..store import seed_commitment
from .entrants import distinct, resolve_entrant
from .schedule import new_seed, suit_permutation


#: Seconds between the plain progress lines of a match whose output is no terminal (a log, CI).
PLAIN_EVERY_S = 30.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def run_match(specs: Sequence[str], *, boards: int, seed: int | None, ruleset: Ruleset, decision_ms: int,
              time_bank_ms: int, max_faults: int, console: Console,
              limits: Limits | None = None, log_dir: Path | None = None,
              deals: Sequence[Board] | None = None,
              content_hashes: dict[str, str] | None = None) -> list[BoardPairResult]:
    """Play and print a duplicate match; returns the board pairs.

    ``seed`` deals the boards (``make_board(seed, k)``); ``None`` draws a secret one
    (:func:`arena.play.schedule.new_seed`): its commitment is printed before play and the
    seed itself once the bots are stopped (also after an interruption). Bots are told
    neither (``referee.secret``).

    The match is played in blocks, one table at a time (:mod:`referee.match`); the progress
    bar counts tables.  Ctrl-C says "stopping…" at once; the match stops before the next
    table's board (a second Ctrl-C: at once), dropping the block in flight; the boards
    played so far are printed with how many were dropped, and :class:`MatchInterrupted`
    is raised.
    ``log_dir``: keep every bot process's output there (:attr:`MatchConfig.log_dir`).
    ``deals``: a deal suite's boards (:mod:`arena.play.deals`), played instead of dealt ones
    (``boards`` must be their number); the seed still renames table 2's suits.
    ``content_hashes``: registered bots' frozen copies (a spec) → their registered content hash,
    checked before every start (:attr:`referee.match.Entrant.content_hash`).
    """
    entrants = [resolve_entrant(s) for s in specs]
    hashes = content_hashes or {}
    a, b = distinct([dataclasses.replace(e, content_hash=hashes[s]) if s in hashes else e
                     for s, e in zip(specs, entrants)])
    secret = seed is None
    if seed is None:
        seed = new_seed()
    config = MatchConfig(ruleset=ruleset, decision_ms=decision_ms, time_bank_ms=time_bank_ms, limits=limits or Limits(),
                         max_faults=max_faults, seed=seed, log_dir=log_dir)
    board_list = list(deals) if deals is not None else [make_board(seed, k, ruleset.seats) for k in range(boards)]
    console.print(sandbox_report(config.limits, brief=True), style="dim", highlight=False)
    if secret:
        console.print(f"board seed: secret until the match ends; commitment {seed_commitment(seed)}", highlight=False)
    else:
        console.print(f"board seed: {seed} (given with --seed: not secret)", highlight=False)
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("tables"),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=console, transient=True, disable=not console.is_terminal,  # no terminal: plain lines instead
    )
    results: list[BoardPairResult] = []
    stop = threading.Event()

    def on_sigint(signum, frame) -> None:  # Ctrl-C: answer at once, stop before the next table's board
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        console.print("stopping: the boards of the block in flight are dropped… (Ctrl-C again to stop at once)",
                      highlight=False)

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if in_main else None
    interrupted = False
    try:
        with progress:
            # a block's boards are played at one table, then at the other: the bar counts tables
            task = progress.add_task(f"{a.key} vs {b.key}", total=2 * boards, rate="")

            next_line = [time.monotonic() + PLAIN_EVERY_S]

            def table_done(result) -> None:
                progress.advance(task)
                t = progress.tasks[task]
                if t.elapsed:
                    progress.update(task, rate=f"{t.completed / 2 / t.elapsed:.1f} boards/s")
                if not console.is_terminal and (time.monotonic() >= next_line[0] or t.completed == t.total):
                    # no bar in a log file or CI: a plain line now and then
                    next_line[0] = time.monotonic() + PLAIN_EVERY_S
                    console.print(f"tables {t.completed:.0f}/{t.total:.0f} {t.fields['rate']}".strip(), highlight=False)

            try:
                # the match's own name: never told to the bots (they get an opaque id)
                play_match(f"{a.key}~{b.key}", a, b, board_list, config,
                           permutations=lambda k: suit_permutation(seed, k), on_board_pair=results.append,
                           keep=False, stopped=stop.is_set, on_table=table_done)
            except KeyboardInterrupt:
                pass
            interrupted = len(results) < boards
        if in_main:
            signal.signal(signal.SIGINT, previous)
            in_main = False
        if results:
            print_match(console, a.key, b.key, results, ruleset)
        if interrupted:
            console.print(f"interrupted: {len(results)} of {boards} boards played"
                          + (" (shown above)" if results else "") + f"; {boards - len(results)} dropped "
                          "(a block of up to 100 boards is played at one table, then the other: a board "
                          "counts once both tables have played it)", highlight=False)
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)
        if secret:  # the bots are stopped: the seed can be told, e.g. to replay with --seed
            console.print(f"board seed revealed: {seed} (printf '%s' SEED | sha256sum gives the commitment; "
                          "--seed SEED deals the same boards)", highlight=False)
    if interrupted:
        raise MatchInterrupted(len(results), boards)
    return results


class MatchInterrupted(Exception):
    """The match was stopped by Ctrl-C after ``played`` of ``boards`` boards (the result was printed)."""

    def __init__(self, played: int, boards: int):
        super().__init__(f"interrupted after {played} of {boards} boards")
        self.played, self.boards = played, boards


def print_match(console: Console, a: str, b: str, results: list[BoardPairResult], ruleset: Ruleset) -> None:
    sides = ("NS", "EW") if ruleset.seats == 4 else ("seat 0", "seat 1")
    console.print(f"A = {a} ({sides[0]} at table 1), B = {b} ({sides[0]} at table 2); "
                  f"scores are {sides[0]}–{sides[1]}")
    options = " ".join(f"{k}={v}" for k, v in ruleset.variant_options().items())
    table = Table(title=f"{ruleset.name}" + (f" ({options})" if options else "") + f", duplicate, {len(results)} boards",
                  header_style="bold")
    table.add_column("board", justify="right")
    table.add_column("table 1")
    table.add_column("table 2")
    table.add_column("A pts", justify="right")
    table.add_column("B pts", justify="right")
    table.add_column("margin A", justify="right")
    table.add_column("faults")
    for r in results:
        t1, t2 = r.tables
        faults = ", ".join(f"{f.kind} ({'A' if f.entrant == a else 'B'})" for f in r.faults)
        forfeit = " ".join(x for x, f in (("A forfeits", r.forfeit_a), ("B forfeits", r.forfeit_b)) if f)
        table.add_row(
            str(r.board),
            f"{t1.outcome.contract} {t1.outcome.score[0]}–{t1.outcome.score[1]}",
            f"{t2.outcome.contract} {t2.outcome.score[0]}–{t2.outcome.score[1]}",
            str(r.points_a), str(r.points_b), f"{r.margin:+d}", (faults + " " + forfeit).strip(),
        )
    total = sum(r.margin for r in results)
    wins = sum(1 for r in results if (r.margin > 0 and not r.forfeit_a) or (r.forfeit_b and not r.forfeit_a))
    losses = sum(1 for r in results if (r.margin < 0 and not r.forfeit_b) or (r.forfeit_a and not r.forfeit_b))
    table.add_section()
    table.add_row("total", "", "", str(sum(r.points_a for r in results)), str(sum(r.points_b for r in results)),
                  f"{total:+d}", "")
    show_table(console, table)
    forfeits = sum(r.forfeit_a for r in results), sum(r.forfeit_b for r in results)
    console.print(f"{a}: {plural(wins, 'board')} won, {len(results) - wins - losses} drawn, {losses} lost; "
                  f"total duplicate margin {total:+d} points"
                  + (f" (boards forfeited — lost whatever the points: A {forfeits[0]}, B {forfeits[1]})"
                     if any(forfeits) else ""))
    times = Table(title="time per decision (ms; decisions with one legal action excluded)", header_style="bold")
    for col in ("entrant", "decisions", "median", "p99", "faults"):
        times.add_column(col, justify="right" if col != "entrant" else "left")
    for key in (a, b):
        ms = [d.ms for r in results for t in r.tables for d in t.decisions
              if d.ms > 0 and (t.ns == key) == (d.seat % 2 == 0)]
        nf = sum(1 for r in results for f in r.faults if f.entrant == key)
        times.add_row(key, str(len(ms)), f"{statistics.median(ms):.2f}" if ms else "-",
                      f"{percentile(ms, 0.99):.2f}" if ms else "-", str(nf))
    console.print(times)
    faults = [f for r in results for f in r.faults]
    for entrant, line in fault_lines(faults):  # why, in the bot's own words (made inert: records.printable, escape)
        who = "" if entrant is None else f"fault ({'A' if entrant == a else 'B'}) "
        console.print(f"{who}{escape(line)}", highlight=False)
