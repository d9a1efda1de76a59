"""The schema and its migrations: ``schema.sql`` (tables, documented there) and
``views.sql`` beside this module, applied at each open for writing; an older database is
upgraded then, version 1 to 2 (:func:`_upgrade_1_to_2`), 2 to 3 (:func:`_upgrade_2_to_3`), 3 to 4
(:func:`_upgrade_3_to_4`), 4 to 5 (:func:`_upgrade_4_to_5`) and 5 to 6 (:func:`_upgrade_5_to_6`). A
version 4 or 5 database opened read-only is read as it is: versions 5 and 6 only add tables (the
double-dummy cache, the ladder's units), which their readers find empty.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import duckdb

from .model import StoreError, seed_commitment

#: The layout version of ``schema.sql``; older ones are upgraded on open for writing, newer ones refused.
SCHEMA_VERSION = 6


def _schema_sql(name: str = "schema.sql") -> str:
    return resources.files("arena.store").joinpath(name).read_text(encoding="utf-8")


def migrate(con: duckdb.DuckDBPyConnection, p: Path | None, *, read_only: bool) -> int | None:
    """Make or check the schema of a new connection and return the database's schema
    version (``None`` if it has none): on an open for writing, apply ``schema.sql``,
    upgrade an older database to :data:`SCHEMA_VERSION` and make the views of
    ``views.sql``; read-only, only read the version.

    Raises:
        StoreError: an older database opened read-only (``con`` is closed then).
        duckdb.Error: any database error (``Connection.open`` says what it means).
    """
    if not read_only:
        con.execute(_schema_sql())
    rows = con.execute("SELECT version FROM schema_version").fetchall()
    if not rows and not read_only:
        con.execute("INSERT INTO schema_version VALUES (?)", [SCHEMA_VERSION])
        rows = [(SCHEMA_VERSION,)]
    if rows and rows[0][0] in (1, 2, 3):
        if read_only:
            con.close()
            raise StoreError(
                f"{p} was written by an older arena (schema version {rows[0][0]}): open it once for "
                f"writing (e.g. `arena tournament run NAME --db PATH`) to upgrade it to version {SCHEMA_VERSION}"
            )
        if rows[0][0] == 1:
            _upgrade_1_to_2(con)
        if rows[0][0] <= 2:
            _upgrade_2_to_3(con)
        _upgrade_3_to_4(con)
        _upgrade_4_to_5(con)
        _upgrade_5_to_6(con)
        rows = [(SCHEMA_VERSION,)]
    elif rows and rows[0][0] in (4, 5) and not read_only:
        if rows[0][0] == 4:
            _upgrade_4_to_5(con)
        _upgrade_5_to_6(con)
        rows = [(SCHEMA_VERSION,)]
    if rows and rows[0][0] in (4, 5) and read_only:
        rows = [(SCHEMA_VERSION,)]  # read as version 6 without the tables added since (their readers check)
    if not read_only:
        con.execute(_schema_sql("views.sql"))
    return rows[0][0] if rows else None


def _upgrade_1_to_2(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 1 database to version 2, in one transaction.

    Version 1 held ``tournaments.seed`` as a ``BIGINT``; version 2 holds it as decimal
    text with ``seed_secret`` (false: those seeds were given or defaulted, never
    secret) and ``commitment``. DuckDB cannot alter a table that foreign keys point
    at, so ``tournaments`` and the tables pointing at it (``tournament_entrants``,
    ``boards``, ``matches``) are copied aside, dropped, created by ``schema.sql`` and
    filled again.
    """
    moved = ("tournament_entrants", "boards", "matches")
    con.begin()
    try:
        con.execute("CREATE TEMP TABLE _v1_tournaments AS FROM tournaments")
        for table in moved:
            con.execute(f"CREATE TEMP TABLE _v1_{table} AS FROM {table}")
        for table in (*reversed(moved), "tournaments"):
            con.execute(f"DROP TABLE {table}")
        con.execute(_schema_sql())
        rows = con.execute(
            "SELECT name, ruleset, options, seed, boards_per_pair, created_at, status FROM _v1_tournaments"
        ).fetchall()
        if rows:
            con.executemany(
                "INSERT INTO tournaments (name, ruleset, options, seed, seed_secret, commitment, boards_per_pair, "
                "created_at, status) VALUES (?, ?, ?, ?, false, ?, ?, ?, ?)",
                [[n, r, o, str(seed), seed_commitment(int(seed)), b, c, st] for n, r, o, seed, b, c, st in rows],
            )
        for table in moved:
            con.execute(f"INSERT INTO {table} FROM _v1_{table}")
            con.execute(f"DROP TABLE _v1_{table}")
        con.execute("DROP TABLE _v1_tournaments")
        con.execute("UPDATE schema_version SET version = 2")  # then 3: _upgrade_2_to_3
        con.commit()
    except BaseException:
        _rollback(con)
        raise


def _upgrade_2_to_3(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 2 database to version 3, in one transaction: add
    ``board_pairs.outcome_a`` (A's win, draw or loss as ratings count it, RULES.md
    §8: a forfeit loses whatever the margin) and fill it from the stored rows."""
    con.begin()
    try:
        con.execute("ALTER TABLE board_pairs ADD COLUMN outcome_a VARCHAR")
        con.execute("""UPDATE board_pairs SET outcome_a = CASE
                         WHEN forfeit_a AND forfeit_b THEN 'draw' WHEN forfeit_a THEN 'loss' WHEN forfeit_b THEN 'win'
                         WHEN margin > 0 THEN 'win' WHEN margin < 0 THEN 'loss' ELSE 'draw' END""")
        con.execute("UPDATE schema_version SET version = 3")
        con.commit()
    except BaseException:
        _rollback(con)
        raise


def _upgrade_3_to_4(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 3 database to version 4, in one transaction: add the
    tournament settings ``time_bank_ms``, ``time_increment_ms`` (0: a tournament made before
    was played without a bank), ``workers`` and ``gauntlet`` (NULL: a round robin)."""
    con.begin()
    try:
        have = {c for (c,) in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'tournament_settings'").fetchall()}
        for column in ("time_bank_ms INTEGER NOT NULL DEFAULT 0", "time_increment_ms INTEGER NOT NULL DEFAULT 0",
                       "workers INTEGER", "gauntlet VARCHAR"):
            if column.split()[0] not in have:  # a version 1 or 2 database got the table whole from schema.sql
                con.execute(f"ALTER TABLE tournament_settings ADD COLUMN {column}")
        con.execute("UPDATE schema_version SET version = 4")
        con.commit()
    except BaseException:
        _rollback(con)
        raise


def _upgrade_4_to_5(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 4 database to version 5: the double-dummy analysis cache
    (``dd_deals``, ``dd_cards``), which ``schema.sql`` has just made; only the version moves."""
    con.execute("UPDATE schema_version SET version = 5")


def _upgrade_5_to_6(con: duckdb.DuckDBPyConnection) -> None:
    """Upgrade a schema version 5 database to version 6: the competition ladder's units
    (``ladder_units``), which ``schema.sql`` has just made; only the version moves."""
    con.execute("UPDATE schema_version SET version = 6")


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back, ignoring "no transaction" (DuckDB may have ended it already)."""
    try:
        con.rollback()
    except duckdb.Error:
        pass
