"""The writes that set a tournament up: bots (:meth:`EntryWriter.add_bot`), tournaments,
their entrants, status and play settings. Only :class:`arena.store.Store` has them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from .model import (
    PLAY_SETTINGS, Bot, Status, StoreError, Tournament, _entrant_parts, _json, _now, entrant_key, seed_commitment,
    split_entrant,
)

#: Seeds are integers with fewer than 257 bits (a secret seed has 256).
_MAX_SEED = 2**256 - 1


class EntryWriter:
    """Bots, tournaments, entrants, status and play settings (a mixin of :class:`arena.store.Store`)."""

    def add_bot(
        self,
        name: str,
        version: str,
        author: str | None,
        manifest: str,
        content_hash: str,
        path: str | Path,
        submitted_at: datetime | None = None,
    ) -> Bot:
        """Register a bot version (arguments in the order of the ``bots`` columns):
        ``manifest`` is the bot.toml text, ``path`` its frozen copy, ``submitted_at``
        naive UTC (default now).

        Adding the same (name, version) with the same ``content_hash`` again
        returns the stored bot unchanged.

        Raises:
            StoreError: an empty name or version, a name or version containing
                ``@``, or (name, version) already stored with another content hash.
        """
        for what, value in (("name", name), ("version", version)):
            if not isinstance(value, str) or not value or "@" in value:
                raise StoreError(f"bot {what} must be a non-empty text without '@', got {value!r}")
        old = self.get_bot(name, version)
        if old is not None:
            if old.content_hash != content_hash:
                raise StoreError(
                    f"bot {name}@{version} is already stored with other content (hash {old.content_hash}): "
                    "give the new files a new version"
                )
            return old
        bot = Bot(name, version, author, manifest, content_hash, str(path), submitted_at or _now())
        self._query(
            "INSERT INTO bots (name, version, author, manifest, content_hash, path, submitted_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [bot.name, bot.version, bot.author, bot.manifest, bot.content_hash, bot.path, bot.submitted_at],
        )
        return bot

    def create_tournament(
        self,
        name: str,
        ruleset_name: str,
        options: Mapping,
        seed: int,
        boards: int,
        entrants: Sequence[str | tuple[str, str]] = (),
        *,
        secret: bool = False,
        created_at: datetime | None = None,
    ) -> Tournament:
        """Create a tournament (status ``running``), or return it if it exists with the same settings.

        Args:
            name: the tournament's name (it prefixes its match ids).
            ruleset_name: ``classic``, ``strict``, ``all-trumps`` or ``two-player``.
            options: the resolved ruleset options (``Ruleset.options()``), JSON-able.
            seed: the tournament seed, an integer with ``|seed| < 2**256``
                (``arena.play.schedule.new_seed`` for a secret one).
            boards: boards per pair, ≥ 1.
            secret: the seed is secret (drawn at random): shown only once the tournament
                is complete. ``False`` for a seed given by hand. Its commitment
                (:func:`~arena.store.model.seed_commitment`) is stored either way.
            entrants: entrant keys ``"name@version"`` or ``(name, version)``, in
                order (the order decides who is A in each pair); more can be
                added later with :meth:`add_entrants`.

        An existing tournament is returned (status unchanged) when ruleset,
        options, seed and boards are the same and its entrants are the given
        ones or a prefix of them (or none are given); entrants given after the
        stored ones are appended (extending a tournament).

        Raises:
            StoreError: a bad seed, boards or entrant; the name exists with
                another ruleset, options, seed or number of boards (a secret seed is
                not named in the message), or with entrants that are not a prefix of
                ``entrants``.
        """
        if not isinstance(name, str) or not name or "/" in name:
            raise StoreError(f"tournament name must be a non-empty text without '/', got {name!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or not -_MAX_SEED <= seed <= _MAX_SEED:
            raise StoreError(f"seed must be an integer of at most 256 bits, got {seed!r}")
        if not isinstance(boards, int) or isinstance(boards, bool) or boards < 1:
            raise StoreError(f"boards per pair must be an integer >= 1, got {boards!r}")
        try:
            options_json = _json(dict(options))
        except (TypeError, ValueError) as e:
            raise StoreError(f"ruleset options must be JSON-able: {e}") from None
        keys = [entrant_key(*_entrant_parts(e)) for e in entrants]

        def work() -> None:
            old = self.con.execute(
                "SELECT ruleset, options, seed, seed_secret, boards_per_pair FROM tournaments WHERE name = ?", [name]
            ).fetchall()
            if old:
                ruleset0, options0, seed0, secret0, boards0 = old[0]
                diffs = [
                    f"{what} {a!r} (asked {b!r})"
                    for what, a, b in (("ruleset", ruleset0, ruleset_name), ("boards per pair", boards0, boards))
                    if a != b
                ]
                if int(seed0) != seed:
                    diffs.insert(1, "another (secret) seed" if secret0 else f"seed {int(seed0)!r} (asked {seed!r})")
                if json.loads(options0) != json.loads(options_json):
                    diffs.append("other ruleset options")
                if diffs:
                    raise StoreError(
                        f"tournament {name!r} already exists with " + ", ".join(diffs)
                        + ": choose another tournament name"
                    )
            else:
                self.con.execute(
                    "INSERT INTO tournaments (name, ruleset, options, seed, seed_secret, commitment, boards_per_pair, "
                    "created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [name, ruleset_name, options_json, str(seed), bool(secret), seed_commitment(seed), boards,
                     created_at or _now(), Status.RUNNING.value],
                )
            if keys:
                self._add_entrants(name, keys, must_extend=True)

        self._transaction(work)
        t = self.get_tournament(name)
        assert t is not None
        return t

    def _add_entrants(self, tournament: str, keys: list[str], *, must_extend: bool) -> None:
        if len(set(keys)) != len(keys):
            raise StoreError(f"entrants of {tournament!r} must be different, got {keys}")
        have = self._entrants(tournament)
        if must_extend and keys[: len(have)] != list(have):
            raise StoreError(
                f"tournament {tournament!r} has the entrants {', '.join(have)}: list them first, "
                "in that order (new entrants go at the end), or choose another tournament name"
            )
        new = [k for k in keys if k not in have]
        if new and self.con.execute(
            "SELECT 1 FROM tournaments WHERE name = ? AND seed_secret AND status = ?", [tournament, Status.COMPLETE.value]
        ).fetchall():
            raise StoreError(
                f"tournament {tournament!r} is complete and its secret seed is revealed: a new entrant "
                f"({', '.join(new)}) could know every board. Enter it in a new tournament "
                "(arena tournament run NEW --bots DIR ...)"
            )
        if new:
            parts = [split_entrant(k) for k in new]
            self.con.execute(
                "INSERT INTO tournament_entrants (tournament, position, bot_name, bot_version) "
                "SELECT ?, unnest(?) , unnest(?), unnest(?)",
                [tournament, list(range(len(have), len(have) + len(new))),
                 [p[0] for p in parts], [p[1] for p in parts]],
            )

    def add_entrants(self, tournament: str, entrants: Sequence[str | tuple[str, str]]) -> tuple[str, ...]:
        """Append the entrants not yet in the tournament (in the given order); return all its entrants.

        Raises:
            StoreError: unknown tournament; a malformed or repeated entrant; a new entrant
                in a complete tournament whose secret seed is therefore revealed.
        """
        self._ruleset(tournament)
        keys = [entrant_key(*_entrant_parts(e)) for e in entrants]
        self._transaction(lambda: self._add_entrants(tournament, keys, must_extend=False))
        return self._entrants(tournament)

    def set_tournament_status(self, name: str, status: Status | str) -> None:
        """Set the status: ``running``, ``complete`` or ``interrupted``.

        Raises:
            StoreError: unknown tournament or status.
        """
        try:
            status = Status(status)
            if status in (Status.INCOMPLETE, Status.DECIDED, Status.UNDECIDED):
                raise ValueError(status)
        except ValueError:
            raise StoreError(
                f"unknown tournament status {status!r}: expected one of {', '.join(s.value for s in Status)}"
            ) from None
        self._ruleset(name)
        self._query("UPDATE tournaments SET status = ? WHERE name = ?", [status.value, name])

    def set_play_settings(self, tournament: str, settings: Mapping[str, int]) -> None:
        """Store how ``tournament``'s matches are played (every name of :data:`~arena.store.model.PLAY_SETTINGS`).

        Raises:
            StoreError: a name is missing.
        """
        missing = [k for k in PLAY_SETTINGS if k not in settings]
        if missing:
            raise StoreError(f"play settings without {', '.join(missing)}")
        self._query(f"INSERT OR REPLACE INTO tournament_settings (tournament, {', '.join(PLAY_SETTINGS)}) "
                    f"VALUES (?, {', '.join('?' * len(PLAY_SETTINGS))})",
                    [tournament, *(int(settings[k]) for k in PLAY_SETTINGS)])

    def set_run_options(self, tournament: str, *, workers: int | None = None, gauntlet: str | None = None) -> None:
        """Remember a run's ``workers`` (0 = auto; a resume without ``--workers`` plays with
        it) and set a new tournament's ``gauntlet`` entrant ``name@version``; None leaves a
        value as it is.  The play settings (:meth:`set_play_settings`) must be stored first.

        Raises:
            StoreError: no play settings are stored for ``tournament``.
        """
        if not self._query("SELECT 1 FROM tournament_settings WHERE tournament = ?", [tournament]):
            raise StoreError(f"tournament {tournament!r} has no play settings stored: store them first")
        if workers is not None:
            self._query("UPDATE tournament_settings SET workers = ? WHERE tournament = ?", [int(workers), tournament])
        if gauntlet is not None:
            self._query("UPDATE tournament_settings SET gauntlet = ? WHERE tournament = ?", [gauntlet, tournament])

    def set_deal_suite(self, tournament: str, file_name: str, sha256: str, file_boards: int) -> None:
        """Record that ``tournament`` plays a deal suite (``--deals FILE``): the file's name, the
        SHA-256 of its bytes (hex) and its number of boards.  The boards themselves go to
        :meth:`add_boards`.

        Raises:
            StoreError: unknown tournament.
        """
        self._ruleset(tournament)
        self._query("INSERT OR REPLACE INTO deal_suites VALUES (?, ?, ?, ?)",
                    [tournament, file_name, sha256, int(file_boards)])

    def add_bot_logs(self, rows: Sequence[tuple[str, int, int, int, str, str]]) -> None:
        """Record where bot processes' output was kept: ``(match_id, board, table_no, seat,
        log_root, log_path)`` rows (``log_path`` relative to the ``--logs`` folder ``log_root``);
        a row already stored is skipped."""
        if rows:
            self._transaction(lambda: self.con.executemany(
                "INSERT OR IGNORE INTO bot_logs VALUES (?, ?, ?, ?, ?, ?)", [list(r) for r in rows]))

    def _match_tables(self) -> list[str]:
        """The tables whose rows belong to a match (``match_id``, no foreign key): what a
        tournament's matches hold, those of an older database that exist."""
        return [t for t in ("actions", "contree_calls", "faults", "deals", "board_pairs", "bot_logs")
                if self._has_table(t)]

    def delete_tournament(self, name: str) -> None:
        """Delete tournament ``name`` and everything stored for it: entrants, boards, matches,
        board pairs, deals, actions, faults, settings, an ``arena sprt`` test's row.  Its bots
        stay registered.  Two transactions (DuckDB checks a foreign key against the rows of the
        transaction's start): the rows that point at the tournament, then the tournament; a
        crash between leaves an empty tournament of that name, which a second delete removes.

        Raises:
            StoreError: no tournament ``name``.
        """
        self._ruleset(name)
        matches = "SELECT match_id FROM matches WHERE tournament = ?"

        def children() -> None:
            for table in self._match_tables():
                self.con.execute(f"DELETE FROM {table} WHERE match_id IN ({matches})", [name])
            for table in ("matches", "boards", "tournament_entrants", "tournament_settings", "sprt_tests",
                          "deal_suites"):
                if self._has_table(table):
                    self.con.execute(f"DELETE FROM {table} WHERE tournament = ?", [name])

        self._transaction(children)
        self._transaction(lambda: self.con.execute("DELETE FROM tournaments WHERE name = ?", [name]))
        self._rulesets.pop(name, None)

    def rename_tournament(self, old: str, new: str) -> None:
        """Rename tournament ``old`` to ``new``, its match ids too (``new/A~B``), and an ``arena
        sprt`` test of the old name.  Two transactions, as :meth:`delete_tournament`: the
        tournament under its new name with every row moved to it, then the old name's row; a
        crash between leaves an empty tournament of the old name (delete it).

        Raises:
            StoreError: no tournament ``old``, or one named ``new`` exists.
        """
        self._ruleset(old)
        if self._query("SELECT 1 FROM tournaments WHERE name = ?", [new]):
            raise StoreError(f"a tournament named {new!r} exists: choose another name, or delete it first")
        renamed = "? || substr(match_id, length(?) + 1)"  # "old/A~B" -> "new/A~B"
        matches = "SELECT match_id FROM matches WHERE tournament = ?"

        def move() -> None:
            con = self.con
            con.execute("INSERT INTO tournaments SELECT * REPLACE (? AS name) FROM tournaments WHERE name = ?", [new, old])
            for table in self._match_tables():
                con.execute(f"UPDATE {table} SET match_id = {renamed} WHERE match_id IN ({matches})", [new, old, old])
            for table in ("tournament_entrants", "boards"):
                con.execute(f"INSERT INTO {table} SELECT * REPLACE (? AS tournament) FROM {table} WHERE tournament = ?",
                            [new, old])
                con.execute(f"DELETE FROM {table} WHERE tournament = ?", [old])
            con.execute(f"INSERT INTO matches SELECT * REPLACE ({renamed} AS match_id, ? AS tournament) FROM matches "
                        "WHERE tournament = ?", [new, old, new, old])
            con.execute("DELETE FROM matches WHERE tournament = ?", [old])
            con.execute("UPDATE tournament_settings SET tournament = ? WHERE tournament = ?", [new, old])
            if self._has_table("deal_suites"):
                con.execute("UPDATE deal_suites SET tournament = ? WHERE tournament = ?", [new, old])
            if self._has_table("sprt_tests"):
                con.execute("UPDATE sprt_tests SET tournament = ?, name = CASE WHEN name = ? THEN ? ELSE name END "
                            "WHERE tournament = ?", [new, old, new, old])

        self._transaction(move)
        self._transaction(lambda: self.con.execute("DELETE FROM tournaments WHERE name = ?", [old]))
        self._rulesets.pop(old, None)
