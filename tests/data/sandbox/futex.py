"""A futex on a page of a file every sandbox maps (``/usr/bin/env``): ``python3 futex.py wait|wake``.

``wait`` waits up to 3 s on the first word of the page and prints ``woken`` or
``blocked: <why>``; ``wake`` wakes it after 0.5 s and prints how many waiters woke.
Two processes that could do this could signal each other noise-free
(tests/referee/test_sandbox.py).
"""

import ctypes
import os
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
SYS_FUTEX, FUTEX_WAIT, FUTEX_WAKE, PROT_READ, MAP_PRIVATE = 202, 0, 1, 1, 2

fd = os.open("/usr/bin/env", os.O_RDONLY)
addr = libc.mmap(None, 4096, PROT_READ, MAP_PRIVATE, fd, 0)
word = ctypes.c_uint32.from_address(addr).value
if sys.argv[1] == "wait":
    timeout = (ctypes.c_long * 2)(3, 0)
    rc = libc.syscall(SYS_FUTEX, ctypes.c_void_p(addr), FUTEX_WAIT, ctypes.c_uint32(word), timeout, None, 0)
    print("woken" if rc == 0 else f"blocked: {os.strerror(ctypes.get_errno())}", flush=True)
else:
    time.sleep(0.5)
    rc = libc.syscall(SYS_FUTEX, ctypes.c_void_p(addr), FUTEX_WAKE, 1, None, None, 0)
    print(rc if rc >= 0 else f"blocked: {os.strerror(ctypes.get_errno())}", flush=True)
