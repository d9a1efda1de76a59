"""Each seccomp rule holds on its own (issue 20 item 25; SECURITY.md "The machine").

The sandbox has several layers (namespaces, a host uid without capabilities, Landlock,
seccomp), and an attack test passes when any layer stops the attack: a rule removed from
the seccomp filter would go unnoticed behind the others.  So every syscall the filter
refuses (``referee.sandbox.DENIED_SYSCALLS``) is called inside a sandbox with harmless
arguments (all zero), and must fail with the filter's own answer, EPERM — ``unshare(0)``,
for one, succeeds when the filter lacks its rule.  ``clone3`` answers ENOSYS (so that libc
falls back to ``clone``, whose namespace flags are refused with EPERM).  The control: the
same calls outside the sandbox do not all answer EPERM.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pyseccomp
import pytest

from referee import sandbox
from referee.sandbox import Limits

#: ``python -c PROBE NUMBERS [CLONE]``: calls each syscall of ``NUMBERS`` (JSON name: number) with zero
#: arguments, and clone with a namespace flag when given its number; prints {name: [result, errno]}.
PROBE = """
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
out = {}
for name, number in json.loads(sys.argv[1]).items():
    ctypes.set_errno(0)
    rc = libc.syscall(number, 0, 0, 0, 0, 0, 0)
    out[name] = [rc, ctypes.get_errno()]
if len(sys.argv) > 2:  # clone(CLONE_NEWUSER | SIGCHLD), x86_64's number: a namespace flag of clone
    ctypes.set_errno(0)
    rc = libc.syscall(int(sys.argv[2]), 0x10000000 | 17, 0, 0, 0, 0)
    if rc == 0:
        os._exit(0)  # the child, had it been made
    out["clone(CLONE_NEWUSER)"] = [min(rc, 1), ctypes.get_errno()]
print(json.dumps(out))
"""


def _numbers() -> dict[str, int]:
    out = {}
    for name in sandbox.DENIED_SYSCALLS + ("clone3",):
        try:
            number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)
        except Exception:
            continue
        if number >= 0:
            out[name] = number
    return out


@pytest.mark.guard(60)
@pytest.mark.skipif(sys.platform != "linux" or not sandbox.support().seccomp, reason="no seccomp filter here")
def test_every_refused_syscall_is_refused_by_the_filter_itself(tmp_path):
    numbers = _numbers()
    assert "unshare" in numbers and "ptrace" in numbers and len(numbers) >= 50
    code = tmp_path / "code"
    code.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    clone = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "clone")
    box = sandbox.Sandboxed(code, ["/usr/bin/python3", "-c", PROBE, json.dumps(numbers), str(clone)], {"PATH": "/usr/bin"},
                            Limits(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = box.process.communicate(timeout=60)
    finally:
        box.release()
    answers = json.loads(out)
    expected = {name: [-1, 38 if name == "clone3" else 1] for name in numbers}  # ENOSYS, EPERM
    expected["clone(CLONE_NEWUSER)"] = [-1, 1]
    assert answers == expected, {k: v for k, v in answers.items() if v != expected.get(k)}


def test_the_control_outside_the_sandbox_is_not_refused_alike():
    """Without the filter, ``unshare(0)`` succeeds and ``mincore`` on address 0 answers ENOMEM
    (not EPERM): the probe tells a refusing filter from a missing one."""
    numbers = {k: v for k, v in _numbers().items() if k in ("unshare", "mincore", "kcmp")}
    p = subprocess.run([sys.executable, "-c", PROBE, json.dumps(numbers)], capture_output=True, text=True, timeout=60)
    answers = json.loads(p.stdout.strip().splitlines()[-1])
    assert answers["unshare"] == [0, 0]
    assert answers["mincore"][1] != 1 and answers["kcmp"][1] != 1, answers
