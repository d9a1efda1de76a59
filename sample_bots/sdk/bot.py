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
import random
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from belote.bot.v1 import bot_pb2 as pb

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


class Bot:
    """Base class of a bot: subclass it and implement :meth:`decide`.

    Class attributes ``name``, ``version``, ``author`` and ``rulesets`` override
    the manifest's values (``bot.toml`` beside the subclass's module, or
    ``manifest_path``). ``self.rng`` is the bot's own ``random.Random``, seeded by
    :func:`~sample_bots.sdk.server.serve` from ``--seed`` / ``BELOTE_BOT_SEED``
    (default 0) and restarted at every new deal from ``(seed, deal_number)``, so a
    bot that draws only from it plays each deal reproducibly — the same whether the
    match ran from its start or was resumed after an interruption.

    The server calls :meth:`decide`, :meth:`on_start_match` and
    :meth:`on_end_match` one at a time (never concurrently), so a bot needs no locks.
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
                of ``observation.phase``); ``deadline_ms`` is the time allowed.

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
