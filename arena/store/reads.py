"""The reads: :class:`TournamentReads` (bots, tournaments, entrants, boards, what is
stored of a run) and :class:`ResultReads` (board pairs as columns for ratings, match
summaries, deal records, faults, decisions). Every store has them, read-only or not.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import duckdb
import numpy as np

from referee.records import BoardPairResult, Decision, Fault, TableResult
from referee.rules import Board, Card, DealOutcome, RecordError, parse_record

from .connection import RunLock
from .model import (
    PLAY_SETTINGS, Bot, BoardPairRows, DealSuiteRow, BoardPairSummary, MatchSummary, SlowDecision, Status, StoreError,
    TableSummary, Tournament, _shown_status, action_json, split_entrant,
)


class TournamentReads:
    """Bots, tournaments, entrants, boards, play settings and what a run has stored
    (a mixin of :class:`arena.store.ReadStore`)."""

    def get_bot(self, name: str, version: str) -> Bot | None:
        """The bot version, or ``None`` if it is not stored."""
        rows = self._query(
            "SELECT name, version, author, manifest, content_hash, path, submitted_at FROM bots "
            "WHERE name = ? AND version = ?",
            [name, version],
        )
        return self._bot(rows[0]) if rows else None

    def _bot(self, row) -> Bot:
        """A ``bots`` row; a relative ``path`` is relative to the database's folder (the copy
        moves with the database: ``results/`` can be moved or copied whole)."""
        bot = Bot(*row)
        if self.path is not None and not Path(bot.path).is_absolute():
            bot = dataclasses.replace(bot, path=str(self.path.parent.resolve() / bot.path))
        return bot

    def list_bots(self) -> list[Bot]:
        """Every bot version, by name then version (text order)."""
        rows = self._query(
            "SELECT name, version, author, manifest, content_hash, path, submitted_at FROM bots ORDER BY name, version"
        )
        return [self._bot(r) for r in rows]

    def _entrants(self, tournament: str) -> tuple[str, ...]:
        rows = self._query(
            "SELECT bot_name || '@' || bot_version FROM tournament_entrants WHERE tournament = ? ORDER BY position",
            [tournament],
        )
        return tuple(r[0] for r in rows)

    def entrants(self, tournament: str) -> list[tuple[str, str]]:
        """The tournament's entrants as ``(bot name, bot version)``, in order (empty if unknown)."""
        return [split_entrant(k) for k in self._entrants(tournament)]

    def get_tournament(self, name: str) -> Tournament | None:
        """The tournament with its entrants and stored board-pair count, or ``None``
        if there is none of that name."""
        rows = self._query(
            """SELECT name, ruleset, options, seed, boards_per_pair, created_at, status,
                      (SELECT count(*) FROM board_pairs p JOIN matches m USING (match_id) WHERE m.tournament = ?),
                      seed_secret, commitment,
                      (SELECT gauntlet FROM tournament_settings WHERE tournament = ?)
               FROM tournaments WHERE name = ?""",
            [name, name, name],
        )
        if not rows:
            return None
        n, ruleset, options, seed, boards, created, status, pairs, secret, commitment, gauntlet = rows[0]
        entrants = self._entrants(name)
        total = boards * Tournament(n, ruleset, {}, 0, boards, created, status, entrants, gauntlet=gauntlet).pairs
        shown = status
        if self.path is not None:  # an in-memory database has no other process to ask
            holder = RunLock(self.path).holder()
            shown = _shown_status(status, int(pairs), total, bool(holder) and holder.get("tournament") == name)
        if status != Status.COMPLETE.value and self.is_ladder(n):  # no total: "72 of 4 stored, complete"
            shown = Status.LADDER.value
        if shown in (Status.INTERRUPTED.value, Status.COMPLETE.value):  # an `arena sprt` test says how it ended
            ended = self._sprt_ended(name)
            if ended == "inconclusive":
                shown = Status.UNDECIDED.value
            elif ended is not None and shown == Status.INTERRUPTED.value:
                shown = Status.DECIDED.value
        return Tournament(n, ruleset, json.loads(options), int(seed), boards, created, shown,
                          entrants, int(pairs), bool(secret), commitment, status, gauntlet)

    def _sprt_ended(self, tournament: str) -> str | None:
        """How the ``arena sprt`` test played as ``tournament`` ended: ``"H0"`` or ``"H1"``
        (decided: it stops short of its ``max_boards`` on purpose), ``"inconclusive"`` (its
        ``max_boards`` played undecided); None for no test, one still running, or a database
        that predates the ``sprt_tests`` table."""
        try:
            rows = self.con.execute("SELECT status FROM sprt_tests WHERE tournament = ? AND status <> 'running'",
                                    [tournament]).fetchall()
        except duckdb.CatalogException:
            return None
        return rows[0][0] if rows else None

    def sprt_tests(self) -> list[dict]:
        """Every ``arena sprt`` test (table ``sprt_tests``) as a dict of its columns,
        newest first; empty where the database predates the table."""
        if not self._has_table("sprt_tests"):
            return []
        cur = self.con.execute("SELECT * FROM sprt_tests ORDER BY coalesce(created_at, updated_at) DESC, name")
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]

    def list_tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        names = self._query("SELECT name FROM tournaments ORDER BY created_at, name")
        return [t for (n,) in names if (t := self.get_tournament(n)) is not None]

    def _ruleset(self, tournament: str) -> str:
        """The tournament's ruleset (cached).

        Raises:
            StoreError: unknown tournament.
        """
        ruleset = self._rulesets.get(tournament)
        if ruleset is None:
            rows = self._query("SELECT ruleset FROM tournaments WHERE name = ?", [tournament])
            if not rows:
                raise StoreError(f"there is no tournament {tournament!r}: create it first")
            ruleset = self._rulesets[tournament] = rows[0][0]
        return ruleset

    def boards(self, tournament: str) -> list[Board]:
        """The tournament's stored boards, by number."""
        rows = self._query(
            "SELECT board, dealer, deck FROM boards WHERE tournament = ? ORDER BY board", [tournament]
        )
        return [Board(number=n, dealer=d, deck=tuple(Card.parse(t) for t in deck)) for n, d, deck in rows]

    def done_board_pairs(self, tournament: str) -> set[tuple[str, int]]:
        """The ``(match_id, board)`` of every board pair stored for the tournament."""
        rows = self._query(
            "SELECT p.match_id, p.board FROM board_pairs p JOIN matches m USING (match_id) WHERE m.tournament = ?",
            [tournament],
        )
        return set(rows)

    def done_keys(self, tournament: str) -> set[tuple[str, str, int]]:
        """The ``(a, b, board)`` of every stored board pair: the ``done_keys`` of
        ``arena.play.schedule.missing`` (``BoardPair.key``)."""
        rows = self._query(
            "SELECT m.entrant_a, m.entrant_b, p.board FROM board_pairs p JOIN matches m USING (match_id) "
            "WHERE m.tournament = ?",
            [tournament],
        )
        return set(rows)

    def last_pot(self, match_id: str, table_no: int, before: int | None = None) -> int:
        """The litige pot (points) carried out of the highest-numbered board stored
        for this match at table ``table_no`` (RULES.md §6.3, §8), of the boards numbered below
        ``before`` if given; 0 if none is stored.  What a resumed match carries into its next
        board (``before``) at that table."""
        rows = self._query(
            "SELECT pot FROM deals WHERE match_id = ? AND table_no = ? AND (?::INTEGER IS NULL OR board < ?) "
            "ORDER BY board DESC LIMIT 1",
            [match_id, table_no, before, before],
        )
        return rows[0][0] if rows else 0

    def stored_counts(self, tournament: str) -> dict[str, int]:
        """``{match_id: board pairs stored}`` for every match of the tournament with at least one
        (one small row per match: what a run needs up front, whatever the number of boards)."""
        rows = self._query(
            "SELECT p.match_id, count(*) FROM board_pairs p JOIN matches m USING (match_id) "
            "WHERE m.tournament = ? GROUP BY p.match_id",
            [tournament],
        )
        return {mid: n for mid, n in rows}

    def stored_boards(self, match_id: str) -> set[int]:
        """The board numbers stored for one match (what a resumed match skips)."""
        return {b for (b,) in self._query("SELECT board FROM board_pairs WHERE match_id = ?", [match_id])}

    def play_settings(self, tournament: str) -> dict[str, int] | None:
        """How ``tournament``'s matches are played: ``{name: value}`` of :data:`~arena.store.model.PLAY_SETTINGS`
        (ms, faults, CPU seconds, MiB), or None when none are stored (a tournament made by
        an older arena)."""
        try:
            rows = self.con.execute(f"SELECT {', '.join(PLAY_SETTINGS)} FROM tournament_settings WHERE tournament = ?",
                                    [tournament]).fetchall()
        except duckdb.CatalogException:  # an older database opened read-only: no such table yet
            return None
        except duckdb.Error as e:
            raise StoreError(f"database error: {e}") from None
        return dict(zip(PLAY_SETTINGS, rows[0])) if rows else None

    def deal_suite(self, tournament: str) -> DealSuiteRow | None:
        """The deal file ``tournament`` plays (``--deals``), or None: its boards are dealt from
        its seed (or the database predates deal suites)."""
        if not self._has_table("deal_suites"):
            return None
        rows = self._query("SELECT file_name, sha256, file_boards FROM deal_suites WHERE tournament = ?", [tournament])
        return DealSuiteRow(*rows[0]) if rows else None

    def bot_logs(self, match_id: str, board: int) -> list[tuple[int, int, str, str]]:
        """Where the output of the processes that held each seat of a board was kept:
        ``(table_no, seat, log_root, log_path)`` by table, seat and file (empty when none was
        kept, or the database predates it)."""
        if not self._has_table("bot_logs"):
            return []
        return [tuple(r) for r in self._query(
            "SELECT table_no, seat, log_root, log_path FROM bot_logs WHERE match_id = ? AND board = ? "
            "ORDER BY table_no, seat, log_path", [match_id, board])]

    def run_workers(self, tournament: str) -> int | None:
        """The ``--workers`` of ``tournament``'s last run that gave it (0 = auto: the machine's
        cores), or None: never given (or no settings stored)."""
        rows = self._query("SELECT workers FROM tournament_settings WHERE tournament = ?", [tournament])
        return rows[0][0] if rows else None

    def is_ladder(self, tournament: str) -> bool:
        """Whether ``tournament`` is the ladder of a competition (``NAME:ladder`` of a stored
        competition; still open when its stored status is not complete): blocks of boards,
        played until the competition closes, with no total to reach."""
        name, ladder, rest = tournament.rpartition(":ladder")
        return bool(ladder) and not rest and self._has_table("competitions") and bool(
            self.con.execute("SELECT 1 FROM competitions WHERE name = ?", [name]).fetchall())

    def _has_table(self, name: str) -> bool:
        """Whether the database holds table ``name`` (an old file opened read-only may lack a new one)."""
        return bool(self.con.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall())


