"""Attack bot 'attack_partner' (tests/bots/README.md, issue 9): partner channels and table-2 memory.

``python bot.py --out DIR --tag TAG``. At every decision each process publishes
``{"token", "seat", "hand", "deal"}`` (its current hand) on every channel below,
then reads every channel for what *other* processes of its entrant (same name)
published, and reports one line per channel (tests/bots/attack_common.py):
``SUCCEEDED: [payloads of other processes]`` or ``blocked: <why>``. The two
processes of one seat pair at a table are partners; a table-2 process reading a
table-1 payload of the same board is table-2 memory.

Channels (``NS`` = ``TAG-<entrant name>``):

- ``dev-shm-file``: ``/dev/shm/NS-<token>.json``, partners' found by glob;
- ``tmp-file``: the same in ``/tmp``;
- ``home-file``: in ``$HOME``; partners' searched through ``/proc/*/root/arena/work``,
  ``/proc/*/cwd``, ``/tmp/belote-referee-*/*`` and the parent of ``$HOME``;
- ``unix-socket``: a Unix socket in ``$HOME`` serving the payload, searched likewise;
- ``abstract-socket``: ``\\0NS-<token>``, found in ``/proc/net/unix`` (the sandbox has no procfs:
  ``blocked: no /proc/net/unix``, SECURITY.md "The inode numbers");
- ``sysv-shm`` / ``sysv-msg``: System V shared memory (a slot per seat) and a message
  queue (message type: the sender's seat) under fixed keys (:func:`attack_common.ipc_key`);
- ``posix-mq``: POSIX message queues ``/NS-seatS``, one per seat;
- ``signal``: ``kill(pid, 0)`` over every pid (once per process): any process that is
  neither this one nor its threads or children, reachable by a signal, is a channel (its threads
  and children found without procfs too: ``tgkill``, ``waitid``);
- ``grpc-socket``: every ``*.sock`` under ``/proc/*/root/arena/work``,
  ``/tmp/belote-referee-*/*`` and ``/arena/work`` but its own, dialled: ``GetBotInfo``,
  then, for a process of its own entrant, a ``Decide`` whose observation's ruleset is
  ``attack-magic:NS``, answered with the payload (bytes as card ranks); a socket that answered
  as another entrant's bot is not dialled again, and new ones at most 2 s a decision (a machine
  running other arenas shows their sockets too);
- ``inherited-fds``: descriptors open at start-up other than 0, 1, 2 (once; found by ``os.fstat``:
  no ``/proc/self/fd`` in the sandbox);
- through the files every sandbox binds read-only from the same host inodes: the
  interpreter's standard library (:func:`shared_files`, sorted ``.py`` and data files).
  A lock channel has 24 slots of 59 bits; a process claims a free one, writes there
  16 bits of ``crc32(NS)``, its seat, its hand (a 32-card mask) and a check byte, then
  a ready bit, and reads every other claimed, ready slot of its NS (the payload it
  rebuilds has seat and hand, ``"token": "<channel>-slotK"``, no deal); nothing blocks:

  - ``flock``: a ``.py`` file per bit (claim: ``LOCK_EX``; a bit set: ``LOCK_EX``), read
    by a ``LOCK_SH | LOCK_NB`` attempt on a descriptor of its own (refused: set);
  - ``posix-lock``: ``fcntl`` record locks on bytes of one data file (``F_SETLK``, a read
    lock per set bit: the file is read-only), read with ``F_GETLK``;
  - ``ofd-lock``: the same with open-file-description locks (``F_OFD_SETLK``/``GETLK``);
  - ``inotify``: each process watches 34 data files for ``IN_OPEN`` from its start
    (``inotify_init1``, ``inotify_add_watch``) and sends its whole payload as a run of
    opens (start file, 35 nibbles alternating between two banks of 16 files, end file);
    at its next decision it decodes the queued runs of its NS (a nonblocking read).

Plays a random legal action.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import glob
import json
import os
import random
import struct
import sys
import time
import zlib

from attack_common import open_fds  # (standard library only: it opens nothing it keeps)

FDS_AT_START = open_fds()  # before anything opens its own

import socket  # noqa: E402
import threading  # noqa: E402

import grpc  # noqa: E402

from attack_common import (  # noqa: E402
    TOKEN, Reporter, check, describe_fd, ipc_key, libc, own_children, own_threads, visible_pids,
)
from belote_arena_sdk.proto import bot_pb2_grpc  # noqa: E402
from belote_arena_sdk import Bot, pb, serve  # noqa: E402
from belote_arena_sdk.cards import card_str  # noqa: E402

IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
SLOT = 2048
MAGIC = "attack-magic:"
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.mq_open.restype = ctypes.c_int
libc.mq_receive.restype = ctypes.c_ssize_t


# ---------------------------------------------------------------- the files every sandbox shares
CARDS = [r + s for s in "SHDC" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")]  # hand: a 32-bit mask
SLOT_FIELDS = (("ns", 16), ("seat", 2), ("hand", 32), ("check", 8))  # a lock slot's bits, low first
DATA_BITS = sum(n for _, n in SLOT_FIELDS)
READY = DATA_BITS  # the slot's last bit: set once the others are written
SLOT_BITS = DATA_BITS + 1
LOCK_SLOTS = 24  # slots per lock channel: 8 processes a match, room for concurrent runs
IN_OPEN, IN_Q_OVERFLOW, IN_NONBLOCK, IN_CLOEXEC = 0x20, 0x4000, 0o4000, 0o2000000
F_OFD_GETLK, F_OFD_SETLK = 36, 37
NIBBLES = 35  # an inotify message: ns 16 bits, token 48, seat 4, hand 32, deal 32, check 8
libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]


def shared_files() -> tuple[list[str], list[str]]:
    """The interpreter's standard library, which every sandbox binds read-only from the same host
    files (same inodes), sorted so that every process computes the same lists: its ``.py`` files
    and its data files (what no process of a match opens). ``site-packages``, ``__pycache__`` and
    the build configuration are left out (files may appear there while a match runs)."""
    lib = os.path.realpath(os.path.join(sys.base_prefix, "lib", "python%d.%d" % sys.version_info[:2]))
    py, data = [], []
    for root, dirs, files in os.walk(lib):
        dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__")
                   and not d.startswith("config-")]
        for f in files:
            ext = os.path.splitext(f)[1]
            if ext == ".py":
                py.append(os.path.join(root, f))
            elif ext not in (".pyc", ".so", ".pickle", ".pth", ".a", ".o"):
                data.append(os.path.join(root, f))
    return sorted(py), sorted(data)


def hand_mask(hand: list[str]) -> int:
    return sum(1 << CARDS.index(c) for c in hand if c in CARDS)


def mask_hand(mask: int) -> list[str]:
    return sorted(c for i, c in enumerate(CARDS) if mask >> i & 1)


def ns_hash(ns: str) -> int:
    return zlib.crc32(ns.encode()) & 0xFFFF


def check8(value: int) -> int:
    return zlib.crc32(value.to_bytes(24, "little")) & 0xFF


class FlockBoard:
    """Lock slots of BSD ``flock`` on shared files: a file per bit (locked = 1), slot ``k`` is the files
    ``k·(SLOT_BITS+1)`` on, the first its claim (held ``LOCK_EX`` by its owner). Another process's bit
    is probed by a ``LOCK_SH | LOCK_NB`` attempt on a descriptor of its own (refused: locked)."""

    name = "flock"

    def __init__(self, files: list[str]):
        self.files = files
        self.slots = min(LOCK_SLOTS, len(files) // (SLOT_BITS + 1))
        self.fds: dict[int, int] = {}  # own slot: index -> descriptor holding its lock

    def _path(self, k: int, i: int) -> str:  # i = -1: the claim
        return self.files[k * (SLOT_BITS + 1) + i + 1]

    @staticmethod
    def _probe(path: str) -> bool:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # drops the probe's own lock
        return False

    def _fd(self, k: int, i: int) -> int:
        if i not in self.fds:
            self.fds[i] = os.open(self._path(k, i), os.O_RDONLY | os.O_CLOEXEC)
        return self.fds[i]

    def try_claim(self, k: int) -> bool:
        fd = os.open(self._path(k, -1), os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except OSError:
            os.close(fd)
            raise
        self.fds[-1] = fd
        return True

    def claimed(self, k: int) -> bool:
        return self._probe(self._path(k, -1))

    def put(self, k: int, i: int, on: bool) -> None:
        fd = self._fd(k, i)
        if not on:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return
        for _ in range(50):  # a reader's probe holds it for microseconds
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                time.sleep(0.001)
        raise TimeoutError(f"flock: bit {i} stays locked by another process")

    def get(self, k: int, i: int) -> bool:
        return self._probe(self._path(k, i))


class _Flock(ctypes.Structure):
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short), ("l_start", ctypes.c_int64),
                ("l_len", ctypes.c_int64), ("l_pid", ctypes.c_int)]


class RecordLockBoard:
    """Lock slots of ``fcntl`` byte-range locks on one shared file: slot ``k`` is bytes ``64·k`` on, the
    first its claim, a read lock (``F_SETLK``, ``F_RDLCK``: the file is read-only) on a byte = 1.
    Another process's byte is probed with ``F_GETLK`` for a write lock there (it reports a
    conflicting lock of another owner). ``ofd``: open-file-description locks (``F_OFD_*``)."""

    def __init__(self, path: str, ofd: bool):
        self.name = "ofd-lock" if ofd else "posix-lock"
        self.path, self.slots, self.fd = path, LOCK_SLOTS, None
        self.getlk, self.setlk = (F_OFD_GETLK, F_OFD_SETLK) if ofd else (fcntl.F_GETLK, fcntl.F_SETLK)

    def _off(self, k: int, i: int) -> int:  # i = -1: the claim
        return 64 * k + i + 1

    def _lock(self, off: int, kind: int) -> None:
        if self.fd is None:  # one descriptor for good: closing any would drop this process's locks
            self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        fcntl.fcntl(self.fd, self.setlk, bytes(_Flock(kind, os.SEEK_SET, off, 1, 0)))

    def _held(self, off: int) -> bool:
        if self.fd is None:
            self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        got = fcntl.fcntl(self.fd, self.getlk, bytes(_Flock(fcntl.F_WRLCK, os.SEEK_SET, off, 1, 0)))
        return _Flock.from_buffer_copy(got).l_type != fcntl.F_UNLCK

    def try_claim(self, k: int) -> bool:
        off = self._off(k, -1)
        if self._held(off):
            return False
        self._lock(off, fcntl.F_RDLCK)
        if self._held(off):  # another process claimed it at the same time: read locks do not exclude
            self._lock(off, fcntl.F_UNLCK)
            return False
        return True

    def claimed(self, k: int) -> bool:
        return self._held(self._off(k, -1))

    def put(self, k: int, i: int, on: bool) -> None:
        self._lock(self._off(k, i), fcntl.F_RDLCK if on else fcntl.F_UNLCK)

    def get(self, k: int, i: int) -> bool:
        return self._held(self._off(k, i))


class LockChannel:
    """A process claims a free slot of a lock board, writes ``SLOT_FIELDS`` of its payload there as
    locks, and reads every other claimed, ready slot of its entrant (the ``ns`` field) with probes
    that never block. What a reader gets is rebuilt from the bits: seat and hand (no token, no deal)."""

    def __init__(self, board, ns: str):
        self.board, self.ns = board, ns_hash(ns)
        self.slot: int | None = None
        self.bits = [False] * SLOT_BITS

    def _put(self, i: int, on: bool) -> None:
        if self.bits[i] != on:
            self.board.put(self.slot, i, on)
            self.bits[i] = on

    def publish(self, seat: int, hand: list[str]) -> None:
        b = self.board
        if self.slot is None:
            order = list(range(b.slots))
            random.shuffle(order)  # processes of another run may be claiming too
            self.slot = next((k for k in order if b.try_claim(k)), None)
            if self.slot is None:
                raise LookupError(f"{b.name}: no free slot of {b.slots}")
        value = self.ns | seat << 16 | hand_mask(hand) << 18
        value |= check8(value) << 50
        self._put(READY, False)
        for i in range(DATA_BITS):
            self._put(i, bool(value >> i & 1))
        self._put(READY, True)

    def read(self) -> list[dict]:
        b, out = self.board, []
        for k in range(b.slots):
            if k == self.slot or not b.claimed(k) or not b.get(k, READY):
                continue
            if sum(b.get(k, i) << i for i in range(16)) != self.ns:
                continue  # another entrant's process (or another run's)
            value = self.ns | sum(b.get(k, i) << i for i in range(16, DATA_BITS))
            if check8(value & ((1 << 50) - 1)) != value >> 50:
                continue
            out.append({"token": f"{b.name}-slot{k}", "seat": value >> 16 & 3,
                        "hand": mask_hand(value >> 18 & 0xFFFFFFFF), "deal": None})
        return out


class InotifyChannel:
    """Open events on shared files, watched with ``inotify``: a process sends its payload as a run of
    opens (a start file, 35 nibbles, an end file; nibbles alternate between two banks of 16 files,
    since identical consecutive events are merged), every process watches all 34 files from its
    start and decodes the runs at its next decision (a nonblocking read of the queued events)."""

    def __init__(self, files: list[str], ns: str):
        self.ns, self.files = ns_hash(ns), files[:34]
        self.fd, self.error, self.wd = -1, None, {}
        self.run: list[int] | None = None
        self.got: dict[str, dict] = {}
        try:
            if len(self.files) < 34:
                raise LookupError(f"inotify: {len(self.files)} shared data files, 34 needed")
            self.fd = check(libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC), "inotify_init1")
            for sym, path in enumerate(self.files):
                self.wd[check(libc.inotify_add_watch(self.fd, path.encode(), IN_OPEN), "inotify_add_watch")] = sym
        except (OSError, LookupError) as e:
            self.error = e

    def send(self, token: str, seat: int, hand: list[str], deal: int) -> None:
        value = self.ns | int(token, 16) << 16 | seat << 64 | hand_mask(hand) << 68 | (deal & 0xFFFFFFFF) << 100
        value |= check8(value) << 132
        nibbles = [value >> 4 * i & 15 for i in range(NIBBLES)]
        for sym in (0, *(2 + 16 * (i % 2) + n for i, n in enumerate(nibbles)), 1):
            os.close(os.open(self.files[sym], os.O_RDONLY | os.O_CLOEXEC))

    def _feed(self, sym: int) -> None:
        if sym == 0:
            self.run = []
        elif self.run is None:
            return
        elif sym == 1:
            if len(self.run) == NIBBLES:
                value = sum(n << 4 * i for i, n in enumerate(self.run))
                if value & 0xFFFF == self.ns and check8(value & ((1 << 132) - 1)) == value >> 132:
                    token = f"{value >> 16 & (1 << 48) - 1:012x}"
                    self.got[token] = {"token": token, "seat": value >> 64 & 15,
                                       "hand": mask_hand(value >> 68 & 0xFFFFFFFF), "deal": value >> 100 & 0xFFFFFFFF}
            self.run = None
        elif (sym - 2) // 16 != len(self.run) % 2 or len(self.run) >= NIBBLES:
            self.run = None  # out of step: a lost or a foreign event
        else:
            self.run.append((sym - 2) % 16)

    def exchange(self, token: str, seat: int, hand: list[str], deal: int) -> list[dict]:
        """Send this decision's payload, then decode every run queued since the last decision."""
        if self.error is not None:
            raise self.error
        self.send(token, seat, hand, deal)
        self.got = {}
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            off = 0
            while off + 16 <= len(data):
                wd, mask, _cookie, n = struct.unpack_from("iIII", data, off)
                off += 16 + n
                if mask & IN_Q_OVERFLOW:
                    self.run = None
                elif wd in self.wd:
                    self._feed(self.wd[wd])
        return list(self.got.values())


