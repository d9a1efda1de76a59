"""Decisions over ``DecideStream`` (one stream per bot process) and the unary fallback.

The fault tests of test_match.py play every fault bot through the stream (the
SDK serves it); here: a bot serving only unary ``Decide`` still plays, over
unary calls, and a late answer on the stream is a timeout fault that ends the
stream, restarts the process and lets the match go on.
"""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from belote_arena_sdk.proto import bot_pb2 as pb
from referee.botproc import BotClient
from referee.records import FaultKind

from referee.manifest import load_manifest
from tests.bot_requests import observation, request

from .botkit import bot_folder, deals, entrant
from .test_match import DECISION_MS, assert_no_leftovers, assert_replays, decisions_of, play


def _record_transport(monkeypatch) -> list[tuple[str, bool | None]]:
    """Patch ``BotClient.decide_async`` (the referee's call) to record (bot name, whether its stream
    works) after each decision."""
    seen: list[tuple[str, bool | None]] = []
    decide = BotClient.decide_async

    async def recorded(self, req, timeout_s):
        try:
            return await decide(self, req, timeout_s)
        finally:
            seen.append((self.name, self._stream_works))

    monkeypatch.setattr(BotClient, "decide_async", recorded)
    return seen


@pytest.mark.guard(60)
def test_a_bot_serving_only_unary_decide_plays_over_unary(tmp_path, monkeypatch):
    seen = _record_transport(monkeypatch)
    unary = entrant(tmp_path, "empty", "--deals", "0")  # no DecideStream; no deal is number 0: never misbehaves
    streaming = entrant(tmp_path, "random")
    results = play(tmp_path, unary, streaming, 2)

    assert not [f for r in results for f in r.faults]
    assert_replays(results)
    assert sum(d.ms > 0 for r in results for d in decisions_of(r, unary.key)) > 10  # it was asked
    assert {w for name, w in seen if name == unary.key} == {False}  # UNIMPLEMENTED on open: unary from then on
    assert {w for name, w in seen if name == streaming.key} == {True}
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_a_late_answer_on_the_stream_is_a_timeout_and_the_match_goes_on(tmp_path, monkeypatch):
    seen = _record_transport(monkeypatch)
    bad = entrant(tmp_path, "sleepy", "--deals", deals(1), "--nth", "3", "--sleep", "1.5")
    good = entrant(tmp_path, "random")
    results = play(tmp_path, bad, good, 3, max_faults=100)

    faults = [f for r in results for f in r.faults]
    assert faults and all((f.kind, f.entrant, f.board) == (FaultKind.TIMEOUT, bad.key, 1) for f in faults)
    faulty = [d for r in results for d in decisions_of(r, bad.key) if d.fault]
    assert all(DECISION_MS <= d.ms < DECISION_MS + 400 for d in faulty), [d.ms for d in faulty]
    assert_replays(results)
    assert {w for name, w in seen if name == bad.key} == {True}  # over the stream, before and after restarts
    assert sum(d.ms > 0 for d in decisions_of(results[2], bad.key)) > 0  # still asked after the restarts
    assert_no_leftovers(tmp_path)


@pytest.mark.alone  # a deadline met within 0.2-0.5 s
@pytest.mark.guard(60)
def test_an_asyncio_decision_times_out_at_its_deadline_and_the_next_opens_a_new_stream(tmp_path):
    """``BotClient.decide_async`` (the referee's call, issue 12): an answer in time; a decision
    unanswered at its 0.2 s deadline raises DEADLINE_EXCEEDED within 0.2–0.5 s and cancels the
    stream; the bot's next decision goes over a new stream; closing leaves nothing behind."""
    client = BotClient(load_manifest(bot_folder(tmp_path, "sleepy", "--nth", "2", "--sleep", "1")))

    async def decisions():
        req = request(observation(hand="JH 7S"), ["play JH", "play 7S"])
        first = await client.decide_async(req, 1.0)
        first_stream = client._aio_stream
        t0 = time.perf_counter()
        with pytest.raises(grpc.RpcError) as err:
            await client.decide_async(req, 0.2)
        took = time.perf_counter() - t0
        assert client._aio_stream is None  # cancelled with the decision
        await asyncio.sleep(1.0)  # the sleeper wakes up and answers a stream that is gone
        third = await client.decide_async(req, 1.0)
        assert client._aio_stream is not None and client._aio_stream is not first_stream
        await client.aclose_aio()
        return first, err.value, took, third, req

    try:
        client.start()
        client.start_match(pb.StartMatchRequest(match_id="m", ruleset="classic", seat=0))
        first, error, took, third, req = asyncio.run(decisions())
    finally:
        client.close()
    assert first.action in req.legal_actions and third.action in req.legal_actions
    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert 0.2 <= took < 0.5, took
    assert client._stream_works is True
    assert_no_leftovers(tmp_path)
