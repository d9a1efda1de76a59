"""What runs inside a sandbox before the bot: ``/proc`` as an allow-list, and ``sysinfo(2)``
answered with the bot's own figures (SECURITY.md "Host-wide counters"; issue 19 item 3).

``python -I -S -c SOURCE [--memory BYTES] [--no-landlock] PROC_PATH... -- COMMAND...``
(:func:`wrapper`), run by bwrap after the sandbox's mounts are made (Landlock forbids
making mounts once applied, so it cannot be applied outside), before ``prlimit`` and the bot:

1. **sysinfo**: installs a seccomp filter that hands every ``sysinfo(2)`` of the bot and
   its children to this process (a seccomp user notification), which writes the answer
   itself (:func:`answer`): the bot's memory limit as the machine's memory, all of it free,
   one process, no load, no swap.  The kernel's own answer is host-wide (load, free memory,
   the machine's thread count): a partner holding memory or threads while frozen shows in
   it.  Refusing the call is no fix: glibc's ``sysconf(_SC_PHYS_PAGES)`` ignores the error
   and returns garbage.
2. forks: the child is the bot; this process stays, supervising (:func:`supervise`) until
   the bot exits, then exits as it did.
3. **Landlock**, in the child: reading files and listing folders is allowed beneath every
   top-level entry of the sandbox's root but ``/proc``; in ``/proc`` only beneath the
   ``PROC_PATH`` given (the static files that mask the host-wide counters,
   :func:`referee.sandbox.proc_masks`) and, of the bot's own ``/proc/PID``, the files of
   :data:`SELF_FILES` and the folders of :data:`SELF_DIRS`.  Denied: a process's memory
   files (``pagemap``'s "exclusive" bit, ``smaps``' ``Pss``, ``smaps_rollup``,
   ``numa_maps``' ``mapmax``), which count the processes mapping a page of a shared file,
   so two live partners could signal through pages they keep mapped (red team 7: 24 of 24
   partner hands); ``/proc/net``; other processes' folders (this one's included); and any
   host-wide counter a kernel adds to ``/proc`` later.  Where the kernel has Landlock's
   scopes (Linux ≥ 6.12), the bot cannot signal this supervisor either (killing it would
   only end the bot's own sandbox).  Landlock (Linux ≥ 5.13) is unprivileged and stacks:
   a bot may add rules, never remove these.
4. the child resets the signals Python ignores and replaces itself with ``COMMAND``.

Exit status 126 with a message when a protection cannot be set up: the bot is never
started without it.  Standard library only (it runs with ``-I -S``, before any venv).
"""

from __future__ import annotations

import _signal  # not signal, nor functools or platform: each costs this start milliseconds
import ctypes
import os
import select
import struct
import sys
import time

#: The files of the bot's own ``/proc/PID`` it may read: none counts another process's use of
#: a page (``status``' and ``statm``'s resident sizes are the process's own).
SELF_FILES = ("auxv", "cgroup", "cmdline", "comm", "environ", "limits", "maps", "mountinfo", "mounts",
              "stat", "statm", "status")
#: ... and the folders it may list (``fd``: Python's ``subprocess`` closes descriptors from it).
SELF_DIRS = ("fd",)

_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446  # every architecture
_LANDLOCK_VERSION = 1
_RULE_PATH_BENEATH = 1
_READ_FILE, _READ_DIR = 1 << 2, 1 << 3
_SCOPE_SIGNAL = 1 << 1  # no signal to a process outside the ruleset's domain (ABI 6, Linux 6.12)
_PR_SET_NO_NEW_PRIVS = 38

#: (seccomp, sysinfo) syscall numbers and the audit architecture, by machine.
_SYSCALLS = {"x86_64": (317, 99, 0xC000003E), "aarch64": (277, 179, 0xC00000B7)}
_SET_MODE_FILTER, _FLAG_NEW_LISTENER = 1, 8
_RET_ALLOW, _RET_USER_NOTIF = 0x7FFF0000, 0x7FC00000
_NOTIF_RECV, _NOTIF_SEND, _NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
_NOTIF_SIZE = 80  # struct seccomp_notif: id, pid, flags, seccomp_data (nr, arch, ip, args[6])
_RESPONSE = struct.Struct("=QqiI")  # struct seccomp_notif_resp: id, val, error, flags
#: struct sysinfo on a 64-bit Linux: uptime, loads[3], totalram, freeram, sharedram, bufferram,
#: totalswap, freeswap, procs (+ padding), totalhigh, freehigh, mem_unit (+ padding): 112 bytes.
SYSINFO = struct.Struct("=q3Q6QHH4xQQI4x")
_EFAULT = 14


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


