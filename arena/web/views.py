"""What each page and JSON endpoint of ``arena serve`` shows, built from the store.

Every function takes an open :class:`~arena.store.Store` and returns JSON-able
dicts; the routes (:mod:`arena.web.app`) render them as HTML or return them as
JSON, so a page and its ``/api/…`` twin always hold the same numbers. The
numbers come from the same service functions as the CLI: ratings from
:func:`arena.report.tables.ratings_json` (what ``arena ratings --json`` prints),
head-to-head records from :func:`arena.report.tables.head_to_head_table`, a board's
tables from :func:`arena.report.boardview.table_view`. Unknown names and ids raise
:class:`NotFound`, and so does every view of a board of a competition's final while it is
played (:func:`sealed`: "not yet").
"""

from __future__ import annotations

import math
import time
from datetime import datetime
from pathlib import Path

from referee.rules import CARDS, RecordError
from referee.rules.record import action_from_json

from ..analysis.boards import cached_deals, points_lost_per_board
from ..report.boardview import card_json, table_view
from ..report.tables import DD_MEANING
from ..report.tables import (
    field_scores, head_to_head_json, head_to_head_table, json_number, match_json, rating_table, ratings_json,
    tournament_json,
)
from ..store import RunLock, Store, StoreError, match_id as make_match_id, split_entrant
from ..store.compete import final_tournament
from ..store.model import action_json
from .charts import rating_history, ratings_chart

__all__ = [
    "NotFound", "board", "bot", "describe", "head_to_head", "index", "leaderboard", "match", "match_records",
    "matches", "progress", "rate_of", "rating_history", "ratings_chart", "sealed", "sealed_tournaments", "tournament",
    "tournaments",
]

#: Writes looked at to measure a running tournament's speed, seconds before its newest write.
RATE_WINDOW_S = 60.0


class NotFound(LookupError):
    """An unknown tournament, match, board or bot (a 404); the message says which."""


def sealed(store: Store, name: str) -> str | None:
    """Why nothing of tournament ``name``'s boards may be shown yet (its matches, boards,
    records, replays, its bots' decisions and output), or None: public.

    A competition's final (``<competition>:final``, :mod:`arena.compete.final`) while it is
    played: every pair plays the same boards, one match at a time, so a stored match's deals
    are the ones the other pairs have yet to play (red team 42 read every final board from the
    first stored match, 4 of 6 board pairs in). Public once it is complete: its seed revealed.
    A ladder's blocks are each played once, public as they are stored; other tournaments are
    the host's own (``arena serve``), shown as they run."""
    competition, sep, _ = name.rpartition(":")
    if not sep or final_tournament(competition) != name or not store._has_table("competitions") \
            or store.get_competition(competition) is None:
        return None
    t = store.get_tournament(name)
    if t is None or t.seed_revealed:
        return None
    return (f"not yet: the final of {competition} is being played ({t.board_pairs} of "
            f"{t.pairs * t.boards_per_pair} board pairs stored), every pair on the same boards: its "
            "matches, boards and records are public once every pair has played them (its seed revealed)")


def sealed_tournaments(store: Store) -> list[str]:
    """The tournaments :func:`sealed` holds back now (a competition's final being played)."""
    if not store._has_table("competitions"):
        return []
    return [final_tournament(c.name) for c in store.list_competitions() if sealed(store, final_tournament(c.name))]


def _public(store: Store, match_id: str) -> None:
    """Raise :class:`NotFound` (its message: why, "not yet: …") for a match of a sealed tournament."""
    why = sealed(store, match_id.partition("/")[0])
    if why is not None:
        raise NotFound(why)


def tournaments(store: Store) -> list[dict]:
    """Every tournament, oldest first, as ``arena tournament list --json`` prints it."""
    return [tournament_json(t) for t in store.list_tournaments()]


#: RULES.md §6.4 option names in words.
OPTION_WORDS = {"contree": "contrée", "declarations": "declarations"}


