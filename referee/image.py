"""What a sandbox shows is served from an image in memory (issue 19, red teams 4 and 5).

Why: every sandbox sees the same read-only files (the runtime: ``/usr``'s programs and
libraries, the interpreter, the venv; and each bot's frozen code, shared by its processes
at both tables of a board). On a disk file system those share the kernel's caches, which
a read changes and a later process can time, whatever the schedule:

* the page cache: a bot read a page nobody had read (round 4: 40 of 40 hands from table 1
  to table 2), and this machine's kernel evicts cold pages on its own (DAMON, ~7% a minute),
  so reading everything in beforehand does not hold;
* the dentry cache: a ``stat`` of a name that does not exist leaves a negative dentry;
  timing the same ``stat`` later (~1.8 µs remembered, ~5 µs not) read 4,089 of 4,096 bits
  (round 5: 40 of 40 hands across tables, 24 of 24 between partners);
* folder blocks and long symbolic links, evicted and read in like pages.

A tmpfs has none of these: its files, folders and links live in memory with nothing to
evict (no swap here; with swap, the image's files are also locked, bots' copies not yet),
and it forgets a failed lookup at once. So the shown folders are copied once into an image on ``/dev/shm``
(:data:`ROOT`), named by a digest of what they hold (:func:`digest`: a changed file
makes a new image), and each bot's code is copied in beside them before its first start.
The sandbox binds the copies at the original paths (``referee.sandbox.bwrap_command``).

The image is kept by a helper process, ``python -m referee.image`` (:class:`Keeper`):
it builds the image (asked by one JSON line on its standard input, answered by one on its
output) and holds a shared lock on it for as long as it runs. When the arena ends (its input
closes, killed or not) and no other arena holds the image, it keeps it :data:`LINGER_S`
seconds for the next run, then removes it unless another arena took it meanwhile. Images
of older digests nobody holds are removed when a new one is built. Processes the arena
starts use its image (:data:`ENV`) without a helper of their own; bots' folders are copied
in by the process that starts them (:func:`code_copy`).

Costs measured here (2 cores): 2.3 GB in 24,600 files; built in 4–10 s the first time
(then reused by every arena process until it lingers out), a bot's folder in milliseconds.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

#: The helper's module: ``python -m referee.image`` (in its command line, as tests look for it).
HELPER = "referee.image"
#: Where images are made: a folder per user on ``/dev/shm`` (a tmpfs on Linux).
ROOT = Path("/dev/shm", f"belote-arena-images-{os.geteuid()}")
#: Seconds an image is kept after the last arena using it ended.
LINGER_S = 600
#: The environment variable through which processes an arena starts find its image.
ENV = "BELOTE_ARENA_IMAGE"
_MCL_CURRENT, _MCL_FUTURE = 1, 2
_PROT_READ, _MAP_SHARED = 1, 1


class ImageError(RuntimeError):
    """The image could not be made (``/dev/shm`` missing or full, a file unreadable) or its
    helper died."""


def swap_active() -> bool:
    """Whether the machine swaps (``/proc/swaps`` lists a device): tmpfs pages could then be
    swapped out and read back in, unless locked."""
    try:
        return len(Path("/proc/swaps").read_text().splitlines()) > 1
    except OSError:
        return True


def can_hold() -> bool:
    """Whether an image stays in memory here: no swap, or the right to lock it (root's
    ``CAP_IPC_LOCK``, or ``ulimit -l unlimited``)."""
    import resource

    return (not swap_active() or os.geteuid() == 0
            or resource.getrlimit(resource.RLIMIT_MEMLOCK)[0] == resource.RLIM_INFINITY)


def _entries(paths: Iterable[str], hidden: set[str]) -> Iterable[tuple[str, os.stat_result]]:
    """Every folder, file and link under ``paths`` (links not followed), but ``hidden``'s."""
    stack = [p for p in paths if p not in hidden and os.path.lexists(p)]
    while stack:
        path = stack.pop()
        try:
            st = os.lstat(path)
        except FileNotFoundError:  # removed meanwhile
            continue
        yield path, st
        if stat.S_ISDIR(st.st_mode):
            try:
                names = os.listdir(path)
            except (PermissionError, FileNotFoundError):
                continue
            stack.extend(p for p in (os.path.join(path, n) for n in names) if p not in hidden)


