"""Arena throughput: board pairs per second on each executor, ratios taken within one run.

Run: ``python bench/arena_bench.py [--field random4|random3|samples] [--boards N]
[--modes workers:1,workers:2,workers:2@c41cd7c,exclusive:2,dask:2]``

Each mode plays the same tournament (same seed, fresh database) from scratch:

* ``workers:N`` — ``--workers N`` (1: a thread of the arena's process; N ≥ 2: N worker
  processes, one table each, as many at once as matches with no entrant in common);
* ``exclusive:N`` — ``--workers N --exclusive-boards`` (one table at a time: finals);
* ``dask:N`` — a local Dask cluster of N worker processes (``--cluster local:N``);
* an ``@REV`` suffix plays the mode with the code of git revision REV (checked out in a
  temporary worktree, run in a process of its own with that checkout first on
  ``sys.path``; ``--workers N`` as that release read it): the baseline of a change,
  measured in the same run.

Fields: ``random4`` — four copies of ``sample_bots/random`` (6 pairs; issue 19's field,
the default); ``random3`` — three copies (issue 12's); ``samples`` — random, greedy and
heuristic (``make run``'s field).

Printed per mode: board pairs per second, the ratio to the first mode, CPU
milliseconds per board pair of the whole machine while the mode ran (``/proc/stat``:
the arena, workers and sandboxed bots, whose time never reaches this process's
``getrusage``; anything else running counts too, so run it on a quiet machine), and
the share of the run spent writing to DuckDB. Every mode must store the same rows
(checked): results never depend on the executor, nor on the release when no bot faults.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402


SEED = 1


def field(kind: str, tmp: Path) -> list[Path]:
    if kind == "samples":
        return [ROOT / "sample_bots" / b for b in ("random", "greedy", "heuristic")]
    out = []
    for name in ("random-a", "random-b", "random-c", "random-d")[: int(kind.removeprefix("random"))]:
        dst = tmp / "src" / name
        shutil.copytree(ROOT / "sample_bots" / "random", dst, ignore=shutil.ignore_patterns("__pycache__"))
        toml = dst / "bot.toml"
        toml.write_text(toml.read_text().replace('name = "random"', f'name = "{name}"', 1))
        out.append(dst)
    return out


def cpu_now() -> float:
    """Busy CPU seconds of the whole machine so far (every core: user, nice, system, irq, softirq, steal)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]  # less idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


#: Run in a process of its own (``python -c``), with the checkout under test first on sys.path
#: and as its working folder: enters the bots in a fresh database with that checkout's own
#: store and submission (its schema), plays the tournament and prints JSON.  Arguments:
#: kind, workers, database, boards per pair, seed, the bots' folders.
_ONE = """
import importlib, json, os, sys, time
from pathlib import Path
# the package's layout of the checkout under test (arena/play/ since the re-lay; flat before)
flat = not os.path.isdir(os.path.join("arena", "play"))
tournament = importlib.import_module("arena.tournament" if flat else "arena.play.tournament")
submit = importlib.import_module("arena.submit" if flat else "arena.play.submit").submit
Store = importlib.import_module("arena.store").Store
from referee.rules import get_ruleset
kind, n, db, boards, seed, bots = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:]
store = Store.open(db)
rs = get_ruleset("classic")
store.create_tournament("bench", rs.name, rs.options(), seed, boards)
for bot in bots:
    submit(store, bot, store_root=db.parent / "bots", tournament="bench")
write_s = 0.0
original = store.write_board_pairs
def timed(*args, **kwargs):
    global write_s
    t0 = time.perf_counter()
    try:
        return original(*args, **kwargs)
    finally:
        write_s += time.perf_counter() - t0
store.write_board_pairs = timed
kw = {}
if kind == "dask":
    DaskExecutor = importlib.import_module("arena.cluster" if flat else "arena.play.cluster").DaskExecutor
    kw["executor"] = DaskExecutor(f"local:{n}")
elif kind == "exclusive":
    kw["exclusive_boards"] = True
t0 = time.perf_counter()
summary = tournament.run(store, "bench", workers=n, **kw)
wall = time.perf_counter() - t0
assert not summary.errors, summary.errors
store.close()
print(json.dumps({"wall": wall, "played": summary.played, "write_s": write_s}))
"""


def run_once(mode: str, bots: list[Path], boards: int, tmp: Path) -> tuple[float, int, float, float, list]:
    spec, _, rev = mode.partition("@")
    kind, n = spec.split(":")
    folder = Path(tempfile.mkdtemp(prefix=mode.replace(":", "-").replace("@", "-") + "-", dir=tmp))
    db = folder / "a.duckdb"
    code = ROOT
    if rev:
        code = tmp / f"rev-{rev}"
        if not code.exists():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(code), rev], check=True)
    env = dict(os.environ, PYTHONPATH=str(code))
    # the image this process made (for the bots' submission) shows this checkout's files: a
    # revision's arena makes its own (inherited, every bot of an @REV mode failed to start,
    # its sample_bots missing from the image: every board forfeited, caught by the rows' check)
    env.pop("BELOTE_ARENA_IMAGE", None)
    c0 = cpu_now()  # the bots' check at submission counts too: it is the same for every mode
    done = subprocess.run([sys.executable, "-c", _ONE, kind, n, str(db), str(boards), str(SEED), *map(str, bots)],
                          cwd=code, env=env,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"mode {mode} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    out = done.stdout
    cpu = cpu_now() - c0
    r = json.loads(out.strip().splitlines()[-1])
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT match_id, board, points_a, points_b, forfeit_a, forfeit_b FROM board_pairs "
                           "ORDER BY ALL").fetchall()
    return r["wall"], r["played"], r["write_s"], cpu, rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--field", choices=["random4", "random3", "samples"], default="random4")
    p.add_argument("--boards", type=int, default=150, help="boards per pair (default 150)")
    p.add_argument("--modes", default="workers:2@c41cd7c,workers:2,workers:1,exclusive:2",
                   help="comma-separated: workers:N, exclusive:N, dask:N, each with an optional @REV")
    p.add_argument("--rounds", type=int, default=1,
                   help="play the modes this many times, in turn (the machine's load drifts: compare within a round)")
    args = p.parse_args()
    modes = args.modes.split(",") * args.rounds
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"field {args.field}, classic, {args.boards} boards per pair, seed {SEED}")
    print("| mode | board pairs | wall s | board pairs/s | × first | machine CPU ms per board pair | DuckDB writes |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    first = reference = None
    with tempfile.TemporaryDirectory(prefix="belote-arenabench-") as tmp:
        try:
            bots = field(args.field, Path(tmp))
            for i, mode in enumerate(modes):
                wall, played, write_s, cpu, rows = run_once(mode, bots, args.boards, Path(tmp))
                rate = played / wall
                if i % (len(modes) // args.rounds) == 0:
                    first = rate  # the ratio is to the round's first mode
                if reference is None:
                    reference = rows
                same = "" if rows == reference else "  RESULTS DIFFER"
                print(f"| {mode} | {played} | {wall:.1f} | {rate:.1f} | {rate / first:.2f} | "
                      f"{cpu * 1000 / max(1, played):.0f} | {write_s / wall:.1%} |{same}", flush=True)
                if same:
                    raise SystemExit("results differ between modes")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], check=False)


if __name__ == "__main__":
    main()
