"""Attack bot 'attack_partner' (tests/bots/README.md, issue 9): partner channels and table-2 memory.

``python bot.py --out DIR --tag TAG``. At every decision each process publishes
``{"token", "seat", "hand", "deal"}`` (its current hand) on every channel below,
then reads every channel for what *other* processes of its entrant (same name)
published, and reports one line per channel (tests/bots/attack_common.py):
``SUCCEEDED: [payloads of other processes]`` or ``blocked: <why>``. The two
processes of one seat pair at a table are partners; a table-2 process reading a
table-1 payload of the same board is table-2 memory.

Channels (``NS`` = ``TAG-<entrant name>``):

- ``dev-shm-file``: ``/dev/shm/NS-<token>.json``, partners' found by glob;
- ``tmp-file``: the same in ``/tmp``;
- ``home-file``: in ``$HOME``; partners' searched through ``/proc/*/root/arena/work``,
  ``/proc/*/cwd``, ``/tmp/belote-referee-*/*`` and the parent of ``$HOME``;
- ``unix-socket``: a Unix socket in ``$HOME`` serving the payload, searched likewise;
- ``abstract-socket``: ``\\0NS-<token>``, found in ``/proc/net/unix``;
- ``sysv-shm`` / ``sysv-msg``: System V shared memory (a slot per seat) and a message
  queue (message type: the sender's seat) under fixed keys (:func:`attack_common.ipc_key`);
- ``posix-mq``: POSIX message queues ``/NS-seatS``, one per seat;
- ``signal``: ``kill(pid, 0)`` over every pid (once per process): any process that is
  neither this one nor its threads or children, reachable by a signal, is a channel;
- ``grpc-socket``: every ``*.sock`` under ``/proc/*/root/arena/work``,
  ``/tmp/belote-referee-*/*`` and ``/arena/work`` but its own, dialled: ``GetBotInfo``,
  then, for a process of its own entrant, a ``Decide`` whose observation's ruleset is
  ``attack-magic:NS``, answered with the payload (bytes as card ranks);
- ``inherited-fds``: descriptors open at start-up other than 0, 1, 2 (once).

Plays a random legal action.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os

FDS_AT_START = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))  # before anything opens its own

import socket  # noqa: E402
import threading  # noqa: E402

import grpc  # noqa: E402

from attack_common import TOKEN, Reporter, check, ipc_key, libc  # noqa: E402
from belote.bot.v1 import bot_pb2_grpc  # noqa: E402
from sample_bots.sdk import Bot, pb, serve  # noqa: E402
from sample_bots.sdk.cards import card_str  # noqa: E402

IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
SLOT = 2048
MAGIC = "attack-magic:"
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.mq_open.restype = ctypes.c_int
libc.mq_receive.restype = ctypes.c_ssize_t


def _pid_max() -> int:
    try:
        return min(int(open("/proc/sys/kernel/pid_max").read()), 1 << 16)
    except (OSError, ValueError):
        return 1 << 15


class PartnerBot(Bot):
    def __init__(self, out: str, tag: str):
        super().__init__()
        self.name_ = self.info().name
        self.ns = f"{tag}-{self.name_}"
        self.report = Reporter(out, bot="attack_partner", name=self.name_)
        self.seat: int | None = None
        self.hand: list[str] = []
        self.deal = 0
        self.lock = threading.Lock()
        self.home = os.environ.get("HOME", "/arena/work")
        self.own_listen = os.environ.get("BELOTE_BOT_LISTEN", "")
        self.shm_addr = None
        self.msq = None
        self.mqd = None
        self.channels: dict[str, object] = {}
        self.signals_done = False
        self.report.attempt("partner:inherited-fds", self._fds)
        # servers of the socket channels: they answer every connection with the latest payload
        self.sock_path = os.path.join(self.home, f"{self.ns}-{TOKEN}.sock")
        for name, addr in (("unix-socket", self.sock_path), ("abstract-socket", f"\0{self.ns}-{TOKEN}")):
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(addr)
                s.listen(16)
                threading.Thread(target=self._serve, args=(s,), daemon=True).start()
            except OSError as e:
                self.report.write(attack=f"partner:{name}", result=f"blocked: cannot listen: {os.strerror(e.errno)}")

    # ------------------------------------------------------------ helpers
    def payload(self) -> bytes:
        return json.dumps({"token": TOKEN, "seat": self.seat, "hand": self.hand, "deal": self.deal}).encode()

    def _serve(self, s: socket.socket) -> None:
        while True:
            c, _ = s.accept()
            with self.lock:
                data = self.payload()
            try:
                c.sendall(data)
            finally:
                c.close()

    @staticmethod
    def _foreign(raws) -> list[dict]:
        out = []
        for raw in raws:
            try:
                msg = json.loads(raw.rstrip(b"\0") if isinstance(raw, bytes) else raw)
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(msg, dict) and msg.get("token") not in (None, TOKEN):
                out.append(msg)
        return out

    def _verdict(self, raws, searched: str) -> str:
        got = self._foreign(raws)
        return json.dumps(got) if got else f"blocked: nothing from another process ({searched})"

    def _places(self, suffix: str) -> list[str]:
        patterns = [f"/proc/*/root/arena/work/{self.ns}-*{suffix}", f"/proc/*/cwd/{self.ns}-*{suffix}",
                    f"/tmp/belote-referee-*/*/{self.ns}-*{suffix}", f"{os.path.dirname(self.home)}/*/{self.ns}-*{suffix}",
                    f"{self.home}/{self.ns}-*{suffix}"]
        found = set()
        for p in patterns:
            found.update(q for q in glob.glob(p) if TOKEN not in os.path.basename(q))
        return sorted(found)

    @staticmethod
    def _write(path: str, data: bytes) -> None:
        tmp = f"{path}.part"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    # ------------------------------------------------------------ channels
    def _fds(self) -> str:
        extra = [fd for fd in FDS_AT_START if fd > 2 and os.path.exists(f"/proc/self/fd/{fd}")]
        extra = [f"{fd}->{os.readlink(f'/proc/self/fd/{fd}')}" for fd in extra]
        return f"inherited {extra}" if extra else "blocked: nothing but 0, 1, 2 inherited"

    def file_channel(self, folder: str, search: bool) -> str:
        self._write(os.path.join(folder, f"{self.ns}-{TOKEN}.json"), self.payload())
        paths = self._places(".json") if search else [
            p for p in glob.glob(os.path.join(folder, f"{self.ns}-*.json")) if TOKEN not in p]
        raws = []
        for p in paths:
            try:
                raws.append(open(p, "rb").read())
            except OSError:
                continue
        return self._verdict(raws, f"{len(paths)} files found")

    def unix_channel(self) -> str:
        paths = self._places(".sock")
        raws = []
        for p in paths:
            try:
                raws.append(self._recv(p))
            except OSError:
                continue
        return self._verdict(raws, f"{len(paths)} sockets found")

    def abstract_channel(self) -> str:
        names = []
        try:
            for line in open("/proc/net/unix").read().splitlines()[1:]:
                parts = line.split()
                if len(parts) >= 8 and parts[7].startswith(f"@{self.ns}-") and TOKEN not in parts[7]:
                    names.append("\0" + parts[7][1:])
        except OSError:
            pass
        raws = []
        for n in sorted(set(names)):
            try:
                raws.append(self._recv(n))
            except OSError:
                continue
        return self._verdict(raws, f"{len(set(names))} abstract names found")

    @staticmethod
    def _recv(addr: str) -> bytes:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.3)
        try:
            s.connect(addr)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
            return data
        finally:
            s.close()

    def shm_channel(self) -> str:
        if self.shm_addr is None:
            shmid = check(libc.shmget(ipc_key(self.ns, "shm"), 4 * SLOT, IPC_CREAT | 0o666), "shmget")
            addr = libc.shmat(shmid, None, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                check(-1, "shmat")
            self.shm_addr = addr
        data = self.payload()[: SLOT - 1]
        ctypes.memmove(self.shm_addr + self.seat * SLOT, data.ljust(SLOT, b"\0"), SLOT)
        raws = [ctypes.string_at(self.shm_addr + s * SLOT, SLOT) for s in range(4) if s != self.seat]
        return self._verdict(raws, "3 other slots read")

    def msg_channel(self) -> str:
        if self.msq is None:
            self.msq = check(libc.msgget(ipc_key(self.ns, "msg"), IPC_CREAT | 0o666), "msgget")
        data = self.payload()
        buf = ctypes.create_string_buffer(8 + len(data))
        ctypes.c_long.from_buffer(buf).value = self.seat + 1  # message type: the sender's seat
        buf[8:] = data
        libc.msgsnd(self.msq, buf, len(data), IPC_NOWAIT)  # a full queue: the others drain it
        raws, rbuf = [], ctypes.create_string_buffer(8 + 8192)
        for seat in range(4):
            if seat != self.seat:
                while (n := libc.msgrcv(self.msq, rbuf, 8192, seat + 1, IPC_NOWAIT)) >= 0:
                    raws.append(rbuf.raw[8:8 + n])
        return self._verdict(raws, f"{len(raws)} messages of other seats received")

    def mq_channel(self) -> str:
        """One queue per seat, ``/NS-seatS``: a process sends into its own, reads the others'."""
        if self.mqd is None:
            self.mqd = {}
            for seat in range(4):
                name = f"/{self.ns}-seat{seat}".encode()
                self.mqd[seat] = check(libc.mq_open(name, ctypes.c_int(os.O_CREAT | os.O_RDWR | os.O_NONBLOCK),
                                                    ctypes.c_int(0o666), ctypes.c_void_p(None)), "mq_open")
        data = self.payload()
        libc.mq_send(self.mqd[self.seat], data, ctypes.c_size_t(len(data)), ctypes.c_uint(0))
        raws, rbuf = [], ctypes.create_string_buffer(1 << 16)
        for seat, mqd in self.mqd.items():
            if seat != self.seat:
                while (n := libc.mq_receive(mqd, rbuf, ctypes.c_size_t(1 << 16), None)) >= 0:
                    raws.append(rbuf.raw[:n])
        return self._verdict(raws, f"{len(raws)} messages of other seats received")

    def signal_channel(self) -> str:
        own = {os.getpid(), *(int(t) for t in os.listdir("/proc/self/task"))}
        for p in os.listdir("/proc"):  # own children
            try:
                if p.isdigit() and int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1]) in own:
                    own.add(int(p))
            except (OSError, IndexError, ValueError):
                continue
        reachable, errs = [], {}
        for pid in range(1, _pid_max() + 1):
            if pid in own:
                continue
            try:
                os.kill(pid, 0)
            except OSError as e:
                errs[os.strerror(e.errno)] = errs.get(os.strerror(e.errno), 0) + 1
                continue
            reachable.append(pid)
        if reachable:
            return f"signal 0 delivered to {len(reachable)} other processes, e.g. {reachable[:10]}"
        return f"blocked: no other process reachable ({errs})"

    def grpc_channel(self) -> str:
        try:
            own = os.stat(self.own_listen)
            own_id = (own.st_dev, own.st_ino)
        except OSError:
            own_id = None
        found = set()
        for p in ("/proc/*/root/arena/work/*.sock", "/tmp/belote-referee-*/*/*.sock", "/arena/work/*.sock",
                  f"{os.path.dirname(self.home)}/*/*.sock"):
            found.update(glob.glob(p))
        targets = []
        for path in sorted(found):
            try:
                st = os.stat(path)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == own_id or os.path.basename(path).startswith(self.ns):
                continue
            targets.append(path)
        raws, reached = [], []
        for path in targets:
            ch = self.channels.get(path)
            if ch is None:
                ch = self.channels[path] = grpc.insecure_channel(f"unix:{path}")
            stub = bot_pb2_grpc.BotServiceStub(ch)
            try:
                info = stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=0.5)
                reached.append(f"{info.name} at {path}")
                if info.name == self.name_:
                    r = stub.Decide(pb.DecideRequest(observation=pb.Observation(ruleset=MAGIC + self.ns)), timeout=0.5)
                    raws.append(bytes(c.rank for c in r.action.declaration.declarations[0].cards))
            except (grpc.RpcError, IndexError, ValueError):
                continue
        got = self._foreign(raws)
        if got or reached:
            return json.dumps(got) if got else f"reached other bots' servers: {reached}"
        return f"blocked: no other bot's socket reachable ({len(targets)} found)"

    # ------------------------------------------------------------ the bot
    def on_start_match(self, request: pb.StartMatchRequest) -> None:
        self.seat = request.seat

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        obs = request.observation
        if obs.ruleset.startswith(MAGIC):  # a partner asking for our payload over our gRPC socket
            raw = self.payload() if obs.ruleset == MAGIC + self.ns else b"{}"
            return pb.Action(declaration=pb.DeclarationChoice(
                declarations=[pb.Declaration(cards=[pb.Card(rank=b) for b in raw])]))
        with self.lock:
            self.seat, self.deal = obs.seat, obs.deal_number
            self.hand = sorted(card_str(c) for c in obs.hand_cards)
        me = {"seat": self.seat, "hand": self.hand, "deal": self.deal}
        self.report.write(attack="publish", result="own hand", **me)
        for name, fn in (("dev-shm-file", lambda: self.file_channel("/dev/shm", False)),
                         ("tmp-file", lambda: self.file_channel("/tmp", False)),
                         ("home-file", lambda: self.file_channel(self.home, True)),
                         ("unix-socket", self.unix_channel), ("abstract-socket", self.abstract_channel),
                         ("sysv-shm", self.shm_channel), ("sysv-msg", self.msg_channel),
                         ("posix-mq", self.mq_channel), ("grpc-socket", self.grpc_channel)):
            self.report.attempt(f"partner:{name}", fn, **me)
        if not self.signals_done:
            self.signals_done = True
            self.report.attempt("partner:signal", self.signal_channel, **me)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--tag", required=True)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(PartnerBot(args.out, args.tag), rest))
