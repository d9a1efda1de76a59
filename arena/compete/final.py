"""The final: ``arena compete close NAME`` ends the ladder and crowns the winner.

:func:`close` locks uploads (the competition's status ``closed``: 409 on upload), ends the
ladder (no new unit; its tournament complete, so the ladder seed is revealed and can be checked
against the commitment published since the start), and makes the final: the tournament
``<competition>:final``, a duplicate round robin of one version per participant (the one it
chose, by default its latest active version), under a **new secret seed** whose commitment
(:func:`arena.store.seed_commitment`: SHA-256 of the seed's decimal digits) is published at once.

The final is then played as every tournament is (:mod:`arena.play.tournament`: every pair the
same boards, seats swapped, table 2's suits renamed; one match at a time, against collusion):
by ``arena compete close`` itself with local workers when no server runs (:func:`play`), or by
the running server's ladder thread (:func:`play_in_server`). Once its last board pair is stored
the tournament is complete: its seed is revealed, and :func:`final_report` publishes the
standings beside the ladder's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from referee.manifest import load_manifest
from referee.match import BLOCK_BOARDS, Entrant, MatchConfig
from referee.rules import make_board
from referee.sandbox import Limits

from ..play import tournament as tournaments
from ..play.executors import Work, play_unit
from ..play.schedule import new_seed
from ..report.tables import rating_table, ratings_json
from ..store import Status, Store, StoreError, Tournament
from ..store.compete import final_tournament, ladder_tournament

__all__ = ["DEFAULT_BOARDS", "close", "final_entry", "final_report", "play", "play_in_server"]

#: Boards per pair of a final when ``close`` is not told otherwise.
DEFAULT_BOARDS = 64
#: The final's faults after which an entrant forfeits the rest of a match (as ``arena tournament run``).
MAX_FAULTS = 3


def close(store: Store, competition: str, *, boards: int = DEFAULT_BOARDS,
          choices: Mapping[str, int] | None = None) -> Tournament:
    """Close ``competition`` and make its final (module docstring); return the final's tournament.
    ``choices``: participant → the version id it enters, over the participants' own choices
    (``arena remote final``, :meth:`arena.store.Store.choose_final`; a choice whose version is no
    longer active is ignored); default: the participant's latest active version.
    Closing a closed competition returns its final as it is.

    Raises:
        StoreError: no such competition; fewer than two participants with an active version; a
        chosen version that is not the participant's own active one.
    """
    c = store.get_competition(competition)
    if c is None:
        raise StoreError(f"no competition {competition!r}")
    name = final_tournament(competition)
    old = store.get_tournament(name)
    if c.status == "closed" and old is not None:
        return old
    active = store.versions(competition, statuses=("active",))
    chosen: dict[str, int] = {}
    for v in active:
        chosen[v.participant] = v.id  # oldest first: the latest wins
    for who, vid in store.final_choices(competition).items():
        if any(v.id == vid and v.participant == who for v in active):
            chosen[who] = vid
    for who, vid in (choices or {}).items():
        if not any(v.id == vid and v.participant == who for v in active):
            raise StoreError(f"version {vid} is not an active version of {who!r}")
        chosen[who] = vid
    if len(chosen) < 2:
        raise StoreError(f"competition {competition!r} has {len(chosen)} participant(s) with an active version: a "
                         "final needs two")
    keys = [store.get_version(vid).key for _, vid in sorted(chosen.items(), key=lambda kv: kv[1])]

    def work():
        store.set_competition_status(competition, "closed")
        for u in store.ladder_units(competition, statuses=("playing",)):
            store.void_unit(competition, u.block, "the competition closed before its block was played")
        if store.get_tournament(ladder_tournament(competition)) is not None:
            store.set_tournament_status(ladder_tournament(competition), Status.COMPLETE)  # the seed revealed

    store._transaction(work)
    t = store.create_tournament(name, c.ruleset, c.options, new_seed(), boards, keys, secret=True)
    store.set_play_settings(name, {"decision_ms": c.policy["decision_ms"], "max_faults": MAX_FAULTS,
                                   "cpu_s": c.policy["cpu_s"], "memory_mib": c.policy["memory_mib"],
                                   "time_bank_ms": 0, "time_increment_ms": 0})
    return t


def _settings(store, competition: str) -> tuple[Tournament, dict]:
    t = store.get_tournament(final_tournament(competition))
    if t is None:
        raise StoreError(f"competition {competition!r} has no final: `arena compete close {competition}` first")
    return t, store.play_settings(t.name)


def play(store: Store, competition: str, *, workers: int = 1, limits: Limits | None = None,
         stop: threading.Event | None = None) -> tournaments.RunSummary:
    """Play the final's missing board pairs with local ``workers`` (no server running: this
    process holds the database's run lock), one match at a time; the seed is revealed when done."""
    t, settings = _settings(store, competition)
    return tournaments.run(store, t.name, workers=workers, decision_ms=settings["decision_ms"],
                           max_faults=settings["max_faults"], limits=limits, exclusive_boards=True, stop=stop,
                           quote_output=False)  # faults are public, a bot's output its owner's


