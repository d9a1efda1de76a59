"""The expert sample bot (issue 23 item 2): its sampler, its search and its play.

- The sampler (``sample_bots/expert/knowledge.py``): on positions of random deals of every
  ruleset, what the seat infers from its observation (RULES.md §9) holds for the real deal
  (voids, trump ceilings, cards held for sure: §3.2, §5, §6.1, §7), and every deal it draws
  keeps the own hand, the card counts, the fixed cards and the exclusions.
- The search from an observation (``pimc.py``) values every legal card exactly as the
  arena's solver does on the same full deal.
- The bot answers legally in every ruleset and option, in process, and plays a short match in
  the sandbox against the heuristic bot with no fault.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_arena_sdk import pb
from referee import wire
from referee.rules import CARDS, DealState, Phase, get_ruleset, observe
from sample_bots.expert.knowledge import card_index, consistent, knowledge, sample

ROOT = Path(__file__).resolve().parents[1]
RULESETS = ("classic", "strict", "all-trumps", "two-player")


def _play_positions(name: str, seed: int, every: float = 1.0):
    """(every seat's hand as a card mask, observation of the seat to play) at the play decisions of one random deal of
    ``name`` (random legal actions; deals passed out are skipped)."""
    rs = get_ruleset(name)
    opts = wire.ruleset_options_pb(rs)
    rng = random.Random(seed)
    while True:
        deck = list(CARDS)
        rng.shuffle(deck)
        state = DealState(rs, deck, rng.randrange(rs.seats))
        out = []
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.phase is Phase.PLAY and rng.random() < every:
                out.append((list(state.hands), wire.observation_pb(observe(state, state.to_act), options=opts)))
            state.apply(rng.choice(legal))
        if out:
            return out


def test_card_numbers_are_the_referees():
    """The bot's card numbers are the search's and the referee's (``suit * 8 + rank``)."""
    assert [card_index(wire.card_pb(c)) for c in CARDS] == list(range(32))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(RULESETS), seed=st.integers(0, 2**32 - 1))
def test_the_real_deal_fits_and_every_sample_fits(name, seed):
    """RULES.md §9: the inferences are sound (the real hands satisfy them) and every sampled
    deal respects them: own hand fixed, counts right, voids and ceilings kept (§5, §7)."""
    rng = random.Random(seed)
    for hands, obs in _play_positions(name, seed):
        k = knowledge(obs)
        assert consistent(k, hands), (name, seed, obs.seat)  # two players: the stock is the rest
        for _ in range(3):
            drawn = sample(k, rng)
            assert drawn is not None
            assert consistent(k, drawn)


def test_inferences_are_used():
    """Over a few deals the sampler does know voids and held cards (it is not vacuous)."""
    excluded = fixed = 0
    for seed in range(6):
        for _, obs in _play_positions("classic", seed):
            k = knowledge(obs)
            excluded += any(k.excluded)
            fixed += any(k.fixed)
    assert excluded and fixed


def test_root_values_equal_the_arenas_solver():
    """Every legal card valued from an observation with the real hands given equals the
    arena's double-dummy solver (RULES.md §6.2 trick points; capots compared as the search
    encodes them are skipped)."""
    from arena.analysis.solver import Solver
    from sample_bots.expert.knowledge import play_rules
    from sample_bots.expert.pimc import Pimc

    pimc, solver = Pimc(), Solver()
    checked = 0
    for name in RULESETS:
        rs = get_ruleset(name)
        opts = wire.ruleset_options_pb(rs)
        rng = random.Random(7)
        deck = list(CARDS)
        for _ in range(40):
            rng.shuffle(deck)
            state = DealState(rs, deck, 0)
            while not state.is_terminal() and not (state.phase is Phase.PLAY and len(state.tricks) >= rs.tricks - 4):
                state.apply(rng.choice(state.legal_actions()))
            if state.is_terminal():
                continue
            obs = wire.observation_pb(observe(state, state.to_act), options=opts)
            legal = sorted({int(a.card) for a in state.legal_actions()})
            others = knowledge(obs).unseen
            for p in obs.current_trick.cards:
                others |= 1 << card_index(p.card)
            mine = pimc.solve_values(obs, play_rules(obs), list(state.hands), legal, others, 10**12)
            for card, result in solver.card_values(state).items():
                if result.capot is None:
                    assert mine[int(card)] == result.trick_points[0], (name, card)
                    checked += 1
            break
    assert checked


