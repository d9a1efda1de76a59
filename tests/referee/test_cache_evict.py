"""No line a bot leaves in the CPU caches survives to its partner's turn (issue 19; SECURITY.md
"The CPU caches"; ``referee.evict``), judged by attack.

Red team 33's Flush+Reload: two sandboxes of one code folder (partners share their
entrant's frozen copy, so its pages are the same physical pages in both) pinned to one CPU
and frozen in turn as the referee freezes partners.  The sender, thawed, reads the lines of
its 1-bits (one line per page of ``pad.bin``, at a scattered offset); frozen, the receiver is
thawed and times its reads of all the lines with ``rdtscp`` (a line in a cache reads in ~100
cycles, from memory in ~400), then flushes them for the next round.  Without clearing the
caches the receiver reads most 1-bits fast and the 0-bits slow; with ``referee.evict``
between the freeze and the thaw, as ``BotClient.decide_async`` does, 1-bits read as slow as
0-bits.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import time

import pytest

from referee import evict, sandbox
from referee.manifest import load_manifest
from referee.match import Entrant
from referee.sandbox import Limits

from .botkit import SAMPLE_BOTS, entrant, install_call_log
from .test_match import decisions_of, play, seat_entrant
from .test_unasked import expected_pauses

# alone (make test runs it after the parallel part): it times cache lines against a control
pytestmark = [pytest.mark.skipif(platform.machine() != "x86_64", reason="clflush and rdtscp are x86-64's"),
              pytest.mark.alone, pytest.mark.clearing]

BITS = 64
#: One line per 4 KiB page at an offset that is no stride a prefetcher would follow.
FR_C = r"""
#include <stdint.h>
#include <x86intrin.h>
static long off(int i) { return (long)i * 4096 + 64L * (1 + (i * 37 + 11) % 63); }
static uint64_t now(void) { unsigned a; return __rdtscp(&a); }
void touch(const volatile char *base, const unsigned char *bits, int n) {
    for (int i = 0; i < n; i++) if (bits[i]) (void)base[off(i)];
    _mm_mfence();
}
void flush(const char *base, int n) {
    for (int i = 0; i < n; i++) _mm_clflush(base + off(i));
    _mm_mfence();
}
void probe(const volatile char *base, const int *order, int n, unsigned *out) {
    for (int k = 0; k < n; k++) {
        int i = order[k];
        _mm_mfence(); _mm_lfence();
        uint64_t t0 = now();
        (void)base[off(i)];
        uint64_t t1 = now();
        _mm_lfence();
        out[i] = (unsigned)(t1 - t0);
    }
    flush((const char *)base, n);
}
"""

#: In the sandbox: maps pad.bin read-only (the image's pages), pins itself to CPU 0, says its
#: threshold between a cached and an uncached read (calibrated on its own lines), then
#: answers "send BITS" (reads the lines of the 1-bits) and "read" (the times of every line).
PROBE = r"""
import ctypes, os, random, statistics, sys
lib = ctypes.CDLL(os.path.abspath("libfr.so"))
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
n = int(sys.argv[1])
fd = os.open("pad.bin", os.O_RDONLY)
base = ctypes.c_void_p(libc.mmap(None, n * 4096, 1, 2, fd, 0))  # PROT_READ, MAP_PRIVATE
assert os.sched_getaffinity(0) == {0}  # pinned by the harness (a bot cannot pin itself: the scheduler may)
out = (ctypes.c_uint * n)()
order = list(range(n))
def read():
    random.shuffle(order)
    lib.probe(base, (ctypes.c_int * n)(*order), n, out)
    return list(out)
hits, misses = [], []
for _ in range(50):
    misses += read()                        # just flushed: from memory
    lib.touch(base, (ctypes.c_ubyte * n)(*[1] * n), n)
    hits += read()                          # just read: cached
