"""A covert channel through host-wide kernel counters, and the probe that finds them (issue 19).

``python3 counters.py send``: for each line ``1`` read from stdin, a burst that moves every
host-wide counter it can: 32 forks (each child exits at once), 16 threads alive together,
64 MiB of memory touched and freed; a line ``0``: nothing.  Answers ``done`` to each line.

``python3 counters.py receive``: lists every file under ``/proc`` it can read (its own
processes' folders left out, ``/proc/net`` and ``/proc/sys`` included; and every file of
the host's ``/proc`` listed in ``host_proc.txt`` beside it, for a ``/proc`` it may not list), then for each
line read from stdin reads them all and answers one JSON line ``{"changed": [names that
differ from the previous reading], "processes": the `processes` counter of /proc/stat or
null, "files": how many were read}``.

Standard library only: tests/referee/test_counters.py runs both in sandboxes (and the
receiver with the masks off, its control) and drives the slots, waiting for each answer.
"""

import json
import os
import sys
import threading

SKIP = {"self", "thread-self", "kmsg", "kcore", "kpagecount", "kpageflags", "kpagecgroup", "sysrq-trigger",
        "pagemap", "kallsyms"}
LIMIT = 1 << 20


def readable() -> list[str]:
    found = []
    try:  # the host's own list of its /proc's files, written beside us by the test (listing may be denied)
        with open("host_proc.txt") as f:
            found += f.read().split()
    except OSError:
        pass
    try:
        names = sorted(os.listdir("/proc"))
    except PermissionError:
        names = []
    for name in names:
        if name.isdigit() or name in SKIP:
            continue
        top = "/proc/" + name
        if os.path.isdir(top):
            for folder, dirs, files in os.walk(top, followlinks=name == "net"):
                dirs[:] = [d for d in dirs if not d.isdigit()]
                found.extend(os.path.join(folder, f) for f in files)
        else:
            found.append(top)
    out = []
    for path in sorted(set(found)):
        try:
            with open(path, "rb") as f:
                f.read(LIMIT)
            out.append(path)
        except OSError:
            continue
    return out


def snapshot(paths: list[str]) -> dict[str, bytes]:
    values = {}
    for path in paths:
        try:
            with open(path, "rb") as f:
                values[path] = f.read(LIMIT)
        except OSError as e:
            values[path] = f"error {e.errno}".encode()
    return values


def processes(stat: bytes | None) -> int | None:
    for line in (stat or b"").splitlines():
        if line.startswith(b"processes "):
            return int(line.split()[1])
    return None


def receive() -> None:
    paths = readable()
    before = snapshot(paths)
    for _ in sys.stdin:
        now = snapshot(paths)
        changed = sorted(p for p in paths if now[p] != before[p])
        print(json.dumps({"changed": changed, "processes": processes(now.get("/proc/stat")), "files": len(paths)}),
              flush=True)
        before = now


def burst() -> None:
    for _ in range(32):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    stop = threading.Event()
    threads = [threading.Thread(target=stop.wait) for _ in range(16)]
    for t in threads:
        t.start()
    memory = bytearray(64 << 20)
    for i in range(0, len(memory), 4096):
        memory[i] = 1
    del memory
    stop.set()
    for t in threads:
        t.join()


def send() -> None:
    for line in sys.stdin:
        if line.strip() == "1":
            burst()
        print("done", flush=True)


if __name__ == "__main__":
    {"send": send, "receive": receive}[sys.argv[1]]()
