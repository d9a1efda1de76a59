"""Tests for arena.report.tables and `arena ratings` / `arena plan`: field scores
(duplicate, RULES.md §8: every pair plays the same boards), rating groups,
history and the sample-size planner."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.report import tables as reports
from arena.report.tables import whole
from arena.cli import app
from arena.store import Store, match_id

runner = CliRunner()


def _deal(store: Store, mid: str, board: int, table: int, ns: str, ew: str, score_ns: int, score_ew: int) -> None:
    store.con.execute(
        """INSERT INTO deals (match_id, board, table_no, ns_entrant, ew_entrant, permutation, dealer, deck, contract,
             trick_points_ns, trick_points_ew, tricks_won_ns, tricks_won_ew, declarations_ns, declarations_ew,
             belote_ns, belote_ew, score_ns, score_ew, pot_in, pot, record)
           VALUES (?, ?, ?, ?, ?, [0, 1, 2, 3], 0, [], 'made', 0, 0, 0, 0, 0, 0, 0, 0, ?, ?, 0, 0, '{}')""",
        [mid, board, table, ns, ew, score_ns, score_ew])


def _board_pair(store: Store, mid: str, board: int, margin: int) -> None:
    store.con.execute("INSERT INTO board_pairs (match_id, board, points_a, points_b, margin, forfeit_a, forfeit_b, "
                              "written_at, outcome_a) VALUES (?, ?, 0, 0, ?, false, false, now(), ?)",
                      [mid, board, margin, "win" if margin > 0 else "loss" if margin < 0 else "draw"])


@pytest.fixture
def three(tmp_path: Path) -> Store:
    """One board, three entrants, six tables; table results r = NS − EW:
    A–B: +40 (A NS), +20 (B NS); A–C: +10 (A NS), −30 (C NS); B–C: 0 (B NS), +20 (C NS)."""
    store = Store.open(tmp_path / "f.duckdb")
    store.create_tournament("t", "classic", {}, 1, 1, [("a", "1"), ("b", "1"), ("c", "1")])
    for x, y, r1, r2 in (("a@1", "b@1", 40, 20), ("a@1", "c@1", 10, -30), ("b@1", "c@1", 0, 20)):
        mid = match_id("t", x, y)
        store.add_match("t", mid, x, y)
        _deal(store, mid, 0, 1, x, y, 100 + r1, 100)
        _deal(store, mid, 0, 2, y, x, 100 + r2, 100)
        _board_pair(store, mid, 0, r1 - r2)
    yield store
    store.close()


def test_butler_and_matchpoints_by_hand(three: Store) -> None:
    """Datum (40 + 20 + 10 − 30 + 0 + 20)/6 = 10. A: NS 40 → +30, EW 20 → −10,
    NS 10 → 0, EW −30 → +40: mean +15. B: −30, +10, −10, −10: −10. C: 0, −40,
    +10, +10: −5 (the three sum to 0).
    Matchpoints, sorted results −30, 0, 10, 20, 20, 40 (5 other tables each):
    NS 40 beats 5 → 1; NS 20 beats 3, ties 1 → 0.7; NS 10 → 0.4; NS 0 → 0.2;
    NS −30 → 0; EW is 1 − NS. A: (1 + 0.3 + 0.4 + 1)/4 = 0.675; B: (0 + 0.7
    + 0.2 + 0.3)/4 = 0.3; C: (0.6 + 0 + 0.8 + 0.7)/4 = 0.525."""
    field = reports.field_scores(three, tournament="t")
    assert {k: v.butler for k, v in field.items()} == pytest.approx({"a@1": 15.0, "b@1": -10.0, "c@1": -5.0})
    assert {k: v.matchpoints for k, v in field.items()} == pytest.approx({"a@1": 0.675, "b@1": 0.3, "c@1": 0.525})
    assert all(v.tables == 4 for v in field.values())
    # A's interval: sd of (30, −10, 0, 40) = 23.805, t(0.975, 3) = 3.1824: 15 ± 37.88.
    assert field["a@1"].butler_high - 15.0 == pytest.approx(37.879, abs=1e-3)


def test_field_scores_do_not_depend_on_the_order_rows_were_stored_in(tmp_path: Path) -> None:
    """A resumed tournament stores the same deals in another order; its Butler and
    matchpoint figures must be identical to the bit (a float sum in read order
    differed in the last bit, and a rounded 78.565 printed as 78.56 or 78.57)."""
    rng = np.random.default_rng(5)
    pairs = [("a@1", "b@1"), ("a@1", "c@1"), ("b@1", "c@1")]
    rows = [(match_id("t", x, y), board, table, *((x, y) if table == 1 else (y, x)), int(rng.integers(0, 300)))
            for x, y in pairs for board in range(100) for table in (1, 2)]
    got = []
    for k, order in enumerate((rows, rows[::-1])):
        with Store.open(tmp_path / f"{k}.duckdb") as store:
            store.create_tournament("t", "classic", {}, 1, 100, [("a", "1"), ("b", "1"), ("c", "1")])
            for x, y in pairs:
                store.add_match("t", match_id("t", x, y), x, y)
            for mid, board, table, ns, ew, score_ns in order:
                _deal(store, mid, board, table, ns, ew, score_ns, 150)
            got.append(reports.field_scores(store, tournament="t"))
    assert got[0] == got[1]
    assert sum(v.butler for v in got[0].values()) == pytest.approx(0.0, abs=1e-9)


def test_rating_table_splits_groups_and_cli_says_so(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    with Store.open(db) as store:
        store.create_tournament("t", "classic", {}, 1, 4, [("a", "1"), ("b", "1"), ("c", "1"), ("d", "1")])
        for x, y, margins in (("a@1", "b@1", [10, 10, 10, -10]), ("c@1", "d@1", [5, -5, 0, 0])):
            mid = match_id("t", x, y)
            store.add_match("t", mid, x, y)
            for k, m in enumerate(margins):
                _board_pair(store, mid, k, m)
        table = reports.rating_table(store.board_pair_results(tournament="t"))
    assert table.fit.groups == 2
    names = [table.fit.ratings[i].name for i in table.order]
    assert names == ["a@1", "b@1", "c@1", "d@1"]  # group 1 (a, b), then group 2
    # The last of each group has no "next": a-b is compared, b-c is not.
    assert table.los_next[0] is not None and table.los_next[1] is None and table.los_next[3] is None
    result = runner.invoke(app, ["ratings", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "2 groups that never met" in result.output
    out = json.loads(runner.invoke(app, ["ratings", "--db", str(db), "--json"]).stdout)
    assert [o["group"] for o in out] == [1, 1, 2, 2]
    # 3–1 by hand with ¼ virtual draw (the pair's cap): 400·log10(3.125/1.125) = 177.5 between a and b.
    assert out[0]["elo"] - out[1]["elo"] == pytest.approx(177.5, abs=0.15)


def test_history_refits_after_each_slice(three: Store) -> None:
    rows = reports.history_rows(three, tournament="t")
    assert len(rows) == 3
    points = reports.rating_history(rows, "a", steps=3)
    assert [p.board_pairs for p in points] == [1, 2, 3]
    assert [p.games for p in points] == [1, 2, 2]
    # After 1 board pair (a beat b by 20): a 100% → one-sided interval.
    assert points[0].ci_high == math.inf
    every = reports.rating_history(rows, None, steps=3)
    assert {p.entrant for p in every if p.board_pairs == 3} == {"a@1", "b@1", "c@1"}


def test_plan_by_hand_without_results() -> None:
    """30 Elo: Δs = 1/(1 + 10^(−0.075)) − ½ = 0.043066; σ = √(¼ − 0.1/4) =
    0.474342; z = 1.959964 + 0.841621 = 2.801585: n = (2.801585·0.474342 /
    0.043066)² = 952.2 → 953."""
    p = reports.plan(None, 30.0)
    assert p.board_pairs_wdl == 953 and p.board_pairs_margin is None
    assert p.score_sd == pytest.approx(0.474342, abs=1e-6)


def test_plan_cli(tmp_path: Path) -> None:
    result = runner.invoke(app, ["plan", "--elo", "30", "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 0, result.output
    assert "953 board pairs" in result.output and "10% draws assumed" in result.output
    bad = runner.invoke(app, ["plan", "--elo", "0", "--db", str(tmp_path / "none.duckdb")])
    assert bad.exit_code == 2


def test_ratings_fit_an_80_column_terminal_without_cutting_numbers(tmp_path: Path) -> None:
    """At 80 columns the table drops its rules and Δnext's interval instead of cutting
    every number to "1…" (rich's default); wide, it keeps them."""
    db = tmp_path / "w.duckdb"
    with Store.open(db) as store:
        store.create_tournament("t", "classic", {}, 1, 6, [("long-bot-name", "10.2.3"), ("b", "1")])
        mid = match_id("t", "long-bot-name@10.2.3", "b@1")
        store.add_match("t", mid, "long-bot-name@10.2.3", "b@1")
        for k, m in enumerate([10, 20, -10, 30, 0, 5]):
            _board_pair(store, mid, k, m)
    out = json.loads(runner.invoke(app, ["ratings", "--db", str(db), "--json"]).stdout)
    for columns, interval in (("80", False), ("160", True)):
        text = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "ratings", "--db", str(db)],
                              env=dict(os.environ, COLUMNS=columns), capture_output=True, text=True, timeout=60).stdout
        assert max(len(line) for line in text.splitlines()) <= int(columns), text
        table = text.split("LOS>next:")[0]
        assert ("…" in table) == interval, text  # cut cells end in "…"; only the wide Δnext interval has one
        for o in out:
            assert f"{o['name']}@{o['version']}" in text and whole(o["elo"]) in text
            assert f"{whole(o['ci_low'])}–{whole(o['ci_high'])}" in text
        assert (f"{out[0]['diff_next']:+.0f} (" in text) == interval


