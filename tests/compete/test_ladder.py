"""The ladder in process (arena/compete/ladder.py, arena/compete/pairing.py): placement gauntlets,
blocks claimed once, ratings in the order of the sample bots' strength without one owner's pairs,
the server's failures replayed and charged to nobody, a faulting bot retired with the reason."""

from __future__ import annotations

import math
import time
import pytest

from arena.compete import ladder as ladder_module
from arena.compete import intake
from arena.compete.hub import Hub
from arena.compete.intake import ladder_log_blocks, own_logs
from arena.compete.ladder import MAX_BOT_FAILURES, Ladder, standings, version_ladder
from arena.compete.pairing import Entry, information, next_pair, placement_panel
from arena.store.compete import ladder_tournament
from referee.sandbox import Limits

from .conftest import SAMPLES, bot_copy, cli, output
from .ladder_helpers import competition, crashing_bot, enter


# ---------------------------------------------------------------- pairing (pure)

def test_the_placement_panel_is_everyone_older_or_32_spread_over_the_ratings():
    field = [Entry(i, f"p{i}", elo=1500.0 + 10 * i, sd=50.0) for i in range(1, 6)]
    new = Entry(9, "p1")
    assert placement_panel(new, field) == [1, 2, 3, 4, 5]
    big = [Entry(i, f"p{i}", elo=1000.0 + i, sd=50.0) for i in range(1, 101)] + [Entry(200, "me", elo=1200.0)]
    panel = placement_panel(Entry(300, "me"), big, cap=32)
    assert len(panel) == 32 and 200 in panel  # its owner's own version is met (unrated)
    others = sorted(panel)[:-1]
    assert others[0] == 1 and others[-1] == 100  # spread from the bottom to the top of the list


def test_the_next_pair_is_the_most_informative_one_of_different_owners():
    a, b, c = Entry(1, "ann", 1500.0, 30.0, 9), Entry(2, "bob", 1510.0, 30.0, 9), Entry(3, "cyd", 1900.0, 30.0, 9)
    assert next_pair([a, b, c], {}, 10) == (1, 2)  # close ratings
    wide = Entry(3, "cyd", 1900.0, 300.0, 9)
    assert next_pair([a, b, wide], {}, 10) in ((1, 3), (2, 3))  # a wide interval outweighs a far rating
    assert information(a, b, 0) > information(a, b, 640)  # few boards together: more to learn
    assert next_pair([a, b, c], {(1, 2): 10_000}, 10) == (2, 3)
    assert next_pair([a, Entry(2, "ann", 1500.0, 30.0, 9)], {}, 10) is None  # one owner's versions never meet
    assert next_pair([a, b, c], {}, 10, busy={1}) == (2, 3)
    # the floor: a version that played none of the last 2·n blocks comes first, whatever it carries
    starved = Entry(3, "cyd", 2400.0, 10.0, 0)
    assert next_pair([Entry(1, "ann", 1500.0, 30.0, 99), Entry(2, "bob", 1500.0, 30.0, 99), starved], {}, 100) \
        in ((1, 3), (2, 3))


# ---------------------------------------------------------------- the ladder


def _db_rows(hub, sql, params=()):
    return hub.run(lambda s: s.con.execute(sql, list(params)).fetchall())