def digest(paths: Iterable[str], hidden: Iterable[str] = ()) -> str:
    """A digest (hex, 24 digits) of the names, kinds, sizes and change times of everything under
    ``paths`` but ``hidden``: equal digests, equal images."""
    h = hashlib.sha256()
    for path, st in sorted(_entries(paths, set(hidden))):
        h.update(f"{path}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


def _copy(paths: Iterable[str], hidden: set[str], dest: Path) -> tuple[int, int]:
    """Copy ``paths`` (but ``hidden``) under ``dest`` at their own absolute paths: folders, regular
    files (modes and times kept, without set-uid bits) and links as links; devices, FIFOs and sockets are
    left out (nothing a runtime reads). Returns (files, bytes)."""
    files = size = 0
    folders = []
    for path, st in sorted(_entries(paths, hidden)):
        target = str(dest) + path
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        try:
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(path), target)
            elif stat.S_ISDIR(st.st_mode):
                os.makedirs(target, mode=0o755, exist_ok=True)
                folders.append((target, st.st_mode))
            elif stat.S_ISREG(st.st_mode):
                shutil.copyfile(path, target)
                os.chmod(target, st.st_mode & 0o777)  # no set-uid copy of a program
                os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # Python's .pyc files stay valid
                files, size = files + 1, size + st.st_size
        except FileNotFoundError:  # removed while we copied (a package upgraded): the next digest differs
            continue
    for target, mode in folders:  # folders' modes last: a read-only folder was filled first
        os.chmod(target, mode & 0o777)
    return files, size


