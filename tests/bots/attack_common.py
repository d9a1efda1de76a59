"""Shared by the attack bots (tests/bots/attack_*, issue 9): how an attack reports.

The attack test kit (tests/referee/attackkit.py) copies this file beside each
attack bot's ``bot.py``. A bot writes one JSON line per attempt to
``OUT/<token>.jsonl``, where ``OUT`` is a host folder the test binds read-write
(``Limits(writable=...)``) and ``token`` names the process (pids repeat across
PID namespaces)::

    {"attack": "partner:dev-shm-file", "result": "blocked: No such file or directory",
     "token": "...", "uid": 1500000007, "seat": 2, ...}

``result`` is ``"blocked: <why>"`` (an errno's text, or what was missing) or
``"SUCCEEDED: <what>"``. A test asserts that no attempt succeeded *and* that
every expected attempt was made, so a bot that died early cannot pass by silence.
"""

from __future__ import annotations

import ctypes
import json
import os
import time
import uuid
import zlib

TOKEN = uuid.uuid4().hex[:12]
libc = ctypes.CDLL(None, use_errno=True)


def why(exc: BaseException) -> str:
    """An exception as the reason an attempt was blocked: the errno's text when there is one."""
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno)
    return f"{type(exc).__name__}: {exc}"[:200]


def check(rc: int, what: str) -> int:
    """A libc call's result, or OSError(errno) when it is -1."""
    if rc == -1:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
    return rc


def visible_pids() -> list[str]:
    """The process ids this process sees in ``/proc``: listed, or found one by one where the
    sandbox denies listing ``/proc``.  The sandbox has no procfs (SECURITY.md "The inode
    numbers", issue 19): none, there."""
    try:
        return [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return [str(n) for n in range(1, 1 << 16) if os.path.isdir(f"/proc/{n}")]


def live_pids() -> list[int]:
    """The processes this one can name: those listed in ``/proc`` (:func:`visible_pids`), or,
    where there is none to list (the sandbox has no procfs), every pid below 65,536 for which
    ``kill(pid, 0)`` does not fail with ESRCH (it exists, whether or not it may be signalled)."""
    try:  # not visible_pids(): its one-by-one search finds nothing there, slowly
        listed = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        listed = []
    if listed:
        return listed
    out = []
    for n in range(1, 1 << 16):
        try:
            os.kill(n, 0)
        except ProcessLookupError:
            continue
        except OSError:
            pass
        out.append(n)
    return out


def own_threads() -> list[int]:
    """This process's thread ids: listed from ``/proc/self/task``, or, without a procfs (the
    sandbox's), found by ``tgkill(own pid, tid, 0)``, which succeeds for a thread of this
    process only."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        pid, tgkill = os.getpid(), {"x86_64": 234, "aarch64": 131}[os.uname().machine]
        return [n for n in range(1, 1 << 16) if libc.syscall(tgkill, pid, n, 0) == 0]


def own_children() -> list[int]:
    """This process's live children, without procfs: ``waitid(WNOWAIT)`` on each pid, which
    fails (ECHILD) for a process that is not a child of this one."""
    out = []
    for n in range(1, 1 << 16):
        try:
            os.waitid(os.P_PID, n, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            continue
        out.append(n)
    return out


def open_fds(top: int = 1024) -> list[int]:
    """This process's open descriptors below ``top``, found by ``os.fstat`` (no ``/proc/self/fd``
    in the sandbox)."""
    out = []
    for fd in range(top):
        try:
            os.fstat(fd)
        except OSError:
            continue
        out.append(fd)
    return out


def describe_fd(fd: int) -> str:
    """What an open descriptor is, from ``os.fstat``: its type, device and inode."""
    import stat

    st = os.fstat(fd)
    kind = next((k for k, f in (("socket", stat.S_ISSOCK), ("pipe", stat.S_ISFIFO), ("dir", stat.S_ISDIR),
                                ("file", stat.S_ISREG), ("char", stat.S_ISCHR), ("block", stat.S_ISBLK))
                 if f(st.st_mode)), "other")
    return f"{kind}:{st.st_dev}:{st.st_ino}"


def run(argv: list[str], timeout: float = 10.0) -> tuple[int, str, str]:
    """Run a command, as ``subprocess.run(capture_output=True)`` would, without a pipe: once the
    match has begun the sandbox makes none (SECURITY.md "The inode numbers"), so its output goes
    to files in ``/tmp``.  Returns (exit status, or -signal; stdout; stderr); killed at ``timeout``."""
    import shutil
    import signal
    import tempfile

    path = shutil.which(argv[0]) or argv[0]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            pid = os.posix_spawn(path, argv, dict(os.environ), file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        finally:
            os.close(devnull)
        deadline = time.monotonic() + timeout
        while (done := os.waitpid(pid, os.WNOHANG)) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                done = os.waitpid(pid, 0)
                break
            time.sleep(0.01)
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(f.read().decode(errors="replace"))
    return os.waitstatus_to_exitcode(done[1]), texts[0], texts[1]


def ipc_key(*parts: str) -> int:
    """A fixed System V IPC key for ``parts`` (both partners compute the same one)."""
    return (zlib.crc32("/".join(parts).encode()) & 0x3FFFFFFF) | 0x40000000


class Reporter:
    """Writes the attempts of this process to ``out/<TOKEN>.jsonl`` (appended, one write per line)."""

    def __init__(self, out: str | os.PathLike, **fields):
        self.path = os.path.join(os.fspath(out), f"{TOKEN}.jsonl")
        self.fields = dict(fields)

    def write(self, **line) -> None:
        line = {**self.fields, **line, "token": TOKEN, "uid": os.getuid(), "t": round(time.time(), 3)}
        data = (json.dumps(line, default=str) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def attempt(self, attack: str, fn, **extra) -> str:
        """Run ``fn`` and report it: it returns what it achieved (reported ``SUCCEEDED: ...``) or a
        text starting ``blocked:``; an exception is reported ``blocked: <errno text>``."""
        try:
            got = fn()
        except Exception as e:  # noqa: BLE001 - every failure is a result to report
            result = "blocked: " + why(e)
        else:
            got = str(got)
            result = got if got.startswith("blocked:") else "SUCCEEDED: " + got
        self.write(attack=attack, result=result, **extra)
        return result
