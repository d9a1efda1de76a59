"""Strength and speed of ``sample_bots/expert`` (issue 23 item 2): duplicate matches in the sandbox.

Pairs: expert vs heuristic, and, with ``--colver DIR``, expert vs the colver-dd anchor
(``../shared/anchors/colver-dd`` set up in DIR as its README says; it stays out of the
repository). Each pair plays in tournaments of its own (one DuckDB file per pair, so the
pairs play at once, each at its own pace: a tournament plays one match at a time), in
chunks of ``--chunk`` boards with seeds ``--seed``, ``--seed + 1``, …, until ``--minutes``
of wall time have passed; only finished chunks count (each chunk starts with the arena's
bot check, ~2 minutes here). Classic, the default sandbox and deadline (1000 ms).

Figures: per pair, board pairs played, the first bot's mean duplicate margin per board
(RULES.md §8: its points at both tables minus the other's) with a 95% interval (normal
approximation, the boards' standard error), its W-D-L and the faults; per bot, the wall time
of its decisions as the referee measured it (every call with ms > 0: median, p90, p99, max).

Run: ``python bench/expert_bench.py [--minutes 40] [--chunk 30] [--colver DIR] [--append]``;
``--append`` adds the table to bench/RESULTS.md. ``--report-only`` reads the files of an
earlier run (``--dir``) and prints its table.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.store import ReadStore  # noqa: E402

ARENA = str(Path(sys.executable).with_name("arena"))


def run_chunks(pairs: dict[str, tuple[str, str]], folder: Path, args) -> None:
    """Play chunk after chunk of each pair, the pairs at once and each at its own pace, until the
    time is up (a chunk under way finishes)."""
    end = time.monotonic() + args.minutes * 60

    def loop(key: str, a: str, b: str) -> None:
        chunk = args.first_chunk
        while time.monotonic() < end:
            with open(folder / f"{key}-{chunk}.log", "w") as log:
                cmd = [ARENA, "tournament", "run", f"{key}-{chunk}", "--bots", a, "--bots", b, "--boards",
                       str(args.chunk), "--seed", str(args.seed + chunk), "--workers", "1",
                       "--db", str(folder / f"{key}.duckdb")]
                done = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, check=False)
            if done.returncode != 0:  # e.g. the database held by another arena: the same chunk again, later
                time.sleep(15)
                continue
            chunk += 1
            print(f"{key}: chunk {chunk} done at {datetime.now(timezone.utc):%H:%M:%S}", flush=True)

    threads = [threading.Thread(target=loop, args=(key, a, b)) for key, (a, b) in pairs.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def pair_figures(db: Path) -> tuple[dict, dict[str, list[float]]]:
    """(the pair's margins and counts from the first entrant's view, decision ms per bot name)."""
    store = ReadStore.open(db, read_only=True)
    con = store.con
    rows = con.execute("""
        SELECT m.entrant_a, m.entrant_b, p.margin, p.forfeit_a OR p.forfeit_b
        FROM board_pairs p JOIN matches m USING (match_id)""").fetchall()
    faults = con.execute("SELECT count(*) FROM faults").fetchone()[0]
    times: dict[str, list[float]] = {}
    for entrant, ms in con.execute("""
            SELECT CASE WHEN (a.table_no = 1) = (a.seat % 2 = 0) THEN m.entrant_a ELSE m.entrant_b END, a.ms
            FROM actions a JOIN matches m USING (match_id) WHERE a.ms > 0
            UNION ALL
            SELECT CASE WHEN (c.table_no = 1) = (c.seat % 2 = 0) THEN m.entrant_a ELSE m.entrant_b END, c.ms
            FROM contree_calls c JOIN matches m USING (match_id) WHERE c.ms > 0""").fetchall():
        times.setdefault(entrant.split("@")[0], []).append(ms)
    store.close()
    if not rows:
        return {}, times
    a, b = rows[0][0].split("@")[0], rows[0][1].split("@")[0]
    margins = [r[2] if r[0].split("@")[0] == a else -r[2] for r in rows]
    n = len(margins)
    mean = statistics.fmean(margins)
    se = statistics.stdev(margins) / math.sqrt(n) if n > 1 else float("nan")
    wins = sum(m > 0 for m in margins)
    draws = sum(m == 0 for m in margins)
    return {"a": a, "b": b, "boards": n, "mean": mean, "lo": mean - 1.96 * se, "hi": mean + 1.96 * se,
            "wdl": (wins, draws, n - wins - draws), "faults": faults,
            "forfeits": sum(bool(r[3]) for r in rows)}, times


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def table(folder: Path, pairs: list[str], minutes: float, load: str) -> str:
    lines = [f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {minutes:g} min of wall time, load {load}, "
             "classic, sandbox, 1000 ms deadline.", "",
             "| pair (first bot's view) | boards | mean duplicate margin per board | 95% interval | W-D-L | faults |",
             "|---|---:|---:|---|---|---:|"]
    all_times: dict[str, list[float]] = {}
    for key in pairs:
        db = folder / f"{key}.duckdb"
        if not db.exists():
            continue
        f, times = pair_figures(db)
        for name, ms in times.items():
            all_times.setdefault(name, []).extend(ms)
        if f:
            lines.append(f"| {f['a']} vs {f['b']} | {f['boards']} | {f['mean']:+.1f} | [{f['lo']:+.1f}, {f['hi']:+.1f}] "
                         f"| {'-'.join(map(str, f['wdl']))} | {f['faults']} |")
    lines += ["", "| bot | decisions | median ms | p90 | p99 | max |", "|---|---:|---:|---:|---:|---:|"]
    for name, ms in sorted(all_times.items()):
        lines.append(f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {quantile(ms, 0.9):.1f} | "
                     f"{quantile(ms, 0.99):.1f} | {max(ms):.1f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=40.0)
    ap.add_argument("--chunk", type=int, default=30, help="boards per tournament of a pair")
    ap.add_argument("--seed", type=int, default=2300)
    ap.add_argument("--first-chunk", type=int, default=0, help="number the chunks from here (to add to a --dir)")
    ap.add_argument("--colver", type=Path, help="the colver-dd anchor's folder, set up (not in the repository)")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/expert-bench"))
    ap.add_argument("--expert", default="sample_bots/expert",
                    help="the expert bot's folder (a copy keeps a long run on one version while the tree changes)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--play", nargs="*", help="play only these pairs (expert-heuristic, expert-colver); report all")
    ap.add_argument("--append", action="store_true", help="add the table to bench/RESULTS.md")
    args = ap.parse_args()
    pairs = {"expert-heuristic": (args.expert, "sample_bots/heuristic")}
    if args.colver:
        pairs["expert-colver"] = (args.expert, str(args.colver))
    args.dir.mkdir(parents=True, exist_ok=True)
    load = f"{os.getloadavg()[0]:.1f}"
    if not args.report_only:
        run_chunks({k: v for k, v in pairs.items() if not args.play or k in args.play}, args.dir, args)
        load += f"–{os.getloadavg()[0]:.1f}"
    text = table(args.dir, list(pairs), args.minutes, load)
    print(text)
    if args.append:
        with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write("\n## The expert bot — `bench/expert_bench.py` (issue 23 item 2)\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
