"""Ratings, head-to-head, field-relative scores and rating history from stored board pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from ..stats.head_to_head import HeadToHead, head_to_head
from ..stats.ratings import RatingFit, fit_model
from ..stats.tally import scores, tally_arrays
from ..store import BoardPairRows, MatchSummary, Tournament


@dataclass(frozen=True)
class RatingTable:
    """Ratings of one field: the fit, the entrants in display order (group, then
    descending Elo), and for each the comparison with the next one down the
    same group: LOS (P(this one is stronger)) and the Elo difference's 95%
    interval (``None`` for the last of a group)."""

    fit: RatingFit
    order: list[int]
    los_next: list[float | None]
    diff_next: list[tuple[float, float, float] | None]


def rating_table(rows: BoardPairRows) -> RatingTable | None:
    """Fit Elo (Bradley–Terry over board pairs, RULES.md §8) to stored board pairs;
    ``None`` with no rows. A field in separate groups is rated group by group."""
    if not len(rows):
        return None
    names = list(rows.entrants)
    t = tally_arrays(len(names), rows.a, rows.b, scores(rows))
    fit = fit_model(names, t.wins, draws=t.draws)
    order = sorted(range(len(names)), key=lambda i: (fit.ratings[i].group, -fit.ratings[i].elo))
    los_next: list[float | None] = []
    diff_next: list[tuple[float, float, float] | None] = []
    for k, i in enumerate(order):
        nxt = order[k + 1] if k + 1 < len(order) else None
        if nxt is None or fit.ratings[nxt].group != fit.ratings[i].group:
            los_next.append(None)
            diff_next.append(None)
        else:
            los_next.append(fit.los(i, nxt))
            diff_next.append(fit.difference(i, nxt))
    return RatingTable(fit=fit, order=order, los_next=los_next, diff_next=diff_next)


def head_to_head_table(rows: BoardPairRows, order: Sequence[str] = ()) -> list[HeadToHead]:
    """Per pair: board W/D/L and the mean duplicate margin with its 95% CI.

    ``order``: entrant keys in the tournament's order of entry; each pair is then
    oriented as its match is (A entered first, as ``arena matches`` shows it), and
    pairs come in that order. Entrants not in it follow, by name."""
    if not len(rows):
        return []
    rank = {name: i for i, name in enumerate(order)}
    names = rows.entrants
    ordered = sorted(names, key=lambda n: (rank.get(n, len(rank)), n))
    return head_to_head(ordered, [(names[a], names[b], float(m), float(s))
                                for a, b, m, s in zip(rows.a, rows.b, rows.margin, scores(rows))])


def json_number(x: float | None, digits: int = 1) -> float | None:
    """A number for JSON: ``None`` for NaN or an infinite end (JSON has neither)."""
    return None if x is None or not math.isfinite(x) else round(x, digits)


def whole(x: float) -> str:
    """An Elo (or an end of its interval) shown whole, as the CLI's tables and the web's pages
    both show it: its JSON value (:func:`json_number`, one decimal) rounded half up, so that a
    page, which has only the JSON, and ``arena ratings`` agree (1642.53 is 1642.5 in the
    JSON: both show 1643; rounding each its own way, one showed 1642)."""
    return f"{math.floor(round(x, 1) + 0.5)}"


#: The label of the double-dummy figures wherever they are shown (issue 23).
DD_MEANING = "perfect-information play (every hand in view): a yardstick, not a verdict"


def shared_ranks(table: RatingTable) -> list[int]:
    """The rank of each entrant of ``table.order`` (from 1), ties shared as in sport ("1, 1, 3"):
    entrants whose Elo is the same to 0.1 (as shown) share the rank of the first of them (the
    new-user trial: two entrants at 1500 after a 2-0-2 final were ranked 1st and 2nd)."""
    ranks: list[int] = []
    for k, i in enumerate(table.order):
        same = k > 0 and round(table.fit.ratings[i].elo, 1) == round(table.fit.ratings[table.order[k - 1]].elo, 1)
        ranks.append(ranks[-1] if same else k + 1)
    return ranks


def ratings_json(table: RatingTable, field: dict | None = None, dd: dict | None = None) -> list[dict]:
    """The rating list as ``arena ratings --json`` prints it, best first: one object per
    entrant with ``rank``, ``name``, ``version``, ``group``, ``elo``, ``ci_low``,
    ``ci_high`` (95%, Elo, one decimal; ``None`` for an open end, see ``bound``),
    ``boards``, ``wins``, ``draws``, ``losses`` (board pairs), ``score`` (0..1),
    ``los_next``, ``diff_next`` (with its 95% interval and ``significant_next``) and the
    field scores of ``field`` (:func:`field_scores`: ``butler`` with its interval,
    ``matchpoints``; ``None`` without) and ``double_dummy`` from ``dd`` (entrant key →
    (points lost to double dummy per board, boards counted), from ``arena analyze``'s cache:
    ``{"points_lost_per_board", "boards", "meaning"}``, ``None`` when no board of the entrant
    is analysed)."""
    field = field or {}
    dd = dd or {}
    num = json_number
    out = []
    ranks = shared_ranks(table)
    for k, i in enumerate(table.order):
        r = table.fit.ratings[i]
        name, _, version = r.name.partition("@")
        f = field.get(r.name)
        d = table.diff_next[k]
        out.append({"rank": ranks[k], "name": name, "version": version, "group": r.group + 1,
                    "elo": num(r.elo), "ci_low": num(r.ci_low), "ci_high": num(r.ci_high),
                    "bound": r.bound, "boards": r.games, "wins": r.wins, "draws": r.draws,
                    "losses": r.losses, "score": num(r.score, 4),
                    "los_next": None if table.los_next[k] is None else round(table.los_next[k], 4),
                    "diff_next": None if d is None else num(d[0]),
                    "diff_next_low": None if d is None else num(d[1]),
                    "diff_next_high": None if d is None else num(d[2]),
                    "significant_next": None if d is None else bool(d[1] > 0 or d[2] < 0),
                    "butler": None if f is None else num(f.butler, 2),
                    "butler_low": None if f is None else num(f.butler_low, 2),
                    "butler_high": None if f is None else num(f.butler_high, 2),
                    "matchpoints": None if f is None else num(f.matchpoints, 4),
                    "double_dummy": None if r.name not in dd else {
                        "points_lost_per_board": num(dd[r.name][0], 2), "boards": dd[r.name][1],
                        "meaning": DD_MEANING}})
    return out


def head_to_head_json(table: list[HeadToHead], fit_table: RatingTable | None) -> list[dict]:
    """The head-to-head list as ``arena ratings --head-to-head --json`` prints it: the
    :class:`HeadToHead` fields (``None`` for an interval not known), and from the fit
    ``elo_diff`` (A − B) with its 95% interval and ``los`` (A stronger)."""
    num = json_number
    diffs = {}
    if fit_table is not None:
        for h in table:
            d = fit_table.fit.difference(h.a, h.b)
            diffs[(h.a, h.b)] = (*d, fit_table.fit.los(h.a, h.b))
    nan = (math.nan,) * 4
    return [{**h.__dict__, "mean_margin": num(h.mean_margin, 1), "ci_low": num(h.ci_low, 1), "ci_high": num(h.ci_high, 1),
             "elo_diff": num(diffs.get((h.a, h.b), nan)[0]), "elo_diff_low": num(diffs.get((h.a, h.b), nan)[1]),
             "elo_diff_high": num(diffs.get((h.a, h.b), nan)[2]), "los": num(diffs.get((h.a, h.b), nan)[3], 4)}
            for h in table]


def entrant_json(key: str) -> dict:
    """An entrant as JSON, the one shape of every command: ``{"name", "version"}``."""
    name, _, version = key.rpartition("@")
    return {"name": name, "version": version}


def tournament_json(t: Tournament) -> dict:
    """A tournament as ``arena tournament show --json`` prints it: the seed (decimal
    text) only once it may be shown, else ``None``; ``board_pairs`` stored of
    ``board_pairs_total`` (boards per pair × pairs of entrants that play: all in a round
    robin, the gauntlet's in a gauntlet); ``gauntlet``: that entrant's key or None; entrants as
    :func:`entrant_json`."""
    return {
        "name": t.name, "ruleset": t.ruleset, "options": t.options, "variant_options": t.variant_options,
        "boards_per_pair": t.boards_per_pair,
        "entrants": [entrant_json(k) for k in t.entrants], "board_pairs": t.board_pairs,
        "board_pairs_total": t.boards_per_pair * t.pairs, "status": t.status,
        "created_at": str(t.created_at)[:19], "commitment": t.commitment, "seed_secret": t.seed_secret,
        "seed_revealed": t.seed_revealed, "seed": None if t.public_seed is None else str(t.public_seed),
        "gauntlet": t.gauntlet,
    }


def match_json(m: MatchSummary) -> dict:
    """A match summary as ``arena matches --json`` prints it: the :class:`MatchSummary`
    fields, entrants as :func:`entrant_json`, and ``mean_margin`` (A's duplicate margin
    per board, one decimal)."""
    return {**m.__dict__, "entrant_a": entrant_json(m.entrant_a), "entrant_b": entrant_json(m.entrant_b),
            "mean_margin": round(m.mean_margin, 1)}

# --------------------------------------------------------------------------
# Field-relative scores (duplicate bridge's Butler and matchpoints)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldScore:
    """One entrant's results against the whole field on the same boards.

    Every pair of a tournament plays the same boards, so each board has many
    tables. A table's result is the NS side's points minus the EW side's
    (``score_ns − score_ew``, RULES.md §7); the board's *datum* is its mean over
    every table of that board in the tournament.

    Attributes:
        entrant: the entrant key.
        tables: tables played (two per board pair).
        butler: mean over the entrant's tables of (its side's result − the
            datum for that side), in points per table: how many points it
            made above the field's average holding the same cards (bridge's
            Butler scoring, without IMPs). 0 is the field's average.
        butler_low, butler_high: 95% t interval of that mean (NaN with
            fewer than two tables).
        matchpoints: mean share of the other tables of the same board, same
            cards, that the entrant beat (a tie counts half), 0..1; 0.5 is
            the field's average (bridge's matchpoint percentage).
    """

    entrant: str
    tables: int
    butler: float
    butler_low: float
    butler_high: float
    matchpoints: float


# Per row, exact integers: a table's result times the board's table count minus
# the board's total (``xn`` = n·(r − datum)), and twice the tables it beat
# (``mpn`` = 2·below + same). Summed per (entrant, n) they stay integers, so the
# means below do not depend on the order DuckDB reads the rows in (a resumed
# tournament stores them in another order; float sums would differ in the last
# bit and a rounded 78.565 could print as 78.56 or 78.57).
_FIELD_SQL = """
WITH m AS (SELECT match_id, tournament FROM matches
           WHERE (?::VARCHAR IS NULL OR tournament = ?) AND (?::VARCHAR IS NULL OR ruleset = ?)
             AND (?::VARCHAR[] IS NULL OR list_contains(?::VARCHAR[], tournament))),
