"""Test bot 'bigreply': answers chosen decisions with a DecideResponse over the referee's 64 KiB cap.

``python bot.py [--declarations N] [--unary] [--deals 2,3] [--nth N] [--every]``
(tests/bots/README.md). The answer is a ``DeclarationChoice`` of ``--declarations``
(default 10,000: about 240 KB) copies of one tierce. The SDK caps what it sends
at 64 KiB, so this bot serves BotService with its own servicer (sending up to
16 MiB), over ``DecideStream`` and unary ``Decide`` (``--unary``: Decide only).
The referee's channel refuses the message (RESOURCE_EXHAUSTED): ``malformed``.
"""

from __future__ import annotations

import argparse
import os
import threading

import grpc

from belote_arena_sdk.proto import bot_pb2_grpc
from belote_arena_sdk import LISTEN_ENV, SEED_ENV, Bot, pb

from trigger import Trigger, parse_args, serve_servicer  # copied beside bot.py by the test kit


class BigReplyBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args)
        tierce = pb.Declaration(kind=1, length=3, cards=[pb.Card(suit=pb.SUIT_HEARTS, rank=r) for r in (7, 8, 9)])
        self.huge = pb.Action(declaration=pb.DeclarationChoice(declarations=[tierce] * args.declarations))

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if self.trigger(request):
            return self.huge
        return self.rng.choice(request.legal_actions)


class Servicer(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, bot: BigReplyBot, unary: bool):
        self.bot, self.unary, self.lock = bot, unary, threading.Lock()

    def GetBotInfo(self, request, context):
        return self.bot.info().to_proto()

    def StartMatch(self, request, context):
        return pb.StartMatchResponse()

    def EndMatch(self, request, context):
        return pb.EndMatchResponse()

    def Decide(self, request, context):
        with self.lock:
            return pb.DecideResponse(action=self.bot.decide(request))

    def DecideStream(self, request_iterator, context):
        if self.unary:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "unary Decide only")
        for message in request_iterator:
            with self.lock:
                action = self.bot.decide(message.request)
            yield pb.DecideStreamResponse(response=pb.DecideResponse(action=action))


def main() -> int:
    def more(p: argparse.ArgumentParser) -> None:
        p.add_argument("--declarations", type=int, default=10_000)
        p.add_argument("--unary", action="store_true")
        p.add_argument("--listen", default=os.environ.get(LISTEN_ENV))
        p.add_argument("--seed", type=int, default=int(os.environ.get(SEED_ENV, "0")))

    args, _ = parse_args(more)
    bot = BigReplyBot(args)
    bot.reseed(args.seed)
    return serve_servicer(Servicer(bot, args.unary), args.listen, options=[("grpc.max_send_message_length", 16 << 20)])


if __name__ == "__main__":
    raise SystemExit(main())
