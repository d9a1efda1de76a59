"""The rating charts of the web view: a bot's rating over a tournament's stored board pairs
and over tournaments, as SVG polylines with their 95% band (server-drawn, no script)."""

from __future__ import annotations

import math

from ..report.tables import history_rows, json_number, rating_history as history_of
from ..store import Store

__all__ = ["HISTORY_POINTS", "rating_history", "ratings_chart"]


#: Points of a rating history (standings after this many writes, evenly spread).
HISTORY_POINTS = 12


def rating_history(store: Store, tournament: str, entrant: str, points: int = HISTORY_POINTS) -> dict:
    """How an entrant's rating settled in a tournament: its Elo and 95% interval after each
    of ``points`` equal slices of the stored board pairs (:func:`arena.report.tables.rating_history`,
    what ``arena ratings --history`` prints), the last being every board pair.

    Returns:
        ``{"tournament", "entrant", "points": [{"board_pairs", "elo", "ci_low", "ci_high",
        "boards"}], "chart": {...}}``: ``board_pairs`` stored in the tournament by then;
        ``chart`` the SVG geometry of the series (``line``: polyline points, ``band``:
        polygon points of the interval, in a 300×80 box; an open end is drawn at the Elo).
    """
    num = json_number
    out = [{"board_pairs": p.board_pairs, "elo": num(p.elo), "ci_low": num(p.ci_low), "ci_high": num(p.ci_high),
            "boards": p.games}
           for p in history_of(history_rows(store, tournament=tournament), entrant, points)]
    return {"tournament": tournament, "entrant": entrant, "points": out, "chart": _chart(out)}


#: Elo steps between the y axis' ticks of :func:`ratings_chart`, the first that gives ≤ 6 ticks.
_STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)


def ratings_chart(ratings: list[dict], width: float = 640.0, height: float = 240.0) -> dict | None:
    """One chart of a bot's rating over time: its Elo and 95% interval in each tournament
    it was rated in (``bot()["ratings"]``, oldest first), with axes.

    Returns:
        ``None`` without a rated entry, else SVG geometry in a ``width`` × ``height`` box:
        ``plot`` (``left``, ``top``, ``right``, ``bottom`` of the plotting area), ``points``
        (``x``, ``y``, ``y_low``, ``y_high`` — an open end of a one-sided interval drawn
        to the plot's edge, ``open_low``/``open_high`` say so —, ``elo``, ``label``: the
        tournament and entrant), ``line`` (polyline points), ``yticks`` and ``xticks``
        (``{"at", "label"}``: round Elo values; each entry's tournament, and ``sub``: its
        creation date and time, UTC, so that entries of one day are told apart).
    """
    rated = [r for r in ratings if r.get("elo") is not None]
    if not rated:
        return None
    left, top, right, bottom = 56.0, 12.0, width - 16.0, height - 44.0
    values = [v for r in rated for v in (r["elo"], r["ci_low"], r["ci_high"]) if v is not None]
    lo, hi = min(values), max(values)
    step = next((s for s in _STEPS if (hi - lo) / s <= 5), _STEPS[-1])
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    if hi <= lo:
        lo, hi = lo - step, hi + step

    def y(v: float) -> float:
        return round(bottom - (bottom - top) * (v - lo) / (hi - lo), 1)

    n = len(rated)

    def x(k: int) -> float:
        return round(left + (right - left) * (k + 0.5) / n, 1)

    points = [{"x": x(k), "y": y(r["elo"]), "elo": r["elo"],
               "y_low": bottom if r["ci_low"] is None else y(r["ci_low"]),
               "y_high": top if r["ci_high"] is None else y(r["ci_high"]),
               "open_low": r["ci_low"] is None, "open_high": r["ci_high"] is None,
               "label": f"{r['entrant']} in {r['tournament']}"} for k, r in enumerate(rated)]
    ticks = int(round((hi - lo) / step))
    return {"width": width, "height": height, "plot": {"left": left, "top": top, "right": right, "bottom": bottom},
            "points": points, "line": " ".join(f"{p['x']},{p['y']}" for p in points),
            "yticks": [{"at": y(lo + i * step), "label": f"{lo + i * step:.0f}"} for i in range(ticks + 1)],
            "xticks": [{"at": x(k), "label": _cut(r["tournament"], 14), "sub": r["created_at"][:16].replace("T", " ")}
                       for k, r in enumerate(rated)]}


def _cut(text: str, keep: int) -> str:
    """``text`` cut to ``keep`` characters with "…" (a chart's tick label)."""
    return text if len(text) <= keep else text[:keep - 1] + "…"


def _chart(points: list[dict], width: float = 300.0, height: float = 80.0) -> dict | None:
    """SVG geometry of a rating series: x by board pairs stored, y by Elo (top = high)."""
    if not points:
        return None
    lo = min(p["elo"] if p["ci_low"] is None else p["ci_low"] for p in points)
    hi = max(p["elo"] if p["ci_high"] is None else p["ci_high"] for p in points)
    n0, n1 = points[0]["board_pairs"], points[-1]["board_pairs"]

    def x(p: dict) -> float:
        return round(width * (p["board_pairs"] - n0) / (n1 - n0), 1) if n1 > n0 else width / 2

    def y(v: float) -> float:
        return round(height - height * (v - lo) / (hi - lo), 1) if hi > lo else height / 2

    line = " ".join(f"{x(p)},{y(p['elo'])}" for p in points)
    band = " ".join([f"{x(p)},{y(p['elo'] if p['ci_high'] is None else p['ci_high'])}" for p in points]
                    + [f"{x(p)},{y(p['elo'] if p['ci_low'] is None else p['ci_low'])}" for p in reversed(points)])
    return {"width": width, "height": height, "line": line, "band": band, "lo": lo, "hi": hi}
