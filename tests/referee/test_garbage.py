"""No answer crashes the referee (issue 19 item 5): whatever bytes a bot sends back, over
``DecideStream`` or unary ``Decide``, the decision is an action or a fault of that bot
(kind ``malformed``, or the one that fits), the match goes on, and nothing is raised.

Attacked by effect: the test bot ``garbage`` (tests/bots/garbage) answers chosen decisions
with bytes that are no ``DecideResponse``; a fuzzer (hypothesis) sends random and mutated
bytes from an in-process gRPC server the referee dials; a tournament with a bot that turns
to garbage after its first boards completes, charged, with nothing dealt again.
"""

from __future__ import annotations

import random
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_arena_sdk import pb
from referee.match import Entrant, MatchConfig, play_match
from referee.records import FaultKind
from referee.rules import RULESETS, make_board

from .botkit import deals, entrant
from .test_match import assert_no_leftovers, assert_replays, play

PAYLOADS = ["junk", "empty", "wrongtype", "truncated"]


@pytest.mark.guard(90)
@pytest.mark.parametrize("unary", [False, True], ids=["stream", "unary"])
@pytest.mark.parametrize("payload", PAYLOADS)
def test_an_answer_that_does_not_deserialize_is_a_malformed_fault(tmp_path, payload, unary):
    """Every decision of board 1 answered with ``payload``: each is a ``malformed`` fault of the
    bot (the fallback played), the match plays all its boards, the other entrant is unharmed."""
    args = ("--payload", payload, "--deals", deals(1), "--every") + (("--unary",) if unary else ())
    bad = entrant(tmp_path, "garbage", *args)
    good = entrant(tmp_path, "random")
    results = play(tmp_path, bad, good, 3, max_faults=2)
    assert [r.board for r in results] == [0, 1, 2]
    assert not results[0].faults
    assert {f.kind for f in results[1].faults} == {FaultKind.MALFORMED}
    assert {f.entrant for f in results[1].faults} == {bad.key}
    assert sorted({f.table for f in results[1].faults}) == [1, 2]
    assert [r.forfeit_a for r in results] == [False, True, True] and not any(r.forfeit_b for r in results)
    assert_replays(results)
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------------------ fuzz
class _FuzzServer:
    """A BotService on a Unix socket that answers every decision with the next bytes of
    :attr:`answers` (a list set by the test), raw: no serializer, over both transports."""

    def __init__(self, path: Path):
        self.answers: list[bytes] = []
        self.lock = threading.Lock()
        ok = pb.StartMatchResponse

        def next_answer(request: pb.DecideRequest) -> bytes:
            with self.lock:
                if self.answers:
                    return self.answers.pop()
            return pb.DecideResponse(action=request.legal_actions[0]).SerializeToString()

        def stream(requests, context):
            for message in requests:
                yield next_answer(message.request)

        handlers = {
            "GetBotInfo": grpc.unary_unary_rpc_method_handler(
                lambda r, c: pb.GetBotInfoResponse(name="fuzz", version="1", protocol_version="1.0"),
                request_deserializer=pb.GetBotInfoRequest.FromString,
                response_serializer=pb.GetBotInfoResponse.SerializeToString),
            "StartMatch": grpc.unary_unary_rpc_method_handler(
                lambda r, c: ok(), request_deserializer=pb.StartMatchRequest.FromString,
                response_serializer=ok.SerializeToString),
            "EndMatch": grpc.unary_unary_rpc_method_handler(
                lambda r, c: pb.EndMatchResponse(), request_deserializer=pb.EndMatchRequest.FromString,
                response_serializer=pb.EndMatchResponse.SerializeToString),
            "Decide": grpc.unary_unary_rpc_method_handler(
                lambda r, c: next_answer(r), request_deserializer=pb.DecideRequest.FromString,
                response_serializer=None),
            "DecideStream": grpc.stream_stream_rpc_method_handler(
                stream, request_deserializer=pb.DecideStreamRequest.FromString, response_serializer=None),
        }
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("belote.bot.v1.BotService", handlers),))
        self.target = f"unix:{path}"
        self.server.add_insecure_port(self.target)
        self.server.start()


def _wrap(data: bytes) -> bytes:
    """``data`` as field 1 (length-delimited) of a message: a DecideStreamResponse around it."""
    n, head = len(data), bytearray([0x0A])
    while True:
        head.append((n & 0x7F) | (0x80 if n >> 7 else 0))
        n >>= 7
        if not n:
            return bytes(head) + data


def _valid_action_bytes(rng: random.Random) -> bytes:
    """A DecideResponse of some action, legal or not (a card, a bid, a declaration)."""
    card = pb.Card(suit=rng.randrange(0, 6), rank=rng.randrange(0, 16))
    action = rng.choice([
        pb.Action(play=pb.PlayCard(card=card)),
        pb.Action(bid=pb.Bid(kind=rng.randrange(0, 8), suit=rng.randrange(0, 6))),
        pb.Action(declaration=pb.DeclarationChoice(declarations=[pb.Declaration(kind=rng.randrange(0, 9),
                                                                                length=rng.randrange(0, 9))])),
    ])
    return pb.DecideResponse(action=action).SerializeToString()


@st.composite
def answer_bytes(draw) -> bytes:
    """Random bytes, or a real DecideResponse mutated (cut, a byte flipped, bytes appended)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    kind = draw(st.sampled_from(["raw", "valid", "cut", "flip", "append"]))
    if kind == "raw":
        return draw(st.binary(max_size=64))
    data = _valid_action_bytes(rng)
    if kind == "cut":
        return data[: rng.randrange(0, max(1, len(data)))]
    if kind == "flip" and data:
        i = rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
    if kind == "append":
        return data + draw(st.binary(min_size=1, max_size=16))
    return data


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    server = _FuzzServer(tmp_path_factory.mktemp("fuzz") / "bot.sock")
    yield server
    server.server.stop(0)


@pytest.mark.guard(300)
@pytest.mark.parametrize("stream", [True, False], ids=["DecideStream", "Decide"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answers=st.lists(answer_bytes(), min_size=1, max_size=12), wrap=st.booleans())
def test_fuzzed_answers_are_actions_or_faults_and_never_raise(fuzz_server, monkeypatch, stream, answers, wrap):
    """Bytes on the wire, bounded (25 examples of up to 12 answers, one board each): the board
    is played at both tables, every decision is a legal action or a fault of the fuzzed entrant,
    and the records replay under the rules."""
    from referee import botproc

    monkeypatch.setattr(botproc.BotClient, "stream_decisions", stream)
    fuzz_server.answers = [_wrap(a) if stream and wrap else a for a in answers]
    rs = RULESETS["classic"]
    a = Entrant(key="fuzz@1", endpoint=fuzz_server.target)
    b = Entrant(key="fuzz@2", endpoint=fuzz_server.target)
    results = play_match("fuzz", a, b, [make_board(5, len(answers), rs.seats)],
                         MatchConfig(ruleset=rs, seed=1, decision_ms=2000, max_faults=100))
    allowed = {FaultKind.MALFORMED, FaultKind.WRONG_KIND, FaultKind.ILLEGAL, FaultKind.BOT_ERROR,
               FaultKind.CONNECTION}
    assert len(results) == 1 and all(f.kind in allowed for f in results[0].faults), results[0].faults
    assert_replays(results, dealt=(5, False))
