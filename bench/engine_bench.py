"""Engine speed: complete random deals per second, in-process, one core.

Each deal: a fresh shuffle, bidding, declarations, every card, scoring, with
uniformly random legal choices.  Run: ``python bench/engine_bench.py [--seconds S]
[--ruleset R] [--peer]``.  With ``--peer`` the same run also times the PyPI
package ``belote-cli`` (random rounds) if it is installed in this environment,
and prints our rate as a ratio of it (install it only in a throwaway venv:
``bench/peer.sh``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.rules import CARDS, RULESETS, DealState  # noqa: E402


def random_deal(ruleset, rng: random.Random) -> DealState:
    deck = list(CARDS)
    rng.shuffle(deck)
    state = DealState(ruleset, deck, rng.randrange(ruleset.seats))
    choice = rng.choice
    while not state.is_terminal():
        state.apply(choice(state.legal_actions()))
    return state


def rate(ruleset, seconds: float, seed: int = 1) -> tuple[float, int]:
    rng = random.Random(seed)
    n, start = 0, time.perf_counter()
    while True:
        for _ in range(200):
            random_deal(ruleset, rng)
        n += 200
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed, n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--ruleset", choices=list(RULESETS), action="append")
    p.add_argument("--peer", action="store_true", help="also time belote-cli (if installed) in the same run")
    args = p.parse_args()
    for name in args.ruleset or list(RULESETS):
        r, n = rate(RULESETS[name], args.seconds)
        print(f"{name:11s} {r:8.0f} deals/s ({n} deals)")
    if args.peer:
        from peer_belote_cli import peer_rate  # noqa: PLC0415

        ours, _ = rate(RULESETS["classic"], args.seconds)
        theirs = peer_rate(args.seconds)
        print(f"belote-cli  {theirs:8.0f} rounds/s; classic ratio ours/peer = {ours / theirs:.1f}x")


if __name__ == "__main__":
    main()
