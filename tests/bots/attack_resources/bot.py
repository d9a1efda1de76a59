"""Attack bot 'attack_resources' (tests/bots/README.md, issue 9): the machine's resources.

``python bot.py --out DIR --mode MODE``; on its first decision each process attacks, reports
(tests/bots/attack_common.py), then plays a random legal action. Modes:

- ``fork``: a helper process (plain Python: gRPC's fork handlers hang a process that forks
  at its task limit) runs ``os.fork()`` in a loop (up to 2,000), every child sleeping 120 s,
  and reports ``res:fork-bomb``: ``blocked: <errno> after N children`` once a fork fails.
- ``memory`` (in a helper process without gRPC threads, whose reserved address space would
  leave forked children little): ``res:memory-one-process``: one allocation of ``--limit-mib`` +
  64 MiB (more than a process's address space); ``res:memory-across-children``: ``--children``
  (6) children each allocating (and touching) ``--mib`` MiB in 16 MiB steps, then holding it
  while the others do; reported ``SUCCEEDED: children held [..] MiB at once`` (0 for a child
  that failed or was killed before all had allocated): the test checks the bound of the sum.
- ``disk``: ``res:disk:/arena/work``, ``res:disk:/tmp``, ``res:disk:/dev/shm``: 1 MiB writes
  into files of that folder (a new file when one reaches its size limit) until the folder is
  full: ``blocked: <errno> after N MiB`` (``SUCCEEDED`` past 4 GiB).
- ``leftovers``: System V shared memory, a message queue and a semaphore set under the keys
  ``--key``, ``--key``+1, ``--key``+2, a file ``/dev/shm/NAME`` and a POSIX queue ``/NAME``
  (``--name``), all left behind: made at start-up (``made_at_start``, before the referee locks
  the sandbox) and again at the first decision (``made``: once locked, no ``shmget`` nor
  ``mq_open``), reported in a ``res:leftovers`` line (the host decides).

Once the match has begun the sandbox makes no pipe (SECURITY.md "The inode numbers"): the
helpers are started with ``posix_spawn`` and speak through files.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
import time

from attack_common import Reporter, check, libc, why
from belote_arena_sdk import Bot, pb, serve

MIB = 1 << 20
IPC_CREAT = 0o1000


def sleep_forever_child() -> None:
    try:
        time.sleep(120)
    finally:
        os._exit(0)


class ResourceBot(Bot):
    def __init__(self, out: str, mode: str, mib: int, limit_mib: int, key: int, name: str):
        super().__init__()
        self.report = Reporter(out, bot="attack_resources", mode=mode)
        self.mode, self.mib, self.limit_mib, self.key, self.name = mode, mib, limit_mib, key, name
        self.done = False
        # before StartMatch, while the sandbox makes every object (referee.inside: the lock)
        self.made_at_start = self.leftovers() if mode == "leftovers" else None

    def fork_bomb(self, out: str) -> None:
        """Start the helper (this file with ``--bomb``), which reports and then holds its children;
        wait (at most 4 s, inside the decision's deadline) until it has reported, so a short
        match cannot end before the attack was made."""
        done = f"/tmp/bomb-reported-{os.getpid()}"
        spawn([sys.executable, __file__, "--bomb", "--out", out, "--mode", "fork", "--done", done])
        deadline = time.monotonic() + 4.0
        while not os.path.exists(done) and time.monotonic() < deadline:
            time.sleep(0.01)

    def fill(self, folder: str) -> str:
        written, index, f = 0, 0, None
        block = b"\0" * MIB
        try:
            while written < 4096:
                if f is None:
                    f = open(os.path.join(folder, f"fill-{index}"), "wb", buffering=0)
                    index += 1
                try:
                    f.write(block)
                except OSError as e:
                    if e.errno == 27:  # EFBIG: the file size limit; go on in a new file
                        f.close()
                        f = None
                        continue
                    return f"blocked: {why(e)} after {written} MiB in {index} files"
                written += 1
            return f"wrote {written} MiB"
        finally:
            if f is not None:
                f.close()

    def leftovers(self) -> dict:
        """Make the objects (an existing one is reused): what each got, an id or an errno's text."""
        made = {}
        for what, fn in (("shm", lambda: libc.shmget(self.key, 4096, IPC_CREAT | 0o666)),
                         ("msg", lambda: libc.msgget(self.key + 1, IPC_CREAT | 0o666)),
                         ("sem", lambda: libc.semget(self.key + 2, 1, IPC_CREAT | 0o666))):
            try:
                made[what] = check(fn(), what)
            except OSError as e:
                made[what] = why(e)
        try:
            with open(f"/dev/shm/{self.name}", "w") as f:
                f.write("left behind")
            made["dev-shm"] = f"/dev/shm/{self.name}"
        except OSError as e:
            made["dev-shm"] = why(e)
        try:
            made["mq"] = check(libc.mq_open(f"/{self.name}".encode(), ctypes.c_int(os.O_CREAT | os.O_RDWR),
                                            ctypes.c_int(0o666), ctypes.c_void_p(None)), "mq_open")
        except OSError as e:
            made["mq"] = why(e)
        return made

    def attack(self) -> None:
        r = self.report.attempt
        if self.mode == "fork":
            self.fork_bomb(self.report.path.rsplit("/", 1)[0])
        elif self.mode == "memory":
            pid = spawn([sys.executable, __file__, "--memory-helper", "--out", self.report.path.rsplit("/", 1)[0],
                         "--mode", "memory", "--mib", str(self.mib), "--limit-mib", str(self.limit_mib)])
            deadline = time.monotonic() + 60
            while os.waitpid(pid, os.WNOHANG) == (0, 0) and time.monotonic() < deadline:
                time.sleep(0.02)
        elif self.mode == "disk":
            for folder in ("/arena/work", "/tmp", "/dev/shm"):
                r(f"res:disk:{folder}", lambda folder=folder: self.fill(folder))
        else:  # again after StartMatch: the sandbox is locked by then (no shmget, no mq_open)
            self.report.write(attack="res:leftovers", made=self.leftovers(), made_at_start=self.made_at_start)

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if not self.done:
            self.done = True
            self.attack()
        return self.rng.choice(request.legal_actions)


def spawn(argv: list[str]) -> int:
    """Start ``argv`` (stdin from /dev/null) without a pipe: ``subprocess`` makes one to learn of
    a failed exec, and a sandbox makes no pipe once the match has begun (SECURITY.md "The
    inode numbers"). ``posix_spawn`` runs no fork handlers (gRPC's) either."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        return os.posix_spawn(argv[0], argv, dict(os.environ), file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0)])
    finally:
        os.close(devnull)


def bomb(out: str, done: str) -> None:
    """The fork bomb itself, in a process of its own without gRPC threads."""
    def fork_loop() -> str:
        n = 0
        while n < 2000:
            try:
                pid = os.fork()
            except OSError as e:
                return f"blocked: {why(e)} after {n} children"
            if pid == 0:
                sleep_forever_child()
            n += 1
        return f"{n} children and no limit reached"
    Reporter(out, bot="attack_resources", mode="fork").attempt("res:fork-bomb", fork_loop)
    open(done, "w").close()  # the bot waits for this file
    time.sleep(120)  # hold the children until the sandbox ends


def memory(out: str, mib: int, limit_mib: int, children: int) -> None:
    """The memory attacks, in a process of its own without gRPC threads."""
    report = Reporter(out, bot="attack_resources", mode="memory")

    def one_process() -> str:
        b = bytearray((limit_mib + 64) * MIB)
        return f"allocated {len(b) // MIB} MiB in one process"

    def across_children() -> str:
        # each child says how much it holds in a file of its own in /tmp (no pipe once the match
        # has begun: SECURITY.md "The inode numbers"), then holds it until the parent's SIGTERM
        said = [f"/tmp/mem-child-{os.getpid()}-{i}" for i in range(children)]
        pids = []
        for path in said:
            pid = os.fork()
            if pid == 0:  # allocate in steps, say how much, hold it until released
                chunks, why_not = [], ""
                try:
                    while len(chunks) * 16 < mib:
                        chunk = bytearray(16 * MIB)
                        chunk[::4096] = b"\1" * (len(chunk) // 4096)  # touch every page
                        chunks.append(chunk)
                except BaseException as e:  # noqa: BLE001 - told to the parent
                    why_not = repr(e)
                with open(path + ".part", "w") as f:
                    f.write(f"{len(chunks) * 16} {why_not}\n")
                os.rename(path + ".part", path)
                while True:
                    time.sleep(60)
            pids.append(pid)
        held, notes, ended = [], [], {}
        for path, pid in zip(said, pids):
            while not os.path.exists(path) and pid not in ended:  # it said, or it was killed before
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    ended[pid] = status
                time.sleep(0.005)
            text = open(path).read() if os.path.exists(path) else ""
            held.append(int(text.split()[0]) if text.strip() else 0)
            notes.append(text.strip())
        time.sleep(0.3)  # a memory limit may kill a child after it reported
        alive = [pid not in ended and os.waitpid(pid, os.WNOHANG) == (0, 0) for pid in pids]
        at_once = [h if a else 0 for h, a in zip(held, alive)]
        for pid, a in zip(pids, alive):
            if a:
                os.kill(pid, signal.SIGTERM)
        statuses = [os.waitpid(pid, 0)[1] if a else "gone" for pid, a in zip(pids, alive)]
        short = "" if at_once == [mib] * children else f"; children said {notes}, alive {alive}, statuses {statuses}"
        return (f"children held {at_once} MiB at once ({sum(at_once)} MiB; the address space limit is "
                f"{limit_mib} MiB per process){short}")

    report.attempt("res:memory-one-process", one_process)
    report.attempt("res:memory-across-children", across_children)


if __name__ == "__main__":
    if "--memory-helper" in sys.argv:
        a = argparse.ArgumentParser(add_help=False)
        for opt in ("--out", "--mode"):
            a.add_argument(opt)
        for opt in ("--mib", "--limit-mib"):
            a.add_argument(opt, type=int)
        a.add_argument("--children", type=int, default=6)
        a.add_argument("--memory-helper", action="store_true")
        h = a.parse_args()
        memory(h.out, h.mib, h.limit_mib, h.children)
        raise SystemExit(0)
    if "--bomb" in sys.argv:
        bomb(sys.argv[sys.argv.index("--out") + 1], sys.argv[sys.argv.index("--done") + 1])
        raise SystemExit(0)
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--mode", choices=("fork", "memory", "disk", "leftovers"), required=True)
    p.add_argument("--mib", type=int, default=64)
    p.add_argument("--limit-mib", type=int, default=4096)
    p.add_argument("--key", type=int, default=0x41544B00)
    p.add_argument("--name", default="atk-leftover")
    args, rest = p.parse_known_args()
    raise SystemExit(serve(ResourceBot(args.out, args.mode, args.mib, args.limit_mib, args.key, args.name), rest))
