"""Tests for arena.stats.sprt: the sequential test on duplicate board pairs (RULES.md §8)."""

from __future__ import annotations

import math
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arena.stats import sprt as sp
from arena.store import Store, match_id

ROOT = Path(__file__).resolve().parents[2]


def test_wald_bounds_by_hand() -> None:
    """α = β = 0.05: log(0.05/0.95) = −2.9444, log(0.95/0.05) = +2.9444."""
    assert sp.wald_bounds(0.05, 0.05) == pytest.approx((-2.944439, 2.944439), abs=1e-6)
    assert sp.wald_bounds(0.05, 0.10) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    with pytest.raises(ValueError, match="alpha"):
        sp.wald_bounds(0.0, 0.05)


def test_llr_without_draws_is_the_binomial_ratio() -> None:
    """30 wins, 10 losses, H0 Elo 0, H1 Elo 50: s1 = 1/(1 + 10^(−1/8)) =
    0.571463; with no draws the constrained likelihoods are binomial:
    30·ln(0.571463/0.5) + 10·ln(0.428537/0.5) = 2.46544 (the pseudo-counts
    move it by < 1e-4)."""
    assert float(sp.llr(30, 0, 10, 0.0, 50.0)) == pytest.approx(2.46544, abs=1e-4)
    assert float(sp.llr(0, 0, 0, 0.0, 50.0)) == 0.0
    # Symmetric: B's view of the same results against the mirrored hypotheses.
    assert float(sp.llr(10, 0, 30, -50.0, 0.0)) == pytest.approx(-2.46544, abs=1e-4)
    with pytest.raises(ValueError, match="below"):
        sp.llr(1, 1, 1, 50.0, 0.0)


def test_llr_with_draws_matches_a_direct_maximisation() -> None:
    """Independent check: maximise the W/D/L likelihood under mean score s
    with scipy (probabilities on a simplex) for each hypothesis."""
    from scipy import optimize

    w, d, l_ = 40, 25, 20
    counts = np.array([w, d, l_], dtype=float)

    def best(s: float) -> float:
        # p = (pw, pd, pl) with pw + pd/2 = s, pw + pd + pl = 1: one free parameter pd.
        def neg(pd: float) -> float:
            pw, pl = s - pd / 2, 1 - s - pd / 2
            return -float(np.dot(counts, np.log([pw, pd, pl])))
        r = optimize.minimize_scalar(neg, bounds=(1e-12, 2 * min(s, 1 - s) - 1e-12), method="bounded",
                                     options={"xatol": 1e-12})
        return -r.fun

    s0, s1 = float(sp.elo_to_score(0.0)), float(sp.elo_to_score(50.0))
    assert float(sp.llr(w, d, l_, 0.0, 50.0)) == pytest.approx(best(s1) - best(s0), abs=1e-3)


def test_state_of_decides_at_the_first_crossing() -> None:
    """H0 0, H1 200 (s1 = 0.7597): each win adds ln(0.7597/0.5) = 0.4184, so
    the 8th straight win crosses 2.9444 (7·0.4184 = 2.93 does not);
    later board pairs are not counted."""
    settings = sp.SprtSettings(elo0=0.0, elo1=200.0)
    state = sp.state_of([1.0] * 12, settings)
    assert (state.decision, state.board_pairs, state.wins) == ("H1", 8, 8)
    assert state.llr == pytest.approx(8 * math.log(float(sp.elo_to_score(200.0)) / 0.5), abs=1e-3)
    assert state.elo_high == math.inf and state.elo_low > 0  # 8–0: one-sided
    lost = sp.state_of([0.0] * 12, settings)
    assert lost.decision == "H0" and lost.board_pairs < 12
    undecided = sp.state_of([1.0, 0.0] * 3, sp.SprtSettings(max_boards=6))
    assert (undecided.decision, undecided.board_pairs, undecided.elo) == ("inconclusive", 6, pytest.approx(0.0))
    assert sp.state_of([1.0, 0.0], sp.SprtSettings(max_boards=6)).decision is None


def test_fixed_sample_size_by_hand() -> None:
    """H0 0, H1 50, α = β = 0.05, 20% draws: s1 − s0 = 0.071463, σ² at the
    midpoint 0.535732·0.464268 − 0.05 = 0.198723, z = 2·1.644854:
    n = (3.289707·0.445785/0.071463)² = 421.1 → 422."""
    assert sp.fixed_sample_size(0.0, 50.0, 0.05, 0.05, 0.2) == 422


