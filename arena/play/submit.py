"""``arena bots submit``: validate, check, freeze and register a bot."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import shlex
import time
from pathlib import Path

from rich.console import Console

from referee.manifest import Manifest, check_size, load_manifest
from referee.sandbox import Limits

from .bots import check_bot, content_hash, freeze, remove_copy
from .build import installed
from ..store import Bot, Store


class SubmitError(ValueError):
    """A submission refused; the message says why and what to do."""


#: The code a check's verdict depends on: the referee, the check and the SDK the bots import.
_CHECKER = ("referee", "arena.play", "belote_arena_sdk")


def check_cache_dir() -> Path | None:
    """Where passed conformance checks are kept on this machine: ``ARENA_CHECK_CACHE`` (a
    folder; empty or ``off``: none kept, every submission checked), by default
    ``$XDG_CACHE_HOME/belote-arena/checks`` (``~/.cache/belote-arena/checks``)."""
    given = os.environ.get("ARENA_CHECK_CACHE")
    if given is not None:
        return None if given in ("", "off") else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "belote-arena" / "checks"


@functools.cache
def _checker_digest() -> str:
    """SHA-256 of the checker's own sources (the packages :data:`_CHECKER`, wherever they are
    installed): a pass is reused by this code only."""
    h = hashlib.sha256()
    for package in _CHECKER:
        folder = Path(importlib.import_module(package).__file__).parent
        for f in sorted(folder.rglob("*.py")):
            h.update(f"{package}/{f.relative_to(folder).as_posix()}".encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _check_key(played: str, ruleset, decision_ms: int, limits: Limits | None) -> str:
    """What decides a check: the bot's content hash, the ruleset with its options (None: every
    one the manifest names), the deadline (ms), the sandbox limits and the checker's code."""
    what = [played, None if ruleset is None else [ruleset.name, sorted(ruleset.options().items())], decision_ms,
            repr(limits or Limits()), _checker_digest()]
    return hashlib.sha256(json.dumps(what, default=str).encode()).hexdigest()


def _passed_before(key: str) -> dict | None:
    """The record of a check passed on this machine with ``key``, or None."""
    folder = check_cache_dir()
    try:
        return json.loads((folder / f"{key}.json").read_text()) if folder is not None else None
    except (OSError, ValueError):
        return None


def _keep_pass(key: str, record: dict) -> None:
    """Keep a passed check (best effort: a cache that cannot be written is no error)."""
    folder = check_cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f"{key}.{os.getpid()}.part"
        part.write_text(json.dumps(record))
        part.replace(folder / f"{key}.json")
    except OSError:
        pass


def check_store_outside(folder: Path, store_root: Path, manifest: Manifest | None = None) -> None:
    """Refuse a bot whose frozen copy (``store_root/NAME/VERSION/HASH``) would land inside its own
    folder, where it would copy itself: the results store ``store_root`` inside ``folder``, or
    ``folder`` being ``store_root/NAME`` or ``store_root/NAME/VERSION`` of the bot's ``manifest``.
    A frozen copy itself (``.../HASH``, given as ``NAME@VERSION``) is fine: it is reused.

    Raises:
        SubmitError: either, with what to move.
    """
    folder = Path(folder).resolve()
    if store_root.resolve().is_relative_to(folder):
        raise SubmitError(
            f"the results store {store_root} is inside the bot's folder {folder}: the frozen copy would "
            "copy itself; run the command from outside the bot's folder, or give --db a path outside it")
    if manifest is not None and folder in ((store_root / manifest.name).resolve(),
                                           (store_root / manifest.name / manifest.version).resolve()):
        raise SubmitError(
            f"the bot's folder {folder} is where the arena keeps the frozen copies of {manifest.name} "
            f"({store_root / manifest.name}/VERSION/HASH): the copy would be made inside the folder it copies; "
            f"move the bot's folder out of {store_root}, or give --db a path in another folder")


