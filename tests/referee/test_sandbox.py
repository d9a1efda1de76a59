"""The bot sandbox (referee.launch): no network, every process of a bot dies with it.

A 'hostile' bot tries, on its first decision, to open a TCP connection to a
listener of the test on 127.0.0.1, to start a child in a session of its own
(which ``killpg`` would miss), and to write outside its working folder.
"""

from __future__ import annotations

import json
import os
import socket
import time

import pytest

from referee.botproc import Limits, sandbox_report, sandbox_support

from .botkit import entrant
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


@pytest.mark.guard(60)
def test_hostile_bot_is_contained(tmp_path):
    support = sandbox_support()
    out = tmp_path / "out"
    out.mkdir()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        bad = entrant(tmp_path, "hostile", "--out", out, "--port", port)
        good = entrant(tmp_path, "random")
        results = play(tmp_path, bad, good, 2, limits=Limits(writable=(str(out),)))
        assert [r.board for r in results] == [0, 1]
        reports = [json.loads(p.read_text()) for p in out.glob("hostile-*.json")]
        if support["filesystem"]:  # outside its folders the file system is read-only
            assert all(r["write_outside"] == "refused: Read-only file system" for r in reports), reports
            assert not list(tmp_path.glob("escape-*"))
        assert len(reports) == 4  # one per process: 2 seats x 2 tables
        if support["network"]:
            assert all(r["network"].startswith("refused") for r in reports), reports
            with pytest.raises(BlockingIOError):
                listener.accept()  # nobody got through
        if support["pid"]:
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
    support = sandbox_support()
    text = sandbox_report(Limits(cpu_s=30, memory_mib=512, nproc=0, fsize_mib=8))
    assert ("no network" in text) == support["network"]
    assert ("NETWORK NOT ISOLATED" in text) == (not support["network"])
    assert "CPU ≤ 30 s" in text and "address space ≤ 512 MiB" in text and "processes unlimited" in text
    assert ("file system read-only but for a private working folder" in text) == support["filesystem"]
    assert ("FILE SYSTEM WRITABLE" in text) == (not support["filesystem"])
    off = sandbox_report(Limits(isolate=False))
    assert "namespaces off" in off and "FILE SYSTEM WRITABLE" in off


def test_memory_limit_stops_a_hungry_bot(tmp_path):
    """RLIMIT_AS through the launcher: allocating past it fails inside the bot."""
    import subprocess
    import sys

    code = "b = bytearray(600 * 1024 * 1024)"
    p = subprocess.run([sys.executable, "-m", "referee.launch", "--memory=256", "--", sys.executable, "-c", code],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "MemoryError" in p.stderr
    p = subprocess.run([sys.executable, "-m", "referee.launch", "--memory=1024", "--", sys.executable, "-c", code],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert os.path.exists("/proc/self")
