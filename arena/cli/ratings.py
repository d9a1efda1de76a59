"""``arena ratings`` and ``arena plan``."""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from referee.rules import get_ruleset

from ..report.render import plural, show_table, table_fits
from ..report.tables import whole
from .base import (
    DEFAULT_DB,
    app,
    console,
    err,
    RulesetName,
    did_you_mean,
    fail,
    open_store,
    _parse_options,
    _options_text,
    DbOption,
)


def _fmt(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else whole(x)


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
        return f"≥ {whole(low)}"
    if math.isinf(low):
        return f"≤ {whole(high)}"
    return f"{whole(low)}–{whole(high)}"


def _signed(x: float) -> str:
    """A whole signed number, ``+12``, ``-3``, ``0`` (never ``-0``, which a small negative rounds to)."""
    n = round(x)
    return f"{n:+d}" if n else "0"


def _dci(low: float, high: float) -> str:
    """A difference's 95% interval: "+20…+140", "≥ +317" (after a sweep), "≤ -317", "-"."""
    if math.isnan(low) or math.isnan(high):
        return "-"
    if math.isinf(high) and not math.isinf(low):
        return f"≥ {low:+.0f}"
    if math.isinf(low) and not math.isinf(high):
        return f"≤ {high:+.0f}"
    return "any" if math.isinf(low) else f"{low:+.0f}…{high:+.0f}"


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
    from ..report import tables as reports

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
        unfinished = [t for t in scoped if t.status not in ("complete", "decided", "undecided")]
        order = list(dict.fromkeys(e for t in scoped for e in t.entrants))  # pairs oriented as `arena matches` shows them
        # the double-dummy yardstick from `arena analyze`'s cache (never computed here)
        from ..analysis.boards import points_lost_per_board

        dd = points_lost_per_board(store, tournaments=[t.name for t in scoped]) if not (h2h or history) else {}
    finally:
        store.close()
    scope = f"tournament {tournament}" if tournament else f"ruleset {rs}" + (
        " (any options)" if any_options else f" ({_options_text(wanted)})" if wanted else "")
    if names == [] and left_out:  # no tournament has these options: say which sets exist
        message = _no_such_options(rs, wanted, left_out)
        if not as_json:
            raise fail(message)
        err.print(f"note: {message}", highlight=False)
        left_out = []
    if history is not None:
        points = reports.rating_history(hist_rows, history, steps)
        if not points:
            raise fail(f"no board pairs of a bot {history!r} in {scope}: see `arena bots list`")
        _print_notes(left_out, unfinished, rs)
        _print_history(points, history, scope, as_json)
        return
    table = reports.rating_table(rows)
    if h2h:
        _print_notes(left_out, unfinished, rs)
        _print_head_to_head(reports.head_to_head_table(rows, order), table, scope, as_json)
        return
    if table is None:
        if as_json:
            print("[]")
            return
        raise fail(f"no results for {scope} yet: run `arena tournament run NAME --bots DIR ...`")
    _print_notes(left_out, unfinished, rs)
    out = reports.ratings_json(table, field, dd)
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
                  + ", * = significant (the interval excludes 0: LOS > 97.5%, or > 95% for an open-ended interval after a "
                  "sweep). "
                  "field: points per table above the field's average on the same cards; MP%: share of the "
                  "field's tables with the same cards beaten. See README, \"Reading the ratings\".",
                  style="dim", highlight=False)
    if dd:
        console.print("points lost to double dummy per board (" + reports.DD_MEANING + "; boards analysed by "
                      "`arena analyze`): " + ", ".join(f"{escape(k)} {v:.1f} ({plural(n, 'board')})" for k, (v, n) in
                                                      sorted(dd.items(), key=lambda kv: kv[1][0])),
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


def _no_such_options(rs: str, wanted: dict[str, str], left_out: list) -> str:
    """The error when no tournament of ruleset ``rs`` has the options ``wanted``: the sets that exist,
    their tournaments and the flags that select each."""
    defaults = get_ruleset(rs).variant_options()
    sets: dict[tuple, list[str]] = {}
    for t in left_out:
        sets.setdefault(tuple(t.variant_options.items()), []).append(t.name)

    def flags(opts: tuple) -> str:  # the --option flags that select a set: those off the ruleset's defaults
        return " ".join(f"--option {k}={v}" for k, v in opts if defaults.get(k) != v) or "no --option"

    listed = "; ".join(
        " ".join(f"{k}={v}" for k, v in opts) + f" ({', '.join(ts[:3])}{', ...' if len(ts) > 3 else ''}): "
        + flags(opts) for opts, ts in sets.items())
    return (f"no {rs} tournament has the options {_options_text(wanted)}; its tournaments have {listed}. "
            "Give one of these, or --any-options to mix them")


def _print_notes(left_out: list, unfinished: list, rs: str | None) -> None:
    """The notes before a rating list (on stderr, so --json stays one JSON document)."""
    if left_out:
        err.print(f"note: {len(left_out)} {rs} tournament(s) with other RULES.md §6.4 options left out ("
                  + escape(", ".join(f"{t.name}: {_options_text(t.variant_options)}" for t in left_out[:5]))
                  + (", ..." if len(left_out) > 5 else "")
                  + "); rate them with --option NAME=on|off, or mix them with --any-options", highlight=False)
    for t in unfinished:  # standings so far: say so
        err.print(f"note: tournament {escape(t.name)} is {t.status}: {t.board_pairs} of "
                  f"{t.boards_per_pair * t.pairs} board pairs stored, so these are the standings so far",
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
            "-" if math.isnan(r.elo) else whole(r.elo),
            _ci(r.ci_low, r.ci_high), str(o["boards"]), f"{o['wins']}-{o['draws']}-{o['losses']}",
            "-" if o["butler"] is None else f"{o['butler']:+.1f}",
            "-" if o["matchpoints"] is None else f"{100 * o['matchpoints']:.1f}",
            "-" if los is None else f"{los:.1%}",
            "-" if d is None else (_signed(d[0]) if compact else f"{_signed(d[0])} ({_dci(d[1], d[2])})") + star,
        ]
        t.add_row(str(o["rank"]), *([str(o["group"])] if groups > 1 else []),
                  escape(f"{o['name']}@{o['version']}"), *(c for h, c in zip(heads, cells) if h not in skip))
    return t


def _has_table(store, name: str) -> bool:
    """Whether the database has the table (one opened read-only keeps the schema it was written with)."""
    return bool(store.con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchone()[0])


def _print_head_to_head(table, fit_table, scope: str, as_json: bool) -> None:
    """Per pair: board W/D/L, mean margin with its interval, and the Elo difference from the fit."""
    from ..report.tables import head_to_head_json

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
            cells = (str(h.boards), f"{h.wins}-{h.draws}-{h.losses}", _signed(h.mean_margin),
                     (f"{h.ci_low:+.0f}…{h.ci_high:+.0f}" if not math.isnan(h.ci_low) else "-") + escape(mark),
                     "-" if math.isnan(diff) else _signed(diff),
                     _dci(low, high),
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
        t.add_row(str(p.board_pairs), escape(p.entrant), whole(p.elo), _ci(p.ci_low, p.ci_high), str(p.games))
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
    from ..report import tables as reports
    from ..stats.sprt import SprtSettings, simulate

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
