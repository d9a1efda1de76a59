"""The C allocator's memory, given back so that a long run stays flat (issue 14 item 3).

glibc only (``ctypes``); every function is a no-op elsewhere.  Kept apart from the
executors so that the CLI's entry point can call :func:`few_malloc_arenas` without
importing gRPC.
"""

from __future__ import annotations

import ctypes
import functools


@functools.cache
def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None


def trim_memory() -> None:
    """Give freed heap memory back to the system (glibc's ``malloc_trim``; a no-op elsewhere).

    A long run allocates and frees many small objects from several threads (the referee, gRPC's,
    the writer): glibc keeps what was freed in per-thread arenas, and the process's resident
    memory creeps up with the length of the run although nothing is kept.  Called every few
    seconds by the writer and every :data:`TRIM_EVERY` board pairs by a unit."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


M_ARENA_MAX = -8  # glibc's mallopt parameter number


def few_malloc_arenas(n: int = 2) -> None:
    """Make glibc's allocator share ``n`` heaps between this process's threads (``mallopt
    M_ARENA_MAX``; a no-op elsewhere).  With one heap per thread (up to 8 per core), memory
    freed by one thread is not reused by another, and a long run's resident memory grows with
    its length (measured over 600 boards of a match, after the first writes: +17 MiB by
    default, +7 MiB with 2 heaps, +4 MiB with 1).  Call it
    first thing, before threads start: the arena's entry point and each worker process do."""
    libc = _libc()
    if libc is not None:
        libc.mallopt(M_ARENA_MAX, n)


#: A unit calls :func:`trim_memory` after this many board pairs.
TRIM_EVERY = 100
