"""Arena throughput: the default round robin (random, greedy, heuristic) at 1 and 2 workers.

Reports board pairs per second (a board pair = one board at both tables), the
share of the run spent writing to DuckDB, and, for scale, the ratings fit.
Run: ``python bench/arena_bench.py [--boards N]`` (default 30 boards per pair).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import tournament  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.submit import submit  # noqa: E402
from referee.rules import get_ruleset  # noqa: E402


def run_once(boards: int, workers: int) -> tuple[float, int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "a.duckdb"
        store = Store.open(db)
        rs = get_ruleset("classic")
        store.create_tournament("bench", rs.name, rs.options(), 1, boards)
        for bot in ("random", "greedy", "heuristic"):
            submit(store, ROOT / "sample_bots" / bot, store_root=Path(tmp) / "bots", tournament="bench")
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
        t0 = time.perf_counter()
        summary = tournament.run(store, "bench", workers=workers)
        wall = time.perf_counter() - t0
        store.close()
        return wall, summary.played, write_s


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=30)
    args = p.parse_args()
    base = None
    for workers in (1, 2):
        wall, played, write_s = run_once(args.boards, workers)
        rate = played / wall
        base = base or rate
        print(f"workers {workers}: {played} board pairs in {wall:.1f} s = {rate:.1f} board pairs/s "
              f"({rate / base:.2f}x workers 1); DuckDB writes {write_s:.2f} s = {write_s / wall:.1%} of the run")


if __name__ == "__main__":
    main()