@pytest.mark.statistics
def test_sprt_error_rates_in_simulation() -> None:
    """Equal bots accept H1 at most about α = 5%; bots 50 Elo apart (elo1)
    accept it at least about 1 − β = 95% (600 tests each, 20% draws; ±2%
    noise allowed). The mean board pairs stay well below the fixed-sample
    rule's 422 (hand-checked in test_fixed_sample_size_by_hand)."""
    settings = sp.SprtSettings(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_boards=1500)
    equal = sp.simulate(0.0, 0.2, settings, reps=600, seed=11)
    apart = sp.simulate(50.0, 0.2, settings, reps=600, seed=12)
    assert equal.accept_h1 <= 0.07, equal
    assert apart.accept_h1 >= 0.93, apart
    assert equal.mean_boards < 300 and apart.mean_boards < 300, (equal, apart)
    assert equal.inconclusive <= 0.01 and apart.inconclusive <= 0.01


def _writer(store: Store, scores: list[float], stop_after: int | None = None, block: int = 1):
    """A 'play' that stores the given board pairs (margins +10, 0, −10) one by
    one from the first missing one, calling on_progress after each ``block`` of
    them, as tournament.run does."""
    mid = match_id("t", "a@1", "b@1")

    def play(on_progress, stop) -> None:
        done = store.con.execute("SELECT count(*) FROM board_pairs").fetchone()[0]
        for k in range(done, len(scores)):
            if stop.is_set() or (stop_after is not None and k >= stop_after):
                return
            margin = {1.0: 10, 0.5: 0, 0.0: -10}[scores[k]]
            store.con.execute("INSERT INTO board_pairs (match_id, board, points_a, points_b, margin, forfeit_a, forfeit_b, "
                              "written_at, outcome_a) VALUES (?, ?, 0, 0, ?, false, false, now(), ?)",
                              [mid, k, margin, {10: "win", 0: "draw", -10: "loss"}[margin]])
            if (k + 1) % block == 0:
                on_progress(k + 1, len(scores))

    return play


def test_run_test_stops_at_the_bound_stores_and_resumes(tmp_path: Path) -> None:
    settings = sp.SprtSettings(elo0=0.0, elo1=200.0, max_boards=40)
    scores = [1.0, 0.5] + [1.0] * 38
    # Where it must stop: 7 wins and a draw cross the upper bound, 6 and a draw do not.
    upper = sp.wald_bounds(0.05, 0.05)[1]
    assert float(sp.llr(6, 1, 0, 0.0, 200.0)) < upper <= float(sp.llr(7, 1, 0, 0.0, 200.0))
    with Store.open(tmp_path / "t.duckdb") as store:
        store.create_tournament("t", "classic", {}, 1, len(scores), [("a", "1"), ("b", "1")])
        store.add_match("t", match_id("t", "a@1", "b@1"), "a@1", "b@1")
        seen: list[int] = []
        state = sp.run_test(store, "t", "a@1", "b@1", settings, _writer(store, scores, stop_after=5),
                            on_update=lambda st, n: seen.append(n))
        assert state.decision is None and state.board_pairs == 5  # interrupted
        assert seen == [0, 1, 2, 3, 4, 5, 5]
        assert sp.load(store, "t")["status"] == "running"
    with Store.open(tmp_path / "t.duckdb") as store:  # resumed from the stored board pairs
        state = sp.run_test(store, "t", "a@1", "b@1", settings, _writer(store, scores))
        assert (state.decision, state.board_pairs, state.wins, state.draws) == ("H1", 8, 7, 1)
        row = sp.load(store, "t")
        assert (row["status"], row["board_pairs"], row["board_pairs_stored"]) == ("H1", 8, 8)
        assert row["elo_low"] > 0 and row["model"] == "gsprt-trinomial"
        # Decided: running again plays nothing and gives the same state.
        again = sp.run_test(store, "t", "a@1", "b@1", settings, lambda *a: pytest.fail("played again"))
        assert again == state


