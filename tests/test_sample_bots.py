"""The sample bots: real processes over gRPC, and their decision logic on hand-built requests."""

from __future__ import annotations

import random
import signal
import tomllib
from pathlib import Path

import pytest

from belote_arena_sdk.proto import bot_pb2 as pb
from sample_bots.greedy.bot import GreedyBot
from sample_bots.heuristic.bot import HeuristicBot
from sample_bots.random.bot import RandomBot
from belote_arena_sdk import Bot, action_str
from tests.bot_process import running_bot, stop
from tests.bot_requests import observation, plays, request

BOTS_DIR = Path(__file__).resolve().parents[1] / "sample_bots"
BOT_CLASSES: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot}

B, SA, NT, DE, EX, PL = (
    pb.PHASE_BIDDING, pb.PHASE_SCHMEISS_ANSWER, pb.PHASE_NAME_TRUMP, pb.PHASE_DECLARATION, pb.PHASE_EXCHANGE,
    pb.PHASE_PLAY,
)

# One request per kind of decision and ruleset; every legal action listed by hand (RULES.md §4-§7).
SCENARIOS: dict[str, pb.DecideRequest] = {
    "classic bid round 1": request(
        observation(phase=B, hand="JH 9H AS 7C 8D", turned="10H"), ["pass", "take H"]),
    "classic bid round 2": request(
        observation(phase=B, hand="JS 9S AS 7C 8D", turned="10H", bidding_round=2),
        ["pass", "take S", "take D", "take C"]),
    "classic declaration": request(
        observation(phase=DE, hand="JS JH JD JC QC KC AC 7D", trump="H", taker=1, current=(1, "")),
        ["declare", "declare JS JH JD JC", "declare JC QC KC AC", "declare JS JH JD JC, QC KC AC"]),
    "classic lead": request(
        observation(hand="JH 9H AS 10S 7C 8D KH QH", trump="H", taker=0, seat=0, dealer=3),
        plays("JH 9H AS 10S 7C 8D KH QH", belote=["KH", "QH"])),
    "strict follow": request(
        observation("strict", hand="JH 9H AS 10S 7C 8D", trump="H", taker=1, seat=2, dealer=3,
                    tricks=[(0, "KD QD 7D 9D")], current=(0, "KS 7S")),
        plays("AS 10S")),
    "all-trumps round 3": request(
        observation("all-trumps", phase=B, hand="JH 9H JS AD 10D", turned="7C", bidding_round=3),
        ["pass", "all-trumps", "no-trumps"]),
    "all-trumps play": request(
        observation("all-trumps", hand="JH 9H JS AD 10D 7C 8C 9C", trump="all-trumps", taker=0,
                    current=(3, "10H")),
        plays("JH 9H")),
    "two-player bid round 1": request(
        observation("two-player", phase=B, dealer=1, hand="JH 9H AS 7C 8D KD", turned="10H",
                    turned_on_table=True),
        ["pass", "take H", "schmeiss"]),
    "two-player schmeiss answer": request(
        observation("two-player", phase=SA, seat=1, dealer=1, hand="JH 9H AS 7C 8D KD", turned="10H",
                    turned_on_table=True),
        ["accept", "refuse"]),
    "two-player name trump": request(
        observation("two-player", phase=NT, dealer=1, hand="JH 9H AS 7C 8D KD", turned="10H",
                    turned_on_table=True, bidding_round=2),
        ["name S", "name H", "name D", "name C"]),
    "two-player declaration": request(
        observation("two-player", phase=DE, dealer=1, hand="7S 8S 9S 10S JS QS AH KH 7D", turned="10H",
                    turned_on_table=True, trump="H", taker=0),
        ["declare", "declare 7S 8S 9S 10S JS QS"]),
    "two-player exchange": request(
        observation("two-player", phase=EX, dealer=1, hand="7H 8S 9S 10S JS QS AH KH 7D", turned="JH",
                    turned_on_table=True, trump="H", taker=0),
        ["no-exchange", "exchange"]),
    "classic contre": request(
        observation(phase=pb.PHASE_CONTREE, seat=1, hand="JH 9H AH 7H AS 10S KD 8C", trump="H", taker=0),
        ["call pass", "contre"]),
    "strict surcontre": request(
        observation("strict", phase=pb.PHASE_CONTREE, seat=0, hand="JH 9H AH 10H KH AS AD AC", trump="H", taker=0),
        ["call pass", "surcontre"]),
    "two-player play": request(
        observation("two-player", seat=1, dealer=1, hand="7H 8S 9S 10S JS QS AH KH 7D", turned="JH",
                    turned_on_table=True, trump="H", taker=0, current=(0, "AS")),
        plays("8S 9S 10S JS QS")),
}


