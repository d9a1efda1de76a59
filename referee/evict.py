"""Clearing the CPU caches between bot turns (SECURITY.md, "The CPU caches").

Every sandbox maps the same physical pages: the image's files (the interpreter, its
libraries) and an entrant's own frozen copy, which both of its seats at a table map.  A
bot can bring chosen lines of such a page into the CPU's caches at the end of its decision
(reading them, or executing code there) and its partner, thawed next, time its reads of
the same lines (``clflush`` and ``rdtscp`` need no privilege): a line that reads fast was
used by the partner.  Red team 33 carried ~6 bits a decision that way, 70 exact partner
hands in 264 decisions, with the partners frozen in turn (Flush+Reload); red team 34, with
executed lines, 0.24 bits a decision past a first version of this module.  What the freezer
cannot stop, the caches' memory, this module erases: before a bot is thawed, a helper
process pinned to each CPU runs a stretch of no-ops and reads a buffer, each twice the size
of that CPU's own caches (L1d and L2); once all have, the helpers of the CPUs sharing a cache
(the L3) read twice its size between them, each its part.  In that order, a line a private
cache gives up to the shared one is cleared there too.

The cost is the time of those reads, counted as the referee's time, never the bot's: ~2-7 ms
a decision with a 32 MiB L3, ~26 ms with a 105 MiB one on a quiet machine, 100 ms and more
under load (bench/RESULTS.md).  Only a bot that could time its reads needs it: the arena's own
bots (:func:`is_house`) are thawed without one.
"""

from __future__ import annotations

import atexit
import collections
import functools
import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from .manifest import ManifestError, bot_files, content_hash, open_regular

#: What a helper runs: pinned to its CPU, a buffer of real pages (written once, so that no
#: page is the shared zero page), read whole (``memchr`` of a byte that is not there) for
#: each byte received, one byte answered; it ends when its stdin closes (the referee gone).
_HELPER = r"""# belote-arena: clears the CPU caches between bot turns (referee.evict)
import os, sys
cpu, private, shared = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
os.sched_setaffinity(0, {cpu})
buf = b"\x02" * max(private, shared)
run = lambda: None
try:  # a run of no-ops as long as the private caches, executed: instruction lines as well as data
    import ctypes, mmap, platform
    nop, ret = {"x86_64": (b"\x90", b"\xc3"), "aarch64": (b"\x1f\x20\x03\xd5", b"\xc0\x03\x5f\xd6")}[platform.machine()]
    code = mmap.mmap(-1, private, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(nop * ((private - len(ret)) // len(nop)) + ret)
    run = ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(code)))
except (KeyError, OSError, ImportError):
    pass
fin, fout = sys.stdin.fileno(), sys.stdout.fileno()
os.write(fout, b"r")
while (what := os.read(fin, 1)):
    if what == b"p":
        run()
    buf.find(b"\x01", 0, private if what == b"p" else shared)
    os.write(fout, b".")
"""

#: Clearings whose times :attr:`Evictor.recent` keeps.
RECENT_CLEARINGS = 64

#: What a helper's command line says (a process that lives as long as the referee's).
HELPER = "belote-arena: clears the CPU caches"

#: Bytes read when the machine does not say its caches (no ``/sys``): (private, shared),
#: twice a 2 MiB L2 on every CPU and twice a 64 MiB last-level cache on the first.
FALLBACK = (4 << 20, 128 << 20)

_SYS = Path("/sys/devices/system/cpu")


