"""The Node.js and C++ toolchains, for the tests that build and play bots in those languages
(and the buf CLI, an npm package, for the protocol's lint and breaking-change checks).

A missing toolchain FAILS the test (never a skip), saying how to install it, as the browser
tests do for Chromium; ``.ci/run`` installs them when run as root. The starters of
``sample_bots/`` are set up once per test process (each worker of ``make test`` in turn) by the commands ``arena bots new --build``
runs (:data:`arena.play.newbot.LANGUAGES`): ``npm ci`` only when ``node_modules`` is older
than ``package-lock.json`` (it needs the npm registry, or npm's cache), the C++ build every
time (CMake rebuilds nothing that is up to date).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.play.newbot import LANGUAGES, Language, NewBotError, missing, set_up

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"
#: the starters' folders by language
STARTERS = {"node": SAMPLES / "node", "cpp": SAMPLES / "cpp"}
#: the protocol's folder: its package.json pins the buf CLI (npm's @bufbuild/buf)
PROTOS = Path(__file__).resolve().parents[1] / "protos"


def install_message(language: Language, gone: list[str]) -> str:
    return (f"the {language.title} bots' tests need {', '.join(gone)}, not found here: install with "
            f"`{language.install}` (Debian, as root; .ci/run does it)")


def require(lang: str) -> Language:
    """``lang``'s :class:`Language`; a missing program or library fails the test, saying how to install it."""
    language = LANGUAGES[lang]
    if gone := missing(language):
        pytest.fail(install_message(language, gone), pytrace=False)
    return language


_built: set[str] = set()


@contextlib.contextmanager
def _setting_up(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` (``flock`` on the folder itself) while it is checked and set up:
    the worker processes of ``make test`` (pytest-xdist) each set a starter up once, and a second
    ``npm ci`` or CMake build in the same folder at the same time would break the first."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # drops the lock


def _fresh(folder: Path) -> bool:
    """Whether ``folder``'s node_modules was installed from its current package-lock.json."""
    installed = folder / "node_modules" / ".package-lock.json"
    return installed.exists() and installed.stat().st_mtime >= (folder / "package-lock.json").stat().st_mtime


def starter(lang: str) -> Path:
    """The starter bot of ``lang`` (``node``, ``cpp``), set up and ready to play (once per session)."""
    language, folder = require(lang), STARTERS[lang]
    if lang not in _built:
        with _setting_up(folder):
            if not (lang == "node" and _fresh(folder)):
                try:
                    set_up(folder, language)
                except NewBotError as e:
                    pytest.fail(f"the {language.title} starter could not be set up: {e}", pytrace=False)
        _built.add(lang)
    return folder


def buf() -> Path:
    """The buf CLI of ``protos/`` (``protos/node_modules/.bin/buf``, a Node.js launcher of the
    pinned binary), installed by ``npm ci`` from its package-lock.json when missing or older than
    it (.ci/run installs it first). No node or npm, or an install that fails, fails the test."""
    language = require("node")
    if "buf" not in _built:
        with _setting_up(PROTOS):
            if not _fresh(PROTOS):
                try:
                    set_up(PROTOS, language)
                except NewBotError as e:
                    pytest.fail(f"buf could not be installed in {PROTOS}: {e}", pytrace=False)
        _built.add("buf")
    return PROTOS / "node_modules" / ".bin" / "buf"
