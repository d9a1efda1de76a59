"""The attack suite (issue 9, item 6): bots written to cheat, each checked by its effect.

Every bot process runs in the sandbox (referee/sandbox.py). Each attack bot of
tests/bots/attack_* reports every attempt (tests/bots/attack_common.py); a test
asserts that none succeeded, that every expected attempt was made, and checks
the evidence the attack would leave: the cards it would learn against the real
deal, files and IPC objects on the host, processes, the match's scores and faults.
Arena-level attacks (frozen copies, the database, the project tree, the seed of a
tournament) are in tests/arena/test_attacks.py.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.play.schedule import suit_permutation
from referee import inside
from referee.match import MatchConfig, play_match
from referee.rules import RULESETS, make_board
from referee.sandbox import BOT_UID_BASE, Limits, inside_runs
from referee.sandbox import support as sandbox_support
from tests.bots.attack_common import ipc_key  # the System V keys the bots compute

from .attackkit import (
    HostEvidence, assert_all_blocked, attack_entrant, attempts, bot_uid_processes, held_cards, out_folder,
    read_reports, results_by_attack, succeeded, where_held,
)
from .botkit import entrant, install_call_log, leftover_processes
from .test_match import assert_no_leftovers, assert_replays, play

pytestmark = pytest.mark.clearing  # as the arena plays visitors by default (tests/conftest.py)

DECISION_MS = 5000  # attack bots do a lot per decision; the referee waits for them, they never time out
PARTNER_CHANNELS = ("dev-shm-file", "tmp-file", "home-file", "unix-socket", "abstract-socket", "sysv-shm",
                    "sysv-msg", "posix-mq", "grpc-socket", "flock", "posix-lock", "ofd-lock", "inotify")


def faults_of(results) -> list:
    return [f for r in results for f in r.faults]


def sandbox_processes_left(uids, wait_s: float = 3.0) -> list[str]:
    """Host processes still running as one of ``uids`` (the sandbox uids the bots reported) after ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        left = {uid: pids for uid, pids in bot_uid_processes().items() if uid in uids}
        if not left or time.monotonic() > deadline:
            return [f"uid {uid}: pids {pids}" for uid, pids in left.items()]
        time.sleep(0.05)


def print_results(reports) -> None:
    """Per attack, how often each result came (a got-through's payload cut short)."""
    for attack, results in sorted(results_by_attack(reports).items()):
        shown: dict[str, int] = {}
        for text, n in results.items():
            key = text[:60] + "..." if text.startswith("SUCCEEDED") else text
            shown[key] = shown.get(key, 0) + n
        print(f"{attack}: {shown}")


# ------------------------------------------------------ partner channels
def _partner_match(tmp: Path, isolate: bool = True):
    """Two partner-attack entrants, 2 boards: 8 processes, each trying every channel at every decision."""
    tag = "atk" + uuid.uuid4().hex[:8]
    out = out_folder(tmp)
    a = attack_entrant(tmp, "attack_partner", "--out", out, "--tag", tag, name="colluder-a")
    b = attack_entrant(tmp, "attack_partner", "--out", out, "--tag", tag, name="colluder-b")
    before = HostEvidence.take()
    results = play(tmp, a, b, 2, decision_ms=DECISION_MS,
                   limits=Limits(writable=(str(out),), isolate=isolate, freeze=isolate))
    return tag, out, results, before


