"""What the whole suite shares: the environment that processes started by the tests inherit.

pytest imports GNU readline before it loads any conftest (its capture plugin's workaround),
and readline exports ``COLUMNS`` and ``LINES`` (80 and 24 without a terminal) into the
process's C environment, though not into ``os.environ``.  Every process started with the
inherited environment took them: among them the pytest-xdist workers of ``make test``, where
they are in ``os.environ``, so the arena's console (arena/cli/base.py) wrapped its output at
80 columns instead of the 200 of an output that is no terminal.  They are taken out again
here, unless the environment pytest was started with sets them.

The CPU caches' clearing before each turn of a visiting bot (``referee.evict``, ~25-100 ms a
turn on this machine's 210 MiB L3) is a guard against one channel, and every bot of the tests
is a visitor (a copy of a house bot with its own manifest).  It is off (``ARENA_CLEAR_CACHES=0``,
``referee.sandbox.clear_caches_default``) during each test that does not check it, and the
environment is left as it was for those marked ``clearing`` (the attack tests, those of the
clearing itself and of the forced moves' timing), so they run as the arena does.  (Set for the
whole session at import instead, the forced moves' timing control decoded less: 0.63-0.70
against 0.74 needed, 3 runs of 3, and passed with the variable set only around other tests.)
``ARENA_CLEAR_CACHES=1 make test`` runs every test with it.

Passed conformance checks are kept for the session in a folder of its own
(``ARENA_CHECK_CACHE``, arena/play/submit.py), not the user's cache: a sample bot submitted to
a new database by each of a hundred tests is checked once (~10 s each), and no test meets a pass
kept by an earlier run or by the user's own arena.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

for _name in ("COLUMNS", "LINES"):
    if _name not in os.environ:
        os.unsetenv(_name)

_OWN_CHECK_CACHE = None
if "ARENA_CHECK_CACHE" not in os.environ:  # the xdist workers inherit it: one folder for the whole run
    os.environ["ARENA_CHECK_CACHE"] = _OWN_CHECK_CACHE = tempfile.mkdtemp(prefix="arena-checks-")


def pytest_unconfigure(config):
    if _OWN_CHECK_CACHE is not None:
        shutil.rmtree(_OWN_CHECK_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _cache_clearing(request, monkeypatch):
    """The caches' clearing off for a test not marked ``clearing`` (see the module's docstring),
    unless the environment pytest was started with sets ``ARENA_CLEAR_CACHES``."""
    if request.node.get_closest_marker("clearing") is None and "ARENA_CLEAR_CACHES" not in os.environ:
        monkeypatch.setenv("ARENA_CLEAR_CACHES", "0")
