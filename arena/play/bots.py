"""Submitting bots: validation, the conformance check, content hash and the frozen copy."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import stat
import statistics
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from referee.botproc import BotClient, BotStartError
from referee.sandbox import Limits
from referee.manifest import (
    CHUNK, Manifest, ManifestError, check_size, content_hash, load_manifest, open_regular, walk,
)
from referee.records import printable
from referee.match import Entrant, MatchConfig, play_match
from referee.rules import RULESETS, Ruleset, make_board
from referee.wire import PROTOCOL_VERSION

from .build import BuildError, install_requirements
from .coverage import COSTLY, MAX_COSTLY_FAULTS, Answer, config_label, cover, option_configs
from .matchview import percentile
from .schedule import new_seed

@dataclass
class ConformanceReport:
    """What ``arena bots check`` prints: bot info, the chosen positions answered (one per
    situation per ruleset configuration, :mod:`arena.play.coverage`), the match's decisions
    answered per kind, latency (ms, median and p99), and every fault."""

    manifest: Manifest
    info: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    decisions: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    #: how the referee will send it decisions: "DecideStream" or "Decide" (unary), "" if not known
    transport: str = ""
    #: the answers to the chosen positions, in the order asked
    answers: list[Answer] = field(default_factory=list)
    #: the ruleset configurations asked (:func:`arena.play.coverage.config_label`), in order
    configs: list[str] = field(default_factory=list)
    #: the configurations not asked (the check stopped after too many costly faults)
    not_asked: list[str] = field(default_factory=list)
    #: the seed the positions and the match's boards were drawn from (``--seed`` asks them again)
    seed: int | None = None
    #: the match played after the positions, in words
    match: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.faults

    def to_json(self) -> dict:
        """The report as plain data (``arena bots check --json``): ``ok``, the bot, its info and
        transport, the seed, the configurations asked and not, every position's answer (ms; the
        fault's kind, detail and what was shown for a wrong one), the match's decisions per kind
        and latency (ms), the problems and the faults."""
        return {
            "ok": self.ok, "bot": self.manifest.key, "info": self.info, "transport": self.transport,
            "seed": None if self.seed is None else str(self.seed), "configs": self.configs, "not_asked": self.not_asked,
            "positions": [{"config": a.config, "situation": a.situation, "seat": a.seat, "ms": round(a.ms, 3),
                           "ok": a.ok, "fault": a.kind, "detail": a.detail, "shown": a.shown} for a in self.answers],
            "match": {"played": self.match, "decisions": dict(self.decisions), "median_ms": round(self.median_ms, 3),
                      "p99_ms": round(self.p99_ms, 3)},
            "problems": self.problems, "faults": self.faults,
        }

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else 0.0

    @property
    def p99_ms(self) -> float:
        return percentile(self.latencies_ms, 0.99)


def _transport(client: BotClient) -> str:
    """Which way the referee will send this bot its decisions (docs/PROTOCOL.md §3):
    ``"DecideStream"`` when the bot serves the stream (a stream opened and closed with
    no request ends cleanly), ``"Decide"`` (unary) when it answers UNIMPLEMENTED."""
    try:
        for _ in client.stub.DecideStream(iter(()), timeout=5):
            pass
    except grpc.RpcError as e:
        return "Decide" if e.code() == grpc.StatusCode.UNIMPLEMENTED else f"unknown (DecideStream: {e.code().name})"
    return "DecideStream"


#: The sample bot the conformance check plays against (it takes often, so deals reach the play).
OPPONENT = Path(__file__).resolve().parents[2] / "sample_bots" / "random"


def check_bot(folder: str | Path, *, ruleset: Ruleset | None = None, boards: int = 4,
              decision_ms: int = 1000, seed: int | None = None, max_faults: int = 3,
              limits: Limits | None = None) -> ConformanceReport:
    """Start the bot and ask its info; ask it every kind of decision on chosen positions
    (:func:`arena.play.coverage.cover`) under ``ruleset`` as given (with its options), or by
    default under every ruleset the manifest names with every combination of its §6.4 options
    (:func:`arena.play.coverage.option_configs`); then play a duplicate match of ``boards``
    boards against the sample ``random`` bot under ``ruleset`` (default: the manifest's
    first), each seat a process of its own, and collect answers per decision kind,
    latencies and faults.  The match stops asking the bot after ``max_faults`` faults.

    The check fails on the first wrong answer to a position (the problem shows the
    observation, the legal actions and the answer), on a fault in the match, and when the
    bot never answered a card decision in the match.  The positions and the match's boards
    are drawn from ``seed``, by default a new secret one (the check cannot be told apart from
    a match by its deals), kept in the report: the same seed asks the same positions again.

    Raises:
        ManifestError: the manifest is missing or wrong, or does not list ``ruleset``; the
            folder holds a device, FIFO or socket, folders too deep, or is over the size
            limit (:func:`referee.manifest.check_size`).
    """
    manifest = load_manifest(folder)
    if ruleset is not None:
        manifest.check_plays(ruleset.name)
    check_size(manifest.folder)  # what submitting would refuse, before the bot runs
    report = ConformanceReport(manifest=manifest)
    if (manifest.requirements is None and (manifest.folder / "package.json").is_file()
            and not (manifest.folder / "node_modules").is_dir()):
        report.problems.append(f"{manifest.key}: package.json but no node_modules/: its packages are not installed; "
                               f"run `npm ci --ignore-scripts` in {manifest.folder} (the sandbox has no network), "
                               f'or name it in bot.toml (requirements = "package.json") for the arena to install them')
        return report
    program = manifest.command[0]
    if "/" in program and not (manifest.folder / program).exists():  # e.g. ./bot of a C++ bot not built yet
        report.problems.append(f"{manifest.key}: its command runs {program}, which is not in {manifest.folder}: "
                               "build the bot first (its README says how; a C++ starter: `cmake -S . -B build && "
                               "cmake --build build`)")
        return report
    limits = limits or Limits()
    client = BotClient(manifest, startup_s=10, limits=limits)
    try:
        client.start()
        info = client.info()
        report.info = {"name": printable(info.name, 100), "version": printable(info.version, 100),  # bot-supplied
                       "author": printable(info.author, 100), "rulesets": [printable(r, 100) for r in info.rulesets],
                       "protocol_version": printable(info.protocol_version, 100)}
        said = report.info
        if info.protocol_version.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
            report.problems.append(f"bot-info protocol_version {said['protocol_version']!r}: "
                                   f"this referee speaks {PROTOCOL_VERSION}")
        if info.name != manifest.name or info.version != manifest.version:
            report.problems.append(f"bot-info says {said['name']}@{said['version']}, the manifest {manifest.key}")
        report.transport = _transport(client)
    except BotStartError as e:
        client.close()
        report.problems.append(str(e))
        return report
    except grpc.RpcError as e:
        client.close()
        report.problems.append(f"GetBotInfo failed: {e.code().name} {printable(e.details() or '', 300)}")  # bot-supplied
        return report
    except BaseException:
        client.close()
        raise
    configs = [ruleset] if ruleset is not None else [c for name in manifest.rulesets for c in option_configs(name)]
    seed = new_seed() if seed is None else seed  # secret: a bot cannot tell the check from a match
    report.seed = seed
    # the process asked for its info plays the first configuration's positions (one start less)
    report.answers = cover(manifest, configs, limits=limits, decision_ms=decision_ms, started=client,
                           rng=random.Random(seed))
    asked = {a.config for a in report.answers}
    report.configs = [label for label in map(config_label, configs) if label in asked]
    report.not_asked = [label for label in map(config_label, configs) if label not in asked]
    wrong = [a for a in report.answers if not a.ok]
    if sum(a.kind in COSTLY for a in wrong) >= MAX_COSTLY_FAULTS:
        report.problems.append(f"stopped asking the chosen positions after {MAX_COSTLY_FAULTS} timeouts, "
                               "crashes or failed starts"
                               + (f": not asked under {'; '.join(report.not_asked)}" if report.not_asked else ""))
    if wrong:
        a = wrong[0]
        report.problems.append(f"{len(wrong)} wrong answer(s) to the {len(report.answers)} chosen positions; the first: "
                               f"{a.config}, seat {a.seat}, {a.situation}: {a.kind}: {a.detail}"
                               + (f"\n{a.shown}" if a.shown else ""))
    ruleset = ruleset or RULESETS[manifest.rulesets[0]]
    entrant = Entrant(manifest.key, manifest=manifest)
    opponent_manifest = load_manifest(OPPONENT)
    opponent = Entrant(opponent_manifest.key + " (opponent)", manifest=opponent_manifest)
    config = MatchConfig(ruleset=ruleset, decision_ms=decision_ms, seed=seed, max_faults=max_faults, limits=limits)
    report.match = f"{boards} board(s) of {config_label(ruleset)} against {opponent_manifest.key}"
    results = play_match("conformance", entrant, opponent,
                         [make_board(seed, k, ruleset.seats) for k in range(boards)], config)
    for r in results:
        for t in r.tables:
            for d in t.decisions:
                mine = (t.ns == entrant.key) == (d.seat % 2 == 0)
                if mine and (d.ms > 0 or d.fault):
                    report.decisions[next(iter(d.action))] += 1
                    if not d.fault:
                        report.latencies_ms.append(d.ms)
            report.faults.extend(f"board {f.board} table {f.table} seat {f.seat}: {f.kind}: {f.detail}"
                                 for f in t.faults if f.entrant == entrant.key)
    if len(report.faults) >= max_faults:
        report.problems.append(f"the match stopped asking the bot after {max_faults} faults (a forfeit)")
    elif not report.decisions.get("card"):
        report.problems.append("the bot never answered a card decision: it did not play any deal")
    return report


def freeze(folder: Path, store_root: Path, manifest: Manifest, digest: str) -> tuple[Path, bool]:
    """Copy the bot folder to ``store_root/NAME/VERSION/HASH`` (HASH: the first 16 hex digits
    of its content hash ``digest``) and make the copy read-only (files 0444, executable files
    and folders 0555, owned by the arena's user); return ``(copy, made now)``.  ``store_root`` must not be
    inside ``folder`` (:func:`arena.play.submit.submit` refuses that first).

    The folder is named by its content, so a copy is never replaced by other files: two
    databases beside each other share ``store_root``, and the same name and version with
    other content (registered in the other database) gets a folder of its own.  A copy
    already there with this content is reused as it is.

    Symbolic links are copied as links (never the file they point to).  The referee checks the
    copy's content hash before every start of the bot (:class:`referee.botproc.BotClient`).

    A manifest naming ``requirements`` is built: its packages are installed into the copy's
    ``site-packages/`` before it is made read-only (:func:`arena.play.build.install_requirements`),
    so the copy's content hash (what is registered and checked) covers them, while the copy's
    folder is still named by ``digest``, the submitted folder's hash; a copy already there is
    the build of that same folder, and is reused.

    The copy holds what :func:`referee.manifest.walk` lists (never a device, FIFO or socket),
    read in chunks; a copy that fails (a full disk) is removed, with the folders above it
    left empty.

    Raises:
        ValueError: the copy would not be inside ``store_root``; the folder changed while
            it was copied (its copy's hash is not ``digest``); :class:`ManifestError` (a
            ValueError): a special file or a file that cannot be read, named, or a built copy
            over the size limit; :class:`arena.play.build.BuildError` (a ValueError): the
            requirements could not be installed (pip's last lines in the message).
        OSError: the copy cannot be written (a full disk).
    """
    dest = store_root / manifest.name / manifest.version / digest[:16]
    if dest.resolve().parent.parent.parent != store_root.resolve():  # load_manifest already refuses "..", "/"
        raise ValueError(f"{manifest.key}: its frozen copy would not be inside {store_root}")
    if dest.is_dir() and (manifest.requirements is not None or content_hash(dest) == digest):
        return dest, False
    tmp = dest.with_name(dest.name + ".partial")
    for old in (tmp, dest):
        _remove(old)
    try:
        tmp.parent.mkdir(parents=True, exist_ok=True)
        _copy(folder, tmp)
        if content_hash(tmp) != digest:
            raise ValueError(f"the bot folder {folder} changed while it was copied: submit it again")
        if manifest.requirements is not None:
            install_requirements(tmp, manifest)
            check_size(tmp)  # the packages count toward the submission's size
        _read_only(tmp)
        tmp.rename(dest)
    except BaseException:
        _remove(tmp)  # never a partial copy left behind
        _remove_empty_parents(tmp, store_root)
        raise
    return dest, True


def _read_only(copy: Path) -> None:
    """Make ``copy`` read-only and readable by all (the sandboxed bot runs as a user of its own):
    files 0444, executable files and folders 0555; symbolic links as they are."""
    for rel, _, st in sorted(walk(copy), key=lambda e: e[1], reverse=True):  # deepest first
        if not stat.S_ISLNK(st.st_mode):  # a program stays one (a compiled bot's binary)
            (copy / rel).chmod(0o555 if stat.S_ISDIR(st.st_mode) or st.st_mode & 0o111 else 0o444)
    copy.chmod(0o555)


def _copy(folder: Path, dest: Path) -> None:
    """Copy what :func:`referee.manifest.walk` lists of ``folder`` (regular files, folders, symbolic
    links copied as links; caches left out) to the new folder ``dest``, without recursion; a file
    is read :data:`referee.manifest.CHUNK` bytes at a time, through :func:`referee.manifest.open_regular`
    (a file swapped for a device or FIFO after the walk is refused, never read forever).

    Raises:
        ManifestError: a special file, a folder too deep, a file that cannot be read (named).
        OSError: ``dest`` cannot be written (a full disk).
    """
    dest.mkdir(mode=0o700)
    for rel, _, st in walk(folder):  # a folder comes before its contents
        src, dst = folder / rel, dest / rel
        if stat.S_ISDIR(st.st_mode):
            dst.mkdir(mode=0o700)
        elif stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(src), dst)
        else:
            fd = open_regular(src)
            try:
                with os.fdopen(fd, "rb", closefd=False) as f, open(dst, "xb") as out:
                    shutil.copyfileobj(f, out, CHUNK)
                    os.fchmod(out.fileno(), 0o700 if st.st_mode & 0o111 else 0o600)  # executable or not
            finally:
                os.close(fd)
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))


@contextlib.contextmanager
def built(folder: Path) -> Iterator[Path]:
    """The folder to check or play a bot from: ``folder`` itself, or, when its manifest names
    ``requirements`` that are not installed there (``site-packages/`` missing, or for a
    Node.js bot's ``package.json`` ``node_modules/``), a temporary
    copy with them installed (:func:`arena.play.build.install_requirements`), removed on exit.

    Raises:
        ManifestError: as :func:`load_manifest` and :func:`walk`.
        BuildError: the requirements could not be installed (pip's last lines in the message).
    """
    manifest = load_manifest(folder)
    if manifest.packages_dir is None or (manifest.folder / manifest.packages_dir).is_dir():
        yield manifest.folder
        return
    work = Path(tempfile.mkdtemp(prefix="belote-build-"))
    try:
        work.chmod(0o755)
        copy = work / manifest.folder.name
        _copy(manifest.folder, copy)
        try:
            install_requirements(copy, manifest)
        except BuildError as e:  # name the user's folder, not the temporary copy
            raise BuildError(str(e).replace(str(copy.resolve()), str(manifest.folder)).replace(
                str(copy), str(manifest.folder))) from None
        _read_only(copy)  # as a frozen copy is
        yield copy
    finally:
        _remove(work)


def remove_copy(path: Path, store_root: Path | None = None) -> None:
    """Remove a frozen copy made by :func:`freeze` (a submission that failed its check), and
    the folders above it inside ``store_root`` left empty."""
    _remove(path)
    if store_root is not None:
        _remove_empty_parents(path, store_root)


def _remove(path: Path) -> None:
    """Remove a (read-only) frozen copy or a partial one, if there (made by :func:`freeze`:
    at most :data:`referee.manifest.MAX_DEPTH` folders deep)."""
    if not path.exists():
        return
    for here, dirs, _ in os.walk(path):  # never follows links
        os.chmod(here, 0o755)
    shutil.rmtree(path)


def _remove_empty_parents(path: Path, store_root: Path) -> None:
    """Remove the folders ``NAME/VERSION`` above a removed copy that are left empty."""
    for parent in path.parents:
        if parent == store_root or not parent.is_relative_to(store_root):
            return
        try:
            parent.rmdir()
        except OSError:  # not empty: other copies
            return


__all__ = ["ConformanceReport", "ManifestError", "built", "check_bot", "content_hash", "freeze"]