def submit(store: Store, folder: str | Path, *, store_root: Path, tournament: str | None = None,
           console: Console | None = None, limits: Limits | None = None,
           decision_ms: int = 1000) -> tuple[Bot, bool]:
    """Register the bot in ``folder`` (and enter it in ``tournament``).

    The conformance check runs the bot under ``limits`` (default: the sandbox), each answer
    within ``decision_ms`` ms (the deadline of the tournament it is entered for); it runs
    once per version: a bot registered already is not checked again.
    Returns ``(bot row, fresh)``; ``fresh`` is False when the same name, version
    and content were already registered.

    Raises:
        ManifestError: a bad manifest; a folder holding a device, FIFO or socket, folders
            more than :data:`referee.manifest.MAX_DEPTH` deep, or over the size limit
            (:func:`referee.manifest.check_size`); the message names the file.
        SubmitError: the same name and version with other content, requirements that could not
            be installed (pip's last lines shown), a failed (or crashed) conformance check, an unknown tournament, ``store_root`` inside the bot's folder,
            or a frozen copy that cannot be written.

    A refused submission leaves nothing in the store: no ``bots`` row, no frozen copy
    (nor the ``NAME/VERSION`` folders made for it).
    """
    folder = Path(folder)
    manifest = load_manifest(folder)
    check_store_outside(manifest.folder, store_root, manifest)
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
    # a built bot is registered with its frozen copy's hash (its packages included); the copy's
    # folder is named by the submitted folder's hash
    same = existing is not None and (existing.content_hash == digest or (
        manifest.requirements is not None and Path(existing.path).name == digest[:16]))
    if existing is not None and not same:
        raise SubmitError(
            f"{manifest.key} is already registered with different content: a new version is a new entrant, "
            "so change `version` in bot.toml and submit again")
    if fresh:
        ruleset = t.resolved_ruleset() if t is not None else None
        if console is not None and manifest.requirements is not None:
            console.print(f"installing the packages of {manifest.requirements} into the frozen copy ...",
                          highlight=False)
        try:
            dest, made = freeze(manifest.folder, store_root, manifest, digest)
        except ValueError as e:  # ManifestError, BuildError too: a special file, a failed build
            raise SubmitError(str(e)) from None
        except OSError as e:  # the store's disk: full, read-only
            raise SubmitError(f"cannot make the frozen copy of {manifest.key} in {store_root}: {e.strerror}") from None
        try:
            played = digest
            if manifest.requirements is not None:
                played = content_hash(dest)  # what the referee checks before every start
                if console is not None:
                    console.print(f"installed: {', '.join(installed(dest)) or 'nothing'}", highlight=False)
            key = _check_key(played, ruleset, decision_ms, limits)
            before = _passed_before(key)
            if before is not None:
                if console is not None:
                    console.print(f"{manifest.key} passed the conformance check on this machine on {before['when']} "
                                  f"(the same content, deadline of {decision_ms} ms, limits and arena code): not "
                                  "checked again (ARENA_CHECK_CACHE=off checks every time)", highlight=False)
            else:
                _check(manifest, folder, dest, ruleset, limits, decision_ms, store, console)
                _keep_pass(key, {"bot": manifest.key, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
            stored = dest.resolve()
            if store.path is not None and stored.is_relative_to(store.path.parent.resolve()):
                stored = stored.relative_to(store.path.parent.resolve())  # moves with the database's folder
            store.add_bot(manifest.name, manifest.version, manifest.author, manifest.text, played, str(stored))
        except BaseException:
            if made:
                remove_copy(dest, store_root)
            raise
    if tournament is not None:
        store.add_entrants(tournament, [(manifest.name, manifest.version)])
    return store.get_bot(manifest.name, manifest.version), fresh


def _check(manifest: Manifest, folder: Path, dest: Path, ruleset, limits: Limits | None, decision_ms: int,
           store: Store, console: Console | None) -> None:
    """Run the conformance check on the frozen copy ``dest`` (what will play).

    Raises:
        SubmitError: the check failed or could not run (its first problems in the message).
    """
    if console is not None:
        console.print(f"checking {manifest.key} (once per version: every kind of decision on chosen "
                      f"positions, then a short match against random, each answer within {decision_ms} ms; "
                      "10-30 s) ...", highlight=False)
    store.release()  # the check takes seconds: let reports read the database meanwhile
    try:
        report = check_bot(dest, ruleset=ruleset, limits=limits, decision_ms=decision_ms)
    except Exception as e:  # a crash of the check is a refusal too, never a copy left behind
        raise SubmitError(f"the conformance check of {manifest.key} could not run: "
                          f"{type(e).__name__}: {e}") from e
    if not report.ok:
        reasons = "\n".join(report.problems + report.faults[:3])
        raise SubmitError(f"{manifest.key} failed the conformance check (run `arena bots check "
                          f"{shlex.quote(str(folder))}` for the full report):\n{reasons}")