@pytest.mark.parametrize("name,contree", [(n, False) for n in RULESETS] + [("classic", True), ("strict", True)])
def test_every_answer_is_legal(name, contree):
    """In process: the expert answers every decision of a deal with card play with a legal action (RULES.md
    §4–§7, §6.4), its card play by PIMC once the search is loaded."""
    from sample_bots.expert.bot import ExpertBot

    rs = get_ruleset(name)
    if contree:
        rs = rs.with_options(contree=True)
    opts = wire.ruleset_options_pb(rs, board_count=4)
    bot = ExpertBot()
    assert bot.loaded.wait(120) and bot.pimc is not None
    rng = random.Random(5)
    searched = 0
    for deal in range(4):
        deck = list(CARDS)
        rng.shuffle(deck)
        state = DealState(rs, deck, deal % rs.seats)
        bot.on_deal(deal + 1)
        while not state.is_terminal():
            legal = state.legal_actions()
            request = pb.DecideRequest(legal_actions=[wire.action_pb(a, state.turned >> 3) for a in legal],
                                       deadline_ms=1000)
            wire.observation_pb(observe(state, state.to_act), options=opts, deal_number=deal + 1,
                                out=request.observation)
            bot.clock.start(1000)
            answer = bot.decide(request)
            assert answer in list(request.legal_actions)
            searched += bot.last_samples
            state.apply(legal[list(request.legal_actions).index(answer)])
        if searched:  # a deal with card play (not passed out, no accepted schmeiss) is enough
            break
    assert searched > 0


def test_a_short_match_in_the_sandbox(tmp_path):
    """A board (two tables) against the heuristic bot in the sandbox (default limits, 1000 ms deadline):
    the search loads from the read-only cache, every answer is legal, no fault (RULES.md §8)."""
    import belote_arena_sdk.dd  # noqa: F401  (the compiled cache exists before the image is made)
    from arena.play.schedule import suit_permutation
    from referee.manifest import load_manifest
    from referee.match import Entrant, MatchConfig, play_match
    from referee.rules import make_board, replay

    def entrant(folder: str) -> Entrant:
        manifest = load_manifest(ROOT / "sample_bots" / folder)
        return Entrant(key=manifest.key, manifest=manifest)

    rs = get_ruleset("classic")
    boards = [make_board(23, k, rs.seats) for k in range(1)]
    logs = tmp_path / "logs"
    logs.mkdir()
    results = play_match("expert-test", entrant("expert"), entrant("heuristic"), boards,
                         MatchConfig(ruleset=rs, seed=3, log_dir=logs),
                         permutations=lambda k: suit_permutation(23, k))
    assert len(results) == 1
    for r in results:
        for t in r.tables:
            assert not t.faults, t.faults
            assert replay(t.record).outcome().score == t.outcome.score
    assert any("search loaded" in p.read_text() for p in logs.iterdir()), [p.read_text() for p in logs.iterdir()]


@pytest.mark.alone  # makes the shared numba cache stale and compiles it again, under other tests' expert bots
def test_the_arena_brings_the_compiled_search_up_to_date():
    """A cache older than the search's source is compiled again before a sandbox's image is made
    (``referee.sandbox.warm_dd_cache``); an up-to-date one is left alone at no cost."""
    import os

    import belote_arena_sdk
    from referee.sandbox import warm_dd_cache

    index = list((Path(belote_arena_sdk.__file__).parent / "__pycache__").glob("dd.*.nbi"))
    assert index
    for p in index:
        os.utime(p, (1, 1))  # older than dd.py
    assert warm_dd_cache() is True
    assert warm_dd_cache() is False


def test_the_watchdog_stops_a_search_under_way():
    """A search the node budget would let run (the speed estimate far too high) is stopped by the
    watchdog thread (the search releases the GIL): the decision ends with fewer deals than asked
    and the search marked as out of budget, never past the deadline for want of a check."""
    from belote_arena_sdk import dd
    from sample_bots.expert.pimc import Pimc

    _, obs = _play_positions("classic", 11, every=1.0)[0]  # the first card of a deal: the costliest
    pimc = Pimc()
    pimc.rate = 1e12
    legal = [card_index(c) for c in obs.hand_cards]
    choice = pimc.choose(obs, legal, random.Random(1), budget_ms=1e9, max_samples=48, hard_ms=1.0)
    assert choice.samples < 48
    assert dd.aborted(pimc.ws)
