"""The expert bot's decisions before the play (issue 23 item 2): bids, schmeiss, contrée calls and
declarations valued on sampled deals solved double dummy (``sample_bots/expert/auction.py``).

- Its score of a deal equals the referee's (RULES.md §6.1–§6.4, §7) on random deals of every
  ruleset, doubled and redoubled included, and its best declaration choice is worth what the
  referee's best legal choice is.
- Hand-built positions: a hand with J-9-A of the turned suit takes (RULES.md §4), a hopeless one
  passes, a defender holding the trump's J-9-A-10 doubles (§6.4), a strong two-player hand
  refuses a schmeiss (§7); a declaration is worth announcing (§6.1).
- With no time to solve the heuristic's choice is made; the bot plays a board in the sandbox
  in every ruleset with no fault.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from belote_arena_sdk import pb
from referee import wire
from referee.rules import CARDS, Card, DealState, Phase, get_ruleset, observe
from referee.rules.actions import CALL_PASS, Bid, BidKind
from referee.rules.declarations import declaration_options

ROOT = Path(__file__).resolve().parents[1]
RULESETS = ("classic", "strict", "all-trumps", "two-player")


@pytest.fixture(scope="module")
def searcher():
    from sample_bots.expert.auction import Auction
    from sample_bots.expert.pimc import Pimc

    return Auction(Pimc())


def _deck(seat_first: dict[int, list[str]], turned: str, dealer: int, name: str, seed: int) -> list[Card]:
    """A deck whose deal (RULES.md §3.1; §7 for two players) gives each seat of ``seat_first`` those
    first cards (5, or 6 with two players) and turns ``turned``; the other cards at random."""
    rs = get_ruleset(name)
    n = rs.seats
    eldest = (dealer + 1) % n
    fixed = {Card.parse(t) for cs in seat_first.values() for t in cs} | {Card.parse(turned)}
    rest = [c for c in CARDS if c not in fixed]
    random.Random(seed).shuffle(rest)
    first = {s: [Card.parse(t) for t in cs] for s, cs in seat_first.items()}
    size = sum(rs.first_packets)
    for s in range(n):
        if s not in first:
            first[s] = [rest.pop() for _ in range(size)]
    deck: list[Card] = []
    taken = {s: 0 for s in range(n)}
    for packet in rs.first_packets:
        for i in range(n):
            s = (eldest + i) % n
            deck += first[s][taken[s]:taken[s] + packet]
            taken[s] += packet
    return deck + [Card.parse(turned)] + rest


def _obs(state: DealState, rs, contree: bool = False) -> pb.Observation:
    return wire.observation_pb(observe(state, state.to_act), options=wire.ruleset_options_pb(rs))


def _options(obs: pb.Observation, state: DealState) -> list:
    from sample_bots.expert.auction import PASS

    out = []
    for a in state.legal_actions():
        b = wire.action_pb(a, state.turned >> 3).bid
        if b.kind == pb.BID_KIND_PASS:
            out.append(PASS)
        elif b.kind == pb.BID_KIND_TAKE:
            out.append(("take", pb.TRUMP_MODE_SUIT, b.suit))
        elif b.kind == pb.BID_KIND_SCHMEISS:
            out.append(("schmeiss",))
    return out


# --- the score of a deal -------------------------------------------------------------------


@pytest.mark.parametrize("name,multiplier", [(n, 1) for n in RULESETS] + [("classic", 2), ("strict", 4)])
def test_deal_scores_equal_the_referees(name, multiplier):
    """RULES.md §6.2–§6.4, §7: from the trick points (capot as the search encodes it), the
    declarations and the belote of a random deal, the bot's score equals the referee's."""
    from sample_bots.expert.auction import Setup, deal_scores

    rs = get_ruleset(name)
    if multiplier > 1:
        rs = rs.with_options(contree=True)
    rng = random.Random(3)
    checked = 0
    while checked < 60:
        deck = list(CARDS)
        rng.shuffle(deck)
        state = DealState(rs, deck, rng.randrange(rs.seats))
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.phase is Phase.CONTREE and multiplier > 1:
                call = [a for a in legal if a != CALL_PASS]  # up to the multiplier wanted, then pass
                state.apply(call[0] if call and state.multiplier < multiplier else CALL_PASS)
                continue
            state.apply(rng.choice(legal))
        out = state.outcome()
        if state.taker is None or out.multiplier != multiplier:
            continue
        obs = wire.observation_pb(observe(state, 0), options=wire.ruleset_options_pb(rs))
        s = Setup.of(obs)
        total, half = 152 + rs.dix_de_der, rs.capot_bonus // 2
        tp = out.trick_points
        ns = total + half if out.capot == 0 and half else -half if out.capot == 1 and half else tp[0]
        win = out.declaration_team
        decl = [out.declarations[t] if t == win else 0 for t in (0, 1)]
        contract = (1, 0, state.taker)
        got = deal_scores(s, contract, ns, decl, list(out.declarations), list(out.belote), multiplier, sum(tp))
        assert tuple(got) == out.score, (name, out)
        checked += 1


@pytest.mark.parametrize("name", ["classic", "two-player"])
def test_best_declarations_are_worth_the_referees_best_choice(name):
    """RULES.md §6.1 (§7 two players): the hand's best choice is worth the most points of the
    referee's legal declaration choices."""
    from sample_bots.expert.auction import Setup, best_declarations

    rs = get_ruleset(name)
    rng = random.Random(11)
    deck = list(CARDS)
    rng.shuffle(deck)
    obs = wire.observation_pb(observe(DealState(rs, deck, 0), 0), options=wire.ruleset_options_pb(rs))
    s = Setup.of(obs)
    nonzero = 0
    for _ in range(3000):
        hand = sum(1 << c for c in rng.sample(range(32), rs.tricks))
        want = max(sum(d.points(rs.declarations) for d in choice) for choice in declaration_options(hand, rs.declarations))
        got, _ = best_declarations(hand, s, 0)
        assert got == want, (name, hand)
        nonzero += got > 0
    assert nonzero > 100