@pytest.fixture(scope="module")
def partner_match(tmp_path_factory):
    """One match played for the partner and table-2 tests (bounded here: module fixtures run outside the guard)."""
    def on_alarm(signum, frame):
        raise TimeoutError("the partner match ran past 60 s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 60)
    try:
        tmp = tmp_path_factory.mktemp("partners")
        tag, out, results, before = _partner_match(tmp)
        after = HostEvidence.take()
        reports = read_reports(out)
        left = leftover_processes(tmp) + sandbox_processes_left({r["uid"] for r in reports})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return tag, reports, results, before, after, left


def _process_tables(reports, held) -> dict[str, set[int]]:
    """token -> the tables where that process's published hands were held (at its seat)."""
    tables: dict[str, set[int]] = {}
    for r in reports:
        if r.get("attack") == "publish" and r["hand"]:
            tables.setdefault(r["token"], set()).update(t for _, t in where_held(held, r["seat"], r["hand"]))
    return tables


@pytest.mark.alone  # its match looks for processes of its bots' uids machine-wide, uids other tests' bots are given
@pytest.mark.guard(90)
def test_partners_cannot_exchange_hands(partner_match):
    """Partner channels (issue 9): the two processes of one entrant at a table try to swap hands over
    files in /dev/shm, /tmp and their folders, Unix and abstract sockets, System V shared memory and
    message queues, POSIX queues, signals, the partner's gRPC socket, and the read-only files every
    sandbox shares (flock, POSIX and OFD byte-range locks taken and probed on them, inotify watching
    open events on them), at every decision: nothing of another process arrives, the match is played
    without a fault, and nothing outlives it."""
    tag, reports, results, before, after, left = partner_match
    print_results(reports)
    held = _process_tables(reports, held_cards(results))
    assert len(held) == 8, f"expected 8 processes (2 entrants x 2 seats x 2 tables), saw {len(held)}"
    assert all(len(t) == 1 for t in held.values()), held  # each process's hands are one table's
    made = assert_all_blocked(reports, {f"partner:{c}": 8 * 2 for c in PARTNER_CHANNELS}
                              | {"partner:signal": 8, "partner:inherited-fds": 8})
    # every process tried every channel at every decision it was asked
    decisions = sum(1 for r in reports if r.get("attack") == "publish")
    assert all(made[f"partner:{c}"] == decisions for c in PARTNER_CHANNELS), (made, decisions)
    assert not faults_of(results)
    assert_replays(results)
    assert not after.new_since(before, tag), after.new_since(before, tag)
    assert not left, left


@pytest.mark.alone  # the same match as above (module fixture): processes of its bots' uids, machine-wide
@pytest.mark.guard(90)
def test_table_two_cannot_learn_table_one(partner_match):
    """Table-2 memory (issue 9): a process at table 2 tries the same channels toward the table-1
    processes of its own entrant, which played the same board just before: nothing arrives."""
    tag, reports, results, before, after, left = partner_match
    held = held_cards(results)
    tables = _process_tables(reports, held)
    table2 = {tok for tok, t in tables.items() if t == {2}}
    assert len(table2) == 4, tables
    t2 = [r for r in attempts(reports, "partner:") if r["token"] in table2]
    for channel in PARTNER_CHANNELS:
        assert sum(r["attack"] == f"partner:{channel}" for r in t2) >= 4 * 2, channel
    assert not [r for r in t2 if not r["result"].startswith("blocked:")]
    # and table 2 was dealt what table 1 held, suits renamed: the board a channel would have leaked
    for board in range(2):
        for seat in range(4):
            assert len(held[(board, 1, seat)]) == len(held[(board, 2, seat)]) == 8


@pytest.mark.guard(300)  # ~10 s alone: a bound on a hang, not a timing
def test_partner_channels_work_without_the_sandbox(tmp_path):
    """Control for the partner attack (issue 9): with the sandbox off (--no-isolate) the same bot
    does get its partner's real hand over shared files, System V IPC, POSIX queues, abstract
    sockets, the gRPC socket, locks on the interpreter's files and inotify on them, so the
    sandboxed test's silence is the sandbox's doing.  Unfrozen too (freezing alone stops
    the channels that need the partner to answer, its gRPC socket, while it waits)."""
    tag, out, results, before = _partner_match(tmp_path, isolate=False)
    try:
        reports = read_reports(out)
        held = held_cards(results)
        got = {}
        for r in succeeded(reports):
            if r["attack"] in ("partner:signal", "partner:inherited-fds") or "reached other bots" in r["result"]:
                continue
            for payload in json.loads(r["result"][len("SUCCEEDED: "):]):
                if payload["hand"]:
                    # what arrived is a hand that seat really held at some table of the match
                    assert where_held(held, payload["seat"], payload["hand"]), payload
                    got.setdefault(r["attack"], 0)
                    got[r["attack"]] += 1
        print_results(reports)
        print("delivered hands per channel:", got)
        for channel in PARTNER_CHANNELS:
            assert got.get(f"partner:{channel}", 0) > 0, (channel, got)
    finally:
        _remove_partner_objects(tag, ("colluder-a", "colluder-b"))
    assert_no_leftovers(tmp_path)


def _remove_partner_objects(tag: str, names) -> None:
    """What the unsandboxed control left on the host: files, IPC objects, POSIX queues."""
    for pattern in (f"/dev/shm/{tag}-*", f"/tmp/{tag}-*"):
        for p in glob.glob(pattern):
            os.unlink(p)
    libc = ctypes.CDLL(None, use_errno=True)
    for name in names:
        ns = f"{tag}-{name}"
        shmid = libc.shmget(ipc_key(ns, "shm"), 0, 0)
        if shmid >= 0:
            libc.shmctl(shmid, 0, None)  # IPC_RMID
        msq = libc.msgget(ipc_key(ns, "msg"), 0)
        if msq >= 0:
            libc.msgctl(msq, 0, None)
        for seat in range(4):
            libc.mq_unlink(f"/{ns}-seat{seat}".encode())


# ------------------------------------------------ the referee's socket path
@pytest.mark.guard(60)
def test_a_bot_cannot_steer_the_referee_to_a_host_socket(tmp_path, monkeypatch):
    """Partner channel through the referee (issue 9): the bot makes its bot.sock a symbolic link to
    a Unix socket on the host; the referee, which dials the socket from the host through
    /proc/PID/root, must not follow it there: the test's listener gets no connection."""
    out = out_folder(tmp_path)
    probe = tmp_path / "probe.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(probe))
    listener.listen(64)
    listener.setblocking(False)
    bad = attack_entrant(tmp_path, "attack_redirect", "--out", out, "--tag", "x", "--mode", "host", "--probe", probe)
    good = entrant(tmp_path, "random")
    log = install_call_log(monkeypatch)
    try:
        results = play(tmp_path, bad, good, 1, decision_ms=DECISION_MS, limits=Limits(writable=(str(out),)))
        accepted = []
        while True:
            try:
                conn, _ = listener.accept()
            except BlockingIOError:
                break
            conn.settimeout(0.5)
            try:
                accepted.append(conn.recv(24))
            except OSError as e:
                accepted.append(repr(e))
            conn.close()
    finally:
        listener.close()
    reports = read_reports(out)
    tried = [r for r in reports if r.get("attack") == "redirect:host-socket" and "tried" in r]
    processes = len(log.starts(bad.key)) + len(log.failed_starts(bad.key))
    assert processes >= 3 and len(tried) == processes, (processes, reports)  # each process of the bot tried
    assert not accepted, f"the referee connected {len(accepted)} times to a host socket the bot chose: {accepted[:2]}"
    assert [r.board for r in results] == [0]
    assert not [f for f in faults_of(results) if f.entrant == good.key]
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(90)
def test_partners_cannot_meet_through_the_referee(tmp_path, monkeypatch):
    """Partner channel through the referee (issue 9): while it starts, each process points its
    bot.sock at /proc/N/root/arena/work/c-*.sock for host pids N below its own (the host's fork
    counter is in /proc/stat), where earlier processes of its entrant serve a capture socket: no
    request of one seat may reach another process (its hand would)."""
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_redirect", "--out", out, "--tag", "y", "--mode", "partner")
    good = entrant(tmp_path, "random")
    log = install_call_log(monkeypatch)
    results = play(tmp_path, bad, good, 2, decision_ms=DECISION_MS, limits=Limits(writable=(str(out),)))
    reports = read_reports(out)
    held = held_cards(results)
    tried = [r for r in reports if r.get("attack") == "redirect:partner" and "tried" in r]
    print("bwrap pids of the bot's processes:", [e[4] for e in log.starts(bad.key)], [r["tried"] for r in tried])
    processes = len(log.starts(bad.key)) + len(log.failed_starts(bad.key))
    assert processes >= 3 and len(tried) == processes, (processes, reports)  # each process of the bot scanned
    leaked = [r for r in succeeded(reports) if r.get("hand")]
    real = [r for r in leaked if where_held(held, r["captured_seat"], r["hand"])]
    assert not succeeded(reports), (
        f"{len(real)} requests of one seat, with its real hand, reached another process of its entrant, "
        f"e.g. {real[:1] or succeeded(reports)[:1]}")
    assert [r.board for r in results] == [0, 1]
    assert not [f for f in faults_of(results) if f.entrant == good.key]
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------ the seed
SMALL_SEED = 1234  # given by hand: inside the bot's brute-force range, so any leak of it would be found


@pytest.mark.guard(90)
def test_the_board_seed_cannot_be_learnt(tmp_path):
    """Learning the seed (issue 9): the bot re-deals from every number it can see (environment,
    match id, deal numbers, /proc/*/cmdline and environ, any *.duckdb or results/ file) and compares
    with its own hands: none reproduces them. Control: a brute force over seeds 0..2047 finds the
    small seed of this match from the hands alone (a seed given by hand is not secret, by design)."""
    rs = RULESETS["classic"]
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_seed", "--out", out, vendor_rules=True)
    good = entrant(tmp_path, "random")
    # its second deal's first decision re-deals thousands of seeds and walks the file system: on a
    # loaded 2-core machine (one core's quota, shared) that can take longer than DECISION_MS, and a
    # timeout would restart the process before it reports; the referee waits for it
    config = MatchConfig(ruleset=rs, seed=SMALL_SEED, decision_ms=60_000, limits=Limits(writable=(str(out),)))
    boards = [make_board(SMALL_SEED, k, rs.seats) for k in range(2)]
    results = play_match(f"seed-{SMALL_SEED}", bad, good, boards, config,
                         permutations=lambda k: suit_permutation(SMALL_SEED, k))
    reports = read_reports(out)
    print_results(reports)
    sources = ("env", "match-id", "deal-numbers", "proc-cmdline", "proc-environ", "files", "fs-search")
    leaks = [r for r in reports if r.get("attack") in {f"seed:{s}" for s in sources}]
    assert_all_blocked(leaks, {f"seed:{s}": 4 for s in sources})  # each of the 4 processes, at its 2nd deal
    brute = [r["result"] for r in reports if r.get("attack") == "seed:brute-force"]
    assert len(brute) == 4 and all(r.startswith(f"SUCCEEDED: candidate {SMALL_SEED} (brute force)") for r in brute), brute
    assert not faults_of(results)
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------ privilege
PRIV_ATTACKS = ("capabilities", "setuid-root", "remount-command", "remount-syscall", "mount-tmpfs",
                "write-read-only", "unshare", "setns", "ptrace", "process-vm-writev", "proc-mem", "chroot",
                "keyring", "mknod", "proc-sys", "kill-others")


@pytest.mark.guard(60)
def test_a_bot_gets_no_privilege(tmp_path):
    """Privilege (issue 9): remount / read-write (mount(8) and mount(2)), mount a tmpfs, write into
    read-only paths (a .pth in site-packages), unshare a user namespace then mount, setns into every
    /proc/*/ns, ptrace, process_vm_writev and /proc/PID/mem on every process it sees, kill them,
    chroot, the kernel keyring, a block device node, /proc/sys: all refused; the referee and the
    match go on unharmed, and nothing is planted on the host."""
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_priv", "--out", out)
    good = entrant(tmp_path, "random")
    import sysconfig

    site = Path(sysconfig.get_paths()["purelib"])
    pth_before = sorted(site.glob("*.pth"))
    results = play(tmp_path, bad, good, 1, decision_ms=DECISION_MS, limits=Limits(writable=(str(out),)))
    reports = read_reports(out)
    print_results(reports)
    assert_all_blocked(reports, {f"priv:{a}": 4 for a in PRIV_ATTACKS})
    seen = [r["pids"] for r in reports if r.get("attack") == "visible-processes"]
    # the sandbox's init and the supervisor that answers its sysinfo(2) (referee.inside) only: with
    # no procfs in the sandbox (SECURITY.md "The inode numbers") the bot finds them by kill(pid, 0)
    assert len(seen) == 4 and all(pids == [1, 2] for pids in seen), seen
    assert not faults_of(results)  # the bot survived its own attempts, the referee too
    assert_replays(results)
    assert sorted(site.glob("*.pth")) == pth_before
    assert not list(site.glob("planted-*")) and not list(Path("/usr").glob("planted-*"))
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------ network
@pytest.mark.guard(60)
def test_a_bot_has_no_network(tmp_path):
    """Network (issue 9): TCP to 127.0.0.1 and ::1, UDP to 127.0.0.1, the test's abstract and
    path Unix sockets on the host: none of the test's listeners hears from the bot."""
    out = out_folder(tmp_path)
    tcp = socket.create_server(("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    tcp6 = socket.create_server(("::1", port), family=socket.AF_INET6)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    abstract_name = f"atk-net-{uuid.uuid4().hex[:8]}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + abstract_name)
    unix_path = tmp_path / "net.sock"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(unix_path))
    listeners = (tcp, tcp6, udp, abstract, unix)
    for s in (tcp, tcp6, abstract, unix):
        s.listen(16)
    for s in listeners:
        s.setblocking(False)
    try:
        bad = attack_entrant(tmp_path, "attack_net", "--out", out, "--port", port, "--abstract", abstract_name,
                             "--unix", unix_path)
        results = play(tmp_path, bad, entrant(tmp_path, "random"), 1, decision_ms=DECISION_MS,
                       limits=Limits(writable=(str(out),)))
        heard = []
        for s in (tcp, tcp6, abstract, unix):
            try:
                heard.append(s.accept())
            except BlockingIOError:
                pass
        try:
            heard.append(udp.recvfrom(100))
        except BlockingIOError:
            pass
    finally:
        for s in listeners:
            s.close()
    reports = read_reports(out)
    print_results(reports)
    assert_all_blocked(reports, {f"net:{a}": 4 for a in ("tcp-loopback", "tcp6-loopback", "udp-loopback",
                                                          "abstract-socket", "unix-socket", "interfaces")})
    assert not heard, heard
    assert not faults_of(results)
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------ socket jamming
@pytest.mark.guard(60)
def test_a_bot_cannot_jam_its_opponents_sockets(tmp_path):
    """Socket jamming (issue 9): the bot looks for every other bot's socket (/proc/*/root/arena/work,
    the referee's folders) to hold their server threads with idle DecideStream calls: it finds none,
    and its opponent starts every time, never faults and never forfeits."""
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_jam", "--out", out)
    good = entrant(tmp_path, "random")
    results = play(tmp_path, good, bad, 2, decision_ms=DECISION_MS, limits=Limits(writable=(str(out),)))
    reports = read_reports(out)
    print_results(reports)
    assert_all_blocked(reports, {"jam:sockets": 4 * 2})
    assert not [f for f in faults_of(results) if f.entrant == good.key]
    assert not any(r.forfeit_a for r in results)
    assert [r.board for r in results] == [0, 1]
    assert_no_leftovers(tmp_path)


# ------------------------------------------------------------ resources
def _sample_processes(uids_seen: dict, stop: threading.Event) -> None:
    """Every 20 ms, the most tasks (threads included) each sandbox uid had at once."""
    while not stop.is_set():
        for uid, pids in bot_uid_processes().items():
            tasks = 0
            for pid in pids:
                try:
                    tasks += len(os.listdir(f"/proc/{pid}/task"))
                except OSError:
                    continue
            uids_seen[uid] = max(uids_seen.get(uid, 0), tasks)
        stop.wait(0.02)


@pytest.mark.alone  # counts the tasks of every sandbox uid machine-wide, uids other tests' bots are given
@pytest.mark.guard(90)
def test_a_fork_bomb_stops_at_the_process_limit(tmp_path):
    """Fork bomb (issue 9): os.fork() in a loop, children sleeping: the kernel refuses forks once the
    bot's uid has nproc tasks (threads included), the host never sees more, the match completes,
    the opponent is untouched, and no process of the bot is left afterwards."""
    nproc = 64
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_resources", "--out", out, "--mode", "fork")
    good = entrant(tmp_path, "random")
    seen: dict[int, int] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_processes, args=(seen, stop), daemon=True)
    sampler.start()
    try:
        results = play(tmp_path, bad, good, 1, decision_ms=DECISION_MS,
                       limits=Limits(writable=(str(out),), nproc=nproc))
    finally:
        stop.set()
        sampler.join()
    reports = read_reports(out)
    print_results(reports)
    assert_all_blocked(reports, {"res:fork-bomb": 4})
    forks = [int(r["result"].rsplit(" after ", 1)[1].split()[0]) for r in attempts(reports, "res:fork-bomb")]
    assert all(r["result"].startswith("blocked: Resource temporarily unavailable") for r in attempts(reports)), reports
    uids = {r["uid"] for r in reports}
    print("forks per process:", forks, "most tasks per uid:", {u: seen.get(u) for u in uids})
    assert all(0 < n < nproc for n in forks), forks
    # a uid of its own per process: four, and one more for each process restarted (a decision that
    # ran out of time on a loaded machine)
    assert len(uids) >= 4 and all(BOT_UID_BASE <= u for u in uids)
    assert all(0 < seen.get(u, 0) <= nproc for u in uids), seen
    assert [r.board for r in results] == [0]
    assert not [f for f in faults_of(results) if f.entrant == good.key]
    assert_no_leftovers(tmp_path)
    assert not sandbox_processes_left(uids)