def describe(t: dict) -> str:
    """A tournament's game in words, from :func:`tournament_json`'s dict: the ruleset, its
    RULES.md §6.4 options and the boards per pair, e.g. ``"classic · contrée on ·
    declarations off · 30 boards a pair"`` (no target score: a duplicate match plays
    boards, not games to a target)."""
    words = [t["ruleset"]] + [f"{OPTION_WORDS.get(k, k)} {v}" for k, v in (t.get("variant_options") or {}).items()]
    n = t["boards_per_pair"]
    return " · ".join(words + [f"{n} board{'s' if n != 1 else ''} a pair"])


def index(store: Store) -> dict:
    """The index page: tournaments newest first, ``arena sprt`` tests in their own list.

    Returns:
        ``{"tournaments": [...], "sprt": [...]}``: ``tournaments`` as
        :func:`tournaments` with ``summary`` (:func:`describe`) and ``ladder`` (a competition's
        ladder: its board pairs have no total), newest first, without the
        tournaments that hold an ``arena sprt`` test; ``sprt`` one per test, newest
        first: the test's columns (``name``, ``entrant_a``, ``entrant_b``, ``elo0``,
        ``elo1``, ``status`` — running, interrupted (stored as running, but no arena
        plays it), H0, H1 or inconclusive —, ``board_pairs``, W/D/L,
        ``llr``, ``elo`` …; NaN and infinite ends as ``None``) with its ``tournament``
        as :func:`tournaments` gives it (``None`` if missing).
    """
    listed = {t["name"]: {**t, "summary": describe(t), "ladder": store.is_ladder(t["name"])}
              for t in tournaments(store)}
    tests = []
    for row in store.sprt_tests():
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()}
        info = listed.pop(row["tournament"], None)
        if clean["status"] == "running" and (info is None or info["status"] != "running"):
            clean["status"] = "interrupted"
        tests.append({**{k: (str(v)[:19] if k.endswith("_at") and v is not None else v) for k, v in clean.items()},
                      "tournament_info": info})
    newest = sorted(listed.values(), key=lambda t: (t["created_at"], t["name"]), reverse=True)
    return {"tournaments": newest, "sprt": tests}


def sprt(store: Store, name: str, width: float = 640.0, height: float = 260.0) -> dict:
    """One ``arena sprt`` test (:mod:`arena.stats.sprt`): its stored columns as in
    :func:`index`'s ``sprt`` list (``status`` interrupted when no arena plays a running
    one), and the LLR after each board pair it counted, drawn against Wald's bounds.

    Returns:
        The test's columns, ``board_pairs_past`` (stored past the decision, not counted),
        ``path`` (the LLR after board pair 1, 2, …) and ``chart``: SVG geometry in a
        ``width`` × ``height`` box, ``plot`` (its area), ``line`` (polyline points),
        ``upper``/``lower`` (the y of the H1 and H0 bounds), ``yticks`` and ``xticks``
        (``{"at", "label"}``).

    Raises:
        NotFound: no test of that name.
    """
    import numpy as np

    from ..stats import sprt as sp

    row = next((r for r in index(store)["sprt"] if r["name"] == name), None)
    if row is None:
        raise NotFound(f"there is no SPRT test {name!r} (the index lists them)")
    s = sp.scores_in_order(store, row["tournament"], row["entrant_a"])[: row["board_pairs"]]
    w, d = np.cumsum(s == 1.0), np.cumsum(s == 0.5)
    losses = np.arange(1, len(s) + 1) - w - d
    path = [round(float(v), 3) for v in sp.llr(w, d, losses, row["elo0"], row["elo1"])] if len(s) else []
    left, top, right, bottom = 56.0, 12.0, width - 16.0, height - 40.0
    lo = min([row["lower_bound"] * 1.15] + path)
    hi = max([row["upper_bound"] * 1.15] + path)
    span = max(len(path), 10)

    def x(k: float) -> float:
        return round(left + (right - left) * k / span, 1)

    def y(v: float) -> float:
        return round(bottom - (bottom - top) * (v - lo) / (hi - lo), 1)

    step = next(st for st in (0.5, 1, 2, 5, 10, 20, 50) if (hi - lo) / st <= 6)
    xstep = next(st for st in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000) if span / st <= 8)
    chart = {"width": width, "height": height, "plot": {"left": left, "top": top, "right": right, "bottom": bottom},
             "line": " ".join(f"{x(k)},{y(v)}" for k, v in enumerate([0.0] + path)),
             "upper": y(row["upper_bound"]), "lower": y(row["lower_bound"]), "zero": y(0.0),
             "yticks": [{"at": y(v), "label": f"{v:g}"} for v in
                        (i * step for i in range(math.ceil(lo / step), math.floor(hi / step) + 1))],
             "xticks": [{"at": x(k), "label": str(k)} for k in range(0, span + 1, xstep)]}
    return {**row, "board_pairs_past": max(0, (row["board_pairs_stored"] or 0) - row["board_pairs"]),
            "path": path, "chart": chart}


