"""Whole-bot limits without cgroups (issue 19 item 7), as an unprivileged arena sees them.

``python weak.py CODE_DIR``: prints one JSON line: ``refused`` (the message of the refusal
to start a bot whose whole-bot memory cannot be enforced, without ``weak_limits``), ``report``
(what the arena says it enforces with ``weak_limits``), and ``children``: what three
children of a bot, each allocating 400 MiB under ``memory_mib=300`` with ``weak_limits``,
ended with; ``freeze``: how a spinning bot is frozen without cgroups (by signals), and the
CPU clock ticks its sandbox used in 0.5 s frozen, then 0.5 s thawed.
Run by tests/referee/test_sandbox_unprivileged.py as an unprivileged user.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from referee import sandbox

CHILDREN = """
import json, os
kids = []
for i in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            b = bytearray(400 * 1024 * 1024)
            os._exit(0)
        except MemoryError:
            os._exit(7)
    kids.append(pid)
print(json.dumps(sorted(os.waitstatus_to_exitcode(os.waitpid(k, 0)[1]) for k in kids)))
"""


def ticks(child: int) -> int:
    """CPU time (clock ticks) used so far by every process of the sandbox whose init is ``child``."""
    ns, total = os.stat(f"/proc/{child}/ns/pid").st_ino, 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}/ns/pid").st_ino == ns:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
        except OSError:
            continue
    return total


def freeze(code: Path) -> dict:
    (code / "spin.py").write_text("open('/arena/work/ready', 'w').close()\nwhile True:\n    pass\n")
    box = sandbox.Sandboxed(code, ["/usr/bin/python3", "spin.py"], {"PATH": "/usr/bin"},
                            sandbox.Limits(weak_limits=True, image=False))
    try:
        child = box.child_pid(time.monotonic() + 20)
        deadline = time.monotonic() + 20
        while not os.path.exists(f"/proc/{child}/root/arena/work/ready"):  # it runs in its sandbox
            if time.monotonic() > deadline:
                return {"problem": "the spinner did not start"}
            time.sleep(0.01)
        freezer = box.freezer()
        ok = freezer.freeze()
        before = ticks(child)
        time.sleep(0.5)
        frozen = ticks(child) - before
        freezer.thaw()
        before = ticks(child)
        time.sleep(0.5)
        thawed = ticks(child) - before
        freezer.release()
        return {"how": freezer.how, "ok": ok, "frozen_ticks": frozen, "thawed_ticks": thawed}
    finally:
        box.process.kill()
        box.process.wait()
        box.release()


def main() -> None:
    code = Path(sys.argv[1])
    (code / "children.py").write_text(CHILDREN)
    out = {"cgroups": sorted(sandbox.cgroup_folders())}
    try:
        sandbox.Sandboxed(code, ["/usr/bin/python3", "children.py"], {"PATH": "/usr/bin"},
                          sandbox.Limits(memory_mib=300, image=False))  # (as driver.py: no image per run)
        out["refused"] = None
    except sandbox.WeakLimitsError as e:
        out["refused"] = str(e)
    limits = sandbox.Limits(memory_mib=300, weak_limits=True, image=False)
    out["report"] = sandbox.report(limits)
    box = sandbox.Sandboxed(code, ["/usr/bin/python3", "children.py"], {"PATH": "/usr/bin"}, limits,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = box.process.communicate(timeout=30)
    finally:
        box.process.kill()
        box.process.wait()
        box.release()
    out["children"] = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else stderr[-500:]
    out["freeze"] = freeze(code)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
