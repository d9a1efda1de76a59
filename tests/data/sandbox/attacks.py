"""Run inside the bot sandbox by tests/referee/test_sandbox_unprivileged.py (standard library only).

``python3 attacks.py PORT``: serves a Unix socket at /arena/work/s.sock (the test connects
to it from the host), tries each attack below once, and prints one JSON object
``{attack: "blocked: <why>" | "SUCCEEDED: <what>" | value}`` on stdout.
"""

import ctypes
import json
import os
import socket
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)


def errno_text() -> str:
    return os.strerror(ctypes.get_errno())


def attempt(fn):
    try:
        out = fn()
        return out if isinstance(out, str) else f"SUCCEEDED: {out!r}"
    except OSError as e:
        return f"blocked: {e.strerror or e}"


def syscall_result(rc: int, what: str) -> str:
    return f"blocked: {errno_text()}" if rc != 0 else f"SUCCEEDED: {what}"


def remount():
    return syscall_result(libc.mount(None, b"/", None, 32 | 4096, None), "remounted /")  # MS_REMOUNT|MS_BIND


def new_user_namespace():
    return syscall_result(libc.unshare(0x10000000), "unshare(CLONE_NEWUSER)")


def join_namespace():
    fd = os.open("/proc/1/ns/net", os.O_RDONLY)
    return syscall_result(libc.setns(fd, 0), "setns into pid 1's network namespace")


def ptrace_init():
    return syscall_result(libc.ptrace(16, 1, None, None), "PTRACE_ATTACH to pid 1")


def write_memory():
    with open("/proc/1/mem", "wb") as f:
        f.write(b"x")
    return "SUCCEEDED: wrote /proc/1/mem"


def write_outside(path):
    def go():
        with open(path, "w") as f:
            f.write("escaped")
        return f"SUCCEEDED: wrote {path}"
    return go


def network(port):
    def go():
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return "SUCCEEDED: connected to the host's listener"
    return go


def lock_shared_file():
    import fcntl
    with open("/usr/bin/env", "rb") as f:  # read-only, and the same file in every sandbox
        fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
    return "SUCCEEDED: flock on a shared file"


def record_lock_shared_file():
    import fcntl
    with open("/usr/bin/env", "rb") as f:
        fcntl.lockf(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
    return "SUCCEEDED: fcntl record lock on a shared file"


def watch_shared_files():
    fd = libc.inotify_init1(0)
    return f"blocked: {errno_text()}" if fd < 0 else "SUCCEEDED: inotify"


def vsock_high_bits():
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(41, ctypes.c_long((1 << 32) | 40), 1, 0)  # socket(AF_VSOCK) with high bits set
    if fd < 0:
        return f"blocked: {errno_text()}"
    os.close(fd)
    return "SUCCEEDED: an AF_VSOCK socket (high bits)"


def probe_page_cache():
    fd = os.open("/usr/bin/env", os.O_RDONLY)
    try:
        os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)  # answers only from the shared page cache
    finally:
        os.close(fd)
    return "SUCCEEDED: preadv2(RWF_NOWAIT) on a shared file"


def evict_page_cache():
    fd = os.open("/usr/bin/env", os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return "SUCCEEDED: evicted a shared file's pages"


def vsock():
    socket.socket(40, socket.SOCK_STREAM).close()  # AF_VSOCK: to the hypervisor
    return "SUCCEEDED: an AF_VSOCK socket"


def fork_bomb():
    kids = []
    for _ in range(200):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(3)
            os._exit(0)
        kids.append(pid)
    return len(kids)


def visible_pids() -> int:
    """Processes this one sees: listed in /proc, or, where there is none to list (the sandbox has no
    procfs), the pids below 65,536 that ``kill(pid, 0)`` finds (ESRCH: none there)."""
    try:
        listed = len([d for d in os.listdir("/proc") if d.isdigit()])
    except OSError:
        listed = 0
    if listed:
        return listed
    found = 0
    for n in range(1, 1 << 16):
        try:
            os.kill(n, 0)
        except ProcessLookupError:
            continue
        except OSError:
            pass
        found += 1
    return found


def effective_capabilities() -> str:
    """The effective set as ``/proc/self/status`` shows it (16 hex digits), asked of ``capget``:
    the sandbox has no procfs."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if libc.capget(header, data) != 0:
        return f"capget: {errno_text()}"
    return f"{data[3] << 32 | data[0]:016x}"


def main() -> None:
    port, escape = int(sys.argv[1]), sys.argv[2]
    server = socket.socket(socket.AF_UNIX)
    server.bind("/arena/work/s.sock")
    server.listen(1)
    report = {
        "uid": os.getuid(),
        "capabilities": effective_capabilities(),
        "visible_pids": visible_pids(),
        "remount": remount(),
        "new_user_namespace": new_user_namespace(),
        "join_namespace": attempt(join_namespace),
        "ptrace": ptrace_init(),
        "write_memory": attempt(write_memory),
        "write_usr": attempt(write_outside("/usr/escaped")),
        "write_host_folder": attempt(write_outside(escape)),
        "network": attempt(network(port)),
        "flock": attempt(lock_shared_file),
        "record_lock": attempt(record_lock_shared_file),
        "inotify": watch_shared_files(),
        "vsock": attempt(vsock),
        "vsock_high_bits": vsock_high_bits(),
        "page_cache_probe": attempt(probe_page_cache),
        "page_cache_evict": attempt(evict_page_cache),
        "forks": fork_bomb(),
    }
    conn, _ = server.accept()  # the host reaches the socket through /proc/PID/root
    report["host_said"] = conn.recv(100).decode()
    conn.close()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
