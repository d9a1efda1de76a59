"""The export of every table to Parquet or JSON lines (``arena export``), a secret seed
and its boards left out until the tournament is complete.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from .model import StoreError

#: Every table of the schema, in dependency order (the files :meth:`Store.export` writes).
TABLES: tuple[str, ...] = (
    "bots", "tournaments", "tournament_entrants", "boards", "matches", "board_pairs", "deals", "actions", "faults",
    "sprt_tests",
    "contree_calls",
    "tournament_settings",
    "competitions", "compete_participants", "compete_versions",
)

#: A tournament whose seed may be shown (SQL condition on ``tournaments``).
_REVEALED = "(NOT seed_secret OR status = 'complete')"

#: What :meth:`Store.export` writes of the tables that hold a secret (others: every row).
_EXPORTED = {
    "tournaments": f"SELECT * REPLACE (CASE WHEN {_REVEALED} THEN seed END AS seed) FROM tournaments",
    "boards": f"SELECT * FROM boards WHERE tournament IN (SELECT name FROM tournaments WHERE {_REVEALED})",
    "competitions": "SELECT * REPLACE (NULL::VARCHAR AS practice_seed) FROM competitions",  # never shown
    "compete_participants": "SELECT * REPLACE (NULL::VARCHAR AS token_hash) FROM compete_participants",
}


#: The competition server's tables (arena/compete/): absent from a database last written before them.
_COMPETE = ("competitions", "compete_participants", "compete_versions")


class Exporter:
    """The export (a mixin of :class:`arena.store.ReadStore`)."""

    def export(self, out_dir: str | Path, fmt: str = "parquet") -> list[Path]:
        """Write every table to ``out_dir/<table>.parquet`` or ``.jsonl`` (one JSON
        object per line) with DuckDB ``COPY``; return the paths, in :data:`TABLES` order.

        A secret seed is written only once its tournament is complete (``seed`` is
        NULL before; ``commitment`` is always there), and so are the tournament's
        ``boards`` rows (the decks the seed deals). Results already played
        (``deals``, ``actions``) are written whatever the status.

        Raises:
            StoreError: an unknown format; the directory cannot be created or written.
        """
        if fmt not in ("parquet", "jsonl"):
            raise StoreError(f"unknown export format {fmt!r}: expected parquet or jsonl")
        out = Path(out_dir).expanduser()
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the export directory {out}: {e.strerror or e}") from None
        option = "FORMAT parquet" if fmt == "parquet" else "FORMAT json"
        paths = []
        for table in TABLES:
            if table in ("contree_calls", "sprt_tests", "tournament_settings", *_COMPETE) and not self._has_table(table):
                continue  # a database last written before the table existed, opened read-only
            path = out / f"{table}.{fmt}"
            literal = str(path).replace("'", "''")
            try:
                self.con.execute(f"COPY ({_EXPORTED.get(table, f'FROM {table}')}) TO '{literal}' ({option})")
            except duckdb.Error as e:
                raise StoreError(f"cannot export {table} to {path}: {e}") from None
            paths.append(path)
        return paths
