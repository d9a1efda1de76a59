"""Random card-play positions for the solver's tests: a random deal played with uniformly
random legal actions through the rules engine (RULES.md §3–§7) up to a chosen point."""

from __future__ import annotations

import random

from referee.rules import CARDS, DealState, Phase, Rank, get_ruleset
from referee.rules.actions import PLAYS

#: Every ruleset and option the solver must handle (RULES.md table, §6.4): all-trumps deals
#: come in both its modes (all-trumps, no-trumps) as the random bidding reaches round 3.
RULESETS = (
    get_ruleset("classic"),
    get_ruleset("classic", contree=True),
    get_ruleset("classic", declarations=False),
    get_ruleset("strict"),
    get_ruleset("strict", contree=True),
    get_ruleset("all-trumps"),
    get_ruleset("two-player"),
)


def clone(state: DealState) -> DealState:
    """A copy of a state in its card play, for search by apply (the lists play mutates copied)."""
    new = object.__new__(DealState)
    new.__dict__.update(state.__dict__)
    for name in ("hands", "trick", "trick_points", "tricks_won", "tricks", "plays", "history", "belote_suits",
                 "belotes", "declared"):
        setattr(new, name, list(getattr(state, name)))
    return new


def random_play_start(rng: random.Random, ruleset) -> DealState:
    """A random deal whose bidding (and contrée calls, declarations) ended with a taker, at its first card."""
    while True:
        deck = list(CARDS)
        rng.shuffle(deck)
        state = DealState(ruleset, deck, rng.randrange(ruleset.seats))
        while not state.is_terminal() and state.phase is not Phase.PLAY:
            state.apply(rng.choice(state.legal_actions()))
        if state.phase is Phase.PLAY:
            return state


def advance(state: DealState, rng: random.Random, cards: int) -> DealState:
    """Play ``cards`` random legal cards (announcing belote at random; declarations at random)."""
    for _ in range(cards):
        while state.phase is Phase.DECLARATION:
            state.apply(rng.choice(state.legal_actions()))
        state.apply(rng.choice(state.legal_actions()))
    while state.phase is Phase.DECLARATION:
        state.apply(rng.choice(state.legal_actions()))
    return state


def random_endgame(rng: random.Random, ruleset, tricks_left: int) -> DealState:
    """A random position with ``tricks_left`` tricks to finish (the one in progress counted),
    at a random point of its first trick."""
    state = random_play_start(rng, ruleset)
    n = ruleset.seats
    done = (ruleset.tricks - tricks_left) * n + rng.randrange(n)
    return advance(state, rng, done)


def play(state: DealState, card) -> None:
    """Play ``card`` for the seat to act, announcing belote with the first card of a pair
    the seat still holds (RULES.md §5)."""
    suit, rank = card >> 3, card & 7
    announce = bool(state.belote_suits[state.to_act] >> suit & 1) and rank in (Rank.QUEEN, Rank.KING)
    state.apply(PLAYS[card][announce])
