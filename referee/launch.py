"""The exec wrapper every bot process is started through (RULES.md §8 seat isolation;
FIELD-NOTES "apply limits in a small exec wrapper, not in preexec_fn").

``python -m referee.launch [--cpu S] [--memory MIB] [--nproc N] [--fsize MIB] [--isolate] -- COMMAND...``

1. Asks the kernel to kill it when the referee dies (``PR_SET_PDEATHSIG``); with
   ``--parent PID``, exits at once if that parent already died (before the ask).
2. Applies the resource limits given (0 leaves a limit unset): CPU seconds,
   address space (MiB), processes, largest file written (MiB).
3. With ``--isolate``, where the kernel allows it: a new **network namespace**
   (no network at all; the bot still serves on its Unix socket file), a new
   **PID namespace** (every process the bot starts, even one that calls
   ``setsid()``, dies with it) and a new **mount namespace** in which the file
   system is read-only except the bot's private folder (``$TMPDIR``), folders
   given with ``--writable``, and /proc, /sys, /dev.  Root gets them directly; other users through
   a user namespace mapping them to root inside it.  Then it forks: the child
   (PID 1 of the new namespace) runs ``COMMAND`` and this process forwards
   SIGTERM/SIGINT to it and exits with its status.  What could not be had is
   reported on stderr (the bot's log) and by ``--probe``.
4. Without ``--isolate`` (or when nothing could be had) it replaces itself with ``COMMAND``.

``python -m referee.launch --probe`` prints what this machine enforces, as JSON.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import select
import signal
import sys
import tempfile

PR_SET_PDEATHSIG = 1
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWNS = 0x00020000

_libc = None


def _lib():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def die_with_parent() -> None:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills us when our parent dies."""
    try:
        _lib().prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the referee still kills the process group
        pass


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
#: Mount points left as they are by the read-only file system (kernel and device file systems).
_KEEP_WRITABLE_MOUNTS = ("/proc", "/sys", "/dev")


def read_only_filesystem(writable: list[str]) -> bool:
    """In a new mount namespace: every mount read-only except ``writable`` folders
    (bound onto themselves first) and /proc, /sys, /dev.  True when it worked."""
    libc = _lib()
    if libc.unshare(CLONE_NEWNS) != 0:
        return False
    if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return False
    keep = []
    for path in writable:
        real = os.path.realpath(path)
        if os.path.isdir(real) and libc.mount(real.encode(), real.encode(), None, MS_BIND | MS_REC, None) == 0:
            keep.append(real)
    try:
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4].replace("\\040", " ") for line in f]
    except OSError:
        return False
    ok = True
    for mp in points:
        if mp in keep or any(mp == k or mp.startswith(k + "/") for k in _KEEP_WRITABLE_MOUNTS + tuple(keep)):
            continue
        if libc.mount(None, mp.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None) != 0 and mp == "/":
            ok = False
    return ok


def unshare_namespaces() -> dict[str, bool]:
    """Enter new network and PID namespaces if the kernel lets us; say which we got."""
    got = {"network": False, "pid": False}
    try:
        libc = _lib()
    except OSError:
        return got
    flags = CLONE_NEWNET | CLONE_NEWPID
    if os.geteuid() != 0:
        uid, gid = os.geteuid(), os.getegid()
        if libc.unshare(CLONE_NEWUSER) != 0:
            return got
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"0 {uid} 1")
            _write("/proc/self/gid_map", f"0 {gid} 1")
        except OSError:
            return got
    if libc.unshare(flags) == 0:
        return {"network": True, "pid": True}
    if libc.unshare(CLONE_NEWNET) == 0:
        got["network"] = True
    if libc.unshare(CLONE_NEWPID) == 0:
        got["pid"] = True
    return got


def _run_in_namespace(command: list[str]) -> None:
    """Fork: the child (PID 1 of the new PID namespace) execs ``command``; we relay signals."""
    # The child cannot compare getppid() (0 across the namespace boundary), so it learns
    # whether we died before its PR_SET_PDEATHSIG from a pipe whose write end only we hold.
    alive_r, alive_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(alive_w)
        die_with_parent()
        if select.select([alive_r], [], [], 0)[0]:  # EOF: the launcher is already gone
            os._exit(1)
        os.close(alive_r)
        _exec(command)
    os.close(alive_r)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: os.kill(pid, s))
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 0
            break
    sys.exit(os.waitstatus_to_exitcode(status) if status >= 0 else 1)


def _exec(command: list[str]) -> None:
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"referee.launch: cannot start {command[0]!r}: {e.strerror}", file=sys.stderr)
        os._exit(127)


def probe() -> dict[str, bool]:
    """What isolation this machine gives a bot (run in a throwaway child process)."""
    pid = os.fork()
    if pid == 0:
        got = unshare_namespaces()
        got["filesystem"] = read_only_filesystem([tempfile.gettempdir()])
        os.write(1, (json.dumps(got) + "\n").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    return {}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="referee.launch")
    p.add_argument("--cpu", type=int, default=0, help="CPU seconds (RLIMIT_CPU)")
    p.add_argument("--memory", type=int, default=0, help="address space, MiB (RLIMIT_AS)")
    p.add_argument("--nproc", type=int, default=0, help="processes/threads of the user (RLIMIT_NPROC)")
    p.add_argument("--fsize", type=int, default=0, help="largest file written, MiB (RLIMIT_FSIZE)")
    p.add_argument("--isolate", action="store_true",
                   help="new network, PID and mount namespaces where possible: no network, no stray processes, "
                        "a read-only file system but for $TMPDIR (the bot's private folder) and --writable folders")
    p.add_argument("--writable", action="append", default=[], help="a folder the bot may write in (repeatable)")
    p.add_argument("--parent", type=int, default=0,
                   help="the referee's pid: exit at once if it died before PR_SET_PDEATHSIG was set")
    p.add_argument("--probe", action="store_true", help="print what isolation this machine allows, as JSON")
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if args.probe:
        sys.stdout.flush()
        probe()
        return
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command given")
    die_with_parent()
    if args.parent and os.getppid() != args.parent:  # the referee died while we started: nobody
        os._exit(1)  # would kill us (PDEATHSIG set too late), so do not start the bot at all
    for limit, value in (
        (resource.RLIMIT_CPU, args.cpu),
        (resource.RLIMIT_AS, args.memory * 1024 * 1024),
        (resource.RLIMIT_NPROC, args.nproc),
        (resource.RLIMIT_FSIZE, args.fsize * 1024 * 1024),
    ):
        if value:
            hard = value + 1 if limit == resource.RLIMIT_CPU else value
            resource.setrlimit(limit, (value, hard))
    if args.isolate:
        got = unshare_namespaces()
        private = [os.environ["TMPDIR"]] if os.environ.get("TMPDIR") else []
        got["filesystem"] = read_only_filesystem(private + args.writable)
        missing = [k for k, v in got.items() if not v]
        if missing:
            print(f"referee.launch: sandbox without {' and '.join(missing)} namespace(s): not allowed here",
                  file=sys.stderr)
        if got["pid"]:
            _run_in_namespace(command)
    _exec(command)


if __name__ == "__main__":
    main()