def test_board_pairs_past_the_decision_are_kept_but_never_rated(tmp_path: Path) -> None:
    """A test checked once a block of 5 is stored decides at its 8th board pair (7 wins and a
    draw, as above) and stores 10: the two past the decision are kept and counted as stored,
    and left out of every rating list, the ruleset's and the test's own (issue 20 item 4)."""
    settings = sp.SprtSettings(elo0=0.0, elo1=200.0, max_boards=40)
    scores = [1.0, 0.5] + [1.0] * 6 + [0.0, 0.0] + [1.0] * 30
    with Store.open(tmp_path / "t.duckdb") as store:
        store.create_tournament("t", "classic", {}, 1, len(scores), [("a", "1"), ("b", "1")])
        store.add_match("t", match_id("t", "a@1", "b@1"), "a@1", "b@1")
        assert len(store.board_pair_results(ruleset="classic").board) == 0
        state = sp.run_test(store, "t", "a@1", "b@1", settings, _writer(store, scores, block=5))
        assert (state.decision, state.board_pairs, state.wins, state.draws, state.losses) == ("H1", 8, 7, 1, 0)
        row = sp.load(store, "t")
        assert (row["status"], row["board_pairs"], row["board_pairs_stored"]) == ("H1", 8, 10)
        for rows in (store.board_pair_results(ruleset="classic"), store.board_pair_results(tournament="t")):
            assert sorted(rows.board.tolist()) == list(range(8))  # the two losses at boards 8, 9 are not rated
            assert rows.margin.tolist().count(-10) == 0


def test_resolve_bot(tmp_path: Path) -> None:
    kind, path = sp.resolve_bot("heuristic", [])
    assert kind == "folder" and (path / "bot.toml").is_file()
    kind, path = sp.resolve_bot(str(ROOT / "sample_bots" / "greedy"), [])
    assert kind == "folder"
    # a sample by its shipped key, in a database where it is not registered yet (the README's
    # `--bots greedy@1.0.0` failed on a fresh database: the new-user trial)
    assert sp.resolve_bot("greedy@1.0.0", []) == ("folder", ROOT / "sample_bots" / "greedy")
    with pytest.raises(ValueError, match="known names: expert, greedy, heuristic, random"):
        sp.resolve_bot("greedy@9.9.9", [])  # a version that was never shipped
    with pytest.raises(ValueError, match="known names: expert, greedy, heuristic, random"):
        sp.resolve_bot("nobody", [])
    # a registered name with a version it never had: its versions are said (new-user trial 4)
    from types import SimpleNamespace

    mine = [SimpleNamespace(name="pybot", version=v, key=f"pybot@{v}", submitted_at=k, path="/x")
            for k, v in enumerate(("1.0.0", "1.1.0"))]
    with pytest.raises(ValueError, match=r"pybot has no version '9.9'; registered versions: 1.0.0, 1.1.0"):
        sp.resolve_bot("pybot@9.9", mine)


