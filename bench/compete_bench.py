"""The competition server under load (issue 22's targets), in one run on loopback.

Run: ``python bench/compete_bench.py [--field N] [--block-boards B] [--readers R]
[--requests Q] [--board-pairs P] [--no-isolate]``.

1. **API latency.** A server (``arena compete serve --port 0``) for a classic competition;
   ``--readers`` threads each make ``--requests`` GETs (the public ``/api/v1/ladder`` and a
   participant's ``/api/v1/versions``, alternately), first with the ladder idle (the baseline),
   then while the ladder plays and writes blocks of ``--field`` active versions (sample bots
   under other names). Printed: p50 and p99 in ms, and their ratio to the baseline's.
2. **Upload to placed rating.** A new version uploaded with ``arena remote submit`` (checked,
   validated against the house bot, then its placement gauntlet: a block against each of the
   field): the seconds until its rating is placed (every placement unit stored).
3. **Server memory.** The server's resident memory (``VmRSS``) every ``--board-pairs`` / 10
   ladder board pairs stored, up to ``--board-pairs``: flat is the target.

Every phase is bounded by its counts; the server is stopped at the end (SIGINT).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.compete import policy  # noqa: E402
from arena.play.bots import freeze  # noqa: E402
from arena.store import Store  # noqa: E402
from referee.manifest import content_hash, load_manifest  # noqa: E402

SAMPLES = ROOT / "sample_bots"
ARENA = [sys.executable, "-c", "from arena.cli import main; main()"]


def bot_copy(src: str, dst: Path, name: str) -> Path:
    shutil.copytree(SAMPLES / src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    toml = dst / "bot.toml"
    lines = [f'name = "{name}"' if line.startswith("name =") else
             'rulesets = ["classic"]' if line.startswith("rulesets") else line
             for line in toml.read_text().splitlines()]
    toml.write_text("\n".join(lines) + "\n")
    return dst


def enter(db: Path, who: str, folder: Path) -> None:
    """``folder`` as an active version of ``who``, written before the server starts."""
    m = load_manifest(folder)
    digest = content_hash(folder)
    with Store.open(db) as s:
        dest, _ = freeze(folder, db.parent / "bots", m, digest)
        v = s.add_version("cup", who, hashlib.sha256(f"{who}{digest}".encode()).hexdigest(), 1)
        s.add_bot(m.name, m.version, m.author, m.text, digest, str(dest))
        s.set_version(v.id, "active", bot=(m.name, m.version, digest))


class Server:
    def __init__(self, db: Path, *extra: str):
        self.proc = subprocess.Popen([*ARENA, "compete", "serve", "cup", "--db", str(db), "--port", "0", "--json",
                                      *extra], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.url = json.loads(self.proc.stdout.readline())["url"].rstrip("/")

    def rss_mib(self) -> float:
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def latencies(url: str, token: str, readers: int, requests: int) -> list[float]:
    """``readers`` threads × ``requests`` GETs each; every latency in ms."""
    out: list[float] = []
    lock = threading.Lock()

    def read() -> None:
        mine = []
        with httpx.Client(base_url=url, timeout=60) as c:
            for k in range(requests):
                t0 = time.perf_counter()
                r = c.get("/api/v1/ladder") if k % 2 == 0 else \
                    c.get("/api/v1/versions", headers={"Authorization": f"Bearer {token}"})
                r.raise_for_status()
                mine.append((time.perf_counter() - t0) * 1000)
        with lock:
            out.extend(mine)

    threads = [threading.Thread(target=read) for _ in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100)[int(q) - 1]


def ladder(url: str) -> dict:
    return httpx.get(f"{url}/api/v1/ladder", timeout=60).json()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--field", type=int, default=10, help="active versions on the ladder")
    p.add_argument("--block-boards", type=int, default=16)
    p.add_argument("--readers", type=int, default=50)
    p.add_argument("--requests", type=int, default=20, help="GETs per reader")
    p.add_argument("--board-pairs", type=int, default=1000, help="ladder board pairs watched for memory")
    p.add_argument("--no-isolate", action="store_true", help="bots unsandboxed (faster; not the default)")
    args = p.parse_args()
    iso = ["--no-isolate"] if args.no_isolate else []
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}; field {args.field}, blocks of "
          f"{args.block_boards}, {'unsandboxed' if iso else 'sandboxed'}")
    with tempfile.TemporaryDirectory(prefix="compete-bench-") as tmp:
        tmp = Path(tmp)
        db = tmp / "results" / "arena.duckdb"
        db.parent.mkdir()
        with Store.open(db) as s:
            policy.create(s, "cup", "classic", policy={"block_boards": args.block_boards, "validation_boards": 2})
            tokens = {f"p{i}": policy.add_participant(s, "cup", f"p{i}")[1] for i in range(args.field + 1)}
        kinds = ("random", "greedy", "heuristic")
        for i in range(args.field):
            enter(db, f"p{i}", bot_copy(kinds[i % 3], tmp / f"bot{i}", f"field{i}"))

        # 1. latency: the ladder idle (no ladder workers), then playing
        server = Server(db, "--ladder-workers", "0", *iso)
        try:
            base = latencies(server.url, tokens["p0"], args.readers, args.requests)
        finally:
            server.stop()
        server = Server(db, "--ladder-workers", "1", *iso)
        try:
            while ladder(server.url)["ladder"]["units"]["playing"] < 1:
                time.sleep(0.1)
            busy = latencies(server.url, tokens["p0"], args.readers, args.requests)
            b50, b99, l50, l99 = pct(base, 50), pct(base, 99), pct(busy, 50), pct(busy, 99)
            print(f"API latency, {args.readers} readers x {args.requests} GETs: idle ladder p50 {b50:.1f} ms, "
                  f"p99 {b99:.1f} ms; ladder writing p50 {l50:.1f} ms ({l50 / b50:.2f}x), p99 {l99:.1f} ms "
                  f"({l99 / b99:.2f}x)")

            # 2. upload to placed rating
            env = {**os.environ, "ARENA_TOKEN": tokens[f"p{args.field}"], "ARENA_CONFIG": str(tmp / "remote.json")}
            new = bot_copy("heuristic", tmp / "newbot", "newcomer")
            t0 = time.monotonic()
            r = subprocess.run([*ARENA, "remote", "submit", str(new), "--server", server.url, "--json"], env=env,
                               capture_output=True, text=True, cwd=ROOT)
            vid = json.loads(r.stdout.strip().splitlines()[-1])["id"]
            panel = min(32, args.field)
            while True:
                st = next((x for x in ladder(server.url)["ladder"]["standings"] if x["version"] == vid), None)
                if st is not None and st["units"] >= panel:
                    break
                time.sleep(0.5)
            print(f"upload to placed rating against {args.field} versions ({panel} placement blocks of "
                  f"{args.block_boards} boards): {time.monotonic() - t0:.0f} s; Elo {st['elo']} "
                  f"[{st['ci_low']}, {st['ci_high']}]")

            # 3. memory over ladder board pairs
            start = ladder(server.url)["ladder"]["board_pairs"]
            step = max(1, args.board_pairs // 10)
            marks = []
            while True:
                done = ladder(server.url)["ladder"]["board_pairs"] - start
                if not marks or done >= marks[-1][0] + step or done >= args.board_pairs:
                    marks.append((done, server.rss_mib()))
                    print(f"  {done:6d} ladder board pairs: server {marks[-1][1]:.0f} MiB", flush=True)
                if done >= args.board_pairs:
                    break
                time.sleep(1)
            print(f"server memory over {marks[-1][0]} ladder board pairs: {marks[0][1]:.0f} -> {marks[-1][1]:.0f} "
                  f"MiB (peak {max(m for _, m in marks):.0f})")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
