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
import threading
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


@pytest.mark.alone  # a 50 ms sleep read back within 50 ms
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


@pytest.mark.alone  # a request handed to decide() within 50 ms
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


ALONE = '''
import sys
import belote_arena_sdk
from belote_arena_sdk import Bot, serve

class Last(Bot):
    name, version, author, rulesets = "alone", "1.0.0", "tests", ("classic",)

    def decide(self, request):
        return request.legal_actions[-1]   # the last one: not what a referee's fallback (the first) would be

print("sdk from", belote_arena_sdk.__file__, file=sys.stderr, flush=True)
raise SystemExit(serve(Last()))
'''

#: the SDK's needs, for the message when pip cannot find them
SDK_NEEDS = "grpcio>=1.85.1, protobuf>=7.35.1 (and setuptools>=68 to build it)"


def _tail(text: str, lines: int = 6) -> str:
    """pip's last ``lines`` lines, after where it looked (its "Looking in indexes/links" lines) and
    its first complaint about the network if it made one."""
    said = text.strip().splitlines()
    where = list(dict.fromkeys(line for line in said if line.startswith("Looking in ")))
    network = [line for line in said if any(w in line for w in ("Connection", "connection", "Name or service",
                                                                "name resolution", "unreachable"))][:1]
    return "\n".join(where + network + said[-lines:])


def _pip_install_sdk(python: Path, sdk: Path, deadline: float) -> str:
    """Install ``sdk`` into ``python``'s environment (with the arena's pip, ``--python``: the
    new environment is made without its own, saving ensurepip's seconds): offline first (``--no-index``: only the wheels of
    PIP_FIND_LINKS or pip's configured find-links), else from the package index as this machine
    is configured. Returns how it was installed ("offline" or "index"); fails the test, with
    pip's last lines of both tries, when neither works or the time is up."""
    tries: list[tuple[str, list[str]]] = [("offline", ["--no-index"]), ("index", [])]
    said = []
    for how, flags in tries:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                                  "--disable-pip-version-check", *flags, str(sdk)],
                                 capture_output=True, text=True, timeout=left)
        except subprocess.TimeoutExpired:
            said.append(f"{how}: pip did not finish in time (an unreachable or slow package index?)")
            break
        if pip.returncode == 0:
            return how
        said.append(f"{how}: pip exited with status {pip.returncode}:\n{_tail(pip.stdout + pip.stderr)}")
    pytest.fail(f"`pip install ./sdk` failed in a fresh virtual environment. It needs {SDK_NEEDS}: put their "
                "wheels in a folder named by PIP_FIND_LINKS (offline), or let this machine reach the package "
                "index.\n" + "\n".join(said), pytrace=False)


def test_the_sdk_installs_alone_in_a_fresh_venv_and_serves_a_bot(tmp_path):
    """`pip install ./sdk` into a new virtual environment that sees none of the arena's packages
    (no --system-site-packages: grpc is missing before the install), then a bot written on the
    installed SDK, run by that environment's interpreter outside the checkout, serves: its
    readiness line, GetBotInfo and one Decide answered by its own decide()."""
    deadline = time.monotonic() + 90  # the whole test; most of it is pip's
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=deadline - time.monotonic())
    python = venv / "bin" / "python"
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    before = subprocess.run([str(python), "-c", "import grpc"], capture_output=True, text=True, cwd=tmp_path,
                            timeout=30)
    assert before.returncode != 0 and "No module named 'grpc'" in before.stderr  # nothing of the arena's
    sdk = tmp_path / "sdk"  # a copy: pip builds in the source folder (build/, *.egg-info)
    shutil.copytree(ROOT / "sdk", sdk, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    how = _pip_install_sdk(python, sdk, deadline)
    print(f"installed {how}")

    bot = tmp_path / "alone"
    bot.mkdir()
    (bot / "bot.py").write_text(ALONE)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}  # no PYTHONPATH: only the venv's packages
    proc = subprocess.Popen([str(python), "bot.py", "--listen", f"unix:{tmp_path / 'bot.sock'}"], cwd=bot, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(max(1.0, deadline - time.monotonic()), proc.kill)  # a bot that never gets ready
    watchdog.start()
    try:
        ready = proc.stdout.readline().split()
        assert ready[:2] == ["BELOTE-BOT", "READY"], (ready, proc.stderr.read() if proc.poll() is not None else "")
        channel = grpc.insecure_channel(ready[2], options=CHANNEL_OPTIONS)
        try:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            info = stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=10)
            assert (info.name, info.version, list(info.rulesets)) == ("alone", "1.0.0", ["classic"])
            req = request(observation(hand="JH 9H AS"), ["play AS", "play JH", "play 9H"])
            answer = stub.Decide(req, timeout=10).action
            assert answer == req.legal_actions[2]
        finally:
            channel.close()
    finally:
        watchdog.cancel()
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err  # a clean stop on SIGTERM
    assert f"sdk from {venv}/lib/" in err and "/site-packages/belote_arena_sdk/__init__.py" in err, err
