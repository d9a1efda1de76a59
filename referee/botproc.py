"""Bot processes and the gRPC client that talks to them.

One :class:`BotClient` per seat and table (RULES.md §8 seat and table
isolation).  A local bot is started from its manifest through
:mod:`referee.launch` in its own process group and private working folder,
listens on a per-seat Unix socket, and is always terminated by :meth:`close`.
A remote bot (``host:port``) is only dialled.

gRPC facts this follows (FIELD-NOTES): no retries (a retry re-runs a
decision), no ``wait_for_ready`` on decisions, short reconnect backoff for a
fast start, capped message sizes, and a deadline on every call.

Decisions go over one ``DecideStream`` per bot process when the bot implements
it (about 1.5× faster than unary calls), else over unary ``Decide``, with
``grpc.aio`` so a referee plays several tables on one event loop (its client
costs ~0.6× the CPU of a blocking stream's, which hands every message to gRPC's
sending thread: ``bench/RESULTS.md``): see :meth:`BotClient.decide_async`.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc

from belote_arena_sdk.proto import bot_pb2 as pb
from belote_arena_sdk.proto import bot_pb2_grpc as pb_grpc

from . import evict, sandbox
from .manifest import PACKAGES_DIR, Manifest, content_hash_cached
from .records import printable
from .sandbox import Limits

#: What the sandbox's launcher (``prlimit``, which then becomes the bot) says when the bot's
#: command cannot be run: ``prlimit: failed to execute pythn3: No such file or directory``.
_LAUNCH_FAILED = "prlimit: failed to execute "

MAX_MESSAGE_BYTES = 64 * 1024
_CHANNEL_OPTIONS = [
    ("grpc.enable_retries", 0),
    ("grpc.initial_reconnect_backoff_ms", 20),
    ("grpc.min_reconnect_backoff_ms", 20),
    ("grpc.max_reconnect_backoff_ms", 200),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", 1024 * 1024),
    # never idle, so never dialled again: a locked sandbox accepts no connection it was not told of
    ("grpc.client_idle_timeout_ms", 2**31 - 1),
]
#: The decision channel's: dialled once (before the lock in a match; else after it, through one
#: accept announced), so a connection attempt is never given up for a slow handshake (with a
#: minimum backoff of 20 ms, gRPC's attempt deadline, a busy machine's bot answered too late and
#: a second attempt after the lock was refused: red team 31 saw two honest bots charged "timed
#: out before receiving SETTINGS frame").
_DECISION_CHANNEL_OPTIONS = [(k, v) for k, v in _CHANNEL_OPTIONS if k != "grpc.min_reconnect_backoff_ms"] + [
    ("grpc.min_reconnect_backoff_ms", 30_000)]


def sandbox_report(limits: Limits, brief: bool = False) -> str:
    """One line saying what the bot sandbox enforces here (see :func:`referee.sandbox.report`)."""
    return sandbox.report(limits, brief)


class DecideError(grpc.RpcError):
    """A failed decision over the stream, shaped like a unary call's error:
    ``code()`` and ``details()`` as :func:`referee.match.fault_from_rpc` reads them."""

    def __init__(self, code: grpc.StatusCode, details: str):
        super().__init__(f"{code.name}: {details}")
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


#: Seconds from thawing a bot for ``EndMatch`` to its SIGKILL, whatever it answers (:meth:`BotClient.end_match`).
END_MATCH_S = 0.2
#: Errors of a decision after which the bot plays on (referee.match: ``bot-error``, ``malformed``),
#: so it is frozen again; after the others the referee stops it (a crashed process must be
#: free to exit for the crash to be seen).
FREEZE_AFTER = frozenset({grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.RESOURCE_EXHAUSTED})

_ROOT_PREFIX = "belote-referee-"


@functools.cache
def _workdir_root() -> Path:
    """This referee process's folder for bot working folders, ``$TMPDIR/belote-referee-<pid>-*``.

    Created once per process; folders left by referees that no longer run (killed
    with SIGKILL, so nothing could clean up) are removed here.
    """
    tmp = Path(tempfile.gettempdir())
    for old in tmp.glob(_ROOT_PREFIX + "*"):
        try:
            pid = int(old.name[len(_ROOT_PREFIX):].split("-")[0])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except (ValueError, PermissionError, OSError):
            continue
    root = Path(tempfile.mkdtemp(prefix=f"{_ROOT_PREFIX}{os.getpid()}-"))
    atexit.register(shutil.rmtree, root, True)
    return root


class BotStartError(RuntimeError):
    """The bot did not start or did not answer within the start-up deadline.

    Attributes:
        slow: True when the process was alive and had done nothing wrong, only not
            listened or accepted a connection within the start-up time (a slow start or
            an overloaded machine): the referee starts it again before charging a fault
            (:class:`referee.match.MatchConfig` ``start_attempts``).  False for a bot that
            exited at start-up, a changed frozen copy, a sandbox that cannot start, …
    """

    def __init__(self, message: str, *, slow: bool = False):
        super().__init__(message)
        self.slow = slow


class BotClient:
    """A connection to one bot, started here (``manifest``) or remote (``endpoint`` ``host:port``).

    Args:
        manifest: start this bot locally (exclusive with ``endpoint``).
        endpoint: dial a bot already listening at ``host:port``.
        seed: the RNG seed given to the bot process (``BELOTE_BOT_SEED``); never a board's seed.
        startup_s: seconds to wait for the bot to listen and answer.
        limits: the sandbox and resource limits of the process (:mod:`referee.sandbox`; None: ``Limits()``).
        content_hash: the frozen copy's SHA-256 (:func:`referee.manifest.content_hash`); when
            given, the folder is checked again before every start (hashed again when its files'
            stat signature changed: :func:`referee.manifest.content_hash_cached`) and a changed
            copy is refused.
    """

    stream_decisions: bool = True
    """Whether :meth:`decide_async` tries ``DecideStream`` first (False: unary ``Decide`` only)."""
    quote_output: bool = True
    """Whether a fault's message (a failed start, a crash, an error without a message) quotes the
    end of the bot's output (:meth:`log_tail`); off where faults are public and a bot's output is
    its owner's alone (a competition's ladder, challenges and final)."""
    _stream_works: bool | None = None  # None: not known yet; False: UNIMPLEMENTED, unary from now on
    _aio_channel: grpc.aio.Channel | None = None
    _aio_stub: pb_grpc.BotServiceStub | None = None
    _aio_stream: grpc.aio.StreamStreamCall | None = None
    _sandbox: sandbox.Sandboxed | None = None
    _freezer: sandbox.Freezer | None = None
    _evictor: evict.Evictor | None = None
    _house = False  # the bot is one of the arena's own (referee.evict.is_house): its turns need no clearing
    last_clear_s: float = 0.0
    """Seconds the last :meth:`decide_async` spent clearing the caches (part of :attr:`last_thaw_s`)."""
    last_thaw_s: float = 0.0
    """Seconds the last :meth:`decide_async` spent thawing the bot before sending (referee time:
    the caller takes it out of the decision's measured time; its deadline starts after it)."""
    _socket_fd: int = -1
    _output_fd: int = -1  # a sandboxed bot's stdout and stderr: a memfd (else ``bot.log`` in ``workdir``)
    _closed: bool = False  # set by close(): a start in progress on another thread gives up

    def __init__(
        self,
        manifest: Manifest | None = None,
        endpoint: str | None = None,
        *,
        seed: int = 0,
        startup_s: float = 10.0,
        limits: Limits | None = None,
        content_hash: str | None = None,
    ):
        self.manifest = manifest
        self.endpoint = endpoint
        self.seed = seed
        self.startup_s = startup_s
        self.limits = limits if limits is not None else Limits()
        self.content_hash = content_hash
        self.process: subprocess.Popen | None = None
        self.workdir: Path | None = None
        self.channel: grpc.Channel | None = None
        self.stub: pb_grpc.BotServiceStub | None = None
        self.target: str | None = None
        self._lock = threading.RLock()  # close() and the end of a start, from different threads
        self._starter: threading.Thread | None = None  # the thread running start(), while it does
        self.keep_log: Path | None = None
        """Where :meth:`close` copies the process's output (``bot.log``) before removing its
        folder; None: not kept."""

    # -------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Start (or dial) the bot and wait until it accepts calls.

        A local bot runs in the sandbox (:mod:`referee.sandbox`) unless ``limits.isolate``
        is off; its stdout and stderr go to a memfd the referee holds (sandboxed: no file on the
        host's disk, whose free blocks it would show) or to ``bot.log`` in a host folder it cannot see.

        Raises:
            BotStartError: the frozen copy changed, the sandbox is unavailable, the command
                cannot run, the process exits, or it is not ready within ``startup_s``.
        """
        with self._lock:
            if self._closed:
                raise BotStartError(f"{self.name}: stopped before it started")
            self._starter = threading.current_thread()
        try:
            self._start()
        finally:
            with self._lock:
                self._starter = None
            closed = self._closed
            if closed:  # a close() from another thread left the cleanup to this one (its resources)
                self.close()
        if closed:
            raise BotStartError(f"{self.name}: stopped while it started")

    def _start(self) -> None:
        if self.endpoint is not None:
            target = self.endpoint
        else:
            assert self.manifest is not None
            if self.content_hash is not None:
                try:  # in full only when the copy's stat signature changed (four seats start at once)
                    digest = content_hash_cached(self.manifest.folder)
                except (OSError, ValueError) as e:  # ValueError: ManifestError (a special file appeared)
                    digest = f"unreadable ({e})"
                if digest != self.content_hash:
                    raise BotStartError(
                        f"{self.manifest.key}: its frozen copy {self.manifest.folder} has changed since it was "
                        f"submitted (content hash {digest[:12]}, registered {self.content_hash[:12]}): refused; "
                        "submit the bot again as a new version")
            if self.limits.evict_caches and self.limits.isolate:  # a house bot's turn needs no clearing
                self._house = evict.is_house(self.manifest.folder, self.content_hash)
            if self.manifest.packages_dir is not None and not (self.manifest.folder / self.manifest.packages_dir).is_dir():
                raise BotStartError(
                    f"{self.manifest.key} names requirements ({self.manifest.requirements}) that are not installed "
                    f"in {self.manifest.folder}: `arena bots submit` installs them into its frozen copy (and "
                    "`arena bots check` and `arena match` into a temporary one): play the submitted bot by name")
            self.workdir = Path(tempfile.mkdtemp(prefix="bot-", dir=_workdir_root()))
            os.chmod(self.workdir, 0o700)
            bot_command = list(self.manifest.command)
            if bot_command[0] == "python":  # the manifest's "python" is the arena's own interpreter
                bot_command[0] = sys.executable
            elif "/" in bot_command[0] and not bot_command[0].startswith("/"):
                # a path relative to the bot's folder ("./.venv/bin/python"): the sandbox runs the bot
                # in its folder (/arena/bot); unsandboxed it is made absolute here
                folder = sandbox.CODE_DIR if self.limits.isolate else str(self.manifest.folder)
                bot_command[0] = os.path.join(folder, bot_command[0])
            if self.limits.isolate:
                if self.limits.evict_caches and not self._house:  # its start-up reads no line of a bot before it
                    try:
                        evict.shared().evict()
                    except OSError as e:
                        raise BotStartError(f"{self.name}: cannot clear the CPU caches before it starts: {e}") from None
                sock = self._start_sandboxed(bot_command)
            else:
                sock = self._start_unisolated(bot_command)
            if self._closed:  # closed from another thread while the process was being started
                self.close()
                raise BotStartError(f"{self.name}: stopped while it started")
            deadline = time.monotonic() + self.startup_s
            while not os.path.lexists(sock):
                if self._closed:
                    raise BotStartError(f"{self.name}: stopped while it started")
                if self.process is None or self.process.poll() is not None:
                    raise BotStartError(f"{self.manifest.key} {self.exit_description()} at start-up{self._quoted()}")
                if time.monotonic() > deadline:  # what it printed, if anything (new-user trial 4: shown nowhere)
                    printed = f"; it printed{self._quoted()}" if self.log_tail() or not self.quote_output else ""
                    raise BotStartError(f"{self.manifest.key} did not listen on its socket within "
                                        f"{self.startup_s:g} s: a slow start or an overloaded machine (or a bot that "
                                        "never serves: it must listen on BELOTE_BOT_LISTEN, as the SDK's serve() does; "
                                        f"docs/PROTOCOL.md §2){printed}", slow=True)
                time.sleep(0.005)
            target = f"unix:{self._pin_socket(sock)}"
        self.target = target
        self.channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        ready, deadline = grpc.channel_ready_future(self.channel), time.monotonic() + self.startup_s
        while True:  # in short waits: a close() from another thread ends the start at once
            if self._closed:
                raise BotStartError(f"{self.name}: stopped while it started")
            try:
                ready.result(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
                break
            except grpc.FutureTimeoutError:
                if time.monotonic() >= deadline:
                    raise BotStartError(f"{self.name} accepted no gRPC connection within {self.startup_s:g} s: "
                                        "a slow start or an overloaded machine", slow=True) from None
        self.stub = pb_grpc.BotServiceStub(self.channel)
        if self.limits.freeze and self.process is not None:
            try:
                self._freezer = (self._sandbox.freezer() if self._sandbox is not None
                                 else sandbox.Freezer(pgid=self.process.pid))
                if self._sandbox is not None and self.limits.evict_caches and not self._house:
                    self._evictor = evict.shared()
            except OSError as e:
                raise BotStartError(f"{self.name}: cannot stop its processes between decisions: {e}") from None

    def _pin_socket(self, sock: str) -> str:
        """A path that reaches exactly the socket file the bot made at ``sock``, for every
        (re)connection: ``/proc/self/fd/N`` of an ``O_PATH`` descriptor of it.

        The bot owns the folder of its socket: were ``bot.sock`` a symbolic link, a
        connection by name would follow it from the referee's side, to any socket of
        the host.  A name that is not a socket is refused.

        Raises:
            BotStartError: ``sock`` is a symbolic link or not a socket.
        """
        try:
            fd = os.open(sock, os.O_PATH | os.O_NOFOLLOW)
        except OSError as e:
            raise BotStartError(f"{self.manifest.key}: cannot open its socket: {e.strerror}") from None
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.close(fd)
            raise BotStartError(f"{self.manifest.key}: {os.path.basename(sock)} is not a socket "
                                "(a symbolic link or another file): refused")
        self._socket_fd = fd
        return f"/proc/self/fd/{fd}"

    def _env(self, listen: str, home: str, tmp: str) -> dict[str, str]:
        """The bot's whole environment: these seven variables (and, in the sandbox, ``PWD``, set by bwrap),
        and ``PYTHONPATH``, its copy's ``site-packages`` folder, for a bot whose manifest names
        ``requirements`` (installed there by ``arena bots submit``)."""
        python_dir = str(Path(sys.executable).parent)
        extra = {}
        if self.manifest is not None and self.manifest.packages_dir == PACKAGES_DIR:
            folder = sandbox.CODE_DIR if self.limits.isolate else str(self.manifest.folder)
            extra["PYTHONPATH"] = f"{folder}/{PACKAGES_DIR}"
        return extra | {
            "PATH": python_dir + os.pathsep + "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "TMPDIR": tmp,
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "BELOTE_BOT_LISTEN": listen,
            "BELOTE_BOT_SEED": str(self.seed),
        }

    def _popen(self, command: list[str], cwd: str | Path, env: dict[str, str]) -> None:
        log = open(self.workdir / "bot.log", "wb")
        try:
            self.process = subprocess.Popen(
                command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as e:
            raise BotStartError(f"cannot start {self.manifest.key}: {e}") from None
        finally:
            log.close()

    def _start_sandboxed(self, bot_command: list[str]) -> str:
        """Start the bot under bubblewrap; return the host path of its socket."""
        support = sandbox.support()
        if not support.works:
            raise BotStartError(f"the bot sandbox is unavailable: {support.problem}")
        env = self._env(f"{sandbox.WORK_DIR}/{sandbox.SOCKET_NAME}", sandbox.WORK_DIR, "/tmp")
        # its output in memory, not a file on the host's disk: a file there shows the disk's free
        # blocks (fstatfs), which a partner moves by growing its own (red team 32: 14 bits a decision)
        self._output_fd = os.memfd_create("bot-output", os.MFD_CLOEXEC)
        try:
            self._sandbox = sandbox.Sandboxed(
                self.manifest.folder, bot_command, env, self.limits, stdin=subprocess.DEVNULL, stdout=self._output_fd,
                stderr=subprocess.STDOUT, start_new_session=True)
        except (OSError, RuntimeError) as e:
            raise BotStartError(f"cannot start {self.manifest.key} in the sandbox: {e}") from None
        self.process = self._sandbox.process
        child = self._sandbox.child_pid(time.monotonic() + self.startup_s)
        if child is None:
            if self.process.poll() is None:
                raise BotStartError(f"{self.manifest.key}: the sandbox did not start within {self.startup_s:g} s: "
                                    "an overloaded machine", slow=True)
            raise BotStartError(f"{self.manifest.key}: the sandbox failed to start{self._quoted()}")
        return f"/proc/{child}/root{sandbox.WORK_DIR}/{sandbox.SOCKET_NAME}"

    def _start_unisolated(self, bot_command: list[str]) -> str:
        """Start the bot as this user with resource limits only (``--no-isolate``)."""
        sock = str(self.workdir / "bot.sock")
        lim = self.limits
        command = [  # -I: the launcher, never a `referee/launch.py` of the bot's folder (its cwd)
            sys.executable, "-I", "-m", "referee.launch",
            # no RLIMIT_NPROC: it would count every process of this user, the referee included
            f"--cpu={lim.cpu_s}", f"--memory={lim.memory_mib}", f"--fsize={lim.fsize_mib}",
            f"--parent={os.getpid()}", "--", *bot_command,
        ]
        self._popen(command, self.manifest.folder, self._env(sock, str(self.workdir), str(self.workdir)))
        return sock

    @property
    def name(self) -> str:
        return self.manifest.key if self.manifest is not None else str(self.endpoint)

    def alive(self) -> bool:
        return self.process is None or self.process.poll() is None

    def exit_description(self) -> str:
        """How the bot's process ended, in words: "exited with status 3", "was killed by
        signal 9 (SIGKILL)" (a sandboxed bot's signal comes back from bwrap as status 128 + N)."""
        status = self.process.poll() if self.process is not None else None
        if status is None:
            return "is still running"
        if status > 128 and self.limits.isolate:
            status = 128 - status
        if status < 0:
            try:
                name = f" ({signal.Signals(-status).name})"
            except ValueError:
                name = ""
            return f"was killed by signal {-status}{name}"
        return f"exited with status {status}"

    def _quoted(self) -> str:
        """": <the end of the bot's output>" for a start's error message, or where it is not quoted
        (:attr:`quote_output` off), a pointer to the bot's log.  A command that could not be run
        at all (the launcher's ``failed to execute``, the bot's code never ran) is said in words."""
        tail = self.log_tail()
        if (at := tail.rfind(_LAUNCH_FAILED)) >= 0:
            program, _, why = tail[at + len(_LAUNCH_FAILED):].partition(": ")
            return (f": its command could not be run: {program}: {why.strip() or 'failed'} (bot.toml's command "
                    f"{list(self.manifest.command)!r}: the first word is a program of the sandbox, such as python3 "
                    "or node, or an executable file of the bot's folder)")
        return f": {tail}" if self.quote_output else " (its output is in its owner's log)"

    def log_tail(self, n: int = 300) -> str:
        """The last ``n`` characters of the bot's stdout/stderr, its readiness line left out."""
        if self.workdir is None:
            return ""
        try:
            if self._output_fd >= 0:
                size = os.fstat(self._output_fd).st_size
                raw = os.pread(self._output_fd, min(size, 4 * n), max(0, size - 4 * n))
            else:
                raw = (self.workdir / "bot.log").read_bytes()[-4 * n:]
        except OSError:
            return ""
        text = raw.decode("utf-8", "replace")
        lines = [line for line in text.splitlines() if not line.startswith("BELOTE-BOT READY")]
        return printable("\n".join(lines).strip()[-n:])

    def close(self, grace_s: float = 0.5) -> None:
        """Close the channel, stop the whole process group (SIGTERM, then SIGKILL after
        ``grace_s`` seconds) and remove the working folder.  Safe to call twice, and from
        another thread while :meth:`start` runs: the process is then killed at once, and the
        starting thread, which uses the start's descriptors, sandbox and folder, cleans them up."""
        self._closed = True
        with self._lock:
            starter = self._starter
            if starter is not None and starter is not threading.current_thread():
                proc = self.process
                if proc is not None:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                return
            self._close(grace_s)

    def _close(self, grace_s: float) -> None:
        if self._freezer is not None:  # thawed for good: a frozen process dies only once thawed
            self._freezer.release()
        self._drop_aio_stream()
        self._aio_channel = self._aio_stub = None  # closed by aclose_aio when a loop ran it
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        proc = self.process
        if proc is not None:
            term = ((signal.SIGTERM, grace_s),) if grace_s > 0 else ()  # no grace: SIGKILL at once
            for sig, wait in (*term, (signal.SIGKILL, 2.0)):
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
        if self._socket_fd >= 0:
            os.close(self._socket_fd)
            self._socket_fd = -1
        if self._sandbox is not None:
            self._sandbox.release()
            self._sandbox = None
        if self._output_fd >= 0:  # a sandboxed bot's output, in memory
            if self.keep_log is not None:
                try:  # written by the referee: the bot picks no path
                    with open(self.keep_log, "wb") as kept, open(self._output_fd, "rb", closefd=False) as output:
                        output.seek(0)
                        shutil.copyfileobj(output, kept)
                except OSError:
                    pass
            os.close(self._output_fd)
            self._output_fd = -1
        if self.workdir is not None:
            if self.keep_log is not None and (self.workdir / "bot.log").exists():
                try:  # written by the referee from a folder the bot cannot see: the bot picks no path
                    shutil.copyfile(self.workdir / "bot.log", self.keep_log)
                except OSError:
                    pass
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    # ------------------------------------------------------------------ calls
    def info(self, timeout_s: float = 2.0) -> pb.GetBotInfoResponse:
        return self.stub.GetBotInfo(pb.GetBotInfoRequest(), timeout=timeout_s)

    def start_match(self, request: pb.StartMatchRequest, timeout_s: float = 2.0,
                    loop: asyncio.AbstractEventLoop | None = None) -> None:
        """``StartMatch``; then a sandboxed bot is locked (no new pipe, socket or shared memory
        from now on: :meth:`referee.sandbox.Sandboxed.lock`) and (``limits.freeze``) frozen
        until its first decision.

        ``loop``: the running event loop :meth:`decide_async` will be called on (call this
        from another thread); the decision channel is then dialled there first, before the
        lock, so the locked bot never has a connection to accept.  Without it the channel is
        dialled at the first decision, through one accept the lock lets through.

        Raises:
            grpc.RpcError: ``StartMatch`` failed, or the decision channel did not connect
                within ``timeout_s`` (``DEADLINE_EXCEEDED``).
        """
        try:
            if loop is not None:
                try:
                    asyncio.run_coroutine_threadsafe(self._dial_decisions(timeout_s), loop).result(timeout_s + 1.0)
                except concurrent.futures.TimeoutError:  # the loop itself was too busy to dial
                    raise DecideError(grpc.StatusCode.DEADLINE_EXCEEDED,
                                      f"the decision channel was not dialled within {timeout_s:g} s") from None
            self.stub.StartMatch(request, timeout=timeout_s)
        finally:
            if self._sandbox is not None:
                self._sandbox.lock()
            if self._freezer is not None:
                self._freezer.freeze()

    def end_match(self, request: pb.EndMatchRequest) -> None:
        """``EndMatch``, the bot thawed for good first (it is about to be stopped), after the CPU
        caches are cleared as before a turn (:meth:`clear_caches`); ``close(0)`` follows (SIGKILL,
        no grace for a SIGTERM handler).

        Takes :data:`END_MATCH_S` seconds whatever the bot does: its answer, late or never, and a
        SIGTERM handler cannot move the moment its table's processes end, after which the other
        table's start (red team 50: a bot answered ``EndMatch`` at a chosen phase of the clock,
        and its processes at the next table, where its hand was an opponent's, read the bit
        from their own start time: 40 of 40 bits).

        Raises:
            grpc.RpcError: never (a failed ``EndMatch`` is ignored: it is a notification).
        """
        until = time.monotonic() + END_MATCH_S
        if self._freezer is not None:
            with contextlib.suppress(OSError):  # a helper gone: the match still ends
                self.clear_caches()
            self._freezer.release()
        with contextlib.suppress(grpc.RpcError):
            self.stub.EndMatch(request, timeout=max(0.01, until - time.monotonic()))
        time.sleep(max(0.0, until - time.monotonic()))

    def freezes(self) -> str | None:
        """How the bot is stopped between its decisions (:attr:`referee.sandbox.Freezer.how`), or None."""
        return self._freezer.how if self._freezer is not None else None

    def clear_caches(self) -> float:
        """Clear the CPU caches as before this bot's turn (:mod:`referee.evict`; a sandboxed bot
        frozen between decisions with ``limits.evict_caches``, unless a house bot:
        :func:`referee.evict.is_house`); returns the seconds it took (0: nothing to clear).

        Raises:
            OSError: a helper is gone.
        """
        return self._evictor.evict() if self._evictor is not None else 0.0

    def clearing_s(self, rng) -> float:
        """Seconds a clearing before this bot's turn takes, for a decision the referee plays
        without a call (a forced move's pause, which must last what a call does): drawn with
        ``rng`` from the referee's recent clearings (:attr:`referee.evict.Evictor.recent`);
        0 for a bot whose turns need none.  Nothing is cleared then: every bot is frozen
        during the pause, and the next visitor's turn is cleared before it runs, so only the
        time could tell, and it is the same (a clearing is ~35 ms of the machine's CPU with a
        105 MiB L3; a third of the decisions are forced).  The first time, with none yet
        measured, a clearing is done (and 0 returned: its time is spent).

        Raises:
            OSError: a helper is gone.
        """
        if self._evictor is None:
            return 0.0
        if not self._evictor.recent:
            self._evictor.evict()
            return 0.0
        return rng.choice(self._evictor.recent)

    async def decide_async(self, request: pb.DecideRequest, timeout_s: float) -> pb.DecideResponse | None:
        """One decision with a deadline of ``timeout_s`` seconds (see :meth:`_decide_async`).

        With ``limits.freeze`` the bot's processes are thawed just before the request is sent,
        a sandboxed bot's after the CPU caches are cleared (``limits.evict_caches``,
        :mod:`referee.evict`; the deadline starts after both, whose time is :attr:`last_thaw_s`) and frozen
        again once the answer is in, or an error the bot answered and plays on after
        (:data:`FREEZE_AFTER`): a bot runs only while it decides.  After any other error (a
        crash, a lost connection, a timeout) it is left running, so that its exit can be seen:
        the referee stops it.

        Raises:
            grpc.RpcError: as :meth:`_decide_async`.
        """
        freezer = self._freezer
        if freezer is None:
            self.last_thaw_s = 0.0
            return await self._decide_async(request, timeout_s)
        self.last_clear_s = self.clear_caches()
        freezer.thaw()
        self.last_thaw_s = self.last_clear_s + freezer.last_thaw_s
        try:
            response = await self._decide_async(request, timeout_s)
        except grpc.RpcError as err:
            if err.code() in FREEZE_AFTER:
                freezer.freeze()
            raise
        freezer.freeze()
        return response

    def _open_decisions(self) -> None:
        """The decision channel (``grpc.aio``, on the running loop), made if it is not there."""
        if self._aio_channel is None:
            if self.target is None:
                raise DecideError(grpc.StatusCode.UNAVAILABLE, "the bot was not started")
            if self._sandbox is not None:  # a locked sandbox accepts only the connections we announce
                self._sandbox.allow_accept()
            self._aio_channel = grpc.aio.insecure_channel(self.target, options=_DECISION_CHANNEL_OPTIONS)
            self._aio_stub = pb_grpc.BotServiceStub(self._aio_channel)

    async def _dial_decisions(self, timeout_s: float) -> None:
        """Make the decision channel and wait until it is connected (at most ``timeout_s``)."""
        self._open_decisions()
        try:
            await asyncio.wait_for(self._aio_channel.channel_ready(), timeout_s)
        except asyncio.TimeoutError:
            raise DecideError(grpc.StatusCode.DEADLINE_EXCEEDED,
                              f"the bot did not accept the decision channel within {timeout_s:g} s") from None

    async def _decide_async(self, request: pb.DecideRequest, timeout_s: float) -> pb.DecideResponse | None:
        """One decision with a deadline of ``timeout_s`` seconds, on the running event loop,
        over a ``grpc.aio`` channel of its own (call it from one event loop only).

        Over this process's ``DecideStream``, opened on the first decision and again after
        a stream ended with an error; over unary ``Decide`` when :attr:`stream_decisions` is
        off or the bot refused the stream's first request (UNIMPLEMENTED: the request is
        then sent once as ``Decide``, in the time left; the bot never saw it).  The deadline
        covers the whole exchange; a decision unanswered at it cancels the stream (the
        caller restarts the bot).  Never retries.  Returns None when the answer's bytes do not
        deserialize as a ``DecideResponse`` (``grpc.aio`` does not raise then).

        Raises:
            grpc.RpcError: DEADLINE_EXCEEDED, UNAVAILABLE, RESOURCE_EXHAUSTED, …
                (a :class:`DecideError` or ``grpc.aio.AioRpcError``).
        """
        self._open_decisions()
        if not self.stream_decisions or self._stream_works is False:
            return await self._aio_stub.Decide(request, timeout=timeout_s)
        deadline = time.monotonic() + timeout_s
        opened = self._aio_stream is None
        if opened:
            self._aio_stream = self._aio_stub.DecideStream()  # no deadline: each decision has its own
        stream = self._aio_stream
        try:
            async with asyncio.timeout(timeout_s):
                await stream.write(pb.DecideStreamRequest(request=request))
                answer = await stream.read()
        except TimeoutError:
            self._drop_aio_stream()
            raise DecideError(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded") from None
        except grpc.RpcError as err:
            self._drop_aio_stream()
            # a first write that races the bot's refusal of the call fails in gRPC's core
            # (INTERNAL, "Internal error from Core") instead of UNIMPLEMENTED: the request was
            # not sent, so it goes once as Decide, as after UNIMPLEMENTED
            refused = err.code() == grpc.StatusCode.UNIMPLEMENTED or (
                err.code() == grpc.StatusCode.INTERNAL and err.details() == "Internal error from Core")
            if opened and self._stream_works is None and refused:
                self._stream_works = False
                return await self._aio_stub.Decide(request, timeout=max(0.0, deadline - time.monotonic()))
            raise
        except asyncio.InvalidStateError:  # written after the bot ended the call with status OK
            self._drop_aio_stream()
            raise DecideError(grpc.StatusCode.UNKNOWN, "the bot ended DecideStream without answering") from None
        if answer is grpc.aio.EOF:
            self._drop_aio_stream()
            raise DecideError(grpc.StatusCode.UNKNOWN, "the bot ended DecideStream without answering")
        self._stream_works = True
        if answer is None:  # bytes that do not deserialize (grpc.aio gives None): the caller's fault to charge
            self._drop_aio_stream()
            return None
        return answer.response

    def _drop_aio_stream(self) -> None:
        if self._aio_stream is not None:
            self._aio_stream.cancel()
            self._aio_stream = None

    async def aclose_aio(self) -> None:
        """Cancel the ``grpc.aio`` stream and close its channel (on the loop that used them);
        :meth:`close` still stops the process."""
        self._drop_aio_stream()
        channel, self._aio_channel, self._aio_stub = self._aio_channel, None, None
        if channel is not None:
            await channel.close()
