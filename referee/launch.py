"""The exec wrapper of an unisolated bot process (``--no-isolate``; FIELD-NOTES "apply limits in
a small exec wrapper, not in preexec_fn").  Isolated bots run under bubblewrap instead
(:mod:`referee.sandbox`).

``python -m referee.launch [--cpu S] [--memory MIB] [--nproc N] [--fsize MIB] [--parent PID] -- COMMAND...``

1. Asks the kernel to kill it when the referee dies (``PR_SET_PDEATHSIG``); with
   ``--parent PID``, exits at once if that parent already died (before the ask).
2. Applies the resource limits given (0 leaves a limit unset): CPU seconds,
   address space (MiB), processes of this user, largest file written (MiB).
3. Replaces itself with ``COMMAND``.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills us when our parent dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the referee still kills the process group
        pass


def _exec(command: list[str]) -> None:
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"referee.launch: cannot start {command[0]!r}: {e.strerror}", file=sys.stderr)
        os._exit(127)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="referee.launch")
    p.add_argument("--cpu", type=int, default=0, help="CPU seconds (RLIMIT_CPU)")
    p.add_argument("--memory", type=int, default=0, help="address space, MiB (RLIMIT_AS)")
    p.add_argument("--nproc", type=int, default=0, help="processes/threads of the user (RLIMIT_NPROC)")
    p.add_argument("--fsize", type=int, default=0, help="largest file written, MiB (RLIMIT_FSIZE)")
    p.add_argument("--parent", type=int, default=0,
                   help="the referee's pid: exit at once if it died before PR_SET_PDEATHSIG was set")
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
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
    _exec(command)


if __name__ == "__main__":
    main()
