"""Start a bot as a real process, as the referee does, and talk to it over gRPC.

``running_bot(folder)`` reads the folder's ``bot.toml``, runs its ``command``
with cwd = the folder and PATH starting with this interpreter's directory,
listening on a Unix socket in a short temporary folder; it waits for the
``BELOTE-BOT READY`` line and always kills the process on exit.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

from belote_arena_sdk.proto import bot_pb2_grpc

READY = "BELOTE-BOT READY "
START_TIMEOUT_S = 15.0
CHANNEL_OPTIONS = [
    ("grpc.enable_retries", 0),
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
]


@dataclass
class BotProcess:
    """A started bot: its process, the target it printed, a stub on a ready channel."""

    proc: subprocess.Popen[str]
    target: str
    channel: grpc.Channel
    stub: bot_pb2_grpc.BotServiceStub


def read_ready_line(proc: subprocess.Popen[str], timeout_s: float) -> str:
    """The target of the process's ``BELOTE-BOT READY <target>`` line.

    Raises:
        AssertionError: when the process exits or prints something else first, or on timeout.
    """
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout_s):
            raise AssertionError(f"no readiness line within {timeout_s} s")
    line = proc.stdout.readline()
    assert line.startswith(READY), f"expected a readiness line, got {line!r} (exit {proc.poll()})"
    return line[len(READY):].strip()


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout_s: float = 2.0) -> tuple[int, float]:
    """Send ``sig`` and wait; returns ``(exit status, seconds taken)``; kills on timeout."""
    t0 = time.monotonic()
    proc.send_signal(sig)
    try:
        status = proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        raise AssertionError(f"bot still running {timeout_s} s after signal {sig}") from None
    return status, time.monotonic() - t0


@contextlib.contextmanager
def short_tmp_dir() -> Iterator[Path]:
    """A short temporary folder (Unix socket paths are limited to 107 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="bb-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def running_bot(
    folder: Path,
    *,
    args: Sequence[str] | None = None,
    env: dict[str, str] | None = None,
    use_flag: bool = True,
) -> Iterator[BotProcess]:
    """Run the bot of ``folder`` (its manifest's command) on a fresh Unix socket.

    ``use_flag``: pass the socket as ``--listen`` (else as ``BELOTE_BOT_LISTEN``).
    """
    manifest = tomllib.loads((folder / "bot.toml").read_text())
    with short_tmp_dir() as tmp:
        sock = tmp / "bot.sock"
        full_env = dict(os.environ)
        full_env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + full_env.get("PATH", "")
        full_env.pop("BELOTE_BOT_LISTEN", None)
        full_env.pop("BELOTE_BOT_SEED", None)
        full_env.update(env or {})
        command = list(manifest["command"]) + list(args or [])
        if use_flag:
            command += ["--listen", str(sock)]
        else:
            full_env["BELOTE_BOT_LISTEN"] = str(sock)
        proc = subprocess.Popen(
            command, cwd=folder, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        channel = None
        try:
            target = read_ready_line(proc, START_TIMEOUT_S)
            channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
            grpc.channel_ready_future(channel).result(timeout=5)
            yield BotProcess(proc, target, channel, bot_pb2_grpc.BotServiceStub(channel))
        finally:
            if channel is not None:
                channel.close()
            if proc.poll() is None:
                proc.kill()
            proc.wait(5)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
