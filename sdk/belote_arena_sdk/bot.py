"""The bot base class: implement :meth:`Bot.decide`, then ``serve(MyBot())``.

A bot's identity (GetBotInfo) comes from class attributes, else from the
``bot.toml`` manifest in the folder of the module that defines the class::

    name = "random"
    version = "1.0.0"
    author = "Belote Arena"
    command = ["python", "bot.py"]
    protocol = "1.0"
    rulesets = ["classic", "strict", "all-trumps", "two-player"]
"""

from __future__ import annotations

import inspect
import math
import random
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from belote_arena_sdk.proto import bot_pb2 as pb

PROTOCOL_VERSION = "1.0"
"""The protocol version this SDK speaks (``GetBotInfoResponse.protocol_version``)."""

RULESET_NAMES: tuple[str, ...] = ("classic", "strict", "all-trumps", "two-player")
"""The rulesets of RULES.md, by name."""

MANIFEST_NAME = "bot.toml"
"""The manifest's file name, in the bot's folder."""


@dataclass(frozen=True)
class BotInfo:
    """What GetBotInfo answers: identity, the rulesets played and the protocol version."""

    name: str
    version: str
    author: str
    rulesets: tuple[str, ...]
    protocol_version: str = PROTOCOL_VERSION

    def to_proto(self) -> pb.GetBotInfoResponse:
        """The GetBotInfo response message."""
        return pb.GetBotInfoResponse(
            name=self.name,
            version=self.version,
            author=self.author,
            rulesets=list(self.rulesets),
            protocol_version=self.protocol_version,
        )


def read_manifest(path: Path) -> dict[str, Any]:
    """The ``bot.toml`` at ``path`` as a dict; ``{}`` when the file does not exist.

    Raises:
        ValueError: when the file is not valid TOML or a known key has the wrong type
            (``name``, ``version``, ``author``, ``protocol``: strings; ``rulesets``
            and ``command``: lists of strings).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    for key in ("name", "version", "author", "protocol"):
        if key in data and not isinstance(data[key], str):
            raise ValueError(f"{path}: {key} must be a string, got {data[key]!r}")
    for key in ("rulesets", "command"):
        if key in data and not (isinstance(data[key], list) and all(isinstance(x, str) for x in data[key])):
            raise ValueError(f"{path}: {key} must be a list of strings, got {data[key]!r}")
    return data


class Clock:
    """The time of the decision being made (docs/PROTOCOL.md §3): started by the server
    when a request arrives, from its ``deadline_ms`` and ``time_bank_ms``.

    The referee's deadline counts from when it sent the request, so the bot has a
    little less than ``deadline_ms`` (the transport takes about 0.3 ms each way): a
    search should stop at :meth:`remaining_ms` minus a margin for its answer (a few ms).
    """

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.deadline_ms = math.inf
        self.time_bank_ms = 0.0

    def start(self, deadline_ms: float, time_bank_ms: float = 0.0) -> None:
        """A request arrived now with this deadline and time bank (ms; 0 = no deadline)."""
        self.started = time.monotonic()
        self.deadline_ms = float(deadline_ms) if deadline_ms > 0 else math.inf
        self.time_bank_ms = float(time_bank_ms)

    def elapsed_ms(self) -> float:
        """Milliseconds since the request arrived."""
        return (time.monotonic() - self.started) * 1000.0

    def remaining_ms(self, *, with_bank: bool = False) -> float:
        """Milliseconds left before the deadline (``inf`` without one, never below 0);
        ``with_bank``: also the seat's time bank, which a late answer draws from."""
        left = self.deadline_ms + (self.time_bank_ms if with_bank else 0.0) - self.elapsed_ms()
        return max(0.0, left)


class Bot:
    """Base class of a bot: subclass it and implement :meth:`decide`.

    Class attributes ``name``, ``version``, ``author`` and ``rulesets`` override
    the manifest's values (``bot.toml`` beside the subclass's module, or
    ``manifest_path``). ``self.rng`` is the bot's own ``random.Random``, seeded by
    :func:`~belote_arena_sdk.server.serve` from ``--seed`` / ``BELOTE_BOT_SEED``
    (default 0) and restarted at every new deal from ``(seed, deal_number)``, so a
    bot that draws only from it plays each deal reproducibly — the same whether the
    match ran from its start or was resumed after an interruption.

    The server calls :meth:`decide`, :meth:`on_start_match` and
    :meth:`on_end_match` one at a time (never concurrently), so a bot needs no locks.
    ``self.clock`` (:class:`Clock`) says how much time the current decision has left:
    a bot that searches must stop before ``self.clock.remaining_ms()`` runs out.
    """

    name: ClassVar[str | None] = None
    version: ClassVar[str | None] = None
    author: ClassVar[str | None] = None
    rulesets: ClassVar[tuple[str, ...] | None] = None
    manifest_path: ClassVar[Path | None] = None

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.deal_number = 0
        self.clock = Clock()

    def reseed(self, seed: int) -> None:
        """Restart ``self.rng`` from ``seed``."""
        self.seed = seed
        self.rng = random.Random(seed)

    def on_deal(self, deal_number: int) -> None:
        """Hook: the first decision of deal ``deal_number`` (the observation's
        ``deal_number``). By default restarts ``self.rng`` from ``(seed, deal_number)``."""
        self.rng = random.Random(f"{self.seed}/deal/{deal_number}")

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        """Choose the next action.

        Args:
            request: the seat's observation (``request.observation``, RULES.md §9)
                and the legal actions (``request.legal_actions``, at least one, all
                of ``observation.phase``); ``deadline_ms`` is the time allowed
                (``self.clock.remaining_ms()``: what is left of it now).

        Returns:
            One of ``request.legal_actions``, unchanged.

        Raises:
            Any exception: the server answers the call with gRPC status INTERNAL
            (the referee counts a fault) and keeps serving.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement decide()")

    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        """Hook: a match starts (ruleset, options, seat). Does nothing by default."""

    def on_end_match(self, request: pb.EndMatchRequest) -> None:
        """Hook: the match is over (final scores). Does nothing by default."""

    def manifest(self) -> dict[str, Any]:
        """The bot's manifest (see :func:`read_manifest`); ``{}`` when there is none.

        Raises:
            ValueError: for a malformed manifest.
        """
        path = self.manifest_path
        if path is None:
            try:
                path = Path(inspect.getfile(type(self))).resolve().parent / MANIFEST_NAME
            except (TypeError, OSError):  # a class defined in an interactive session
                return {}
        return read_manifest(path)

    def info(self) -> BotInfo:
        """What GetBotInfo answers: class attributes first, then the manifest, then
        defaults (the class name, version ``"0"``, author ``""``, every ruleset).
        The protocol version is always the SDK's, :data:`PROTOCOL_VERSION`.

        Raises:
            ValueError: for a malformed manifest.
        """
        m = self.manifest()
        rulesets = self.rulesets if self.rulesets is not None else m.get("rulesets", RULESET_NAMES)
        return BotInfo(
            name=self.name or m.get("name") or type(self).__name__,
            version=self.version or m.get("version") or "0",
            author=self.author or m.get("author") or "",
            rulesets=tuple(rulesets),
        )
