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
    "competitions", "compete_participants", "compete_versions", "ladder_units",
    "dd_deals", "dd_cards",
    "deal_suites", "bot_logs",
    "compete_final_choices", "compete_challenges",
)

#: The views of ``views.sql``, exported after the tables (their rows, as files).
VIEWS: tuple[str, ...] = ("entrant_board_pairs", "entrant_actions")

#: The file :func:`write_loader` writes beside an export.
LOADER = "load.sql"

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
_COMPETE = ("competitions", "compete_participants", "compete_versions", "ladder_units", "compete_final_choices",
            "compete_challenges")


class Exporter:
    """The export (a mixin of :class:`arena.store.ReadStore`)."""

    def export(self, out_dir: str | Path, fmt: str = "parquet") -> list[Path]:
        """Write every table to ``out_dir/<table>.parquet`` or ``.jsonl`` (one JSON
        object per line) with DuckDB ``COPY``, then the rows of the views of
        ``views.sql`` (:data:`VIEWS`: ``entrant_board_pairs``, ``entrant_actions``)
        the same way; return the paths, in :data:`TABLES` then :data:`VIEWS` order.
        :func:`write_loader` then makes the folder queryable under the same names.

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
        views = {name for (name,) in self.con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
        for table in TABLES + VIEWS:
            if table in ("contree_calls", "sprt_tests", "tournament_settings", *_COMPETE, "dd_deals", "dd_cards",
                         "deal_suites", "bot_logs") \
                    and not self._has_table(table):
                continue  # a database last written before the table existed, opened read-only
            if table in VIEWS and table not in views:
                continue  # likewise a view (views are made on an open for writing)
            path = out / f"{table}.{fmt}"
            literal = str(path).replace("'", "''")
            try:
                self.con.execute(f"COPY ({_EXPORTED.get(table, f'FROM {table}')}) TO '{literal}' ({option})")
            except duckdb.Error as e:
                raise StoreError(f"cannot export {table} to {path}: {e}") from None
            paths.append(path)
        return paths


def write_loader(out_dir: str | Path, paths: list[Path], fmt: str) -> Path:
    """Write ``out_dir/load.sql``: one DuckDB view per exported file, named as the file.

    Run in DuckDB (``duckdb -init load.sql`` in the folder, or
    ``con.execute(Path('load.sql').read_text())``), it gives the export the names of
    the database (tables, the views of ``views.sql``, and any other file listed, e.g.
    ``ratings``), so SQL written for the database runs on the export. File names are
    relative; ``file_search_path`` is set to the folder as written, and DuckDB
    also looks in the working directory (a moved folder: run it from inside).

    Args:
        out_dir: the export folder.
        paths: the files written there (``<name>.parquet`` or ``<name>.jsonl``).
        fmt: ``"parquet"`` or ``"jsonl"``.

    Returns:
        The path of ``load.sql``.

    Raises:
        StoreError: the file cannot be written.
    """
    out = Path(out_dir).expanduser().resolve()
    reader = "read_parquet" if fmt == "parquet" else "read_json_auto"
    lines = ["-- Belote Arena export: each file as a view named as in the database (arena export).",
             f"SET file_search_path = '{str(out).replace(chr(39), chr(39) * 2)}';"]
    for path in paths:
        name = Path(path).name.rsplit(".", 1)[0]
        file = Path(path).name.replace("'", "''")
        lines.append(f'CREATE OR REPLACE VIEW "{name}" AS FROM {reader}(\'{file}\');')
    loader = out / LOADER
    try:
        loader.write_text("\n".join(lines) + "\n")
    except OSError as e:
        raise StoreError(f"cannot write {loader}: {e.strerror or e}") from None
    return loader
