"""``arena analyze``: a match's card play against double dummy (issue 23)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..report.render import show_table
from .base import DEFAULT_DB, DbOption, app, console, err, fail, open_store

#: How every output labels the figures (README "Double-dummy analysis").
MEANING = ("double dummy = perfect-information play (every hand in view): a yardstick of card play, "
           "not a verdict; points are trick points (card points + dix de der, capot 252), RULES.md §6.2")

SEATS4 = "NESW"


def _seat(seat: int, seats: int) -> str:
    return SEATS4[seat] if seats == 4 else f"P{seat}"


def entrants_lost(tables) -> dict[str, dict]:
    """Per entrant: points lost to double dummy per board over the boards of ``tables`` with both
    tables analysed (an entrant's board: its seats' cards at both tables, RULES.md §8)."""
    boards: dict[int, list] = {}
    for t in tables:
        boards.setdefault(t.board, []).append(t)
    total: dict[str, list[int]] = {}
    for pair in boards.values():
        if len(pair) != 2:
            continue
        lost: dict[str, int] = {}
        for t in pair:
            lost[t.ns] = lost.get(t.ns, 0) + t.deal.points_lost(0)
            lost[t.ew] = lost.get(t.ew, 0) + t.deal.points_lost(1)
        for e, x in lost.items():
            total.setdefault(e, []).append(x)
    return {e: {"points_lost_per_board": round(sum(xs) / len(xs), 2), "boards": len(xs)} for e, xs in total.items()}


@app.command()
def analyze(
    match_id: Annotated[str, typer.Argument(metavar="MATCH", help="a match id from `arena matches`, or a short "
                                            "form that names one match: A~B or TOURNAMENT/A~B")],
    board: Annotated[int | None, typer.Option(min=0, help="only this board")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the analysis as JSON (cards as played)")] = False,
    original_suits: Annotated[bool, typer.Option(help="show table 2 in the board's own suits, as `arena log` "
                                                      "does (--no-original-suits: as played there)")] = True,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Double-dummy analysis of a match: every card played against perfect-information play.

    For each card: the double-dummy value of the best card and of the card played (the
    trick points its team ends the deal with, RULES.md §6.2) and the points lost; each
    table's double-dummy result beside what was scored; each bot's points lost to double
    dummy per board. A yardstick, not a verdict: real seats do not see the other hands.
    Computed on demand and cached in the database; not while a tournament runs in it.
    """
    from ..analysis.boards import analyse_match
    from ..store import RunLock, StoreError
    from .results import _find_match

    holder = RunLock(db).holder() if db.exists() else None
    store = open_store(db, read_only=True)
    try:
        match_id = _find_match(store, match_id)
        if holder is not None:  # the cache only: solving would take the CPU from the bots
            from ..analysis.boards import SOLVER_VERSION

            have = {(r[1], r[2]) for r in store.dd_deals(match_id, SOLVER_VERSION, board)}
            need = {(t.board, t.table) for t in store.deal_records(match_id, board=board)}
            if need - have:
                raise fail(f"tournament {holder.get('tournament', '?')!r} is running in {db.name}: double-dummy "
                           f"analysis waits until it ends ({len(need - have)} table(s) of {match_id} are not "
                           "analysed yet); run this again then")
            tables = analyse_match(store, match_id, board)
    except StoreError as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    if holder is None:
        store = open_store(db, must_exist=True)
        try:
            tables = analyse_match(store, match_id, board, progress=_progress)
        except StoreError as e:
            raise fail(str(e)) from None
        finally:
            store.close()
    lost = entrants_lost(tables)
    if as_json:
        print(json.dumps({"match": match_id, "meaning": MEANING, "tables": [t.to_json() for t in tables],
                          "entrants": lost}))
        return
    for t in tables:
        _print_table(t, original_suits)
    s = Table(title=f"points lost to double dummy per board, {match_id}", header_style="bold")
    for col in ("bot", "boards", "points lost / board"):
        s.add_column(col, justify="left" if col == "bot" else "right")
    for e, v in sorted(lost.items(), key=lambda kv: kv[1]["points_lost_per_board"]):
        s.add_row(escape(e), str(v["boards"]), f"{v['points_lost_per_board']:.1f}")
    if lost:
        show_table(console, s)
    elif board is not None:
        err.print("note: per-bot figures count boards with both tables analysed")
    console.print(MEANING + ".", style="dim", highlight=False)


def _progress(done: int, missing: int) -> None:
    """Say on stderr how far a long analysis is (every 10%; a short one only at its start)."""
    if done == 0:
        err.print(f"solving {missing} table(s) double dummy (about 0.1–0.5 s each); cached for next time",
                  highlight=False)
    elif missing >= 20 and done % max(1, missing // 10) == 0 and done < missing:
        err.print(f"  {done} of {missing} tables", highlight=False)


def _print_table(t, original_suits: bool = True) -> None:
    """One table's analysis; table 2's cards in the board's own suits unless ``original_suits``
    is off (RULES.md §8: table 2 is dealt with its suits renamed)."""
    from referee.rules import relabel
    from referee.rules.cards import CARD_TEXT

    d = t.deal
    seats = t.seats
    sides = ("NS", "EW") if seats == 4 else ("P0", "P1")
    renamed = tuple(t.permutation) != (0, 1, 2, 3)
    inverse = [0] * 4
    for s, p in enumerate(t.permutation):
        inverse[p] = s

    def card(c) -> str:
        return CARD_TEXT[relabel([c], inverse)[0]] if renamed and original_suits else CARD_TEXT[c]

    how = ("  (suits shown as on the board)" if original_suits else "  (suits as played at this table)") if renamed else ""
    console.rule(escape(f"board {t.board} table {t.table}: {sides[0]} {t.ns} — {sides[1]} {t.ew}{how}"))
    if d.trick_points is None:
        console.print("no card play (passed out" + (", or a schmeiss accepted" if seats == 2 else "") + ", RULES.md "
                      + ("§3.3)" if seats == 4 else "§7)"), highlight=False)
        return
    console.print(f"double dummy: trick points {d.trick_points[0]}–{d.trick_points[1]}, score {d.score[0]}–{d.score[1]}"
                  f"   played: trick points {t.trick_points[0]}–{t.trick_points[1]}, score "
                  f"{t.score[0]}–{t.score[1]}   points lost: {sides[0]} {d.points_lost(0)}, "
                  f"{sides[1]} {d.points_lost(1)}", highlight=False)
    g = Table(header_style="bold", box=None, pad_edge=False)
    for col in ("trick", "seat", "card", "its DD value", "best card", "best DD value", "lost"):
        g.add_column(col, justify="right" if col not in ("seat", "card", "best card") else "left")
    for c in d.cards:
        style = "red" if c.lost >= 10 else "yellow" if c.lost else None
        g.add_row(str(c.trick), _seat(c.seat, seats), card(c.card), str(c.points),
                  card(c.best_card) if c.lost else "=", str(c.best_points), str(c.lost) if c.lost else "",
                  style=style)
    show_table(console, g)
