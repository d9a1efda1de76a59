"""Attack bot 'attack_priv' (tests/bots/README.md, issue 9): privilege and escape.

``python bot.py --out DIR``. On its first decision each process tries, and reports
(tests/bots/attack_common.py), then plays a random legal action:

- ``priv:capabilities``: any capability in its effective, permitted, bounding or ambient set
  (``capget`` and ``prctl``: the sandbox has no procfs);
- ``priv:setuid-root``: ``setuid(0)``;
- ``priv:remount-command`` / ``priv:remount-syscall``: ``mount -o remount,rw /`` (commands are
  run with their output in files: no pipe once the match has begun) and
  ``mount(NULL, "/", NULL, MS_REMOUNT, NULL)``, then a file written in ``/usr``;
- ``priv:mount-tmpfs``: a new tmpfs over ``/arena/bot`` (its own code);
- ``priv:write-read-only``: files written into ``/``, ``/usr``, its own code ``/arena/bot``
  and the interpreter's ``site-packages`` (a ``.pth``, code run by every later Python);
- ``priv:unshare``: ``unshare(CLONE_NEWUSER | CLONE_NEWNS)`` (then a mount), and ``unshare -r``;
- ``priv:setns``: ``setns`` into every ``/proc/*/ns/*`` it can open (none: the sandbox has no procfs);
- ``priv:ptrace``: ``PTRACE_ATTACH`` and ``PTRACE_SEIZE`` on every visible process not its own
  (visible: listed in ``/proc``, or, without procfs, found by ``kill(pid, 0)``);
- ``priv:process-vm-writev`` and ``priv:proc-mem``: writing into the memory of those
  processes (``process_vm_writev``; ``/proc/PID/mem`` opened for writing);
- ``priv:kill-others``: ``SIGKILL`` to those processes (PID 1 of its namespace: the sandbox's init);
- ``priv:chroot``: ``chroot("/tmp")``;
- ``priv:keyring``: ``add_key`` and ``keyctl`` (the kernel keyring is not namespaced);
- ``priv:mknod``: a block device node for the host's disk;
- ``priv:proc-sys``: writing ``/proc/sys/vm/drop_caches`` and ``/proc/sysrq-trigger``.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import signal
import stat
import sys
import sysconfig

from attack_common import TOKEN, Reporter, check, libc, live_pids, own_children, own_threads, run, why
from belote_arena_sdk import Bot, pb, serve

MS_REMOUNT, MS_BIND = 32, 4096
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206
SYS_ADD_KEY, SYS_KEYCTL = 248, 250  # x86_64
KEY_SPEC_PROCESS_KEYRING, KEYCTL_GET_KEYRING_ID = -2, 0
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def all_blocked(results: dict[str, str]) -> str:
    """``results``: what -> "ok ..." or an errno text; SUCCEEDED if any went through."""
    ok = {k: v for k, v in results.items() if v.startswith("ok")}
    if ok:
        return f"{ok}"
    return "blocked: " + "; ".join(f"{k}: {v}" for k, v in results.items())


def others() -> list[int]:
    """Visible processes that are not this one, its threads or its children (without a procfs,
    the sandbox's: the pids ``kill(pid, 0)`` finds, :func:`attack_common.live_pids`)."""
    own = {os.getpid(), *own_threads(), *own_children()}
    out = []
    for p in live_pids():
        if int(p) not in own:
            try:
                ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):  # unreadable: not a child of ours, which we could read
                ppid = None
            if ppid not in own:
                out.append(int(p))
    return out


def attempt_each(targets, fn) -> dict[str, str]:
    res = {}
    for t in targets:
        try:
            res[str(t)] = "ok " + str(fn(t))
        except OSError as e:
            res[str(t)] = why(e)
    return res


