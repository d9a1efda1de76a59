"""Playing a tournament on a Dask cluster (``arena tournament run NAME --cluster ADDRESS``).

The arena stays the only writer of DuckDB; Dask (``dask.distributed``) carries the
units of work (:class:`arena.play.executors.Unit`: a match, the boards of it still to
play) to its workers, and their board pairs back one by one through a Dask queue.
A worker plays a unit exactly as the arena's own workers do
(:func:`arena.play.executors.play_unit`): it starts the bots **locally**, in the same
sandbox (:mod:`referee.sandbox`; each worker machine needs it, as ``arena sandbox``
checks), decisions never leave the machine.

* **Bots travel as frozen copies keyed by content hash**: each entrant's frozen folder
  is packed once (:class:`BotArchive`), scattered to the cluster, unpacked on a worker
  into ``$TMPDIR/belote-arena-bots/<hash>`` and hashed again on arrival
  (:func:`referee.manifest.content_hash`): a copy that does not match is refused, and
  the referee hashes it again before every start of a bot, as at home.
* **Lost units are re-run**: when a worker dies, Dask gives its units to another
  worker (up to its ``allowed-failures``, 3 by default); the store skips a board pair
  already stored (a unit played again).
* **No entrant in two units at once**: units are handed out by the arena's
  :class:`arena.play.executors.Dispatcher`, as on a local executor (issue 19 item 1).
* **Ctrl-C** sets a Dask ``Event`` that running units read before each board of a table.

``local:N`` starts a ``LocalCluster`` of N worker processes (one thread each) on this
machine: for tests, and a one-machine run without setting up a scheduler.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import tarfile
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from referee.manifest import bot_files, content_hash, load_manifest
from referee.match import Entrant
from referee.records import BoardPairResult

from .executors import Dispatcher, Item, Unit, Work, play_unit

#: A unit the cluster cancels (its inputs lost with their workers) is submitted again this many times.
RESUBMITS = 3


class ClusterError(RuntimeError):
    """The cluster cannot be used (unreachable scheduler, dask not installed); the message says why."""


@dataclass(frozen=True)
class BotArchive:
    """A bot's frozen copy as it travels to workers: its content hash and a tar of its files
    (:func:`referee.manifest.bot_files`: what the hash covers, and only that)."""

    content_hash: str
    data: bytes

    @classmethod
    def pack(cls, folder: Path, digest: str) -> BotArchive:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for p in bot_files(folder):
                tar.add(p, arcname=p.relative_to(folder).as_posix(), recursive=False)
        return cls(digest, buf.getvalue())

    def unpack(self, root: Path | None = None) -> Path:
        """The copy on this machine, ``ROOT/<hash>`` (default ``$TMPDIR/belote-arena-bots``),
        unpacked once and hashed on arrival.

        Raises:
            ClusterError: the unpacked files do not have the announced content hash.
        """
        root = root or Path(tempfile.gettempdir()) / "belote-arena-bots"
        root.mkdir(mode=0o755, parents=True, exist_ok=True)
        folder = root / self.content_hash
        if folder.is_dir():
            return folder  # the referee hashes it again before every start of a bot
        partial = Path(tempfile.mkdtemp(prefix=f"{self.content_hash[:12]}-", suffix=".partial", dir=root))
        try:
            os.chmod(partial, 0o755)  # the sandboxed bot's uid reads it
            with tarfile.open(fileobj=io.BytesIO(self.data)) as tar:
                tar.extractall(partial, filter="data")
            got = content_hash(partial)
            if got != self.content_hash:
                raise ClusterError(f"a bot's frozen copy arrived changed (content hash {got[:12]}, "
                                   f"announced {self.content_hash[:12]}): refused")
            try:
                partial.rename(folder)
            except OSError:  # another worker thread unpacked it first
                if not folder.is_dir():
                    raise
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        return folder


def _local_entrant(entrant: Entrant, archive: BotArchive) -> Entrant:
    folder = archive.unpack()
    return replace(entrant, manifest=load_manifest(folder), content_hash=archive.content_hash)


def _cluster_unit(work: Work, unit: Unit, archive_a: BotArchive, archive_b: BotArchive,
                  stop_event: str, results_queue: str) -> int:
    """Run on a Dask worker: play ``unit`` with bots from the shipped copies, putting each
    board pair on the arena's results queue as it finishes (nothing is kept: a match of any
    length holds one board pair at a time); return how many were put."""
    from distributed import Event, Queue

    stop = Event(stop_event)
    results = Queue(results_queue)
    unit = replace(unit, a=_local_entrant(unit.a, archive_a), b=_local_entrant(unit.b, archive_b))
    return play_unit(work, unit, lambda mid, r: results.put((unit.number, mid, r)), stop.is_set)


class DaskExecutor:
    """An :class:`arena.play.executors.Executor` on a Dask cluster.

    Args:
        address: the scheduler, ``tcp://HOST:8786`` or ``tls://HOST:8786`` (any address
            ``distributed.Client`` takes), or ``local:N`` for a ``LocalCluster`` of N worker
            processes here (``local-tls:N``: the same over TLS with throwaway credentials).
        store: unused (the arena alone writes); accepted so the CLI can pass it uniformly.
        security: a ``distributed.security.Security`` (TLS credentials: :func:`tls_security`).

    Raises:
        ClusterError: dask is not installed, ``local:N`` is malformed, or the scheduler
            cannot be reached within 10 s.
    """

    def __init__(self, address: str, store=None, *, timeout_s: float = 10.0, security=None):
        try:
            from distributed import Client, Event, LocalCluster, Queue
        except ImportError:
            raise ClusterError("--cluster needs Dask: pip install 'dask[distributed]'") from None
        self.on_workers: Callable[[str], None] | None = None
        self._cluster = None
        if address.startswith(("local:", "local-tls:")):
            try:
                n = int(address.split(":", 1)[1])
                if n < 1:
                    raise ValueError
            except ValueError:
                raise ClusterError(f"--cluster {address}: write local:N with N ≥ 1 worker processes") from None
            tls = {}
            if address.startswith("local-tls:"):  # a LocalCluster speaking TLS with throwaway credentials
                from distributed.security import Security

                security = Security.temporary()
                tls = {"protocol": "tls://", "security": security}
            # Ctrl-C at a terminal goes to the whole process group: the workers leave it to the
            # arena (which stops after the board pairs in flight) — an ignored SIGINT is inherited
            in_main = threading.current_thread() is threading.main_thread()
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
            try:
                self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                             dashboard_address=None, **tls)
            finally:
                if in_main:
                    signal.signal(signal.SIGINT, previous)
            self.client = Client(self._cluster, security=security)
        else:
            try:
                self.client = Client(address, timeout=timeout_s, security=security)
            except (OSError, TimeoutError, ValueError) as e:
                raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e}") from None
        self.address = address
        self._stop_name = f"belote-arena-stop-{uuid.uuid4().hex}"
        self._stop = Event(self._stop_name, client=self.client)
        self._stop.clear()
        self._queue_name = f"belote-arena-results-{uuid.uuid4().hex}"
        self._queue = Queue(self._queue_name, client=self.client)  # board pairs, as units play them
        self._expected: dict[int, int] = {}  # unit number -> board pairs its last attempt put
        self._received: dict[int, set[int]] = {}  # unit number -> boards received (a re-run puts some twice)
        self._archives: dict[str, object] = {}  # content hash -> the scattered BotArchive's future
        self._pending: list = []
        self._unit_of: dict[str, tuple[Unit, int]] = {}  # a pending future's key -> (its unit, attempt)
        self._units: Dispatcher | None = None
        self._stopping = False
        self._errors: list[str] = []
        self._n_workers = self.workers()
        self._next_look = 0.0  # when to count the workers again (the progress display)
        self.description = self._describe()

    def workers(self) -> int:
        """The cluster's workers now."""
        return len(self.client.nthreads())

    @property
    def slots(self) -> int:
        """Units played at once: the workers' threads."""
        return max(1, sum(self.client.nthreads().values()))

    def _describe(self) -> str:
        n = self.workers()
        where = "a local Dask cluster" if self._cluster is not None else f"Dask {self.address}"
        return f"{where}: {n} worker{'s' if n != 1 else ''}"

    def _archive(self, entrant: Entrant):
        digest = entrant.content_hash or content_hash(entrant.manifest.folder)
        fut = self._archives.get(digest)
        if fut is None:
            # on every worker now (a worker that joins later gets it from another)
            fut = self._archives[digest] = self.client.scatter(
                BotArchive.pack(Path(entrant.manifest.folder), digest), hash=False, broadcast=True)
        return fut

    def start(self, work: Work, units: Dispatcher) -> None:
        self._work, self._units = work, units
        self._top_up()

    def _top_up(self) -> None:
        limit = max(1, self.slots)
        while not self._stopping and self._units is not None and len(self._pending) < limit:
            unit = self._units.take()
            if unit is None:
                return
            self._submit(unit)

    def _submit(self, unit: Unit, attempt: int = 0) -> None:
        f = self.client.submit(
            _cluster_unit, self._work, unit, self._archive(unit.a), self._archive(unit.b), self._stop_name,
            self._queue_name, key=f"belote-unit-{self._stop_name[-8:]}-{unit.number}-{attempt}", pure=False)
        self._unit_of[f.key] = (unit, attempt)
        self._pending.append(f)

    def results(self, timeout: float) -> list[Item]:
        from distributed import wait

        out: list[Item] = []
        for number, mid, result in self._queue.get(batch=True):
            self._received.setdefault(number, set()).add(result.board)
            out.append((mid, result))
        if self._pending and not out:
            try:
                wait(self._pending, timeout=timeout, return_when="FIRST_COMPLETED")
            except TimeoutError:
                pass
            except Exception:  # noqa: BLE001 - e.g. a future cancelled: each is looked at below
                pass
        for f in [f for f in self._pending if f.done()]:
            self._pending.remove(f)
            unit, attempt = self._unit_of.pop(f.key)
            if f.status == "finished":
                self._expected[unit.number] = f.result()
                self._units.release(unit.number)
            elif f.status == "cancelled":
                if self._stopping:
                    self._units.release(unit.number)
                elif attempt < RESUBMITS:  # e.g. every worker holding a bot's copy died: ship it again
                    self._archives.clear()
                    self._submit(unit, attempt + 1)  # still holding its entrants
                else:
                    self._units.release(unit.number)
                    self._errors.append(f"unit {f.key} was cancelled by the cluster {attempt + 1} times "
                                        "(lost workers?): run again to play what is missing")
            else:
                self._units.release(unit.number)
                error = f"unit {f.key}: {f.exception()!r}"
                if error not in self._errors:
                    self._errors.append(error)
        self._top_up()
        if time.monotonic() < self._next_look:
            return out
        self._next_look = time.monotonic() + 1.0
        n = self.workers()
        if n != self._n_workers:
            self._n_workers = n
            self.description = self._describe()
            if self.on_workers:
                self.on_workers(self.description)
        return out

    def finished(self) -> bool:
        """Every unit is done and every board pair it put on the queue was taken from it."""
        if self._pending or not (self._units is None or self._units.exhausted or self._stopping):
            return False
        return all(len(self._received.get(n, ())) >= c for n, c in self._expected.items())

    def stop(self) -> None:
        """No new unit; running units stop at once, dropping the block in flight (units not
        yet started see the stop at once and play nothing)."""
        self._stopping = True
        self._stop.set()

    def close(self) -> list[str]:
        """Cancel what is left, close the client (and a local cluster); idempotent."""
        self._stopping = True
        if self.client.status in ("closing", "closed"):
            return self._errors
        for f in self._pending:
            f.cancel()
        try:
            self._stop.clear()
        except Exception:  # noqa: BLE001 - a cluster already gone
            pass
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()
        return self._errors


