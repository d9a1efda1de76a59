"""The intake: an uploaded version's way from ``queued`` to ``active`` or ``rejected``.

1. **checking**: the stored archive is unpacked (:func:`arena.compete.archive.extract`, checked
   again) into ``ROOT/work/<id>``; its manifest is read (it must play the competition's ruleset,
   and its bot name must be the uploader's: another participant's versions never carry it); its
   content hash is computed, the folder frozen (:func:`arena.play.bots.freeze`) and the frozen
   copy checked in the sandbox (:func:`arena.play.bots.check_bot`, as ``arena bots check``).
2. **validating**: a duplicate match against the house bot (``sample_bots/greedy``) in every
   ruleset the bot claims, on practice boards: dealt from a seed derived from the competition's
   secret practice seed and the version's id, never rated, never used by the ladder or the
   final. Any fault of the bot rejects it. Every bot process's output is kept in
   ``ROOT/logs/<id>/`` (its owner reads its own bot's files).
3. **active**: the ``bots`` row is written and the participant's oldest active versions beyond
   the policy's ``active_versions`` are ``retired``.

The status is in the database, never only in memory: a server killed at any point and started
again takes every ``queued``, ``checking`` or ``validating`` version from the start of step 1.
Each step is idempotent (the frozen copy is named by content and reused, ``add_bot`` of the same
content is a no-op), so nothing is stored twice.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
import time
import traceback
from pathlib import Path

from referee.manifest import ManifestError, content_hash, load_manifest
from referee.match import Entrant, MatchConfig, log_name, play_match
from referee.records import printable
from referee.rules import get_ruleset, make_board
from referee.sandbox import Limits

from ..play.bots import check_bot, freeze, remove_copy
from ..store import Competition, Version
from ..store.compete import PENDING
from ..store.model import variant_options
from .archive import ArchiveError, ArchiveLimits, extract, no_packages
from .hub import Hub

__all__ = ["HOUSE_BOT", "Intake", "Rejected", "practice_seed"]

log = logging.getLogger("arena.compete")

#: Seconds before a version whose intake failed for the server's reasons is tried again, and the failures
#: in a row after which it is rejected (saying it was the server's fault).
RETRY_S = 30.0
MAX_SERVER_FAILURES = 3

#: The house bot every new version plays its validation matches against.
HOUSE_BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "greedy"


class Rejected(Exception):
    """A version refused; the message is the reason its owner reads. ``bot``: its ``(name,
    version, content hash or None)`` once its manifest was read, stored with the refusal (its
    owner's status shows which bot it was)."""

    def __init__(self, reason: str, bot: tuple | None = None):
        super().__init__(reason)
        self.bot = bot


def practice_seed(competition_seed: int, version_id: int, ruleset: str) -> int:
    """The seed of a version's validation boards in ``ruleset``: SHA-256 of the competition's
    practice seed, the version id and the ruleset (256 bits). Never a ladder or final seed."""
    text = f"{competition_seed}:validation:{version_id}:{ruleset}".encode()
    return int.from_bytes(hashlib.sha256(text).digest(), "big")


def resolved_ruleset(c: Competition):
    """The competition's :class:`referee.rules.Ruleset` with its stored options."""
    values = {k: v == "on" for k, v in variant_options(c.ruleset, c.options).items()}
    return get_ruleset(c.ruleset, target=c.options.get("target"), **values)


class Intake:
    """``workers`` threads that take pending versions one at a time, oldest first."""

    def __init__(self, hub: Hub, limits: Limits, *, workers: int = 1):
        self.hub, self.limits, self.workers = hub, limits, workers
        self._claimed: set[int] = set()
        self._failures: dict[int, tuple[int, float]] = {}  # version id -> (server failures, retry not before)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start the threads; pending versions left by an earlier run are taken first."""
        for n in range(self.workers):
            t = threading.Thread(target=self._loop, name=f"intake-{n}", daemon=True)
            t.start()
            self._threads.append(t)
        self.hub.wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the threads to stop after the version in hand (daemon threads: a server that exits
        does not wait; the version stays pending and is taken again at the next start)."""
        self._stop.set()
        self.hub.wake.set()
        for t in self._threads:
            t.join(timeout)

    def _claim(self) -> Version | None:
        def work(store):
            now = time.monotonic()
            for v in store.versions(self.hub.competition, statuses=PENDING):
                if v.id not in self._claimed and self._failures.get(v.id, (0, 0.0))[1] <= now:
                    self._claimed.add(v.id)
                    return store.set_version(v.id, "checking")
            return None

        return self.hub.run(work)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.hub.wake.clear()
            version = self._claim()
            if version is None:
                self.hub.wake.wait(5.0)  # set by an upload; the timeout retries failures of the server's
                continue
            try:
                done = self.process(version)
                self._failures.pop(version.id, None)
                log.info("version %s of %s (%s): %s%s", done.id, done.participant, done.key or "?", done.status,
                         f": {done.reason}" if done.reason else "")
            except Exception as e:  # the server's fault, never the bot's: logged, tried again a little later
                log.error("intake of version %s failed:\n%s", version.id, traceback.format_exc())
                self._server_failure(version, e)
            finally:
                self._claimed.discard(version.id)

    def _server_failure(self, version: Version, error: Exception) -> None:
        """A version whose intake failed for a reason of the server's (a crash of the check, the disk):
        it stays pending and is tried again after :data:`RETRY_S` seconds, and is rejected after
        :data:`MAX_SERVER_FAILURES` failures in a row (the reason says it was not the bot's fault)."""
        count = self._failures.get(version.id, (0, 0.0))[0] + 1
        self._failures[version.id] = (count, time.monotonic() + RETRY_S)
        if count >= MAX_SERVER_FAILURES:
            hub = self.hub
            shown = _hide_paths(str(error), {hub.work / str(version.id): "the archive", hub.bots_root: "the frozen copies",
                                             hub.root: "the competition's folder", hub.db.parent: "the server's folder"})
            reason = (f"the server failed to check this upload {count} times ({type(error).__name__}: "
                      f"{printable(shown, 200)}): not your bot's fault; the organiser's log has the details")
            try:
                self.hub.run(lambda s: s.set_version(version.id, "rejected", reason=reason))
            except Exception:
                log.error("cannot reject version %s:\n%s", version.id, traceback.format_exc())

    def process(self, version: Version) -> Version:
        """Take one version through the intake (module docstring); return it as stored after."""
        hub = self.hub
        c = hub.run(lambda s: s.get_competition(hub.competition))
        work = hub.work / str(version.id)
        _remove_tree(work)
        made_copy: Path | None = None
        try:
            manifest, digest, dest, made = self._check(c, version, work)
            made_copy = dest if made else None
            hub.run(lambda s: s.set_version(version.id, "validating"))
            summary = self._validate(c, version, manifest, dest, digest)
            stored = dest.resolve()
            if stored.is_relative_to(hub.db.parent.resolve()):
                stored = stored.relative_to(hub.db.parent.resolve())

            def activate(s):
                s.add_bot(manifest.name, manifest.version, manifest.author, manifest.text, digest, str(stored))
                out = s.set_version(version.id, "active", validation=summary)
                mine = s.versions(hub.competition, version.participant, statuses=("active",))
                keep = c.policy["active_versions"]
                for old in mine[: max(0, len(mine) - keep)]:
                    s.set_version(old.id, "retired", reason=f"more than {keep} active versions: version {version.id} "
                                  "replaced it")
                return out

            made_copy = None  # registered now: kept
            out = hub.run(lambda s: s._transaction(lambda: activate(s)))  # all or nothing
            hub.wake_ladder()
            return out
        except Rejected as e:
            if made_copy is not None:
                remove_copy(made_copy, hub.bots_root)
            reason = _hide_paths(str(e), {work: "the archive", hub.bots_root: "the frozen copies"})
            return hub.run(lambda s: s.set_version(version.id, "rejected", reason=reason, bot=e.bot))
        finally:
            _remove_tree(work)

    def _check(self, c: Competition, version: Version, work: Path):
        hub = self.hub
        archive = hub.archives / f"{version.archive_sha256}.tar.gz"
        try:
            extract(archive, work, ArchiveLimits.of(c.policy))
            manifest = load_manifest(work)
        except (ArchiveError, ManifestError) as e:
            raise Rejected(str(e)) from None
        named = (manifest.name, manifest.version, None)
        try:
            manifest.check_plays(c.ruleset)
            if (why := no_packages(manifest)) is not None:  # a build would fetch from the network for an uploader
                raise Rejected(why, named)
            digest = content_hash(work)
        except ManifestError as e:
            raise Rejected(str(e), named) from None
        bot = (manifest.name, manifest.version, digest)

        def claim(s):
            owner = s.bot_owner(hub.competition, manifest.name)
            if owner is not None and owner != version.participant:
                raise Rejected(f"the bot name {manifest.name!r} belongs to another participant: give your bot "
                               "another name in bot.toml", bot)
            same = [v for v in s.versions(hub.competition, version.participant)
                    if v.id != version.id and v.content_hash == digest and v.status != "rejected"]
            if same:
                raise Rejected(f"the same bot (content hash {digest[:16]}…) as your version {same[0].id}: "
                               "nothing new to validate", bot)
            old = s.get_bot(manifest.name, manifest.version)
            if old is not None and old.content_hash != digest:
                raise Rejected(f"{manifest.key} is already registered with other content: a new version is a new "
                               "entrant, so change `version` in bot.toml and upload again", bot)
            s.set_version(version.id, "checking", bot=bot)
            return old is None

        fresh = hub.run(claim)
        try:
            dest, made = freeze(work, hub.bots_root, manifest, digest)
        except (ValueError, OSError) as e:
            raise Rejected(f"the bot's frozen copy could not be made: {e}") from None
        report = check_bot(dest, ruleset=resolved_ruleset(c), decision_ms=c.policy["decision_ms"], limits=self.limits)
        if not report.ok:
            if made or fresh:
                remove_copy(dest, hub.bots_root)
            raise Rejected(f"{manifest.key} failed the conformance check:\n"
                           + "\n".join(report.problems + report.faults[:3]))
        return manifest, digest, dest, made or fresh

    def _validate(self, c: Competition, version: Version, manifest, dest: Path, digest: str) -> dict:
        hub = self.hub
        logs = hub.logs / str(version.id)
        _remove_tree(logs)
        logs.mkdir(parents=True)
        seed0 = hub.run(lambda s: s.practice_seed(hub.competition))
        house_manifest = load_manifest(HOUSE_BOT)
        me = Entrant(manifest.key, manifest=load_manifest(dest), content_hash=digest)
        house = Entrant(f"{house_manifest.key} (house)", manifest=house_manifest)
        summary: dict = {"house": house_manifest.key, "rulesets": {}}
        for name in manifest.rulesets:
            rules = resolved_ruleset(c) if name == c.ruleset else get_ruleset(name)
            seed = practice_seed(seed0, version.id, name)
            boards = [make_board(seed, k, rules.seats) for k in range(c.policy["validation_boards"])]
            config = MatchConfig(ruleset=rules, decision_ms=c.policy["decision_ms"], seed=seed,
                                 limits=self.limits, log_dir=logs / name)
            (logs / name).mkdir()
            try:
                results = play_match(f"validation-{version.id}-{name}", me, house, boards, config)
            finally:
                keep_tails(logs / name)
            faults = [f"{name} board {f.board} table {f.table} seat {f.seat}: {f.kind}: {printable(f.detail, 200)}"
                      for r in results for f in r.faults if f.entrant == me.key]
            outcomes = [r.outcome_a for r in results]
            summary["rulesets"][name] = {
                "boards": len(results), "wins": outcomes.count("win"), "draws": outcomes.count("draw"),
                "losses": outcomes.count("loss"), "margin": sum(r.margin for r in results), "faults": faults[:10]}
            if faults:
                hub.run(lambda s: s.set_version(version.id, "validating", validation=summary))
                raise Rejected(f"{manifest.key} faulted in its validation match against {house_manifest.key} "
                               f"({len(faults)} fault(s)): " + "; ".join(faults[:3])
                               + " — `arena remote logs` shows its output")
        return summary


def _hide_paths(text: str, names: dict[Path, str]) -> str:
    """``text`` with the server's folders named instead of shown (a reason is read by participants)."""
    for path, name in names.items():
        for form in {str(path.resolve()), str(path)}:
            text = text.replace(form, name)
    return text


def _remove_tree(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)


#: Ladder units (and challenges) whose bot output is kept for each version (its newest), besides
#: its validation's.
LOGS_KEPT = 10
#: The end of each bot process's output that is kept (and shown to its owner), bytes.
KEPT_BYTES = 256 * 1024
_LADDER, _CHALLENGE = "ladder-", "challenge-"


def file_logs(hub: Hub, folder: Path, versions: list[tuple[int, str]], name: str) -> None:
    """File the bot output of a match the server played (``folder``: the ``log_dir`` it was played
    with, files at any depth, :func:`arena.play.executors.match_log_dir`) under each version's own
    logs, ``ROOT/logs/<id>/<name>/`` (replacing an earlier attempt's), each file's last
    :data:`KEPT_BYTES` only; keep each version's newest :data:`LOGS_KEPT` ladder units and
    challenges; remove ``folder``.

    Args:
        versions: ``(version id, entrant key)`` of the versions whose output is kept (a file is
            theirs by the entrant name the referee gave it, never by anything a bot wrote).
        name: ``ladder-<block, 6 digits>`` (:func:`ladder_folder`) or ``challenge-<id>/vs-<id>``.
    """
    for version_id, key in versions:
        prefix = log_name(key) + "-table"
        mine = hub.logs / str(version_id)
        dest = mine / name
        _remove_tree(dest)
        dest.mkdir(parents=True)
        if folder.is_dir():
            for path in folder.rglob("*.log"):
                if path.name.startswith(prefix) and path.is_file() and not path.is_symlink():
                    (dest / path.name).write_bytes(_tail(path))
        for old in sorted(ladder_log_blocks(hub, version_id))[:-LOGS_KEPT]:
            _remove_tree(mine / ladder_folder(old))
        challenges = sorted(int(p.name[len(_CHALLENGE):]) for p in mine.glob(f"{_CHALLENGE}*")
                            if p.name[len(_CHALLENGE):].isdigit())
        for old in challenges[:-LOGS_KEPT]:
            _remove_tree(mine / f"{_CHALLENGE}{old}")
    _remove_tree(folder)


def keep_tails(folder: Path) -> None:
    """Cut every ``.log`` file under ``folder`` to its last :data:`KEPT_BYTES` (what is ever
    shown): a bot writing 64 MiB a process fills no disk."""
    for path in folder.rglob("*.log"):
        if path.is_file() and not path.is_symlink() and path.stat().st_size > KEPT_BYTES:
            path.write_bytes(_tail(path))


def _tail(path: Path) -> bytes:
    with open(path, "rb") as f:
        f.seek(max(0, os.fstat(f.fileno()).st_size - KEPT_BYTES))
        return f.read(KEPT_BYTES)


def ladder_folder(block: int) -> str:
    """The name of a ladder unit's folder in a version's logs: ``ladder-<block, 6 digits>``."""
    return f"{_LADDER}{block:06d}"


def ladder_log_blocks(hub: Hub, version_id: int) -> list[int]:
    """The ladder blocks whose output is kept for a version, oldest first."""
    folder = hub.logs / str(version_id)
    if not folder.is_dir():
        return []
    return sorted(int(p.name[len(_LADDER):]) for p in folder.iterdir()
                  if p.name.startswith(_LADDER) and p.name[len(_LADDER):].isdigit() and p.is_dir())


def own_logs(hub: Hub, version: Version, block: int | None = None, cap: int = KEPT_BYTES, *,
             challenge: int | None = None) -> dict[str, str]:
    """The output of the version's own bot processes: ``{"FOLDER/FILE": text}``, each file's last
    ``cap`` bytes (made printable: control characters escaped), never another entrant's.

    ``block`` None: its validation matches (``FOLDER``: the ruleset) and its newest ladder unit
    (``ladder-<block>``); a block: that ladder unit's only; ``challenge``: that challenge's only
    (empty while it has not been played).

    Raises:
        KeyError: no output of ``block`` is kept for the version (message: the blocks kept).
    """
    folder = hub.logs / str(version.id)
    if version.key is None or not folder.is_dir():
        if block is not None and challenge is None:
            raise KeyError(f"no output of ladder block {block} is kept for version {version.id}")
        return {}
    kept = ladder_log_blocks(hub, version.id)
    if challenge is None and block is not None and block not in kept:
        raise KeyError(f"no output of ladder block {block} is kept for version {version.id} (kept: "
                       f"{', '.join(map(str, kept)) or 'none'}; the newest {LOGS_KEPT} units are kept)")
    if challenge is not None:
        folders = sorted(p for p in (folder / f"{_CHALLENGE}{challenge}").glob("vs-*") if p.is_dir())
    elif block is None:
        folders = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((_LADDER, _CHALLENGE))]
        folders += [folder / ladder_folder(kept[-1])] if kept else []
    else:
        folders = [folder / ladder_folder(block)]
    prefix = log_name(version.key) + "-table"
    out: dict[str, str] = {}
    for sub in sorted(folders):
        for path in sorted(sub.glob("*.log")):  # a folder that does not exist yields nothing
            if path.is_symlink() or not path.name.startswith(prefix):
                continue
            data = path.read_bytes()[-cap:]
            where = f"{sub.parent.name}/{sub.name}" if challenge is not None else sub.name
            out[f"{where}/{path.name}"] = printable(data.decode("utf-8", "replace"), cap)
    return out
