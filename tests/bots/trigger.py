"""When a fault bot misbehaves, shared by the test bots (tests/bots/README.md).

Also :func:`serve_servicer`, for the bots that answer what the SDK refuses to send.
The referee's test kit (tests/referee/botkit.py) copies this file beside each
bot's ``bot.py``, which imports it as ``from trigger import Trigger, parse_args``.
"""

from __future__ import annotations

import argparse
import signal
import threading
from concurrent import futures

import grpc

from belote_arena_sdk.proto import bot_pb2_grpc
from belote_arena_sdk import READY_PREFIX, parse_listen, pb


class Trigger:
    """When to misbehave (tests/bots/README.md): on asked decisions of ``--deals``
    (``Observation.deal_number``; default all), from the ``--nth`` asked decision
    of a deal counted by this process, only once per deal unless ``--every``."""

    def __init__(self, args: argparse.Namespace, phases: tuple[int, ...] = ()):
        self.deals = None if args.deals == "all" else {int(d) for d in args.deals.split(",")}
        self.nth, self.every, self.phases = args.nth, args.every, phases
        self.deal, self.count, self.fired = None, 0, False

    def __call__(self, request: pb.DecideRequest) -> bool:
        obs = request.observation
        if obs.deal_number != self.deal:
            self.deal, self.count, self.fired = obs.deal_number, 0, False
        self.count += 1
        if self.deals is not None and obs.deal_number not in self.deals:
            return False
        if (self.phases and obs.phase not in self.phases) or self.count < self.nth:
            return False
        if self.fired and not self.every:
            return False
        self.fired = True
        return True


def parse_args(extra=None) -> tuple[argparse.Namespace, list[str]]:
    """This bot's own options; the rest (``--listen``, ``--seed``) go to ``serve``."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--deals", default="all")
    p.add_argument("--nth", type=int, default=1)
    p.add_argument("--every", action="store_true")
    if extra is not None:
        extra(p)
    return p.parse_known_args()


def serve_servicer(servicer: bot_pb2_grpc.BotServiceServicer | grpc.GenericRpcHandler, listen: str, *,
                   options=()) -> int:
    """Serve a hand-written BotService servicer (or a generic handler of its methods, for raw
    bytes) on ``listen`` as the SDK's ``serve`` does: readiness line, stop on SIGTERM/SIGINT.
    Returns the exit status (0)."""
    address = parse_listen(listen)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), options=list(options))
    if isinstance(servicer, grpc.GenericRpcHandler):
        server.add_generic_rpc_handlers((servicer,))
    else:
        bot_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)
    server.add_insecure_port(address.target)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server.start()
    print(f"{READY_PREFIX} {address.target}", flush=True)
    while not stop.wait(0.5):
        pass
    server.stop(0.5).wait()
    return 0
