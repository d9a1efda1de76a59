"""sysinfo(2) as a channel between two live sandboxes (tests/referee/test_sandbox_counters.py).

Driven by lines on stdin, one JSON answer per line on stdout:

* ``hold N MIB``: start N threads that wait, and touch MIB MiB of memory, and keep both;
  answers ``{"held": N}``;
* ``release``: ends the threads, frees the memory; answers ``{"released": true}``;
* ``read``: answers what ``sysinfo(2)`` says: ``{"procs", "freeram", "totalram", "loads",
  "uptime"}`` (bytes, the kernel's load units, seconds).
"""

import ctypes
import json
import struct
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
threading.stack_size(256 << 10)  # many threads within the address-space limit
stop = threading.Event()
held = []

for line in sys.stdin:
    command, *args = line.split()
    if command == "hold":
        stop.clear()
        threads = [threading.Thread(target=stop.wait) for _ in range(int(args[0]))]
        for t in threads:
            t.start()
        memory = bytearray(int(args[1]) << 20)
        memory[::4096] = b"x" * len(memory[::4096])  # every page touched
        held = [threads, memory]
        print(json.dumps({"held": len(threads)}), flush=True)
    elif command == "release":
        stop.set()
        for t in held[0] if held else ():
            t.join()
        held = []
        print(json.dumps({"released": True}), flush=True)
    elif command == "read":
        buf = ctypes.create_string_buffer(112)
        rc = libc.sysinfo(buf)
        v = struct.unpack("=q3Q6QHH4xQQI4x", buf.raw)
        unit = v[-1] or 1
        print(json.dumps({"rc": rc, "uptime": v[0], "loads": list(v[1:4]), "totalram": v[4] * unit,
                          "freeram": v[5] * unit, "procs": v[10]}), flush=True)
