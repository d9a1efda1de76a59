"""Games to a target and board matches (RULES.md §8, §3.3, §6.3, §7).

Both are driven from outside: the caller supplies each deal's deck (from the
board sequence) and plays the deal's actions; these classes keep the scores,
the dealer and the litige pot between deals.
"""

from __future__ import annotations

from .deal import DealState
from .ruleset import Ruleset
from .scoring import DealOutcome


class BoardMatchTable:
    """One table of a board match (§8 "Board match"): each board is scored on its
    own; a passed-out board scores 0–0; a litige pot carries from one board to
    the next at the same table (§6.3) and is scored by nobody if still open at the end.
    ``scores`` are the running totals per team, in points; ``outcomes`` every deal's
    outcome, unless ``keep_outcomes`` is False (a referee that stores each deal as it is
    played keeps memory flat in the length of the match: issue 14 item 3).
    """

    def __init__(self, ruleset: Ruleset, *, keep_outcomes: bool = True):
        self.ruleset = ruleset
        self.pot = 0
        self.scores = [0, 0]
        self.keep_outcomes = keep_outcomes
        self.outcomes: list[DealOutcome] = []

    def new_deal(self, deck, dealer: int) -> DealState:
        """A deal of ``deck`` (32 cards) by ``dealer``, carrying the pot in."""
        return DealState(self.ruleset, deck, dealer, pot=self.pot, scores=tuple(self.scores))

    def finish_deal(self, state: DealState) -> DealOutcome:
        """Record a finished deal: add its score and carry the pot.

        Raises:
            ValueError: if the deal is not finished.
        """
        outcome = state.outcome()
        if outcome is None:
            raise ValueError("the deal is not finished")
        if self.keep_outcomes:
            self.outcomes.append(outcome)
        for t in (0, 1):
            self.scores[t] += outcome.score[t]
        self.pot = outcome.pot
        return outcome


class Game(BoardMatchTable):
    """A game to ``ruleset.target`` points (§8 "Game to a target").

    The dealer moves to the next seat after every deal that was played; a
    passed-out deal is redealt (from the next board) by the same dealer in
    ``classic``/``strict``, by the next one in ``all-trumps``; with two players an
    accepted schmeiss keeps the dealer and a double pass moves it (§3.3, §7).
    A litige pot carries to the next deal (§6.3).

    Args:
        ruleset: the rule system, with its target resolved.
        dealer: the first deal's dealer seat.
    """

    def __init__(self, ruleset: Ruleset, dealer: int = 0):
        super().__init__(ruleset)
        self.dealer = dealer

    def new_deal(self, deck) -> DealState:  # type: ignore[override]
        """The next deal, dealt from ``deck`` (32 cards) by the current dealer."""
        return super().new_deal(deck, self.dealer)

    def finish_deal(self, state: DealState) -> DealOutcome:
        """Record a finished deal (see :class:`BoardMatchTable`) and move the dealer."""
        outcome = super().finish_deal(state)
        if not (outcome.contract == "passed" and outcome.redeal_same_dealer):
            self.dealer = (self.dealer + 1) % self.ruleset.seats
        return outcome

    def winner(self) -> int | None:
        """The winning team once a team has reached the target at the end of a deal;
        if both have, the higher total; ``None`` while the game goes on (including
        an exact tie above the target: another deal is played)."""
        target = self.ruleset.target
        a, b = self.scores
        if a < target and b < target:
            return None
        if a == b:
            return None
        return 0 if a > b else 1
