"""The attack suite's kit (issue 9): attack bots, their reports, and the evidence on the host.

An attack bot (tests/bots/attack_*) writes one JSON line per attempt into a host
folder the test binds read-write (``Limits(writable=(out,))``); see
tests/bots/attack_common.py. A test checks the *effect* of each attack: that no
attempt succeeded and every expected attempt was made (so a bot that died early
does not pass by silence), and what is left on the host: files, System V IPC
objects, ``/dev/shm`` entries, processes of the sandbox's uids.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from referee.manifest import load_manifest
from referee.match import Entrant
from referee.rules import DealState
from referee.sandbox import BOT_UID_BASE

from .botkit import REPO, TEST_BOTS, bot_folder

RULES = REPO / "referee" / "rules"


def attack_folder(tmp: Path, bot: str, *args: object, name: str | None = None, vendor_rules: bool = False) -> Path:
    """Copy attack bot ``bot`` into ``tmp`` like :func:`botkit.bot_folder`, with ``attack_common.py``
    beside its ``bot.py``; ``vendor_rules``: also the rules engine as the package ``rules`` (the
    sandbox binds the SDK, not the referee: a bot that wants to deal boards brings the code)."""
    folder = bot_folder(tmp, bot, *args, name=name)
    shutil.copy(TEST_BOTS / "attack_common.py", folder / "attack_common.py")
    if vendor_rules:
        shutil.copytree(RULES, folder / "rules", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder


def attack_entrant(tmp: Path, bot: str, *args: object, name: str | None = None, vendor_rules: bool = False) -> Entrant:
    manifest = load_manifest(attack_folder(tmp, bot, *args, name=name, vendor_rules=vendor_rules))
    return Entrant(key=manifest.key, manifest=manifest)


def out_folder(tmp: Path, name: str = "out") -> Path:
    """A host folder the bots report into: mode 1777, since each bot runs as a uid of its own."""
    out = tmp / name
    out.mkdir()
    out.chmod(0o1777)
    return out


def read_reports(out: Path) -> list[dict]:
    """Every line every attack bot process wrote into ``out``."""
    lines = []
    for path in sorted(out.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                lines.append(json.loads(line))
    return lines


def attempts(reports: list[dict], prefix: str = "") -> list[dict]:
    return [r for r in reports if "result" in r and r.get("attack", "").startswith(prefix) and r["attack"] != "publish"]


def succeeded(reports: list[dict]) -> list[dict]:
    return [r for r in attempts(reports) if not r["result"].startswith("blocked:")]


def assert_all_blocked(reports: list[dict], expected: dict[str, int]) -> Counter:
    """No attempt succeeded, and each attack of ``expected`` was made at least that many times.

    Returns the count of attempts per attack."""
    made = Counter(r["attack"] for r in attempts(reports))
    missing = {a: (made[a], n) for a, n in expected.items() if made[a] < n}
    assert not missing, f"attempts not made (made, expected): {missing}; made: {dict(made)}"
    bad = succeeded(reports)
    assert not bad, "attacks that got through:\n" + "\n".join(f"{r['attack']}: {r['result'][:400]}" for r in bad[:20])
    for r in attempts(reports):
        assert r["result"].startswith("blocked: ") and len(r["result"]) > len("blocked: "), r
    return made


def results_by_attack(reports: list[dict]) -> dict[str, Counter]:
    """Per attack, how often each result text came (numbers kept: they are the evidence)."""
    out: dict[str, Counter] = {}
    for r in attempts(reports):
        out.setdefault(r["attack"], Counter())[r["result"][:160]] += 1
    return out


# ------------------------------------------------------------------ the deal
def held_cards(results) -> dict[tuple[int, int, int], set[str]]:
    """Every card each seat held at some point: ``(board, table, seat) -> {"JH", ...}``."""
    out: dict[tuple[int, int, int], set[str]] = {}
    for r in results:
        for t in r.tables:
            rec = t.record
            state = DealState(rec.ruleset, rec.deck, rec.dealer, pot=rec.pot)
            n = state.seats
            for step in [None, *rec.actions]:
                if step is not None:
                    state.apply(step[1] if isinstance(step, tuple) else step)
                for seat in range(n):
                    out.setdefault((r.board, t.table, seat), set()).update(str(c) for c in state.hand(seat))
    return out


def where_held(held: dict, seat: int, hand: list[str]) -> list[tuple[int, int]]:
    """The (board, table) where ``seat`` held every card of ``hand``."""
    cards = set(hand)
    return sorted({(b, t) for (b, t, s), h in held.items() if s == seat and cards <= h})


# ------------------------------------------------------------------ the host
def bot_uid_processes() -> dict[int, list[int]]:
    """Live (not zombie) host processes of sandbox uids: ``uid -> [pid, ...]``."""
    out: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{d}").st_uid
            if uid < BOT_UID_BASE:
                continue
            with open(f"/proc/{d}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except (OSError, IndexError):
            continue
        out.setdefault(uid, []).append(int(d))
    return out


def sysv_objects() -> set[tuple[str, str, str, str]]:
    """Every System V IPC object on the host: (kind, key, id, owner uid), from /proc/sysvipc."""
    out = set()
    for kind in ("shm", "msg", "sem"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        head = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(head, line.split()))
            out.add((kind, row["key"], row.get("shmid") or row.get("msqid") or row.get("semid"), row["uid"]))
    return out


def entries(folder: str | Path) -> dict[str, int]:
    """The names in ``folder`` and their owners' uids (a missing folder: none)."""
    out = {}
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return out
    for name in names:
        try:
            out[name] = os.lstat(os.path.join(folder, name)).st_uid
        except FileNotFoundError:
            continue
    return out


def owned_by_bots(folder: str | Path) -> list[str]:
    """Entries of ``folder`` owned by a sandbox uid."""
    return sorted(n for n, uid in entries(folder).items() if uid >= BOT_UID_BASE)


@dataclass
class HostEvidence:
    """What a bot could leave on the host: entries of /dev/shm, /tmp and /var/tmp, and IPC objects."""

    shm: dict[str, int]
    tmp: dict[str, int]
    var_tmp: dict[str, int]
    ipc: set

    @classmethod
    def take(cls) -> HostEvidence:
        return cls(entries("/dev/shm"), entries(tempfile.gettempdir()), entries("/var/tmp"), sysv_objects())

    def new_since(self, before: HostEvidence, marker: str) -> list[str]:
        """What appeared since ``before`` that a bot made: an entry owned by a sandbox uid or whose
        name has ``marker``, an IPC object of a sandbox uid. (Other entries may come from other
        programs on this machine.)"""
        found = []
        for what, now, then in (("/dev/shm", self.shm, before.shm), ("/tmp", self.tmp, before.tmp),
                                ("/var/tmp", self.var_tmp, before.var_tmp)):
            for name in set(now) - set(then):
                if now[name] >= BOT_UID_BASE or marker in name:
                    found.append(f"{what}/{name} (uid {now[name]})")
        for obj in self.ipc - before.ipc:
            if int(obj[3]) >= BOT_UID_BASE:
                found.append(f"System V {obj}")
        return sorted(found)


def tree_hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root`` (symbolic links: their target's name)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(root))] = "-> " + os.readlink(p)
        elif p.is_file():
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
