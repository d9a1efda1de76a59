"""One bit between two processes through what every sandbox shares read-only (issue 9).

``python3 channel.py KIND send|receive`` (standard library only). The sender holds
its signal for 2 s; the receiver looks after 0.5 s and prints ``1`` (the bit
arrived), ``0`` (it did not) or ``blocked: <why>``. Kinds:

- ``futex``: the sender waits on a futex on the first word of a page of
  ``/usr/bin/env`` (mapped read-only, not private); the receiver wakes it and reads
  how many waited;
- ``lock``: the sender holds an OFD read lock on ``/usr/bin/env``, taken with the
  command number's high 32 bits set (the kernel reads the low 32 only); the receiver
  asks who holds it (``F_OFD_GETLK``), the same way;
- ``page``: the receiver evicts a page of a standard-library file from the page
  cache (``posix_fadvise``), the sender reads it back in, and the receiver probes
  with ``preadv2(RWF_NOWAIT)``, which reads only what is cached.

Used by tests/referee/test_sandbox.py, which checks each kind delivers the bit
between plain processes (the control) and not between two sandboxes.
"""

import ctypes
import os
import sys
import sysconfig
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
SYS_FCNTL, SYS_FUTEX = 72, 202
F_OFD_GETLK, F_OFD_SETLK, F_RDLCK, F_WRLCK, F_UNLCK = 36, 37, 0, 1, 2
HIGH = 1 << 32
SHARED = "/usr/bin/env"
PAGE_FILE = os.path.join(sysconfig.get_paths()["stdlib"], "pydoc_data", "topics.py")


class Flock(ctypes.Structure):
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short), ("l_start", ctypes.c_long),
                ("l_len", ctypes.c_long), ("l_pid", ctypes.c_int)]


def error() -> str:
    return f"blocked: {os.strerror(ctypes.get_errno())}"


def futex(role: str) -> str:
    fd = os.open(SHARED, os.O_RDONLY)
    addr = libc.mmap(None, 4096, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE (unwritten: the file's own page)
    word = ctypes.c_uint32.from_address(addr).value
    if role == "send":
        timeout = (ctypes.c_long * 2)(2, 0)
        libc.syscall(SYS_FUTEX, ctypes.c_void_p(addr), 0, ctypes.c_uint32(word), timeout, None, 0)  # FUTEX_WAIT
        return ""
    time.sleep(0.5)
    woke = libc.syscall(SYS_FUTEX, ctypes.c_void_p(addr), 1, 1, None, None, 0)  # FUTEX_WAKE
    return error() if woke < 0 else str(min(woke, 1))


def lock(role: str) -> str:
    fd = os.open(SHARED, os.O_RDONLY)
    if role == "send":
        fl = Flock(F_RDLCK, 0, 0, 1, 0)
        if libc.syscall(SYS_FCNTL, fd, ctypes.c_long(HIGH | F_OFD_SETLK), ctypes.byref(fl)) != 0:
            return ""
        time.sleep(2)
        return ""
    time.sleep(0.5)
    fl = Flock(F_WRLCK, 0, 0, 1, 0)
    if libc.syscall(SYS_FCNTL, fd, ctypes.c_long(HIGH | F_OFD_GETLK), ctypes.byref(fl)) != 0:
        return error()
    return "1" if fl.l_type != F_UNLCK else "0"


def page(role: str) -> str:
    fd = os.open(PAGE_FILE, os.O_RDONLY)
    offset = 16 * 4096
    if role == "send":
        end = time.monotonic() + 2
        while time.monotonic() < end:
            os.pread(fd, 4096, offset)  # keeps the page cached
            time.sleep(0.01)
        return ""
    try:
        os.posix_fadvise(fd, offset, 4096, os.POSIX_FADV_DONTNEED)
        time.sleep(0.5)
        os.preadv(fd, [bytearray(4096)], offset, os.RWF_NOWAIT)
        return "1"
    except BlockingIOError:
        return "0"
    except OSError as e:
        return f"blocked: {e.strerror}"


if __name__ == "__main__":
    kind, role = sys.argv[1], sys.argv[2]
    print({"futex": futex, "lock": lock, "page": page}[kind](role), flush=True)