t AS (SELECT m.tournament, d.board, d.ns_entrant, d.ew_entrant, (d.score_ns - d.score_ew)::BIGINT AS r
      FROM deals d JOIN m USING (match_id)),
w AS (SELECT *, sum(r) OVER b AS s, count(*) OVER b AS n,
             rank() OVER (PARTITION BY tournament, board ORDER BY r) - 1 AS below,
             count(*) OVER (PARTITION BY tournament, board, r) - 1 AS same
      FROM t WINDOW b AS (PARTITION BY tournament, board)),
per AS (SELECT ns_entrant AS entrant, n, (r * n - s)::HUGEINT AS xn, 2 * below + same AS mpn FROM w
        UNION ALL
        SELECT ew_entrant, n, (s - r * n)::HUGEINT, 2 * (n - 1) - (2 * below + same) FROM w)
SELECT entrant, n, count(*), sum(xn), sum(xn * xn), sum(mpn) FROM per GROUP BY entrant, n ORDER BY entrant, n
"""


def field_scores(store, tournament: str | None = None, ruleset: str | None = None,
                 tournaments: list[str] | None = None) -> dict[str, FieldScore]:
    """Butler and matchpoint scores of every entrant (:class:`FieldScore`), by
    entrant key; the datum is taken per tournament and board (boards of
    different tournaments are different deals). ``tournaments``: only these
    (e.g. those with one set of RULES.md §6.4 options). Computed exactly
    (fractions), so the figures do not depend on the order rows were stored in."""
    sums: dict[str, list] = {}
    for entrant, n, count, xn, xn2, mpn in store.con.execute(
            _FIELD_SQL, [tournament, tournament, ruleset, ruleset, tournaments, tournaments]).fetchall():
        acc = sums.setdefault(entrant, [0, Fraction(0), Fraction(0), 0, Fraction(0)])
        acc[0] += count
        acc[1] += Fraction(int(xn), n)  # Σ x over these rows, x = r − datum
        acc[2] += Fraction(int(xn2), n * n)  # Σ x²
        if n > 1:  # a board played at one table has no matchpoints
            acc[3] += count
            acc[4] += Fraction(int(mpn), 2 * (n - 1))
    out = {}
    for entrant, (count, sx, sx2, mp_count, smp) in sums.items():
        mean = sx / count
        low = high = math.nan
        if count >= 2:
            sd = math.sqrt((sx2 - count * mean * mean) / (count - 1))
            half = float(stats.t.ppf(0.975, count - 1)) * sd / math.sqrt(count)
            low, high = float(mean) - half, float(mean) + half
        out[entrant] = FieldScore(entrant=entrant, tables=count, butler=float(mean), butler_low=low,
                                  butler_high=high, matchpoints=float(smp / mp_count) if mp_count else math.nan)
    return out


# --------------------------------------------------------------------------
# Rating history
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryPoint:
    """One entrant's rating after the first ``board_pairs`` stored board pairs of the field."""

    board_pairs: int
    entrant: str
    elo: float
    ci_low: float
    ci_high: float
    games: int