def test_every_listing_fits_an_80_column_terminal_with_whole_headers(tmp_path: Path) -> None:
    """Head to head, matches, tournaments and bots at 80 columns: no line wider, every header
    that is shown whole, and what was left out said under the table (issue 14 item 7)."""
    db = tmp_path / "n.duckdb"
    names = [("long-bot-name", "10.2.3"), ("other-bot", "2.0.0"), ("third", "1")]
    with Store.open(db) as store:
        store.create_tournament("club", "classic", {}, 12345678901234567890123, 4, names)
        keys = [f"{n}@{v}" for n, v in names]
        for i, x in enumerate(keys):
            for y in keys[i + 1:]:
                mid = match_id("club", x, y)
                store.add_match("club", mid, x, y)
                for k, m in enumerate([10, -20, 30, 0]):
                    _board_pair(store, mid, k, m)

    def arena(*args: str) -> str:
        out = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", *args, "--db", str(db)],
                             env=dict(os.environ, COLUMNS="80"), capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert max(len(line) for line in out.stdout.splitlines()) <= 80, out.stdout
        return out.stdout

    h2h = arena("ratings", "--head-to-head")
    assert all(h in h2h for h in ("boards", "margin", "Elo A-B", "LOS A>B")), h2h
    assert "not shown at this width: 95% CI" in h2h
    matches = arena("matches")
    assert all(h in matches for h in ("match id", "boards", "W-D-L A", "forfeits", "faults")), matches
    listed = arena("tournament", "list")
    assert all(h in listed for h in ("name", "ruleset", "status", "seed", "club")), listed


