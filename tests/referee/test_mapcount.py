"""No mapping count passes between live partners (issue 19 item 1's partner channel; red team 7).

Two processes that map the same page of a file change its map count, and each could read
it in its own ``/proc/self`` (``pagemap``'s "exclusive" bit, ``smaps``' ``Shared_*``,
``numa_maps``' ``mapmax``).  Partners are alive together for a whole deal, and both bots'
folders are one copy in the image: a seat could keep its cards mapped as pages for its partner
to read (red team 7: 24 of 24 partner hands).  The sandbox has no procfs (issue 19,
SECURITY.md "The inode numbers"): its ``/proc`` holds only the static masks, so none of the
three files exists there.

By attack: a sender sandbox keeps mapped the pages of its folder's ``pool.bin`` whose bits are
1 (tests/data/sandbox/mapcount.py); a receiver sandbox, over the same folder, maps every page
and reads what it can.  With the sandbox as bots get it, it decodes nothing (no such file:
ENOENT); the control (the receiver with a procfs, ``mask_proc=False``) decodes every bit by
all three files.
"""

from __future__ import annotations

import json
import platform
import random
import shutil
import subprocess

import pytest

from referee import sandbox
from referee.sandbox import Limits

from .botkit import REPO

PAGES = 48
METHODS = ("pagemap", "smaps", "numa_maps")


def _box(code, proc_rules: bool) -> sandbox.Sandboxed:
    return sandbox.Sandboxed(code, ["/usr/bin/python3", "mapcount.py"], {"PATH": "/usr/bin"}, Limits(),
                             mask_proc=proc_rules, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def _ask(box: sandbox.Sandboxed, line: str) -> dict:
    box.process.stdin.write(line + "\n")
    box.process.stdin.flush()
    answer = box.process.stdout.readline()
    assert answer, f"the sandboxed {line!r} got no answer (exit {box.process.poll()})"
    return json.loads(answer)


@pytest.fixture
def code(tmp_path):
    folder = tmp_path / "code"
    folder.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    shutil.copy(REPO / "tests" / "data" / "sandbox" / "mapcount.py", folder / "mapcount.py")
    # bytes of its own: the image keeps one copy per content, and another test's sandboxes may
    # still be ending (their mappings with them)
    (folder / "pool.bin").write_bytes(random.randbytes(PAGES * 2 * 4096))
    return folder


@pytest.mark.guard(120)
@pytest.mark.parametrize("proc_rules", [True, False], ids=["sandbox", "control"])
def test_a_partner_reads_no_page_the_other_keeps_mapped(code, proc_rules):
    bits = "".join(random.Random(7).choice("01") for _ in range(PAGES))
    sender, receiver = _box(code, True), _box(code, proc_rules)
    try:
        assert _ask(sender, f"send {bits}") == {"sent": bits}
        read = _ask(receiver, f"read {PAGES}")
    finally:
        for box in (sender, receiver):
            box.process.kill()
            box.process.wait()
            box.release()
    if proc_rules:
        # none of the three files exists (no procfs): the receiver decodes no bit at all
        assert {m: read[m] for m in METHODS} == dict.fromkeys(METHODS), read
        assert set(read["errors"].values()) == {"No such file or directory"}, read
    else:
        # the control: every file gives every bit (1: the sender maps the page too)
        assert {m: read[m] for m in METHODS} == dict.fromkeys(METHODS, bits), read


@pytest.mark.guard(60)
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the probe's syscall numbers are x86_64's")
def test_moving_pages_between_numa_nodes_is_refused(code):
    """``move_pages``, ``migrate_pages`` and ``mbind`` refuse or skip a page another process maps
    when moving it to another NUMA node (``EACCES``, or ``EIO`` with ``MPOL_MF_STRICT``): a map count
    again, on machines of several nodes.  The seccomp filter refuses all three (EPERM)."""
    probe = ("import ctypes, json; libc = ctypes.CDLL(None, use_errno=True); out = {}\n"
             "for name, number in (('move_pages', 279), ('migrate_pages', 256), ('mbind', 237)):\n"
             "    out[name] = (libc.syscall(number, 0, 0, 0, 0, 0, 0), ctypes.get_errno())\n"
             "print(json.dumps(out))")
    box = sandbox.Sandboxed(code, ["/usr/bin/python3", "-c", probe], {"PATH": "/usr/bin"}, Limits(),
                            stdout=subprocess.PIPE, text=True)
    try:
        out, _ = box.process.communicate(timeout=60)
    finally:
        box.release()
    assert json.loads(out) == dict.fromkeys(("move_pages", "migrate_pages", "mbind"), [-1, 1]), out