class PrivBot(Bot):
    def __init__(self, out: str):
        super().__init__()
        self.report = Reporter(out, bot="attack_priv")
        self.done = False

    def write_test(self, path: str) -> str:
        with open(path, "w") as f:
            f.write(f"planted by {TOKEN}\n")
        return f"wrote {path}"

    def caps(self) -> str:
        """The capability sets asked of the kernel (``capget``, ``PR_CAPBSET_READ``,
        ``PR_CAP_AMBIENT_IS_SET``): the sandbox has no ``/proc/self/status`` to read them from."""
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
        data = (ctypes.c_uint32 * 6)()  # two of {effective, permitted, inheritable}
        check(libc.capget(header, data), "capget")
        sets = {"CapEff": data[0] | data[3] << 32, "CapPrm": data[1] | data[4] << 32, "CapBnd": 0, "CapAmb": 0}
        for cap in range(64):
            if libc.prctl(23, cap, 0, 0, 0) == 1:  # PR_CAPBSET_READ (-1: no such capability)
                sets["CapBnd"] |= 1 << cap
            if libc.prctl(47, 1, cap, 0, 0) == 1:  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET
                sets["CapAmb"] |= 1 << cap
        held = {k: f"{v:016x}" for k, v in sets.items() if v}
        return f"capabilities {held}" if held else "blocked: no capability (CapEff, CapPrm, CapBnd, CapAmb all 0)"

    def remount_command(self) -> str:
        code, _, stderr = run(["mount", "-o", "remount,rw", "/"])
        if code != 0:
            return f"blocked: mount exited {code}: {stderr.strip()[:160]}"
        return self.write_test("/usr/planted-" + TOKEN)

    def remount_syscall(self) -> str:
        check(libc.mount(None, b"/", None, MS_REMOUNT | MS_BIND, None), "mount")
        return self.write_test("/usr/planted-" + TOKEN)

    def mount_tmpfs(self) -> str:
        check(libc.mount(b"none", b"/arena/bot", b"tmpfs", 0, None), "mount")
        return "mounted a tmpfs over /arena/bot"

    def unshare(self) -> str:
        res = {}
        try:
            check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
            check(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None), "mount")
            res["unshare+mount"] = "ok: a new user and mount namespace, a tmpfs mounted"
        except OSError as e:
            res["unshare(CLONE_NEWUSER|CLONE_NEWNS)"] = why(e)
        code, stdout, stderr = run(["unshare", "-r", "-m", "id", "-u"])
        res["unshare -r -m"] = f"ok: {stdout.strip()}" if code == 0 else f"exit {code}: {stderr.strip()[:120]}"
        return all_blocked(res)

    def setns(self) -> str:
        res = {}
        for path in sorted(glob.glob("/proc/*/ns/*")):
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError as e:
                res[path] = "open: " + why(e)
                continue
            try:
                check(libc.setns(fd, 0), "setns")
                res[path] = "ok: joined"
            except OSError as e:
                res[path] = why(e)
            finally:
                os.close(fd)
        return all_blocked(res) if res else "blocked: no namespace file visible"

    def ptrace(self, targets) -> str:
        def attach(pid):
            for req in (PTRACE_ATTACH, PTRACE_SEIZE):
                ctypes.set_errno(0)
                if libc.ptrace(req, pid, None, None) == -1:
                    e = ctypes.get_errno()
                    raise OSError(e, os.strerror(e))
            return "attached"
        return all_blocked(attempt_each(targets, attach))

    def vm_writev(self, targets) -> str:
        data = ctypes.create_string_buffer(b"\xcc" * 16)
        local = IoVec(ctypes.cast(data, ctypes.c_void_p), 16)

        def write(pid):
            remote = IoVec(0x400000, 16)  # where a non-PIE executable's code would be
            n = libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
            if n == -1:
                e = ctypes.get_errno()
                raise OSError(e, os.strerror(e))
            return f"{n} bytes written"
        return all_blocked(attempt_each(targets, write))

    def proc_mem(self, targets) -> str:
        def write(pid):
            fd = os.open(f"/proc/{pid}/mem", os.O_RDWR)
            os.close(fd)
            return "opened for writing"
        return all_blocked(attempt_each(targets, write))

    def kill_others(self, targets) -> str:
        return all_blocked(attempt_each(targets, lambda pid: os.kill(pid, signal.SIGKILL) or "killed"))

    def keyring(self) -> str:
        res = {}
        for name, fn in (("add_key", lambda: libc.syscall(SYS_ADD_KEY, b"user", f"atk-{TOKEN}".encode(), b"secret", 6,
                                                          KEY_SPEC_PROCESS_KEYRING)),
                         ("keyctl", lambda: libc.syscall(SYS_KEYCTL, KEYCTL_GET_KEYRING_ID, -4, 0))):
            try:
                res[name] = f"ok: {check(fn(), name)}"
            except OSError as e:
                res[name] = why(e)
        return all_blocked(res)

    def mknod(self) -> str:
        dev = os.stat("/usr").st_dev
        os.mknod(f"/tmp/disk-{TOKEN}", stat.S_IFBLK | 0o600, dev)
        fd = os.open(f"/tmp/disk-{TOKEN}", os.O_RDONLY)
        os.close(fd)
        return "opened the host disk's block device"

    def proc_sys(self) -> str:
        res = {}
        for path, value in (("/proc/sys/vm/drop_caches", "1"), ("/proc/sysrq-trigger", "h")):
            try:
                with open(path, "w") as f:
                    f.write(value)
                res[path] = "ok: written"
            except OSError as e:
                res[path] = why(e)
        return all_blocked(res)

    def attack(self) -> None:
        site = sysconfig.get_paths()["purelib"]
        r = self.report.attempt
        r("priv:capabilities", self.caps)
        r("priv:setuid-root", lambda: os.setuid(0) or "setuid(0) worked")
        r("priv:remount-command", self.remount_command)
        r("priv:remount-syscall", self.remount_syscall)
        r("priv:mount-tmpfs", self.mount_tmpfs)
        r("priv:write-read-only", lambda: all_blocked(attempt_each(
            ["/", "/usr", "/arena/bot", site, os.path.dirname(sys.executable)],
            lambda d: self.write_test(os.path.join(d, f"planted-{TOKEN}.pth")))))
        r("priv:unshare", self.unshare)
        r("priv:setns", self.setns)
        targets = others()
        self.report.write(attack="visible-processes", pids=targets)
        r("priv:ptrace", lambda: self.ptrace(targets) if targets else "blocked: no other process visible")
        r("priv:process-vm-writev", lambda: self.vm_writev(targets) if targets else "blocked: no other process visible")
        r("priv:proc-mem", lambda: self.proc_mem(targets) if targets else "blocked: no other process visible")
        r("priv:chroot", lambda: os.chroot("/tmp") or "chroot worked")
        r("priv:keyring", self.keyring)
        r("priv:mknod", self.mknod)
        r("priv:proc-sys", self.proc_sys)
        r("priv:kill-others", lambda: self.kill_others(targets) if targets else "blocked: no other process visible")

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if not self.done:
            self.done = True
            self.attack()
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(PrivBot(args.out), rest))
