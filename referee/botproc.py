"""Bot processes and the gRPC client that talks to them.

One :class:`BotClient` per seat and table (RULES.md §8 seat and table
isolation).  A local bot is started from its manifest through
:mod:`referee.launch` in its own process group and private working folder,
listens on a per-seat Unix socket, and is always terminated by :meth:`close`.
A remote bot (``host:port``) is only dialled.

gRPC facts this follows (FIELD-NOTES): no retries (a retry re-runs a
decision), no ``wait_for_ready`` on decisions, short reconnect backoff for a
fast start, capped message sizes, and a deadline on every call.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from belote.bot.v1 import bot_pb2 as pb
from belote.bot.v1 import bot_pb2_grpc as pb_grpc

from .manifest import Manifest

MAX_MESSAGE_BYTES = 64 * 1024
_CHANNEL_OPTIONS = [
    ("grpc.enable_retries", 0),
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 200),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", 1024 * 1024),
]


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (0 = unset): CPU seconds, address space
    MiB, processes, largest file MiB.  Enforced with setrlimit by :mod:`referee.launch`."""

    cpu_s: int = 0
    memory_mib: int = 0
    nproc: int = 0
    fsize_mib: int = 64


class BotStartError(RuntimeError):
    """The bot did not start or did not answer within the start-up deadline."""


class BotClient:
    """A connection to one bot, started here (``manifest``) or remote (``endpoint`` ``host:port``).

    Args:
        manifest: start this bot locally (exclusive with ``endpoint``).
        endpoint: dial a bot already listening at ``host:port``.
        seed: the RNG seed given to the bot process (``BELOTE_BOT_SEED``); never a board's seed.
        startup_s: seconds to wait for the bot to listen and answer.
        limits: resource limits of the process.
    """

    def __init__(
        self,
        manifest: Manifest | None = None,
        endpoint: str | None = None,
        *,
        seed: int = 0,
        startup_s: float = 10.0,
        limits: Limits = Limits(),
    ):
        self.manifest = manifest
        self.endpoint = endpoint
        self.seed = seed
        self.startup_s = startup_s
        self.limits = limits
        self.process: subprocess.Popen | None = None
        self.workdir: Path | None = None
        self.channel: grpc.Channel | None = None
        self.stub: pb_grpc.BotServiceStub | None = None

    # -------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Start (or dial) the bot and wait until it accepts calls.

        Raises:
            BotStartError: the command cannot run, the process exits, or it is not
                ready within ``startup_s``.
        """
        if self.endpoint is not None:
            target = self.endpoint
        else:
            assert self.manifest is not None
            self.workdir = Path(tempfile.mkdtemp(prefix="belote-bot-"))
            os.chmod(self.workdir, 0o700)
            sock = self.workdir / "bot.sock"
            target = f"unix://{sock}"
            python_dir = str(Path(sys.executable).parent)
            env = {
                "PATH": python_dir + os.pathsep + os.environ.get("PATH", os.defpath),
                "HOME": str(self.workdir),
                "TMPDIR": str(self.workdir),
                "LANG": "C.UTF-8",
                "PYTHONUNBUFFERED": "1",
                "BELOTE_BOT_LISTEN": str(sock),
                "BELOTE_BOT_SEED": str(self.seed),
            }
            lim = self.limits
            bot_command = list(self.manifest.command)
            if bot_command[0] == "python":  # the manifest's "python" is the arena's own interpreter
                bot_command[0] = sys.executable
            command = [
                sys.executable, "-m", "referee.launch",
                f"--cpu={lim.cpu_s}", f"--memory={lim.memory_mib}", f"--nproc={lim.nproc}", f"--fsize={lim.fsize_mib}",
                "--", *bot_command,
            ]
            log = open(self.workdir / "bot.log", "wb")
            try:
                self.process = subprocess.Popen(
                    command, cwd=self.manifest.folder, env=env, stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                )
            except OSError as e:
                raise BotStartError(f"cannot start {self.manifest.key}: {e}") from None
            finally:
                log.close()
            deadline = time.monotonic() + self.startup_s
            while not sock.exists():
                if self.process.poll() is not None:
                    raise BotStartError(f"{self.manifest.key} exited with status {self.process.returncode} at start-up: {self.log_tail()}")
                if time.monotonic() > deadline:
                    raise BotStartError(f"{self.manifest.key} did not listen within {self.startup_s:.0f} s")
                time.sleep(0.005)
        self.channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=self.startup_s)
        except grpc.FutureTimeoutError:
            raise BotStartError(f"{self.name} accepted no gRPC connection within {self.startup_s:.0f} s") from None
        self.stub = pb_grpc.BotServiceStub(self.channel)

    @property
    def name(self) -> str:
        return self.manifest.key if self.manifest is not None else str(self.endpoint)

    def alive(self) -> bool:
        return self.process is None or self.process.poll() is None

    def log_tail(self, n: int = 300) -> str:
        """The last ``n`` characters of the bot's stdout/stderr."""
        if self.workdir is None:
            return ""
        try:
            return (self.workdir / "bot.log").read_bytes()[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def close(self, grace_s: float = 0.5) -> None:
        """Close the channel, stop the whole process group (SIGTERM, then SIGKILL after
        ``grace_s`` seconds) and remove the working folder.  Safe to call twice."""
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        proc = self.process
        if proc is not None:
            for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    pass
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            try:  # children left in the group after the leader exited
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    # ------------------------------------------------------------------ calls
    def info(self, timeout_s: float = 2.0) -> pb.GetBotInfoResponse:
        return self.stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=timeout_s)

    def start_match(self, request: pb.StartMatchRequest, timeout_s: float = 2.0) -> None:
        self.stub.StartMatch(request, timeout=timeout_s)

    def end_match(self, request: pb.EndMatchRequest, timeout_s: float = 1.0) -> None:
        self.stub.EndMatch(request, timeout=timeout_s)

    def decide(self, request: pb.DecideRequest, timeout_s: float) -> pb.DecideResponse:
        """One decision call with a deadline of ``timeout_s`` seconds.

        Raises:
            grpc.RpcError: DEADLINE_EXCEEDED, UNAVAILABLE, RESOURCE_EXHAUSTED, …
        """
        return self.stub.Decide(request, timeout=timeout_s)