# --- hand-built positions -------------------------------------------------------------------


def test_a_hand_with_the_jack_nine_and_ace_of_the_turned_suit_takes(searcher):
    """RULES.md §4 round 1: eldest holding J-9-A of hearts with a heart turned takes: taking
    beats passing on the sampled deals by a wide margin."""
    from sample_bots.expert.auction import PASS

    rs = get_ruleset("classic")
    state = DealState(rs, _deck({0: ["JH", "9H", "AH", "7S", "8D"]}, "10H", 3, "classic", 1), 3)
    obs = _obs(state, rs)
    take = ("take", pb.TRUMP_MODE_SUIT, pb.SUIT_HEARTS)
    ev = searcher.evaluate_bids(obs, [PASS, take], random.Random(2), budget_ms=20_000, max_deals=12)
    assert ev.deals == 12
    assert ev.means[take] > ev.means[PASS] + 30, ev.means
    assert ev.means[take] > 40, ev.means


def test_a_hopeless_hand_passes(searcher):
    """A hand with no trump honour and no ace: taking the turned suit loses to passing."""
    from sample_bots.expert.auction import PASS

    rs = get_ruleset("classic")
    state = DealState(rs, _deck({0: ["7S", "8S", "7D", "8C", "9C"]}, "7H", 3, "classic", 4), 3)
    obs = _obs(state, rs)
    take = ("take", pb.TRUMP_MODE_SUIT, pb.SUIT_HEARTS)
    ev = searcher.evaluate_bids(obs, [PASS, take], random.Random(5), budget_ms=20_000, max_deals=12)
    assert ev.deals == 12
    assert ev.means[PASS] > ev.means[take] + 50, ev.means
    assert ev.means[take] < -50, ev.means


def test_a_defender_holding_the_trumps_doubles(searcher):
    """RULES.md §6.4: the defender after the taker holding J-9-A-10 of the trump and two side aces
    doubles: the contract fails on (nearly) every sampled deal, so contre beats passing."""
    rs = get_ruleset("classic").with_options(contree=True)
    state = DealState(rs, _deck({1: ["JH", "9H", "AH", "10H", "AS"]}, "7H", 3, "classic", 6), 3)
    state.apply(Bid(BidKind.TAKE))  # eldest (seat 0) takes hearts in round 1
    assert state.phase is Phase.CONTREE and state.to_act == 1
    obs = _obs(state, rs)
    ev = searcher.evaluate_call(obs, random.Random(8), budget_ms=20_000, max_deals=12)
    assert ev.deals == 12
    assert ev.means["call"] > ev.means["pass"] + 50, ev.means
    assert ev.means["pass"] > 100, ev.means


@pytest.mark.alone  # the bot's answer comes from what its 1000 ms budget lets it search
def test_the_bot_doubles_and_takes_through_its_evaluation():
    """The bot itself, with its time budget: the defender above answers contre, and the J-9-A hand
    takes (RULES.md §4, §6.4); hands in the band of doubt are valued on sampled deals."""
    from sample_bots.expert.bot import ExpertBot

    bot = ExpertBot()
    assert bot.loaded.wait(120) and bot.auction is not None
    rs = get_ruleset("classic").with_options(contree=True)
    state = DealState(rs, _deck({1: ["JH", "9H", "AH", "10H", "AS"]}, "7H", 3, "classic", 6), 3)
    state.apply(Bid(BidKind.TAKE))
    request = pb.DecideRequest(legal_actions=[wire.action_pb(a, state.turned >> 3) for a in state.legal_actions()],
                               deadline_ms=1000)
    request.observation.CopyFrom(_obs(state, rs))
    bot.clock.start(1000)
    answer = bot.decide(request)
    assert answer.call.kind == pb.CONTREE_CALL_KIND_CONTRE
    assert bot.last_deals >= 1


