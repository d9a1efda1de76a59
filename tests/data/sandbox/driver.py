"""Launch tests/data/sandbox/attacks.py in the bot sandbox, as the referee would, and report.

``python driver.py CODE_DIR PORT ESCAPE_PATH``: prints ``{"identity", "report", "exit"}`` as JSON.
Run by tests/referee/test_sandbox_unprivileged.py as an unprivileged user.
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from referee import sandbox


def main() -> None:
    code, port, escape = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    support = sandbox.support()
    if not support.works:
        print(json.dumps({"problem": support.problem}))
        return
    box = sandbox.Sandboxed(code, ["/usr/bin/python3", "attacks.py", port, escape], {"PATH": "/usr/bin"},
                            # image=False: its lib/ is a fresh copy each run, so an image would be built
                            # (2.3 GB) every time; the image is tested as root (tests/arena/test_shared_caches.py)
                            sandbox.Limits(nproc=32, weak_limits=True, image=False), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    p = box.process
    child = box.child_pid(time.monotonic() + 20)
    path = f"/proc/{child}/root/arena/work/s.sock"
    deadline = time.monotonic() + 20
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
        s.sendall(b"hello from the host")
    out, err = p.communicate(timeout=30)
    box.release()
    print(json.dumps({"identity": support.identity, "exit": p.returncode, "stderr": err[-500:],
                      "report": json.loads(out.strip().splitlines()[-1]) if out.strip() else None}))


if __name__ == "__main__":
    main()