def _manifest(name: str) -> dict:
    return tomllib.loads((BOTS_DIR / name / "bot.toml").read_text())


@pytest.mark.parametrize("name", list(BOT_CLASSES))
def test_manifest(name: str) -> None:
    m = _manifest(name)
    assert m["name"] == name
    assert m["command"] == ["python", "bot.py"] and m["protocol"] == "1.0"
    assert set(m["rulesets"]) == {"classic", "strict", "all-trumps", "two-player"}
    assert isinstance(m["version"], str) and isinstance(m["author"], str)


@pytest.mark.parametrize("name", list(BOT_CLASSES))
def test_bot_process_answers_legally_and_stops(name: str) -> None:
    """Start the bot as the referee does, ask GetBotInfo and every scenario over gRPC, then SIGTERM."""
    m = _manifest(name)
    with running_bot(BOTS_DIR / name, env={"BELOTE_BOT_SEED": "3"}, use_flag=name != "random") as bot:
        info = bot.stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=5)
        assert (info.name, info.version, info.author) == (m["name"], m["version"], m["author"])
        assert list(info.rulesets) == m["rulesets"] and info.protocol_version == "1.0"
        bot.stub.StartMatch(pb.StartMatchRequest(match_id="t", ruleset="classic", seat=0), timeout=5)
        for label, req in SCENARIOS.items():
            answer = bot.stub.Decide(req, timeout=5).action
            assert answer in req.legal_actions, f"{name} answered {action_str(answer)!r} to {label}"
        bot.stub.EndMatch(pb.EndMatchRequest(match_id="t", scores=[100, 60]), timeout=5)
        status, took = stop(bot.proc, signal.SIGTERM, timeout_s=2.0)
        assert status == 0 and took < 2.0


@pytest.mark.parametrize("name", list(BOT_CLASSES))
@pytest.mark.parametrize("label", list(SCENARIOS))
def test_in_process_answer_is_legal(name: str, label: str) -> None:
    req = SCENARIOS[label]
    assert BOT_CLASSES[name](seed=1).decide(req) in req.legal_actions


def _decide(bot: Bot, obs: pb.Observation, legal: list[str]) -> str:
    return action_str(bot.decide(request(obs, legal)))


# --- random ------------------------------------------------------------------------


def test_random_uses_its_seeded_rng() -> None:
    req = SCENARIOS["classic lead"]
    draws = {action_str(RandomBot(seed=s).decide(req)) for s in range(40)}
    assert len(draws) > 3, "different seeds spread over the legal actions"
    a, b = RandomBot(seed=5), RandomBot(seed=5)
    assert [a.decide(req) for _ in range(10)] == [b.decide(req) for _ in range(10)]


