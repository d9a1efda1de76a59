"""What runs inside a sandbox before the bot: ``sysinfo(2)`` answered with the bot's own
figures, no new numbered inode once the match has begun, and a read allow-list (SECURITY.md
"Host-wide counters", "Inode numbers"; issue 19 item 3).

``python -I -S -c SOURCE [--memory BYTES] [--lock-fd FD] [--no-landlock] PATH... -- COMMAND...``
(:func:`wrapper`), run by bwrap after the sandbox's mounts are made (Landlock forbids
making mounts once applied, so it cannot be applied outside), before ``prlimit`` and the bot.
The sandbox has no procfs: its ``/proc`` is a read-only folder of the static masks
(:func:`referee.sandbox.proc_masks`), so nothing here reads ``/proc``.

1. forks: the child is the bot; this process stays, supervising (:func:`supervise`) until
   the bot exits, then exits as it did.
2. **The bot's filter** (:func:`install_filter`, in the child, Linux ≥ 5.0; its listener is
   handed to the supervisor over a socket pair): ``process_vm_readv``/``writev`` refused
   (the supervisor uses them; the sandbox's own filter leaves them to this one), and these
   calls handed to the supervisor as seccomp user notifications:

   - ``sysinfo(2)``: answered by the supervisor (:func:`answer`, written into the caller's
     memory by ``process_vm_writev``): the bot's memory limit as the machine's memory, all
     of it free, one process, no load, no swap.  The kernel's own answer is host-wide
     (load, free memory, the machine's thread count): a partner holding memory or threads
     while frozen shows in it.  Refusing the call is no fix: glibc's
     ``sysconf(_SC_PHYS_PAGES)`` ignores the error and returns garbage.
   - the calls that make an inode numbered by a machine-wide counter (:data:`LOCKED`:
     ``pipe``, ``pipe2``, ``socket``, ``socketpair``, ``accept``, ``accept4`` — the
     kernel's ``get_next_ino()`` —, ``mq_open`` and a huge-page ``mmap`` — the same —,
     ``memfd_create``, ``shmget`` and a shared ``mmap`` — the internal shmem mount's counter): let through until the
     referee **locks** the sandbox (a byte ``L`` on ``--lock-fd``, written once the bot has
     answered ``StartMatch``), refused (EPERM) after it.  Two processes of one entrant
     could otherwise signal through such a counter: one moves it, the other reads it in a
     new inode's number (red teams 8, 9).  Before the lock a bot knows no card, after it
     it moves no counter.  The one exception is the referee's own connection: each byte
     ``A`` lets one ``accept``/``accept4`` through (the referee writes it before it dials
     a channel after the lock; in a match it dials before); any other ``accept`` after the
     lock fails with EAGAIN (nothing to accept), so a server's accept loop goes back to waiting.
3. **Landlock**, in the child: reading files and listing folders is allowed beneath every
   top-level entry of the sandbox's root but ``/proc``; in ``/proc`` only beneath the
   ``PATH`` given (the masks).  Where the kernel has Landlock's scopes (Linux ≥ 6.12), the
   bot cannot signal this supervisor either (killing it would only end the bot's own
   sandbox).  Landlock (Linux ≥ 5.13) is unprivileged and stacks: a bot may add rules,
   never remove these.
4. the child resets the signals Python ignores and replaces itself with ``COMMAND``.

Exit status 126 with a message when a protection cannot be set up: the bot is never
started without it.  Standard library only (it runs with ``-I -S``, before any venv).
"""

from __future__ import annotations

import _signal  # not signal, nor functools or platform: each costs this start milliseconds
import _socket  # not socket: its imports (enum, selectors) cost ~30 ms a start
import ctypes
import os
import select
import stat
import struct
import sys
import time

_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446  # every architecture
_LANDLOCK_VERSION = 1
_RULE_PATH_BENEATH = 1
_READ_FILE, _READ_DIR = 1 << 2, 1 << 3
_SCOPE_SIGNAL = 1 << 1  # no signal to a process outside the ruleset's domain (ABI 6, Linux 6.12)
_PR_SET_NO_NEW_PRIVS = 38

