"""Every file a sandbox shows read-only is held in memory before a bot starts (issue 19).

Why: all sandboxes see the same read-only files (the runtime: ``/usr``'s binaries and
libraries, the interpreter, the venv; and each bot's frozen code, shared by its processes
at both tables of a board), so they share those files' page cache.  A bot "writes" a bit
by reading a page that is not cached; a later process "reads" it by timing a read of that
page (~1 µs cached, 50 µs – 40 ms not).  The red team's round-4 bots passed whole hands
that way from table 1 to table 2, across matches and between partners (SECURITY.md),
whatever the schedule.  Reading every page first is not enough: this machine's kernel
reclaims cold pages on its own (DAMON, ~7 % a minute).  So a helper process maps every
regular file under the shown folders and locks the mappings (``mlockall``): their pages
stay cached while the arena runs, and no read by a bot changes what another can time.

The helper is ``python -m referee.pin``: it reads folder or file paths, one per line, on
its standard input, pins each and answers ``ok FILES BYTES`` (totals so far) or
``error WHY``; it ends when its input closes (the arena ended, killed or not), and not on
the terminal's Ctrl-C (a session of its own).

Costs measured here (2 cores): 2.0 GB in 20 k files, 6–8 s the first time after a boot
(read from disk), ~1.5 s when cached; the memory is the page cache the runtime uses anyway.
Locking needs ``CAP_IPC_LOCK`` (root) or an unlimited ``ulimit -l``: :func:`can_pin`.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterable

#: The helper's module: ``python -m referee.pin`` (in its command line, as tests look for it).
HELPER = "referee.pin"
_MCL_CURRENT, _MCL_FUTURE = 1, 2
_PROT_READ, _MAP_SHARED = 1, 1


class PinError(RuntimeError):
    """The helper could not pin what it was given (``mlock`` refused, too many files) or died."""


def can_pin() -> bool:
    """Whether this process may lock the runtime in memory: root (``CAP_IPC_LOCK``) or an
    unlimited ``RLIMIT_MEMLOCK`` (``ulimit -l unlimited``)."""
    return os.geteuid() == 0 or resource.getrlimit(resource.RLIMIT_MEMLOCK)[0] == resource.RLIM_INFINITY


def walk_files(paths: Iterable[str], hidden: Iterable[str] = ()) -> Iterable[str]:
    """The regular files under ``paths`` (files or folders; symbolic links not followed),
    skipping the folders ``hidden`` (a sandbox covers them). Unreadable folders are skipped."""
    skip = {os.path.realpath(h) for h in hidden}
    stack = [p for p in paths if os.path.realpath(p) not in skip]
    while stack:
        path = stack.pop()
        if os.path.isfile(path) and not os.path.islink(path):
            yield path
            continue
        try:
            with os.scandir(path) as entries:
                for e in entries:
                    if e.is_dir(follow_symlinks=False):
                        if e.path not in skip:
                            stack.append(e.path)
                    elif e.is_file(follow_symlinks=False):
                        yield e.path
        except (NotADirectoryError, FileNotFoundError, PermissionError):
            continue


class Pinner:
    """The pinning helper of this process (:func:`hold` keeps one per process).

    Raises:
        PinError: from :meth:`pin` when the helper refuses or has ended.
    """

    def __init__(self) -> None:
        self.files = self.bytes = 0
        self._done: set[str] = set()
        self._lock = threading.Lock()
        self._proc = subprocess.Popen([sys.executable, "-m", HELPER], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, cwd="/", start_new_session=True,
                                      env={"PATH": os.defpath, "PYTHONPATH": _package_root()})

    def pin(self, paths: Iterable[str], hidden: Iterable[str] = ()) -> None:
        """Pin every regular file under ``paths`` but ``hidden``'s; paths pinned before are skipped.
        Returns once every page is in memory and locked."""
        with self._lock:
            todo = [p for p in dict.fromkeys(paths) if p not in self._done]
            if not todo:
                return
            assert self._proc.stdin is not None and self._proc.stdout is not None
            try:
                for h in hidden:
                    self._proc.stdin.write(f"hide {h}\n")
                for p in todo:
                    self._proc.stdin.write(f"pin {p}\n")
                self._proc.stdin.write("sync\n")
                self._proc.stdin.flush()
                answer = self._proc.stdout.readline().split(maxsplit=2)
            except (BrokenPipeError, OSError) as e:
                raise PinError(f"the pinning helper has ended ({e})") from e
            if not answer or answer[0] != "ok":
                raise PinError("pinning the sandbox's files in memory failed: "
                               + (" ".join(answer[1:]) if answer else "the helper ended"))
            self.files, self.bytes = int(answer[1]), int(answer[2])
            self._done.update(todo)


def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_pinner: Pinner | None = None
_pinner_lock = threading.Lock()


def hold(paths: Iterable[str], hidden: Iterable[str] = ()) -> Pinner:
    """Pin ``paths`` (but ``hidden``) with this process's helper, started on first use.

    Raises:
        PinError: locking refused (see :func:`can_pin`) or the helper died.
    """
    global _pinner
    with _pinner_lock:
        if _pinner is None or _pinner._proc.poll() is not None:
            _pinner = Pinner()
        pinner = _pinner
    pinner.pin(paths, hidden)
    return pinner


def _main() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    failed = ctypes.c_void_p(-1).value
    fatal = ""
    if libc.mlockall(_MCL_CURRENT | _MCL_FUTURE) != 0:
        fatal = (f"mlockall refused ({os.strerror(ctypes.get_errno())}): run the arena as root or with "
                 "`ulimit -l unlimited`")
    files = total = 0
    hidden: set[str] = set()
    pending: list[str] = []
    problem = ""
    for line in sys.stdin:
        verb, _, arg = line.rstrip("\n").partition(" ")
        if verb == "hide":
            hidden.add(arg)
            continue
        if verb == "pin":
            pending.append(arg)
            continue
        if fatal:
            pending.clear()
            print(f"error {fatal}", flush=True)
            continue
        for path in walk_files(pending, hidden):
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                size = os.fstat(fd).st_size
                # MCL_FUTURE: the mapping is read in and locked as it is made
                if size and libc.mmap(None, size, _PROT_READ, _MAP_SHARED, fd, 0) in (None, failed):
                    problem = (f"{path}: {os.strerror(ctypes.get_errno())} (locked {total} bytes in {files} files; "
                               "`ulimit -l` or vm.max_map_count too low)")
                    break
                files += 1
                total += size
            finally:
                os.close(fd)
        pending.clear()
        print(f"error {problem}" if problem else f"ok {files} {total}", flush=True)
        problem = ""
    return 0


if __name__ == "__main__":
    sys.exit(_main())
