"""The expert sample bot: card play by sampling the hidden hands and solving each deal double dummy.

It reads only its observation and the legal actions (RULES.md §9).

- **Card play** (RULES.md §5, §7 "Play"): perfect-information Monte Carlo (PIMC,
  :mod:`.pimc`): deals of the unseen cards drawn consistent with everything the seat knows
  (its hand, the turned card, declarations shown, belote, voids and trump ceilings shown by
  the play: :mod:`.knowledge`), each solved exactly by the SDK's compiled double-dummy search
  (:mod:`belote_arena_sdk.dd`), every legal card valued by the deal's score margin (the
  contract made or not, contrée multipliers: §6.2–§6.4, §7) and the best mean played. A single
  legal card is played at once.
- **Time**: a budget of its own per card, ``BUDGET_MS`` by trick (and never more than a third
  of what the deadline leaves), the search stopped by a node budget when a deal would overrun
  it, and a watchdog thread stops it at ``HARD_FACTOR`` times the budget whatever the node
  count; with fewer than ``MIN_SAMPLES`` deals solved in time (or before the search is loaded) the heuristic bot's card.
- **Bidding, schmeiss, declarations, belote, exchange, contrée calls**: the heuristic bot's
  (``sample_bots/heuristic``), unchanged.

The search is loaded in a thread at start (numba's cached machine code: ~1 s); the bot waits
up to ``LOAD_WAIT_S`` for it before it listens, then plays the heuristic's cards until it is
there. Run: ``python bot.py --listen /tmp/expert/bot.sock``.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback

from belote_arena_sdk import legal_cards, pb, play_of, serve
from sample_bots.heuristic.bot import HeuristicBot, _follow, _lead, _Table

try:
    from .knowledge import card_index, index_card
except ImportError:  # run as a script from the bot's folder
    from knowledge import card_index, index_card

#: Time budget of one card decision by trick number (1-based; the last entry for later tricks), ms.
BUDGET_MS = (180, 160, 130, 100, 80)
#: At most this many deals per decision (late tricks solve in microseconds).
MAX_SAMPLES = 48
#: A watchdog stops a search still running at this many times the budget (at most half of what
#: the deadline leaves): the node budget comes from the speed measured before, and a machine
#: that suddenly slows down made one card take 1,002 ms (a timeout) in 21,042 decisions.
HARD_FACTOR = 2.0
#: Fewer deals solved in time than this: the heuristic's card (one or two deals are noise).
MIN_SAMPLES = 4
#: Seconds the bot waits for the search to load before it listens (the start limit is 10 s).
LOAD_WAIT_S = 6.0


class ExpertBot(HeuristicBot):
    """PIMC card play over the heuristic bot's bidding (see the module docstring).

    Attributes:
        pimc: the :class:`~.pimc.Pimc` searcher once loaded, else ``None``.
        last_samples: deals solved for the last card decision (0: the heuristic's card).
    """

    def __init__(self, seed: int = 0, *, load: bool = True) -> None:
        super().__init__(seed)
        self.pimc = None
        self.last_samples = 0
        self.loaded = threading.Event()
        if load:
            threading.Thread(target=self._load, name="dd-load", daemon=True).start()
        else:
            self.loaded.set()

    def _load(self) -> None:
        try:
            try:
                from .pimc import Pimc
            except ImportError:
                from pimc import Pimc
            self.pimc = Pimc()
        except Exception:  # no numba here: the heuristic plays every card
            traceback.print_exc(file=sys.stderr)
        finally:
            self.loaded.set()

    def budget_ms(self, obs: pb.Observation) -> float:
        """This card decision's time budget, ms (module docstring)."""
        trick = max(1, obs.trick_number or len(obs.tricks) + 1)
        budget = BUDGET_MS[min(trick, len(BUDGET_MS)) - 1]
        return min(budget, self.clock.remaining_ms() / 3.0)

    def play(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """A card (RULES.md §5, §7): PIMC's, else the heuristic's; belote announced whenever it may."""
        cards = legal_cards(legal)
        table = _Table(obs, cards)
        fallback = _follow(table) if table.trick else _lead(table)
        self.last_samples = 0
        if len(cards) == 1 or self.pimc is None:
            return play_of(legal, fallback, belote=True)
        try:
            budget = self.budget_ms(obs)
            hard = min(HARD_FACTOR * budget, self.clock.remaining_ms() / 2.0)
            choice = self.pimc.choose(obs, [card_index(c) for c in cards], self.rng, budget_ms=budget,
                                      max_samples=MAX_SAMPLES, min_samples=MIN_SAMPLES, prefer=card_index(fallback),
                                      hard_ms=hard)
        except Exception:  # never a fault: the heuristic's card
            traceback.print_exc(file=sys.stderr)
            return play_of(legal, fallback, belote=True)
        self.last_samples = choice.samples
        if choice.card is None:
            return play_of(legal, fallback, belote=True)
        return play_of(legal, index_card(choice.card), belote=True)


def main() -> int:
    bot = ExpertBot()
    start = time.monotonic()
    bot.loaded.wait(LOAD_WAIT_S)
    print(f"expert: search {'loaded' if bot.pimc else 'not loaded'} in {time.monotonic() - start:.2f} s",
          file=sys.stderr, flush=True)
    return serve(bot)


if __name__ == "__main__":
    raise SystemExit(main())
