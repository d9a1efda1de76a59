"""The writer of what a tournament plays: its boards (:meth:`Writer.add_boards`), its
matches and its board pairs (:meth:`Writer.write_board_pairs`: every row of a batch in
one transaction, with bulk inserts from the Arrow tables staged by :func:`_stage`).
Only :class:`arena.store.Store` has it; a read-only store does not.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from referee.records import BoardPairResult
from referee.rules import Board

from .connection import _wal_path
from .model import StoreError, _now, action_value

#: A writer checkpoints the database (moves its write-ahead log into the file) after a write
#: that leaves the log this big or bigger, bytes (DuckDB checkpoints at each close); see
#: :func:`arena.store.connection._writer_settings`.
WAL_CHECKPOINT = 2 * 2**20

#: :meth:`Store.add_boards` stores this many boards at a time.
BOARDS_AT_ONCE = 500


class _AlreadyStored(Exception):
    """Internal: a board pair of the write is already stored (rolls the transaction back)."""


# --------------------------------------------------------------------------
# Arrow staging schemas (column names = schema.sql)
# --------------------------------------------------------------------------

_I32, _STR, _BOOL = pa.int32(), pa.string(), pa.bool_()
_TS = pa.timestamp("us")
_BOARD_PAIRS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("points_a", _I32), ("points_b", _I32), ("margin", _I32),
    ("forfeit_a", _BOOL), ("forfeit_b", _BOOL), ("written_at", _TS), ("outcome_a", _STR),
])
_DEALS = pa.schema(
    [("match_id", _STR), ("board", _I32), ("table_no", _I32), ("ns_entrant", _STR), ("ew_entrant", _STR),
     ("permutation", pa.list_(_I32)), ("dealer", _I32), ("deck", pa.list_(_STR)), ("contract", _STR),
     ("taker", _I32), ("trump_mode", _STR), ("trump", _STR)]
    + [(f"{name}_{team}", _I32) for name in ("trick_points", "tricks_won", "declarations") for team in ("ns", "ew")]
    + [("declaration_team", _I32), ("belote_ns", _I32), ("belote_ew", _I32), ("capot", _I32),
       ("score_ns", _I32), ("score_ew", _I32), ("pot_in", _I32), ("pot_to", _I32), ("pot", _I32), ("record", _STR)]
)
_ACTIONS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("table_no", _I32), ("idx", _I32), ("seat", _I32),
    ("kind", _STR), ("value", _STR), ("ms", pa.float64()), ("fault", _STR),
])
_CALLS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("table_no", _I32), ("idx", _I32), ("seat", _I32),
    ("value", _STR), ("ms", pa.float64()), ("fault", _STR),
])
_FAULTS = pa.schema([
    ("match_id", _STR), ("board", _I32), ("table_no", _I32), ("seat", _I32), ("entrant", _STR),
    ("kind", _STR), ("detail", _STR),
])


@dataclass(frozen=True)
class _Pair:
    """The entrants of a match (what :meth:`Store._match_rows` reads of a result)."""

    a: str
    b: str


class _Columns:
    """Column lists for one staged table, filled row by row in Python, inserted in one statement."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self.cols: dict[str, list] = {name: [] for name in schema.names}

    def table(self) -> pa.Table:
        return pa.table(self.cols, schema=self.schema)


