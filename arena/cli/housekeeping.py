"""``arena tournament delete|rename``: housekeeping of stored tournaments."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .base import (DEFAULT_DB, DbOption, check_tournament_name, console, did_you_mean, fail, open_store,
                   tournament_app)

YesOption = Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")]


def _refuse_running(db: Path, *names: str) -> None:
    """Refuse (exit 1) while an arena runs one of ``names`` in ``db`` (it holds the run lock)."""
    from ..store import RunLock

    holder = RunLock(db).holder()
    if holder is not None and holder.get("tournament") in names:
        raise fail(f"tournament {holder['tournament']!r} is running (arena pid {holder.get('pid', '?')} holds "
                   f"{db.name}.run-lock): stop it first (Ctrl-C), then run this again")


def _writer(db: Path, name: str):
    """The database's run lock, held for ``name`` while it changes: no run starts meanwhile.

    Raises:
        StoreError: another arena runs a tournament of this database (wait for it)."""
    from ..store import RunLock

    lock = RunLock(db)
    lock.acquire(name)
    return lock


def _existing(store, name: str, db: Path):
    t = store.get_tournament(name)
    if t is None:
        names = [x.name for x in store.list_tournaments()]
        raise fail(f"no tournament {name!r} in {db}{did_you_mean(name, names)}: see `arena tournament list`")
    return t


@tournament_app.command("delete")
def tournament_delete(
    name: Annotated[str, typer.Argument(help="tournament name")],
    yes: YesOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Delete a tournament and everything stored for it (board pairs, deals, moves, faults).

    Its bots stay registered. Asks for confirmation unless --yes; a tournament that
    is running (its run lock held) is refused.
    """
    from ..store import StoreError

    _refuse_running(db, name)
    store = open_store(db, must_exist=True)
    try:
        t = _existing(store, name, db)
        if not yes:
            store.release()  # let reports (and runs) in while the question waits
            typer.confirm(f"delete tournament {name!r} ({t.status}, {t.board_pairs} board pairs stored)?",
                          abort=True)
        _refuse_running(db, name)  # it may have started meanwhile
        with _writer(db, name):
            store.delete_tournament(name)
    except StoreError as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    console.print(f"deleted tournament [bold]{escape(name)}[/] ({t.board_pairs} board pairs)", highlight=False)


@tournament_app.command("rename")
def tournament_rename(
    old: Annotated[str, typer.Argument(metavar="OLD", help="the tournament's name")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="its new name (no '/' or control characters)")],
    yes: YesOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Rename a tournament (its match ids too: NEW/A~B).

    Asks for confirmation unless --yes; a tournament that is running (its run lock
    held) is refused.
    """
    from ..store import StoreError

    check_tournament_name(new)
    _refuse_running(db, old, new)
    store = open_store(db, must_exist=True)
    try:
        t = _existing(store, old, db)
        if store.get_tournament(new) is not None:
            raise fail(f"a tournament named {new!r} exists in {db}: choose another name, or delete it first")
        if not yes:
            store.release()
            typer.confirm(f"rename tournament {old!r} ({t.board_pairs} board pairs stored) to {new!r}?", abort=True)
        _refuse_running(db, old, new)
        with _writer(db, old):
            store.rename_tournament(old, new)
    except StoreError as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    console.print(f"renamed tournament [bold]{escape(old)}[/] to [bold]{escape(new)}[/]", highlight=False)