print(int((statistics.median(hits) + statistics.median(misses)) / 2), flush=True)
for line in sys.stdin:
    word = line.split()
    if word[0] == "send":
        lib.touch(base, (ctypes.c_ubyte * n)(*map(int, word[1])), n)
        print("ok", flush=True)
    elif word[0] == "read":
        print(" ".join(map(str, read())), flush=True)
"""


def _start(code):
    """A probe in a sandbox, on CPU 0: a sandboxed process may not pin itself (``sched_setaffinity``
    is refused), so the harness starts it pinned, as the scheduler may place two partners."""
    mine = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})  # inherited by the sandbox's processes
    try:
        box = sandbox.Sandboxed(code, ["/usr/bin/python3", "probe.py", str(BITS)], {"PATH": "/usr/bin"}, Limits(),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, bufsize=1)
    finally:
        os.sched_setaffinity(0, mine)
    line = box.process.stdout.readline()
    assert line.strip().isdigit(), f"the probe did not start (exit {box.process.poll()})"
    box.lock()
    return box, int(line)


def _ask(box, line: str) -> str:
    box.process.stdin.write(line + "\n")
    box.process.stdin.flush()
    return box.process.stdout.readline().strip()


def _rounds(code, rng, evicted: bool, rounds: int, stop=None):
    """Play up to ``rounds`` rounds as partners are played; returns (1-bits read fast, 1-bits,
    0-bits read fast, 0-bits), stopping early once ``stop(counts)`` holds."""
    sender, threshold = _start(code)
    receiver, _ = _start(code)
    counts = [0, 0, 0, 0]
    try:
        fs, fr = sender.freezer(), receiver.freezer()
        fr.freeze()
        for _ in range(rounds):
            bits = [rng.getrandbits(1) for _ in range(BITS)]
            fs.thaw()
            assert _ask(sender, "send " + "".join(map(str, bits))) == "ok"
            fs.freeze()
            if evicted:
                evict.shared().evict()
            fr.thaw()
            times = list(map(int, _ask(receiver, "read").split()))
            fr.freeze()
            for bit, t in zip(bits, times):
                counts[0 if bit else 2] += t < threshold
                counts[1 if bit else 3] += 1
            if stop is not None and stop(counts):
                break
        fs.release()
        fr.release()
    finally:
        for box in (sender, receiver):
            box.process.kill()
            box.process.wait(timeout=30)
            box.release()
    return counts


@pytest.fixture
def code(tmp_path):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.fail("no C compiler: install gcc (.ci/run does)")
    folder = tmp_path / "code"
    folder.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    (folder / "fr.c").write_text(FR_C)
    subprocess.run([gcc, "-O2", "-shared", "-fPIC", "-o", folder / "libfr.so", folder / "fr.c"], check=True, timeout=60)
    (folder / "probe.py").write_text(PROBE)
    (folder / "pad.bin").write_bytes(os.urandom(BITS * 4096))
    for f in folder.iterdir():
        f.chmod(0o755 if f.suffix == ".so" else 0o644)
    return folder


@pytest.mark.guard(300)
def test_lines_a_partner_read_are_gone_when_the_next_bot_is_thawed(code):
    import random
    rng = random.Random(33)
    # the control, caches not cleared: the receiver reads the sender's 1-bits fast far more
    # often than its 0-bits (decided once 20 rounds are in; a busy machine may take more)
    control = _rounds(code, rng, evicted=False, rounds=200,
                      stop=lambda c: c[1] >= 20 * BITS // 2 and c[0] / c[1] - c[2] / c[3] >= 0.5)
    ones, zeros = control[0] / control[1], control[2] / control[3]
    print("control: 1-bits fast", control[:2], "0-bits fast", control[2:])
    assert ones - zeros >= 0.5, control
    # cleared: 1-bits read fast no more often than 0-bits (both ~never), over 40 rounds
    t0 = time.monotonic()
    cleared = _rounds(code, rng, evicted=True, rounds=40)
    print("cleared: 1-bits fast", cleared[:2], "0-bits fast", cleared[2:], f"in {time.monotonic() - t0:.1f} s")
    assert cleared[1] > 0 and cleared[3] > 0
    assert cleared[0] / cleared[1] - cleared[2] / cleared[3] <= 0.05, cleared
    assert cleared[0] / cleared[1] <= 0.05, cleared


def test_the_plan_covers_each_cache_once(tmp_path):
    """``referee.evict.plan``: twice each CPU's own data and unified caches, and twice each
    shared one, split between the CPUs sharing it, among the
    CPUs this process may run on; instruction caches left out (an instruction line the L1i
    gives up goes to the L2, which is cleared)."""
    root = tmp_path / "cpu"
    (root).mkdir()
    (root / "online").write_text("0-1\n")
    caches = {  # index: (level, type, size, shared_cpu_list) as a 2-CPU machine with one L3 shows them
        "index0": ("1", "Data", "48K", "{cpu}"), "index1": ("1", "Instruction", "32K", "{cpu}"),
        "index2": ("2", "Unified", "1024K", "{cpu}"), "index3": ("3", "Unified", "32768K", "0-1")}
    for cpu in (0, 1):
        for name, (level, kind, size, shared) in caches.items():
            d = root / f"cpu{cpu}" / "cache" / name
            d.mkdir(parents=True)
            (d / "level").write_text(level + "\n")
            (d / "type").write_text(kind + "\n")
            (d / "size").write_text(size + "\n")
            (d / "shared_cpu_list").write_text(shared.format(cpu=cpu) + "\n")
    private = 2 * (48 + 1024) * 1024
    assert evict.plan(root, {0, 1}) == {0: (private, 32768 * 1024), 1: (private, 32768 * 1024)}
    assert evict.plan(root, {1}) == {1: (private, 2 * 32768 * 1024)}  # a cpuset without CPU 0: CPU 1 reads it all
    (root / "cpu1" / "cache").rename(root / "gone")  # a CPU whose caches are not said
    assert evict.plan(root, {0, 1})[1] == (evict.FALLBACK[0], 0)


def test_a_cpu_no_helper_may_run_on_leaves_its_share_to_the_others(monkeypatch):
    """The L3's reading is split between the CPUs sharing it; a CPU whose helper cannot start
    there (a cpuset without it: here CPU 4095, which no machine of ours has) would leave its
    share unread, so the plan is made again for the CPUs whose helpers run."""
    def fake_plan(sys_root=None, allowed=None):
        cpus = [0, 4095] if allowed is None else sorted(allowed)
        return {c: (1 << 20, (8 << 20) // len(cpus)) for c in cpus}

    monkeypatch.setattr(evict, "plan", fake_plan)
    ev = evict.Evictor()
    try:
        assert ev.cpus == 1
        assert [p.args[-3:] for p in ev._helpers] == [["0", str(1 << 20), str(8 << 20)]]  # the whole share
        assert ev.evict() > 0 and ev.count == 1 and list(ev.recent) == [ev.last_s]
    finally:
        ev.close()


@pytest.mark.guard(300)
@pytest.mark.parametrize("evict_caches", [True, False])
def test_the_referee_clears_the_caches_before_every_call_but_a_house_bots(tmp_path, monkeypatch, evict_caches):
    """In a match (sandboxed bots, frozen between decisions), each call to a visiting bot comes
    after a clearing of the caches, and so do its processes' starts and EndMatch; a decision
    played without a call clears nothing (its pause lasts what a clearing does, drawn from the
    recent ones, while every bot is frozen); a house bot's calls do not (``greedy`` as the arena ships it: code that times no
    cache line, ``referee.evict.is_house``); none in the control (``evict_caches`` off, as
    only tests set it).  The visitor is a copy of ``greedy`` played from a folder of its own."""
    log = install_call_log(monkeypatch)
    cleared = evict.shared()
    before = cleared.count
    # the visitor: played from a folder, not the shipped one (its hash alone grants nothing: red team 38)
    visitor = entrant(tmp_path, "greedy", name="visitor")
    house = Entrant(key="greedy@1.0.0", manifest=load_manifest(SAMPLE_BOTS / "greedy"))
    results = play(tmp_path, visitor, house, 2, limits=Limits(evict_caches=evict_caches))
    calls = {key: sum(e[:2] == ("decide", key) for e in log.events) for key in (visitor.key, house.key)}
    unasked = sum(d.ms == 0 and d.fault is None for r in results for d in decisions_of(r, visitor.key))
    # and the visitor's declarations the engine skipped, paused for alike (tests/referee/test_unasked.py)
    unasked += sum(n for (t, seat, _), n in expected_pauses(results, "classic").items()
                   if seat_entrant(results[0], t, seat) == visitor.key)
    assert len(results) == 2 and min(calls.values()) >= 2 * 2 * 4  # two boards, two tables, 4 card calls a side
    if evict_caches:  # and before each start and EndMatch of its processes (2 tables × 2 seats); not
        # before a decision played without a call (its pause draws a clearing's time, clearing nothing)
        # but the first, when no clearing's time is known yet
        starts = len(log.starts(visitor.key))
        assert starts == 4 and unasked > 0
        assert cleared.count - before == calls[visitor.key] + 2 * starts, (cleared.count - before, calls, unasked)
    else:
        assert cleared.count == before


def test_a_copy_of_a_house_bot_passes_as_one_only_when_frozen(tmp_path):
    """Red team 38: a byte-for-byte copy of ``random`` plus a ``belote_arena_sdk.pyc`` (left out of
    the content hash, imported by Python first) had ``random``'s hash, skipped the clearing and
    read 13-16 of 122 partner hands.  A folder played in place is a house bot only if it is the
    shipped one; a frozen copy (which holds no ``.pyc``) by its registered hash."""
    from referee.manifest import content_hash

    shipped = SAMPLE_BOTS / "random"
    copy = tmp_path / "random"
    shutil.copytree(shipped, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "belote_arena_sdk.pyc").write_bytes(b"not what it seems")
    digest = content_hash(copy)
    assert digest == content_hash(shipped)  # the hash cannot tell them apart ...
    assert not evict.is_house(copy, None)  # ... so a folder's hash grants nothing
    assert evict.is_house(shipped, None)
    assert evict.is_house(copy, digest)  # as a frozen copy registered with that hash (submit drops .pyc)
    assert not evict.is_house(copy, content_hash(SAMPLE_BOTS / "heuristic") + "0")


def test_a_tree_sharing_a_house_bots_hash_is_no_house_bot(tmp_path):
    """The content hash frames a file as ``path NUL bytes NUL``: a file holding the next file's
    name and bytes after a NUL, with that next file left out, hashes as the two did (red team 38).
    Registered with the house bot's hash, such a copy is still no house bot: its files are compared
    byte for byte.  Control: an exact copy registered with the hash is one."""
    from referee.manifest import bot_files, content_hash

    shipped = SAMPLE_BOTS / "expert"
    files = [p.relative_to(shipped).as_posix() for p in bot_files(shipped)]
    first, second = files[0], files[1]  # sorted: the hash reads them one after the other
    merged = tmp_path / "expert"
    shutil.copytree(shipped, merged, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (merged / first).write_bytes((shipped / first).read_bytes() + b"\0" + second.encode() + b"\0"
                                 + (shipped / second).read_bytes())
    (merged / second).unlink()
    digest = content_hash(shipped)
    assert content_hash(merged) == digest  # the framing's ambiguity, as a cheater would use it
    assert not evict.is_house(merged, digest)
    exact = tmp_path / "exact"
    shutil.copytree(shipped, exact, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    assert evict.is_house(exact, digest)