# --- greedy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand, turned, rnd, legal, want",
    [
        ("JH 8H 8S 9D 10C", "AH", 1, ["pass", "take H"], "take H"),       # jack + 2 more with the turned card
        ("9H 7H 8S 9D 10C", "AH", 1, ["pass", "take H"], "take H"),       # nine + 2 more
        ("JH 7S 8S 9D 10C", "AH", 1, ["pass", "take H"], "pass"),         # jack but only 2 trumps
        ("AH 10H KH 9D 10C", "7H", 1, ["pass", "take H"], "pass"),        # neither jack nor nine
        ("9S 7S 8S JD 8D 10D", "AH", 2, ["pass", "take S", "take D", "take C"], "take D"),  # the jack first
        ("9S 7S 9D 8D 10D", "AH", 2, ["pass", "take S", "take D", "take C"], "take D"),  # then length
        ("JH JS JD JC 9C", "AH", 3, ["pass", "all-trumps", "no-trumps"], "pass"),
    ],
)
def test_greedy_bids(hand: str, turned: str, rnd: int, legal: list[str], want: str) -> None:
    obs = observation("all-trumps" if rnd == 3 else "classic", phase=B, hand=hand, turned=turned, bidding_round=rnd)
    assert _decide(GreedyBot(), obs, legal) == want


def test_greedy_never_announces_and_refuses_schmeiss() -> None:
    g = GreedyBot()
    assert _decide(g, SCENARIOS["two-player schmeiss answer"].observation, ["accept", "refuse"]) == "refuse"
    assert _decide(g, SCENARIOS["classic declaration"].observation,
                   ["declare JS JH JD JC", "declare", "declare JC QC KC AC"]) == "declare"
    assert _decide(g, SCENARIOS["two-player exchange"].observation, ["exchange", "no-exchange"]) == "no-exchange"
    assert action_str(g.decide(SCENARIOS["classic lead"])) == "play JH"


def test_greedy_names_longest_suit() -> None:
    obs = observation("two-player", phase=NT, hand="7C 8C 10C JH 9H AS", turned="10H", bidding_round=2)
    assert _decide(GreedyBot(), obs, ["name S", "name H", "name D", "name C"]) == "name C"


@pytest.mark.parametrize(
    "trump, legal, want",
    [
        ("H", plays("AS 10S 7H"), "play AS"),           # rank in its own suit, a trump not preferred
        ("H", plays("AS 10S KS"), "play AS"),           # plain order A 10 K
        ("all-trumps", plays("AS 9S JS"), "play JS"),   # trump order J 9 A
        ("no-trumps", plays("JS AS 10S"), "play AS"),
        ("H", plays("KH QH", belote=["KH", "QH"]), "play KH"),   # never belote
    ],
)
def test_greedy_plays_highest(trump: str, legal: list[str], want: str) -> None:
    obs = observation("classic" if trump == "H" else "all-trumps", hand="AS 10S 7H KS JS 9S KH QH", trump=trump,
                      taker=1)
    assert _decide(GreedyBot(), obs, legal) == want


# --- heuristic: bidding --------------------------------------------------------------


@pytest.mark.parametrize(
    "ruleset, hand, turned, rnd, legal, want",
    [
        # J 9 of the turned suit plus the turned ace and a side ace: a clear take
        ("classic", "JH 9H AS 7C 8D", "AH", 1, ["pass", "take H"], "take H"),
        # nothing in the turned suit
        ("classic", "7H 8S 9D QC KC", "AH", 1, ["pass", "take H"], "pass"),
        # J + A of trump, a side ace + ten: 20+11+11+8 = 50 -> takes in classic and strict
        ("strict", "JH AS 10S 7C 8D", "AH", 1, ["pass", "take H"], "take H"),
        # J 10 7 + turned 8 of trump, side ace: 20+10+2+2+12+11 = 57 minus nothing: takes
        ("classic", "JH 10H 7H AS 8D", "8H", 1, ["pass", "take H"], "take H"),
        # round 2 names its strong suit, not the weak one
        ("classic", "JS 9S AS 7C AD", "10H", 2, ["pass", "take S", "take D", "take C"], "take S"),
        # round 3 of all-trumps: two jacks and a nine
        ("all-trumps", "JH 9H JS 7D 8C", "7C", 3, ["pass", "all-trumps", "no-trumps"], "all-trumps"),
        # round 3: aces and tens -> no-trumps
        ("all-trumps", "AH 10H AS 10S 8C", "7C", 3, ["pass", "all-trumps", "no-trumps"], "no-trumps"),
        ("all-trumps", "7H 8H 9S QD 8C", "7C", 3, ["pass", "all-trumps", "no-trumps"], "pass"),
    ],
)
def test_heuristic_bids(ruleset: str, hand: str, turned: str, rnd: int, legal: list[str], want: str) -> None:
    obs = observation(ruleset, phase=B, hand=hand, turned=turned, bidding_round=rnd)
    assert _decide(HeuristicBot(), obs, legal) == want