def tournament(store: Store, name: str) -> dict:
    """One tournament as ``arena tournament show --json`` prints it.

    Raises:
        NotFound: no tournament of that name.
    """
    t = store.get_tournament(name)
    if t is None:
        raise NotFound(f"there is no tournament {name!r}")
    return tournament_json(t)


def match_records(store: Store, match_id: str) -> str:
    """A match's deal records as JSON lines (one per table, by board then table); each
    line is a record as ``arena replay`` reads it from a file.

    Raises:
        NotFound: no such match or no deal of it stored.
    """
    _public(store, match_id)
    lines = store.match_record_lines(match_id)
    if not lines:
        raise NotFound(f"there is no match {match_id!r} with a stored deal")
    return "".join(line.strip() + "\n" for line in lines)


def _rows(store: Store, name: str):
    tournament(store, name)
    return store.board_pair_results(tournament=name)


def leaderboard(store: Store, name: str) -> dict:
    """The tournament's rating list, best first.

    Returns:
        ``{"ratings": [...], "faults": {entrant: n}, "bars": [...], "error": str | None}``:
        ``ratings`` exactly as ``arena ratings --tournament NAME --json`` prints it (empty
        with nothing stored); ``bars`` per entrant, in the same order, the positions (0..100,
        % of the drawn range) of ``lo``/``hi`` (the 95% interval) and ``elo``; ``error``
        why the field cannot be rated yet (e.g. groups that have not met).

    Raises:
        NotFound: no tournament of that name.
    """
    rows = _rows(store, name)
    faults: dict[str, int] = {}
    for entrant, _kind, n in store.fault_counts(tournament=name):
        faults[entrant] = faults.get(entrant, 0) + n
    try:
        table = rating_table(rows)
    except ValueError as e:
        return {"ratings": [], "faults": faults, "bars": [], "error": str(e), "range": None}
    # the double-dummy figures too, as `arena ratings --json` gives them (boards analysed by `arena analyze`)
    out = ratings_json(table, field_scores(store, tournament=name),
                       points_lost_per_board(store, tournament=name)) if table is not None else []
    bars = []
    lo = hi = None
    if out:
        # an open end (an entrant at 100% or 0%: one-sided bound) is drawn to the edge
        lo = min(r["ci_low"] if r["ci_low"] is not None else r["elo"] for r in out)
        hi = max(r["ci_high"] if r["ci_high"] is not None else r["elo"] for r in out)
        span = (hi - lo) or 1.0

        def at(x: float | None, edge: float) -> float:
            return edge if x is None else round(100.0 * (x - lo) / span, 2)

        bars = [{"lo": at(r["ci_low"], 0.0), "hi": at(r["ci_high"], 100.0), "elo": at(r["elo"], 50.0)} for r in out]
    return {"ratings": out, "faults": faults, "bars": bars, "error": None,
            "range": None if lo is None else [lo, hi]}


