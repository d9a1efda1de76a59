"""What a large file in a bot's folder costs (issue 19 item 6): hashing, and a whole tournament.

Run: ``python bench/submit_bench.py [--mib 1000] [--boards 8] [--tree DIR]``.

1. **Hashing**: :func:`referee.manifest.content_hash` of ``sample_bots/random`` with and
   without a ``--mib`` MiB file of random bytes (written once, so read from the page cache),
   each in a fresh interpreter: its peak resident memory (``ru_maxrss``) and MiB/s.
2. **A tournament**: ``arena tournament run`` (submitting both bots: hash, frozen copy, hash
   of the copy, conformance check; then one match of ``--boards`` boards, 8 bot starts per
   match) of a copy of ``random`` against another, with and without the big file in the
   first: the arena process's peak RSS (``wait4``; bots are other processes) and wall time.

``--tree DIR`` runs the code of another checkout (``git archive REV | tar -x -C DIR``)
through ``PYTHONPATH``, for a before/after comparison with the same interpreter.
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

_HASH = """
import resource, sys, time
from pathlib import Path
from referee.manifest import content_hash
t = time.perf_counter()
content_hash(Path(sys.argv[1]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, time.perf_counter() - t)
"""


def copy_of(src: Path, dst: Path, name: str) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    toml = dst / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "random"', f'name = "{name}"', 1))
    return dst


def peak_of(cmd: list[str], tree: Path) -> tuple[float, float, bytes]:
    """(peak RSS MiB of the process, wall seconds, stdout)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[3:6])} failed ({p.returncode}): {err.decode(errors='replace')[-2000:]}")
    return usage.ru_maxrss / 1024, wall, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=1000, help="size of the big file, MiB (default 1000)")
    ap.add_argument("--boards", type=int, default=8, help="boards of the match (default 8)")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose code runs (default this one)")
    args = ap.parse_args()
    tree = args.tree.resolve()
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"code: {tree}")
    with tempfile.TemporaryDirectory(prefix="belote-submitbench-") as tmp:
        tmp = Path(tmp)
        small = copy_of(ROOT / "sample_bots" / "random", tmp / "small", "random-a")
        big = copy_of(ROOT / "sample_bots" / "random", tmp / "big", "random-a")
        with open(big / "weights.bin", "wb") as f:
            for _ in range(args.mib):
                f.write(os.urandom(1 << 20))
        other = copy_of(ROOT / "sample_bots" / "random", tmp / "other", "random-b")
        print("| content_hash of random | peak RSS, MiB | seconds | MiB/s |")
        print("|---|---:|---:|---:|")
        for label, folder in (("alone", small), (f"+ {args.mib} MiB file", big)):
            mib, _, out = peak_of([sys.executable, "-c", _HASH, str(folder)], tree)
            seconds = float(out.split()[1])
            rate = f"{args.mib / seconds:,.0f}" if folder is big else "—"
            print(f"| {label} | {mib:.0f} | {seconds:.2f} | {rate} |", flush=True)
        print()
        print(f"| arena tournament run, {args.boards} boards | peak RSS of the arena, MiB | wall s |")
        print("|---|---:|---:|")
        for label, folder in (("alone", small), (f"+ {args.mib} MiB file", big)):
            db = tmp / f"{folder.name}.duckdb"
            cmd = [sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run", "m",
                   "--bots", str(folder), "--bots", str(other), "--boards", str(args.boards), "--seed", "1",
                   "--db", str(db)]
            mib, wall, _ = peak_of(cmd, tree)
            print(f"| {label} | {mib:.0f} | {wall:.1f} |", flush=True)
            subprocess.run(["chmod", "-R", "u+w", str(tmp / "bots")], check=False)  # read-only copies
            shutil.rmtree(tmp / "bots", ignore_errors=True)


if __name__ == "__main__":
    main()
