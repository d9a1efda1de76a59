"""How long a large competition takes on 1, 2, 8 and 64 cores (or machines): a model fed by
costs measured here, checked against a real run of a smaller field.

Run: ``python bench/scale_sim.py [--boards 40] [--entrants 50] [--field-boards 100]``.

Measured in this run (``sample_bots/random``, the cheapest bot; classic):

* ``w_bp`` — wall seconds per board pair of one unit playing alone, its board's two
  tables at once (``--workers 2``: one worker process);
* ``c_bp`` — CPU seconds per board pair, every process together (the machine's busy time,
  ``/proc/stat``: referee, bots, writer; run it on a quiet machine);
* ``s_wall``, ``s_cpu`` — starting one unit's 8 bot processes (all at once, as a unit
  starts them before its first board);
* ``c_write`` — the one writer's seconds per board pair (DuckDB batch writes).

Model, for ``N`` board pairs in ``U`` units on ``C`` cores with ``W`` units at once (worker
processes of two tables each, ``--workers 2W``, or Dask workers on C one-core machines)::

    T = max( (N·c_bp + U·s_cpu) / C,            # every core busy
             ceil(U / W) · (s_wall + N/U · w_bp),  # units one after another on each worker
             N · c_write )                       # the single writer

(the first bound is the machine's, the second the latency of bot calls made one after
another, the third the arena's).  A unit is a match (:func:`arena.play.tournament.units`).
The check: the model's T for the measuring field (3 entrants, ``--boards`` boards per pair)
on this machine with ``--workers 4`` (W = 2), against a real run of it.  Then the model's T
for ``--entrants`` × ``--field-boards`` (default 50 × 100 = 122,500 board pairs) with W = C
and W = 2C (more units than cores hide the latency of the calls).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import arena_bench  # noqa: E402

from belote_arena_sdk.proto import bot_pb2 as pb  # noqa: E402
from referee.botproc import BotClient  # noqa: E402
from referee.manifest import load_manifest  # noqa: E402


def bot_start(n: int = 8) -> tuple[float, float]:
    """(wall, CPU) seconds to start ``n`` random bots at once, as a unit does."""
    manifest = load_manifest(ROOT / "sample_bots" / "random")
    warm = BotClient(manifest, seed=99)  # the sandbox's probe and guardian: once per process, not per unit
    warm.start()
    warm.close()
    c0 = arena_bench.cpu_now()  # the machine's: sandboxed bots never reach getrusage
    t0 = time.perf_counter()

    def start(seat: int) -> BotClient:
        c = BotClient(manifest, seed=seat)
        c.start()
        c.start_match(pb.StartMatchRequest(match_id="sim", ruleset="classic", seat=seat % 4))
        return c

    with ThreadPoolExecutor(n) as threads:  # alive until the bots are closed (their death signal)
        clients = list(threads.map(start, range(n)))
        wall = time.perf_counter() - t0
        cpu = arena_bench.cpu_now() - c0
        for c in clients:
            c.close()
    return wall, cpu


def model(n_pairs: int, units: int, cores: int, workers: int, k: dict[str, float]) -> float:
    cpu = (n_pairs * k["c_bp"] + units * k["s_cpu"]) / cores
    latency = math.ceil(units / workers) * (k["s_wall"] + n_pairs / units * k["w_bp"])
    writer = n_pairs * k["c_write"]
    return max(cpu, latency, writer)


def units_of(entrants: int, boards: int, workers: int) -> int:
    matches = entrants * (entrants - 1) // 2
    return matches


def hms(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 120 else f"{s:.0f} s"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=40, help="boards per pair of the measuring field (3 entrants)")
    p.add_argument("--entrants", type=int, default=50)
    p.add_argument("--field-boards", type=int, default=100)
    args = p.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    s_wall, s_cpu = bot_start()
    with tempfile.TemporaryDirectory(prefix="belote-scalesim-") as tmp:
        bots = arena_bench.field("random3", Path(tmp))
        wall1, played1, write1, cpu1, _ = arena_bench.run_once("processes:1", bots, args.boards, Path(tmp))
        wall2, played2, _, _, _ = arena_bench.run_once("processes:2", bots, args.boards, Path(tmp))
    u1 = units_of(3, args.boards, 1)
    k = {
        "s_wall": s_wall, "s_cpu": s_cpu,
        "w_bp": (wall1 - u1 * s_wall) / played1,
        "c_bp": (cpu1 - u1 * s_cpu) / played1,
        "c_write": write1 / played1,
    }
    print(f"measured: w_bp {k['w_bp'] * 1000:.1f} ms, c_bp {k['c_bp'] * 1000:.1f} ms CPU, "
          f"unit start {s_wall:.2f} s wall / {s_cpu:.2f} s CPU (8 bots), writer {k['c_write'] * 1000:.2f} ms "
          "per board pair")
    u2 = units_of(3, args.boards, 2)
    predicted = model(played2, u2, min(2, os.cpu_count() or 1), 2, k)
    print(f"check, 3 entrants × {args.boards} boards, --workers 4 on this machine: model {predicted:.1f} s, "
          f"real {wall2:.1f} s ({predicted / wall2:.2f}×)")
    n = args.entrants * (args.entrants - 1) // 2 * args.field_boards
    print(f"\n{args.entrants} entrants × {args.field_boards} boards = {n:,} board pairs:")
    print("| cores (or one-core machines) | units at once (--workers 2×) | units | model time | bound |")
    print("|---:|---:|---:|---:|---|")
    for cores in (1, 2, 8, 64):
        for workers in sorted({cores, 2 * cores}):
            u = units_of(args.entrants, args.field_boards, workers)
            t = model(n, u, cores, workers, k)
            bounds = {"cores": (n * k["c_bp"] + u * k["s_cpu"]) / cores,
                      "call latency": math.ceil(u / workers) * (k["s_wall"] + n / u * k["w_bp"]),
                      "writer": n * k["c_write"]}
            print(f"| {cores} | {workers} | {u:,} | {hms(t)} | {max(bounds, key=bounds.get)} |")


if __name__ == "__main__":
    main()
