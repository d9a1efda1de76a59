"""The cost of serving what a sandbox shows from the in-memory image (issue 19, referee/image.py).

Run: ``python bench/image_bench.py [--boards N] [--rounds R]``.

Printed, in one run:

* building the image from nothing (the first run of an arena on a machine or after a
  change of the runtime; a fresh image folder, the others untouched) and finding it made
  (a later arena process: the digest of every shown file, then the lock), in seconds;
* copying a bot's folder into it (``sample_bots/random``), ms;
* a duplicate match of ``random`` against itself, ``--boards`` boards, with the image and
  with the host's files bound directly (``Limits(image=False)``), alternating for
  ``--rounds`` rounds: wall seconds, and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import image, sandbox  # noqa: E402
from sandbox_bench import match_once  # noqa: E402 - bench/, beside this script


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    shown, hidden = sandbox.shown_paths()

    with tempfile.TemporaryDirectory(dir="/dev/shm") as scratch:
        t0 = time.perf_counter()
        files, size = image._copy(shown, set(hidden), Path(scratch) / "image")
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        image.digest(shown, hidden)
        find = time.perf_counter() - t0
        t0 = time.perf_counter()
        image.code_copy(Path(scratch), ROOT / "sample_bots" / "random")
        code = time.perf_counter() - t0
    print(f"image: {files:,} files, {size / 1e9:.2f} GB; built in {build:.1f} s; found made in {find:.2f} s "
          f"(the digest); a bot's folder copied in {code * 1000:.0f} ms")

    walls: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.rounds):
        for on in (True, False):
            walls[on].append(match_once(sandbox.Limits(image=on), args.boards)[0])
    on, off = statistics.median(walls[True]), statistics.median(walls[False])
    print(f"match of {args.boards} boards: {on:.2f} s with the image, {off:.2f} s with the host's files "
          f"({on / off:.2f}×; rounds {', '.join(f'{a:.2f}/{b:.2f}' for a, b in zip(walls[True], walls[False]))})")
    print(f"load average {os.getloadavg()[0]:.1f}; /dev/shm free {shutil.disk_usage('/dev/shm').free / 1e9:.1f} GB")


if __name__ == "__main__":
    main()