def history_rows(store, tournament: str | None = None, ruleset: str | None = None,
                 tournaments: list[str] | None = None):
    """Every board pair of the scope as ``(entrant_a, entrant_b, margin, forfeit_a,
    forfeit_b)``, in the order stored (write time, then match and board);
    ``tournaments``: only these (e.g. those with one set of RULES.md §6.4 options)."""
    return store.con.execute(
        """SELECT m.entrant_a, m.entrant_b, p.margin, p.forfeit_a, p.forfeit_b
           FROM board_pairs p JOIN matches m USING (match_id)
           WHERE (?::VARCHAR IS NULL OR m.tournament = ?) AND (?::VARCHAR IS NULL OR m.ruleset = ?)
             AND (?::VARCHAR[] IS NULL OR list_contains(?::VARCHAR[], m.tournament))
           ORDER BY p.written_at, p.match_id, p.board""",
        [tournament, tournament, ruleset, ruleset, tournaments, tournaments]).fetchall()


def rating_history(rows: list[tuple], name: str | None = None, steps: int = 10) -> list[HistoryPoint]:
    """Ratings after each of ``steps`` equal slices of the stored board pairs.

    Args:
        rows: :func:`history_rows`, in stored order.
        name: keep only entrants of this bot name (every version: a new
            version is a new entrant) or this exact ``name@version``; None: all.
        steps: checkpoints (the last one is every board pair).

    Returns:
        One :class:`HistoryPoint` per checkpoint and kept entrant that has
        played by then; the field is refitted at each checkpoint, so the
        ratings are those ``arena ratings`` would have shown at that time.
    """
    if not rows:
        return []
    entrants = sorted({r[0] for r in rows} | {r[1] for r in rows})
    index = {e: i for i, e in enumerate(entrants)}
    a = np.array([index[r[0]] for r in rows])
    b = np.array([index[r[1]] for r in rows])
    margin = np.array([r[2] for r in rows])
    fa = np.array([bool(r[3]) for r in rows])
    fb = np.array([bool(r[4]) for r in rows])
    s = np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))
    s = np.where(fa & ~fb, 0.0, np.where(fb & ~fa, 1.0, np.where(fa & fb, 0.5, s)))
    keep = [e for e in entrants if name is None or e == name or e.partition("@")[0] == name]
    cuts = sorted({max(1, round(len(rows) * k / steps)) for k in range(1, steps + 1)})
    out = []
    for cut in cuts:
        t = tally_arrays(len(entrants), a[:cut], b[:cut], s[:cut])
        fit = fit_model(entrants, t.wins, draws=t.draws)
        for e in keep:
            r = fit.ratings[index[e]]
            if r.games:
                out.append(HistoryPoint(board_pairs=cut, entrant=e, elo=r.elo, ci_low=r.ci_low,
                                        ci_high=r.ci_high, games=r.games))
    return out


