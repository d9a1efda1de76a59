"""Arena throughput: board pairs per second on each executor, ratios taken within one run.

Run: ``python bench/arena_bench.py [--field random3|samples] [--boards N] [--modes threads:1/seq,processes:1,processes:3]``

Each mode plays the same tournament (same seed, fresh database) from scratch:

* ``threads:N`` — N threads of the arena's process, one unit (match) each;
* ``processes:N`` — N worker processes (``--workers 2N``: two tables each);
* ``dask:N`` — a local Dask cluster of N worker processes (``--cluster local:N``);
* a ``/seq`` suffix plays a board's two tables one after the other instead of at
  once: ``threads:1/seq`` is ``--workers 1``.

The release before this one is measured by running this script of its own checkout
(``git worktree add /tmp/rel REV``) with ``--modes threads:1`` right after.

Fields: ``random3`` — three copies of ``sample_bots/random`` (the trivial bots of
issue 12: 3 pairs; the default, 150 boards per pair = 450 board pairs); ``samples`` —
random, greedy and heuristic (``make run``'s field).

Printed per mode: board pairs per second, the ratio to the first mode, CPU
milliseconds per board pair of the whole machine while the mode ran (``/proc/stat``:
the arena, workers and sandboxed bots, whose time never reaches this process's
``getrusage``; anything else running counts too, so run it on a quiet machine), and
the share of the run spent writing to DuckDB. Every mode must store the same rows
(checked): results never depend on the executor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from arena import tournament  # noqa: E402
from arena.executors import ProcessExecutor, ThreadExecutor  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.submit import submit  # noqa: E402
from referee.rules import get_ruleset  # noqa: E402

SEED = 1


def field(kind: str, tmp: Path) -> list[Path]:
    if kind == "samples":
        return [ROOT / "sample_bots" / b for b in ("random", "greedy", "heuristic")]
    out = []
    for name in ("random-a", "random-b", "random-c"):
        dst = tmp / "src" / name
        shutil.copytree(ROOT / "sample_bots" / "random", dst, ignore=shutil.ignore_patterns("__pycache__"))
        toml = dst / "bot.toml"
        toml.write_text(toml.read_text().replace('name = "random"', f'name = "{name}"', 1))
        out.append(dst)
    return out


def executor_for(mode: str):
    kind, n = mode.removesuffix("/seq").split(":")
    n, concurrent = int(n), not mode.endswith("/seq")
    if kind == "threads":
        return ThreadExecutor(n, concurrent_tables=concurrent)
    if kind == "processes":
        return ProcessExecutor(n, concurrent_tables=concurrent)
    if kind == "dask":
        from arena.cluster import DaskExecutor

        return DaskExecutor(f"local:{n}")
    raise SystemExit(f"unknown mode {mode!r}: threads:N, processes:N or dask:N")


def cpu_now() -> float:
    """Busy CPU seconds of the whole machine so far (every core: user, nice, system, irq, softirq, steal)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]  # less idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


def run_once(mode: str, bots: list[Path], boards: int, tmp: Path) -> tuple[float, int, float, float, list]:
    folder = tmp / mode.replace(":", "-").replace("/", "-")
    folder.mkdir()
    db = folder / "a.duckdb"
    store = Store.open(db)
    rs = get_ruleset("classic")
    store.create_tournament("bench", rs.name, rs.options(), SEED, boards)
    for bot in bots:
        submit(store, bot, store_root=folder / "bots", tournament="bench")
    write_s = 0.0
    original = store.write_board_pairs

    def timed(*args, **kwargs):
        nonlocal write_s
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            write_s += time.perf_counter() - t0

    store.write_board_pairs = timed
    executor = executor_for(mode)
    c0, t0 = cpu_now(), time.perf_counter()
    summary = tournament.run(store, "bench", executor=executor)
    wall, cpu = time.perf_counter() - t0, cpu_now() - c0
    assert not summary.errors, summary.errors
    store.close()
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT match_id, board, points_a, points_b, forfeit_a, forfeit_b FROM board_pairs "
                           "ORDER BY ALL").fetchall()
    return wall, summary.played, write_s, cpu, rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--field", choices=["random3", "samples"], default="random3")
    p.add_argument("--boards", type=int, default=150, help="boards per pair (default 150)")
    p.add_argument("--modes", default="threads:1/seq,processes:1,processes:3",
                   help="comma-separated: threads:N, processes:N, dask:N, each with an optional /seq")
    args = p.parse_args()
    modes = args.modes.split(",")
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"field {args.field}, classic, {args.boards} boards per pair, seed {SEED}")
    print("| mode | board pairs | wall s | board pairs/s | × first | machine CPU ms per board pair | DuckDB writes |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    first = reference = None
    with tempfile.TemporaryDirectory(prefix="belote-arenabench-") as tmp:
        bots = field(args.field, Path(tmp))
        for mode in modes:
            wall, played, write_s, cpu, rows = run_once(mode, bots, args.boards, Path(tmp))
            rate = played / wall
            first = first or rate
            if reference is None:
                reference = rows
            same = "" if rows == reference else "  RESULTS DIFFER"
            print(f"| {mode} | {played} | {wall:.1f} | {rate:.1f} | {rate / first:.2f} | "
                  f"{cpu * 1000 / max(1, played):.0f} | {write_s / wall:.1%} |{same}", flush=True)
            if same:
                raise SystemExit("results differ between executors")


if __name__ == "__main__":
    main()
