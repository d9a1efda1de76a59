"""Double-dummy solver speed (issue 23): full solves from the first trick, and whole boards.

Positions: random deals (seeded) whose random bidding ended with a taker, at their first
card; a board: one such deal played at two tables with random legal cards, every card of
both analysed (``arena.analysis.boards.analyse_deal``, as ``arena analyze`` does).

The baseline, measured in the same run and interleaved with the solves so that the
machine's load weighs on both alike: one random deal played through the rules engine
(``bench/engine_bench.py``'s unit). Each figure is given in ms and as a ratio to it.

Run: ``python bench/dd_bench.py [--positions 200] [--boards 20] [--seed 1]
[--ruleset classic ...] [--colver DIR] [--append]``; ``--append`` adds the table to
bench/RESULTS.md.

``--colver DIR``: also time the outside engine colver's own double-dummy solver
(``Env.solve_scores``: the value of every legal card, from one position) on the same
classic positions as ours (``Solver.card_values``), DIR holding the PyPI package
``colver`` (``pip install --no-deps --target DIR colver==0.11.1``; it stays out of the
repository: ../shared/anchors/README.md). Its rules are contrée's (it never forces an
undertrump), so its search tree differs a little; its values are not compared.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.rules import CARDS, DealState, Phase, get_ruleset, record_of  # noqa: E402

from engine_bench import random_deal  # noqa: E402  (bench/ is on sys.path as the script's folder)


def play_start(ruleset, rng: random.Random) -> DealState:
    while True:
        deck = list(CARDS)
        rng.shuffle(deck)
        state = DealState(ruleset, deck, rng.randrange(ruleset.seats))
        while not state.is_terminal() and state.phase is not Phase.PLAY:
            state.apply(rng.choice(state.legal_actions()))
        if state.phase is Phase.PLAY:
            return state


def finish(state: DealState, rng: random.Random) -> DealState:
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state


def copy_start(state: DealState, rng: random.Random) -> DealState:
    """The same deal and bidding, replayed, for a second table."""
    other = DealState(state.ruleset, state.deck, state.dealer)
    for _, action in state.history:
        other.apply(action)
    return other


def quantiles(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else [xs[0]] * 99
    return {"median": statistics.median(xs), "p10": q[9], "p90": q[89], "p99": q[98], "max": xs[-1],
            "mean": statistics.fmean(xs)}


#: colver's card index within a suit, by our natural rank 7 8 9 10 J Q K A (its order: 7 8 9 J Q K 10 A)
_COLVER_RANK = (0, 1, 2, 6, 3, 4, 5, 7)


def colver_ratio(args, rng: random.Random, Solver) -> tuple[list[float], list[float]]:
    """Time colver's ``solve_scores`` and our ``card_values`` on the same classic first-trick positions."""
    os.environ["HF_HUB_OFFLINE"] = "1"  # nothing is downloaded
    sys.path.insert(0, str(Path(args.colver).resolve()))
    import colver

    ours, theirs = [], []
    ruleset = get_ruleset("classic")
    solver = Solver()
    for _ in range(args.positions):
        state = play_start(ruleset, rng)
        if state.phase is not Phase.PLAY or state.trump is None:
            continue
        hands = [[(c >> 3) * 8 + _COLVER_RANK[c & 7] for c in range(32) if state.hands[s] >> c & 1] for s in range(4)]
        env = colver.Env.deal_with_hands(state.dealer, hands)
        env.set_contract(int(state.trump), 80, state.taker % 2, 0)
        env.set_phase_playing()
        if env.current_player() != state.to_act:
            continue
        t = time.perf_counter()
        env.solve_scores()
        theirs.append(time.perf_counter() - t)
        t = time.perf_counter()
        solver.card_values(state)
        ours.append(time.perf_counter() - t)
    return ours, theirs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200, help="full solves per ruleset")
    ap.add_argument("--boards", type=int, default=20, help="boards analysed (both tables, every card), classic")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ruleset", action="append", help="rulesets (default: the four)")
    ap.add_argument("--colver", metavar="DIR", help="a folder holding the colver package: time its solver too")
    ap.add_argument("--append", action="store_true", help="append the table to bench/RESULTS.md")
    args = ap.parse_args()
    rulesets = args.ruleset or ["classic", "strict", "all-trumps", "two-player"]

    t0 = time.perf_counter()
    from arena.analysis.boards import analyse_deal
    from arena.analysis.solver import Solver
    load_s = time.perf_counter() - t0  # numba loads the compiled search from its cache (or compiles it)
    solver = Solver()
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    solver.solve(play_start(get_ruleset("classic"), rng))
    first_s = time.perf_counter() - t0

    rows = []
    for name in rulesets:
        ruleset = get_ruleset(name)
        solves, base, nodes = [], [], []
        for _ in range(args.positions):
            state = play_start(ruleset, rng)
            n0 = solver.nodes
            t = time.perf_counter()
            solver.solve(state)
            solves.append(time.perf_counter() - t)
            nodes.append(solver.nodes - n0)
            t = time.perf_counter()
            random_deal(ruleset, rng)
            base.append(time.perf_counter() - t)
        rows.append((name, quantiles(solves), statistics.median(base), statistics.median(nodes)))

    colver_rows = colver_ratio(args, rng, Solver) if args.colver else None

    boards, base = [], []
    ruleset = get_ruleset("classic")
    for _ in range(args.boards):
        start = play_start(ruleset, rng)
        tables = [record_of(finish(start, rng)), record_of(finish(copy_start(start, rng), rng))]
        t = time.perf_counter()
        s = Solver()
        for record in tables:
            analyse_deal(record, s)
        boards.append(time.perf_counter() - t)
        t = time.perf_counter()
        random_deal(ruleset, rng)
        base.append(time.perf_counter() - t)
    board_q, board_base = quantiles(boards), statistics.median(base)

    load = os.getloadavg()[0]
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"{when}, load {load:.1f}, seed {args.seed}; the search loaded in {load_s:.2f} s "
        f"(compiled once into numba's cache: ~10–20 s), the first solve {first_s * 1000:.0f} ms.",
        "",
        "| full solve from the first trick | positions | median ms | p10 | p90 | p99 | max | mean | median nodes "
        "| baseline: a random deal, ms | median / baseline |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, q, b, n in rows:
        lines.append(f"| {name} | {args.positions} | {q['median'] * 1e3:.1f} | {q['p10'] * 1e3:.1f} | "
                     f"{q['p90'] * 1e3:.1f} | {q['p99'] * 1e3:.1f} | {q['max'] * 1e3:.0f} | {q['mean'] * 1e3:.1f} | "
                     f"{n:,.0f} | {b * 1e3:.2f} | {q['median'] / b:.0f}× |")
    lines += [
        "",
        "| a whole board analysed (classic: both tables, every card) | boards | median s | p90 | max | "
        "baseline ms | median / baseline |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| `analyse_deal` × 2 | {args.boards} | {board_q['median']:.2f} | {board_q['p90']:.2f} | "
        f"{board_q['max']:.2f} | {board_base * 1e3:.2f} | {board_q['median'] / board_base:.0f}× |",
    ]
    if colver_rows is not None:
        ours, theirs = colver_rows
        lines += [
            "",
            "| every legal card's value from the first trick, classic, same positions | positions | median ms "
            "| p90 | max |",
            "|---|---:|---:|---:|---:|",
            f"| ours (`Solver.card_values`) | {len(ours)} | {statistics.median(ours) * 1e3:.1f} | "
            f"{quantiles(ours)['p90'] * 1e3:.1f} | {max(ours) * 1e3:.0f} |",
            f"| colver 0.11.1 (`Env.solve_scores`, Rust) | {len(theirs)} | {statistics.median(theirs) * 1e3:.1f} | "
            f"{quantiles(theirs)['p90'] * 1e3:.1f} | {max(theirs) * 1e3:.0f} |",
            f"| ratio of medians, ours / colver | | {statistics.median(ours) / statistics.median(theirs):.2f} | | |",
        ]
    text = "\n".join(lines)
    print(text)
    if args.append:
        with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write("\n## Double-dummy solver — `bench/dd_bench.py` (issue 23)\n\n"
                    "Targets: a full solve from the first trick ≤ 50 ms median; a whole board's analysis "
                    "(both tables, every card) ≤ 2 s. " + text + "\n")


if __name__ == "__main__":
    main()
