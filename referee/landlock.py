"""A sandbox's ``/proc`` as an allow-list: the exec wrapper that applies a Landlock ruleset
inside the sandbox, then starts the bot (SECURITY.md "What a bot can read of /proc").

``python -I -S -c SOURCE PROC_PATH... -- COMMAND...`` (:func:`wrapper`): run by bwrap after
the sandbox's mounts are made (Landlock forbids making mounts once applied, so it cannot
be applied outside), before ``prlimit`` and the bot.  It

1. allows reading files and listing folders beneath every top-level entry of the
   sandbox's root except ``/proc``;
2. in ``/proc`` allows only the ``PROC_PATH`` given (the static files and folders that
   mask the host-wide counters, :func:`referee.sandbox.proc_masks`) and, of the first
   process's own ``/proc/PID``, the files in :data:`SELF_FILES`;
3. restricts itself (``landlock_restrict_self``; inherited by every process the bot
   starts), resets the signals Python ignores, and replaces itself with ``COMMAND``.

What this denies: a process's own memory files (``/proc/self/pagemap``'s "exclusive" bit,
``smaps``' ``Pss``, ``smaps_rollup``, ``numa_maps``' ``mapmax``) show how many processes map
a page of a shared file, so two live partners could signal through pages they keep mapped
(red team 7: 24 of 24 partner hands); ``/proc/net`` shows the machine's socket memory; and
any host-wide counter a kernel adds to ``/proc`` later is denied rather than shown.

Landlock (Linux ≥ 5.13, ``CONFIG_SECURITY_LANDLOCK``; ABI 1 suffices) is unprivileged and
stacks: a bot may add rules of its own, never remove these.  Exit status 126 with a message
when the ruleset cannot be applied: the bot is never started without it.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys

#: The files of the first process's ``/proc/PID`` a bot may read: none of them counts another
#: process's use of a page (``status``' and ``statm``'s resident sizes are the process's own).
SELF_FILES = ("auxv", "cgroup", "cmdline", "comm", "environ", "limits", "maps", "mountinfo", "mounts",
              "stat", "statm", "status")
#: ... and the folders it may list (``fd``: Python's ``subprocess`` closes descriptors from it).
SELF_DIRS = ("fd",)

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_READ_FILE, _READ_DIR = 1 << 2, 1 << 3
_PR_SET_NO_NEW_PRIVS = 38


@functools.cache
def abi() -> int:
    """The Landlock ABI version this kernel offers (≥ 1), or 0 where Landlock is missing or off."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return 0
    version = libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(0, version)


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def restrict(paths: list[str]) -> None:
    """Allow reading beneath each of ``paths`` only (files: reading them; folders: reading and
    listing what is beneath), for this process and every process it starts.

    A path that does not exist is left out.  Raises OSError when Landlock refuses.
    """
    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> int:
        if result < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")
        return result

    handled = ctypes.c_uint64(_READ_FILE | _READ_DIR)
    ruleset = check(libc.syscall(_CREATE_RULESET, ctypes.byref(handled), ctypes.c_size_t(8), ctypes.c_uint32(0)),
                    "landlock_create_ruleset")
    try:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
                rule = _PathBeneath(_READ_FILE | (_READ_DIR if is_dir else 0), fd)
                check(libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)),
                      f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        check(libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def allowed(proc_paths: list[str]) -> list[str]:
    """Every path :func:`restrict` is given inside a sandbox: the root's entries but ``/proc``,
    ``proc_paths``, and this process's own :data:`SELF_FILES` and :data:`SELF_DIRS`."""
    pid = os.getpid()
    top = [os.path.join("/", name) for name in sorted(os.listdir("/")) if name != "proc"]
    own = [f"/proc/{pid}/{name}" for name in SELF_FILES + SELF_DIRS]
    return top + list(proc_paths) + own


def main(argv: list[str]) -> None:
    split = argv.index("--") if "--" in argv else len(argv)
    proc_paths, command = argv[:split], argv[split + 1:]
    if not command:
        print("referee.landlock: no command given", file=sys.stderr)
        os._exit(126)
    try:
        restrict(allowed(proc_paths))
    except OSError as e:
        print(f"referee.landlock: cannot restrict /proc ({e}); the bot is not started", file=sys.stderr)
        os._exit(126)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; exec would keep them ignored
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execv(command[0], command)
    except OSError as e:
        print(f"referee.landlock: cannot start {command[0]!r}: {e.strerror}", file=sys.stderr)
        os._exit(127)


@functools.cache
def _source() -> str:
    with open(__file__, encoding="utf-8") as f:
        return f.read()


def wrapper(python: str, proc_paths: list[str]) -> list[str]:
    """The command prefix that runs this module inside a sandbox with ``python`` (a path the
    sandbox shows), before the bot's command: ``[python, -I, -S, -c, SOURCE, *proc_paths, --]``."""
    return [python, "-I", "-S", "-c", _source(), *proc_paths, "--"]


if __name__ == "__main__":
    main(sys.argv[1:])