# --------------------------------------------------------------------------
# Sample size
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """Board pairs needed to tell two bots ``elo`` apart (see :func:`plan`)."""

    elo: float
    alpha: float
    power: float
    score_sd: float
    draw_rate: float
    score_source: str
    board_pairs_wdl: int
    margin_sd: float | None
    margin_per_elo: float | None
    board_pairs_margin: int | None


def plan(rows: BoardPairRows | None, elo: float, alpha: float = 0.05, power: float = 0.8,
         default_draw_rate: float = 0.1) -> Plan:
    """Board pairs for a two-sided test at level α to detect ``elo`` with the given power.

    W/D/L: ``n = ((z_{1−α/2} + z_power)·σ_s / Δs)²``, Δs = s(elo) − ½ the
    score difference an ``elo`` advantage makes, σ_s the standard deviation
    of one board pair's score between near-equal bots, ``√(¼ − δ/4)`` (the
    draw model of :mod:`arena.stats.ratings`), δ the share of stored board pairs
    drawn or, without any, ``default_draw_rate``.

    Margins (only with stored results of at least two pairs): the same
    formula on the mean duplicate margin, with σ_m the margins' pooled
    within-pair standard deviation and the points an Elo is worth from a
    least-squares line through 0 of each pair's mean margin on its fitted
    Elo difference (weighted by board pairs).
    """
    z = float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))
    ds = 1.0 / (1.0 + 10.0 ** (-elo / 400.0)) - 0.5
    if rows is not None and len(rows):
        s = scores(rows)
        key = rows.a * len(rows.entrants) + rows.b
        drawn = float(np.mean(s == 0.5))
        sd_s, df = math.sqrt(0.25 - drawn / 4.0), len(rows)
        sd_m, _ = _pooled_sd(key, rows.margin.astype(np.float64))
        source = f"{drawn:.0%} draws in {len(rows)} stored board pairs"
    else:
        df = 0
    if df == 0:
        drawn = default_draw_rate
        sd_s = math.sqrt(0.25 - default_draw_rate / 4.0)
        source = f"default: no stored results, {default_draw_rate:.0%} draws assumed"
        sd_m = None
    n_wdl = math.ceil((z * sd_s / ds) ** 2)
    per_elo = None
    n_margin = None
    if df and rows is not None:
        table = rating_table(rows)
        pairs = {}
        for a, b, m in zip(rows.a, rows.b, rows.margin, strict=True):
            pairs.setdefault((int(a), int(b)), []).append(float(m))
        x, y, w = [], [], []
        for (a, b), ms in pairs.items():
            diff = table.fit.difference(a, b)[0]
            if math.isfinite(diff):
                x.append(diff)
                y.append(np.mean(ms))
                w.append(len(ms))
        x, y, w = np.array(x), np.array(y), np.array(w)
        if len(x) >= 2 and np.dot(w * x, x) > 0:
            per_elo = float(np.dot(w * x, y) / np.dot(w * x, x))
            if per_elo > 0 and sd_m:
                n_margin = math.ceil((z * sd_m / (per_elo * elo)) ** 2)
    return Plan(elo=elo, alpha=alpha, power=power, score_sd=sd_s, draw_rate=drawn, score_source=source, board_pairs_wdl=n_wdl,
                margin_sd=sd_m if df else None, margin_per_elo=per_elo, board_pairs_margin=n_margin)


