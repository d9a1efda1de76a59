"""The cost of what runs inside a sandbox before the bot (issue 19, red team 7): a sandbox's
start with ``referee.inside`` (the ``sysinfo(2)`` supervisor and the lock, the read allow-list:
one more interpreter start) against one without.

Run: ``python bench/inside_bench.py [--starts N]``.

Starts a sandbox running ``/usr/bin/true`` until it exits, with the sandbox as bots get it
and with ``mask_proc=False`` (no masks, no wrapper: the tests' controls), alternating,
``--starts`` of each; prints the medians and their ratio (compare figures of one run: the
machine's other load shows in all of them).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import inside, sandbox  # noqa: E402


def start_once(code: Path, rules: bool) -> float:
    t0 = time.perf_counter()
    box = sandbox.Sandboxed(code, ["/usr/bin/true"], {"PATH": "/usr/bin"}, sandbox.Limits(), mask_proc=rules,
                            stdin=subprocess.DEVNULL)
    try:
        if box.process.wait(timeout=60) != 0:
            raise SystemExit(f"the sandbox failed (exit {box.process.returncode})")
        return time.perf_counter() - t0
    finally:
        box.release()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--starts", type=int, default=20, help="starts of each kind (default 20)")
    args = p.parse_args()
    if not inside.abi():
        raise SystemExit("no Landlock in this kernel: nothing to measure")
    with tempfile.TemporaryDirectory() as tmp:
        code = Path(tmp)
        code.chmod(0o755)
        start_once(code, True)  # the image built or found, the masks made
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.starts):
            for rules in (True, False):
                times[rules].append(start_once(code, rules))
    with_, without = (statistics.median(times[k]) * 1000 for k in (True, False))
    print(f"Landlock ABI {inside.abi()}; sandbox start until exit, median of {args.starts}:")
    print(f"  with referee.inside: {with_:.1f} ms; without: {without:.1f} ms; ratio {with_ / without:.2f}x")


if __name__ == "__main__":
    main()