class Keeper:
    """This process's image helper (:func:`image` starts one per process, unless it found its
    parent's image in :data:`ENV`).

    Raises:
        ImageError: from its methods, when the helper refuses or has ended.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.root: Path | None = None
        self.files = self.bytes = 0
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        # stderr to /dev/null: it outlives the arena by LINGER_S, and an inherited stderr (a pipe
        # to `grep`, a CI's capture) would stay open that long after the arena exited
        self._proc = subprocess.Popen([sys.executable, "-m", HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, cwd="/", start_new_session=True,
                                      env={"PATH": os.defpath, "PYTHONPATH": package})

    def ask(self, **request) -> dict:
        with self._lock:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            try:
                self._proc.stdin.write(json.dumps(request) + "\n")
                self._proc.stdin.flush()
                line = self._proc.stdout.readline()
            except (BrokenPipeError, OSError) as e:
                raise ImageError(f"the image helper has ended ({e})") from e
        answer = json.loads(line) if line else {"error": "the image helper ended"}
        if "error" in answer:
            raise ImageError(f"the sandbox's in-memory image: {answer['error']}")
        return answer


_keeper: Keeper | None = None
_keeper_lock = threading.Lock()
_code_copies: dict[tuple[str, str, str], Path] = {}  # (image, folder, digest) -> its copy


def _the_keeper() -> Keeper:
    global _keeper
    with _keeper_lock:
        if _keeper is None or _keeper._proc.poll() is not None:
            _keeper = Keeper()
        return _keeper


def image(shown: Iterable[str], hidden: Iterable[str]) -> Path:
    """The image of ``shown`` (but ``hidden``): its root folder, under which each shown path is
    copied at its own absolute path. Made (or found) by this process's helper the first time,
    which then holds it; processes this one starts (worker processes, test runs) find it in
    :data:`ENV` and use it while this one lives.

    Raises:
        ImageError: it cannot be made (see the message) or the helper died.
    """
    inherited = os.environ.get(ENV)
    if inherited and (Path(inherited) / ".built").exists() and (_keeper is None or _keeper.root is None):
        return Path(inherited)
    keeper = _the_keeper()
    if keeper.root is None:
        answer = keeper.ask(image=list(shown), hidden=list(hidden))
        keeper.root, keeper.files, keeper.bytes = Path(answer["root"]), answer["files"], answer["bytes"]
        os.environ[ENV] = str(keeper.root)
    return keeper.root


def code_copy(root: Path, code: Path) -> Path:
    """The copy in image ``root`` of a bot's folder ``code``: ``ROOT/bots/DIGEST/<code's own
    path>`` (made if missing, atomically; a changed folder gets a new copy).

    Raises:
        ImageError: it cannot be copied.
    """
    folder = os.path.realpath(code)
    key = (str(root), folder, digest([folder]))
    if key not in _code_copies or not _code_copies[key].exists():  # (an image removed under us is made again)
        home = root / "bots" / key[2]  # the copy sits at its own path below: the host can tell whose it is
        try:
            (root / "bots").mkdir(mode=0o755, exist_ok=True)
            lock = _lock(root / "bots" / f".{key[2]}.lock", fcntl.LOCK_EX)  # one copier at a time
            try:
                if not Path(str(home) + folder).exists():
                    shutil.rmtree(home, ignore_errors=True)  # a copy of another layout (an older arena's)
                    tmp = root / "bots" / f".{key[2]}.{os.getpid()}"
                    shutil.rmtree(tmp, ignore_errors=True)
                    _copy([folder], set(), tmp)
                    os.rename(tmp, home)
            finally:
                os.close(lock)
        except OSError as e:
            raise ImageError(f"cannot copy the bot's folder into the image: {e}") from e
        _code_copies[key] = Path(str(home) + folder)
    return _code_copies[key]


def _lock(path: Path, how: int) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, how)
        return fd
    except BlockingIOError:
        os.close(fd)
        return None


def _remove(root: Path, key: str) -> bool:
    """Remove image ``key`` if no process holds it. Returns whether it was removed."""
    fd = _lock(root / f"{key}.lock", fcntl.LOCK_EX | fcntl.LOCK_NB)
    if fd is None:
        return False
    try:
        shutil.rmtree(root / key, ignore_errors=True)
        for suffix in (".lock", ".build"):
            (root / f"{key}{suffix}").unlink(missing_ok=True)
    finally:
        os.close(fd)
    return True


def _lock_in_memory(folder: Path) -> None:
    """With swap on, map and lock every file of ``folder`` (``mlockall(MCL_FUTURE)``) so no page
    of it is swapped out; without swap a tmpfs page never leaves memory."""
    if not swap_active():
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    if libc.mlockall(_MCL_CURRENT | _MCL_FUTURE) != 0:
        raise ImageError(f"the machine swaps and mlock is refused ({os.strerror(ctypes.get_errno())}): run the "
                         "arena as root or with `ulimit -l unlimited`")
    for path, st in _entries([str(folder)], set()):
        if os.path.isfile(path) and not os.path.islink(path) and st.st_size:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                if libc.mmap(None, st.st_size, _PROT_READ, _MAP_SHARED, fd, 0) in (None, ctypes.c_void_p(-1).value):
                    raise ImageError(f"{path}: {os.strerror(ctypes.get_errno())} (`ulimit -l`, vm.max_map_count)")
            finally:
                os.close(fd)


def _build(shown: list[str], hidden: list[str]) -> tuple[str, Path, int, int, int]:
    """Make (or find) the image: (key, root, files, bytes, the descriptor of its shared lock)."""
    ROOT.mkdir(mode=0o755, exist_ok=True)
    os.chmod(ROOT, 0o755)
    key = digest(shown, hidden)
    held = _lock(ROOT / f"{key}.lock", fcntl.LOCK_SH)
    assert held is not None
    build = _lock(ROOT / f"{key}.build", fcntl.LOCK_EX)
    try:
        done = ROOT / key / ".built"
        if not done.exists():
            tmp = ROOT / f".{key}.{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(mode=0o755)
            try:
                files, size = _copy(shown, set(hidden), tmp)
                (tmp / ".built").write_text(json.dumps({"files": files, "bytes": size}))
                shutil.rmtree(ROOT / key, ignore_errors=True)
                os.rename(tmp, ROOT / key)
            except BaseException:  # a failed copy leaves no half image in memory
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        stats = json.loads(done.read_text())
    finally:
        os.close(build)
    for other in ROOT.glob("*.lock"):  # older images nobody holds
        if other.stem != key:
            _remove(ROOT, other.stem)
    for tmp in ROOT.glob(".*.*"):  # half copies of builders killed meanwhile (".KEY.PID")
        pid = tmp.name.rsplit(".", 1)[-1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return key, ROOT / key, stats["files"], stats["bytes"], held


def _main() -> int:
    key = root = held = None
    for line in sys.stdin:
        try:
            request = json.loads(line)
            if root is None:
                key, root, files, size, held = _build(request["image"], request["hidden"])
                _lock_in_memory(root)
            answer = {"root": str(root), "files": files, "bytes": size}
        except (OSError, ImageError, ValueError, KeyError) as e:
            answer = {"error": str(e)}
        print(json.dumps(answer), flush=True)
    if root is None:
        return 0
    try:  # the last arena to use the image keeps it a while for the next run, then removes it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another arena holds it: it will do this when it ends
    fcntl.flock(held, fcntl.LOCK_SH)
    time.sleep(LINGER_S)
    os.close(held)
    _remove(ROOT, key)
    return 0


if __name__ == "__main__":
    sys.exit(_main())