#: Syscall numbers by machine: the audit architecture, and the calls :func:`install_filter` names.
_SYSCALLS = {
    "x86_64": dict(arch=0xC000003E, seccomp=317, sysinfo=99, process_vm_readv=310, process_vm_writev=311,
                   pipe=22, pipe2=293, socket=41, socketpair=53, accept=43, accept4=288, memfd_create=319,
                   mq_open=240, shmget=29, mmap=9),
    "aarch64": dict(arch=0xC00000B7, seccomp=277, sysinfo=179, process_vm_readv=270, process_vm_writev=271,
                    pipe2=59, socket=198, socketpair=199, accept=202, accept4=242, memfd_create=279,
                    mq_open=180, shmget=194, mmap=222),
}
#: The calls refused once the sandbox is locked (``mmap``: a shared mapping, ``MAP_SHARED``, or
#: huge pages, ``MAP_HUGETLB``: each is a new inode of a kernel-internal mount, the latter's
#: numbered by ``get_next_ino()`` even when no huge page is there and the call fails).
LOCKED = ("pipe", "pipe2", "socket", "socketpair", "accept", "accept4", "memfd_create", "mq_open", "shmget", "mmap")
_ACCEPTS = ("accept", "accept4")
_MAP_SHARED = 0x01  # MAP_SHARED_VALIDATE (0x03) has it too
_MAP_HUGETLB = 0x40000
_X32_BIT = 0x40000000  # x86_64's x32 calls: the same architecture, numbers with this bit
_SET_MODE_FILTER, _FLAG_NEW_LISTENER = 1, 8
_RET_ALLOW, _RET_USER_NOTIF, _RET_ERRNO = 0x7FFF0000, 0x7FC00000, 0x00050000
_FLAG_CONTINUE = 1  # SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel runs the call as asked
_NOTIF_RECV, _NOTIF_SEND, _NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
_NOTIF_SIZE = 80  # struct seccomp_notif: id, pid, flags, seccomp_data (nr, arch, ip, args[6])
_RESPONSE = struct.Struct("=QqiI")  # struct seccomp_notif_resp: id, val, error, flags
#: struct sysinfo on a 64-bit Linux: uptime, loads[3], totalram, freeram, sharedram, bufferram,
#: totalswap, freeswap, procs (+ padding), totalhigh, freehigh, mem_unit (+ padding): 112 bytes.
SYSINFO = struct.Struct("=q3Q6QHH4xQQI4x")
_EFAULT, _EPERM, _EAGAIN = 14, 1, 11


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
                is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)  # (no procfs here to ask)
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
    and ``proc_paths``."""
    return [os.path.join("/", name) for name in sorted(os.listdir("/")) if name != "proc"] + list(proc_paths)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def filter_program(machine: str) -> list[tuple[int, int, int, int]]:
    """The classic BPF program of :func:`install_filter` for ``machine`` (``os.uname().machine``),
    as ``(code, jump if true, jump if false, k)``:

    - EPERM: ``process_vm_readv``/``writev``; every call numbered from the x32 bit up
      (x86_64's x32 numbering of the same calls); and ``seccomp`` asking for a listener of
      its own (``SECCOMP_FILTER_FLAG_NEW_LISTENER``): of two filters that hand a call to a
      listener the newest wins, so a bot's own listener could let a locked call through;
    - to the listener: ``sysinfo`` and :data:`LOCKED` (``mmap`` with ``MAP_SHARED`` or
      ``MAP_HUGETLB`` only);
    - every other call is left to the sandbox's own filter (another architecture's calls
      too: it kills them).

    Raises:
        KeyError: a machine not in :data:`_SYSCALLS`.
    """
    n = _SYSCALLS[machine]
    notified = [n["sysinfo"], *(n[c] for c in LOCKED if c in n and c != "mmap")]
    refused = [n["process_vm_readv"], n["process_vm_writev"]]
    ops: list[tuple[int, object, object, int]] = []  # jump targets as labels, resolved below

    def op(code: int, k: int, true: object = 0, false: object = 0) -> None:
        ops.append((code, true, false, k))

    op(0x20, 4)  # load seccomp_data.arch
    op(0x15, n["arch"], false="allow")
    op(0x20, 0)  # load seccomp_data.nr
    op(0x35, _X32_BIT, true="errno")  # jge
    for nr in notified:
        op(0x15, nr, true="notify")
    for nr in refused:
        op(0x15, nr, true="errno")
    op(0x15, n["seccomp"], false="mmap")
    op(0x20, 16 + 1 * 8)  # seccomp_data.args[1] (flags), its low 32 bits
    op(0x45, _FLAG_NEW_LISTENER, true="errno", false="allow")  # jset
    labels = {"mmap": len(ops)}
    op(0x15, n["mmap"], false="allow")
    op(0x20, 16 + 3 * 8)  # seccomp_data.args[3] (flags)
    op(0x45, _MAP_SHARED | _MAP_HUGETLB, true="notify", false="allow")
    labels.update(allow=len(ops), notify=len(ops) + 1, errno=len(ops) + 2)
    op(0x06, _RET_ALLOW)
    op(0x06, _RET_USER_NOTIF)
    op(0x06, _RET_ERRNO | _EPERM)
    # a conditional jump counts from the next instruction, forward only
    return [(code, labels[t] - i - 1 if isinstance(t, str) else t, labels[f] - i - 1 if isinstance(f, str) else f, k)
            for i, (code, t, f, k) in enumerate(ops)]


def install_filter() -> int:
    """Install :func:`filter_program` for this process and every process it starts
    (``SECCOMP_RET_USER_NOTIF``, Linux ≥ 5.0; no new privileges).  Returns the listener's
    descriptor; raises OSError when refused, KeyError on a machine it does not know."""
    machine = os.uname().machine
    raw = b"".join(struct.pack("=HBBI", *op) for op in filter_program(machine))
    code = ctypes.create_string_buffer(raw, len(raw))
    libc = _libc()
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    return _check(libc.syscall(_SYSCALLS[machine]["seccomp"], _SET_MODE_FILTER, _FLAG_NEW_LISTENER,
                               ctypes.byref(_Program(len(raw) // 8, ctypes.addressof(code)))),
                  "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)")


def answer(memory_bytes: int) -> bytes:
    """``struct sysinfo`` of the bot's own machine: ``memory_bytes`` of memory, all free, no
    shared or buffer memory, no swap, one process, loads of 0; the uptime is the clock's
    (``CLOCK_BOOTTIME``, which a bot reads anyway), in seconds; ``mem_unit`` 1 byte."""
    uptime = int(time.clock_gettime(time.CLOCK_BOOTTIME))
    return SYSINFO.pack(uptime, 0, 0, 0, memory_bytes, memory_bytes, 0, 0, 0, 0, 1, 0, 0, 0, 1)


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class Supervisor:
    """Answers the notifications of :func:`install_filter`'s listener (see the module
    docstring) and follows the referee's lock descriptor.

    Attributes:
        locked: whether the referee has locked the sandbox (or closed the descriptor).
        accepts: ``accept`` calls the referee has let through and the bot has not yet made.
    """

    def __init__(self, listener: int, memory_bytes: int, lock_fd: int = -1, log_fd: int = -1) -> None:
        self.listener, self.memory_bytes, self.lock_fd, self.log_fd = listener, memory_bytes, lock_fd, log_fd
        self.locked, self.accepts = False, 0
        self._told: set[str] = set()  # the calls the bot's log was told of
        names = _SYSCALLS[os.uname().machine]
        self._names = {nr: name for name, nr in names.items()}
        self._libc = _libc()
        self._notice = ctypes.create_string_buffer(_NOTIF_SIZE)

    def read_lock(self) -> None:
        """Take in what the referee wrote on the lock descriptor (without waiting)."""
        if self.lock_fd < 0:
            return
        poller = select.poll()  # not select: the descriptor's number may be past 1,023 (red team 42)
        poller.register(self.lock_fd, select.POLLIN | select.POLLHUP)
        while poller.poll(0):
            data = os.read(self.lock_fd, 512)
            if not data:  # the referee is gone: tighten
                self.locked = True
                self.lock_fd = -1
                return
            self.locked = self.locked or b"L" in data
            self.accepts += data.count(b"A")

    def handle(self) -> None:
        """Receive one notification and answer it."""
        libc, notice = self._libc, self._notice
        ctypes.memset(notice, 0, _NOTIF_SIZE)
        if libc.ioctl(self.listener, _NOTIF_RECV, notice) < 0:
            return  # the caller died meanwhile (ENOENT), or a signal came (EINTR)
        call, pid, _, nr = struct.unpack_from("=QIIi", notice, 0)
        name = self._names.get(nr)
        error, flags = 0, 0
        if name == "sysinfo":
            pointer = struct.unpack_from("=Q", notice, 32)[0]  # seccomp_data.args[0]
            data = answer(self.memory_bytes)
            buf = ctypes.create_string_buffer(data, len(data))
            local, remote = _IoVec(ctypes.addressof(buf), len(data)), _IoVec(pointer, len(data))
            if libc.ioctl(self.listener, _NOTIF_ID_VALID, ctypes.byref(ctypes.c_uint64(call))) < 0:
                return  # the call is gone: that pid may be another process's now
            written = libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
            error = 0 if written == len(data) else -_EFAULT
        else:
            self.read_lock()  # a lock written before this call was made is seen before it is answered
            if not self.locked:
                flags = _FLAG_CONTINUE
            elif name in _ACCEPTS:
                if self.accepts > 0:
                    self.accepts -= 1
                    flags = _FLAG_CONTINUE
                else:
                    error = -_EAGAIN
            else:
                error = -_EPERM
                self._tell(name)
        response = ctypes.create_string_buffer(_RESPONSE.pack(call, 0, error, flags), _RESPONSE.size)
        libc.ioctl(self.listener, _NOTIF_SEND, response)

    def _tell(self, name: str | None) -> None:
        """Say once per call in the bot's own output (``log_fd``) why it was refused."""
        if self.log_fd < 0 or name in self._told:
            return
        self._told.add(name)
        what = f"{name}()" + (" with MAP_SHARED or MAP_HUGETLB" if name == "mmap" else "")
        try:
            os.write(self.log_fd, f"referee.inside: {what} refused (EPERM): once it has answered StartMatch a bot "
                     "makes no pipe, socket or shared memory; make them at start-up (docs/PROTOCOL.md §2)\n".encode())
        except OSError:
            pass

    def run(self, child: int) -> int:
        """Answer until ``child`` exits; returns its wait status.  The child's end is seen by
        ``SIGCHLD`` (no pidfd: the sandbox refuses them, their inode numbers count the
        machine's processes)."""
        wake, woken = os.pipe()  # SIGCHLD writes a byte here (the signal's wakeup descriptor)
        os.set_blocking(woken, False)
        _signal.set_wakeup_fd(woken)
        _signal.signal(_signal.SIGCHLD, lambda *_: None)
        poller = select.poll()
        poller.register(self.listener, select.POLLIN)
        poller.register(wake, select.POLLIN)
        if self.lock_fd >= 0:
            poller.register(self.lock_fd, select.POLLIN)
        while True:
            done, status = os.waitpid(child, os.WNOHANG)  # before each wait: an end before the handler was set
            if done:
                return status
            ready = {fd for fd, _ in poller.poll()}
            if wake in ready:
                os.read(wake, 512)
            if self.lock_fd >= 0 and self.lock_fd in ready:
                fd = self.lock_fd
                self.read_lock()
                if self.lock_fd < 0:
                    poller.unregister(fd)
            if self.listener in ready:
                self.handle()


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
    landlock = "--no-landlock" not in options
    proc_paths = [o for o in options if o.startswith("/")]
    memory = int(options[options.index("--memory") + 1]) if "--memory" in options else 0
    lock_fd = int(options[options.index("--lock-fd") + 1]) if "--lock-fd" in options else -1
    if not command:
        _fail("no command given")
    up, down = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)  # the child hands its listener up
    child = os.fork()
    if child:  # the supervisor: holds none of the bot's streams (but a copy of its output, to say what it refused)
        down.close()
        log = os.dup(2)
        os.close(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        try:
            _, ancillary, _, _ = up.recvmsg(1, _socket.CMSG_SPACE(4))
            fds = [struct.unpack("=i", data[:4])[0] for level, kind, data in ancillary
                   if (level, kind) == (_socket.SOL_SOCKET, _socket.SCM_RIGHTS)]
        except OSError:
            fds = []
        up.close()
        if not fds:  # the child failed (and says why): wait for it
            _exit_as(os.waitpid(child, 0)[1])
        _exit_as(Supervisor(fds[0], memory, lock_fd, log).run(child))
    up.close()
    if lock_fd >= 0:
        os.close(lock_fd)  # the bot must not read the referee's lock
    try:
        listener = install_filter()
        down.sendmsg([b"L"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("=i", listener))])
        os.close(listener)
    except (OSError, KeyError) as e:
        _fail(f"cannot install the sandbox's filter ({e})")
    down.close()
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


def wrapper(python: str, proc_paths: list[str], *, memory_bytes: int, landlock: bool, lock_fd: int = -1) -> list[str]:
    """The command prefix that runs this module inside a sandbox with ``python`` (a path the
    sandbox shows), before the bot's command: ``[python, -I, -S, -c, SOURCE, options…, --]``.

    Args:
        python: the interpreter, as the sandbox shows it.
        proc_paths: the paths of ``/proc`` the bot may read (the masks).
        memory_bytes: the memory ``sysinfo(2)`` reports (bytes; > 0).
        landlock: apply the read allow-list (:func:`abi` must be ≥ 1).
        lock_fd: the descriptor (as the sandbox inherits it) the referee locks the sandbox
            through, or -1 for a sandbox never locked.
    """
    options = ["--memory", str(memory_bytes), *(["--lock-fd", str(lock_fd)] if lock_fd >= 0 else []),
               *([] if landlock else ["--no-landlock"])]
    return [python, "-I", "-S", "-c", _source(), *options, *proc_paths, "--"]


if __name__ == "__main__":
    main(sys.argv[1:])
