"""Submitting bots: validation, the conformance check, content hash and the frozen copy."""

from __future__ import annotations

import shutil
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from referee.botproc import BotClient, BotStartError
from referee.sandbox import Limits
from referee.manifest import SKIP, Manifest, ManifestError, content_hash, load_manifest
from referee.records import printable
from referee.match import Entrant, MatchConfig, play_match
from referee.rules import RULESETS, Ruleset, make_board
from referee.wire import PROTOCOL_VERSION

from .matchview import percentile
from .schedule import new_seed

@dataclass
class ConformanceReport:
    """What ``arena bots check`` prints: bot info, decisions answered per kind,
    latency (ms, median and p99), and every fault."""

    manifest: Manifest
    info: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    decisions: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    #: how the referee will send it decisions: "DecideStream" or "Decide" (unary), "" if not known
    transport: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.faults

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
OPPONENT = Path(__file__).resolve().parent.parent / "sample_bots" / "random"


def check_bot(folder: str | Path, *, ruleset: Ruleset | None = None, boards: int = 4,
              decision_ms: int = 1000, seed: int | None = None, max_faults: int = 3,
              limits: Limits | None = None) -> ConformanceReport:
    """Start the bot, ask its info, then play a duplicate match of ``boards`` boards
    against the sample ``random`` bot under ``ruleset`` (default: the first the
    manifest names), each seat a process of its own, and collect answers per decision
    kind, latencies and faults.  The match stops asking the bot after ``max_faults``
    faults.  A bot that never answered a card decision fails the check.  The boards are
    dealt from ``seed``, by default a new secret one (the check cannot be told apart
    from a match by its deals).

    Raises:
        ManifestError: the manifest is missing or wrong.
    """
    manifest = load_manifest(folder)
    report = ConformanceReport(manifest=manifest)
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
        report.problems.append(str(e))
        return report
    except grpc.RpcError as e:
        report.problems.append(f"GetBotInfo failed: {e.code().name} {e.details()}")
        return report
    finally:
        client.close()
    ruleset = ruleset or RULESETS[manifest.rulesets[0]]
    entrant = Entrant(manifest.key, manifest=manifest)
    opponent_manifest = load_manifest(OPPONENT)
    opponent = Entrant(opponent_manifest.key + " (opponent)", manifest=opponent_manifest)
    seed = new_seed() if seed is None else seed  # secret: a bot cannot tell the check from a match
    config = MatchConfig(ruleset=ruleset, decision_ms=decision_ms, seed=seed, max_faults=max_faults, limits=limits)
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
        report.problems.append(f"stopped asking the bot after {max_faults} faults")
    elif not report.decisions.get("card"):
        report.problems.append("the bot never answered a card decision: it did not play any deal")
    return report


def freeze(folder: Path, store_root: Path, manifest: Manifest, digest: str) -> tuple[Path, bool]:
    """Copy the bot folder to ``store_root/NAME/VERSION/HASH`` (HASH: the first 16 hex digits
    of its content hash ``digest``) and make the copy read-only (files 0444, folders 0555,
    owned by the arena's user); return ``(copy, made now)``.  ``store_root`` must not be
    inside ``folder`` (:func:`arena.submit.submit` refuses that first).

    The folder is named by its content, so a copy is never replaced by other files: two
    databases beside each other share ``store_root``, and the same name and version with
    other content (registered in the other database) gets a folder of its own.  A copy
    already there with this content is reused as it is.

    Symbolic links are copied as links (never the file they point to).  The referee checks the
    copy's content hash before every start of the bot (:class:`referee.botproc.BotClient`).

    Raises:
        ValueError: the copy would not be inside ``store_root``; the folder changed while
            it was copied (its copy's hash is not ``digest``).
    """
    dest = store_root / manifest.name / manifest.version / digest[:16]
    if dest.resolve().parent.parent.parent != store_root.resolve():  # load_manifest already refuses "..", "/"
        raise ValueError(f"{manifest.key}: its frozen copy would not be inside {store_root}")
    if dest.is_dir() and content_hash(dest) == digest:
        return dest, False
    tmp = dest.with_name(dest.name + ".partial")
    for old in (tmp, dest):
        _remove(old)
    try:
        shutil.copytree(folder, tmp, symlinks=True, ignore=shutil.ignore_patterns(*SKIP, "*.pyc"))
        if content_hash(tmp) != digest:
            raise ValueError(f"the bot folder {folder} changed while it was copied: submit it again")
        for path in sorted(tmp.rglob("*"), reverse=True) + [tmp]:
            if not path.is_symlink():
                path.chmod(0o555 if path.is_dir() else 0o444)
        tmp.rename(dest)
    except BaseException:
        _remove(tmp)  # never a partial copy left behind
        raise
    return dest, True


def remove_copy(path: Path) -> None:
    """Remove a frozen copy made by :func:`freeze` (a submission that failed its check)."""
    _remove(path)


def _remove(path: Path) -> None:
    """Remove a (read-only) frozen copy or a partial one, if there."""
    if not path.exists():
        return
    for p in [path, *path.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    shutil.rmtree(path)


__all__ = ["ConformanceReport", "ManifestError", "check_bot", "content_hash", "freeze"]
