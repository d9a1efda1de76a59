"""Guards of the referee tests: every test is bounded in time (no pytest-timeout here).

``@pytest.mark.guard(seconds)`` sets a test's limit (default 90 s). At the limit a
``GuardTimeout`` is raised in the test (SIGALRM), which unwinds the match and so
stops its bot processes; 30 s later faulthandler dumps the stacks and exits.

And no test may leave a child process behind (checked after each test, over and
above the tests' own checks of their bots' working folders).
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time

import pytest

from referee import evict, image
from referee.sandbox import GUARDIAN_NAME

from . import botkit

DEFAULT_GUARD_S = 90


class GuardTimeout(Exception):
    """A referee test ran past its guard."""


@pytest.fixture(autouse=True)
def _time_guard(request):
    marker = request.node.get_closest_marker("guard")
    seconds = float(marker.args[0]) if marker else DEFAULT_GUARD_S

    def on_alarm(signum, frame):
        raise GuardTimeout(f"{request.node.nodeid} ran past its {seconds:.0f} s guard")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(seconds + 30, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()


def _children() -> set[int]:
    me, out = os.getpid(), set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me and not _is_guardian(pid):
                        out.add(int(pid))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _is_guardian(pid: str) -> bool:
    """The referee's guardian (referee.sandbox._guardian), its image helper (referee.image) and
    its cache-clearing helpers (referee.evict) live as long as the test process."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
            return any(name.encode() in cmd for name in (GUARDIAN_NAME, image.HELPER, evict.HELPER))
    except OSError:
        return False


@pytest.fixture(autouse=True)
def _no_child_left():
    before = _children()
    botkit.CHILDREN_BEFORE = before  # another module's fixture's server (pytest-xdist mixes modules)
    yield
    deadline = time.monotonic() + 3
    while (left := _children() - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, f"child processes left behind: {sorted(left)}"