def _cpu_list(text: str) -> list[int]:
    """``"0-3,8"`` → ``[0, 1, 2, 3, 8]`` (the kernel's CPU list format)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def _size(text: str) -> int:
    """``"32768K"`` → bytes."""
    text = text.strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * mult


def plan(sys_root: Path = _SYS, allowed: set[int] | None = None) -> dict[int, tuple[int, int]]:
    """CPU → (private, shared): bytes its helper reads first, twice the data and unified
    caches of that CPU alone (L1d, L2), and then its share of twice each cache it shares
    with others (the L3): the CPUs sharing it read their parts at once, each its own lines
    (2 CPUs: 31 ms against 52 for one reading it all, at load 4 with a 105 MiB L3), the
    lowest CPU any remainder.

    CPUs are the machine's online ones (the scheduler may put a bot on any of them), read
    from ``sys_root`` (``/sys/devices/system/cpu``), or only those of ``allowed`` (the ones a
    helper could run on: :class:`Evictor`); :data:`FALLBACK` where the caches cannot be read."""
    try:
        cpus = _cpu_list((sys_root / "online").read_text())
    except (OSError, ValueError):
        cpus = sorted(os.sched_getaffinity(0))
    if allowed is not None:
        cpus = [c for c in cpus if c in allowed] or cpus
    out: dict[int, tuple[int, int]] = {}
    for cpu in cpus:
        private = shared = 0
        try:
            for index in sorted((sys_root / f"cpu{cpu}" / "cache").glob("index*")):
                if (index / "type").read_text().strip() == "Instruction":
                    continue
                sharing = _cpu_list((index / "shared_cpu_list").read_text())
                size = _size((index / "size").read_text())
                readers = [c for c in sharing if c in cpus]
                if sharing == [cpu]:
                    private += size
                elif cpu in readers:
                    shared += size // len(readers) + (size % len(readers) if cpu == readers[0] else 0)
        except (OSError, ValueError):
            private = shared = 0
        out[cpu] = (2 * private, 2 * shared) if private else (FALLBACK[0], FALLBACK[1] if cpu == cpus[0] else 0)
    return out


class Evictor:
    """One helper process per CPU (:func:`plan`); :meth:`evict` has them all read their
    private caches' worth at once, then, once every one has, the shared caches' (a line a
    private cache gives up goes to the shared one: cleared in that order, none is left).
    Thread-safe.

    A CPU the helper may not run on (a cpuset without it) is left out: bots of this
    referee cannot run there either; with the default plan, the CPUs left share the L3's
    reading between them (:func:`plan` made again for them).

    Raises:
        OSError: no helper could be started.
    """

    def __init__(self, sizes: dict[int, tuple[int, int]] | None = None) -> None:
        self._lock = threading.Lock()
        self.last_s = 0.0  #: seconds the last :meth:`evict` took
        self.count = 0  #: clearings done
        #: seconds the last :data:`RECENT_CLEARINGS` clearings took (a forced move's pause draws
        #: its clearing's time from them instead of clearing: ``BotClient.clearing_s``)
        self.recent: collections.deque[float] = collections.deque(maxlen=RECENT_CLEARINGS)
        planned = plan() if sizes is None else sizes
        up = self._start(planned)
        if sizes is None and up and len(up) < len(planned):  # some CPU refused: the others read its share
            self.close()
            up = self._start(plan(allowed=up))
        if not up:
            raise OSError("no cache-clearing helper could start")
        self.cpus = len(self._helpers)

    def _start(self, sizes: dict[int, tuple[int, int]]) -> set[int]:
        """Start a helper for each CPU of ``sizes``; returns the CPUs whose helper runs."""
        self._helpers: list[subprocess.Popen] = []
        self._shared: list[subprocess.Popen] = []
        up = set()
        for cpu, (private, shared) in sizes.items():
            p = subprocess.Popen([sys.executable, "-I", "-S", "-c", _HELPER, str(cpu), str(private), str(shared)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/",
                                 start_new_session=True)  # a Ctrl-C is the arena's to handle: the helper ends with its stdin
            if p.stdout.read(1) == b"r":
                self._helpers.append(p)
                up.add(cpu)
                if shared:
                    self._shared.append(p)
            else:  # not allowed on that CPU
                p.wait()
                p.stdin.close()
                p.stdout.close()
        return up

    def evict(self) -> float:
        """Clear the caches; returns the seconds it took.

        Raises:
            OSError: a helper is gone (killed from outside).
        """
        with self._lock:
            t0 = time.perf_counter()
            for what, helpers in ((b"p", self._helpers), (b"s", self._shared)):
                for p in helpers:
                    os.write(p.stdin.fileno(), what)
                for p in helpers:
                    if os.read(p.stdout.fileno(), 1) != b".":
                        raise OSError(f"the cache-clearing helper {p.pid} is gone")
            self.last_s = time.perf_counter() - t0
            self.count += 1
            self.recent.append(self.last_s)
            return self.last_s

    def close(self) -> None:
        """Stop the helpers (they also stop on their own when this process ends)."""
        with self._lock:
            for p in self._helpers:
                p.stdin.close()
                p.wait()
                p.stdout.close()
            self._helpers, self._shared = [], []


#: The arena's own bots (``sample_bots/NAME``), pure Python, built by no one: code that times no
#: cache line: thawed without a clearing (:func:`is_house`).
HOUSE_BOTS = ("random", "greedy", "heuristic", "expert")


@functools.lru_cache(maxsize=1)
def _house_folders() -> tuple[Path, ...]:
    """The shipped folders of :data:`HOUSE_BOTS` (resolved), none where ``sample_bots`` is not found."""
    try:
        spec = importlib.util.find_spec("sample_bots")
        root = Path(spec.submodule_search_locations[0]).resolve()
    except (ImportError, ValueError, TypeError, AttributeError, OSError):
        return ()
    return tuple(root / name for name in HOUSE_BOTS)


@functools.lru_cache(maxsize=1)
def house_digests() -> frozenset[str]:
    """Content hashes (:func:`referee.manifest.content_hash`) of :data:`HOUSE_BOTS` as this arena
    ships them, computed once per process (~10 ms)."""
    out = set()
    for folder in _house_folders():
        try:
            out.add(content_hash(folder))
        except (OSError, ValueError):
            pass
    return frozenset(out)


#: A folder larger than this is no house bot's copy (they are ~100 KiB): never read in full to compare.
_HOUSE_MAX_BYTES = 1 << 20


def _tree(folder: Path) -> tuple[tuple[str, str, bytes], ...] | None:
    """Every entry of a bot's content (:func:`referee.manifest.bot_files`) as ``(relative path,
    "file" or "link", bytes or link target)``, None when over :data:`_HOUSE_MAX_BYTES` or unreadable."""
    out, total = [], 0
    try:
        for p in bot_files(folder):
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                out.append((rel, "link", os.fsencode(os.readlink(p))))
                continue
            fd = open_regular(p)
            try:
                data = bytearray()
                while total + len(data) <= _HOUSE_MAX_BYTES and (chunk := os.read(fd, 1 << 16)):
                    data += chunk
            finally:
                os.close(fd)
            total += len(data)
            if total > _HOUSE_MAX_BYTES:
                return None
            out.append((rel, "file", bytes(data)))
    except (OSError, ManifestError):
        return None
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _house_trees() -> frozenset[tuple]:
    """:func:`_tree` of each of :data:`HOUSE_BOTS` as this arena ships them, read once per process."""
    return frozenset(t for t in map(_tree, _house_folders()) if t is not None)


def is_house(folder: Path, registered: str | None) -> bool:
    """Whether a bot is one of the arena's own, whose turns need no clearing: ``folder`` is the
    shipped ``sample_bots/NAME`` itself, or a frozen copy whose ``registered`` content hash (the
    referee checks it before every start) is a house bot's and whose files are that house bot's,
    byte for byte and path for path (read again here, ~100 KiB: the content hash's framing does
    not separate a file's bytes from the next file's name, so two trees can share it).

    The clearing protects the bot about to run from what the previous one left: it is needed
    only where that bot could look (time its reads).  A house bot's code is known and never
    does, so its turns skip it and the next other bot's turn still has one: a match against
    ``random`` clears half as often, a field of house bots (``make run``) never.  Never a folder
    by its hash alone: the hash leaves out ``*.pyc`` files, which Python would import (red team
    38: a ``random`` folder plus a ``belote_arena_sdk.pyc`` passed as ``random``); a frozen copy
    holds none."""
    try:
        if folder.resolve() in _house_folders():
            return True
    except OSError:
        pass
    return registered is not None and registered in house_digests() and _tree(folder) in _house_trees()


_shared: tuple[int, Evictor] | None = None
_shared_lock = threading.Lock()


def shared() -> Evictor:
    """This process's :class:`Evictor`, started at its first call (~0.1 s) and stopped at exit
    (a forked child starts its own: the helpers' pipes are not shared between processes).

    Raises:
        OSError: as :class:`Evictor`.
    """
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid():
            ev = Evictor()
            atexit.register(ev.close)
            _shared = (os.getpid(), ev)
        return _shared[1]
