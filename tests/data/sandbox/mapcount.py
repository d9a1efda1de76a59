"""Mapping counts as a channel between two live sandboxes (red team 7; tests/referee/test_mapcount.py).

Driven by lines on stdin, one JSON answer per line on stdout:

* ``send BITS`` (``BITS`` like ``10110``): map and touch page k of ``pool.bin`` (its own folder,
  shared with the other sandbox through the image) for every k whose bit is 1, keep them
  mapped, answer ``{"sent": BITS}``;
* ``read N``: map and touch pages 0..N-1 of ``pool.bin`` and read, from its own ``/proc/self``,
  how many processes map each: ``pagemap``'s "exclusive" bit (56), ``smaps``' ``Shared_*``
  and ``numa_maps``' ``mapmax`` (once: its own mappings stay); answer ``{"pagemap": BITS|null, "smaps": BITS|null,
  "numa_maps": BITS|null, "errors": {...}}`` (1 = another process maps the page; null: the file
  could not be read).
"""

import ctypes
import json
import os
import struct
import sys

PAGE = 4096
STEP = 2 * PAGE  # a gap between pages: the kernel does not merge their mappings
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
kept = []


def mapped(k: int) -> int:
    fd = os.open("pool.bin", os.O_RDONLY)
    try:
        address = libc.mmap(None, PAGE, 1, 1, fd, k * STEP)  # PROT_READ, MAP_SHARED
    finally:
        os.close(fd)
    ctypes.c_char.from_address(address).value  # touch it: the page is now in this process's tables
    return address


def pagemap(addresses):
    with open("/proc/self/pagemap", "rb") as f:
        out = []
        for a in addresses:
            f.seek(a // PAGE * 8)
            out.append("0" if (struct.unpack("<Q", f.read(8))[0] >> 56) & 1 else "1")
    return "".join(out)


def _sections(name):
    sections, current = {}, None
    with open(f"/proc/self/{name}") as f:
        for line in f:
            head = line.split(" ", 1)[0]
            if "-" in head and all(c in "0123456789abcdef-" for c in head):
                current = sections.setdefault(int(head.split("-")[0], 16), [])
            elif name == "numa_maps" and all(c in "0123456789abcdef" for c in head):
                current = sections.setdefault(int(head, 16), [])
                current.append(line)
            elif current is not None:
                current.append(line)
    return sections


def smaps(addresses):
    sections = _sections("smaps")
    shared = {a: sum(int(l.split()[1]) for l in sections.get(a, []) if l.startswith(("Shared_Clean:", "Shared_Dirty:")))
              for a in addresses}  # a tmpfs page is dirty
    return "".join("1" if shared[a] > 0 else "0" for a in addresses)


def numa_maps(addresses):
    sections = _sections("numa_maps")
    return "".join("1" if "mapmax=" in "".join(sections.get(a, [])) else "0" for a in addresses)


for line in sys.stdin:
    command, _, argument = line.strip().partition(" ")
    if command == "send":
        kept += [mapped(k) for k, bit in enumerate(argument) if bit == "1"]
        print(json.dumps({"sent": argument}), flush=True)
    elif command == "read":
        addresses = [mapped(k) for k in range(int(argument))]
        answer, errors = {}, {}
        for method in (pagemap, smaps, numa_maps):
            try:
                answer[method.__name__] = method(addresses)
            except OSError as e:
                answer[method.__name__], errors[method.__name__] = None, e.strerror
        answer["errors"] = errors
        print(json.dumps(answer), flush=True)
