"""Issue 24 item 4: ``arena bots check`` asks every kind of decision a bot will meet, on positions
chosen for it, under every ruleset the bot claims and every value of each RULES.md §6.4 option.

The engine-only tests state by hand which situations each ruleset has and check every found
position against the rule that names it; the end-to-end tests run the check on bots that are
wrong in one place only, and on the sample bot, in the sandbox.
"""

from __future__ import annotations

import json
import random

import pytest

from arena.play.coverage import (
    SITUATIONS, config_label, expected_situations, find_positions, option_configs, situation,
)
from referee.rules import RULESETS, Bid, Call, Declare, Exchange, NameTrump, Phase, Play, SchmeissAnswer
from referee.rules.ruleset import TRUMP_STRENGTH
from tests.arena.conftest import SAMPLES, cli, output
from tests.referee.botkit import bot_folder

CARD = ("card: lead", "card: follow suit", "card: ruff", "card: discard", "card: may announce belote")
FOUR_PLAYER_CARD = CARD + ("card: follow, must beat", "card: overtrump", "card: undertrump")

#: By hand from RULES.md: §4 two bidding rounds (§6.3: a third in all-trumps), §6.1 declarations
#: (none in all-trumps), §6.4 contre and surcontre, §5.1 monter and §5.3 the trump obligations
#: (four players), §7 schmeiss, naming a trump and the trump-7 exchange (two players, where a
#: trick of two cards never holds a trump before a ruff: no overtrump, no undertrump).
CLASSIC_BIDS = {"bid, round 1", "bid, round 2"}
CONTREE = {"contre", "surcontre"}
EXPECTED = {
    "classic (declarations=on, contree=off)": CLASSIC_BIDS | {"declaration", *FOUR_PLAYER_CARD},
    "classic (declarations=on, contree=on)": CLASSIC_BIDS | CONTREE | {"declaration", *FOUR_PLAYER_CARD},
    "classic (declarations=off, contree=on)": CLASSIC_BIDS | CONTREE | {*FOUR_PLAYER_CARD},
    "classic (declarations=off, contree=off)": CLASSIC_BIDS | {*FOUR_PLAYER_CARD},
    "strict (declarations=on, contree=off)": CLASSIC_BIDS | {"declaration", *FOUR_PLAYER_CARD},
    "strict (declarations=on, contree=on)": CLASSIC_BIDS | CONTREE | {"declaration", *FOUR_PLAYER_CARD},
    "strict (declarations=off, contree=on)": CLASSIC_BIDS | CONTREE | {*FOUR_PLAYER_CARD},
    "strict (declarations=off, contree=off)": CLASSIC_BIDS | {*FOUR_PLAYER_CARD},
    # §5.3: "in all-trumps you may play any card" holding only lower trumps: no undertrump
    "all-trumps": CLASSIC_BIDS | {"bid, round 3", *FOUR_PLAYER_CARD} - {"card: undertrump"},
    "two-player (declarations=on)": CLASSIC_BIDS | {"schmeiss answer", "name trump", "trump-7 exchange", "declaration",
                                                    *CARD},
    "two-player (declarations=off)": CLASSIC_BIDS | {"schmeiss answer", "name trump", "trump-7 exchange", *CARD},
}
CONFIGS = [c for name in RULESETS for c in option_configs(name)]


def test_every_combination_of_option_values_is_covered_rules_6_4():
    """RULES.md §6.4: each ruleset with options is checked under every combination of their
    values, its defaults first; all-trumps has none."""
    assert [config_label(c) for c in CONFIGS] == list(EXPECTED)


@pytest.mark.parametrize("ruleset", CONFIGS, ids=config_label)
def test_each_ruleset_has_the_situations_its_rules_make(ruleset):
    assert set(expected_situations(ruleset)) == EXPECTED[config_label(ruleset)]


def _suit(card: int) -> int:
    return card >> 3