def play_in_server(hub, limits: Limits, stop: threading.Event, player=None) -> bool:
    """The final, played by the running server (its store shared through ``hub``), one match at a
    time, each stored as it ends (a restart resumes at the first block not stored); True when
    complete (the seed revealed). ``player(work, unit, emit)`` plays a unit (the ladder's: here,
    or on its cluster); default :func:`arena.play.executors.play_unit` here."""
    comp = hub.competition

    def read(s):
        t, settings = _settings(s, comp)
        entrants = [Entrant(b.key, manifest=load_manifest(b.path), content_hash=b.content_hash)
                    for b in (s.get_bot(*key.rsplit("@", 1)) for key in t.entrants)]
        ruleset = t.resolved_ruleset()
        todo = list(tournaments.units(s, t.name, entrants, t.boards_per_pair, ruleset, BLOCK_BOARDS))
        if todo:
            s.set_tournament_status(t.name, Status.RUNNING)
            s.add_boards(t.name, (make_board(t.seed, k, ruleset.seats) for k in range(t.boards_per_pair)))
        return t, settings, ruleset, todo

    t, settings, ruleset, todo = hub.run(read)
    config = MatchConfig(ruleset=ruleset, seed=t.seed, limits=limits, decision_ms=settings["decision_ms"],
                         max_faults=settings["max_faults"], quote_output=False)
    work = Work(config, t.boards_per_pair)
    for unit in todo:
        results: list = []
        if player is None:
            play_unit(work, unit, lambda m, r: results.append((m, r)), stop.is_set)
        else:
            player(work, unit, lambda m, r: results.append((m, r)))
        hub.run(lambda s: s.write_board_pairs(t.name, results))
        if stop.is_set():
            return False
    done = hub.run(lambda s: sum(s.stored_counts(t.name).values()))
    if done >= t.pairs * t.boards_per_pair:
        hub.run(lambda s: s.set_tournament_status(t.name, Status.COMPLETE))
        return True
    return False


def final_report(store, competition: str) -> dict | None:
    """The final as JSON, or None before it exists: ``tournament``, ``status``, ``commitment``,
    ``seed`` (decimal text once revealed, else None), ``boards_per_pair``, ``entrants`` (with
    their participant and version id), ``board_pairs`` stored of ``total``, and ``standings``
    (as ``arena ratings --json``, over the final's board pairs only)."""
    t = store.get_tournament(final_tournament(competition))
    if t is None:
        return None
    owners = {v.key: v for v in store.versions(competition) if v.key is not None and v.status != "rejected"}
    table = rating_table(store.board_pair_results(tournament=t.name))
    rows = ratings_json(table) if table is not None else []
    for r in rows:
        v = owners.get(f"{r['name']}@{r['version']}")
        r["participant"], r["version_id"] = (v.participant, v.id) if v else (None, None)
    return {"tournament": t.name, "status": t.stored_status or t.status, "commitment": t.commitment,
            "seed": None if t.public_seed is None else str(t.public_seed), "boards_per_pair": t.boards_per_pair,
            "entrants": [{"bot": k, "participant": owners[k].participant if k in owners else None,
                          "version": owners[k].id if k in owners else None} for k in t.entrants],
            "board_pairs": t.board_pairs, "total": t.pairs * t.boards_per_pair, "standings": rows}


def final_entry(store, competition: str, participant: str) -> dict | None:
    """A participant's view of the final, or None before it exists: ``status`` (``running`` while
    it is played, ``complete`` once its last board pair is stored) and ``version``, the id of the
    participant's version that entered it (None: none did)."""
    t = store.get_tournament(final_tournament(competition))
    if t is None:
        return None
    mine = [v.id for v in store.versions(competition, participant) if v.status != "rejected" and v.key in t.entrants]
    return {"status": t.stored_status or t.status, "version": mine[-1] if mine else None}
