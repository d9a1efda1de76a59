"""Attack bot 'attack_seed' (tests/bots/README.md, issue 9): learning the board seed.

``python bot.py --out DIR [--brute N]``; needs the rules engine vendored beside it as the
package ``rules`` (a copy of referee/rules: the sandbox binds the SDK, not the referee).

The boards of a match are ``make_board(seed, k)``, table 2's with suits renamed by one of
the 9 derangements. The bot collects every number it can see and, for each, re-deals
and compares with its own hands. Sources (one report line each):

- ``seed:env``: every environment variable (``BELOTE_BOT_SEED`` included);
- ``seed:match-id``: the match id of StartMatch (as hex and its digit runs);
- ``seed:deal-numbers``: the deal numbers it is sent;
- ``seed:proc-cmdline`` / ``seed:proc-environ``: ``/proc/*/cmdline`` and ``/proc/*/environ``;
- ``seed:files``: ``*.duckdb`` files and ``results/`` folders anywhere it can walk but ``/usr`` (their
  numbers), reported ``SUCCEEDED`` if any such file is visible at all (``seed:fs-search``);
- ``seed:brute-force``: every seed 0 .. N-1 (default 2048).

A candidate *reproduces* when, for every deal this process has seen (at least two), some
board ``k`` with this deal's dealer and some suit renaming deals the turned card and this
seat's first five cards as seen (a one-in-ten-million coincidence per deal). Reported
``SUCCEEDED: candidate C (source) reproduces my hands`` or ``blocked: none of N candidates
reproduces my hands``. The check starts at the first decision of the process's second deal
and works at most ``BUDGET_S`` per decision, going on at the next ones: well within the 1000 ms
deadline even with cold caches on a loaded machine.
Plays a random legal action.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from itertools import permutations

from attack_common import Reporter, why
from rules import CARDS, DealState, get_ruleset, make_board
from belote_arena_sdk import Bot, pb, serve
from belote_arena_sdk.cards import card_str

PERMS = [(0, 1, 2, 3)] + [p for p in permutations(range(4)) if all(p[i] != i for i in range(4))]
TEXT = {str(c): c for c in CARDS}
BUDGET_S = 0.25  # the check's work per decision (s)
SKIP_DIRS = {"/proc", "/sys", "/dev", "/usr"}  # /usr: the system's own read-only files (200,000 of them)


def numbers(text: str) -> set[int]:
    """Every decimal digit run and every run of 8+ hex digits in ``text``."""
    out = {int(m) for m in re.findall(r"\d+", text) if len(m) <= 80}
    out |= {int(m, 16) for m in re.findall(r"[0-9a-fA-F]{8,}", text) if len(m) <= 80}
    return out


class SeedBot(Bot):
    def __init__(self, out: str, brute: int):
        super().__init__()
        self.report = Reporter(out, bot="attack_seed")
        self.brute = brute
        self.match_id = ""
        self.boards = 0
        self.deals: dict[int, tuple] = {}  # deal number -> (dealer, seat, known cards, turned card)
        self.sources: dict[str, set[int]] | None = None
        self.pending = None  # the check under way: a generator, stepped in decide()

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        self.match_id = request.match_id
        self.boards = request.options.board_count or 8

    # ------------------------------------------------------------ sources
    def collect(self):
        """Every number in sight, by source (a generator: yields between steps; returns the sources)."""
        src: dict[str, set[int]] = {"env": set(), "match-id": numbers(self.match_id), "proc-cmdline": set(),
                                    "proc-environ": set(), "files": set()}
        for k, v in os.environ.items():
            src["env"] |= numbers(f"{k}={v}")
        try:  # the processes whose /proc files it could read: none in the sandbox (no procfs)
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
        except OSError:
            pids = []
        for pid in pids:
            yield
            for what in ("cmdline", "environ"):
                try:
                    src[f"proc-{what}"] |= numbers(open(f"/proc/{pid}/{what}", "rb").read().decode("latin-1"))
                except OSError:
                    continue
        found, walked = [], 0
        for root, dirs, files in os.walk("/", onerror=lambda e: None):
            yield
            dirs[:] = [d for d in dirs if os.path.join(root, d) not in SKIP_DIRS]
            walked += len(files) + len(dirs)
            for d in dirs:
                if d == "results":
                    found.append(os.path.join(root, d))
            for f in files:
                if f.endswith((".duckdb", ".duckdb.wal")) or os.path.basename(root) == "results":
                    path = os.path.join(root, f)
                    found.append(path)
                    try:
                        src["files"] |= numbers(open(path, "rb").read(1 << 20).decode("latin-1"))
                    except OSError:
                        continue
        self.report.attempt("seed:fs-search", lambda: f"visible: {found[:10]}" if found else
                            f"blocked: no *.duckdb file or results/ folder among {walked} entries")
        return src

    # ------------------------------------------------------------ re-dealing
    def matches(self, seed: int, rs) -> bool:
        """Whether ``seed`` deals every deal seen so far as it was seen."""
        seats = rs.seats
        turned_at = 20 if seats == 4 else 12
        for dealer, seat, known, turned in self.deals.values():
            ok = False
            for k in range(dealer, max(self.boards, dealer + 1), seats):
                deck = make_board(seed, k, seats).deck
                for perm in PERMS:
                    t = deck[turned_at]
                    if str(CARDS[perm[int(t) >> 3] * 8 + (int(t) & 7)]) != turned:
                        continue
                    renamed = tuple(CARDS[perm[int(c) >> 3] * 8 + (int(c) & 7)] for c in deck)
                    first = {str(c) for c in DealState(rs, renamed, dealer).hand(seat)}
                    if first <= known:
                        ok = True
                        break
                if ok:
                    break
            if not ok:
                return False
        return True

    def check(self, rs):
        """One check of every source against the deals seen (a generator: yields between steps)."""
        if self.sources is None:
            self.sources = yield from self.collect()
        self.sources["deal-numbers"] = set(self.deals)
        for name, cands in sorted(self.sources.items()) + [("brute-force", range(self.brute))]:
            try:
                result = yield from self._try(cands, "brute force" if name == "brute-force" else name, rs)
            except Exception as e:  # noqa: BLE001 - every failure is a result to report
                result = "blocked: " + why(e)
            self.report.attempt(f"seed:{name}", lambda result=result: result)

    def _try(self, candidates, source: str, rs):
        n = 0
        for c in candidates:
            yield
            n += 1
            if self.matches(c, rs):
                return f"candidate {c} ({source}) reproduces my hands of {len(self.deals)} deals"
        return f"blocked: none of {n} candidates reproduces my hands of {len(self.deals)} deals"

    def work(self) -> None:
        """Step the check under way for at most ``BUDGET_S``."""
        end = time.perf_counter() + BUDGET_S
        try:
            while time.perf_counter() < end:
                next(self.pending)
        except StopIteration:
            self.pending = None

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        if obs.deal_number not in self.deals:
            mine = {card_str(c) for c in obs.hand_cards} | {card_str(p.card) for p in obs.played_cards
                                                            if p.seat == obs.seat}
            self.deals[obs.deal_number] = (obs.dealer, obs.seat, mine, card_str(obs.turned_card))
            if len(self.deals) == 2:
                self.pending = self.check(get_ruleset(obs.ruleset))
        if self.pending is not None:
            self.work()
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--brute", type=int, default=2048)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(SeedBot(args.out, args.brute), rest))
