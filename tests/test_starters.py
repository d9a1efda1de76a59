"""The starter bots of the three languages (issue 24): the Node.js and C++ starters
(sample_bots/node, sample_bots/cpp) and the Python template of ``arena bots new``, as real
processes (unsandboxed here; tests/arena/test_starters.py plays them sandboxed).

Each answers the same hand-built requests of every kind the same way, over ``Decide`` and
over ``DecideStream``: the play the starters document (lead the strongest card, follow with
the lowest winning card, otherwise the cheapest; belote announced; take on the jack and three
cards; the declaration listing the most cards; pass a contrée call; exchange; refuse a
schmeiss; name the longest suit). Their protocol copies are the arena's, and the template
lists hold every file of the starters.
"""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from arena.play.newbot import LANGUAGES, new_bot
from belote_arena_sdk import action_str
from belote_arena_sdk.proto import bot_pb2 as pb
from referee.manifest import load_manifest
from tests.bot_process import running_bot
from tests.bot_requests import observation, plays, request
from tests.toolchains import STARTERS, install_message, require, starter

REPO = Path(__file__).resolve().parents[1]
PROTO = "proto/belote/bot/v1/bot.proto"
B, DE = pb.PHASE_BIDDING, pb.PHASE_DECLARATION

#: name -> (request, the starters' answer)
SCENARIOS: dict[str, tuple[pb.DecideRequest, str]] = {
    "lead the strongest card": (request(
        observation(hand="AS 10S 7C JH", trump="H", taker=0, seat=0, dealer=3), plays("AS 10S 7C JH")), "play JH"),
    "follow with the lowest winning card": (request(
        observation(hand="AS 10S 8D", trump="H", taker=0, seat=0, dealer=3, current=(2, "KS 7S")),
        plays("AS 10S")), "play 10S"),
    "the cheapest when nothing wins": (request(
        observation(hand="10S KS 8D", trump="H", taker=0, seat=0, dealer=3, current=(2, "AS 7S")),
        plays("10S KS")), "play KS"),
    "ruff with the lowest trump": (request(
        observation(hand="JH 7H 8D", trump="H", taker=0, seat=0, dealer=3, current=(2, "AS 7S")),
        plays("JH 7H")), "play 7H"),
    "discard the cheapest": (request(
        observation(hand="10D 8D AC", trump="H", taker=0, seat=0, dealer=3, current=(2, "AS JH")),
        plays("10D 8D AC")), "play 8D"),
    "announce belote": (request(
        observation(hand="KH QH 7S", trump="H", taker=0, seat=0, dealer=3),
        plays("KH QH 7S", belote=["KH", "QH"])), "play KH belote"),
    "all-trumps: the lowest winner": (request(
        observation("all-trumps", hand="JH 9H 7C", trump="all-trumps", taker=0, current=(3, "10H")),
        plays("JH 9H")), "play 9H"),
    "no-trumps: the cheapest": (request(
        observation("all-trumps", hand="AS 8C 9C", trump="no-trumps", taker=0, current=(3, "10C")),
        plays("9C 8C")), "play 8C"),
    "take on the jack and three cards": (request(
        observation(phase=B, hand="JH 9H AS 7C 8D", turned="10H"), ["pass", "take H"]), "take H"),
    "pass without a jack": (request(
        observation(phase=B, hand="9S AS KS 7C 8D", turned="10H", bidding_round=2),
        ["pass", "take S", "take D", "take C"]), "pass"),
    "all-trumps round 3: pass": (request(
        observation("all-trumps", phase=B, hand="JH 9H JS AD 10D", turned="7C", bidding_round=3),
        ["pass", "all-trumps", "no-trumps"]), "pass"),
    "two-player: take, never schmeiss": (request(
        observation("two-player", phase=B, dealer=1, hand="JH 9H AS 7C 8D KD", turned="10H", turned_on_table=True),
        ["pass", "take H", "schmeiss"]), "take H"),
    "declare the most cards": (request(
        observation(phase=DE, hand="JS JH JD JC QC KC AC 7D", trump="H", taker=1, current=(1, "")),
        ["declare", "declare JS JH JD JC", "declare JC QC KC AC", "declare JS JH JD JC, QC KC AC"]),
        "declare JS JH JD JC, QC KC AC"),
    "contree: pass": (request(
        observation(phase=pb.PHASE_CONTREE, seat=1, hand="JH 9H AH 7H AS 10S KD 8C", trump="H", taker=0),
        ["call pass", "contre"]), "call pass"),
    "two-player: exchange": (request(
        observation("two-player", phase=pb.PHASE_EXCHANGE, dealer=1, hand="7H 8S 9S 10S JS QS AH KH 7D",
                    turned="JH", turned_on_table=True, trump="H", taker=0),
        ["no-exchange", "exchange"]), "exchange"),
    "two-player: refuse a schmeiss": (request(
        observation("two-player", phase=pb.PHASE_SCHMEISS_ANSWER, seat=1, dealer=1, hand="JH 9H AS 7C 8D KD",
                    turned="10H", turned_on_table=True),
        ["accept", "refuse"]), "refuse"),
    "two-player: name the longest suit": (request(
        observation("two-player", phase=pb.PHASE_NAME_TRUMP, dealer=1, hand="JH 9H AS 7C 8D KH", turned="10H",
                    turned_on_table=True, bidding_round=2),
        ["name S", "name H", "name D", "name C"]), "name H"),
}


