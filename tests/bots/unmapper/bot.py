"""Test bot 'unmapper': kernel work that would run on past the freeze (red team 50's ``exitsteal``).

``python bot.py [--mib M]`` (tests/bots/README.md). At each decision it maps M MiB (default
192) of anonymous memory and writes every byte, then answers at random while a thread
unmaps the region (``munmap`` through ctypes, which lets go of the GIL): freeing touched
pages runs in the kernel to its end, so if the referee thawed the next seat as soon as it had
asked the freezer to stop this bot, that work would run beside the next seat's decision.
"""

from __future__ import annotations

import argparse
import ctypes
import threading

from belote_arena_sdk import Bot, pb, serve

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS = 3, 0x22


class Unmapper(Bot):
    def __init__(self, mib: int):
        super().__init__()
        self.size = mib << 20

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        region = libc.mmap(None, self.size, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0)
        if region not in (None, ctypes.c_void_p(-1).value):
            ctypes.memset(region, 1, self.size)  # every page in: this decision's own time
            threading.Thread(target=libc.munmap, args=(region, self.size), daemon=True).start()
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--mib", type=int, default=192)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(Unmapper(args.mib), rest))