def test_heuristic_needs_more_in_strict() -> None:
    # J + turned 9 of trump and a side ace: 20 + 14 + 11 = 45, over 44 (classic) but under 48 (strict)
    hand, turned = "JH AS 7S 8D QC", "9H"
    for ruleset, want in (("classic", "take H"), ("strict", "pass")):
        obs = observation(ruleset, phase=B, hand=hand, turned=turned)
        assert _decide(HeuristicBot(), obs, ["pass", "take H"]) == want, ruleset


def test_heuristic_two_player_bidding_and_schmeiss() -> None:
    h = HeuristicBot()
    legal = ["pass", "take H", "schmeiss"]
    strong = observation("two-player", phase=B, hand="JH 9H AH AS 10S 7D", turned="8H", turned_on_table=True)
    assert _decide(h, strong, legal) == "take H"
    # 7 of trump held: the exchange brings the turned jack, which counts for the take
    with_seven = observation("two-player", phase=B, hand="7H 9H AS 10S 8D 7C", turned="JH", turned_on_table=True)
    assert _decide(h, with_seven, legal) == "take H"
    junk = observation("two-player", phase=B, hand="7H 8S 9D QC KC 7D", turned="AH", turned_on_table=True)
    assert _decide(h, junk, legal) == "pass"
    # just under the take threshold 38: schmeiss (9 A of trump 14 + 11, a side ace 11 = 36)
    marginal = observation("two-player", phase=B, hand="9H AH AS 7S 8C QD", turned="QH", turned_on_table=True)
    assert _decide(h, marginal, legal) == "schmeiss"
    answer = ["accept", "refuse"]
    assert _decide(h, observation("two-player", phase=SA, seat=1, hand="JH 9H AS 10S 8D 7C", turned="KH",
                                  turned_on_table=True), answer) == "refuse"
    assert _decide(h, observation("two-player", phase=SA, seat=1, hand="7S 8S 9D QC KC 7D", turned="KH",
                                  turned_on_table=True), answer) == "accept"
    named = observation("two-player", phase=NT, hand="7H 8H JC 9C AC 10D", turned="KH", turned_on_table=True,
                        bidding_round=2)
    assert _decide(h, named, ["name S", "name H", "name D", "name C"]) == "name C"


# --- heuristic: announcements -------------------------------------------------------------


def test_heuristic_declares_the_best_choice() -> None:
    assert action_str(HeuristicBot().decide(SCENARIOS["classic declaration"])) == "declare JS JH JD JC, QC KC AC"
    assert action_str(HeuristicBot().decide(SCENARIOS["two-player declaration"])) == "declare 7S 8S 9S 10S JS QS"


def test_heuristic_announces_belote() -> None:
    obs = observation(hand="KH QH 7S", trump="H", taker=1, seat=0, current=(3, "8H"))
    assert _decide(HeuristicBot(), obs, plays("KH QH", belote=["KH", "QH"])).endswith(" belote")