def _agrees_with_the_rules(state, legal, name: str) -> None:
    """What makes a position the situation it is named, checked from the seat's hand, the trick
    and the legal actions alone (RULES.md §4–§7), not by the classifier's code."""
    kinds = {type(a) for a in legal}
    if name.startswith("bid"):
        assert kinds == {Bid} and state.bidding_round + 1 == int(name[-1])
        return
    if name in ("contre", "surcontre"):  # §6.4: a contre doubles, a surcontre redoubles it
        assert kinds == {Call} and state.multiplier == (1 if name == "contre" else 2)
        return
    if not name.startswith("card"):
        assert kinds == {{"schmeiss answer": SchmeissAnswer, "name trump": NameTrump, "trump-7 exchange": Exchange,
                          "declaration": Declare}[name]}
        return
    assert kinds == {Play}
    hand = [c for c in range(32) if state.hands[state.to_act] >> c & 1]
    cards = {a.card for a in legal}
    if name == "card: may announce belote":  # §5: the first card of the trump K+Q pair
        assert any(a.belote for a in legal)
        return
    assert not any(a.belote for a in legal)
    if name == "card: lead":
        assert not state.trick and cards == set(hand)
        return
    led = _suit(state.trick[0][1])
    same = {c for c in hand if _suit(c) == led}
    if name == "card: follow suit":
        assert same and cards == same
    elif name == "card: follow, must beat":  # §5.1 monter: only cards above the trick's best
        assert same and cards < same
    elif name == "card: discard":
        assert not same and cards == set(hand)
    else:  # §5.2–§5.3: void in the led suit, a trump must be played
        trump = int(state.trump)
        trumps = {c for c in hand if _suit(c) == trump}
        assert not same and cards <= trumps and cards
        in_trick = [TRUMP_STRENGTH[c & 7] for _, c in state.trick if _suit(c) == trump]
        top = max(in_trick, default=-1)
        if name == "card: ruff":
            assert cards == trumps
        elif name == "card: overtrump":  # only the trumps above the trick's, a lower one held
            assert in_trick and all(TRUMP_STRENGTH[c & 7] > top for c in cards) and cards < trumps
        else:  # undertrump: none above the trick's trump, one must still be played
            assert name == "card: undertrump" and in_trick and all(TRUMP_STRENGTH[c & 7] < top for c in trumps)


@pytest.mark.parametrize("ruleset", CONFIGS, ids=config_label)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_engine_finds_one_position_of_each_situation_for_the_seat(ruleset, seed):
    """Every situation the ruleset has is found (no luck left to the bot: the engine plays the
    deals), for the seat asked, with two legal actions or more, and each is what its name says."""
    seat = seed % 2
    positions = find_positions(ruleset, seat, random.Random(seed))
    assert [p.situation for p in positions] == [s for s in SITUATIONS if s in EXPECTED[config_label(ruleset)]]
    for p in positions:
        state = p.state()
        legal = state.legal_actions()
        assert state.to_act == seat and len(legal) > 1 and state.phase is not Phase.DONE
        assert situation(state, legal) == p.situation
        _agrees_with_the_rules(state, legal, p.situation)


def test_positions_are_reproducible_from_the_random_state():
    a = find_positions(RULESETS["classic"], 0, random.Random(7))
    b = find_positions(RULESETS["classic"], 0, random.Random(7))
    assert a == b


# ---------------------------------------------------------------- end to end, in the sandbox


def test_the_sample_bot_is_asked_every_situation_of_every_ruleset():
    """The report names every situation of every configuration, each answered."""
    r = cli("bots", "check", SAMPLES / "random", "--boards", 1)
    assert r.exit_code == 0, output(r)
    assert f"on chosen positions ({sum(map(len, EXPECTED.values()))} asked)" in r.stdout
    for name in SITUATIONS:
        assert name in r.stdout
    assert "asked under: classic (declarations=on, contree=off); classic" in r.stdout
    assert "wrong answer" not in output(r)


def test_a_bot_wrong_only_in_two_player_fails_the_check_showing_the_request(tmp_path):
    bot = bot_folder(tmp_path, "blindspot", "--ruleset", "two-player")
    r = cli("bots", "check", bot, "--boards", 1)
    assert r.exit_code == 1, output(r)
    text = output(r)
    assert "21 wrong answer(s) to the 123 chosen positions; the first: two-player (declarations=on), seat 1, " \
           "bid, round 1: wrong-kind" in " ".join(text.split())
    assert "\n    observation: seat 1 (team 1)" in text and "\n    legal actions: pass, take" in text
    assert "answer: play {" in text  # the card it answered to a bid
    assert "conformance check failed" in text


def test_a_bot_wrong_only_when_asked_to_declare_is_refused_by_submit(tmp_path):
    bot = bot_folder(tmp_path, "blindspot", "--phase", "DECLARATION")
    db = tmp_path / "arena.duckdb"
    r = cli("bots", "submit", bot, "--db", db)
    assert r.exit_code == 1, output(r)
    text = " ".join(output(r).split())
    assert "blindspot@1.0.0 failed the conformance check (run `arena bots check" in text
    assert "for the full report): 5 wrong answer(s) to the 123 chosen positions" in text
    assert "classic (declarations=on, contree=off), seat 0, declaration: wrong-kind" in text
    assert "legal actions: declares nothing, declares" in text and "answer: bid { kind: BID_KIND_PASS }" in text
    assert not (tmp_path / "bots").exists() or not any((tmp_path / "bots").rglob("bot.toml"))
    r = cli("bots", "list", "--json", "--db", db)
    assert "blindspot" not in r.stdout


def test_a_surcontre_the_bot_gets_wrong_is_found_under_the_contree_option(tmp_path):
    """RULES.md §6.4: the contree option is off by default, so only the check's switched
    configuration meets the surcontre; a tournament under the defaults does not ask it."""
    bot = bot_folder(tmp_path, "blindspot", "--surcontre")
    r = cli("bots", "check", bot, "--boards", 1)
    assert r.exit_code == 1, output(r)
    text = " ".join(output(r).split())
    assert "4 wrong answer(s)" in text and "classic (declarations=on, contree=on), seat 1, surcontre: wrong-kind" in text
    r = cli("bots", "check", bot, "--boards", 1, "--ruleset", "classic")  # classic as played by default
    assert r.exit_code == 0, output(r)


