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


def _in_sandbox(tmp_path, name: str, code: str) -> tuple[str, str]:
    """(stdout, stderr) of ``code`` run as ``name`` by the system Python in a sandbox (default limits)."""
    folder = tmp_path / "code"
    folder.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    (folder / name).write_text(code)
    box = sandbox.Sandboxed(folder, ["/usr/bin/python3", name], {"PATH": "/usr/bin"}, Limits(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        return box.process.communicate(timeout=60)
    finally:
        box.release()


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


#: Arms a timer three ways (ITIMER_REAL, a POSIX timer, a timerfd), each 20 ms ahead, then
#: waits 200 ms: prints how many expired (each way: 1 if it fired, or the error that refused it).
TIMERS = r"""
import ctypes, json, os, signal, time
libc = ctypes.CDLL(None, use_errno=True)
fired = {"itimer": 0, "posix": 0}
signal.signal(signal.SIGALRM, lambda *a: fired.__setitem__("itimer", fired["itimer"] + 1))
signal.signal(signal.SIGUSR1, lambda *a: fired.__setitem__("posix", fired["posix"] + 1))
out = {}
try:
    signal.setitimer(signal.ITIMER_REAL, 0.02)
except OSError as e:
    out["itimer"] = e.strerror
class SigEvent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int), ("pad", ctypes.c_byte * 48)]
class ITimerSpec(ctypes.Structure):
    _fields_ = [("interval", ctypes.c_long * 2), ("value", ctypes.c_long * 2)]
ev, tid = SigEvent(signo=signal.SIGUSR1, notify=0), ctypes.c_void_p()
if libc.timer_create(1, ctypes.byref(ev), ctypes.byref(tid)) != 0:  # CLOCK_MONOTONIC, SIGEV_SIGNAL
    out["posix"] = os.strerror(ctypes.get_errno())
else:
    spec = ITimerSpec(value=(ctypes.c_long * 2)(0, 20_000_000))
    libc.timer_settime(tid, 0, ctypes.byref(spec), None)
fd = libc.timerfd_create(1, 0)
if fd < 0:
    out["timerfd"] = os.strerror(ctypes.get_errno())
else:
    spec = ITimerSpec(value=(ctypes.c_long * 2)(0, 20_000_000))
    libc.timerfd_settime(fd, 0, ctypes.byref(spec), None)
end = time.monotonic() + 0.2
while time.monotonic() < end:
    time.sleep(0.01)
out.setdefault("itimer", fired["itimer"])
out.setdefault("posix", fired["posix"])
if "timerfd" not in out:
    os.set_blocking(fd, False)
    try:
        out["timerfd"] = int.from_bytes(os.read(fd, 8), "little")
    except BlockingIOError:
        out["timerfd"] = 0
print(json.dumps(out))
"""


@pytest.mark.guard(60)
@pytest.mark.skipif(sys.platform != "linux" or not sandbox.support().seccomp, reason="no seccomp filter here")
def test_no_timer_of_a_bot_fires(tmp_path):
    """Red team 39: a timer a bot armed went on expiring while the bot was frozen, each expiry an
    interrupt on the CPU it was armed on, which its partner pinned there timed (48-66 exact
    partner hands of 120-156). In the sandbox no timer a bot arms fires: each way is refused
    (``ITIMER_REAL``, POSIX timers, timerfd). Control: outside the sandbox each fires once."""
    out, err = _in_sandbox(tmp_path, "timers.py", TIMERS)
    assert json.loads(out) == {"itimer": "Operation not permitted", "posix": "Operation not permitted",
                               "timerfd": "Operation not permitted"}, (out, err)
    control = subprocess.run(["/usr/bin/python3", "-c", TIMERS], capture_output=True, text=True, timeout=60)
    assert json.loads(control.stdout) == {"itimer": 1, "posix": 1, "timerfd": 1}, control


#: Pins itself to the first CPU it may use; prints what it may use before and after, or the error.
PIN = r"""
import json, os
before = sorted(os.sched_getaffinity(0))
try:
    os.sched_setaffinity(0, {before[0]})
    out = {"before": before, "after": sorted(os.sched_getaffinity(0))}
except OSError as e:
    out = {"before": before, "error": e.strerror}
print(json.dumps(out))
"""


@pytest.mark.guard(60)
@pytest.mark.skipif(sys.platform != "linux" or not sandbox.support().seccomp, reason="no seccomp filter here")
def test_a_bot_cannot_pin_itself_to_a_cpu(tmp_path):
    """Partners pinned to one CPU meet on its private state, the channel of every same-core
    attack (red teams 34 and 39): in the sandbox ``sched_setaffinity`` is refused (EPERM),
    while reading the CPUs it may use works, as runtimes need. Control: outside, the pin holds."""
    out, err = _in_sandbox(tmp_path, "pin.py", PIN)
    inside = json.loads(out)
    assert inside["error"] == "Operation not permitted" and inside["before"], (out, err)
    control = json.loads(subprocess.run(["/usr/bin/python3", "-c", PIN], capture_output=True, text=True,
                                        timeout=60).stdout)
    assert control["after"] == control["before"][:1], control
