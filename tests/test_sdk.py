"""The bot SDK (belote_arena_sdk): card helpers, actions, observation facts, the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from belote_arena_sdk.proto import bot_pb2 as pb
from belote_arena_sdk.proto import bot_pb2_grpc
from belote_arena_sdk import (
    Bot,
    Trump,
    action_str,
    call_of,
    card,
    card_str,
    cards,
    cards_str,
    declaration,
    declaration_points,
    find,
    known_voids,
    legal_cards,
    master_seat,
    outstanding_cards,
    parse_action,
    parse_listen,
    partner_of,
    play_of,
    start_server,
    team_of,
)
from tests.bot_process import CHANNEL_OPTIONS, read_ready_line, short_tmp_dir, stop
from tests.bot_requests import observation, request, trump_of

# --- cards (RULES.md §1, §2) -----------------------------------------------------


@pytest.mark.parametrize("text", ["7S", "10H", "JD", "AC", "QS", "KH", "8D", "9C"])
def test_card_text_round_trips(text: str) -> None:
    assert card_str(card(text)) == text


def test_card_parse_accepts_t_and_lowercase() -> None:
    assert card("TS") == card("10S") == card("10s")
    assert cards_str(cards("jh 9h as")) == "JH 9H AS"


@pytest.mark.parametrize("bad", ["", "1S", "11H", "JX", "J", "S"])
def test_card_parse_rejects(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        card(bad)


_ORDERS = {
    # mode: (order strongest first, points in that order)  -- the table of RULES.md §2
    "trump": ("J 9 A 10 K Q 8 7", (20, 14, 11, 10, 4, 3, 0, 0)),
    "plain": ("A 10 K Q J 9 8 7", (11, 10, 4, 3, 2, 0, 0, 0)),
    "all-trumps": ("J 9 A 10 K Q 8 7", (13, 9, 6, 5, 3, 2, 0, 0)),
    "no-trumps": ("A 10 K Q J 9 8 7", (19, 10, 4, 3, 2, 0, 0, 0)),
}


@pytest.mark.parametrize("mode", list(_ORDERS))
def test_order_and_points_follow_rules_table(mode: str) -> None:
    trump = {
        "trump": Trump.suit_mode(pb.SUIT_HEARTS),
        "plain": Trump.suit_mode(pb.SUIT_SPADES),
        "all-trumps": Trump.all_trumps(),
        "no-trumps": Trump.no_trumps(),
    }[mode]
    order, points = _ORDERS[mode]
    hearts = [card(r + "H") for r in order.split()]
    assert [trump.strength(c) for c in hearts] == [7, 6, 5, 4, 3, 2, 1, 0]
    assert [trump.points(c) for c in hearts] == list(points)


@pytest.mark.parametrize(
    "trump", [Trump.suit_mode(pb.SUIT_CLUBS), Trump.all_trumps(), Trump.no_trumps()], ids=["suit", "all", "none"]
)
def test_every_mode_holds_152_card_points(trump: Trump) -> None:
    deck = [pb.Card(suit=s, rank=r) for s in range(1, 5) for r in range(7, 15)]
    assert trump.trick_points(deck) == 152


@pytest.mark.parametrize(
    "trump, trick, master",
    [
        ("H", "AS 10S JH 7S", 2),       # a trump beats the led suit
        ("H", "AS 10S KD 7S", 0),       # off-suit cards never win
        ("H", "7H JH 9H AH", 1),        # trump order J 9 A
        ("all-trumps", "9S JS AH 8S", 1),  # all-trumps: only the led suit, trump order
        ("no-trumps", "10S AS JH 7S", 1),  # no-trumps: plain order
        ("H", "", None),
    ],
)
def test_master(trump: str, trick: str, master: int | None) -> None:
    assert trump_of(trump).master(cards(trick)) == master


def test_teams_and_partners() -> None:
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [partner_of(s, 4) for s in range(4)] == [2, 3, 0, 1]
    assert partner_of(0, 2) is None


# --- actions -------------------------------------------------------------------------

_ACTION_TEXTS = [
    "pass", "take H", "all-trumps", "no-trumps", "schmeiss", "accept", "refuse", "name D", "declare",
    "declare 8S 9S 10S", "declare JS JH JD JC, QC KC AC", "play 10H", "play KH belote", "exchange", "no-exchange",
    "contre", "surcontre", "call pass",
]


@pytest.mark.parametrize("text", _ACTION_TEXTS)
def test_action_text_round_trips(text: str) -> None:
    assert action_str(parse_action(text)) == text


@pytest.mark.parametrize("bad", ["", "bid", "take", "take X", "play", "play JH rebelote", "pass H", "accept now"])
def test_parse_action_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_action(bad)


@pytest.mark.parametrize(
    "text, kind, points4, points2",
    [
        ("7S 8S 9S", pb.DECLARATION_KIND_TIERCE, 20, 20),
        ("7S 8S 9S 10S", pb.DECLARATION_KIND_QUARTE, 50, 50),
        ("7S 8S 9S 10S JS", pb.DECLARATION_KIND_QUINTE, 100, 50),
        ("7S 8S 9S 10S JS QS", pb.DECLARATION_KIND_SEQUENCE, 0, 50),
        ("JS JH JD JC", pb.DECLARATION_KIND_CARRE, 200, 0),
        ("9S 9H 9D 9C", pb.DECLARATION_KIND_CARRE, 150, 0),
        ("QS QH QD QC", pb.DECLARATION_KIND_CARRE, 100, 0),
        ("8S 8H 8D 8C", pb.DECLARATION_KIND_CARRE, 0, 0),
    ],
)
def test_declarations(text: str, kind: int, points4: int, points2: int) -> None:
    d = declaration(cards(text))
    assert (d.kind, d.length) == (kind, len(text.split()))
    assert declaration_points(d, 4) == points4
    if kind != pb.DECLARATION_KIND_CARRE:
        assert declaration_points(d, 2) == points2


def test_call_of_finds_the_legal_contree_call() -> None:
    legal = [parse_action(t) for t in ("call pass", "contre")]
    assert call_of(legal, pb.CONTREE_CALL_KIND_CONTRE) == legal[1]
    assert call_of(legal, pb.CONTREE_CALL_KIND_SURCONTRE) is None
    assert legal[0].call.kind == pb.CONTREE_CALL_KIND_PASS


def test_finding_legal_actions() -> None:
    legal = [parse_action(t) for t in ("play KH", "play KH belote", "play 7S")]
    assert [card_str(c) for c in legal_cards(legal)] == ["KH", "7S"]
    assert play_of(legal, card("KH"), belote=True).play.belote
    assert not play_of(legal, card("KH")).play.belote
    assert play_of(legal, card("7S"), belote=True) == legal[2]
    assert find(legal, "play 7S") == legal[2]
    assert find(legal, "play 8S") is None
    with pytest.raises(ValueError, match="not a legal card"):
        play_of(legal, card("8S"))


# --- observation facts -----------------------------------------------------------------


def test_outstanding_cards_exclude_hand_played_and_table() -> None:
    obs = observation(hand="JH 9H", trump="H", tricks=[(1, "AS KS QS JS")], current=(1, "7C"))
    out = {card_str(c) for c in outstanding_cards(obs)}
    assert len(out) == 32 - 2 - 5
    assert not out & {"JH", "9H", "AS", "KS", "QS", "JS", "7C"}
    two = observation("two-player", hand="JH", turned="AD", turned_on_table=True, trump="D")
    assert "AD" not in {card_str(c) for c in outstanding_cards(two)}


def test_known_voids() -> None:
    # seat 2 neither followed spades nor trumped while an opponent (seat 1) was master and no trump
    # was in the trick (RULES.md §5.3): void in both; seat 3 ruffed: void in spades only
    obs = observation(hand="7D", trump="H", tricks=[(1, "AS 7C JH 8S")])
    voids = known_voids(obs)
    assert voids[2] == {pb.SUIT_SPADES, pb.SUIT_HEARTS}
    assert voids[3] == {pb.SUIT_SPADES}
    assert voids[0] == set() and voids[1] == set()
    # once a trump is in the trick, a lower trump need not be played (all-trumps ruleset): no inference
    obs = observation("all-trumps", hand="7D", trump="H", tricks=[(1, "AS JH 7C 8S")])
    assert known_voids(obs)[3] == {pb.SUIT_SPADES}
    # partner master: discarding shows no void in trumps (RULES.md §5.2)
    obs = observation(hand="7D", trump="H", tricks=[(0, "AS 8S 7C 9S")])
    assert known_voids(obs)[2] == {pb.SUIT_SPADES}


def test_master_seat() -> None:
    obs = observation(hand="7D", trump="H", current=(1, "AS 7H"))
    assert master_seat(obs) == 2
    assert master_seat(observation(hand="7D", trump="H")) is None


# --- the server ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, target, is_unix",
    [
        ("/tmp/x/bot.sock", "unix:/tmp/x/bot.sock", True),
        ("unix:/tmp/x/bot.sock", "unix:/tmp/x/bot.sock", True),
        ("unix:///tmp/x/bot.sock", "unix:/tmp/x/bot.sock", True),
        ("127.0.0.1:5051", "127.0.0.1:5051", False),
        ("[::1]:0", "[::1]:0", False),
    ],
)
def test_parse_listen(text: str, target: str, is_unix: bool) -> None:
    address = parse_listen(text)
    assert address.target == target
    assert (address.socket_path is not None) == is_unix


def test_parse_listen_relative_path_becomes_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert parse_listen("bot.sock").target == f"unix:{tmp_path}/bot.sock"


@pytest.mark.parametrize("bad", ["", "localhost:http", "/" + "x" * 120])
def test_parse_listen_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_listen(bad)


class _EchoBot(Bot):
    """Answers the first legal action; raises on a request with no legal action."""

    name = "echo"
    version = "9.9"
    author = "tests"
    rulesets = ("two-player",)

    def __init__(self) -> None:
        super().__init__()
        self.started: list[pb.StartMatchRequest] = []

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        return request.legal_actions[0]

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        self.started.append(request)


@pytest.fixture
def echo_server() -> Iterator[tuple[_EchoBot, bot_pb2_grpc.BotServiceStub]]:
    bot = _EchoBot()
    server, target = start_server(bot, "127.0.0.1:0")
    channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
    try:
        grpc.channel_ready_future(channel).result(timeout=5)
        yield bot, bot_pb2_grpc.BotServiceStub(channel)
    finally:
        channel.close()
        server.stop(None).wait()


def test_in_process_server_answers(echo_server) -> None:
    bot, stub = echo_server
    info = stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=5)
    assert (info.name, info.version, info.author, list(info.rulesets), info.protocol_version) == (
        "echo", "9.9", "tests", ["two-player"], "1.0",
    )
    stub.StartMatch(pb.StartMatchRequest(match_id="m1", ruleset="two-player", seat=1), timeout=5)
    assert [r.match_id for r in bot.started] == ["m1"]
    stub.EndMatch(pb.EndMatchRequest(match_id="m1", scores=[501, 200]), timeout=5)
    req = request(observation(hand="JH"), ["play JH"])
    assert stub.Decide(req, timeout=5).action == req.legal_actions[0]


def test_exception_in_decide_is_internal_and_server_survives(echo_server) -> None:
    _, stub = echo_server
    with pytest.raises(grpc.RpcError) as err:
        stub.Decide(pb.DecideRequest(), timeout=5)  # no legal action: IndexError in decide()
    assert err.value.code() == grpc.StatusCode.INTERNAL
    assert "IndexError" in err.value.details()
    req = request(observation(hand="JH"), ["play JH"])
    assert stub.Decide(req, timeout=5).action.play.card == card("JH")


def test_an_empty_action_is_named_as_one(echo_server) -> None:
    """A decide() that returns ``pb.Action()`` is told so in words (a new user's trial: the
    message read "decide() returned , not a filled-in Action")."""
    _, stub = echo_server
    with pytest.raises(grpc.RpcError) as err:
        stub.Decide(pb.DecideRequest(legal_actions=[pb.Action()]), timeout=5)  # the echo bot returns it
    assert err.value.code() == grpc.StatusCode.INTERNAL
    assert err.value.details() == "decide() returned an empty Action (no field set), not a filled-in Action"


def test_decide_stream_answers_each_request_in_order(echo_server) -> None:
    _, stub = echo_server
    reqs = [request(observation(hand="JH 7S"), [a, b]) for a, b in (("play JH", "play 7S"), ("play 7S", "play JH"))]
    responses = list(stub.DecideStream(iter(pb.DecideStreamRequest(request=r) for r in reqs * 3), timeout=5))
    assert [m.response.action for m in responses] == [r.legal_actions[0] for r in reqs * 3]


def test_exception_in_decide_aborts_the_stream_with_internal(echo_server) -> None:
    _, stub = echo_server
    good = request(observation(hand="JH"), ["play JH"])
    messages = [pb.DecideStreamRequest(request=r) for r in (good, pb.DecideRequest(), good)]
    call = stub.DecideStream(iter(messages), timeout=5)
    assert next(call).response.action == good.legal_actions[0]
    with pytest.raises(grpc.RpcError) as err:
        next(call)  # no legal action: IndexError in decide()
    assert err.value.code() == grpc.StatusCode.INTERNAL
    assert "IndexError" in err.value.details()
    again = stub.DecideStream(iter([pb.DecideStreamRequest(request=good)]), timeout=5)
    assert [m.response.action for m in again] == [good.legal_actions[0]]


def test_oversized_request_is_refused(echo_server) -> None:
    _, stub = echo_server
    big = pb.DecideRequest(observation=pb.Observation(ruleset="x" * (2 << 20)))
    with pytest.raises(grpc.RpcError) as err:
        stub.Decide(big, timeout=5)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_decide_returning_no_action_is_internal() -> None:
    class Broken(Bot):
        def decide(self, request: pb.DecideRequest) -> pb.Action:
            return pb.Action()

    with short_tmp_dir() as tmp:
        server, target = start_server(Broken(), str(tmp / "b.sock"))
        assert target == f"unix:{tmp}/b.sock"
        try:
            with grpc.insecure_channel(target, options=CHANNEL_OPTIONS) as channel:
                stub = bot_pb2_grpc.BotServiceStub(channel)
                with pytest.raises(grpc.RpcError) as err:
                    stub.Decide(request(observation(hand="JH"), ["play JH"]), timeout=5)
                assert err.value.code() == grpc.StatusCode.INTERNAL
                # no manifest, no class attributes: defaults
                info = stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=5)
                assert info.name == "Broken" and len(info.rulesets) == 4
        finally:
            server.stop(None).wait()


def test_busy_tcp_port_is_an_error() -> None:
    first, target = start_server(_EchoBot(), "127.0.0.1:0")
    try:
        with pytest.raises(RuntimeError, match="cannot listen"):
            start_server(_EchoBot(), target)
    finally:
        first.stop(None).wait()


def test_info_from_manifest(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(
        'name = "m"\nversion = "2.0"\nauthor = "a"\ncommand = ["python", "bot.py"]\n'
        'protocol = "1.0"\nrulesets = ["classic"]\n'
    )

    class FromManifest(Bot):
        manifest_path = tmp_path / "bot.toml"

    class Overridden(FromManifest):
        name = "override"

    info = FromManifest().info()
    assert (info.name, info.version, info.author, info.rulesets) == ("m", "2.0", "a", ("classic",))
    assert Overridden().info().name == "override"
    (tmp_path / "bot.toml").write_text("rulesets = 'classic'\n")
    with pytest.raises(ValueError, match="rulesets must be a list"):
        FromManifest().info()


# --- serve() in a real process ---------------------------------------------------------

_SCRIPT = textwrap.dedent(
    """
    from belote_arena_sdk import Bot, serve

    class Seeded(Bot):
        name = "seeded"

        def decide(self, request):
            return request.legal_actions[self.rng.randrange(len(request.legal_actions))]

    raise SystemExit(serve(Seeded))
    """
)


def _start_script(tmp: Path, env_extra: dict[str, str], args: list[str]) -> subprocess.Popen[str]:
    """Run a seeded random bot script with this interpreter, BELOTE_BOT_* taken from ``env_extra`` only."""
    script = tmp / "seeded.py"
    script.write_text(_SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOTE_BOT_")} | env_extra
    return subprocess.Popen(
        [sys.executable, str(script), *args], cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )


def _choices(target: str, n: int = 20) -> list[str]:
    req = request(observation(hand="7S 8S 9S 10S JS QS KS AS"), [f"play {r}S" for r in "7 8 9 10 J Q K A".split()])
    with grpc.insecure_channel(target, options=CHANNEL_OPTIONS) as channel:
        grpc.channel_ready_future(channel).result(timeout=5)
        stub = bot_pb2_grpc.BotServiceStub(channel)
        return [action_str(stub.Decide(req, timeout=5).action) for _ in range(n)]


@pytest.mark.parametrize("how", ["env", "flags"])
def test_serve_listens_seeds_and_stops_on_sigterm(how: str) -> None:
    runs = []
    for seed in ("7", "7", "8"):
        with short_tmp_dir() as tmp:
            sock = str(tmp / "bot.sock")
            if how == "env":
                proc = _start_script(tmp, {"BELOTE_BOT_LISTEN": sock, "BELOTE_BOT_SEED": seed}, [])
            else:  # flags win over the environment
                proc = _start_script(
                    tmp, {"BELOTE_BOT_LISTEN": "/nonexistent/dir/x.sock", "BELOTE_BOT_SEED": "1"},
                    ["--listen", sock, "--seed", seed],
                )
            try:
                target = read_ready_line(proc, 15)
                assert target == f"unix:{sock}"
                runs.append(_choices(target))
                status, took = stop(proc, signal.SIGTERM)
                assert status == 0 and took < 2.0
                assert not Path(sock).exists(), "the socket file is removed on shutdown"
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(5)
                proc.stdout.close()
                proc.stderr.close()
    assert runs[0] == runs[1], "the same seed gives the same choices"
    assert runs[0] != runs[2], "another seed gives other choices"


def test_serve_sigint_exits_zero() -> None:
    with short_tmp_dir() as tmp:
        proc = _start_script(tmp, {}, ["--listen", "127.0.0.1:0"])
        try:
            target = read_ready_line(proc, 15)
            assert target.startswith("127.0.0.1:") and not target.endswith(":0")
            status, took = stop(proc, signal.SIGINT)
            assert status == 0 and took < 2.0
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(5)
            proc.stdout.close()
            proc.stderr.close()


def test_serve_without_address_exits_2() -> None:
    with short_tmp_dir() as tmp:
        proc = _start_script(tmp, {}, [])
        try:
            assert proc.wait(15) == 2
            assert "no listen address" in proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(5)
            proc.stdout.close()
            proc.stderr.close()


def test_serve_unbindable_address_exits_1() -> None:
    with short_tmp_dir() as tmp:
        proc = _start_script(tmp, {}, ["--listen", str(tmp / "missing" / "dir" / "bot.sock")])
        t0 = time.monotonic()
        try:
            assert proc.wait(15) == 1
            assert "cannot listen" in proc.stderr.read()
            assert time.monotonic() - t0 < 15
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(5)
            proc.stdout.close()
            proc.stderr.close()
