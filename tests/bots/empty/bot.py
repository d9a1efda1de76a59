"""Test bot 'empty': answers chosen decisions with an unreadable action.

``python bot.py [--how empty|badcard] [--deals 2,3] [--nth N] [--every]``
(tests/bots/README.md). ``empty`` (default) sends ``DecideResponse{action: {}}``
(no action set); ``badcard`` plays a card of rank 3 (no such card) at a play decision.
The SDK's server refuses to send either, so this bot serves BotService with its
own small servicer, as a bot written without the SDK would.
The referee should record a ``malformed`` fault and play the fallback.
"""

from __future__ import annotations

import argparse
import os
import threading

from belote_arena_sdk.proto import bot_pb2_grpc
from belote_arena_sdk import LISTEN_ENV, SEED_ENV, Bot, pb

from trigger import Trigger, parse_args, serve_servicer  # copied beside bot.py by the test kit


class EmptyBot(Bot):
    def __init__(self, args: argparse.Namespace):
        super().__init__()
        self.trigger = Trigger(args, phases=(pb.PHASE_PLAY,) if args.how == "badcard" else ())
        self.how = args.how

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if not self.trigger(request):
            return self.rng.choice(request.legal_actions)
        if self.how == "badcard":
            return pb.Action(play=pb.PlayCard(card=pb.Card(suit=pb.SUIT_HEARTS, rank=3)))
        return pb.Action()


class Servicer(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, bot: EmptyBot):
        self.bot, self.lock = bot, threading.Lock()

    def GetBotInfo(self, request, context):
        return self.bot.info().to_proto()

    def StartMatch(self, request, context):
        return pb.StartMatchResponse()

    def EndMatch(self, request, context):
        return pb.EndMatchResponse()

    def Decide(self, request, context):
        with self.lock:
            return pb.DecideResponse(action=self.bot.decide(request))


def main() -> int:
    def more(p: argparse.ArgumentParser) -> None:
        p.add_argument("--how", choices=("empty", "badcard"), default="empty")
        p.add_argument("--listen", default=os.environ.get(LISTEN_ENV))
        p.add_argument("--seed", type=int, default=int(os.environ.get(SEED_ENV, "0")))

    args, _ = parse_args(more)
    bot = EmptyBot(args)
    bot.reseed(args.seed)
    return serve_servicer(Servicer(bot), args.listen)


if __name__ == "__main__":
    raise SystemExit(main())