def test_the_ladder_places_new_versions_and_rates_heuristic_over_greedy_over_random(tmp_path):
    """Four versions (ann's two: a random bot and its next version), 8-board blocks: every pair
    meets in placement (ann's own pair too, unrated), then the ladder's pairs; every block once;
    heuristic > greedy > random."""
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=8)
    hub = Hub(db, "cup")
    try:
        v = [enter(hub, "ann", bot_copy("random", tmp_path / "r1", name="anns")),
             enter(hub, "bob", SAMPLES / "greedy"),
             enter(hub, "cyd", SAMPLES / "heuristic"),
             enter(hub, "ann", bot_copy("random", tmp_path / "r2", name="anns", version="2.0.0"))]
        ladder = Ladder(hub, Limits(isolate=False))
        started = time.monotonic()
        units = [ladder.step() for _ in range(14)]
        elapsed = time.monotonic() - started
        assert [u.block for u in units] == list(range(14)) and all(u.status == "done" for u in units)
        placement = [(u.version_a, u.version_b) for u in units if u.kind == "placement"]
        ids = [x.id for x in v]
        assert sorted(placement) == sorted((a, b) for i, a in enumerate(ids) for b in ids[i + 1:])
        assert [u.kind for u in units[:6]] == ["placement"] * 6
        # the ladder never pairs one owner's versions
        assert all({u.version_a, u.version_b} != {ids[0], ids[3]} for u in units[6:])
        # every block stored whole, under its own boards, once
        rows = _db_rows(hub, "SELECT match_id, board FROM board_pairs")
        assert len(rows) == 14 * 8 == len(set(rows))
        assert sorted({b // 8 for _, b in rows}) == list(range(14))
        assert _db_rows(hub, "SELECT count(*) FROM ladder_units WHERE status = 'done'") == [(14,)]
        table = hub.run(lambda s: standings(s, "cup"))
        order = [st.version.key for st in table]
        assert order.index("heuristic@1.0.0") < order.index("greedy@1.0.0") < \
            min(order.index("anns@1.0.0"), order.index("anns@2.0.0")), [st.public() for st in table]
        by_key = {st.version.key: st for st in table}
        # ann's versions met once (8 board pairs), never rated against each other
        own = _db_rows(hub, "SELECT count(*) FROM board_pairs p JOIN matches m USING (match_id) "
                            "WHERE m.entrant_a LIKE 'anns@%' AND m.entrant_b LIKE 'anns@%'")
        assert own == [(8,)]
        units_of = {k: s.units for k, s in by_key.items()}
        assert by_key["anns@1.0.0"].boards == (units_of["anns@1.0.0"] - 1) * 8
        # every reader of the ladder's board pairs (its web page, `arena ratings`) leaves them out too:
        # the new-user trial saw the page rate ann's own pair
        rated = hub.run(lambda s: s.board_pair_results(tournament=ladder_tournament("cup")))
        assert len(rated.a) == 14 * 8 - 8
        assert all(math.isfinite(st.elo) for st in table)
        print(f"\n14 blocks of 8 boards in {elapsed:.1f} s: " +
              ", ".join(f"{st.version.key} {st.elo:.0f} [{st.ci_low:.0f}, {st.ci_high:.0f}]" for st in table))
        # the seed stays secret, its commitment public
        t = hub.run(lambda s: s.get_tournament(ladder_tournament("cup")))
        assert t.public_seed is None and len(t.commitment) == 64
    finally:
        hub.close()


def test_a_failure_of_the_server_replays_the_unit_and_charges_nobody(tmp_path, monkeypatch):
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=2)
    hub = Hub(db, "cup")
    try:
        enter(hub, "ann", SAMPLES / "random")
        enter(hub, "bob", SAMPLES / "greedy")
        real = ladder_module.play_unit
        calls = []

        def flaky(work, unit, emit, stopped):
            calls.append(unit.boards)
            if len(calls) == 1:
                emit(unit.match_id, None)  # half a unit handed over, then the worker is lost
                raise ConnectionError("worker lost")
            return real(work, unit, emit, stopped)

        monkeypatch.setattr(ladder_module, "play_unit", flaky)
        monkeypatch.setattr(ladder_module, "RETRY_S", 0.0)
        ladder = Ladder(hub, Limits(isolate=False))
        first = ladder.step()
        assert first.status == "playing" and first.attempts == 2 and "worker lost" in first.detail
        assert _db_rows(hub, "SELECT count(*) FROM board_pairs") == [(0,)]
        again = ladder.step()
        assert again.block == first.block == 0 and again.status == "done" and calls == [(0, 1), (0, 1)]
        assert (again.forfeit_a, again.forfeit_b) == (False, False)
        assert _db_rows(hub, "SELECT count(*) FROM board_pairs") == [(2,)]
        assert [v.status for v in hub.run(lambda s: s.versions("cup"))] == ["active", "active"]
    finally:
        hub.close()


def test_a_version_whose_bot_faults_unit_after_unit_is_retired_with_the_reason(tmp_path):
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    hub = Hub(db, "cup")
    try:
        good = enter(hub, "ann", SAMPLES / "random")
        bad = enter(hub, "bob", crashing_bot(tmp_path / "crashy"))
        ladder = Ladder(hub, Limits(isolate=False))
        units = [ladder.step() for _ in range(MAX_BOT_FAILURES)]
        assert all(u.status == "done" and u.forfeit_b and not u.forfeit_a for u in units)
        v = hub.run(lambda s: s.get_version(bad.id))
        assert v.status == "retired"
        assert f"faulted in {MAX_BOT_FAILURES} ladder units in a row" in v.reason and "blocks 0, 1, 2" in v.reason
        assert hub.run(lambda s: s.get_version(good.id)).status == "active"
        assert ladder.step() is None  # nobody left to play ann
        # the forfeited boards count: ann won them all
        assert _db_rows(hub, "SELECT outcome_a, count(*) FROM board_pairs GROUP BY ALL") == [("win", 3)]
    finally:
        hub.close()


def test_a_closed_competition_plays_no_ladder(tmp_path):
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    hub = Hub(db, "cup")
    try:
        enter(hub, "ann", SAMPLES / "random")
        enter(hub, "bob", SAMPLES / "greedy")
        hub.run(lambda s: s.set_competition_status("cup", "closed"))
        assert Ladder(hub, Limits(isolate=False)).step() is None
    finally:
        hub.close()


def _talking_bot(dst, name, line):
    """The random bot, saying ``line`` on stderr as it starts."""
    bot_copy("random", dst, name=name)
    (dst / "talk.py").write_text(f"import runpy, sys\nprint('x' * 5000 + {line!r}, file=sys.stderr, flush=True)\n"
                                 "runpy.run_path('bot.py', run_name='__main__')\n")
    toml = dst / "bot.toml"
    toml.write_text(toml.read_text().replace('command = ["python", "bot.py"]', 'command = ["python", "talk.py"]'))
    return dst


def test_each_owner_reads_its_own_ladder_output_and_faults_and_the_newest_units_are_kept(tmp_path, monkeypatch):
    """Issue 22 item 5: a ladder unit's bot output is filed per version (its owner's only, never
    the opponent's), the newest LOGS_KEPT units kept; a version's faults list their blocks."""
    monkeypatch.setattr(intake, "LOGS_KEPT", 2)
    monkeypatch.setattr(intake, "KEPT_BYTES", 1000)
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    hub = Hub(db, "cup")
    try:
        ann = enter(hub, "ann", _talking_bot(tmp_path / "talker", "talker", "ANN-SAYS-HELLO"))
        crashy = crashing_bot(tmp_path / "crashy")
        (crashy / "bot.py").write_text("import sys\nprint('BOB-CRASHES', file=sys.stderr)\nsys.exit(3)\n")
        bob = enter(hub, "bob", crashy)
        ladder = Ladder(hub, Limits(isolate=False))
        assert [ladder.step().block for _ in range(3)] == [0, 1, 2]
        ann_v, bob_v = (hub.run(lambda s, i=v.id: s.get_version(i)) for v in (ann, bob))
        assert ladder_log_blocks(hub, ann.id) == [1, 2] == ladder_log_blocks(hub, bob.id)  # the newest 2 of 3
        mine = own_logs(hub, ann_v)
        assert mine and all(name.startswith("ladder-000002/talker@1.0.0-table") for name in mine)
        assert all("ANN-SAYS-HELLO" in text and "BOB" not in text for text in mine.values())
        kept = [p for p in (hub.logs / str(ann.id)).rglob("*.log")]
        assert kept and all(p.stat().st_size <= 1000 for p in kept)  # the ends of 5,000+ bytes only
        theirs = own_logs(hub, bob_v, block=1)
        assert theirs and all("BOB-CRASHES" in text and "ANN" not in text for text in theirs.values())
        with pytest.raises(KeyError, match=r"block 0 .*kept: 1, 2"):
            own_logs(hub, bob_v, block=0)
        assert not any((hub.logs / "units").iterdir())  # nothing left of the units in flight
        seen = hub.run(lambda s: version_ladder(s, "cup", [ann_v, bob_v]))
        assert {f["block"] for f in seen[bob.id]["faults"]} == {0, 1, 2}
        assert all(f["kind"] == "start" and "exited with status 3" in f["detail"] for f in seen[bob.id]["faults"])
        # a fault is public (the ladder's replays), the output its owner's: not quoted in it
        assert not any("BOB-CRASHES" in f["detail"] for f in seen[bob.id]["faults"])
        assert seen[ann.id]["faults"] == [] and seen[ann.id]["standing"]["boards"] == 3
    finally:
        hub.close()


def test_the_ladder_plays_on_a_dask_cluster_over_tls_and_serve_refuses_one_without(tmp_path):
    """Issue 22 item 7: a ladder unit played by a Dask worker reached over TLS is stored as a
    local one is; a client without the cluster's credentials is refused by its scheduler; `serve`
    refuses a scheduler address that is not TLS (a Dask scheduler runs any client's code)."""
    import distributed.security
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    hub = Hub(db, "cup")
    ladder = Ladder(hub, Limits(isolate=False), cluster="local-tls:1")
    try:
        enter(hub, "ann", SAMPLES / "random")
        enter(hub, "bob", SAMPLES / "greedy")
        unit = ladder.step()
        assert unit.status == "done" and unit.block == 0
        assert _db_rows(hub, "SELECT count(*) FROM board_pairs") == [(1,)]
        scheduler = ladder._executors[0].client.scheduler.address
        assert scheduler.startswith("tls://")
        stranger = distributed.security.Security.temporary()  # a certificate of another CA
        with pytest.raises((OSError, TimeoutError)):  # the scheduler does not trust it: no connection
            distributed.Client(scheduler, timeout=5, security=stranger)
    finally:
        ladder.stop()
        hub.close()
    r = cli("compete", "serve", "cup", "--cluster", "tcp://127.0.0.1:8786", "--db", db)
    assert r.exit_code == 2 and "over TLS only" in output(r)


@pytest.mark.parametrize("how", ["crash", "raise"])
def test_a_ladder_fault_in_mid_match_quotes_none_of_the_bots_output(tmp_path, how):
    """Red team 22: a bot crashing during a ladder match had its last 300 characters of output
    quoted in the fault, which the ladder's public board pages show; red team 22b: so was the
    message of an exception its decide() raised. Now only its owner reads them."""
    db = tmp_path / "arena.duckdb"
    competition(db, block_boards=1)
    hub = Hub(db, "cup")
    try:
        enter(hub, "ann", SAMPLES / "random")
        mid = bot_copy("random", tmp_path / "midcrash", name="midcrash")
        code = (mid / "bot.py").read_text()
        (mid / "bot.py").write_text(code.replace(
            '        return self.rng.choice(request.legal_actions)',
            '        print("BOB-PRIVATE-NOTES", flush=True)\n        import os\n        os._exit(3)' if how == "crash"
            else '        raise ValueError("BOB-PRIVATE-NOTES")'))
        bob = enter(hub, "bob", mid)
        unit = Ladder(hub, Limits(isolate=False)).step()
        assert unit.status == "done" and unit.forfeit_b
        faults = hub.run(lambda s: version_ladder(s, "cup", [s.get_version(bob.id)]))[bob.id]["faults"]
        assert faults and (any(f["kind"] == "crash" and "exited with status 3" in f["detail"] for f in faults)
                           if how == "crash" else all(f["kind"] == "bot-error" for f in faults))
        assert not any("BOB-PRIVATE" in f["detail"] for f in faults)
        stored = _db_rows(hub, "SELECT detail FROM faults")
        assert stored and not any("BOB-PRIVATE" in d for (d,) in stored)  # what every page shows
        assert any("BOB-PRIVATE" in text for text in own_logs(hub, hub.run(lambda s: s.get_version(bob.id)),
                                                                   block=unit.block).values())
    finally:
        hub.close()