@pytest.mark.guard(90)
def test_memory_across_children_is_bounded(tmp_path):
    """Memory across children (issue 9): one allocation over the address-space limit fails; six
    children then try to hold 192 MiB each at once (1,152 MiB) under memory_mib = 1,024. With a
    memory cgroup for the bot as a whole (where the machine gives one) they never hold more than
    1,024 MiB together; without it only each process is bounded, the sum by nproc x memory_mib."""
    limit_mib, nproc, mib = 1024, 64, 192
    whole_bot = "memory" in sandbox_support().cgroups
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_resources", "--out", out, "--mode", "memory", "--mib", mib,
                         "--limit-mib", limit_mib)
    good = entrant(tmp_path, "random")
    # the attack runs inside the bot's first decision; a deadline it cannot miss even on a loaded
    # machine (at 1,000 ms and load 15 every attempt was a timeout, its process killed before the
    # children reported)
    results = play(tmp_path, bad, good, 1, ruleset="two-player", decision_ms=30_000,
                   limits=Limits(writable=(str(out),), memory_mib=limit_mib, nproc=nproc))
    reports = read_reports(out)
    print_results(reports)
    # both processes of the bot (two players) report; when the memory cgroup's OOM killer picks a
    # bot's main process, its restart reports again (issue 20 item 1): every report must hold
    one = [r["result"] for r in attempts(reports, "res:memory-one-process")]
    assert len(one) >= 2 and set(one) == {"blocked: MemoryError: "}, one
    across = [r["result"] for r in attempts(reports, "res:memory-across-children")]
    assert len(across) >= 1, across  # a process the OOM killer ends before it reports is restarted, not counted
    for text in across:
        held = [int(x) for x in text.split("[", 1)[1].split("]", 1)[0].split(",")]
        assert len(held) == 6 and all(h in (0, mib) for h in held), held  # each within its own limit
        if whole_bot:
            assert sum(held) <= limit_mib, text  # the cgroup bounds the bot as a whole
        else:
            assert sum(held) == 6 * mib and sum(held) <= nproc * limit_mib, text
    print(f"memory of one bot: {'cgroup, ' + str(limit_mib) + ' MiB for the whole bot' if whole_bot else 'no cgroup'}"
          f"; per process {limit_mib} MiB of address space, at most {nproc} processes")
    assert not [f for f in faults_of(results) if f.entrant == good.key]
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(90)
def test_disk_filling_stops_at_the_private_folders_size(tmp_path):
    """Disk filling (issue 9): writing 1 MiB blocks into /arena/work, /tmp and /dev/shm stops at
    each tmpfs's size (disk_mib), nothing reaches the host's disk or /dev/shm, and the referee's
    folder for the bot's log stays small."""
    disk_mib = 16
    out = out_folder(tmp_path)
    bad = attack_entrant(tmp_path, "attack_resources", "--out", out, "--mode", "disk")
    good = entrant(tmp_path, "random")
    before = HostEvidence.take()
    results = play(tmp_path, bad, good, 1, decision_ms=DECISION_MS,
                   limits=Limits(writable=(str(out),), disk_mib=disk_mib, fsize_mib=8))
    after = HostEvidence.take()
    reports = read_reports(out)
    print_results(reports)
    folders = ("/arena/work", "/tmp", "/dev/shm")
    assert_all_blocked(reports, {f"res:disk:{f}": 4 for f in folders})
    for r in attempts(reports, "res:disk:"):
        assert r["result"].startswith("blocked: No space left on device after "), r
        assert int(r["result"].rsplit(" after ", 1)[1].split()[0]) <= disk_mib, r
    assert not after.new_since(before, "fill-"), after.new_since(before, "fill-")
    assert not faults_of(results)
    assert_no_leftovers(tmp_path)


