"""Attack bot 'attack_net' (tests/bots/README.md, issue 9): the network.

``python bot.py --out DIR --port P --abstract NAME --unix PATH``. On its first decision each
process tries, and reports (tests/bots/attack_common.py), then plays a random legal action:

- ``net:tcp-loopback``: a TCP connection to 127.0.0.1:P (the test listens there);
- ``net:tcp6-loopback``: the same to [::1]:P;
- ``net:udp-loopback``: a datagram to 127.0.0.1:P (the test has a UDP socket there);
- ``net:abstract-socket``: a connection to the test's abstract Unix socket ``\\0NAME``;
- ``net:unix-socket``: a connection to the test's Unix socket at PATH on the host;
- ``net:interfaces``: any network interface but ``lo`` (``if_nameindex``, asked at start-up).

Every socket is made at start-up, before ``StartMatch``: once the match has begun the sandbox
makes no socket (SECURITY.md "The inode numbers"), and a ``socket()`` refused for that would
not show what keeps the bot in; the connections are tried at the first decision.  (TCP and UDP
sockets the sandbox refuses at any time: EAFNOSUPPORT, its seccomp filter.)
"""

from __future__ import annotations

import argparse
import socket

from attack_common import TOKEN, Reporter
from belote_arena_sdk import Bot, pb, serve


class NetBot(Bot):
    def __init__(self, out: str, port: int, abstract: str, unix: str):
        super().__init__()
        self.report = Reporter(out, bot="attack_net")
        self.port, self.abstract, self.unix = port, abstract, unix
        self.done = False
        self.socks: dict[str, socket.socket | OSError] = {}  # made now, used at the first decision
        for name, family, kind in (("tcp", socket.AF_INET, socket.SOCK_STREAM), ("tcp6", socket.AF_INET6, socket.SOCK_STREAM),
                                   ("udp", socket.AF_INET, socket.SOCK_DGRAM), ("abstract", socket.AF_UNIX, socket.SOCK_STREAM),
                                   ("unix", socket.AF_UNIX, socket.SOCK_STREAM)):
            try:
                self.socks[name] = socket.socket(family, kind)
            except OSError as e:
                self.socks[name] = e
        try:
            self.names: list[str] | OSError = [n for _, n in socket.if_nameindex()]
        except OSError as e:
            self.names = e

    def _sock(self, name: str) -> socket.socket:
        s = self.socks[name]
        if isinstance(s, OSError):
            raise s
        return s

    def tcp(self, name: str, host: str) -> str:
        with self._sock(name) as s:
            s.settimeout(1.0)
            s.connect((host, self.port))
            s.sendall(f"hello from {TOKEN}".encode())
        return f"connected to {host}:{self.port}"

    def udp(self) -> str:
        with self._sock("udp") as s:
            s.sendto(f"hello from {TOKEN}".encode(), ("127.0.0.1", self.port))
        return "blocked: sent, unseen by the bot (the test's socket decides)"

    def unix_connect(self, name: str, addr: str) -> str:
        with self._sock(name) as s:
            s.settimeout(1.0)
            s.connect(addr)
            s.sendall(f"hello from {TOKEN}".encode())
        return f"connected to {addr!r}"

    def interfaces(self) -> str:
        if isinstance(self.names, OSError):
            raise self.names
        other = [n for n in self.names if n != "lo"]
        return f"interfaces {other}" if other else f"blocked: only {self.names}"

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        if not self.done:
            self.done = True
            r = self.report.attempt
            r("net:tcp-loopback", lambda: self.tcp("tcp", "127.0.0.1"))
            r("net:tcp6-loopback", lambda: self.tcp("tcp6", "::1"))
            r("net:udp-loopback", self.udp)
            r("net:abstract-socket", lambda: self.unix_connect("abstract", "\0" + self.abstract))
            r("net:unix-socket", lambda: self.unix_connect("unix", self.unix))
            r("net:interfaces", self.interfaces)
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--abstract", required=True)
    p.add_argument("--unix", required=True)
    args, rest = p.parse_known_args()
    raise SystemExit(serve(NetBot(args.out, args.port, args.abstract, args.unix), rest))
