"""Timing the PyPI package ``belote-cli`` (a peer engine) playing random rounds.

Used by ``engine_bench.py --peer`` in a throwaway environment that has
belote-cli installed (``bench/peer.sh``); never a project dependency.  A round:
a fresh deal, random bids among pass/the up-card suit (round 1) and pass/the
four suits (round 2), then random legal cards to the end.
"""

from __future__ import annotations

import random
import time


def _round(g, rng: random.Random) -> None:
    from belote.deck import Suit  # noqa: PLC0415

    state = g.start_round(g.new_game(), rng)
    suits = [s for s in Suit if s.name in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")]
    while state.phase == g.Phase.BIDDING:
        if state.bidding_round == 1:
            bid = rng.choice([None, state.up_card.suit])
        else:
            bid = rng.choice([None] + suits)
        try:
            state = g.place_bid(state, bid)
        except g.IllegalMoveError:
            state = g.place_bid(state, None)
    while state.phase == g.Phase.PLAYING:
        state = g.play_card(state, rng.choice(g.legal_cards(state, state.turn)))


def peer_rate(seconds: float, seed: int = 1) -> float:
    from belote import game as g  # noqa: PLC0415

    rng = random.Random(seed)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _round(g, rng)
        n += 1
    return n / (time.perf_counter() - start)