@pytest.mark.guard(60)
def test_ipc_objects_and_shm_files_do_not_outlive_the_bot(tmp_path):
    """/dev/shm and IPC objects outliving the match (issue 9): the bot makes System V shared memory,
    a message queue and a semaphore set, a /dev/shm file and a POSIX queue, and leaves them: none
    is on the host during or after the match.  It makes them at start-up, and again at its first
    decision: by then the referee has locked the sandbox (issue 19, SECURITY.md "The inode
    numbers"), so shmget and mq_open fail with EPERM while the rest is made again."""
    out = out_folder(tmp_path)
    key = 0x41000000 | (uuid.uuid4().int & 0xFFFFF0)
    name = f"atk-left-{uuid.uuid4().hex[:8]}"
    bad = attack_entrant(tmp_path, "attack_resources", "--out", out, "--mode", "leftovers", "--key", key,
                         "--name", name)
    good = entrant(tmp_path, "random")
    before = HostEvidence.take()
    results = play(tmp_path, bad, good, 1, decision_ms=DECISION_MS, limits=Limits(writable=(str(out),)))
    after = HostEvidence.take()
    lines = [r for r in read_reports(out) if r.get("attack") == "res:leftovers"]
    print(lines)
    assert len(lines) == 4, lines
    for line in lines:
        start, m = line["made_at_start"], line["made"]
        # before StartMatch the bot did make them all, in the sandbox
        assert all(isinstance(start[k], int) and start[k] >= 0 for k in ("shm", "msg", "sem")), start
        # a POSIX queue lives on the IPC namespace's mqueue file system, beneath no path the
        # sandbox's Landlock rules allow (referee.inside): made where there is no Landlock
        assert (isinstance(start["mq"], int) and start["mq"] >= 0) if not inside.abi() else \
            start["mq"] == "Permission denied", start
        assert start["dev-shm"] == m["dev-shm"] == f"/dev/shm/{name}", line
        # after it, locked: no new System V segment nor POSIX queue (EPERM), the rest made again
        assert all(isinstance(m[k], int) and m[k] >= 0 for k in ("msg", "sem")), m
        if inside_runs():
            assert m["shm"] == m["mq"] == "Operation not permitted", m
        else:
            assert m["shm"] == start["shm"] and m["mq"] == start["mq"], line
    keys = {f"{k}" for k in (key, key + 1, key + 2)}
    assert not [o for o in after.ipc if str(int(o[1])) in keys], after.ipc
    assert not after.new_since(before, name), after.new_since(before, name)
    assert not os.path.exists(f"/dev/shm/{name}")
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.mq_open(f"/{name}".encode(), ctypes.c_int(os.O_RDONLY)) == -1  # no such queue on the host
    assert ctypes.get_errno() == 2
    assert not faults_of(results)
    assert_no_leftovers(tmp_path)
