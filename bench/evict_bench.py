"""The cost of clearing the CPU caches before each bot turn (``referee.evict``, issue 19), in one run.

Run: ``python bench/evict_bench.py [--boards N] [--rounds R]``.

A duplicate match of a copy of ``sample_bots/random`` under another name (a visitor: the
arena's own bots are thawed without a clearing, ``referee.evict.is_house``) against
itself (8 sandboxed bot processes, frozen between decisions) over ``--boards`` boards, with
the caches cleared before each thaw (``Limits(evict_caches=True)``, the default) and
without, alternating for ``--rounds`` rounds; then ``random`` itself, as shipped (no
clearing).  Printed: the match's wall time per bot call, its ratio to the match without
clearing of the same round, and one clearing's time (ms, timed in-process), with the buffer
each CPU's helper reads (``referee.evict.plan``).

``--sizes ROUNDS``: instead, how much of the L3 must be read to clear it on this machine:
``tests/referee/test_cache_evict.py``'s Flush+Reload (two sandboxes frozen in turn, 64 lines
a round) with no clearing, the private caches only, a quarter of the L3 and the whole plan,
sender and receiver on CPU 0, then on CPUs 1 and 0.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import evict, sandbox  # noqa: E402
from referee.manifest import load_manifest  # noqa: E402
from sandbox_bench import match_once  # noqa: E402 - bench/, beside this script


def visitor(tmp: Path):
    """``sample_bots/random`` renamed ``visitor``: the same code, not a house bot."""
    folder = tmp / "visitor"
    shutil.copytree(ROOT / "sample_bots" / "random", folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "random"', 'name = "visitor"'))
    return load_manifest(folder)


def sizes(rounds: int) -> None:
    """Flush+Reload through each clearing (see the module's docstring)."""
    sys.path.insert(0, str(ROOT))
    import tests.referee.test_cache_evict as fr

    plan = evict.plan()
    l3 = sum(s for _, s in plan.values())  # twice the L3, split between the CPUs sharing it
    first = min(plan)
    variants = {"none": None, "private": {c: (p, 0) for c, (p, _) in plan.items()},
                "L3/4": {c: (p, l3 // 4 if c == first else 0) for c, (p, _) in plan.items()},
                "2×L3 on one CPU": {c: (p, l3 if c == first else 0) for c, (p, _) in plan.items()},
                "plan (2×L3 split)": plan}
    code = Path(tempfile.mkdtemp()) / "code"
    code.mkdir(mode=0o755)
    code.parent.chmod(0o755)
    (code / "fr.c").write_text(fr.FR_C)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", code / "libfr.so", code / "fr.c"], check=True)
    # the test's probe asserts CPU 0: here each probe says the CPU it was started on
    (code / "probe.py").write_text(fr.PROBE.replace("os.sched_getaffinity(0) == {0}",
                                                    "os.sched_getaffinity(0) == {int(os.environ['CPU'])}"))
    (code / "pad.bin").write_bytes(os.urandom(fr.BITS * 4096))
    for f in code.iterdir():
        f.chmod(0o755 if f.suffix == ".so" else 0o644)

    def start(cpu):
        mine = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})  # inherited by the sandbox (a sandboxed process may not pin itself)
        try:
            box = sandbox.Sandboxed(code, ["/usr/bin/python3", "probe.py", str(fr.BITS)],
                                    {"PATH": "/usr/bin", "CPU": str(cpu)}, sandbox.Limits(), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        finally:
            os.sched_setaffinity(0, mine)
        threshold = int(box.process.stdout.readline())
        box.lock()
        return box, threshold

    print("| clearing | sender, receiver CPU | 1-bits read fast | 0-bits read fast | one clearing, ms |")
    print("|---|---|---:|---:|---:|")
    rng = random.Random(1)
    for cpus in ((0, 0), (1, 0)):
        for name, plan_ in variants.items():
            ev = evict.Evictor(plan_) if plan_ else None
            (sender, threshold), (receiver, _) = start(cpus[0]), start(cpus[1])
            fs, fr_ = sender.freezer(), receiver.freezer()
            fr_.freeze()
            counts, ms = [0, 0, 0, 0], []
            for _ in range(rounds):
                bits = [rng.getrandbits(1) for _ in range(fr.BITS)]
                fs.thaw()
                fr._ask(sender, "send " + "".join(map(str, bits)))
                fs.freeze()
                if ev:
                    ms.append(ev.evict() * 1000)
                fr_.thaw()
                times = list(map(int, fr._ask(receiver, "read").split()))
                fr_.freeze()
                for bit, t in zip(bits, times):
                    counts[0 if bit else 2] += t < threshold
                    counts[1 if bit else 3] += 1
            fs.release()
            fr_.release()
            for box in (sender, receiver):
                box.process.kill()
                box.process.wait()
                box.release()
            if ev:
                ev.close()
            print(f"| {name} | {cpus[0]}, {cpus[1]} | {counts[0] / counts[1]:.1%} | {counts[2] / counts[3]:.1%} | "
                  f"{statistics.median(ms) if ms else 0:.1f} |")
    print(f"({rounds} rounds of 64 bits each; load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sizes", type=int, default=0, metavar="ROUNDS",
                   help="how much of the L3 must be read (Flush+Reload through each clearing), ROUNDS rounds each")
    args = p.parse_args()
    if args.sizes:
        return sizes(args.sizes)
    print(sandbox.report(sandbox.Limits()))
    print("each CPU's helper reads, MiB (its own caches, then the shared ones):",
          {cpu: tuple(round(n / 2**20, 1) for n in sizes) for cpu, sizes in evict.plan().items()})
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    per_call = {False: [], True: []}
    ratio = []
    clearing_ms = []
    ev = evict.shared()
    guest = visitor(Path(tempfile.mkdtemp()))
    house = []
    for _ in range(args.rounds):
        got = {}
        for on in (False, True):
            wall, calls = match_once(sandbox.Limits(evict_caches=on), args.boards, guest)
            got[on] = wall / calls
            per_call[on].append(wall / calls * 1000)
        ratio.append(got[True] / got[False])
        wall, calls = match_once(sandbox.Limits(), args.boards)
        house.append(wall / calls / got[False])
    ts = [ev.evict() * 1000 for _ in range(200)]
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}\n")
    print("| bots | wall time per bot call, ms | ÷ without clearing |")
    print("|---|---:|---:|")
    print(f"| caches not cleared | {statistics.median(per_call[False]):.3f} | 1.00× |")
    print(f"| caches cleared before each thaw | {statistics.median(per_call[True]):.3f} | {statistics.median(ratio):.2f}× |")
    print(f"| `random` as shipped (a house bot: not cleared) | | {statistics.median(house):.2f}× |")
    ts.sort()
    print(f"\none clearing alone (200 in a row): median {statistics.median(ts):.2f} ms, p90 {ts[179]:.2f}, max {ts[-1]:.2f}")
    print(f"(medians of {args.rounds} rounds of a {args.boards}-board match each)")


if __name__ == "__main__":
    main()
