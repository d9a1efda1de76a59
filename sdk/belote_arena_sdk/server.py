"""Serving a bot over gRPC: ``serve(MyBot())`` in a bot's ``bot.py``.

The one place of the SDK that imports ``grpc``. A bot process:

1. reads its listen address from ``--listen ADDR`` or ``BELOTE_BOT_LISTEN``:
   a Unix socket path (``/tmp/x/bot.sock``, ``unix:/tmp/x/bot.sock``) or
   ``host:port`` (``127.0.0.1:0`` picks a free port);
2. reads its RNG seed from ``--seed N`` or ``BELOTE_BOT_SEED`` (default 0) into
   ``bot.rng``;
3. serves ``belote.bot.v1.BotService`` (decisions both as unary ``Decide``
   and over the ``DecideStream`` stream) and prints one line
   ``BELOTE-BOT READY <address>`` to stdout once listening, where ``<address>``
   is a gRPC target to dial (``unix:/abs/path`` or ``127.0.0.1:54321``);
4. on SIGTERM or SIGINT stops within a grace of 1 s and exits with status 0.

Flags win over the environment. See docs/PROTOCOL.md for the referee's side.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import grpc

from belote_arena_sdk.proto import bot_pb2 as pb
from belote_arena_sdk.proto import bot_pb2_grpc

from .actions import action_str
from .bot import Bot

LISTEN_ENV = "BELOTE_BOT_LISTEN"
"""Environment variable holding the listen address (``--listen`` wins)."""

SEED_ENV = "BELOTE_BOT_SEED"
"""Environment variable holding the RNG seed, an integer (``--seed`` wins)."""

READY_PREFIX = "BELOTE-BOT READY"
"""Start of the readiness line printed to stdout once the server listens."""

MAX_MESSAGE_BYTES = 1 << 20
"""Cap on a received or sent message, bytes (1 MiB; an observation is a few KiB)."""

SHUTDOWN_GRACE_S = 1.0
"""Seconds that calls in flight get to finish after SIGTERM/SIGINT."""

MAX_WORKERS = 4
"""Threads serving calls; bot hooks still run one at a time."""

_UNIX_PATH_MAX = 107  # sun_path is 108 bytes on Linux, including the NUL

T = TypeVar("T")


@dataclass(frozen=True)
class ListenAddress:
    """Where to listen: ``target`` is what gRPC binds (``unix:/abs/path`` or
    ``host:port``); ``socket_path`` is the Unix socket's file, ``None`` for TCP."""

    target: str
    socket_path: Path | None


def parse_listen(text: str) -> ListenAddress:
    """Read a listen address: ``unix:PATH``, ``unix:///PATH``, a path (anything
    with a ``/`` or without a ``:``; relative paths are made absolute) or ``host:port``.

    Raises:
        ValueError: for an empty address, a socket path longer than 107 bytes, or
            a port that is not a number.
    """
    text = text.strip()
    if not text:
        raise ValueError("empty listen address")
    if text.startswith("unix:"):
        path = text[len("unix:"):]
        if path.startswith("//"):
            path = path[2:]
    elif "/" in text or ":" not in text:
        path = text
    else:
        port = text.rsplit(":", 1)[1]
        if not port.isdigit():
            raise ValueError(f"listen address {text!r}: expected host:port with a numeric port, or a socket path")
        return ListenAddress(text, None)
    absolute = Path(os.path.abspath(path))
    if len(os.fsencode(str(absolute))) > _UNIX_PATH_MAX:
        raise ValueError(f"socket path {absolute} is longer than {_UNIX_PATH_MAX} bytes; use a shorter folder")
    return ListenAddress(f"unix:{absolute}", absolute)


