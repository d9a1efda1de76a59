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
- **Bidding, schmeiss, contrée calls, declarations** (RULES.md §4, §6.1, §6.4, §7): the same
  evaluation (:mod:`.auction`): for each option, deals of the unseen cards drawn consistent with
  the hand, the turned card and the bids (a model of bidding: the heuristic bot's valuation),
  each solved double dummy under the contract the option leads to (passing: the bidding that
  the model plays after it) and scored as the ruleset scores a deal; the best mean margin wins.
  The heuristic bot's choice is a prior: clear bids (far under or over its take threshold) are
  its own, unevaluated; it wins near-ties; and it is the answer when fewer than
  ``auction.MIN_DEALS`` deals are solved within ``CALL_BUDGET_MS`` (a third of what the deadline
  leaves at most; a watchdog at ``HARD_FACTOR`` times it) or anything fails. Measured against
  the previous version (bidding and calls of the heuristic, the same card play) in
  bench/RESULTS.md.
- **Belote, trump-7 exchange**: the heuristic bot's (belote always announced; exchange unless
  the turned card is the 8).

The search is loaded in a thread at start (numba's cached machine code: ~1 s); the bot waits
up to ``LOAD_WAIT_S`` for it before it listens, then plays the heuristic's cards until it is
there. Run: ``python bot.py --listen /tmp/expert/bot.sock``.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback

from belote_arena_sdk import call_of, kind_of, legal_cards, pb, play_of, seat_count, serve
from sample_bots.heuristic.bot import (
    ALL_TRUMPS_THRESHOLD,
    NO_TRUMPS_THRESHOLD,
    SCHMEISS_BAND,
    HeuristicBot,
    _follow,
    _lead,
    _Table,
    _take_cards,
    all_trumps_value,
    no_trumps_value,
    suit_value,
    take_threshold,
)

try:
    from . import auction
    from .knowledge import card_index, index_card
except ImportError:  # run as a script from the bot's folder
    import auction
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
#: Time budget of a decision before the play (a bid, a schmeiss answer, a named trump, a contrée
#: call, a declaration choice), ms; never more than a third of what the deadline leaves.
CALL_BUDGET_MS = 250


class ExpertBot(HeuristicBot):
    """PIMC card play, and bids, calls and declarations from sampled deals (see the module docstring).

    Attributes:
        pimc: the :class:`~.pimc.Pimc` searcher once loaded, else ``None``.
        auction: the :class:`~.auction.Auction` over the same searcher once loaded, else ``None``.
        last_samples: deals solved for the last card decision (0: the heuristic's card).
        last_deals, last_means: deals solved and mean margin per option of the last decision
            before the play (0 and empty: the heuristic's choice unevaluated).
    """

    def __init__(self, seed: int = 0, *, load: bool = True) -> None:
        super().__init__(seed)
        self.pimc = None
        self.auction = None
        self.last_samples = 0
        self.last_deals = 0
        self.last_means: dict = {}
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
            self.auction = auction.Auction(self.pimc)
        except Exception:  # no numba here: the heuristic plays every card
            traceback.print_exc(file=sys.stderr)
        finally:
            self.loaded.set()

    def budget_ms(self, obs: pb.Observation) -> float:
        """This card decision's time budget, ms (module docstring)."""
        trick = max(1, obs.trick_number or len(obs.tricks) + 1)
        budget = BUDGET_MS[min(trick, len(BUDGET_MS)) - 1]
        return min(budget, self.clock.remaining_ms() / 3.0)

    # --- decisions before the play: :mod:`.auction` over the heuristic's choice -----------------

    def call_budget_ms(self) -> tuple[float, float]:
        """(budget, watchdog) of a decision before the play, ms (``CALL_BUDGET_MS``)."""
        budget = min(CALL_BUDGET_MS, self.clock.remaining_ms() / 3.0)
        return budget, min(HARD_FACTOR * budget, self.clock.remaining_ms() / 2.0)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        """As the heuristic bot, with the schmeiss answer, the named trump and the declaration
        choice valued on sampled deals (module docstring)."""
        obs = request.observation
        legal = list(request.legal_actions)
        self.last_deals = 0
        self.last_means = {}
        if obs.phase == pb.PHASE_SCHMEISS_ANSWER:
            return self.answer_schmeiss(obs, legal)
        if obs.phase == pb.PHASE_NAME_TRUMP:
            return self.name_trump(obs, legal, super().decide(request))
        if obs.phase == pb.PHASE_DECLARATION:
            return self.declare(obs, legal, super().decide(request))
        return super().decide(request)

    def _pick(self, options: list[tuple[object, pb.Action]], fallback: pb.Action, evaluate) -> pb.Action:
        """The option with the best mean margin from ``evaluate(keys, budget, hard)``; the
        heuristic's ``fallback`` wins ties within ``auction.PRIOR_BONUS`` points, and is chosen
        when fewer than ``auction.MIN_DEALS`` deals were solved or anything failed."""
        if self.auction is None or len(options) < 2:
            return fallback
        try:
            budget, hard = self.call_budget_ms()
            ev = evaluate([k for k, _ in options], budget, hard)
        except Exception:  # never a fault: the heuristic's choice
            traceback.print_exc(file=sys.stderr)
            return fallback
        self.last_deals = ev.deals
        self.last_means = ev.means
        if ev.deals < auction.MIN_DEALS or len(ev.means) < len(options):
            return fallback
        best_key, best_action = max(
            options, key=lambda o: ev.means[o[0]] + (auction.PRIOR_BONUS if o[1] == fallback else 0.0))
        return best_action

    def bid(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """A bid (RULES.md §4, §7): the heuristic's where it is clear (``auction.BAND_LOW`` /
        ``BAND_HIGH``), else the best mean margin of passing and the heuristic's best one or two
        takes (a schmeiss, all-trumps, no-trumps) on sampled deals."""
        fallback = super().bid(obs, legal)
        threshold = take_threshold(obs)
        takes: list[tuple[float, tuple, pb.Action]] = []
        others: list[tuple[tuple, pb.Action]] = []
        passing = None
        clear = False
        for a in legal:
            if kind_of(a) != "bid":
                continue
            b = a.bid
            if b.kind == pb.BID_KIND_PASS:
                passing = a
            elif b.kind == pb.BID_KIND_TAKE:
                v = suit_value(_take_cards(obs, b.suit), b.suit) - threshold
                takes.append((v, ("take", pb.TRUMP_MODE_SUIT, b.suit), a))
            elif b.kind in (pb.BID_KIND_ALL_TRUMPS, pb.BID_KIND_NO_TRUMPS):
                cards = list(obs.hand_cards) + [obs.turned_card]
                if b.kind == pb.BID_KIND_ALL_TRUMPS:
                    v = all_trumps_value(cards) - ALL_TRUMPS_THRESHOLD
                    key = ("take", pb.TRUMP_MODE_ALL_TRUMPS, 0)
                else:
                    v = no_trumps_value(cards) - NO_TRUMPS_THRESHOLD
                    key = ("take", pb.TRUMP_MODE_NO_TRUMPS, 0)
                takes.append((v, key, a))
            elif b.kind == pb.BID_KIND_SCHMEISS:
                others.append((("schmeiss",), a))
        if passing is None:
            return fallback
        takes.sort(key=lambda t: -t[0])
        if takes and takes[0][0] >= auction.BAND_HIGH:
            return fallback  # a clear take
        near = [(k, a) for v, k, a in takes[:auction.MAX_CANDIDATES] if v >= -auction.BAND_LOW]
        if others and takes and takes[0][0] >= -SCHMEISS_BAND - auction.BAND_LOW:
            near += others
        if not near:
            return fallback  # hopeless: pass
        options = [(auction.PASS, passing)] + near
        return self._pick(options, fallback, lambda keys, budget, hard: self.auction.evaluate_bids(
            obs, keys, self.rng, budget_ms=budget, hard_ms=hard))

    def answer_schmeiss(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """Two players (RULES.md §7): accept (a redeal, 0) or refuse (the schmeisser takes), by the
        mean margin of refusing on sampled deals."""
        fallback = super().answer_schmeiss(obs, legal)
        options = [("accept" if a.schmeiss_answer.kind == pb.SCHMEISS_ANSWER_KIND_ACCEPT else "refuse", a)
                   for a in legal]
        return self._pick(options, fallback, lambda keys, budget, hard: self.auction.evaluate_schmeiss_answer(
            obs, self.rng, budget_ms=budget, hard_ms=hard))

    def name_trump(self, obs: pb.Observation, legal: list[pb.Action], fallback: pb.Action) -> pb.Action:
        """Two players, a refused round-2 schmeiss (RULES.md §7): the suit with the best mean margin."""
        options = [(("take", pb.TRUMP_MODE_SUIT, a.name_trump.suit), a) for a in legal]
        return self._pick(options, fallback, lambda keys, budget, hard: self.auction.evaluate_bids(
            obs, keys, self.rng, budget_ms=budget, hard_ms=hard))

    def call(self, obs: pb.Observation, legal: list[pb.Action]) -> pb.Action:
        """A contrée call (RULES.md §6.4): contre (surcontre) when its mean margin on sampled deals,
        the attackers' surcontre by the model included, beats passing."""
        fallback = super().call(obs, legal)
        call = call_of(legal, pb.CONTREE_CALL_KIND_CONTRE) or call_of(legal, pb.CONTREE_CALL_KIND_SURCONTRE)
        passing = call_of(legal, pb.CONTREE_CALL_KIND_PASS)
        if call is None or passing is None:
            return fallback
        options = [("pass", passing), ("call", call)]
        return self._pick(options, fallback, lambda keys, budget, hard: self.auction.evaluate_call(
            obs, self.rng, budget_ms=budget, hard_ms=hard))

    def declare(self, obs: pb.Observation, legal: list[pb.Action], fallback: pb.Action) -> pb.Action:
        """The declarations to announce (RULES.md §6.1, §7): the choice with the best mean margin
        on sampled deals; the heuristic's (the most points) on a tie."""
        seats = seat_count(obs)
        trump = obs.trump_suit if obs.trump_mode == pb.TRUMP_MODE_SUIT else 0
        choices = [auction.choice_of(list(a.declaration.declarations), seats, trump) for a in legal]
        options = list(zip(range(len(legal)), legal))
        return self._pick(options, fallback, lambda keys, budget, hard: self.auction.evaluate_declarations(
            obs, choices, self.rng, budget_ms=budget, hard_ms=hard))

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
