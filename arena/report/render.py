"""Rich renderings of deals (used by ``arena replay`` and ``arena log``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich import box
from rich.console import Console, Group
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from referee.rules import DealState
from referee.rules.cards import CARD_TEXT, cards_of

SEAT_NAMES_4 = ("N", "E", "S", "W")


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` with its noun: ``plural(1, "board")`` → ``"1 board"``, ``plural(2, "board")`` →
    ``"2 boards"`` (``many`` for an irregular plural)."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def seat_name(state_or_seats, seat: int) -> str:
    seats = state_or_seats if isinstance(state_or_seats, int) else state_or_seats.ruleset.seats
    return SEAT_NAMES_4[seat] if seats == 4 else f"P{seat}"


def team_names(seats: int) -> tuple[str, str]:
    return ("NS", "EW") if seats == 4 else ("seat 0", "seat 1")


def _card(c) -> Text:
    text = CARD_TEXT[c]
    return Text(text, style="red" if text[-1] in "HD" else "bold")


def render_deal(state: DealState, title: str = "") -> Group:
    """Hands as dealt, bids, declarations, tricks with winners, and the score of a finished deal."""
    n = state.ruleset.seats
    parts = []
    header = Text(title + " " if title else "", style="bold")
    header.append(f"ruleset {state.ruleset.name}, dealer {seat_name(n, state.dealer)}, turned card ")
    header.append_text(_card(state.deck[sum(state.ruleset.first_packets) * n]))
    options = state.ruleset.variant_options()
    if options:
        header.append(", options " + " ".join(f"{k}={v}" for k, v in options.items()))
    parts.append(header)

    # hands at the start of play: what each seat held before its first card
    hands = [0] * n
    for seat in range(n):
        hands[seat] = state.hands[seat]
    for seat, card, _, _ in state.plays:
        hands[seat] |= 1 << card
    hand_table = Table(title="hands at the first trick", show_header=False, box=None, padding=(0, 1))
    for seat in range(n):
        row = Text()
        for c in cards_of(hands[seat]):
            row.append_text(_card(c))
            row.append(" ")
        hand_table.add_row(seat_name(n, seat), row)
    parts.append(hand_table)

    bids = Text("bids: ")
    bids.append(", ".join(f"{seat_name(n, s)} {a}" for s, a in state.bids) or "none")
    parts.append(bids)
    if state.taker is not None:
        trump = state.trump.symbol if state.trump is not None else state.trump_mode.value
        parts.append(Text(f"taker {seat_name(n, state.taker)}, trump {trump}"))
    if state.calls:
        calls = Text("contrée calls: ")
        calls.append(", ".join(f"{seat_name(n, s)} {'passes' if a.kind.value == 'pass' else a}" for s, a in state.calls))
        if state.multiplier > 1:
            calls.append(f" (stakes x {state.multiplier})", style="bold")
        parts.append(calls)
    for seat, decls in enumerate(state.declared):
        if decls:
            parts.append(Text(f"{seat_name(n, seat)} declares " + ", ".join(map(str, decls))))
    if state.exchanged_by is not None:
        parts.append(Text(f"{seat_name(n, state.exchanged_by)} exchanges the 7 of trump for the turned card"))
    for seat, suit in state.belotes:
        parts.append(Text(f"{seat_name(n, seat)} announces belote-rebelote in {suit.symbol}"))

    if state.tricks:
        tricks = Table(title="tricks", header_style="bold")
        tricks.add_column("#", justify="right")
        tricks.add_column("lead")
        tricks.add_column("cards")
        tricks.add_column("winner")
        tricks.add_column("points", justify="right")
        for i, t in enumerate(state.tricks, 1):
            cards = Text()
            for s, c in t.cards:
                cards.append(f"{seat_name(n, s)}:")
                cards.append_text(_card(c))
                cards.append(" ")
            tricks.add_row(str(i), seat_name(n, t.leader), cards, seat_name(n, t.winner), str(t.points))
        parts.append(tricks)

    o = state.outcome()
    if o is not None:
        names = team_names(n)
        line = Text(f"contract: {o.contract}", style="bold")
        line.append(f"   score {names[0]} {o.score[0]} – {names[1]} {o.score[1]}")
        if o.contract != "passed":
            line.append(f"   (trick points {o.trick_points[0]}–{o.trick_points[1]}")
            if any(o.declarations):
                line.append(f", declarations {o.declarations[0]}–{o.declarations[1]}")
                line.append(" scored by " + (names[o.declaration_team] if o.declaration_team is not None else "nobody"))
            if any(o.belote):
                line.append(f", belote {o.belote[0]}–{o.belote[1]}")
            if o.capot is not None:
                line.append(f", capot by {names[o.capot]}")
            if o.multiplier > 1:
                line.append(", " + ("redoubled" if o.multiplier == 4 else "doubled") + f" x {o.multiplier}")
            line.append(")")
        if o.pot or o.pot_in:
            line.append(f"   litige pot in {o.pot_in}, out {o.pot}")
        parts.append(line)
    return Group(*parts)


def table_fits(console: Console, table: Table) -> bool:
    """Whether ``table`` fits ``console``'s width with every cell whole."""
    return Measurement.get(console, console.options.update_width(10_000), table).maximum <= console.width


def show_table(console: Console, make: Table | Callable[[tuple[str, ...]], Table],
               drop: Sequence[str] = ()) -> None:
    """Print a table so that it fits ``console``'s width instead of cutting its cells to "…":
    as it is when it fits; else without vertical rules and with less padding; else also
    without the columns headed ``drop`` (in that order, as many as needed), saying under it
    which ones were left out (``--json`` has every column).  ``make``: the table, or (with
    ``drop``) a function giving it without the columns whose headers it is passed."""
    build = make if callable(make) else (lambda left_out: make)
    left_out: tuple[str, ...] = ()
    table = build(left_out)
    if not table_fits(console, table):
        for header in (None, *drop):
            if header is not None:
                left_out += (header,)
                table = build(left_out)
            table.box, table.collapse_padding, table.pad_edge = box.SIMPLE_HEAD, True, False
            if table_fits(console, table):
                break
    console.print(table)
    if left_out:
        console.print(f"not shown at this width: {', '.join(h.strip() for h in left_out)} "
                      "(see --json, or a wider terminal)", style="dim", highlight=False)


def print_trimmed(console: Console, renderable) -> None:
    """Print ``renderable`` with no trailing spaces on its lines (a grid pads each cell to its
    column's width, so a short row would end in spaces a user's copy or ``diff`` keeps)."""
    for line in console.render_lines(renderable, pad=False):
        while line and not line[-1].control and not line[-1].text.strip():
            line.pop()
        if line:
            last = line[-1]
            line[-1] = Segment(last.text.rstrip(), last.style, last.control)
        console.print(Text.assemble(*((s.text, s.style) for s in line if not s.control)), soft_wrap=True)