def test_a_sweep_shows_an_open_ended_difference(tmp_path: Path) -> None:
    """A won all 6 board pairs: Δnext and head to head's Elo A-B have no upper end
    (issue 20, item 20): at least 400·log10(q/(1 − q)) = 75.5, q = 0.05^(1/6) = 0.607."""
    db = tmp_path / "s.duckdb"
    store = Store.open(db)
    store.create_tournament("t", "classic", {}, 1, 6, [("a", "1"), ("b", "1")])
    mid = match_id("t", "a@1", "b@1")
    store.add_match("t", mid, "a@1", "b@1")
    for k in range(6):
        _board_pair(store, mid, k, 20)
    store.close()
    out = json.loads(runner.invoke(app, ["ratings", "--tournament", "t", "--json", "--db", str(db)]).stdout)
    q = 0.05 ** (1 / 6)
    assert out[0]["diff_next_low"] == pytest.approx(400 * math.log10(q / (1 - q)), abs=0.05)
    assert out[0]["diff_next_high"] is None and out[0]["significant_next"] is True
    h2h = json.loads(runner.invoke(app, ["ratings", "--tournament", "t", "--head-to-head", "--json",
                                         "--db", str(db)]).stdout)
    assert h2h[0]["elo_diff_low"] == pytest.approx(75.5, abs=0.05) and h2h[0]["elo_diff_high"] is None
    text = runner.invoke(app, ["ratings", "--tournament", "t", "--head-to-head", "--db", str(db)],
                         env={"COLUMNS": "200"}).stdout
    assert "≥ +75" in text or "≥ +76" in text
    # the legend's * holds for an open-ended interval too (new-user trial 4: LOS 96.9% with a *
    # under a legend that said LOS > 97.5%)
    text = " ".join(runner.invoke(app, ["ratings", "--tournament", "t", "--db", str(db)],
                                  env={"COLUMNS": "200"}).stdout.split())
    assert "LOS > 97.5%, or > 95% for an open-ended interval after a sweep" in text, text