class _Servicer(bot_pb2_grpc.BotServiceServicer):
    """BotService over one :class:`Bot`: hooks run one at a time under a lock;
    an exception in a hook becomes status INTERNAL for that call only."""

    def __init__(self, bot: Bot, info: pb.GetBotInfoResponse) -> None:
        self._bot = bot
        self._info = info
        self._lock = threading.Lock()

    def _run(self, context: grpc.ServicerContext, what: str, fn: Callable[[], T]) -> T:
        try:
            with self._lock:
                return fn()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - any bot error becomes a status, the server lives on
            # (SystemExit too: raised in a gRPC handler thread it ended the thread, and the call hung to a timeout)
            traceback.print_exc(file=sys.stderr)
            message = f"{what} raised {type(exc).__name__}: {exc}"[:1000]
        context.abort(grpc.StatusCode.INTERNAL, message)
        raise AssertionError("unreachable: context.abort raises")

    def GetBotInfo(self, request: pb.GetBotInfoRequest, context: grpc.ServicerContext) -> pb.GetBotInfoResponse:
        return self._info

    def StartMatch(self, request: pb.StartMatchRequest, context: grpc.ServicerContext) -> pb.StartMatchResponse:
        self._run(context, "on_start_match()", lambda: self._bot.on_start_match(request))
        return pb.StartMatchResponse()

    def EndMatch(self, request: pb.EndMatchRequest, context: grpc.ServicerContext) -> pb.EndMatchResponse:
        self._run(context, "on_end_match()", lambda: self._bot.on_end_match(request))
        return pb.EndMatchResponse()

    def Decide(self, request: pb.DecideRequest, context: grpc.ServicerContext) -> pb.DecideResponse:
        return self._decide(request, context)

    def DecideStream(
        self, request_iterator: Iterator[pb.DecideStreamRequest], context: grpc.ServicerContext
    ) -> Iterator[pb.DecideStreamResponse]:
        # One answer per request, in order, through Decide's own path: an exception
        # in a hook aborts the whole stream with INTERNAL (the referee opens a new one).
        for message in request_iterator:
            yield pb.DecideStreamResponse(response=self._decide(message.request, context))

    def _decide(self, request: pb.DecideRequest, context: grpc.ServicerContext) -> pb.DecideResponse:
        self._bot.clock.start(request.deadline_ms, request.time_bank_ms)
        deal = request.observation.deal_number
        if deal != self._bot.deal_number:
            self._bot.deal_number = deal
            self._run(context, "on_deal()", lambda: self._bot.on_deal(deal))
        action = self._run(context, "decide()", lambda: self._bot.decide(request))
        if not isinstance(action, pb.Action) or action.WhichOneof("kind") is None:
            got = "an empty Action (no field set)" if isinstance(action, pb.Action) else repr(action)
            context.abort(grpc.StatusCode.INTERNAL, f"decide() returned {got}, not a filled-in Action")
        if action not in request.legal_actions:
            print(f"warning: decide() returned {action_str(action)!r}, not one of the legal actions", file=sys.stderr)
        return pb.DecideResponse(action=action)


def start_server(bot: Bot, listen: str, *, max_workers: int = MAX_WORKERS) -> tuple[grpc.Server, str]:
    """Start a gRPC server for ``bot`` on ``listen`` (see :func:`parse_listen`).

    Also usable in-process (tests, a referee's own fixtures): stop it with
    ``server.stop(grace).wait()``.

    Returns:
        The running server and the target to dial: ``unix:/abs/path`` or
        ``host:port`` with the port actually bound (useful with port 0).

    Raises:
        ValueError: for a bad listen address or a malformed manifest.
        RuntimeError: when the address cannot be bound (in use, no permission, …).
    """
    address = parse_listen(listen)
    info = bot.info().to_proto()
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="belote-bot"),
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),  # a second bot on a busy port must fail, not share it
        ],
    )
    bot_pb2_grpc.add_BotServiceServicer_to_server(_Servicer(bot, info), server)
    try:
        port = server.add_insecure_port(address.target)
    except RuntimeError as exc:
        raise RuntimeError(f"cannot listen on {address.target}: {exc}") from None
    if port == 0 and address.socket_path is None:
        raise RuntimeError(f"cannot listen on {address.target}")
    server.start()
    if address.socket_path is not None:
        return server, address.target
    host = address.target.rsplit(":", 1)[0]
    return server, f"{host}:{port}"


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Serve a Belote Arena bot over gRPC (belote.bot.v1.BotService).")
    parser.add_argument(
        "--listen",
        default=os.environ.get(LISTEN_ENV),
        help=f"Unix socket path (or unix:PATH) or host:port; default ${LISTEN_ENV}",
    )
    parser.add_argument(
        "--seed",
        default=os.environ.get(SEED_ENV, "0"),
        help=f"seed of the bot's random.Random (an integer); default ${SEED_ENV}, else 0",
    )
    args = parser.parse_args(argv)
    if not args.listen:
        parser.error(f"no listen address: pass --listen ADDR or set {LISTEN_ENV}")
    try:
        args.seed = int(args.seed)
    except ValueError:
        parser.error(f"seed must be an integer, got {args.seed!r}")
    return args


def serve(bot: Bot | type[Bot], argv: Sequence[str] | None = None) -> int:
    """Run ``bot`` as a bot process until SIGTERM or SIGINT (see the module docstring).

    Must be called from the main thread (it installs signal handlers).

    Args:
        bot: the bot, or its class (instantiated with no arguments).
        argv: the command-line arguments; ``sys.argv[1:]`` when ``None``.

    Returns:
        The exit status: 0 after a clean shutdown, 1 when the server could not
        start (the reason on stderr). Bad arguments exit with status 2 (argparse).
    """
    args = _parse_args(argv)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if isinstance(bot, type):
            bot = bot()
        bot.reseed(args.seed)
        try:
            server, target = start_server(bot, args.listen)
        except (ValueError, RuntimeError) as exc:
            print(f"bot: {exc}", file=sys.stderr)
            return 1
        try:
            print(f"{READY_PREFIX} {target}", flush=True)
            while not stop.wait(0.5):
                pass
        finally:
            server.stop(SHUTDOWN_GRACE_S).wait()
            if target.startswith("unix:"):
                Path(target[len("unix:"):]).unlink(missing_ok=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