def _pooled_sd(key: np.ndarray, x: np.ndarray) -> tuple[float, int]:
    """Within-group standard deviation pooled over groups, and its degrees of freedom."""
    size = int(key.max()) + 1
    count = np.bincount(key, minlength=size)
    mean = np.bincount(key, weights=x, minlength=size) / np.maximum(count, 1)
    ss = float(np.sum((x - mean[key]) ** 2))
    df = int(np.sum(np.clip(count - 1, 0, None)))
    return (math.sqrt(ss / df) if df else 0.0), df


# --------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------


def export_derived(store, out_dir, fmt: str) -> list:
    """Write ``ratings.<fmt>`` and ``rating_history.<fmt>`` (parquet or jsonl) to ``out_dir``.

    ratings: one row per scope and entrant, a scope being **one tournament**
    (``tournament`` its name, as ``arena ratings --tournament``) or **one ruleset
    with one set of RULES.md §6.4 options** (``tournament`` NULL, as ``arena ratings
    --ruleset R --option …``); ``variant_options`` the options as JSON text. Each
    row: rank, group, Elo with its 95% interval (NULL for an open end), bound,
    board pairs and W/D/L, score, LOS and the Elo difference (with its interval)
    to the next one down, the field scores (Butler points per table with
    interval, matchpoint share). rating_history: one row per scope (the same
    two kinds), checkpoint (a tenth of the stored board pairs, in the order
    stored) and entrant.
    """
    import json as _json
    from pathlib import Path

    import pyarrow as pa

    def num(x):
        return None if x is None or not math.isfinite(x) else float(x)

    tournaments = store.list_tournaments()
    scopes: list[tuple[str | None, str, dict, list[str]]] = []  # (tournament, ruleset, options, tournaments)
    by_options: dict[tuple[str, str], list] = {}
    for t in tournaments:
        scopes.append((t.name, t.ruleset, t.variant_options, [t.name]))
        by_options.setdefault((t.ruleset, _json.dumps(t.variant_options, sort_keys=True)), []).append(t)
    for (rs, _), ts in sorted(by_options.items()):
        scopes.append((None, rs, ts[0].variant_options, [t.name for t in ts]))
    rating_rows, history = [], []
    for name, rs, options, names in scopes:
        table = rating_table(store.board_pair_results(ruleset=rs, tournaments=names))
        if table is None:
            continue
        scope = {"tournament": name, "ruleset": rs, "variant_options": _json.dumps(options, sort_keys=True)}
        field = field_scores(store, ruleset=rs, tournaments=names)
        ranks = shared_ranks(table)
        for k, i in enumerate(table.order):
            r = table.fit.ratings[i]
            f = field.get(r.name)
            d = table.diff_next[k] or (None, None, None)
            rating_rows.append({
                **scope, "rank": ranks[k], "entrant": r.name, "group": r.group + 1, "elo": num(r.elo),
                "ci_low": num(r.ci_low), "ci_high": num(r.ci_high), "bound": r.bound, "board_pairs": r.games,
                "wins": r.wins, "draws": r.draws, "losses": r.losses, "score": num(r.score),
                "los_next": num(table.los_next[k]),
                "diff_next": num(d[0]), "diff_next_low": num(d[1]), "diff_next_high": num(d[2]),
                "butler": None if f is None else num(f.butler),
                "butler_low": None if f is None else num(f.butler_low),
                "butler_high": None if f is None else num(f.butler_high),
                "matchpoints": None if f is None else num(f.matchpoints)})
        for p in rating_history(history_rows(store, ruleset=rs, tournaments=names)):
            history.append({**scope, "board_pairs_stored": p.board_pairs, "entrant": p.entrant,
                            "elo": num(p.elo), "ci_low": num(p.ci_low), "ci_high": num(p.ci_high),
                            "board_pairs": p.games})
    scope_fields = [("tournament", pa.string()), ("ruleset", pa.string()), ("variant_options", pa.string())]
    f64 = pa.float64()
    schemas = {
        "ratings": pa.schema(scope_fields + [
            ("rank", pa.int64()), ("entrant", pa.string()), ("group", pa.int64()), ("elo", f64),
            ("ci_low", f64), ("ci_high", f64), ("bound", pa.string()), ("board_pairs", pa.int64()),
            ("wins", pa.int64()), ("draws", pa.int64()), ("losses", pa.int64()), ("score", f64),
            ("los_next", f64), ("diff_next", f64), ("diff_next_low", f64), ("diff_next_high", f64),
            ("butler", f64), ("butler_low", f64), ("butler_high", f64), ("matchpoints", f64)]),
        "rating_history": pa.schema(scope_fields + [
            ("board_pairs_stored", pa.int64()), ("entrant", pa.string()), ("elo", f64), ("ci_low", f64),
            ("ci_high", f64), ("board_pairs", pa.int64())]),
    }
    paths = []
    for name, data in (("ratings", rating_rows), ("rating_history", history)):
        arrow = pa.Table.from_pylist(data, schema=schemas[name])
        path = Path(out_dir) / f"{name}.{fmt}"
        literal = str(path).replace("'", "''")
        store.con.register("_derived", arrow)
        try:
            store.con.execute(f"COPY (FROM _derived) TO '{literal}' "
                              f"({'FORMAT parquet' if fmt == 'parquet' else 'FORMAT json'})")
        finally:
            store.con.unregister("_derived")
        paths.append(path)
    return paths