class ResultReads:
    """Stored results: board pairs, matches, deal records, faults and decisions
    (a mixin of :class:`arena.store.ReadStore`)."""

    def board_pair_results(self, tournament: str | None = None, ruleset: str | None = None,
                           tournaments: Sequence[str] | None = None) -> BoardPairRows:
        """Every stored board pair as columns (for ratings), optionally only one
        tournament's, one ruleset's and/or those of the ``tournaments`` named. Never mix
        rulesets, nor RULES.md §6.4 options (select ``tournaments`` by
        :attr:`Tournament.variant_options`), in one rating list. ``entrants`` are those
        with a stored board pair (a match just begun adds none). The board pairs an SPRT
        test stored past its decision (played while its last block finished:
        :mod:`arena.stats.sprt`) are left out: a test counts what its decision used; so are a
        competition ladder's board pairs between two versions of one participant (placed, never
        rated against each other: the new-user trial saw the ladder's page rate them)."""
        where = "WHERE (?::VARCHAR IS NULL OR tournament = ?) AND (?::VARCHAR IS NULL OR ruleset = ?)"
        params: list = [tournament, tournament, ruleset, ruleset]
        if tournaments is not None:
            where += " AND list_contains(?::VARCHAR[], tournament)"
            params.append(list(tournaments))
        if self._has_table("compete_versions"):  # a ladder's placement between one owner's versions: unrated
            where += """ AND NOT EXISTS (
                SELECT 1 FROM compete_versions va JOIN compete_versions vb USING (competition, participant)
                WHERE matches.tournament = va.competition || ':ladder'
                  AND va.status IN ('active', 'retired') AND vb.status IN ('active', 'retired')
                  AND matches.entrant_a = va.bot_name || '@' || va.bot_version
                  AND matches.entrant_b = vb.bot_name || '@' || vb.bot_version)"""
        with_ = f"""
            WITH m AS (SELECT match_id, entrant_a, entrant_b FROM matches {where}
                       AND match_id IN (SELECT match_id FROM board_pairs)),
            e AS (SELECT entrant, (row_number() OVER (ORDER BY entrant) - 1)::BIGINT AS i
                  FROM (SELECT entrant_a AS entrant FROM m UNION SELECT entrant_b FROM m))
        """

        past_decision = """
                WHERE NOT EXISTS (SELECT 1 FROM sprt_tests s JOIN matches sm ON sm.tournament = s.tournament
                                  WHERE sm.match_id = p.match_id AND s.status <> 'running' AND p.nth > s.board_pairs)
                """ if self._has_table("sprt_tests") else ""

        def work():
            names = self.con.execute(with_ + "SELECT entrant FROM e ORDER BY i", params).fetchall()
            cols = self.con.execute(
                with_ + """
                SELECT ea.i AS a, eb.i AS b, p.board::BIGINT AS board, p.margin::BIGINT AS margin,
                       p.forfeit_a, p.forfeit_b
                FROM (SELECT *, row_number() OVER (PARTITION BY match_id ORDER BY board) AS nth FROM board_pairs) p
                JOIN m USING (match_id)
                JOIN e ea ON ea.entrant = m.entrant_a JOIN e eb ON eb.entrant = m.entrant_b
                """ + past_decision,
                params,
            ).fetchnumpy()
            return names, cols

        names, cols = self._transaction(work)
        return BoardPairRows(
            entrants=tuple(n for (n,) in names),
            a=np.asarray(cols["a"], np.int64), b=np.asarray(cols["b"], np.int64),
            board=np.asarray(cols["board"], np.int64), margin=np.asarray(cols["margin"], np.int64),
            forfeit_a=np.asarray(cols["forfeit_a"], np.bool_), forfeit_b=np.asarray(cols["forfeit_b"], np.bool_),
        )

    def matches(self, tournament: str | None = None, bot: str | None = None) -> list[MatchSummary]:
        """A summary of every match with at least one stored board pair, by match id.

        Args:
            tournament: only this tournament's matches.
            bot: only matches of this entrant (``"name@version"``) or of any
                version of this bot (``"name"``).
        """
        rows = self._query(
            """
            WITH f AS (SELECT match_id, count(*) AS n FROM faults GROUP BY match_id)
            SELECT m.match_id, m.tournament, m.entrant_a, m.entrant_b, m.ruleset,
                   count(*), sum(p.points_a), sum(p.points_b), sum(p.margin),
                   count(*) FILTER (WHERE p.forfeit_a), count(*) FILTER (WHERE p.forfeit_b),
                   coalesce(any_value(f.n), 0), count(*) FILTER (WHERE p.outcome_a = 'win'),
                   count(*) FILTER (WHERE p.outcome_a = 'draw'), count(*) FILTER (WHERE p.outcome_a = 'loss')
            FROM matches m JOIN board_pairs p USING (match_id) LEFT JOIN f USING (match_id)
            WHERE (?::VARCHAR IS NULL OR m.tournament = ?)
              AND (?::VARCHAR IS NULL OR ? IN (m.entrant_a, m.entrant_b)
                   OR ? IN (regexp_replace(m.entrant_a, '@[^@]*$', ''), regexp_replace(m.entrant_b, '@[^@]*$', '')))
            GROUP BY m.match_id, m.tournament, m.entrant_a, m.entrant_b, m.ruleset
            ORDER BY m.match_id
            """,
            [tournament, tournament, bot, bot, bot],
        )
        return [MatchSummary(*r[:5], *(int(x) for x in r[5:])) for r in rows]

    def match_record_lines(self, match_id: str) -> list[str]:
        """Every stored deal record of a match as JSON text (the ``deals.record`` column,
        a record as ``arena replay`` reads it), by board then table; empty for an unknown match."""
        return [r for (r,) in self._query(
            "SELECT record FROM deals WHERE match_id = ? ORDER BY board, table_no", [match_id])]

    def deal_records(self, match_id: str, board: int | None = None) -> list[TableResult]:
        """Both tables' results of a match's stored boards (or of one board), by
        board then table: deal record, outcome, suit permutation, every decision
        (with ms and fault) and every fault — what the referee produced.

        The outcome is rebuilt from the ``deals`` columns; its ``notes`` and
        ``redeal_same_dealer`` are not stored (replay the record for them).

        Raises:
            StoreError: no such match, or that board is not stored for it; a
                stored record the rules cannot parse.
        """
        if not self._query("SELECT 1 FROM matches WHERE match_id = ?", [match_id]):
            raise StoreError(f"there is no match {match_id!r}: see `arena matches` for the match ids")
        cond = "match_id = ?" + ("" if board is None else " AND board = ?")
        params = [match_id] + ([] if board is None else [board])

        def work():
            deals = self.con.execute(
                f"""SELECT board, table_no, ns_entrant, ew_entrant, permutation, record, contract, score_ns, score_ew,
                    taker, trump_mode, trump, trick_points_ns, trick_points_ew, tricks_won_ns, tricks_won_ew,
                    declarations_ns, declarations_ew, declaration_team, belote_ns, belote_ew, capot,
                    pot_in, pot_to, pot
                    FROM deals WHERE {cond} ORDER BY board, table_no""",
                params,
            ).fetchall()
            # a database last written before contree_calls existed, opened read-only, has no such table
            calls = self._has_table("contree_calls")
            acts = self.con.execute(
                f"SELECT board, table_no, seat, kind, value, ms, fault FROM ("
                f"SELECT board, table_no, idx, seat, kind, value, ms, fault FROM actions WHERE {cond}"
                + (f" UNION ALL SELECT board, table_no, idx, seat, 'call', value, ms, fault FROM contree_calls "
                   f"WHERE {cond}" if calls else "")
                + ") ORDER BY board, table_no, idx",
                params + params if calls else params,
            ).fetchall()
            faults = self.con.execute(
                f"SELECT kind, board, table_no, seat, entrant, detail FROM faults WHERE {cond} "
                "ORDER BY board, table_no, rowid",
                params,
            ).fetchall()
            return deals, acts, faults

        deals, acts, fault_rows = self._transaction(work)
        if not deals:
            stored = self._query("SELECT min(board), max(board), count(*) FROM board_pairs WHERE match_id = ?", [match_id])
            lo, hi, n = stored[0]
            have = f"its {n} stored boards are {lo}–{hi}" if n else "it has no stored boards yet"
            raise StoreError(f"board {board} of match {match_id!r} is not stored: {have}")
        decisions: dict[tuple[int, int], list[Decision]] = {}
        for b, t, seat, kind, value, ms, fault in acts:
            decisions.setdefault((b, t), []).append(Decision(seat, action_json(kind, value), ms, fault))
        faults: dict[tuple[int, int], list[Fault]] = {}
        for row in fault_rows:
            faults.setdefault((row[1], row[2]), []).append(Fault(*row))
        out = []
        for row in deals:
            (b, t, ns, ew, perm, record, contract, s_ns, s_ew, taker, mode, trump, tp_ns, tp_ew, tw_ns, tw_ew,
             d_ns, d_ew, d_team, be_ns, be_ew, capot, pot_in, pot_to, pot) = row
            try:
                rec = parse_record(json.loads(record))
            except RecordError as e:
                raise StoreError(f"the stored record of {match_id!r} board {b} table {t} is unreadable: {e}") from None
            outcome = DealOutcome(
                contract=contract, score=(s_ns, s_ew), taker=taker, trump_mode=mode, trump=trump,
                trick_points=(tp_ns, tp_ew), tricks_won=(tw_ns, tw_ew), declarations=(d_ns, d_ew),
                declaration_team=d_team, belote=(be_ns, be_ew), capot=capot, pot_in=pot_in, pot_to=pot_to, pot=pot,
            )
            out.append(TableResult(
                board=b, table=t, ns=ns, ew=ew, permutation=tuple(perm), record=rec, outcome=outcome,
                decisions=decisions.get((b, t), []), faults=faults.get((b, t), []),
            ))
        return out

    def board_pair_result(self, match_id: str, board: int) -> BoardPairResult:
        """One stored board pair rebuilt as the referee produced it (see :meth:`deal_records`).

        Raises:
            StoreError: no such match or board.
        """
        tables = self.deal_records(match_id, board)
        row = self._query(
            "SELECT m.entrant_a, m.entrant_b, p.forfeit_a, p.forfeit_b FROM board_pairs p "
            "JOIN matches m USING (match_id) WHERE match_id = ? AND board = ?",
            [match_id, board],
        )[0]
        return BoardPairResult(board=board, a=row[0], b=row[1], tables=(tables[0], tables[1]),
                               forfeit_a=row[2], forfeit_b=row[3])

    def match_boards(self, match_id: str) -> list[BoardPairSummary]:
        """Every stored board pair of a match, by board: both tables' contracts and
        scores and the duplicate margin (what a match page lists).

        Raises:
            StoreError: no such match.
        """
        if not self._query("SELECT 1 FROM matches WHERE match_id = ?", [match_id]):
            raise StoreError(f"there is no match {match_id!r}: see `arena matches` for the match ids")
        rows = self._query(
            """SELECT p.board, p.points_a, p.points_b, p.margin, p.forfeit_a, p.forfeit_b,
                      d.table_no, d.ns_entrant, d.ew_entrant, d.contract, d.taker, d.trump_mode, d.trump,
                      d.score_ns, d.score_ew, d.capot, d.pot, d.permutation
               FROM board_pairs p JOIN deals d USING (match_id, board)
               WHERE p.match_id = ? ORDER BY p.board, d.table_no""",
            [match_id],
        )
        out: dict[int, BoardPairSummary] = {}
        for r in rows:
            table = TableSummary(*r[6:-1], permutation=tuple(r[-1]))
            have = out.get(r[0])
            out[r[0]] = BoardPairSummary(*r[:6], tables=(have.tables if have else ()) + (table,))
        return list(out.values())

    def faults_before(self, match_id: str, board: int) -> dict[str, int]:
        """Faults stored for each entrant key of ``match_id`` at boards before ``board``: the
        count a resumed match goes on from (RULES.md-independent referee policy:
        :class:`referee.match.DuplicateMatch`)."""
        rows = self._query("SELECT entrant, count(*) FROM faults WHERE match_id = ? AND board < ? GROUP BY entrant",
                           [match_id, board])
        return {k: n for k, n in rows}

    def faults_of(self, tournament: str, entrant: str, limit: int = 20) -> list[dict]:
        """The newest ``limit`` faults of ``entrant`` (a key) in ``tournament``, newest board first:
        ``{"match_id", "board", "table", "seat", "kind", "detail"}`` each."""
        rows = self._query(
            """SELECT f.match_id, f.board, f.table_no, f.seat, f.kind, f.detail FROM faults f JOIN matches m
               USING (match_id) WHERE m.tournament = ? AND f.entrant = ?
               ORDER BY f.board DESC, f.table_no DESC, f.seat LIMIT ?""", [tournament, entrant, limit])
        return [{"match_id": m, "board": int(b), "table": int(t), "seat": int(s), "kind": k, "detail": d}
                for m, b, t, s, k, d in rows]

    def fault_counts(self, tournament: str | None = None, bot: str | None = None) -> list[tuple[str, str, int]]:
        """``(entrant, kind, count)`` of the stored faults, by entrant then kind, optionally
        only one tournament's and/or one bot's (``"name"`` or ``"name@version"``)."""
        return [
            (e, k, int(n)) for e, k, n in self._query(
                """SELECT f.entrant, f.kind, count(*) FROM faults f JOIN matches m USING (match_id)
                   WHERE (?::VARCHAR IS NULL OR m.tournament = ?)
                     AND (?::VARCHAR IS NULL OR f.entrant = ? OR regexp_replace(f.entrant, '@[^@]*$', '') = ?)
                   GROUP BY f.entrant, f.kind ORDER BY f.entrant, f.kind""",
                [tournament, tournament, bot, bot, bot],
            )
        ]

    def first_faults(self, tournament: str) -> list[tuple[str, str, int, str, int, int, int, str]]:
        """Per entrant and fault kind of ``tournament``: ``(entrant, kind, count, match_id, board,
        table, seat, detail)`` of its first fault (by match id, board, table, seat), by entrant
        then kind: where to look first."""
        return [
            (e, k, int(n), mid, int(b), int(t), int(s), d) for e, k, n, mid, b, t, s, d in self._query(
                """SELECT f.entrant, f.kind, count(*),
                          arg_min(f.match_id, (f.match_id, f.board, f.table_no, f.seat)),
                          arg_min(f.board, (f.match_id, f.board, f.table_no, f.seat)),
                          arg_min(f.table_no, (f.match_id, f.board, f.table_no, f.seat)),
                          arg_min(f.seat, (f.match_id, f.board, f.table_no, f.seat)),
                          arg_min(f.detail, (f.match_id, f.board, f.table_no, f.seat))
                   FROM faults f JOIN matches m USING (match_id) WHERE m.tournament = ?
                   GROUP BY f.entrant, f.kind ORDER BY f.entrant, f.kind""",
                [tournament],
            )
        ]

    def slowest_decisions(self, bot: str, limit: int = 10, skip: Sequence[str] = ()) -> list[SlowDecision]:
        """A bot's slowest decisions (wall ms of the call, slowest first) over every
        stored board, ``bot`` being ``"name"`` or ``"name@version"``; the referee's own
        actions (0 ms) are left out, and so are the decisions in the tournaments ``skip``
        (a final being played: its boards are not public yet). Read from the view
        ``entrant_actions`` (views.sql)."""
        rows = self._query(
            """SELECT match_id, board, table_no, idx, seat, entrant, kind, value, ms, fault
               FROM entrant_actions
               WHERE ms > 0 AND (entrant = ? OR regexp_replace(entrant, '@[^@]*$', '') = ?)
                 AND match_id NOT IN (SELECT match_id FROM matches WHERE list_contains(?, tournament))
               ORDER BY ms DESC, match_id, board, table_no, idx LIMIT ?""",
            [bot, bot, list(skip), max(0, int(limit))],
        )
        return [SlowDecision(*r) for r in rows]

    def write_batches(self, tournament: str, window_s: float = 60.0) -> list[tuple[datetime, int]]:
        """``(written_at, board pairs)`` of each write of the tournament's board pairs in
        the last ``window_s`` seconds before its newest write, oldest first: a batch is
        one :meth:`write_board_pairs` call (one ``written_at``). Empty with nothing stored."""
        return [
            (t, int(n)) for t, n in self._query(
                """WITH p AS (SELECT p.written_at FROM board_pairs p JOIN matches m USING (match_id)
                              WHERE m.tournament = ?)
                   SELECT written_at, count(*) FROM p
                   WHERE written_at >= (SELECT max(written_at) FROM p) - to_microseconds(?::BIGINT)
                   GROUP BY written_at ORDER BY written_at""",
                [tournament, int(window_s * 1e6)],
            )
        ]
