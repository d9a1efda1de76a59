"""``arena bots submit``: validate, check, freeze and register a bot."""

from __future__ import annotations

import shlex
from pathlib import Path

from rich.console import Console

from referee.manifest import check_size, load_manifest
from referee.sandbox import Limits

from .bots import check_bot, content_hash, freeze, remove_copy
from .store import Bot, Store


class SubmitError(ValueError):
    """A submission refused; the message says why and what to do."""


def check_store_outside(folder: Path, store_root: Path) -> None:
    """Refuse a results store inside the bot's folder (its frozen copy would copy itself).

    Raises:
        SubmitError: ``store_root`` is ``folder`` or inside it.
    """
    if store_root.resolve().is_relative_to(Path(folder).resolve()):
        raise SubmitError(
            f"the results store {store_root} is inside the bot's folder {folder}: the frozen copy would "
            "copy itself; run the command from outside the bot's folder, or give --db a path outside it")


def submit(store: Store, folder: str | Path, *, store_root: Path, tournament: str | None = None,
           console: Console | None = None, limits: Limits | None = None) -> tuple[Bot, bool]:
    """Register the bot in ``folder`` (and enter it in ``tournament``).

    The conformance check runs the bot under ``limits`` (default: the sandbox).
    Returns ``(bot row, fresh)``; ``fresh`` is False when the same name, version
    and content were already registered.

    Raises:
        ManifestError: a bad manifest.
        SubmitError: the same name and version with other content, a failed
            conformance check, an unknown tournament, or ``store_root`` inside the bot's folder.
    """
    folder = Path(folder)
    manifest = load_manifest(folder)
    check_store_outside(manifest.folder, store_root)
    check_size(manifest.folder)
    digest = content_hash(manifest.folder)
    t = None
    if tournament is not None:
        t = store.get_tournament(tournament)
        if t is None:
            raise SubmitError(f"no tournament {tournament!r}: create it with `arena tournament run {shlex.quote(tournament)} --bots DIR`")
        manifest.check_plays(t.ruleset)
        if t.seed_secret and t.seed_revealed and manifest.key not in t.entrants:  # refused before anything is kept
            raise SubmitError(
                f"tournament {tournament!r} is complete and its secret seed is revealed: a new entrant "
                f"({manifest.key}) could know every board. Enter it in a new tournament "
                "(arena tournament run NEW --bots DIR ...)")
    existing = store.get_bot(manifest.name, manifest.version)
    fresh = existing is None
    if existing is not None and existing.content_hash != digest:
        raise SubmitError(
            f"{manifest.key} is already registered with different content: a new version is a new entrant, "
            "so change `version` in bot.toml and submit again")
    if fresh:
        ruleset = t.resolved_ruleset() if t is not None else None
        try:
            dest, made = freeze(manifest.folder, store_root, manifest, digest)
        except ValueError as e:
            raise SubmitError(str(e)) from None
        if console is not None:
            console.print(f"checking {manifest.key} ...")
        store.release()  # the check takes seconds: let reports read the database meanwhile
        report = check_bot(dest, ruleset=ruleset, limits=limits)  # the frozen copy: what will play
        if not report.ok:
            if made:
                remove_copy(dest)
            reasons = "; ".join(report.problems + report.faults[:3])
            raise SubmitError(f"{manifest.key} failed the conformance check: {reasons} "
                              f"(run `arena bots check {shlex.quote(str(folder))}` for the full report)")
        store.add_bot(manifest.name, manifest.version, manifest.author, manifest.text, digest, str(dest.resolve()))
    if tournament is not None:
        store.add_entrants(tournament, [(manifest.name, manifest.version)])
    return store.get_bot(manifest.name, manifest.version), fresh