class Writer:
    """The writes of boards, matches and board pairs (a mixin of :class:`arena.store.Store`)."""

    def _insert(self, table: str, data: pa.Table) -> None:
        """Bulk insert of a staged Arrow table whose columns are the table's, in order
        (``tests/store/test_store.py`` checks the staging schemas against ``schema.sql``)."""
        if data.num_rows:
            self.con.from_arrow(data).insert_into(table)

    def add_match(self, tournament: str, match_id: str, entrant_a: str, entrant_b: str,
                  ruleset: str | None = None) -> None:
        """Create the ``matches`` row of a match before its first board pair (optional:
        :meth:`write_board_pairs` creates it too). Idempotent.

        Raises:
            StoreError: unknown tournament; ``ruleset`` given and not the
                tournament's; the match id stored with another tournament or entrants.
        """
        have = self._ruleset(tournament)
        if ruleset is not None and ruleset != have:
            raise StoreError(f"tournament {tournament!r} is played under {have}, not {ruleset}")
        if entrant_a == entrant_b:
            raise StoreError(f"match {match_id!r}: entrants A and B are both {entrant_a!r}")

        def work():
            new = self._match_rows(tournament, [(match_id, _Pair(entrant_a, entrant_b))])
            self._insert_matches(new, have)
            return new

        self._matches.update(self._transaction(work))

    def add_boards(self, tournament: str, boards: Iterable[Board]) -> int:
        """Store a tournament's boards (deck in the board's own suits, i.e. table 1's);
        return how many were new. A board already stored with the same dealer and
        deck is skipped. One transaction (all or nothing), taking the boards
        :data:`BOARDS_AT_ONCE` at a time, so that what it builds does not grow with
        the number of boards (issue 14 item 3; DuckDB itself holds the rows written
        until the connection closes: a tournament run releases the store right after).

        Raises:
            StoreError: unknown tournament; a deck that is not 32 cards; a board
                already stored with another dealer or deck.
        """
        self._ruleset(tournament)
        con = self.con

        def add(chunk: dict[int, tuple[int, list[str]]]) -> int:
            given = pa.table({
                "tournament": pa.array([tournament] * len(chunk), _STR),
                "board": pa.array(list(chunk), _I32),
                "dealer": pa.array([d for d, _ in chunk.values()], _I32),
                "deck": pa.array([deck for _, deck in chunk.values()], pa.list_(_STR)),
            })
            con.register("_given_boards", given)
            try:
                clash = con.execute(
                    "SELECT min(g.board) FROM _given_boards g JOIN boards b USING (tournament, board) "
                    "WHERE b.dealer <> g.dealer OR b.deck <> g.deck"
                ).fetchall()[0][0]
                if clash is not None:
                    raise StoreError(
                        f"board {clash} of {tournament!r} is already stored with another dealer or deck: "
                        "a tournament's boards never change"
                    )
                return con.execute(
                    "INSERT INTO boards SELECT * FROM _given_boards "
                    "WHERE board NOT IN (SELECT board FROM boards WHERE tournament = ?) ORDER BY board",
                    [tournament],
                ).fetchall()[0][0]
            finally:
                con.unregister("_given_boards")

        def work() -> int:
            new, chunk = 0, {}
            for b in boards:
                deck = [str(c) for c in b.deck]
                if len(deck) != 32:
                    raise StoreError(f"board {b.number}: a deck has 32 cards, got {len(deck)}")
                chunk[b.number] = (b.dealer, deck)
                if len(chunk) >= BOARDS_AT_ONCE:
                    new, chunk = new + add(chunk), {}
            return new + add(chunk) if chunk else new

        return self._transaction(work)

    def write_board_pair(self, tournament: str, match_id: str, result: BoardPairResult) -> bool:
        """Write one board pair in one transaction; see :meth:`write_board_pairs`.

        Returns:
            True if written, False if that (match_id, board) was already stored (nothing written).
        """
        return self.write_board_pairs(tournament, [(match_id, result)]) == 1

    def write_board_pairs(self, tournament: str, results: Iterable[tuple[str, BoardPairResult]],
                          *, also: Callable[[], object] | None = None) -> int:
        """Write board pairs — ``board_pairs``, both ``deals``, every ``actions`` and
        ``faults`` row, and each new ``matches`` row — in **one transaction** (all or
        nothing), with one bulk insert per table.

        Args:
            tournament: the tournament (it must exist).
            results: ``(match_id, result)`` pairs. The first write of a match id
                creates its ``matches`` row with entrants ``result.a`` / ``result.b``
                and the tournament's ruleset.

        Speed (bench/store_bench.py): a call costs a few statements of about
        a millisecond each whatever its size, so one board pair per call
        writes ~100 board pairs/s and batches of 100 ~2,000–2,800/s. The single
        writer should pass every result waiting in its queue in one call.

        Returns:
            How many board pairs were written. Board pairs already stored are
            skipped (a no-op: the stored rows stay as they are).

        Raises:
            StoreError: unknown tournament; a malformed result (tables not 1 and 2,
                boards or entrants that disagree, an unknown action shape); a
                match id already used by another tournament or other entrants;
                the same board pair twice in ``results``; any database error.
                Nothing is written then. Any other exception raised during the
                write also rolls it back and propagates.

        ``also()`` (if given) makes more writes in the same transaction, after the board
        pairs (a competition's ladder marks its unit done with them: all or none).

        A write that checkpoints (the log past :data:`WAL_CHECKPOINT`) then lets go of the
        connection (:meth:`release`; the next use reconnects, with nothing to replay): DuckDB's
        buffer pool keeps every block a connection wrote or read until the memory limit (80%
        of the machine), so a store held for weeks (the competition server's) grew ~9 KiB a
        board pair; released at each checkpoint it stays flat (``bench/compete_bench.py``).
        """
        ruleset = self._ruleset(tournament)
        items = list(results)
        keys = [(mid, r.board) for mid, r in items]
        if len(set(keys)) != len(keys):
            raise StoreError("the same board pair is given twice in one write")
        for mid, r in items:
            _check_result(mid, r)
        if not items and also is None:
            return 0

        def write(rows, retry=False):
            out = self._write(tournament, ruleset, rows, retry=retry) if rows else (0, {})
            if also is not None:
                also()
            return out

        try:
            written, new_matches = self._transaction(lambda: write(items))
        except _AlreadyStored:
            # Rare (a rerun, a result delivered twice): drop the stored ones and write the rest.
            done = self._stored_keys(keys)
            items = [(mid, r) for mid, r in items if (mid, r.board) not in done]
            if not items and also is None:
                return 0
            written, new_matches = self._transaction(lambda: write(items, retry=True))
        self._matches.update(new_matches)
        if self.path is not None and _wal_path(self.path).exists() and \
                _wal_path(self.path).stat().st_size >= WAL_CHECKPOINT:
            self._checkpoint()
            self.release()  # DuckDB's buffer pool would keep every block written (issue 22: a server lives for weeks)
        return written

    def _write(self, tournament: str, ruleset: str, items, *, retry: bool = False):
        """The body of :meth:`write_board_pairs`' transaction: matches, then one bulk
        insert per table. Relies on the board_pairs primary key to detect a board
        pair already stored (cheaper than looking each one up first)."""
        new_matches = self._match_rows(tournament, items)
        self._insert_matches(new_matches, ruleset)
        bp, deals, actions, faults, calls = _stage(items)
        try:
            self._insert("board_pairs", bp)
        except duckdb.ConstraintException:
            if retry:
                raise
            raise _AlreadyStored from None
        self._insert("deals", deals)
        self._insert("actions", actions)
        self._insert("faults", faults)
        if calls.num_rows:
            self._insert("contree_calls", calls)
        return len(items), new_matches

    def _insert_matches(self, new: dict[str, tuple[str, str, str]], ruleset: str) -> None:
        if new:
            self._insert("matches", pa.table({
                "match_id": pa.array(list(new), _STR),
                "tournament": pa.array([v[0] for v in new.values()], _STR),
                "entrant_a": pa.array([v[1] for v in new.values()], _STR),
                "entrant_b": pa.array([v[2] for v in new.values()], _STR),
                "ruleset": pa.array([ruleset] * len(new), _STR),
            }))

    def _match_rows(self, tournament: str, items) -> dict[str, tuple[str, str, str]]:
        """The matches rows to create; raise if a match id is stored with other values."""
        new: dict[str, tuple[str, str, str]] = {}
        for mid, r in items:
            want = (tournament, r.a, r.b)
            have = self._matches.get(mid) or new.get(mid)
            if have is None:
                rows = self.con.execute(
                    "SELECT tournament, entrant_a, entrant_b FROM matches WHERE match_id = ?", [mid]
                ).fetchall()
                if rows:
                    have = self._matches[mid] = tuple(rows[0])
                else:
                    new[mid] = have = want
            if have != want:
                raise StoreError(
                    f"match {mid!r} is stored for tournament {have[0]!r} between {have[1]} (A) and {have[2]} (B), "
                    f"not {want[0]!r} between {want[1]} and {want[2]}: use arena.store.match_id(tournament, a, b)"
                )
        return new

    def _stored_keys(self, keys: list[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of the (match_id, board) keys are stored (point look-ups on the primary key)."""
        con = self.con
        if len(keys) <= 16:
            found = set()
            for mid, board in keys:
                if con.execute(
                    "SELECT 1 FROM board_pairs WHERE match_id = ? AND board = ?", [mid, board]
                ).fetchall():
                    found.add((mid, board))
            return found
        mids = sorted({m for m, _ in keys})
        rows = con.execute(
            "SELECT match_id, board FROM board_pairs WHERE match_id IN (SELECT unnest(?))", [mids]
        ).fetchall()
        wanted = set(keys)
        return {k for k in rows if k in wanted}


def _check_result(mid: str, r: BoardPairResult) -> None:
    """Consistency checks on a result before writing (no database access)."""
    where = f"match {mid!r} board {r.board}"
    if not isinstance(mid, str) or not mid:
        raise StoreError(f"match id must be a non-empty text, got {mid!r}")
    if r.a == r.b:
        raise StoreError(f"{where}: entrants A and B are both {r.a!r}")
    if len(r.tables) != 2 or sorted(t.table for t in r.tables) != [1, 2]:
        raise StoreError(f"{where}: a board pair has tables 1 and 2, got {[t.table for t in r.tables]}")
    for t in r.tables:
        if t.board != r.board:
            raise StoreError(f"{where}: table {t.table} played board {t.board}")
        if {t.ns, t.ew} != {r.a, r.b}:
            raise StoreError(f"{where}: table {t.table} is {t.ns} v {t.ew}, not {r.a} v {r.b}")
        if sorted(t.permutation) != [0, 1, 2, 3]:
            raise StoreError(f"{where}: table {t.table} permutation {t.permutation!r} is not one of the 4 suits")
        for f in t.faults:
            if f.board != r.board or f.table != t.table:
                raise StoreError(f"{where}: table {t.table} holds a fault of board {f.board} table {f.table}")


def _stage(items: list[tuple[str, BoardPairResult]]) -> tuple[pa.Table, pa.Table, pa.Table, pa.Table, pa.Table]:
    """The five staged tables (board_pairs, deals, actions, faults, contree_calls) of some board pairs."""
    now = _now()
    bp, deals, acts, faults = _Columns(_BOARD_PAIRS), _Columns(_DEALS), _Columns(_ACTIONS), _Columns(_FAULTS)
    calls = _Columns(_CALLS)
    b_cols, d_cols, a_cols, f_cols, c_cols = bp.cols, deals.cols, acts.cols, faults.cols, calls.cols
    for mid, r in items:
        for name, value in (
            ("match_id", mid), ("board", r.board), ("points_a", r.points_a), ("points_b", r.points_b),
            ("margin", r.margin), ("forfeit_a", bool(r.forfeit_a)), ("forfeit_b", bool(r.forfeit_b)),
            ("written_at", now), ("outcome_a", r.outcome_a),
        ):
            b_cols[name].append(value)
        for t in sorted(r.tables, key=lambda t: t.table):
            o = t.outcome
            rec = t.record
            row = {
                "match_id": mid, "board": r.board, "table_no": t.table, "ns_entrant": t.ns, "ew_entrant": t.ew,
                "permutation": list(t.permutation), "dealer": rec.dealer, "deck": [str(c) for c in rec.deck],
                "contract": o.contract, "taker": o.taker, "trump_mode": o.trump_mode, "trump": o.trump,
                "trick_points_ns": o.trick_points[0], "trick_points_ew": o.trick_points[1],
                "tricks_won_ns": o.tricks_won[0], "tricks_won_ew": o.tricks_won[1],
                "declarations_ns": o.declarations[0], "declarations_ew": o.declarations[1],
                "declaration_team": o.declaration_team, "belote_ns": o.belote[0], "belote_ew": o.belote[1],
                "capot": o.capot, "score_ns": o.score[0], "score_ew": o.score[1],
                "pot_in": o.pot_in, "pot_to": o.pot_to, "pot": o.pot,
                "record": json.dumps(rec.to_json(), separators=(",", ":")),
            }
            for name, value in row.items():
                d_cols[name].append(value)
            for i, d in enumerate(t.decisions):
                try:
                    kind, value = action_value(d.action)
                except StoreError as e:
                    raise StoreError(f"match {mid!r} board {r.board} table {t.table} decision {i}: {e}") from None
                cols = c_cols if kind == "call" else a_cols  # contrée calls: table contree_calls (§6.4)
                cols["match_id"].append(mid)
                cols["board"].append(r.board)
                cols["table_no"].append(t.table)
                cols["idx"].append(i)
                cols["seat"].append(d.seat)
                if kind != "call":
                    cols["kind"].append(kind)
                cols["value"].append(value)
                cols["ms"].append(float(d.ms))
                cols["fault"].append(d.fault)
            for f in t.faults:
                for name, value in (
                    ("match_id", mid), ("board", r.board), ("table_no", t.table), ("seat", f.seat),
                    ("entrant", f.entrant), ("kind", f.kind), ("detail", f.detail),
                ):
                    f_cols[name].append(value)
    try:
        return bp.table(), deals.table(), acts.table(), faults.table(), calls.table()
    except (pa.ArrowException, TypeError, ValueError) as e:
        raise StoreError(f"a result holds a value of the wrong type: {e}") from None
