"""The double-dummy analysis cache (tables ``dd_deals`` and ``dd_cards``, documented in
``schema.sql``, schema version 5): :class:`AnalysisReads` for every store,
:class:`AnalysisWriter` for :class:`arena.store.Store` only. ``arena/analysis/boards.py``
computes the rows on demand (``arena analyze``) and is their one writer; a tournament
never writes them.

Rows are plain tuples in column order: a deal row ``(match_id, board, table_no,
solver_version, ns_entrant, ew_entrant, trick_points_ns, trick_points_ew, score_ns,
score_ew, points_lost_ns, points_lost_ew)`` and card rows ``(match_id, board, table_no,
play, trick, seat, card, best_card, best_points, points)``. Points are game points.
"""

from __future__ import annotations

from collections.abc import Sequence

DEAL_COLUMNS = ("match_id", "board", "table_no", "solver_version", "ns_entrant", "ew_entrant", "trick_points_ns",
                "trick_points_ew", "score_ns", "score_ew", "points_lost_ns", "points_lost_ew")
CARD_COLUMNS = ("match_id", "board", "table_no", "play", "trick", "seat", "card", "best_card", "best_points",
                "points")


class AnalysisReads:
    """Reads of the double-dummy cache (a mixin of :class:`arena.store.ReadStore`)."""

    def dd_deals(self, match_id: str, solver_version: int, board: int | None = None) -> list[tuple]:
        """The cached deal rows of a match (or one board) made by ``solver_version``, by board
        then table; empty when none (or a version 4 database opened read-only)."""
        if not self._has_table("dd_deals"):
            return []
        cond = "" if board is None else " AND board = ?"
        return self._query(f"SELECT {', '.join(DEAL_COLUMNS)} FROM dd_deals WHERE match_id = ? "
                           f"AND solver_version = ?{cond} ORDER BY board, table_no",
                           [match_id, solver_version] + ([] if board is None else [board]))

    def dd_cards(self, match_id: str, board: int | None = None) -> list[tuple]:
        """The cached card rows of a match (or one board), by board, table and play."""
        if not self._has_table("dd_cards"):
            return []
        cond = "" if board is None else " AND board = ?"
        return self._query(f"SELECT {', '.join(CARD_COLUMNS)} FROM dd_cards WHERE match_id = ?{cond} "
                           "ORDER BY board, table_no, play", [match_id] + ([] if board is None else [board]))

    def dd_points_lost(self, solver_version: int, tournament: str | None = None,
                       tournaments: Sequence[str] | None = None) -> dict[str, tuple[float, int]]:
        """Per entrant: (points lost to double dummy per board, boards counted), over the
        boards whose two tables are both analysed by ``solver_version`` (RULES.md §8: an
        entrant's board is its seats' cards at both tables). Entrants without one are absent."""
        if not self._has_table("dd_deals"):
            return {}
        names = list(tournaments) if tournaments is not None else [tournament] if tournament is not None else None
        where = "" if names is None else " AND m.tournament IN (SELECT unnest(?))"
        rows = self._query(
            f"""WITH t AS (
                    SELECT d.match_id, d.board, d.ns_entrant AS entrant, d.points_lost_ns AS lost
                    FROM dd_deals d JOIN matches m USING (match_id) WHERE d.solver_version = ?{where}
                    UNION ALL
                    SELECT d.match_id, d.board, d.ew_entrant, d.points_lost_ew
                    FROM dd_deals d JOIN matches m USING (match_id) WHERE d.solver_version = ?{where}),
                boards AS (SELECT match_id, board, entrant, sum(lost) AS lost, count(*) AS tables
                           FROM t GROUP BY ALL)
                SELECT entrant, avg(lost), count(*) FROM boards WHERE tables = 2 GROUP BY entrant""",
            ([solver_version] + ([names] if names is not None else [])) * 2,
        )
        return {e: (float(x), int(n)) for e, x, n in rows}


class AnalysisWriter:
    """Writes of the double-dummy cache (a mixin of :class:`arena.store.Store`)."""

    def write_dd(self, deals: Sequence[tuple], cards: Sequence[tuple]) -> None:
        """Store analysed deals (replacing any cached rows of the same tables) and their cards,
        in one transaction."""

        def work():
            for d in deals:
                self.con.execute("DELETE FROM dd_deals WHERE match_id = ? AND board = ? AND table_no = ?", list(d[:3]))
                self.con.execute("DELETE FROM dd_cards WHERE match_id = ? AND board = ? AND table_no = ?", list(d[:3]))
            if deals:
                self.con.executemany(f"INSERT INTO dd_deals ({', '.join(DEAL_COLUMNS)}) VALUES "
                                     f"({', '.join('?' * len(DEAL_COLUMNS))})", [list(d) for d in deals])
            if cards:
                self.con.executemany(f"INSERT INTO dd_cards ({', '.join(CARD_COLUMNS)}) VALUES "
                                     f"({', '.join('?' * len(CARD_COLUMNS))})", [list(c) for c in cards])

        self._transaction(work)
