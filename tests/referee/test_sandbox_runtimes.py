"""Runtimes still work in the sandbox with /proc's counters masked (issue 19 item 3).

Each runtime installed here runs inside the sandbox, as a bot would, and reports the CPUs
and memory it sees: the bot's own (referee.sandbox.bot_cpu_count, its memory limit), read
from the masks.  A runtime whose binary is absent is skipped, saying so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from referee import sandbox
from referee.sandbox import Limits

LIMITS = Limits(memory_mib=1024)


def _run(code, command: list[str], *, mask: bool = True, limits: Limits = LIMITS) -> tuple[int, str]:
    """``command`` run in a sandbox over the folder ``code``: (exit status, stdout and stderr)."""
    box = sandbox.Sandboxed(code, command, {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}, limits, mask_proc=mask,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    try:
        out, _ = box.process.communicate(timeout=60)
    finally:
        box.process.kill()
        box.process.wait()
        box.release()
    return box.process.returncode, out


@pytest.fixture
def code(tmp_path):
    folder = tmp_path / "code"
    folder.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    return folder


def _need(binary: str) -> str:
    path = shutil.which(binary)
    if path is None:
        pytest.skip(f"{binary} is not installed on this machine")
    return path


@pytest.mark.guard(60)
def test_python_sees_the_bots_cpus(code):
    status, out = _run(code, [sys.executable, "-c", "import json, os, multiprocessing; "
                              "print(json.dumps([os.cpu_count(), multiprocessing.cpu_count()]))"])
    assert status == 0, out
    n = sandbox.bot_cpu_count(LIMITS)
    assert json.loads(out.strip().splitlines()[-1]) == [n, n]


@pytest.mark.guard(60)
def test_node_sees_the_bots_cpus_and_memory(code):
    node = _need("node")
    status, out = _run(code, [node, "-e", "const os = require('os'); "
                              "console.log(JSON.stringify([os.cpus().length, os.totalmem(), os.loadavg()]))"])
    lines = out.strip().splitlines()
    assert json.loads(lines[0]) == [sandbox.bot_cpu_count(LIMITS), 1024 << 20, [0, 0, 0]], out
    # node joins its worker threads at exit: the futex abort of test_thread_join_works_in_the_sandbox
    assert status == 0 or (status == 134 and lines[1:] == [FUTEX_ABORT]), out


@pytest.mark.guard(60)
def test_cpp_sees_the_bots_cpus(code):
    gxx = _need("g++")
    (code / "hc.cpp").write_text("#include <iostream>\n#include <thread>\n"
                                 "int main() { std::cout << std::thread::hardware_concurrency() << std::endl; }\n")
    subprocess.run([gxx, "-O1", "-o", code / "hc", code / "hc.cpp"], check=True, timeout=60)
    (code / "hc").chmod(0o755)
    status, out = _run(code, ["/arena/bot/hc"])
    assert status == 0, out
    assert int(out.strip()) == sandbox.bot_cpu_count(LIMITS)


JAVA = "public class Cpus { public static void main(String[] a) { System.out.println(" \
       "Runtime.getRuntime().availableProcessors()); } }\n"


@pytest.mark.guard(120)
def test_the_masks_change_nothing_for_the_jvm(code):
    """Whatever the JVM does in the sandbox, it does the same with the masks off."""
    java = _need("java")
    unlimited = Limits(memory_mib=0)  # a JVM reserves more address space than 1 GiB
    masked = _run(code, [java, "-version"], limits=unlimited)
    assert masked == _run(code, [java, "-version"], mask=False, limits=unlimited)


FUTEX_ABORT = "The futex facility returned an unexpected error code."
PTHREAD_JOIN = ("the seccomp filter refuses futexes without FUTEX_PRIVATE_FLAG (a covert channel through shared "
                "files, issue 9): glibc's pthread_join waits on one, so a C++ std::thread::join, the JVM, and node "
                f"at exit abort ({FUTEX_ABORT!r}), masks or not")


@pytest.mark.guard(60)
@pytest.mark.xfail(strict=True, reason=PTHREAD_JOIN)
def test_thread_join_works_in_the_sandbox(code):
    gxx = _need("g++")
    (code / "join.cpp").write_text("#include <chrono>\n#include <iostream>\n#include <thread>\nint main() { int x = 0; "
                                   "std::thread t([&] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); x = 42; }); "
                                   "t.join(); std::cout << x << std::endl; }\n")  # the join must wait
    subprocess.run([gxx, "-O1", "-pthread", "-o", code / "join", code / "join.cpp"], check=True, timeout=60)
    (code / "join").chmod(0o755)
    assert _run(code, ["/arena/bot/join"]) == (0, "42\n")


@pytest.mark.guard(120)
@pytest.mark.xfail(strict=True, reason=PTHREAD_JOIN)
def test_the_jvm_runs_in_the_sandbox(code):
    java, javac = _need("java"), _need("javac")
    (code / "Cpus.java").write_text(JAVA)
    subprocess.run([javac, "-d", code, code / "Cpus.java"], check=True, timeout=120)
    status, out = _run(code, [java, "-cp", "/arena/bot", "Cpus"], limits=Limits(memory_mib=0))
    assert status == 0, out
    assert int(out.strip().splitlines()[-1]) == sandbox.bot_cpu_count(LIMITS)