@pytest.mark.parametrize("turned, want", [("JH", "exchange"), ("AH", "exchange"), ("8H", "no-exchange")])
def test_heuristic_exchanges_the_trump_seven(turned: str, want: str) -> None:
    obs = observation("two-player", phase=EX, hand="7H 8S 9S 10S JS QS AH KH 7D", turned=turned,
                      turned_on_table=True, trump="H", taker=0)
    assert _decide(HeuristicBot(), obs, ["no-exchange", "exchange"]) == want


# --- contrée calls (RULES.md §6.4) -------------------------------------------------------


def test_heuristic_doubles_only_a_contract_its_trumps_make_unlikely() -> None:
    h, legal = HeuristicBot(), ["call pass", "contre"]
    # J 9 A 7 of the attackers' trump and a side ace-ten: 20+14+11+2 + 2x6 + 11+8 + 2 + 2 = 82
    assert action_str(h.decide(SCENARIOS["classic contre"])) == "contre"
    # two small trumps: pass
    weak = observation(phase=pb.PHASE_CONTREE, seat=1, hand="7H 8H AS KS QD JD 9C 8C", trump="H", taker=0)
    assert _decide(h, weak, legal) == "call pass"
    # three trumps but only the jack among J, 9, A: pass however strong the side suits
    one_honour = observation(phase=pb.PHASE_CONTREE, seat=3, hand="JH 8H 7H AS 10S AD 10D AC", trump="H", taker=0)
    assert _decide(h, one_honour, legal) == "call pass"


def test_heuristic_redoubles_only_when_sure() -> None:
    h, legal = HeuristicBot(), ["call pass", "surcontre"]
    assert action_str(h.decide(SCENARIOS["strict surcontre"])) == "surcontre"
    # a normal take (J 9 of trump, a side ace: 20+14+2 + 6 + 11 = 53): pass
    normal = observation(phase=pb.PHASE_CONTREE, seat=0, hand="JH 9H 7H AS 8D 9C 10C 7S", trump="H", taker=0)
    assert _decide(h, normal, legal) == "call pass"


def test_greedy_never_doubles() -> None:
    assert action_str(GreedyBot().decide(SCENARIOS["classic contre"])) == "call pass"


# --- heuristic: card play -------------------------------------------------------------------


def test_taker_draws_trumps_with_the_master_trump() -> None:
    obs = observation(hand="JH 7H AS 10S 7C 8D KD QC", trump="H", taker=0, seat=0, dealer=3)
    assert _decide(HeuristicBot(), obs, plays("JH 7H AS 10S 7C 8D KD QC")) == "play JH"


def test_defender_cashes_a_master_ace_not_a_trump() -> None:
    obs = observation(hand="9H 7H AS 10S 7C 8D KD QC", trump="H", taker=1, seat=0, dealer=3)
    assert _decide(HeuristicBot(), obs, plays("9H 7H AS 10S 7C 8D KD QC")) == "play AS"


def test_lead_avoids_an_unguarded_ten_and_leads_low() -> None:
    # the ace of spades is still out: leading 10S would feed it
    obs = observation(hand="10S 8C KD", trump="H", taker=1, seat=0, dealer=3,
                      tricks=[(0, "AC 7C QC 9C"), (0, "AD 7D QD 8D"), (0, "10C 8H JC KC"),
                              (3, "7S 8S 9S JS"), (2, "10D 9D JD 7H")])
    assert _decide(HeuristicBot(), obs, plays("10S 8C KD")) == "play 8C"


def test_smears_a_ten_on_the_partners_sure_trick() -> None:
    # seat 3 third to play: partner (seat 1) led the master AS, nobody is known void in spades
    obs = observation(hand="10S 7S KD 8C", trump="H", taker=1, seat=3, dealer=3,
                      current=(1, "AS 8S"))
    assert _decide(HeuristicBot(), obs, plays("10S 7S")) == "play 10S"


