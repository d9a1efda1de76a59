"""Turning ``--bot`` arguments into entrants: a bot folder (with ``bot.toml``) or ``host:port``."""

from __future__ import annotations

import re
from pathlib import Path

from referee.manifest import ManifestError, load_manifest
from referee.match import Entrant

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
        return Entrant(key=spec, endpoint=spec)
    raise ManifestError(f"{spec!r} is neither a bot folder (holding bot.toml) nor a host:port endpoint")


def distinct(entrants: list[Entrant]) -> list[Entrant]:
    """Give the same bot entered twice distinct keys (``name@version#2``)."""
    seen: dict[str, int] = {}
    out = []
    for e in entrants:
        n = seen.get(e.key, 0) + 1
        seen[e.key] = n
        out.append(e if n == 1 else Entrant(key=f"{e.key}#{n}", manifest=e.manifest, endpoint=e.endpoint))
    return out
