"""Test bot 'garbage': answers chosen decisions with raw bytes that are not the DecideResponse asked for.

``python bot.py [--payload junk|empty|wrongtype|truncated|hex:HEX] [--unary] [--deals 2,3] [--nth N] [--every]``
(tests/bots/README.md).  ``junk``: bytes that are no protobuf; ``empty``: no bytes (a
DecideResponse with no action); ``wrongtype``: a serialized GetBotInfoResponse;
``truncated``: a valid DecideResponse cut in the middle; ``hex:HEX``: the bytes given.
It serves BotService with generic handlers whose Decide and DecideStream answers are
sent as raw bytes (no serializer), over DecideStream and unary Decide (``--unary``:
Decide only).  Otherwise it plays a random legal action.  The referee should record a
``malformed`` fault and play the fallback; the match goes on.
"""

from __future__ import annotations

import argparse
import os
import random
import threading

import grpc

from belote_arena_sdk import LISTEN_ENV, SEED_ENV, pb

from trigger import Trigger, parse_args, serve_servicer  # copied beside bot.py by the test kit


def payload(kind: str, request: pb.DecideRequest) -> bytes:
    if kind.startswith("hex:"):
        return bytes.fromhex(kind[4:])
    if kind == "junk":
        return b"\xff\xff\xff\xff\xff\x00garbage\x07"
    if kind == "empty":
        return b""
    if kind == "wrongtype":
        return pb.GetBotInfoResponse(name="garbage", version="1.0.0").SerializeToString()
    whole = pb.DecideResponse(action=request.legal_actions[0]).SerializeToString()
    return whole[: max(1, len(whole) // 2)]  # truncated


def main() -> int:
    def more(p: argparse.ArgumentParser) -> None:
        p.add_argument("--payload", default="junk")
        p.add_argument("--unary", action="store_true")
        p.add_argument("--listen", default=os.environ.get(LISTEN_ENV))
        p.add_argument("--seed", type=int, default=int(os.environ.get(SEED_ENV, "0")))

    args, _ = parse_args(more)
    trigger, rng, lock = Trigger(args), random.Random(args.seed), threading.Lock()

    def answer(request: pb.DecideRequest) -> tuple[bytes, bool]:
        """The answer's bytes, and whether they are the garbage."""
        with lock:
            if trigger(request):
                return payload(args.payload, request), True
            return pb.DecideResponse(action=rng.choice(request.legal_actions)).SerializeToString(), False

    def decide_stream(requests, context):
        if args.unary:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "unary Decide only")
        for message in requests:
            data, garbage = answer(message.request)
            if garbage and args.payload == "junk":
                yield data  # the stream's message itself is no protobuf
            else:  # a DecideStreamResponse is its DecideResponse as field 1: wrapped by hand
                yield b"\x0a" + _varint(len(data)) + data

    handlers = {
        "GetBotInfo": grpc.unary_unary_rpc_method_handler(
            lambda r, c: pb.GetBotInfoResponse(name="garbage", version="1.0.0", protocol_version="1.0",
                                               rulesets=["classic", "strict", "all-trumps", "two-player"]),
            request_deserializer=pb.GetBotInfoRequest.FromString,
            response_serializer=pb.GetBotInfoResponse.SerializeToString),
        "StartMatch": grpc.unary_unary_rpc_method_handler(
            lambda r, c: pb.StartMatchResponse(), request_deserializer=pb.StartMatchRequest.FromString,
            response_serializer=pb.StartMatchResponse.SerializeToString),
        "EndMatch": grpc.unary_unary_rpc_method_handler(
            lambda r, c: pb.EndMatchResponse(), request_deserializer=pb.EndMatchRequest.FromString,
            response_serializer=pb.EndMatchResponse.SerializeToString),
        "Decide": grpc.unary_unary_rpc_method_handler(
            lambda r, c: answer(r)[0], request_deserializer=pb.DecideRequest.FromString, response_serializer=None),
        "DecideStream": grpc.stream_stream_rpc_method_handler(
            decide_stream, request_deserializer=pb.DecideStreamRequest.FromString, response_serializer=None),
    }
    return serve_servicer(grpc.method_handlers_generic_handler("belote.bot.v1.BotService", handlers), args.listen)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


if __name__ == "__main__":
    raise SystemExit(main())
