"""``arena matches``, ``arena log``, ``arena export`` and ``arena serve``: the stored results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from referee.rules import replay as replay_record

from ..report.render import render_deal, show_table
from ..report.faults import fault_line
from .base import DEFAULT_DB, app, console, err, did_you_mean, ExportFormat, fail, open_store, DbOption


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
        from ..report.tables import match_json

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
    from ..report.boardview import in_board_suits
    from ..store import StoreError

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
            console.print(f"[red]fault[/] at {escape(fault_line(f.kind, f.board, f.table, f.seat, f.detail, f.entrant))}; "
                          f"the referee played the first legal action, and {escape(f.entrant)} forfeits board {f.board}",
                          highlight=False)


def _find_match(store, text: str) -> str:
    """The match id that ``text`` names: the id itself, or a short form ``A~B`` or
    ``TOURNAMENT/A~B`` with each bot as ``name`` or ``name@version``, in either order.

    Raises:
        StoreError: no match, or more than one (listed), fits.
    """
    from ..store import StoreError

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

    Also the views entrant_board_pairs and entrant_actions, ratings.FORMAT (per
    tournament, and per ruleset and options: Elo, interval, field scores) and
    rating_history.FORMAT (every entrant's rating after each tenth of the
    stored board pairs), computed as `arena ratings` shows them; and load.sql,
    which makes each file a DuckDB view of its name, so SQL written for the
    database runs on the export.

    A tournament's secret seed, and its table of boards, are written only once the
    tournament is complete; its commitment always is. The deals and actions of the
    board pairs already played are written as they are: they show those boards, which
    other pairs of a running tournament may have yet to play, so publish an export of
    a tournament only once it is complete.
    """
    from ..store import StoreError, write_loader

    from ..report.tables import export_derived

    store = open_store(db, read_only=True)
    try:
        files = store.export(out, fmt.value)
        files += export_derived(store, out, fmt.value)
        files.append(write_loader(out, files, fmt.value))
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
    from ..web import ServeError, is_loopback
    from ..web import serve as run_server

    open_store(db, read_only=True).close()  # refused at start as every command does: missing, a folder, not a database
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