def test_plays_low_when_partner_may_be_overtaken() -> None:
    # seat 3 third to play: partner (seat 1) is master with KS, but AS and 10S are still out and seat 0 follows
    obs = observation(hand="QS 7S KD 8C", trump="H", taker=1, seat=3, dealer=3, current=(1, "KS 8S"))
    assert _decide(HeuristicBot(), obs, plays("QS 7S")) == "play 7S"


def test_wins_with_a_sure_winner_and_discards_low_otherwise() -> None:
    h = HeuristicBot()
    # second to play: our AS is the master of spades -> win with it
    obs = observation(hand="AS 7S KD 8C", trump="H", taker=1, seat=2, dealer=3, current=(1, "KS"))
    assert _decide(h, obs, plays("AS 7S")) == "play AS"
    # cannot follow nor trump, opponent master: discard the lowest card, keep points
    obs = observation(hand="10D 7C AD", trump="H", taker=1, seat=2, dealer=3, current=(1, "KS"))
    assert _decide(h, obs, plays("10D 7C AD")) == "play 7C"


def test_last_to_play_ruffs_with_the_lowest_winning_trump() -> None:
    obs = observation(hand="JH 7H 8H 9D", trump="H", taker=0, seat=0, dealer=3, current=(1, "AS 10S KS"))
    assert _decide(HeuristicBot(), obs, plays("JH 7H 8H")) == "play 7H"


def test_two_player_follow_wins_cheaply_when_last() -> None:
    obs = observation("two-player", seat=1, dealer=1, hand="AS 10S 7S 8D", trump="H", taker=0, turned="JH",
                      turned_on_table=True, current=(0, "KS"))
    assert _decide(HeuristicBot(), obs, plays("AS 10S 7S")) in {"play AS", "play 10S"}


def test_heuristic_is_deterministic() -> None:
    for req in SCENARIOS.values():
        assert HeuristicBot(seed=1).decide(req) == HeuristicBot(seed=2).decide(req)


# --- heuristic against random, played by the rules engine -------------------------------------


def _play_deal(ruleset, deck, dealer: int, bots: list[Bot]) -> tuple[int, ...]:
    """Play one deal with in-process bots through the referee's rules engine and wire conversion."""
    from referee import wire
    from referee.rules import DealState, observe

    state = DealState(ruleset, deck, dealer)
    options = wire.ruleset_options_pb(ruleset, board_count=1)
    while not state.is_terminal():
        seat = state.to_act
        obs = observe(state, seat)
        turned_suit = int(state.turned) >> 3
        legal = [wire.action_pb(a, turned_suit) for a in obs.legal_actions]
        req = pb.DecideRequest(observation=wire.observation_pb(obs, options=options), legal_actions=legal)
        answer = bots[seat].decide(req)
        state.apply_checked(seat, obs.legal_actions[legal.index(answer)])
    return tuple(state.outcome().score)


@pytest.mark.parametrize("ruleset_name", ["classic", "strict", "all-trumps", "two-player"])
def test_heuristic_beats_random_in_duplicate(ruleset_name: str) -> None:
    """Duplicate boards (RULES.md §8): each deck is played twice with the seats swapped."""
    pytest.importorskip("referee.wire")
    from referee.rules import CARDS, get_ruleset

    ruleset = get_ruleset(ruleset_name)
    seats = ruleset.seats
    rng = random.Random(2024)
    boards, won, margin = 40, 0, 0
    for board in range(boards):
        deck = list(CARDS)
        rng.shuffle(deck)
        total = 0
        for heuristic_team in (0, 1):
            bots = [HeuristicBot() if s % 2 == heuristic_team else RandomBot(seed=board * 8 + s) for s in range(seats)]
            score = _play_deal(ruleset, deck, board % seats, bots)
            total += score[heuristic_team] - score[1 - heuristic_team]
        won += total > 0
        margin += total
    assert won >= boards * 0.65 and margin > 0, f"{ruleset_name}: won {won}/{boards} boards, margin {margin}"
