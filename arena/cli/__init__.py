"""The ``arena`` command line (typer + rich), one module per command group.

Thin commands calling service functions; diagnostics on stderr; domain errors
become a one-line ``error:`` message and a non-zero exit, never a traceback.

``base.py`` holds the app and what commands share; the commands register on import,
in the order ``arena --help`` lists them: ``match.py`` (replay, match), ``bots.py``,
``tournament.py``, ``housekeeping.py`` (tournament delete, rename), ``ratings.py`` (ratings, plan), ``sprt.py``,
``results.py`` (matches, log, export, serve), ``analyze.py`` (double-dummy analysis), ``compete.py`` (a competition's server, for its organiser),
``remote.py`` (entering one from another machine).
"""

from __future__ import annotations

import signal

# the commands register as they are imported, in the order `arena --help` lists them
from . import match, bots, tournament, housekeeping, ratings, sprt, results, analyze  # noqa: F401, I001
from . import compete, remote  # noqa: F401, I001
from .base import app

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover - console entry point
    from ..play.malloc import few_malloc_arenas

    few_malloc_arenas()  # memory flat in the length of a run (before any thread starts)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    app()
