"""The SDK as bot authors get it (issue 14 item 18): its own distribution
(``sdk/``, package ``belote_arena_sdk`` with the generated code inside, no top-level
``belote``), installable into a bot's own virtual environment, run by a manifest
whose interpreter path is relative to the bot's folder; and the clock that tells a
bot how much of its decision's deadline is left (docs/PROTOCOL.md §3)."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from belote_arena_sdk import Bot, Clock, start_server
from belote_arena_sdk.proto import bot_pb2 as pb
from belote_arena_sdk.proto import bot_pb2_grpc
from tests.bot_process import CHANNEL_OPTIONS
from tests.bot_requests import observation, request

ROOT = Path(__file__).resolve().parents[1]


def test_clock_counts_down_from_the_deadline() -> None:
    clock = Clock()
    assert clock.remaining_ms() == math.inf  # no request yet: no deadline
    clock.start(200, time_bank_ms=1000)
    time.sleep(0.05)
    left = clock.remaining_ms()
    assert 100 < left <= 150 and clock.elapsed_ms() >= 50
    assert clock.remaining_ms(with_bank=True) - clock.remaining_ms() == pytest.approx(1000, abs=5)
    clock.start(1)
    time.sleep(0.01)
    assert clock.remaining_ms() == 0.0  # never below 0
    clock.start(0)
    assert clock.remaining_ms() == math.inf  # deadline_ms 0: none


def test_the_server_starts_the_clock_when_a_request_arrives() -> None:
    class Timed(Bot):
        name, version, author, rulesets = "timed", "1", "tests", ("classic",)
        seen: list[float] = []

        def decide(self, req: pb.DecideRequest) -> pb.Action:
            self.seen.append(self.clock.remaining_ms())
            return req.legal_actions[0]

    bot = Timed()
    server, target = start_server(bot, "127.0.0.1:0")
    channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
    try:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        req = request(observation(hand="JH 9H AS"), ["play AS", "play JH"])
        req.deadline_ms = 300
        stub.Decide(req, timeout=5)
    finally:
        channel.close()
        server.stop(None).wait()
    assert len(bot.seen) == 1 and 250 < bot.seen[0] <= 300


BOT = '''
from belote_arena_sdk import Bot, serve

class Portable(Bot):
    def decide(self, request):
        return self.rng.choice(list(request.legal_actions))

if __name__ == "__main__":
    raise SystemExit(serve(Portable()))
'''

MANIFEST = '''
name = "portable"
version = "1.0.0"
author = "tests"
command = ["./.venv/bin/python", "bot.py"]
protocol = "1.0"
rulesets = ["classic"]
'''


@pytest.mark.slow
def test_a_bot_with_its_own_environment_and_the_installed_sdk_plays(tmp_path):
    """A virtual environment inside the bot's folder, the SDK installed into it from sdk/
    (grpcio and protobuf from the package index or pip's cache), named by a relative path
    in the manifest: `arena bots check` passes in the sandbox, and the environment has
    no top-level `belote` package."""
    bot = tmp_path / "portable"
    bot.mkdir()
    (bot / "bot.py").write_text(BOT)
    (bot / "bot.toml").write_text(MANIFEST)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(bot / ".venv")], check=True, timeout=120)
    sdk = tmp_path / "sdk"
    shutil.copytree(ROOT / "sdk", sdk, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    pip = subprocess.run([str(bot / ".venv/bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          str(sdk)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    probe = subprocess.run([str(bot / ".venv/bin/python"), "-c",
                            "import importlib.util, belote_arena_sdk.proto.bot_pb2 as pb; "
                            "print(importlib.util.find_spec('belote') is None, pb.DESCRIPTOR.package)"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert probe.stdout.split() == ["True", "belote.bot.v1"], probe.stderr
    check = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "bots", "check", str(bot),
                            "--boards", "1"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "conformance check passed" in check.stdout and "transport: DecideStream" in check.stdout
    # submitted, its frozen copy holds the environment (it was left out once: every board forfeited)
    run = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run", "t",
                          "--bots", str(bot), "--bots", str(ROOT / "sample_bots" / "random"), "--boards", "1",
                          "--seed", "1", "--db", str(tmp_path / "db" / "arena.duckdb")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0 and "1 board pairs played now, 0 already stored, 0 faults" in run.stdout, \
        run.stdout + run.stderr


def test_a_bot_written_for_the_old_sdk_name_still_plays(tmp_path):
    """Bots submitted before the SDK moved import `sample_bots.sdk` (the README said so):
    the deprecated alias keeps them playing, in the sandbox."""
    bot = tmp_path / "oldstyle"
    bot.mkdir()
    (bot / "bot.py").write_text("from sample_bots.sdk.cards import card  # a submodule, as old bots did\n"
                                + BOT.replace("from belote_arena_sdk import", "from sample_bots.sdk import"))
    (bot / "bot.toml").write_text(MANIFEST.replace('"./.venv/bin/python"', '"python"').replace("portable", "oldstyle"))
    check = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "bots", "check", str(bot),
                            "--boards", "1"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert check.returncode == 0 and "conformance check passed" in check.stdout, check.stdout + check.stderr
