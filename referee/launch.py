"""The exec wrapper every bot process is started through (RULES.md §8 seat isolation;
FIELD-NOTES "apply limits in a small exec wrapper, not in preexec_fn").

``python -m referee.launch [--cpu S] [--memory MIB] [--nproc N] [--fsize MIB] -- COMMAND...``

It asks the kernel to kill the bot when the referee dies (``PR_SET_PDEATHSIG``),
applies the resource limits given, then replaces itself with ``COMMAND``.
Limits a value of 0 leaves unset.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import sys

PR_SET_PDEATHSIG = 1


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="referee.launch")
    p.add_argument("--cpu", type=int, default=0, help="CPU seconds (RLIMIT_CPU)")
    p.add_argument("--memory", type=int, default=0, help="address space, MiB (RLIMIT_AS)")
    p.add_argument("--nproc", type=int, default=0, help="processes/threads of the user (RLIMIT_NPROC)")
    p.add_argument("--fsize", type=int, default=0, help="largest file written, MiB (RLIMIT_FSIZE)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command given")
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the referee still kills the process group
        pass
    for limit, value in (
        (resource.RLIMIT_CPU, args.cpu),
        (resource.RLIMIT_AS, args.memory * 1024 * 1024),
        (resource.RLIMIT_NPROC, args.nproc),
        (resource.RLIMIT_FSIZE, args.fsize * 1024 * 1024),
    ):
        if value:
            hard = value + 1 if limit == resource.RLIMIT_CPU else value
            resource.setrlimit(limit, (value, hard))
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"referee.launch: cannot start {command[0]!r}: {e.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main()