def test_ratings_with_options_no_tournament_has_name_the_sets_that_exist(tmp_path: Path) -> None:
    """issue 20, item 6: `--ruleset classic` (defaults: contree off) when every classic
    tournament plays contrée names the set that exists and the flag that selects it,
    as one error without the notes before it."""
    from referee.rules import get_ruleset

    db = tmp_path / "o.duckdb"
    with Store.open(db) as store:
        for name in ("ctr", "ctr2"):
            rs = get_ruleset("classic", contree=True)
            store.create_tournament(name, rs.name, rs.options(), 1, 2, [("a", "1"), ("b", "1")])
            mid = match_id(name, "a@1", "b@1")
            store.add_match(name, mid, "a@1", "b@1")
            _board_pair(store, mid, 0, 10)
    r = runner.invoke(app, ["ratings", "--ruleset", "classic", "--db", str(db)])
    assert r.exit_code == 1
    text = " ".join(r.output.split())
    assert text.startswith("error: no classic tournament has the options declarations=on contree=off; "
                           "its tournaments have declarations=on contree=on (ctr, ctr2): --option contree=on."), text
    assert "note:" not in text
    r = runner.invoke(app, ["ratings", "--ruleset", "classic", "--option", "declarations=off", "--db", str(db)])
    text = " ".join(r.output.split())
    assert r.exit_code == 1 and "(ctr, ctr2): --option contree=on." in text and "note:" not in text
    r = runner.invoke(app, ["ratings", "--ruleset", "classic", "--json", "--db", str(db)])
    assert r.exit_code == 0 and r.stdout.strip() == "[]"
    assert "--option contree=on" in " ".join(r.stderr.split())
    ok = runner.invoke(app, ["ratings", "--ruleset", "classic", "--option", "contree=on", "--json", "--db", str(db)])
    assert ok.exit_code == 0 and [o["boards"] for o in json.loads(ok.stdout)] == [2, 2]