def test_a_strong_two_player_hand_refuses_a_schmeiss(searcher):
    """RULES.md §7: holding J-9-A-10 of the turned suit, refusing the opponent's schmeiss (it must
    then play the contract) beats a redeal."""
    rs = get_ruleset("two-player")
    state = DealState(rs, _deck({1: ["JS", "9S", "AS", "10S", "AH", "AD"]}, "7S", 1, "two-player", 9), 1)
    assert state.to_act == 0
    state.apply(Bid(BidKind.SCHMEISS))
    assert state.phase is Phase.SCHMEISS_ANSWER and state.to_act == 1
    ev = searcher.evaluate_schmeiss_answer(_obs(state, rs), random.Random(1), budget_ms=20_000, max_deals=16)
    assert ev.deals == 16
    assert ev.means["refuse"] > 30, ev.means


def test_a_declaration_is_worth_announcing(searcher):
    """RULES.md §6.1: eldest holding a quarte (and nothing the others can beat in this deck)
    scores it by declaring; declaring nothing is worth less on the sampled deals."""
    from sample_bots.expert.auction import choice_of

    rs = get_ruleset("classic")
    state = DealState(rs, _deck({0: ["7D", "8D", "9D", "10D", "AS"]}, "JS", 3, "classic", 12), 3)
    state.apply(Bid(BidKind.TAKE))
    while state.phase is not Phase.DECLARATION:
        state.apply(state.legal_actions()[0])
    assert state.to_act == 0
    obs = _obs(state, rs)
    legal = [wire.action_pb(a, state.turned >> 3) for a in state.legal_actions()]
    choices = [choice_of(list(a.declaration.declarations), 4, obs.trump_suit) for a in legal]
    ev = searcher.evaluate_declarations(obs, choices, random.Random(3), budget_ms=20_000, max_deals=8)
    assert ev.deals == 8
    most = max(range(len(choices)), key=lambda i: choices[i][0])
    none = next(i for i, c in enumerate(choices) if c[0] == 0)
    assert choices[most][0] >= 50
    assert ev.means[most] > ev.means[none] + 10, (choices, ev.means)


def test_out_of_time_the_heuristics_bid(searcher):
    """A decision with no time left to solve falls back to the heuristic bot's choice."""
    from sample_bots.expert.bot import ExpertBot
    from sample_bots.heuristic.bot import HeuristicBot

    bot = ExpertBot(load=False)
    bot.pimc, bot.auction = searcher.pimc, searcher
    rs = get_ruleset("classic")
    rng = random.Random(4)
    for k in range(20):
        deck = list(CARDS)
        rng.shuffle(deck)
        state = DealState(rs, deck, k % 4)
        request = pb.DecideRequest(legal_actions=[wire.action_pb(a, state.turned >> 3) for a in state.legal_actions()],
                                   deadline_ms=1)
        request.observation.CopyFrom(_obs(state, rs))
        bot.clock.start(1)
        assert bot.decide(request) == HeuristicBot().decide(request)
        assert bot.last_deals == 0


# --- short matches in the sandbox ------------------------------------------------------------


@pytest.mark.parametrize("name,option", [("classic", None), ("strict", "contree"), ("all-trumps", None),
                                         ("two-player", None)])
def test_a_board_in_the_sandbox_without_fault(tmp_path, name, option):
    """One board (two tables) against the heuristic bot in the sandbox, default limits and 1000 ms
    deadline, in each ruleset (contrée on in ``strict``): every answer legal, no fault (RULES.md §8)."""
    import belote_arena_sdk.dd  # noqa: F401  (the compiled cache exists before the image is made)
    from arena.play.schedule import suit_permutation
    from referee.manifest import load_manifest
    from referee.match import Entrant, MatchConfig, play_match
    from referee.rules import make_board, replay

    def entrant(folder: str) -> Entrant:
        manifest = load_manifest(ROOT / "sample_bots" / folder)
        return Entrant(key=manifest.key, manifest=manifest)

    rs = get_ruleset(name)
    if option:
        rs = rs.with_options(**{option: True})
    boards = [make_board(29, k, rs.seats) for k in range(1)]
    results = play_match("expert-auction-test", entrant("expert"), entrant("heuristic"), boards,
                         MatchConfig(ruleset=rs, seed=5), permutations=lambda k: suit_permutation(29, k))
    assert len(results) == 1
    for r in results:
        for t in r.tables:
            assert not t.faults, t.faults
            assert replay(t.record).outcome().score == t.outcome.score