_abi: list[int] = []


def abi() -> int:
    """The Landlock ABI version this kernel offers (≥ 1), or 0 where Landlock is missing or off."""
    if not _abi:
        try:
            _abi.append(max(0, _libc().syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                                               ctypes.c_uint32(_LANDLOCK_VERSION))))
        except OSError:
            _abi.append(0)
    return _abi[0]


def sysinfo_supported() -> bool:
    """Whether :func:`listen_sysinfo` knows this machine's syscall numbers (x86_64, aarch64)."""
    return os.uname().machine in _SYSCALLS


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def restrict(paths: list[str]) -> None:
    """Allow reading beneath each of ``paths`` only (a file: reading it; a folder: reading and
    listing what is beneath), for this process and every process it starts; where Landlock
    has scopes (ABI ≥ 6), also no signal to a process outside them (the supervisor, the
    sandbox's init).

    A path that does not exist is left out.  Raises OSError when Landlock refuses.
    """
    libc = _libc()
    # struct landlock_ruleset_attr: handled_access_fs, handled_access_net (ABI 4), scoped (ABI 6)
    attr = (ctypes.c_uint64 * 3)(_READ_FILE | _READ_DIR, 0, _SCOPE_SIGNAL if abi() >= 6 else 0)
    size = 24 if abi() >= 6 else 8
    ruleset = _check(libc.syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                                  ctypes.c_uint32(0)), "landlock_create_ruleset")
    try:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
                rule = _PathBeneath(_READ_FILE | (_READ_DIR if is_dir else 0), fd)
                _check(libc.syscall(_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule),
                                    ctypes.c_uint32(0)), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def allowed(proc_paths: list[str]) -> list[str]:
    """Every path :func:`restrict` is given inside a sandbox: the root's entries but ``/proc``,
    ``proc_paths``, and this process's own :data:`SELF_FILES` and :data:`SELF_DIRS`."""
    pid = os.getpid()
    top = [os.path.join("/", name) for name in sorted(os.listdir("/")) if name != "proc"]
    own = [f"/proc/{pid}/{name}" for name in SELF_FILES + SELF_DIRS]
    return top + list(proc_paths) + own


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def listen_sysinfo() -> int:
    """Install a seccomp filter that hands every ``sysinfo(2)`` of this process and its children
    to a listener (``SECCOMP_RET_USER_NOTIF``, Linux ≥ 5.0); every other call is left to the
    sandbox's own filter.  Returns the listener's descriptor; raises OSError when refused."""
    seccomp, sysinfo, arch = _SYSCALLS[os.uname().machine]
    program = [  # classic BPF: (code, jump if true, jump if false, k)
        (0x20, 0, 0, 4),  # load seccomp_data.arch
        (0x15, 0, 3, arch),  # another architecture's call: allow (the sandbox's filter kills it)
        (0x20, 0, 0, 0),  # load seccomp_data.nr
        (0x15, 0, 1, sysinfo),
        (0x06, 0, 0, _RET_USER_NOTIF),
        (0x06, 0, 0, _RET_ALLOW),
    ]
    raw = b"".join(struct.pack("=HBBI", *op) for op in program)
    code = ctypes.create_string_buffer(raw, len(raw))
    return _check(_libc().syscall(seccomp, _SET_MODE_FILTER, _FLAG_NEW_LISTENER,
                                  ctypes.byref(_Program(len(program), ctypes.addressof(code)))),
                  "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)")


def answer(memory_bytes: int) -> bytes:
    """``struct sysinfo`` of the bot's own machine: ``memory_bytes`` of memory, all free, no
    shared or buffer memory, no swap, one process, loads of 0; the uptime is the clock's
    (``CLOCK_BOOTTIME``, which a bot reads anyway), in seconds; ``mem_unit`` 1 byte."""
    uptime = int(time.clock_gettime(time.CLOCK_BOOTTIME))
    return SYSINFO.pack(uptime, 0, 0, 0, memory_bytes, memory_bytes, 0, 0, 0, 0, 1, 0, 0, 0, 1)


