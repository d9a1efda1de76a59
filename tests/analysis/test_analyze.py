"""Double-dummy analysis of stored boards (issue 23 item 3): ``analyse_match``, its cache in
the database (schema version 5), ``arena analyze`` and the figure in ``arena ratings --json``."""

from __future__ import annotations

import json
import random

import pytest

from arena.analysis import boards as boards_module
from arena.analysis.boards import SOLVER_VERSION, analyse_deal, analyse_match
from arena.analysis.solver import Solver
from arena.store import RunLock, Store, match_id
from referee.rules import DealState, Phase, Play, get_ruleset, replay

from ..arena.conftest import cli, output
from ..store.test_store import A, B, make_result

BOARDS = 3


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A classic tournament of two entrants, three boards played with random legal actions."""
    path = tmp_path_factory.mktemp("dd") / "arena.duckdb"
    ruleset = get_ruleset("classic")
    rng = random.Random(4)
    with Store.open(path) as store:
        store.create_tournament("t1", ruleset.name, ruleset.options(), 11, BOARDS, [A, B])
        mid = match_id("t1", A, B)
        for board in range(BOARDS):
            store.write_board_pair("t1", mid, make_result(ruleset, board, A, B, rng))
    return path


def test_every_card_against_double_dummy(db):
    with Store.open(db) as store:
        tables = analyse_match(store, match_id("t1", A, B))
        records = {(t.board, t.table): t.record for t in store.deal_records(match_id("t1", A, B))}
    assert [(t.board, t.table) for t in tables] == [(b, n) for b in range(BOARDS) for n in (1, 2)]
    for t in tables:
        d = t.deal
        if d.trick_points is None:  # passed out (RULES.md §3.3): no card play
            assert d.cards == () and t.score == (0, 0)
            continue
        assert len(d.cards) == 32
        assert all(c.lost >= 0 for c in d.cards)
        assert all(c.lost == 0 for c in d.cards if c.card == c.best_card)
        # the first card's best value is the table's double-dummy result (RULES.md §6.2: 162, or 252 capot)
        first = d.cards[0]
        assert d.trick_points[first.seat % 2] == first.best_points
        assert sum(d.trick_points) in (162, 252)
        assert d.points_lost(0) + d.points_lost(1) == sum(c.lost for c in d.cards)
    # one table card by card: each value is the solver's in that position (RULES.md §5 legal cards)
    t = next(t for t in tables if t.deal.cards)
    record = records[(t.board, t.table)]
    final, solver = replay(record), Solver()
    state = DealState(record.ruleset, record.deck, record.dealer)
    cards = iter(t.deal.cards)
    for seat, action in final.history:
        if isinstance(action, Play) and state.phase is Phase.PLAY:
            c = next(cards)
            values = solver.card_values(state, final=final)
            assert (c.seat, c.card) == (seat, action.card)
            assert values[action.card].trick_points[seat % 2] == c.points
            assert values[c.best_card].trick_points[seat % 2] == c.best_points
            if c.play == 0:
                assert solver.solve(state, final=final).trick_points == t.deal.trick_points
        state.apply(action)


def test_the_cache_is_read_back_and_equal(db, monkeypatch):
    mid = match_id("t1", A, B)
    with Store.open(db) as store:
        first = analyse_match(store, mid)
        assert len(store.dd_deals(mid, SOLVER_VERSION)) == 2 * BOARDS
        assert len(store.dd_cards(mid)) == sum(len(t.deal.cards) for t in first)

    def no_solving(*args, **kwargs):
        raise AssertionError("a cached table was solved again")

    monkeypatch.setattr(boards_module, "analyse_deal", no_solving)
    with Store.open(db, read_only=True) as store:
        assert analyse_match(store, mid) == first
        assert analyse_match(store, mid, board=1) == [t for t in first if t.board == 1]


def test_analyse_deal_without_card_play_is_empty():
    ruleset = get_ruleset("classic")
    rng = random.Random(0)
    while True:  # a passed-out deal (RULES.md §3.3)
        result = make_result(ruleset, rng.randrange(1000), A, B, rng)
        rec = next((t.record for t in result.tables if t.outcome.contract == "passed"), None)
        if rec is not None:
            break
    assert analyse_deal(rec).cards == () and analyse_deal(rec).trick_points is None


def test_cli_analyze_json_text_and_ratings(db):
    mid = match_id("t1", A, B)
    r = cli("analyze", f"{A}~{B}", "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    got = json.loads(r.stdout)
    assert got["match"] == mid and "yardstick" in got["meaning"]
    with Store.open(db, read_only=True) as store:
        assert got["tables"] == [t.to_json() for t in analyse_match(store, mid)]
    for t in got["tables"]:
        for c in t["cards"]:
            assert c["lost"] == c["best_points"] - c["points"] >= 0
    # per entrant: its seats' points lost at both tables, per board
    expected = {}
    for t in got["tables"]:
        expected.setdefault(t["ns"], 0)
        expected.setdefault(t["ew"], 0)
        expected[t["ns"]] += t["points_lost"][0]
        expected[t["ew"]] += t["points_lost"][1]
    assert {e: v["points_lost_per_board"] for e, v in got["entrants"].items()} == {
        e: round(x / BOARDS, 2) for e, x in expected.items()}
    r = cli("analyze", mid, "--board", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    assert "board 1 table 1" in r.stdout and "board 1 table 2" in r.stdout and "board 0" not in r.stdout
    assert "not a verdict" in r.stdout and "double dummy:" in r.stdout
    r = cli("ratings", "--tournament", "t1", "--json", "--db", db)
    assert r.exit_code == 0, output(r)
    rated = {o["name"] + "@" + o["version"]: o["double_dummy"] for o in json.loads(r.stdout)}
    for e, v in got["entrants"].items():
        assert rated[e]["points_lost_per_board"] == v["points_lost_per_board"]
        assert rated[e]["boards"] == BOARDS and "not a verdict" in rated[e]["meaning"]


def test_cli_analyze_waits_for_a_running_tournament(tmp_path):
    path = tmp_path / "arena.duckdb"
    ruleset = get_ruleset("classic")
    with Store.open(path) as store:
        store.create_tournament("t1", ruleset.name, ruleset.options(), 11, 1, [A, B])
        store.write_board_pair("t1", match_id("t1", A, B), make_result(ruleset, 0, A, B, random.Random(1)))
    lock = RunLock(path)
    lock.acquire("t1")
    try:
        r = cli("analyze", match_id("t1", A, B), "--db", path)
        assert r.exit_code == 1
        assert "is running" in output(r) and "waits until it ends" in output(r)
    finally:
        lock.release()
    r = cli("analyze", match_id("t1", A, B), "--json", "--db", path)
    assert r.exit_code == 0, output(r)


def test_a_schema_version_4_database(tmp_path):
    """Version 5 adds the cache: a version 4 file reads without it, and is upgraded on a write open."""
    path = tmp_path / "old.duckdb"
    with Store.open(path) as store:
        store.con.execute("DROP TABLE dd_cards")
        store.con.execute("DROP TABLE dd_deals")
        store.con.execute("UPDATE schema_version SET version = 4")
    with Store.open(path, read_only=True) as store:
        assert store.dd_deals("t1/x~y", SOLVER_VERSION) == [] and store.dd_points_lost(SOLVER_VERSION) == {}
    with Store.open(path) as store:
        assert store.con.execute("SELECT version FROM schema_version").fetchall() == [(6,)]
        assert store.dd_deals("t1/x~y", SOLVER_VERSION) == []


@pytest.mark.parametrize("name,options", [("two-player", {}), ("classic", {"contree": True}), ("all-trumps", {}),
                                          ("strict", {})])
def test_every_ruleset_through_the_cli(tmp_path, name, options):
    """RULES.md §7 (two players: seats P0 and P1), §6.4 (contrée), §6.3 (all-trumps): the text and JSON."""
    path = tmp_path / "arena.duckdb"
    ruleset = get_ruleset(name, **options)
    rng = random.Random(8)
    with Store.open(path) as store:
        store.create_tournament("t1", ruleset.name, ruleset.options(), 11, 2, [A, B])
        for board in range(2):
            store.write_board_pair("t1", match_id("t1", A, B), make_result(ruleset, board, A, B, rng))
    r = cli("analyze", f"{A}~{B}", "--json", "--db", path)
    assert r.exit_code == 0, output(r)
    got = json.loads(r.stdout)
    for t in got["tables"]:
        assert t["seats"] == ruleset.seats
        if t["dd_trick_points"] is not None:
            assert len(t["cards"]) == ruleset.seats * ruleset.tricks
            assert max(c["seat"] for c in t["cards"]) == ruleset.seats - 1
    r = cli("analyze", f"{A}~{B}", "--db", path)
    assert r.exit_code == 0, output(r)
    assert ("P0" in r.stdout) == (ruleset.seats == 2)
    r = cli("analyze", f"{A}~{B}", "--board", 7, "--db", path)
    assert r.exit_code == 1 and "board 7" in output(r) and "not stored" in output(r)


def test_an_interrupted_analysis_keeps_the_boards_it_finished(tmp_path, monkeypatch):
    path = tmp_path / "arena.duckdb"
    ruleset = get_ruleset("classic")
    rng = random.Random(3)
    with Store.open(path) as store:
        store.create_tournament("t1", ruleset.name, ruleset.options(), 11, 2, [A, B])
        for board in range(2):
            store.write_board_pair("t1", match_id("t1", A, B), make_result(ruleset, board, A, B, rng))
    real, calls, seen = boards_module.analyse_deal, [], []

    def stop_at_the_third(record, solver=None):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(record, solver)

    monkeypatch.setattr(boards_module, "analyse_deal", stop_at_the_third)
    with Store.open(path) as store, pytest.raises(KeyboardInterrupt):
        analyse_match(store, match_id("t1", A, B), progress=lambda done, missing: seen.append((done, missing)))
    assert seen == [(0, 4), (1, 4), (2, 4)]
    with Store.open(path, read_only=True) as store:
        assert [(r[1], r[2]) for r in store.dd_deals(match_id("t1", A, B), SOLVER_VERSION)] == [(0, 1), (0, 2)]


def test_table_2_is_shown_in_the_board_s_suits_as_arena_log_does(db):
    """Table 2 is dealt with its suits renamed (RULES.md §8): `arena analyze` shows its cards in
    the board's own suits by default, as `arena log` does, and says so; --no-original-suits
    shows them as played there (the new-user trial found the two commands in different suits,
    and analyze not saying which)."""
    from referee.rules import Card, relabel
    from referee.rules.cards import CARD_TEXT

    mid = match_id("t1", A, B)
    got = json.loads(cli("analyze", mid, "--board", 1, "--json", "--db", db).stdout)
    (t2,) = [t for t in got["tables"] if t["table"] == 2]
    perm = t2["permutation"]
    assert perm != [0, 1, 2, 3]
    inverse = [perm.index(s) for s in range(4)]
    as_played = [c["card"] for c in t2["cards"]]
    on_board = [CARD_TEXT[relabel([Card.parse(c)], inverse)[0]] for c in as_played]
    assert on_board != as_played

    def table_2_cards(text: str) -> list[str]:
        rows = text.split("board 1 table 2", 1)[1].splitlines()
        return [row.split()[2] for row in rows if row.split()[:1] and row.split()[0].isdigit()]

    shown = cli("analyze", mid, "--board", 1, "--db", db).stdout
    assert "board 1 table 2" in shown and "(suits shown as on the board)" in shown
    assert table_2_cards(shown) == on_board
    played = cli("analyze", mid, "--board", 1, "--no-original-suits", "--db", db).stdout
    assert "(suits as played at this table)" in played and table_2_cards(played) == as_played
    logged = cli("log", mid, "--board", 1, "--db", db).stdout
    assert "(suits shown as on the board)" in logged
