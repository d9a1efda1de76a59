"""The attack suite at the arena's level (issue 9, item 6): frozen copies, the database, the project.

Bots are submitted and played through ``arena`` (typer's CliRunner) with a results
folder of the test's own. The attack bots of tests/bots report each attempt into a
host folder bound read-write into their sandbox (the test adds it to the arena's
sandbox limits); the tests check the effect on the host: files byte-identical, no
file planted, the database's tables, the faults recorded. The other attacks are in
tests/referee/test_attacks.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sysconfig
import time
from pathlib import Path

import duckdb
import pytest

from arena.play import entrants
from arena.store import Store, entrant_key, match_id
from referee.manifest import content_hash
from tests.referee import conftest as referee_conftest
from tests.referee.attackkit import (
    assert_all_blocked, attack_folder, out_folder, read_reports, results_by_attack, tree_hashes,
)

from .conftest import REPO, SAMPLES, cli, copy_bot, output

_time_guard = referee_conftest._time_guard  # every test here is bounded (90 s), as the referee tests are


def report_into(monkeypatch, out: Path) -> None:
    """Bind ``out`` read-write into every bot's sandbox for the arena commands that follow (the
    only change to the sandbox: where the attack bots write their reports)."""
    original = entrants.sandbox_limits

    def with_out(limits, manifests, warn):
        return dataclasses.replace(original(limits, manifests, warn), writable=(str(out),))

    monkeypatch.setattr(entrants, "sandbox_limits", with_out)


def faults(db: Path, mid: str) -> list:
    with Store.open(db, read_only=True) as store:
        return [f for t in store.deal_records(mid) for f in t.faults]


def test_a_frozen_copy_changed_after_submission_is_refused(tmp_path):
    """Tampering with a frozen copy (issue 9): after a bot is submitted, its frozen copy is changed on
    the host; the next run refuses to start it, records a start fault that says the copy changed,
    and the bot forfeits; the untouched entrant plays normally."""
    results = tmp_path / "results"
    db = results / "arena.duckdb"
    victim = copy_bot(SAMPLES / "random", tmp_path / "victim", "1.0.0")
    other = SAMPLES / "greedy"
    r = cli("tournament", "run", "before", "--bots", victim, "--bots", other, "--boards", 1, "--seed", 5, "--db", db)
    assert r.exit_code == 0, output(r)
    with Store.open(db, read_only=True) as store:
        bot = store.get_bot("random", "1.0.0")
    frozen = Path(bot.path)
    assert frozen.is_relative_to(results / "bots") and content_hash(frozen) == bot.content_hash
    code = frozen / "bot.py"
    code.chmod(0o644)
    code.write_text(code.read_text() + "\n# changed after submission\n")

    r = cli("tournament", "run", "after", "--bots", victim, "--bots", other, "--boards", 2, "--seed", 5, "--db", db)
    assert r.exit_code == 0, output(r)
    key = entrant_key("random", "1.0.0")
    found = faults(db, match_id("after", key, entrant_key("greedy", "1.0.0")))
    assert found, "the changed copy was started"
    assert {f.kind for f in found} == {"start"} and {f.entrant for f in found} == {key}, found
    assert all("has changed since it was submitted" in f.detail for f in found), [f.detail for f in found]
    with Store.open(db, read_only=True) as store:
        rows = sorted(store.board_pair_results("after").rows(), key=lambda row: row[2])
    assert [(a, b, board) for a, b, board, *_ in rows] == [(key, entrant_key("greedy", "1.0.0"), k) for k in (0, 1)]
    assert all(fa and not fb for *_, fa, fb in rows), rows  # random forfeits every board, greedy none

    # arena match plays a registered bot named by its name@version from its frozen copy, with its
    # registered hash checked too (a new user's trial: by name it lost the hash, and a house bot's
    # copy then paid the caches' clearing as a visitor)
    r = cli("match", "--bot", "random@1.0.0", "--bot", "greedy", "--boards", 1, "--seed", 5, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "has changed since it was submitted" in output(r), output(r)


def _hashes(paths) -> dict[str, str]:
    out = {}
    for p in paths:
        p = Path(p)
        out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "missing"
    return out


@pytest.mark.alone  # the seed bot's brute force must fit the conformance check's 1000 ms deadline
@pytest.mark.guard(180)  # two conformance checks (~25 s each on a quiet machine) and a tournament
def test_bots_cannot_touch_the_arena_or_learn_its_seed(tmp_path, monkeypatch):
    """Code theft and tampering, and the seed of a tournament (issue 9): an attack bot tries to read and
    write the other entrant's frozen copy, the DuckDB file, the project tree (referee/, arena/,
    the SDK), to plant a .pth in site-packages and to change its own frozen code; a seed bot
    re-deals from everything it sees and brute-forces small seeds. Through `arena bots submit` (the
    conformance check) and `arena tournament run` (a secret seed): every attempt is refused, the
    frozen copies and project files are byte-identical, nothing is planted, the database holds only
    its own tables, and no candidate reproduces a hand."""
    results = tmp_path / "results"
    db = results / "arena.duckdb"
    out = out_folder(tmp_path)
    site = Path(sysconfig.get_paths()["purelib"])
    project = [REPO / p for p in ("referee/match.py", "arena/store/__init__.py", "sdk/belote_arena_sdk/__init__.py")]
    pth_before = sorted(site.glob("*.pth"))
    project_before = _hashes(project)
    files_bot = attack_folder(tmp_path, "attack_files", "--out", out, "--db-dir", results, "--repo", REPO)
    seed_bot = attack_folder(tmp_path, "attack_seed", "--out", out, vendor_rules=True)
    report_into(monkeypatch, out)

    # 1. submission: the conformance check runs each bot (4 boards against random)
    for folder in (files_bot, seed_bot):
        r = cli("bots", "submit", folder, "--db", db)
        assert r.exit_code == 0, output(r)
    frozen_before = tree_hashes(results / "bots")
    with Store.open(db, read_only=True) as store:
        registered = {b.name: b.content_hash for b in store.list_bots()}
    assert set(registered) == {"attack_files", "attack_seed"}

    # 2. a tournament with a secret seed, from the same (registered) folders
    started = time.time()
    r = cli("tournament", "run", "heist", "--bots", files_bot, "--bots", seed_bot, "--boards", 2, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "2 board pairs played now" in r.stdout, output(r)

    reports = read_reports(out)
    check = [r for r in reports if r["t"] < started]
    play = [r for r in reports if r["t"] >= started]
    for name, reports in (("check", check), ("play", play)):
        print(name, {a: dict(c) for a, c in results_by_attack(reports).items()})
    discovered = [r for r in check + play if r.get("attack") == "files:discovered"]
    assert discovered and all(str(results) in r["db_dirs"] for r in discovered), discovered  # it knew where to look
    files_attacks = ("read-frozen-others", "write-frozen-others", "read-db", "write-db", "read-project",
                     "write-project", "plant-pth", "write-own-code")
    for reports in (check, play):
        assert_all_blocked([r for r in reports if r.get("bot") == "attack_files"],
                           {f"files:{a}": 4 for a in files_attacks})
    # the seed: in the tournament (a secret seed) nothing reproduces a hand, brute force included.
    # (The conformance check deals from a fixed, public seed, 7: not a competition, and any 7 the
    # bot sees, e.g. in "python3.11.7", "reproduces" it, so it is not asserted on.)
    seed_sources = ("env", "match-id", "deal-numbers", "proc-cmdline", "proc-environ", "files", "fs-search",
                    "brute-force")
    assert_all_blocked([r for r in play if r.get("bot") == "attack_seed"], {f"seed:{s}": 4 for s in seed_sources})

    # the evidence on the host
    assert tree_hashes(results / "bots") == frozen_before
    with Store.open(db, read_only=True) as store:
        assert {b.name: b.content_hash for b in store.list_bots()} == registered
        for b in store.list_bots():
            assert content_hash(Path(b.path)) == b.content_hash
    con = duckdb.connect(str(db), read_only=True)
    tables = {t for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    con.close()
    assert not [t for t in tables if "attack" in t], tables
    assert sorted(site.glob("*.pth")) == pth_before
    tried = {p for r in check + play for p in r.get("tried", [])}
    planted = [p for p in tried if "attack-planted" in Path(p).name or
               (Path(p).is_file() and b"attack-planted" in Path(p).read_bytes()[-4096:])]
    planted += [str(p) for d in {Path(p) for p in tried if Path(p).is_dir()} for p in d.glob("attack-planted-*")]
    assert not planted, planted
    # the project's files: unchanged, unless someone else edited them meanwhile (then no marker in them)
    for path, digest in _hashes(project).items():
        assert digest == project_before[path] or b"attack-planted" not in Path(path).read_bytes(), path