def test_the_same_seed_asks_the_same_positions(tmp_path):
    """A failure can be asked again after a fix: ``--seed`` draws the same positions."""
    bot = bot_folder(tmp_path, "blindspot", "--phase", "DECLARATION")
    shown = []
    for _ in range(2):
        r = cli("bots", "check", bot, "--boards", 1, "--ruleset", "classic", "--seed", 41)
        assert r.exit_code == 1, output(r)
        text = output(r)
        assert "positions and boards drawn from seed 41: `--seed 41` asks the same again" in text
        shown.append(text[text.index("observation:"):text.index("answer:")])
    assert shown[0] == shown[1]


def test_a_ruleset_the_manifest_does_not_list_is_refused(tmp_path):
    bot = bot_folder(tmp_path, "blindspot")
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('rulesets = ["classic", "strict", "all-trumps", "two-player"]',
                                             'rulesets = ["two-player"]'))
    r = cli("bots", "check", bot, "--ruleset", "classic")
    assert r.exit_code == 1 and "blindspot@1.0.0 does not play classic (its bot.toml lists two-player)" in output(r)


def test_a_bot_not_built_yet_is_told_to_build(tmp_path):
    bot = bot_folder(tmp_path, "blindspot")
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text().replace('command = ["python", "bot.py"]', 'command = ["./bot"]'))
    r = cli("bots", "check", bot)
    assert r.exit_code == 1, output(r)
    assert "its command runs ./bot, which is not in" in output(r) and "build the bot first" in output(r)


def test_the_report_as_json_for_a_bots_ci(tmp_path):
    """``--json``: stdout is one object a script can read; a wrong answer is in it whole."""
    bot = bot_folder(tmp_path, "blindspot", "--phase", "DECLARATION")
    r = cli("bots", "check", bot, "--boards", 1, "--ruleset", "two-player", "--seed", 3, "--json")
    assert r.exit_code == 1, output(r)
    report = json.loads(r.stdout)
    assert report["ok"] is False and report["bot"] == "blindspot@1.0.0" and report["seed"] == "3"
    assert report["configs"] == ["two-player (declarations=on)"] and report["not_asked"] == []
    positions = report["positions"]
    assert [p["situation"] for p in positions] == sorted(EXPECTED["two-player (declarations=on)"], key=SITUATIONS.index)
    (wrong,) = [p for p in positions if not p["ok"]]
    assert wrong["situation"] == "declaration" and wrong["fault"] == "wrong-kind" and wrong["seat"] == 0
    assert "legal actions: declares nothing" in wrong["shown"]
    assert report["problems"][0].startswith("1 wrong answer(s) to the 11 chosen positions")


HICCUP_BOT = '''
import os, sys, time
from belote_arena_sdk import Bot, serve

MARK = sys.argv[1]


class Hiccup(Bot):
    """Sleeps past the deadline on the first decision it is ever asked (across processes)."""

    def decide(self, request):
        if not os.path.exists(MARK):
            open(MARK, "w").close()
            time.sleep(3)
        return self.rng.choice(request.legal_actions)


raise SystemExit(serve(Hiccup(), sys.argv[2:]))
'''


def test_a_position_timed_out_once_is_asked_again_and_twice_is_wrong(tmp_path):
    """A loaded machine made the sample bot miss one position's deadline (load 15) and fail the
    check: a timeout is asked once more, of a new process, and only a second one is wrong.  A
    bot that times out once answers every position; one that always sleeps fails at each."""
    from arena.play.coverage import ask_positions
    from referee.manifest import load_manifest
    from referee.sandbox import Limits
    from tests.referee.attackkit import out_folder

    out = out_folder(tmp_path)  # each bot process runs as a uid of its own
    folder = tmp_path / "hiccup"
    folder.mkdir()
    (folder / "bot.py").write_text(HICCUP_BOT)
    (folder / "bot.toml").write_text(
        'name = "hiccup"\nversion = "1.0.0"\nauthor = "tests"\n'
        f'command = ["python", "bot.py", "{out}/slept"]\nprotocol = "1.0"\nrulesets = ["classic"]\n')
    rs = RULESETS["classic"]
    positions = find_positions(rs, 0, random.Random(1))[:3]
    answers = ask_positions(load_manifest(folder), rs, positions, limits=Limits(writable=(str(out),)),
                            decision_ms=1000)
    assert (out / "slept").exists()  # it did miss a deadline once
    assert [(a.situation, a.kind) for a in answers] == [(p.situation, None) for p in positions]

    sleepy = bot_folder(tmp_path, "sleepy", "--sleep", "3", "--every")
    answers = ask_positions(load_manifest(sleepy), rs, positions[:2], limits=Limits(), decision_ms=1000)
    assert [a.kind for a in answers] == ["timeout", "timeout"]
