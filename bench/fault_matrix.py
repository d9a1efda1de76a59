"""Fault matrix: every fault bot of tests/bots, N times, in a short match against random.

``python bench/fault_matrix.py [--runs 3] [--boards 3] [--decision-ms 300]``

For each bot: the fault kinds recorded, the board pairs lost (asked for but missing
from the results: must be 0) and the bot processes left after the match (any process
whose working folder is under the run's temporary folder, or a child of this one:
must be 0). Prints a markdown table; exits 1 if anything was lost or left.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.play.schedule import suit_permutation  # noqa: E402
from referee.botproc import Limits  # noqa: E402
from referee.match import MatchConfig, play_match  # noqa: E402
from referee.rules import RULESETS, make_board  # noqa: E402
from tests.referee.botkit import deals, entrant, leftover_processes  # noqa: E402

BOARD_SEED = 11
MATCH_SEED, MATCH_ID = 3, "fault-matrix"
# board 1 at both tables (its opaque deal numbers, referee.secret), the 2nd decision asked
ON_BOARD_1 = ("--deals", deals(1, seed=MATCH_SEED, match_id=MATCH_ID), "--nth", "2")

# label, bot, arguments, expected kind(s), config overrides
CASES = [
    ("sleepy", "sleepy", (*ON_BOARD_1, "--sleep", "1.5"), "timeout", {}),
    ("crasher", "crasher", ON_BOARD_1, "crash", {}),
    ("startfail", "startfail", (), "start", {}),
    ("startfail --how silent", "startfail", ("--how", "silent"), "start", {"startup_s": 1.0}),
    ("illegal", "illegal", ON_BOARD_1, "illegal", {}),
    ("wrongkind", "wrongkind", ON_BOARD_1, "wrong-kind", {}),
    ("raiser", "raiser", ON_BOARD_1, "bot-error", {}),
    ("empty", "empty", ON_BOARD_1, "malformed", {}),
    ("bigreply", "bigreply", ON_BOARD_1, "malformed", {}),
    ("memhog (512 MiB)", "memhog", ON_BOARD_1, "bot-error / crash", {"limits": Limits(memory_mib=512)}),
    ("cpuburn", "cpuburn", ON_BOARD_1, "timeout", {}),
    ("hostile", "hostile", None, "— (sandboxed)", {}),
]


def run_once(bot: str, args, boards: int, decision_ms: int, overrides: dict) -> tuple[Counter, int, int, float]:
    with tempfile.TemporaryDirectory(prefix="fault-matrix-") as tmp:
        root = Path(tmp)
        listener = None
        if args is None:  # hostile: a loopback port to try, a folder outside its own to write to
            listener = socket.create_server(("127.0.0.1", 0))
            out = root / "out"
            out.mkdir()
            out.chmod(0o1777)  # the sandboxed bot runs as a uid of its own
            args = ("--out", out, "--port", listener.getsockname()[1])
            overrides = {**overrides, "limits": Limits(writable=(str(out),))}  # it reports there
        try:
            bad, good = entrant(root, bot, *args), entrant(root, "random")
            rs = RULESETS["classic"]
            cfg = MatchConfig(ruleset=rs, seed=MATCH_SEED, decision_ms=decision_ms, **overrides)
            board_list = [make_board(BOARD_SEED, k, rs.seats) for k in range(boards)]
            done: list[int] = []
            t0 = time.perf_counter()
            results = play_match(MATCH_ID, bad, good, board_list, cfg,
                                 permutations=lambda k: suit_permutation(BOARD_SEED, k),
                                 on_board_pair=lambda r: done.append(r.board))
            seconds = time.perf_counter() - t0
        finally:
            if listener is not None:
                listener.close()
        kinds = Counter(f.kind for r in results for f in r.faults)
        lost = len(set(range(boards)) - ({r.board for r in results} & set(done)))  # returned and reported
        left = len(leftover_processes(root))
        return kinds, lost, left, seconds


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--boards", type=int, default=3)
    p.add_argument("--decision-ms", type=int, default=300)
    p.add_argument("--only", nargs="*", help="labels of the bots to run (default all)")
    a = p.parse_args()
    rows, bad = [], False
    for label, bot, args, expected, overrides in CASES:
        if a.only and label not in a.only and bot not in a.only:
            continue
        kinds, lost, left, secs = Counter(), 0, 0, 0.0
        per_run = []
        for _ in range(a.runs):
            k, lo, le, s = run_once(bot, args, a.boards, a.decision_ms, overrides)
            kinds += k
            per_run.append(sum(k.values()))
            lost, left, secs = lost + lo, left + le, secs + s
        bad |= bool(lost or left)
        recorded = ", ".join(f"{kind} × {n}" for kind, n in sorted(kinds.items())) or "none"
        rows.append(f"| {label} | {expected} | {a.runs} | {recorded} (per run: {'/'.join(map(str, per_run))}) "
                    f"| {lost} | {left} | {secs / a.runs:.1f} |")
        print(rows[-1], file=sys.stderr, flush=True)
    print(f"\n{a.runs} runs per bot, {a.boards} boards vs random, classic, decision_ms {a.decision_ms}\n")
    print("| bot | expected fault | runs | faults recorded | board pairs lost | processes left | s/run |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
