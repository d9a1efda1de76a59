"""The figures of a duplicate round robin from its DuckDB file, as bench/RESULTS.md reports them.

Per pair (the first entrant's view): boards, mean duplicate margin per board with its 95%
interval (normal approximation, 1.96 standard errors of the boards' margins), W-D-L by the
board's margin, faults. Per bot: decision times (the referee's wall time of every call with
ms > 0), all calls and the calls before the play (bids, schmeiss answers, named trumps,
declarations, contrée calls) apart; and its contracts: deals it took, the share made, and the
mean score margin of its team on the deals it took (RULES.md §6.2). Per third bot C and two others
A and B: on the boards both played against C (one seed deals the same boards to every match),
A's margin against C minus B's, with its 95% interval (paired by board).

Run (after the tournament, or on a copy of its file): ``python bench/rr_report.py DB [--tournament NAME]``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.store import ReadStore  # noqa: E402


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def report(db: Path, tournament: str | None) -> str:
    store = ReadStore.open(db, read_only=True)
    con = store.con
    where = "WHERE m.tournament = ?" if tournament else ""
    args = [tournament] if tournament else []
    out = ["| pair (first bot's view) | boards | mean duplicate margin per board | 95% interval | W-D-L | faults |",
           "|---|---:|---:|---|---|---:|"]
    pairs: dict[tuple[str, str], list[int]] = {}
    by_board: dict[tuple[str, str], dict[int, int]] = {}  # (A, B) -> board -> A's margin, both ways round
    for a, b, board, margin in con.execute(
            f"SELECT m.entrant_a, m.entrant_b, p.board, p.margin FROM board_pairs p JOIN matches m USING (match_id) {where}",
            args).fetchall():
        pairs.setdefault((a, b), []).append(margin)
        by_board.setdefault((a, b), {})[board] = margin
        by_board.setdefault((b, a), {})[board] = -margin
    faults: dict[str, int] = {}
    for mid, n in con.execute(f"SELECT f.match_id, count(*) FROM faults f JOIN matches m USING (match_id) {where} "
                              "GROUP BY f.match_id", args).fetchall():
        faults[mid] = n
    for (a, b), ms in pairs.items():
        n = len(ms)
        mean = statistics.fmean(ms)
        se = statistics.stdev(ms) / math.sqrt(n) if n > 1 else float("nan")
        w, d = sum(x > 0 for x in ms), sum(x == 0 for x in ms)
        nf = sum(v for k, v in faults.items() if k.endswith(f"{a}~{b}"))
        out.append(f"| {a.split('@')[0]} vs {b.split('@')[0]} | {n} | {mean:+.1f} | [{mean - 1.96 * se:+.1f}, "
                   f"{mean + 1.96 * se:+.1f}] | {w}-{d}-{n - w - d} | {nf} |")
    paired = []
    names = sorted({a for a, _ in by_board})
    for c in names:
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if c in (a, b) or (a, c) not in by_board or (b, c) not in by_board:
                    continue
                boards = sorted(by_board[a, c].keys() & by_board[b, c].keys())
                if len(boards) < 2:
                    continue
                d = [by_board[a, c][x] - by_board[b, c][x] for x in boards]
                mean, se = statistics.fmean(d), statistics.stdev(d) / math.sqrt(len(d))
                paired.append(f"| {a.split('@')[0]} − {b.split('@')[0]} | {c.split('@')[0]} | {len(d)} | {mean:+.1f} | "
                              f"[{mean - 1.96 * se:+.1f}, {mean + 1.96 * se:+.1f}] |")
    if paired:
        out += ["", "| margins against a third bot, paired by board: A − B | against | boards | mean per board | 95% interval |",
                "|---|---|---:|---:|---|"] + paired
    times: dict[str, list[float]] = {}
    before: dict[str, list[float]] = {}
    who = "CASE WHEN (x.table_no = 1) = (x.seat % 2 = 0) THEN m.entrant_a ELSE m.entrant_b END"
    for name, kind, ms in con.execute(f"""
            SELECT {who}, x.kind, x.ms FROM actions x JOIN matches m USING (match_id) {where}
            {'AND' if where else 'WHERE'} x.ms > 0
            UNION ALL
            SELECT {who}, 'call', x.ms FROM contree_calls x JOIN matches m USING (match_id) {where}
            {'AND' if where else 'WHERE'} x.ms > 0""", args + args).fetchall():
        name = name.split("@")[0]
        times.setdefault(name, []).append(ms)
        if kind != "card":
            before.setdefault(name, []).append(ms)
    out += ["", "| bot | decisions (ms > 0) | median ms | p90 | p99 | max | before the play: calls, median, p99, max |",
            "|---|---:|---:|---:|---:|---:|---|"]
    for name, ms in sorted(times.items()):
        b = before.get(name, [0.0])
        out.append(f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {quantile(ms, 0.9):.1f} | "
                   f"{quantile(ms, 0.99):.1f} | {max(ms):.1f} | {len(b)}, {statistics.median(b):.1f}, "
                   f"{quantile(b, 0.99):.1f}, {max(b):.1f} |")
    takes: dict[str, list[tuple[str, int]]] = {}
    deals: dict[str, int] = {}
    for ns, ew, taker, contract, sns, sew, seats in con.execute(f"""
            SELECT d.ns_entrant, d.ew_entrant, d.taker, d.contract, d.score_ns, d.score_ew, t.seats
            FROM deals d JOIN matches m USING (match_id)
            JOIN (SELECT name, CASE WHEN ruleset = 'two-player' THEN 2 ELSE 4 END AS seats FROM tournaments) t
              ON t.name = m.tournament {where}""", args).fetchall():
        for e in (ns, ew):
            deals[e.split("@")[0]] = deals.get(e.split("@")[0], 0) + 1
        if taker is None:
            continue
        team = taker % 2
        name = (ns if team == 0 else ew).split("@")[0]
        takes.setdefault(name, []).append((contract, (sns - sew) if team == 0 else (sew - sns)))
    store.close()
    out += ["", "| bot | deals played | deals it took | made | its team's mean margin on its takes |",
            "|---|---:|---:|---:|---:|"]
    for name, ts in sorted(takes.items()):
        made = sum(c == "made" for c, _ in ts)
        out.append(f"| {name} | {deals.get(name, 0)} | {len(ts)} | {100 * made / len(ts):.1f}% | "
                   f"{statistics.fmean(m for _, m in ts):+.1f} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", type=Path)
    ap.add_argument("--tournament")
    args = ap.parse_args()
    print(report(args.db, args.tournament))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