@pytest.mark.parametrize(("x", "shown"), [(-0.3, "0"), (0.0, "0"), (0.6, "+1"), (-1.2, "-1"), (31.5, "+32")])
def test_a_whole_signed_number_is_never_minus_zero(x, shown):
    """New-user trial 3: the head-to-head grid showed ``-0`` for a mean margin of -0.3."""
    from arena.cli.ratings import _signed

    assert _signed(x) == shown


def test_entrants_with_the_same_elo_share_their_rank():
    """New-user trial 3: two entrants at 1500 after a 2-0-2 final were ranked 1st and 2nd.  The
    same Elo to 0.1 (as shown) shares the first one's rank, and the next rank skips ("1, 1, 3")."""
    from types import SimpleNamespace as NS

    from arena.report.tables import shared_ranks

    elos = [1500.0, 1500.04, 1499.0, 1400.0, 1400.0]
    table = NS(order=[0, 1, 2, 3, 4], fit=NS(ratings=[NS(elo=e) for e in elos]))
    assert shared_ranks(table) == [1, 1, 3, 4, 4]


def test_piped_output_wraps_no_message_and_lays_tables_out_in_200_columns():
    """Issue 20 (new-user trial 3): piped, stdout wrapped its messages at 200 columns while
    stderr never did. Now neither wraps a message; a table keeps within 200; COLUMNS wins."""
    script = ("from rich.table import Table\n"
              "from arena.cli.base import console, err\n"
              "console.print('word ' * 80)\n"
              "err.print('word ' * 80)\n"
              "t = Table('name', 'note')\n"
              "t.add_row('x', 'word ' * 80)\n"
              "console.print(t)\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    lines = out.stdout.splitlines()
    assert lines[0].rstrip() == ("word " * 80).rstrip() == out.stderr.splitlines()[0].rstrip()
    assert max(len(line) for line in lines[1:]) <= 200 and len(lines) > 4, out.stdout  # the table's cell wraps
    sized = subprocess.run([sys.executable, "-c", script], env=dict(env, COLUMNS="80"), capture_output=True,
                           text=True, timeout=60).stdout
    assert max(len(line) for line in sized.splitlines()) <= 80, sized


def test_a_ladders_own_version_pairs_are_left_out_by_the_owner_of_the_active_versions(tmp_path: Path) -> None:
    """A ladder's board pairs between two versions of one participant are unrated for every
    reader; a rejected upload by another participant that reuses a bot's name@version makes
    nobody its owner (the closed competition of new-user trial 4: bob's rejected pybot@1.0.0
    hid ann's pybot against bob's bobbot)."""
    from arena.compete import policy

    db = tmp_path / "l.duckdb"
    with Store.open(db) as s:
        policy.create(s, "cup", "classic")
        for who, name, status in (("ann", "pybot", "active"), ("ann", "annnode", "active"),
                                  ("bob", "bobbot", "active"), ("bob", "pybot", "rejected")):
            v = s.add_version("cup", who, f"{who}-{name}", 1)
            s.set_version(v.id, status, bot=(name, "1.0.0", "h"))
        for a, b in (("pybot@1.0.0", "annnode@1.0.0"), ("pybot@1.0.0", "bobbot@1.0.0"),
                     ("annnode@1.0.0", "bobbot@1.0.0")):
            mid = match_id("cup:ladder", a, b)
            s.add_match("cup:ladder", mid, a, b)
            for k in range(3):
                _board_pair(s, mid, k, 10)
        rows = s.board_pair_results(tournament="cup:ladder")
    pairs = sorted({(rows.entrants[a], rows.entrants[b]) for a, b in zip(rows.a, rows.b)})
    assert pairs == [("annnode@1.0.0", "bobbot@1.0.0"), ("pybot@1.0.0", "bobbot@1.0.0")], pairs  # ann's own left out
    assert len(rows.a) == 6
