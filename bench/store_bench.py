"""Storage speed: board pairs written per second (arena/store/writer.py).

Plays ``--pairs`` board pairs (default 2,000) of random legal actions with the
rules engine (not timed), then times writing them to a fresh database file:
one transaction per board pair (:meth:`Store.write_board_pair`, what a run
does) and batches of ``--batch`` board pairs per transaction
(:meth:`Store.write_board_pairs`). Prints board pairs/s and rows/s (rows =
board_pairs + deals + actions + faults + matches). Run:
``python bench/store_bench.py [--pairs N] [--batch B] [--ruleset R] [--memory]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.store import Store, match_id  # noqa: E402
from referee.records import BoardPairResult, Decision, TableResult  # noqa: E402
from referee.rules import DealState, get_ruleset, make_board, record_of, relabel  # noqa: E402

PERMUTATION = (1, 0, 3, 2)


def play(ruleset, deck, dealer: int, rng: random.Random) -> DealState:
    state = DealState(ruleset, deck, dealer)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state


def board_pair(ruleset, seed: int, board: int, a: str, b: str, rng: random.Random) -> BoardPairResult:
    bd = make_board(seed, board, ruleset.seats)
    tables = []
    for number, ns, ew, perm in ((1, a, b, (0, 1, 2, 3)), (2, b, a, PERMUTATION)):
        state = play(ruleset, relabel(bd.deck, perm), bd.dealer, rng)
        decisions = [Decision(s, act.to_json(), rng.uniform(0.5, 40.0)) for s, act in state.history]
        tables.append(TableResult(board, number, ns, ew, perm, record_of(state), state.outcome(), decisions))
    return BoardPairResult(board=board, a=a, b=b, tables=(tables[0], tables[1]))


def rows_of(results) -> int:
    return sum(1 + 2 + sum(len(t.decisions) + len(t.faults) for t in r.tables) for _, r in results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--memory", action="store_true", help="in-memory database instead of a file")
    args = ap.parse_args()

    ruleset = get_ruleset(args.ruleset)
    entrants = [f"bot{i}@1" for i in range(8)]
    pairs = [(entrants[i], entrants[j]) for j in range(len(entrants)) for i in range(j)]
    rng = random.Random(1)
    t0 = time.perf_counter()
    results = []
    for k in range(args.pairs):
        a, b = pairs[k % len(pairs)]
        results.append((match_id("bench", a, b), board_pair(ruleset, 7, k // len(pairs), a, b, rng)))
    print(f"played {args.pairs} board pairs ({args.ruleset}) in {time.perf_counter() - t0:.1f} s (not timed)")
    rows = rows_of(results) + len(pairs)

    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("one per transaction", f"batches of {args.batch}"):
            path = None if args.memory else Path(tmp) / f"{mode.split()[0]}.duckdb"
            with Store.open(path) as store:
                store.create_tournament("bench", ruleset.name, ruleset.options(), 7, args.pairs, entrants)
                t = time.perf_counter()
                if mode.startswith("one"):
                    for mid, r in results:
                        store.write_board_pair("bench", mid, r)
                else:
                    for i in range(0, len(results), args.batch):
                        store.write_board_pairs("bench", results[i : i + args.batch])
                dt = time.perf_counter() - t
                assert len(store.done_board_pairs("bench")) == args.pairs
            where = "memory" if args.memory else "file"
            print(
                f"{mode:>22} ({where}): {args.pairs / dt:8.0f} board pairs/s  {rows / dt:10.0f} rows/s  "
                f"({rows} rows in {dt:.2f} s)"
            )


if __name__ == "__main__":
    main()
