"""Helpers of the ladder and final tests: a competition whose versions are entered as active
directly (the intake is tested elsewhere), bots unsandboxed for speed (the sample bots only)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from arena.compete import policy
from arena.compete.hub import Hub
from arena.play.bots import freeze
from arena.store import Store, Version, seed_commitment
from arena.store.compete import ladder_tournament
from referee.manifest import content_hash, load_manifest

from .conftest import bot_copy

#: A fixed ladder seed, so that the tests' blocks (and bots' reseeds) are the same at every run.
SEED = 20240622


def competition(db: Path, participants=("ann", "bob", "cyd"), seed: int | None = SEED, **values) -> None:
    """The competition ``cup`` (classic) with ``participants``; its ladder seed fixed when ``seed``."""
    with Store.open(db) as s:
        policy.create(s, "cup", "classic", policy=values)
        for who in participants:
            policy.add_participant(s, "cup", who)
        if seed is not None:  # the ladder's seed drawn by create, replaced by a known one
            s.con.execute("UPDATE tournaments SET seed = ?, commitment = ? WHERE name = ?",
                          [str(seed), seed_commitment(seed), ladder_tournament("cup")])


def enter(hub: Hub, who: str, folder: Path) -> Version:
    """The bot in ``folder`` as an active version of ``who`` (frozen, its bots row written)."""
    m = load_manifest(folder)
    digest = content_hash(folder)
    dest, _ = freeze(folder, hub.bots_root, m, digest)

    def work(s):
        v = s.add_version("cup", who, hashlib.sha256(f"{who}{digest}".encode()).hexdigest(), 1)
        s.add_bot(m.name, m.version, m.author, m.text, digest, str(dest))
        return s.set_version(v.id, "active", bot=(m.name, m.version, digest))

    return hub.run(work)


def crashing_bot(dst: Path, name: str = "crashy") -> Path:
    """A bot that exits as soon as it is started: every board it plays is a fault of its own."""
    bot_copy("random", dst, name=name)
    (dst / "bot.py").write_text("import sys\nsys.exit(3)\n")
    return dst