def _nan(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def head_to_head(store: Store, name: str, order: list[str] | None = None) -> dict:
    """Each pair's board-pair record and mean duplicate margin, as a list and as a grid.

    Args:
        order: the entrants in the grid's order (default: the entrants that played, by key).

    Returns:
        ``{"pairs": [...], "entrants": [...], "grid": [[cell | None]]}``: ``pairs``
        exactly as ``arena ratings --head-to-head --json`` prints it; ``grid[i][j]``
        is entrant ``i``'s record against ``j`` (``None`` on the diagonal or if they
        have not met) with ``wins``, ``draws``, ``losses``, ``boards``, ``score``,
        ``mean_margin``, ``ci_low``, ``ci_high`` from ``i``'s side, and ``significance``:
        ``"ahead"`` when the 95% interval of the mean margin is above 0, ``"behind"``
        when below, ``"open"`` otherwise (or unknown with one board).

    Raises:
        NotFound: no tournament of that name.
    """
    rows = _rows(store, name)
    t = store.get_tournament(name)
    pairs = head_to_head_table(rows, t.entrants if t is not None else ())  # oriented as `arena matches` shows them
    try:
        fit_table = rating_table(rows)
    except ValueError:
        fit_table = None
    entrants = list(order) if order else list(rows.entrants)
    index = {e: i for i, e in enumerate(entrants)}
    grid: list[list[dict | None]] = [[None] * len(entrants) for _ in entrants]
    for h in pairs:
        if h.a not in index or h.b not in index:
            continue
        lo, hi = _nan(h.ci_low), _nan(h.ci_high)
        for me, other, sign in ((h.a, h.b, 1), (h.b, h.a, -1)):
            m_lo, m_hi = (lo, hi) if sign == 1 else ((None if hi is None else -hi), (None if lo is None else -lo))
            sig = "open"
            if m_lo is not None and m_lo > 0:
                sig = "ahead"
            elif m_hi is not None and m_hi < 0:
                sig = "behind"
            grid[index[me]][index[other]] = {
                "opponent": other, "boards": h.boards, "wins": h.wins if sign == 1 else h.losses,
                "draws": h.draws, "losses": h.losses if sign == 1 else h.wins,
                "score": h.score if sign == 1 else 1.0 - h.score, "mean_margin": sign * h.mean_margin,
                "ci_low": m_lo, "ci_high": m_hi, "significance": sig,
                "match": make_match_id(name, h.a, h.b),
            }
    return {"pairs": head_to_head_json(pairs, fit_table), "entrants": entrants, "grid": grid}


def matches(store: Store, name: str) -> list[dict]:
    """The tournament's matches with a stored board pair, as ``arena matches --json``
    prints them (A's W-D-L, points, B's points, A's total and mean margin, forfeits, faults).

    Raises:
        NotFound: no tournament of that name.
    """
    tournament(store, name)
    return [match_json(m) for m in store.matches(tournament=name)]


def _match_summary(store: Store, match_id: str) -> dict:
    tname, _, _ = match_id.partition("/")
    for m in store.matches(tournament=tname):
        if m.match_id == match_id:
            return match_json(m)
    raise NotFound(f"there is no match {match_id!r} with a stored board")


def match(store: Store, match_id: str) -> dict:
    """A match and every stored board pair: both tables' contracts and points, the margin.

    Returns:
        ``{"match": summary, "boards": [...]}``, each board with ``board``,
        ``points_a``, ``points_b``, ``margin`` (A's duplicate margin, RULES.md §8),
        ``forfeit_a``, ``forfeit_b`` and ``tables`` (``table``, ``ns``, ``ew``,
        ``contract``, ``taker``, ``trump_mode``, ``trump``, ``score_ns``, ``score_ew``,
        ``capot``, ``pot``, ``permutation``, ``trump_as_played``): ``trump`` in the board's
        own suits, as the replay and `arena log` show table 2 (RULES.md §8), and
        ``trump_as_played`` in the table's.

    Raises:
        NotFound: no such match (or no board of it stored yet).
    """
    _public(store, match_id)
    summary = _match_summary(store, match_id)
    try:
        boards = store.match_boards(match_id)
    except StoreError as e:
        raise NotFound(str(e)) from None
    return {"match": summary, "boards": [
        {**{k: v for k, v in b.__dict__.items() if k != "tables"}, "tables": [_in_board_suits(t) for t in b.tables]}
        for b in boards
    ]}


#: Suit letters by index (S H D C = 0..3, as ``deals.permutation`` numbers them).
_SUIT_LETTERS = "SHDC"


def _in_board_suits(t) -> dict:
    """A :class:`arena.store.TableSummary` as a dict, its ``trump`` named in the board's own
    suits (``trump_as_played``: at the table)."""
    out = dict(t.__dict__, permutation=list(t.permutation), trump_as_played=t.trump)
    if t.trump and t.trump in _SUIT_LETTERS:
        out["trump"] = _SUIT_LETTERS[list(t.permutation).index(_SUIT_LETTERS.index(t.trump))]
    return out


def board(store: Store, match_id: str, number: int, *, board_suits: bool = True) -> dict:
    """One board of a match at both tables, replayed, for the viewer.

    Returns:
        ``{"match": summary, "board": n, "pair": {points_a, points_b, margin, forfeit_a,
        forfeit_b}, "tables": [table_view(table 1), table_view(table 2)], "steps": n,
        "boards": [every stored board number], "board_suits": bool}``; ``steps`` is the
        most tricks played at a table (the viewer's last step shows the final score).

    Raises:
        NotFound: no such match or board.
        StoreError: a stored record the rules cannot replay.
    """
    _public(store, match_id)
    summary = _match_summary(store, match_id)
    try:
        results = store.board_pair_result(match_id, number)
    except StoreError as e:
        raise NotFound(str(e)) from None
    try:
        tables = [table_view(t, board_suits=board_suits) for t in results.tables]
    except RecordError as e:
        raise StoreError(f"board {number} of {match_id!r} does not replay: {e}") from None
    numbers = [b.board for b in store.match_boards(match_id)]
    analysed = cached_deals(store, match_id, number)
    kept = store.bot_logs(match_id, number)
    for t in tables:
        _add_double_dummy(t, analysed.get(t["table"]))
        t["logs"] = [[Path(p).name for table, seat, _, p in kept if table == t["table"] and seat == n]
                     for n in range(len(t["seat_entrants"]))]
    return {
        "match": summary, "board": number, "board_suits": board_suits,
        "pair": {"points_a": results.points_a, "points_b": results.points_b, "margin": results.margin,
                 "forfeit_a": bool(results.forfeit_a), "forfeit_b": bool(results.forfeit_b)},
        "tables": tables, "steps": max(len(t["tricks"]) for t in tables), "boards": numbers,
    }


def bot_log(store: Store, match_id: str, number: int, table: int, seat: int, index: int) -> str:
    """The kept output of the ``index``-th process (0, 1, … by file name) that held ``seat`` at
    ``table`` during board ``number`` (``--logs``), as text (bytes that are not UTF-8 replaced).

    Only a regular file inside the run's ``--logs`` folder is read: a stored path that leads
    elsewhere (``..``, an absolute path, a symbolic link out of it) answers as missing.

    Raises:
        NotFound: no such match, board, seat or kept log, or the file is gone or outside its folder.
    """
    _public(store, match_id)
    _match_summary(store, match_id)
    rows = [(root, path) for t, s, root, path in store.bot_logs(match_id, number) if t == table and s == seat]
    if not 0 <= index < len(rows):
        raise NotFound(f"no kept output of process {index} of seat {seat} at table {table} of board {number} "
                       f"of {match_id}: the run kept none (arena tournament run --logs DIR)")
    root, path = rows[index]
    folder = Path(root).resolve()
    target = (folder / path).resolve()
    if not target.is_relative_to(folder) or not target.is_file():
        raise NotFound(f"the kept output {path} is not in its logs folder {root} (moved or removed?)")
    return target.read_bytes().decode("utf-8", "replace")


def _add_double_dummy(view: dict, deal) -> None:
    """Put a table's cached double-dummy analysis (:class:`arena.analysis.boards.DealAnalysis`,
    or ``None``: not analysed yet) into its view: ``view["dd"]`` = ``{trick_points, score,
    points_lost, meaning}`` or ``None``, and each trick card's ``dd`` = ``{points, best_points,
    lost, best}`` (``best`` a card face in the suits the view shows)."""
    if deal is None or deal.trick_points is None:
        view["dd"] = None if deal is None else {"trick_points": None, "score": None, "points_lost": [0, 0],
                                                "meaning": DD_MEANING}
        return
    inverse = [0] * 4
    for s, p in enumerate(view["permutation"] if view["relabelled"] else (0, 1, 2, 3)):
        inverse[p] = s
    cards = iter(deal.cards)
    for trick in view["tricks"]:
        for p in trick["cards"]:
            c = next(cards)
            best = CARDS[inverse[c.best_card >> 3] * 8 + (c.best_card & 7)]
            p["dd"] = {"points": c.points, "best_points": c.best_points, "lost": c.lost, "best": card_json(best)}
    view["dd"] = {"trick_points": list(deal.trick_points), "score": list(deal.score),
                  "points_lost": [deal.points_lost(0), deal.points_lost(1)], "meaning": DD_MEANING}


def bot(store: Store, name: str, slowest: int = 10) -> dict:
    """A bot: its versions, its rating in each tournament it entered (oldest first) and
    how it settled there, its faults by kind and its slowest decisions.

    Returns:
        ``{"name", "versions": [{version, author, content_hash, submitted_at}],
        "ratings": [{tournament, created_at, status, entrant, rank, of, elo, ci_low,
        ci_high, boards, dd_points_lost, dd_boards, sprt}], "history": [rating_history(...) per rated entry],
        "chart": ratings_chart(ratings of tournaments), "faults": [{entrant, kind, count}], "slowest": [...]}``;
        ``sprt``: the name of the ``arena sprt`` test played as that tournament, or None (the
        chart leaves those out: a test's Elo is against one opponent, not a field's).

    Raises:
        NotFound: no bot of that name.
    """
    versions = [b for b in store.list_bots() if b.name == name]
    if not versions:
        raise NotFound(f"there is no bot {name!r}")
    history = []
    tests = {x["tournament"]: x["name"] for x in store.sprt_tests()}
    for t in store.list_tournaments():
        mine = [e for e in t.entrants if split_entrant(e)[0] == name]
        if not mine:
            continue
        try:
            table = rating_table(store.board_pair_results(tournament=t.name))
        except ValueError:
            table = None
        listed = ratings_json(table) if table is not None else []
        dd = points_lost_per_board(store, tournament=t.name)
        for entrant in mine:
            _, version = split_entrant(entrant)
            row = next((r for r in listed if r["name"] == name and r["version"] == version), None)
            history.append({"tournament": t.name, "created_at": str(t.created_at)[:19], "status": t.status,
                            "entrant": entrant, "of": len(listed), **({
                                k: row[k] for k in ("rank", "elo", "ci_low", "ci_high", "boards")
                            } if row else {"rank": None, "elo": None, "ci_low": None, "ci_high": None,
                                           "boards": 0}),
                            "dd_points_lost": None if entrant not in dd else round(dd[entrant][0], 1),
                            "dd_boards": dd.get(entrant, (0, 0))[1], "sprt": tests.get(t.name)})
    return {
        "name": name,
        "versions": [{"version": b.version, "author": b.author, "content_hash": b.content_hash,
                      "submitted_at": str(b.submitted_at)[:19]} for b in versions],
        "ratings": history,
        "history": [rating_history(store, h["tournament"], h["entrant"]) for h in history if h["boards"]],
        "chart": ratings_chart([h for h in history if h["sprt"] is None]),
        "faults": [{"entrant": e, "kind": k, "count": n} for e, k, n in store.fault_counts(bot=name)],
        # a final's decisions are its cards: none while it is played (sealed)
        "slowest": [dict(d.__dict__, action=action_text(d.kind, d.value))
                    for d in store.slowest_decisions(name, slowest, skip=sealed_tournaments(store))],
    }


def action_text(kind: str, value: str) -> str:
    """A stored action ``(kind, value)`` as the rules engine words it (``declares tierce [9S 10S
    JS]``, ``take``, ``JS (belote)``), not its stored JSON (the new-user trial: ``declare
    [["9S","10S","JS"]]`` on the bot page); ``kind value`` for one it cannot read."""
    try:
        return str(action_from_json(action_json(kind, value)))
    except (StoreError, RecordError, ValueError):
        return f"{kind} {value}"


def rate_of(batches: list[tuple[datetime, int]]) -> float | None:
    """Board pairs per second of a run of writes ``(written_at, board pairs)``, oldest
    first: the board pairs written after the first write over the time since it (the
    first write's board pairs were played before it, at an unknown pace). ``None`` with
    fewer than two writes."""
    if len(batches) < 2:
        return None
    span = (batches[-1][0] - batches[0][0]).total_seconds()
    return sum(n for _, n in batches[1:]) / span if span > 0 else None


def progress(store: Store, name: str) -> dict:
    """How far a tournament is: board pairs stored of expected, speed, ETA and the
    standings so far.

    Returns:
        ``{"tournament", "status", "stored", "total", "tables_in_flight", "rate", "eta_s",
        "last_write", "standings", "error"}``: ``tables_in_flight`` the tables played in
        the blocks not stored yet (each board at each table; what the running arena says in
        its run lock, 0 when none runs); ``rate`` in board pairs per second: the running
        arena's own since its run began, a table in flight counting half a board pair, as
        ``arena tournament run`` shows it (else over the writes of the last
        :data:`RATE_WINDOW_S` seconds before the newest; ``None`` with fewer than two writes
        in it); ``eta_s`` the seconds left at that rate while the tournament runs (else
        ``None``); ``standings`` as ``arena ratings --json``.

    Raises:
        NotFound: no tournament of that name.
    """
    info = tournament(store, name)
    holder = RunLock(store.path).holder() if store.path is not None and info["status"] == "running" else None
    tables = holder.get("tables_in_flight", 0) if holder and holder.get("tournament") == name else 0
    batches = store.write_batches(name, RATE_WINDOW_S)
    rate = rate_of(batches)
    left = info["board_pairs_total"] - info["board_pairs"]
    if holder and holder.get("tournament") == name and "started_unix" in holder:
        # as `arena tournament run` reckons it: this run's board pairs, a table in flight counting
        # half of one, over its time (the new-user trial: 3:36 there against 9:27 here)
        own = info["board_pairs"] - holder.get("board_pairs_at_start", 0) + tables / 2
        spent = time.time() - holder["started_unix"]
        rate = own / spent if own > 0 and spent > 0 else None
        left -= tables / 2
    eta = left / rate if rate and info["status"] == "running" and left > 0 else None
    board = leaderboard(store, name)
    return {
        "tournament": name, "status": info["status"], "stored": info["board_pairs"],
        "total": info["board_pairs_total"], "tables_in_flight": tables,
        "rate": None if rate is None else round(rate, 2),
        "eta_s": None if eta is None else round(eta, 1),
        "last_write": str(batches[-1][0])[:19] if batches else None,
        "standings": board["ratings"], "error": board["error"],
    }