@pytest.fixture(scope="module", params=["python", "node", "cpp"])
def bot_folder(request, tmp_path_factory) -> Path:
    if request.param == "python":  # the template, as `arena bots new` writes it
        return new_bot("starter-python", LANGUAGES["python"], tmp_path_factory.mktemp("py"), "Belote Arena")
    return starter(request.param)


def test_every_decision_over_decide_and_decide_stream(bot_folder):
    manifest = load_manifest(bot_folder)
    with running_bot(bot_folder) as bot:
        info = bot.stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=5)
        assert (info.name, info.version, info.protocol_version) == (manifest.name, manifest.version, "1.0")
        assert list(info.rulesets) == ["classic", "strict", "all-trumps", "two-player"]
        unary = {name: action_str(bot.stub.Decide(req, timeout=5).action) for name, (req, _) in SCENARIOS.items()}

        requests: queue.Queue = queue.Queue()
        stream = bot.stub.DecideStream(iter(requests.get, None), timeout=30)
        streamed = {}
        for name, (req, _) in SCENARIOS.items():  # one request at a time, as the referee sends them
            requests.put(pb.DecideStreamRequest(request=req))
            streamed[name] = action_str(next(stream).response.action)
        requests.put(None)
        assert list(stream) == []  # the bot ends the stream when the referee does
    want = {name: answer for name, (_, answer) in SCENARIOS.items()}
    assert unary == want
    assert streamed == want


def test_the_starters_protocol_is_the_arenas():
    """The copies of the .proto the Node.js and C++ bots load or compile are the arena's own."""
    arena = (REPO / "protos" / "belote" / "bot" / "v1" / "bot.proto").read_bytes()
    for folder in STARTERS.values():
        assert (folder / PROTO).read_bytes() == arena, folder


def test_the_templates_hold_every_file_of_the_starters():
    """`arena bots new` copies a starter's sources, never its build products (node_modules,
    build/, the binary) nor its manifest (each bot gets its own)."""
    made = {"node_modules", "build", "bot", "bot.toml", "__pycache__"}  # at the folder's top
    for lang, language in LANGUAGES.items():
        files = {p.relative_to(language.template).as_posix() for p in language.template.rglob("*")
                 if p.is_file() and p.relative_to(language.template).parts[0] not in made}
        assert files == set(language.files), lang


def test_a_missing_toolchain_fails_saying_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    for lang, gone, how in (("node", "node, npm", "apt-get install -y nodejs npm"),
                            ("cpp", "cmake, c++, pkg-config, protoc, grpc_cpp_plugin",
                             "apt-get install -y cmake g++ pkg-config libgrpc++-dev protobuf-compiler-grpc")):
        with pytest.raises(pytest.fail.Exception) as failed:
            require(lang)
        assert str(failed.value) == install_message(LANGUAGES[lang], gone.split(", "))
        assert f"need {gone}, not found here: install with `{how}`" in str(failed.value)