@pytest.mark.slow
def test_arena_sprt_end_to_end(tmp_path: Path) -> None:
    """`arena sprt heuristic random` stops on its own and prints its decision
    and the board pairs played; a second run prints the stored decision."""
    db = tmp_path / "a.duckdb"
    runner = "from arena.cli import main; main()"

    def arena(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", runner, *args], capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)

    args = ("sprt", "heuristic", "random", "--elo1", "200", "--seed", "3", "--max-boards", "200", "--db", str(db),
            "--name", "t", "--option", "contree=on", "--decision-ms", "800")
    first = arena(*args)
    assert first.returncode == 0, first.stderr
    assert "random@1.0.0, classic (declarations=on contree=on)" in first.stdout  # RULES.md §6.4 options, issue 20 item 4
    assert "H1 accepted: heuristic@1.0.0 - random@1.0.0 = " in first.stdout
    assert "board pairs: " in first.stdout
    with Store.open(db, read_only=True) as store:  # stored with the test, as a tournament's are
        assert store.play_settings("t") == {"decision_ms": 800, "max_faults": 3, "cpu_s": 0, "memory_mib": 1024,
                                               "time_bank_ms": 0, "time_increment_ms": 0}
        assert store.get_tournament("t").variant_options == {"declarations": "on", "contree": "on"}
        row = sp.load(store, "t")
        past = row["board_pairs_stored"] - row["board_pairs"]  # the rest of the deciding block
        assert (f"{past} board pair" in first.stdout) == (past > 0), first.stdout
        assert len(store.board_pair_results(tournament="t").board) == row["board_pairs"]
    again = arena(*args, timeout=120)
    assert again.returncode == 0 and "decided before" in again.stdout
    other = arena(*args[:-1], "900", timeout=60)
    assert other.returncode == 1 and "exists with --decision-ms 800" in other.stderr
    at = args.index("--max-boards") + 1
    longer = arena(*args[:at], "300", *args[at + 1:], timeout=60)
    assert longer.returncode == 1, longer.stderr
    assert "other settings (--max-boards): it is decided and done; choose a new --name" in longer.stderr
    listed = json.loads(arena("tournament", "list", "--json", "--db", str(db), timeout=60).stdout)
    assert [t["status"] for t in listed] == ["decided"]  # stopped short of --max-boards on purpose
    bad = arena("sprt", "heuristic", "random", "--elo0", "60", "--elo1", "50", "--db", str(db), timeout=60)
    assert bad.returncode == 2 and "--elo0 must be below --elo1" in bad.stderr
    unknown = arena("sprt", "heuristic", "nobody", "--db", str(db), timeout=60)
    assert unknown.returncode == 1 and "'nobody' is not a bot folder" in unknown.stderr


def test_the_resume_hint_is_the_whole_command() -> None:
    """issue 20, item 2: the hint an interrupted test prints repeats every setting a resume
    compares (the default name is made of elo0 and elo1: without them it would start a new
    test), and leaves the defaults out."""
    from arena.cli.sprt import resume_command

    settings = sp.SprtSettings(elo0=-10.0, elo1=20.0, alpha=0.05, beta=0.1, max_boards=6000)
    assert resume_command("my bot", "random", settings, db=Path("x/a.duckdb")) == (
        "arena sprt 'my bot' random --elo0 -10 --elo1 20 --beta 0.1 --max-boards 6000 --db x/a.duckdb")
    assert resume_command("a", "b", sp.SprtSettings(), name="t", no_isolate=True) == (
        "arena sprt a b --name t --no-isolate")


def test_max_boards_below_twice_the_fixed_size_is_warned_about() -> None:
    """H0 0, H1 20, α = β = 0.05, 10% draws: a fixed-size test needs 2,944 board pairs;
    at the default --max-boards 2000 a quarter of the tests end undecided (issue 20,
    item 22). H1 50 needs 475: 2000 is enough, no warning."""
    from arena.stats.sprt import SprtSettings, max_boards_warning

    text = max_boards_warning(SprtSettings(elo0=0.0, elo1=20.0, max_boards=2000))
    assert text is not None and "2944 board pairs" in text and "--max-boards 5888" in text
    assert "24% of such tests end undecided when H0 holds, 28% when H1 holds" in text
    assert max_boards_warning(SprtSettings(elo0=0.0, elo1=20.0, max_boards=5888)) is None
    assert max_boards_warning(SprtSettings(elo0=0.0, elo1=50.0, max_boards=2000)) is None
    # below twice the fixed size (34) but the simulation finds ~0% undecided: no warning (new-user trial 4)
    assert max_boards_warning(SprtSettings(elo0=0.0, elo1=200.0, max_boards=60)) is None


def test_arena_sprt_warns_once_the_test_can_be_played(tmp_path) -> None:
    """The warning comes with a test that is played (here 4 board pairs), never before a
    refusal: ``sprt random random`` says only that A and B are the same bot."""
    from typer.testing import CliRunner

    from arena.cli import app

    db = str(tmp_path / "a.duckdb")
    same = CliRunner().invoke(app, ["sprt", "random", "random", "--elo1", "20", "--db", db])
    assert same.exit_code != 0 and "A and B are the same bot" in same.output
    assert "warning" not in same.output
    workers = CliRunner().invoke(app, ["sprt", "random", "greedy", "--workers", "2", "--db", db])
    assert workers.exit_code == 2 and "arena sprt has no --workers" in workers.output, workers.output
    played = CliRunner().invoke(app, ["sprt", "random", "greedy", "--elo1", "20", "--max-boards", "4", "--db", db])
    assert played.exit_code == 0, played.output
    assert "warning: --max-boards 4 is below about twice the 2944 board pairs" in played.output
    assert "no decision after 4 board pairs" in played.output
    # a refused resume says only why (new-user trial 4: the warning came first)
    again = CliRunner().invoke(app, ["sprt", "random", "greedy", "--elo1", "20", "--max-boards", "4",
                                     "--time-bank-ms", "500", "--db", db])
    assert again.exit_code == 1 and "fixed once it is created" in again.output, again.output
    assert "warning" not in again.output, again.output
    # listed as undecided, not "complete" (the new-user trial); a decided test is listed "decided"
    listed = CliRunner().invoke(app, ["tournament", "list", "--json", "--db", db])
    assert [t["status"] for t in json.loads(listed.stdout)] == ["undecided"], listed.output
