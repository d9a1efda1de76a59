"""Peak memory of ``arena tournament run`` against the length of a match (issue 14 item 3).

Run: ``python bench/memory_bench.py [--boards 100,10000] [--workers 1]``.

For each board count, a fresh database and one match (``sample_bots/random`` against a
copy of itself, the cheapest bots), played by ``arena tournament run`` in a process of
its own; its peak resident memory (``ru_maxrss`` from ``wait4``: the arena's own, bots
excluded — they are other processes, in sessions of their own) is printed with the ratio
to the first count. Target: the 10,000-board match within 10% of the 100-board one.
10,000 boards of random take about 8 minutes on a quiet 2-core machine; for a short check
use ``--boards 50,500``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_of(src: Path, dst: Path, name: str) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    toml = dst / "bot.toml"
    text = toml.read_text()
    toml.write_text(text.replace('name = "random"', f'name = "{name}"', 1))
    return dst


def peak_mib(boards: int, workers: int, tmp: Path) -> tuple[float, float]:
    """(peak RSS MiB of the arena process, wall seconds) of one match of ``boards`` boards."""
    folder = tmp / f"b{boards}"
    folder.mkdir()
    a = copy_of(ROOT / "sample_bots" / "random", folder / "ra", "random-a")
    b = copy_of(ROOT / "sample_bots" / "random", folder / "rb", "random-b")
    cmd = [sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run", "m", "--bots", str(a),
           "--bots", str(b), "--boards", str(boards), "--seed", "1", "--workers", str(workers),
           "--db", str(folder / "a.duckdb")]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=False)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"arena failed ({status}): {p.stderr.read().decode(errors='replace')[-2000:]}")
    p.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="100,10000", help="comma-separated board counts (default 100,10000)")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    counts = [int(x) for x in args.boards.split(",")]
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"| boards in the match | peak RSS of the arena, MiB | × first | wall s |")
    print(f"|---:|---:|---:|---:|")
    first = None
    with tempfile.TemporaryDirectory(prefix="belote-membench-") as tmp:
        for n in counts:
            mib, wall = peak_mib(n, args.workers, Path(tmp))
            first = first or mib
            print(f"| {n:,} | {mib:.0f} | {mib / first:.2f} | {wall:.0f} |", flush=True)


if __name__ == "__main__":
    main()