def supervise(listener: int, child: int, memory_bytes: int) -> int:
    """Answer the ``sysinfo(2)`` calls ``listener`` hands over (:func:`answer`, written into the
    caller's memory through ``/proc/PID/mem``; EFAULT for a pointer it cannot write through)
    until ``child`` exits.  Returns its wait status.  The child's end is seen by ``SIGCHLD``
    (no pidfd: the sandbox refuses them, their inode numbers count the machine's processes)."""
    libc = _libc()
    wake, woken = os.pipe()  # SIGCHLD writes a byte here (the signal's wakeup descriptor)
    os.set_blocking(woken, False)
    _signal.set_wakeup_fd(woken)
    _signal.signal(_signal.SIGCHLD, lambda *_: None)
    poller = select.poll()
    poller.register(listener, select.POLLIN)
    poller.register(wake, select.POLLIN)
    notice = ctypes.create_string_buffer(_NOTIF_SIZE)
    while True:
        done, status = os.waitpid(child, os.WNOHANG)  # before each wait: an end before the handler was set
        if done:
            return status
        for fd, _ in poller.poll():
            if fd == wake:
                os.read(wake, 512)
                continue
            ctypes.memset(notice, 0, _NOTIF_SIZE)
            if libc.ioctl(listener, _NOTIF_RECV, notice) < 0:
                continue  # the caller died meanwhile (ENOENT), or a signal came (EINTR)
            call, pid = struct.unpack_from("=QI", notice, 0)
            pointer = struct.unpack_from("=Q", notice, 32)[0]  # seccomp_data.args[0]
            error = 0
            try:
                with open(f"/proc/{pid}/mem", "r+b", buffering=0) as memory:
                    if libc.ioctl(listener, _NOTIF_ID_VALID, ctypes.byref(ctypes.c_uint64(call))) < 0:
                        continue  # the call is gone: that pid may be another process's now
                    memory.seek(pointer)
                    memory.write(answer(memory_bytes))
            except (OSError, OverflowError, ValueError):
                error = -_EFAULT
            response = ctypes.create_string_buffer(_RESPONSE.pack(call, 0, error, 0), _RESPONSE.size)
            libc.ioctl(listener, _NOTIF_SEND, response)


def _exit_as(status: int) -> None:
    """Exit as a child with wait status ``status`` did: the same code, or the same signal."""
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        if -code not in (_signal.SIGKILL, _signal.SIGSTOP):  # those two have no handler to reset
            _signal.signal(-code, _signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def _fail(message: str, status: int = 126) -> None:
    print(f"referee.inside: {message}; the bot is not started", file=sys.stderr, flush=True)
    os._exit(status)


def main(argv: list[str]) -> None:
    split = argv.index("--") if "--" in argv else len(argv)
    options, command = argv[:split], argv[split + 1:]
    memory = 0
    landlock = "--no-landlock" not in options
    proc_paths = [o for o in options if o.startswith("/")]
    if "--memory" in options:
        memory = int(options[options.index("--memory") + 1])
    if not command:
        _fail("no command given")
    listener = -1
    if memory:
        try:
            listener = listen_sysinfo()
        except (OSError, KeyError) as e:
            _fail(f"cannot answer sysinfo(2) ({e})")
    child = os.fork() if listener >= 0 else 0
    if child:  # the supervisor: holds none of the bot's streams
        os.close(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        _exit_as(supervise(listener, child, memory))
    if listener >= 0:
        os.close(listener)
    if landlock:
        try:
            restrict(allowed(proc_paths))
        except OSError as e:
            _fail(f"cannot restrict /proc ({e})")
    for sig in (_signal.SIGPIPE, _signal.SIGXFSZ):  # Python ignores these; exec would keep them ignored
        _signal.signal(sig, _signal.SIG_DFL)
    try:
        os.execv(command[0], command)
    except OSError as e:
        _fail(f"cannot start {command[0]!r}: {e.strerror}", 127)


_sources: list[str] = []


def _source() -> str:
    if not _sources:
        with open(__file__, encoding="utf-8") as f:
            _sources.append(f.read())
    return _sources[0]


def wrapper(python: str, proc_paths: list[str], *, memory_bytes: int, landlock: bool) -> list[str]:
    """The command prefix that runs this module inside a sandbox with ``python`` (a path the
    sandbox shows), before the bot's command: ``[python, -I, -S, -c, SOURCE, options…, --]``.

    Args:
        python: the interpreter, as the sandbox shows it.
        proc_paths: the paths of ``/proc`` the bot may read (the masks).
        memory_bytes: the memory ``sysinfo(2)`` reports; 0 leaves ``sysinfo`` to the kernel.
        landlock: apply the ``/proc`` allow-list (:func:`abi` must be ≥ 1).
    """
    options = [*(["--memory", str(memory_bytes)] if memory_bytes else []), *([] if landlock else ["--no-landlock"])]
    return [python, "-I", "-S", "-c", _source(), *options, *proc_paths, "--"]


if __name__ == "__main__":
    main(sys.argv[1:])
