"""Turning ``--bot`` arguments into entrants (a bot folder with ``bot.toml``, or ``host:port``), and
whether they may run where the bot sandbox cannot be made (SECURITY.md)."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from pathlib import Path

from referee import sandbox
from referee.manifest import Manifest, ManifestError, content_hash, load_manifest
from referee.match import Entrant
from referee.sandbox import Limits

_ENDPOINT = re.compile(r"^[A-Za-z0-9.\-\[\]:]+:\d{1,5}$")


def resolve_entrant(spec: str) -> Entrant:
    """A folder holding ``bot.toml`` → a local entrant; ``host:port`` → a remote one.

    Raises:
        ManifestError: neither a bot folder nor an endpoint, or a bad manifest.
    """
    path = Path(spec)
    if path.exists():
        manifest = load_manifest(path)
        return Entrant(key=manifest.key, manifest=manifest)
    if _ENDPOINT.match(spec):
        port = int(spec.rsplit(":", 1)[1])
        if not 0 < port < 65536:
            raise ManifestError(f"{spec!r}: port {port} is not a TCP port (1-65535)")
        return Entrant(key=remote_label(spec), endpoint=spec)
    raise ManifestError(f"{spec!r} is neither a bot folder (holding bot.toml) nor a host:port endpoint")


def is_endpoint(spec: str) -> bool:
    """Whether ``spec`` reads as ``host:port`` (a bot already running there)."""
    return bool(_ENDPOINT.match(spec))


def remote_label(endpoint: str, timeout_s: float = 5.0) -> str:
    """How a remote entrant is shown: ``"name@version (host:port)"`` from its GetBotInfo
    (what the bot says of itself, made printable).

    Raises:
        ManifestError: no bot answers there within ``timeout_s`` seconds."""
    import grpc

    from belote_arena_sdk.proto import bot_pb2 as pb
    from belote_arena_sdk.proto import bot_pb2_grpc as pb_grpc
    from referee.records import printable

    try:
        with grpc.insecure_channel(endpoint) as channel:
            info = pb_grpc.BotServiceStub(channel).GetBotInfo(pb.GetBotInfoRequest(), timeout=timeout_s)
    except grpc.RpcError as e:
        raise ManifestError(f"no bot answers at {endpoint} ({e.code().name} within {timeout_s:g} s): start it "
                            "there first, or check the address") from None
    name = printable(f"{info.name or '?'}@{info.version or '?'}", 80)
    return f"{name} ({endpoint})"


def distinct(entrants: list[Entrant]) -> list[Entrant]:
    """Give the same bot entered twice distinct keys (``name@version#2``)."""
    seen: dict[str, int] = {}
    out = []
    for e in entrants:
        n = seen.get(e.key, 0) + 1
        seen[e.key] = n
        out.append(e if n == 1 else Entrant(key=f"{e.key}#{n}", manifest=e.manifest, endpoint=e.endpoint,
                                                       content_hash=e.content_hash))
    return out


class SandboxRefused(ValueError):
    """Untrusted bots asked to run where the sandbox cannot be made; the message says what is missing."""


@functools.cache
def _sample_hashes() -> frozenset[str]:
    import sample_bots

    root = Path(sample_bots.__file__).parent
    return frozenset(content_hash(d) for d in root.iterdir() if (d / "bot.toml").is_file())


def is_sample_bot(manifest: Manifest) -> bool:
    """True when the bot's folder holds exactly one of the sample bots (by content hash)."""
    try:
        return content_hash(manifest.folder) in _sample_hashes()
    except (OSError, ValueError):  # ValueError: ManifestError (a special file, folders too deep)
        return False


def sandbox_limits(limits: Limits, manifests: list[Manifest], warn: Callable[[str], None]) -> Limits:
    """The limits to play ``manifests`` with, after checking that the sandbox can be had.

    With ``limits.isolate`` and a working sandbox: ``limits`` unchanged.  Where the machine
    cannot make the sandbox (:func:`referee.sandbox.support`), sample bots run without it
    (``warn`` is called with a message) and any other bot is refused.  With isolation off
    (``--no-isolate``): ``limits`` unchanged, and ``warn`` says the bots are not sandboxed.

    Raises:
        SandboxRefused: the sandbox is unavailable and a bot is not a sample bot; the message
            says what is missing, how to get it, and that ``--no-isolate`` runs trusted bots anyway.
    """
    if not limits.isolate:
        warn("--no-isolate: bots run WITHOUT the sandbox, as this user, able to read and write what it can; "
             "use it only for bots you trust")
        return limits
    support = sandbox.support()
    if support.works:
        return limits
    untrusted = [m.key for m in manifests if not is_sample_bot(m)]
    if untrusted:
        raise SandboxRefused(
            f"the bot sandbox is unavailable: {support.problem}. Refusing to run {', '.join(untrusted)} "
            "unsandboxed; pass --no-isolate to run them anyway (only bots you trust)")
    warn(f"the bot sandbox is unavailable ({support.problem}); the sample bots run without it")
    return dataclasses.replace(limits, isolate=False)