def _pid_max() -> int:
    try:
        return min(int(open("/proc/sys/kernel/pid_max").read()), 1 << 16)
    except (OSError, ValueError):
        return 1 << 15


class PartnerBot(Bot):
    def __init__(self, out: str, tag: str):
        super().__init__()
        self.name_ = self.info().name
        self.ns = f"{tag}-{self.name_}"
        self.report = Reporter(out, bot="attack_partner", name=self.name_)
        self.seat: int | None = None
        self.hand: list[str] = []
        self.deal = 0
        self.lock = threading.Lock()
        self.home = os.environ.get("HOME", "/arena/work")
        self.own_listen = os.environ.get("BELOTE_BOT_LISTEN", "")
        self.shm_addr = None
        self.msq = None
        self.mqd = None
        self.channels: dict[str, object] = {}
        self.others: dict[str, str] = {}  # gRPC sockets that answered as another entrant's bot: path -> name
        self.dialled = 0  # where the next decision's dialling starts among sockets not yet known
        self.signals_done = False
        self.report.attempt("partner:inherited-fds", self._fds)
        # the files every sandbox shares read-only: lock slots on them, open events watched on them
        py_files, data_files = shared_files()
        self.locks = [LockChannel(FlockBoard(py_files), self.ns)]
        self.locks += [LockChannel(RecordLockBoard(path, ofd), self.ns)
                       for path, ofd in zip(data_files[:2], (False, True))]
        self.inotify = InotifyChannel(data_files[2:], self.ns)  # watching from the start
        # servers of the socket channels: they answer every connection with the latest payload
        self.sock_path = os.path.join(self.home, f"{self.ns}-{TOKEN}.sock")
        for name, addr in (("unix-socket", self.sock_path), ("abstract-socket", f"\0{self.ns}-{TOKEN}")):
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(addr)
                s.listen(16)
                threading.Thread(target=self._serve, args=(s,), daemon=True).start()
            except OSError as e:
                self.report.write(attack=f"partner:{name}", result=f"blocked: cannot listen: {os.strerror(e.errno)}")

    # ------------------------------------------------------------ helpers
    def payload(self) -> bytes:
        return json.dumps({"token": TOKEN, "seat": self.seat, "hand": self.hand, "deal": self.deal}).encode()

    def _serve(self, s: socket.socket) -> None:
        while True:
            c, _ = s.accept()
            with self.lock:
                data = self.payload()
            try:
                c.sendall(data)
            finally:
                c.close()

    @staticmethod
    def _foreign(raws) -> list[dict]:
        out = []
        for raw in raws:
            try:
                msg = json.loads(raw.rstrip(b"\0") if isinstance(raw, bytes) else raw)
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(msg, dict) and msg.get("token") not in (None, TOKEN):
                out.append(msg)
        return out

    def _verdict(self, raws, searched: str) -> str:
        got = self._foreign(raws)
        return json.dumps(got) if got else f"blocked: nothing from another process ({searched})"

    def _places(self, suffix: str) -> list[str]:
        patterns = [f"/proc/*/root/arena/work/{self.ns}-*{suffix}", f"/proc/*/cwd/{self.ns}-*{suffix}",
                    f"/tmp/belote-referee-*/*/{self.ns}-*{suffix}", f"{os.path.dirname(self.home)}/*/{self.ns}-*{suffix}",
                    f"{self.home}/{self.ns}-*{suffix}"]
        found = set()
        for p in patterns:
            found.update(q for q in glob.glob(p) if TOKEN not in os.path.basename(q))
        return sorted(found)

    @staticmethod
    def _write(path: str, data: bytes) -> None:
        tmp = f"{path}.part"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    # ------------------------------------------------------------ channels
    def _fds(self) -> str:
        extra = []
        for fd in FDS_AT_START:
            if fd > 2:
                try:
                    extra.append(f"{fd}->{describe_fd(fd)}")
                except OSError:
                    continue  # closed since
        return f"inherited {extra}" if extra else "blocked: nothing but 0, 1, 2 inherited"

    def file_channel(self, folder: str, search: bool) -> str:
        self._write(os.path.join(folder, f"{self.ns}-{TOKEN}.json"), self.payload())
        paths = self._places(".json") if search else [
            p for p in glob.glob(os.path.join(folder, f"{self.ns}-*.json")) if TOKEN not in p]
        raws = []
        for p in paths:
            try:
                raws.append(open(p, "rb").read())
            except OSError:
                continue
        return self._verdict(raws, f"{len(paths)} files found")

    def unix_channel(self) -> str:
        paths = self._places(".sock")
        raws = []
        for p in paths:
            try:
                raws.append(self._recv(p))
            except OSError:
                continue
        return self._verdict(raws, f"{len(paths)} sockets found")

    def abstract_channel(self) -> str:
        names = []
        try:
            table = open("/proc/net/unix").read()
        except OSError as e:  # the sandbox has no procfs (SECURITY.md "The inode numbers")
            return f"blocked: no /proc/net/unix: {os.strerror(e.errno)}"
        for line in table.splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 8 and parts[7].startswith(f"@{self.ns}-") and TOKEN not in parts[7]:
                names.append("\0" + parts[7][1:])
        raws = []
        for n in sorted(set(names)):
            try:
                raws.append(self._recv(n))
            except OSError:
                continue
        return self._verdict(raws, f"{len(set(names))} abstract names found")

    @staticmethod
    def _recv(addr: str) -> bytes:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.3)
        try:
            s.connect(addr)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
            return data
        finally:
            s.close()

    def shm_channel(self) -> str:
        if self.shm_addr is None:
            shmid = check(libc.shmget(ipc_key(self.ns, "shm"), 4 * SLOT, IPC_CREAT | 0o666), "shmget")
            addr = libc.shmat(shmid, None, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                check(-1, "shmat")
            self.shm_addr = addr
        data = self.payload()[: SLOT - 1]
        ctypes.memmove(self.shm_addr + self.seat * SLOT, data.ljust(SLOT, b"\0"), SLOT)
        raws = [ctypes.string_at(self.shm_addr + s * SLOT, SLOT) for s in range(4) if s != self.seat]
        return self._verdict(raws, "3 other slots read")

    def msg_channel(self) -> str:
        if self.msq is None:
            self.msq = check(libc.msgget(ipc_key(self.ns, "msg"), IPC_CREAT | 0o666), "msgget")
        data = self.payload()
        buf = ctypes.create_string_buffer(8 + len(data))
        ctypes.c_long.from_buffer(buf).value = self.seat + 1  # message type: the sender's seat
        buf[8:] = data
        libc.msgsnd(self.msq, buf, len(data), IPC_NOWAIT)  # a full queue: the others drain it
        raws, rbuf = [], ctypes.create_string_buffer(8 + 8192)
        for seat in range(4):
            if seat != self.seat:
                while (n := libc.msgrcv(self.msq, rbuf, 8192, seat + 1, IPC_NOWAIT)) >= 0:
                    raws.append(rbuf.raw[8:8 + n])
        return self._verdict(raws, f"{len(raws)} messages of other seats received")

    def mq_channel(self) -> str:
        """One queue per seat, ``/NS-seatS``: a process sends into its own, reads the others'."""
        if self.mqd is None:
            mqd = {}  # kept only once every queue is open: a refusal is met again at each decision
            for seat in range(4):
                name = f"/{self.ns}-seat{seat}".encode()
                mqd[seat] = check(libc.mq_open(name, ctypes.c_int(os.O_CREAT | os.O_RDWR | os.O_NONBLOCK),
                                               ctypes.c_int(0o666), ctypes.c_void_p(None)), "mq_open")
            self.mqd = mqd
        data = self.payload()
        libc.mq_send(self.mqd[self.seat], data, ctypes.c_size_t(len(data)), ctypes.c_uint(0))
        raws, rbuf = [], ctypes.create_string_buffer(1 << 16)
        for seat, mqd in self.mqd.items():
            if seat != self.seat:
                while (n := libc.mq_receive(mqd, rbuf, ctypes.c_size_t(1 << 16), None)) >= 0:
                    raws.append(rbuf.raw[:n])
        return self._verdict(raws, f"{len(raws)} messages of other seats received")

    def signal_channel(self) -> str:
        own = {os.getpid(), *own_threads(), *own_children()}
        for p in visible_pids():  # own children, where there is a procfs
            try:
                if int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1]) in own:
                    own.add(int(p))
            except (OSError, IndexError, ValueError):
                continue
        reachable, errs = [], {}
        for pid in range(1, _pid_max() + 1):
            if pid in own:
                continue
            try:
                os.kill(pid, 0)
            except OSError as e:
                errs[os.strerror(e.errno)] = errs.get(os.strerror(e.errno), 0) + 1
                continue
            reachable.append(pid)
        if reachable:
            return f"signal 0 delivered to {len(reachable)} other processes, e.g. {reachable[:10]}"
        return f"blocked: no other process reachable ({errs})"

    def grpc_channel(self) -> str:
        try:
            own = os.stat(self.own_listen)
            own_id = (own.st_dev, own.st_ino)
        except OSError:
            own_id = None
        found = set()
        for p in ("/proc/*/root/arena/work/*.sock", "/tmp/belote-referee-*/*/*.sock", "/arena/work/*.sock",
                  f"{os.path.dirname(self.home)}/*/*.sock"):
            found.update(glob.glob(p))
        targets = []
        for path in sorted(found):
            try:
                st = os.stat(path)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == own_id or os.path.basename(path).startswith(self.ns):
                continue
            targets.append(path)
        raws, reached = [], [f"{name} at {path}" for path, name in self.others.items() if path in targets]
        # another entrant's bot once, not again (a machine running other arenas shows their sandboxes'
        # sockets too, and a frozen one answers nothing: each costs a timeout); the rest within 2 s a
        # decision, from where the last decision stopped
        unknown = [p for p in targets if p not in self.others]
        start = self.dialled % len(unknown) if unknown else 0
        budget = time.monotonic() + 2.0
        for k, path in enumerate(unknown[start:] + unknown[:start]):
            if time.monotonic() > budget:
                self.dialled = start + k
                break
            ch = self.channels.get(path)
            if ch is None:
                ch = self.channels[path] = grpc.insecure_channel(f"unix:{path}")
            stub = bot_pb2_grpc.BotServiceStub(ch)
            try:
                info = stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=0.5)
                reached.append(f"{info.name} at {path}")
                if info.name != self.name_:
                    self.others[path] = info.name
                else:
                    r = stub.Decide(pb.DecideRequest(observation=pb.Observation(ruleset=MAGIC + self.ns)), timeout=0.5)
                    raws.append(bytes(c.rank for c in r.action.declaration.declarations[0].cards))
            except (grpc.RpcError, IndexError, ValueError):
                continue
        got = self._foreign(raws)
        if got or reached:
            return json.dumps(got) if got else f"reached other bots' servers: {reached}"
        return f"blocked: no other bot's socket reachable ({len(targets)} found)"

    def lock_channel(self, chan: LockChannel) -> str:
        chan.publish(self.seat, self.hand)
        got = chan.read()
        return self._verdict([json.dumps(p) for p in got], f"no ready slot of this entrant among {chan.board.slots}")

    def inotify_channel(self) -> str:
        got = self.inotify.exchange(TOKEN, self.seat, self.hand, self.deal)
        return self._verdict([json.dumps(p) for p in got], "no run of opens from another process")

    # ------------------------------------------------------------ the bot
    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        self.seat = request.seat

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        if obs.ruleset.startswith(MAGIC):  # a partner asking for our payload over our gRPC socket
            raw = self.payload() if obs.ruleset == MAGIC + self.ns else b"{}"
            return pb.Action(declaration=pb.DeclarationChoice(
                declarations=[pb.Declaration(cards=[pb.Card(rank=b) for b in raw])]))
        with self.lock:
            self.seat, self.deal = obs.seat, obs.deal_number
            self.hand = sorted(card_str(c) for c in obs.hand_cards)
        me = {"seat": self.seat, "hand": self.hand, "deal": self.deal}
        self.report.write(attack="publish", result="own hand", **me)
        for name, fn in (("dev-shm-file", lambda: self.file_channel("/dev/shm", False)),
                         ("tmp-file", lambda: self.file_channel("/tmp", False)),
                         ("home-file", lambda: self.file_channel(self.home, True)),
                         ("unix-socket", self.unix_channel), ("abstract-socket", self.abstract_channel),
                         ("sysv-shm", self.shm_channel), ("sysv-msg", self.msg_channel),
                         ("posix-mq", self.mq_channel), ("grpc-socket", self.grpc_channel),
                         *((c.board.name, lambda c=c: self.lock_channel(c)) for c in self.locks),
                         ("inotify", self.inotify_channel)):
            self.report.attempt(f"partner:{name}", fn, **me)
        if not self.signals_done:
            self.signals_done = True
            self.report.attempt("partner:signal", self.signal_channel, **me)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--tag", required=True)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(PartnerBot(args.out, args.tag), rest))
