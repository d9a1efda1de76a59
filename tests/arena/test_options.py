"""RULES.md §6.4 options through the arena: ``tournament run --option``, the stored and shown
options, the calls in stored deals, and ratings that keep to one set of options."""

from __future__ import annotations

import json

import duckdb
import pytest

from arena.store import Store
from referee.rules import get_ruleset

from .conftest import SAMPLES, cli, output

BOARDS = 4
BOTS = ("--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--bots", SAMPLES / "heuristic")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """classic with contrée on, strict with declarations off, and a plain classic: round robins of the
    three sample bots on a few boards."""
    db = tmp_path_factory.mktemp("options") / "a.duckdb"
    for name, args in (("ctr", ("--option", "contree=on")),
                       ("nodecl", ("--ruleset", "strict", "--option", "declarations=off")),
                       ("plain", ())):
        r = cli("tournament", "run", name, *BOTS, "--boards", BOARDS, "--seed", 7, "--workers", 2, *args,
                "--db", db)
        assert r.exit_code == 0, output(r)
        assert f"{3 * BOARDS} board pairs played now" in output(r)
    return db


def test_options_are_stored_and_shown(played):
    r = cli("tournament", "list", "--json", "--db", played)
    got = {t["name"]: (t["ruleset"], t["variant_options"]) for t in json.loads(r.stdout)}
    assert got == {"ctr": ("classic", {"declarations": "on", "contree": "on"}),
                   "nodecl": ("strict", {"declarations": "off", "contree": "off"}),
                   "plain": ("classic", {"declarations": "on", "contree": "off"})}
    r = cli("tournament", "show", "ctr", "--json", "--db", played)
    options = json.loads(r.stdout)["options"]
    assert options["contree"] is True and options["declarations"] is not None
    r = cli("tournament", "show", "nodecl", "--db", played)
    assert "declarations=off contree=off (RULES.md §6.4)" in output(r)


def test_stored_deals_carry_the_options_and_the_calls(played):
    con = duckdb.connect(str(played), read_only=True)
    try:
        kinds = dict(con.execute("""SELECT t.name, list(DISTINCT a.kind) FROM actions a JOIN matches m USING (match_id)
                                    JOIN tournaments t ON t.name = m.tournament GROUP BY t.name""").fetchall())
        calls = con.execute("""SELECT count(*), count(DISTINCT match_id || board || table_no) FROM contree_calls
                               WHERE match_id LIKE 'ctr/%'""").fetchone()
        ctr_tables = con.execute("""SELECT count(*) FROM deals WHERE match_id LIKE 'ctr/%'
                                    AND contract <> 'passed'""").fetchone()[0]
        other_calls = con.execute("SELECT count(*) FROM contree_calls WHERE match_id NOT LIKE 'ctr/%'").fetchone()[0]
    finally:
        con.close()
    assert "declare" not in kinds["nodecl"]  # §6.4: with declarations off nobody is asked
    assert calls[1] == ctr_tables and calls[0] >= 2 * ctr_tables  # every taken deal has its calls
    assert other_calls == 0
    r = cli("matches", "--tournament", "ctr", "--json", "--db", played)
    mid = json.loads(r.stdout)[0]["match_id"]
    r = cli("log", mid, "--json", "--db", played)
    records = [t["record"] for t in json.loads(r.stdout)]
    assert all(rec["options"] == {"contree": "on"} for rec in records)
    taken = [rec for rec in records if any("card" in a for a in rec["actions"])]
    assert taken and all(any("call" in a for a in rec["actions"]) for rec in taken)


def test_options_are_fixed_once_created(played):
    r = cli("tournament", "run", "ctr", "--option", "contree=off", "--db", played)
    assert r.exit_code == 1
    assert "exists with options declarations=on contree=on" in output(r)
    r = cli("tournament", "run", "ctr", "--option", "contree=on", "--db", played)  # the same value resumes
    assert r.exit_code == 0, output(r)
    assert "0 board pairs played now" in output(r)


def test_ratings_of_a_ruleset_keep_to_one_set_of_options(played):
    def rated(*args):
        r = cli("ratings", *args, "--json", "--db", played)
        assert r.exit_code == 0, output(r)
        return {o["name"]: o["boards"] for o in json.loads(r.stdout)}, output(r)

    plain, note = rated("--ruleset", "classic")
    assert plain == {"random": 2 * BOARDS, "greedy": 2 * BOARDS, "heuristic": 2 * BOARDS}
    assert "1 classic tournament(s) with other RULES.md §6.4 options left out (ctr: declarations=on contree=on)" \
        in note
    contree, _ = rated("--ruleset", "classic", "--option", "contree=on")
    assert contree == plain  # the same pairs and boards, from the other tournament only
    mixed, _ = rated("--ruleset", "classic", "--any-options")
    assert all(n == 4 * BOARDS for n in mixed.values())
    strict, _ = rated("--ruleset", "strict", "--option", "declarations=off")
    assert set(strict) == {"random", "greedy", "heuristic"}
    assert rated("--ruleset", "strict")[0] == {}


@pytest.mark.parametrize("args,code,message", [
    (("--ruleset", "all-trumps", "--option", "contree=on"), 1, "all-trumps cannot set contree=on"),
    (("--ruleset", "two-player", "--option", "contree=on"), 1, "two-player cannot set contree=on"),
    (("--option", "contree=maybe"), 2, "is not NAME=on or NAME=off"),
    (("--option", "contree=on", "--option", "contree=off"), 2, "given twice with different values"),
])
def test_bad_options_are_refused_before_anything_is_written(tmp_path, args, code, message):
    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", *args, "--db", db)
    assert r.exit_code == code, output(r)
    assert message in output(r) and "Traceback" not in output(r)


def test_a_tournament_stored_before_the_options_existed_resumes(tmp_path):
    """Options stored without the keys contree and variants (before §6.4) read as contree off."""
    db = tmp_path / "a.duckdb"
    store = Store.open(db)
    try:
        old = get_ruleset("classic").options()
        del old["contree"], old["variants"]
        store.create_tournament("old", "classic", old, 3, 2, secret=False)
        t = store.get_tournament("old")
        assert t.variant_options == {"declarations": "on", "contree": "off"}
        assert t.resolved_ruleset() == get_ruleset("classic")
    finally:
        store.close()
