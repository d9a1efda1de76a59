"""Whole-bot limits without cgroups (issue 19 item 7), as an unprivileged arena sees them.

``python weak.py CODE_DIR``: prints one JSON line: ``refused`` (the message of the refusal
to start a bot whose whole-bot memory cannot be enforced, without ``weak_limits``), ``report``
(what the arena says it enforces with ``weak_limits``), and ``children``: what three
children of a bot, each allocating 400 MiB under ``memory_mib=300`` with ``weak_limits``,
ended with.  Run by tests/referee/test_sandbox_unprivileged.py as an unprivileged user.
"""

import json
import subprocess
import sys
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


def main() -> None:
    code = Path(sys.argv[1])
    (code / "children.py").write_text(CHILDREN)
    out = {"cgroups": sorted(sandbox.cgroup_folders())}
    try:
        sandbox.Sandboxed(code, ["/usr/bin/python3", "children.py"], {"PATH": "/usr/bin"},
                          sandbox.Limits(memory_mib=300))
        out["refused"] = None
    except sandbox.WeakLimitsError as e:
        out["refused"] = str(e)
    limits = sandbox.Limits(memory_mib=300, weak_limits=True)
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
    print(json.dumps(out))


if __name__ == "__main__":
    main()