def tls_security(ca_file: Path, cert_file: Path, key_file: Path):
    """The ``distributed.security.Security`` of a client that talks to its scheduler over TLS
    only: the cluster's CA (``ca_file``) and this client's certificate and key (PEM files).

    Raises:
        ClusterError: Dask is missing, or a file cannot be read (the message names it).
    """
    for path in (ca_file, cert_file, key_file):
        if not Path(path).is_file():
            raise ClusterError(f"no TLS file at {path}: give the cluster's CA, and this server's certificate and key "
                               "(PEM), as its scheduler and workers were started with")
    try:
        from distributed.security import Security
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install 'dask[distributed]'") from None
    return Security(tls_ca_file=str(ca_file), tls_client_cert=str(cert_file), tls_client_key=str(key_file),
                    require_encryption=True)


def play_unit_on(executor: DaskExecutor, work: Work, unit: Unit, emit: Callable[[str, BoardPairResult], None],
                 stopped: Callable[[], bool]) -> None:
    """Play one unit on the cluster as :func:`arena.play.executors.play_unit` plays it here:
    each board pair handed to ``emit`` as it arrives; once ``stopped()``, the unit stops.

    Raises:
        ClusterError: the cluster failed the unit (a lost worker past its retries, an error).
    """
    before = len(executor._errors)
    executor.start(work, Dispatcher([unit]))
    while not executor.finished():
        if stopped():
            executor.stop()
        for mid, result in executor.results(0.5):
            emit(mid, result)
    if len(executor._errors) > before:
        raise ClusterError("; ".join(executor._errors[before:]))
