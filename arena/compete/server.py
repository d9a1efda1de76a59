"""``arena compete serve``: the competition's one long-running process.

It takes the database's run lock (``<database>.run-lock``: no ``arena tournament run`` writes
beside it, and a second server is refused with the first one's pid), opens the database for
writing for its whole life (:class:`arena.compete.hub.Hub`: the only writer), starts the intake
(:class:`arena.compete.intake.Intake`, ``workers`` threads; pending uploads of an earlier run
first) and the ladder (:class:`arena.compete.ladder.Ladder`, ``ladder_workers`` threads; units
left playing by an earlier run first), and serves today's pages (:func:`arena.web.create_app`, reading through the server's own
connection) plus the API under ``/api/v1`` (:mod:`arena.compete.api`) with uvicorn, over TLS
when given a certificate and key, each connection held to the bounds of
:mod:`arena.compete.connections` (slow and stalled clients cut off, connections capped).
"""

from __future__ import annotations

import logging
import re
import ssl
from collections.abc import Callable
from pathlib import Path

from referee.sandbox import Limits

from ..store import SERVER_LOCK_PREFIX, RunLock, StoreError
from ..web import bind, create_app, is_loopback
from . import api
from .challenge import DEFAULT_PER_DAY
from .connections import ConnectionLimits, protocol
from .hub import Hub
from .intake import Intake
from .ladder import Ladder
from .pages import mount_pages

__all__ = ["build", "serve", "tls_problem"]


def build(db: Path, competition: str, *, limits: Limits, workers: int = 1, allowed_hosts: list[str] | None = None,
          ladder_workers: int = 1, challenges_per_day: int = DEFAULT_PER_DAY, cluster: str | None = None,
          security=None):
    """``(app, hub, intake, ladder)`` for ``competition`` in ``db``: the application (pages and
    ``/api/v1``), the open store, the intake and the ladder (neither started).

    Raises:
        StoreError: the database cannot be opened, or holds no such competition.
    """
    hub = Hub(db, competition)
    try:
        if hub.run(lambda s: s.get_competition(competition)) is None:
            raise StoreError(f"no competition {competition!r} in {db}: create it with "
                             f"`arena compete create {competition} --ruleset R --db {db}`")
    except BaseException:
        hub.close()
        raise
    hub.challenges_per_day = challenges_per_day
    app = create_app(db, allowed_hosts=allowed_hosts, open_store=hub.reader)
    ladder = Ladder(hub, limits, workers=ladder_workers, cluster=cluster, security=security)
    hub.wake_ladder = ladder.wake.set  # a version turned active: the ladder looks at once
    api.mount(app, hub)
    mount_pages(app, hub)
    return app, hub, Intake(hub, limits, workers=workers), ladder


def serve(db: Path, competition: str, host: str = "127.0.0.1", port: int = 8000, *, limits: Limits,
          workers: int = 1, certfile: Path | None = None, keyfile: Path | None = None,
          announce: Callable[[str], None] = print, ladder_workers: int = 1,
          challenges_per_day: int = DEFAULT_PER_DAY, cluster: str | None = None, security=None,
          connections: ConnectionLimits = ConnectionLimits()) -> None:
    """Run the server until interrupted (Ctrl-C, SIGTERM); ``announce`` gets its URL once it listens.
    Its connections are held to ``connections`` (:mod:`arena.compete.connections`: a request
    head whole within 15 s, no body stalled 30 s, 64 connections an address, 512 in all).

    Raises:
        StoreError: another arena runs in this database, or it cannot be opened.
        ServeError: the address cannot be bound.
    """
    import uvicorn

    _log_to_stderr()
    lock = RunLock(db)
    lock.acquire(SERVER_LOCK_PREFIX + competition)  # other processes' opens refused at once (held_by_server)
    try:
        app, hub, intake, ladder = build(db, competition, limits=limits, workers=workers,
                                         allowed_hosts=None if is_loopback(host) else ["*"],
                                         ladder_workers=ladder_workers, challenges_per_day=challenges_per_day,
                                         cluster=cluster, security=security)
        try:
            sock = bind(host, port)
            tls = certfile is not None
            # h11 held to the bounds of arena.compete.connections (red team 42: uvicorn's own
            # never times out a half-sent head or a stalled body); no WebSocket (none is served)
            config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False,
                                    http=protocol(connections), ws="none",
                                    ssl_certfile=str(certfile) if tls else None,
                                    ssl_keyfile=str(keyfile) if keyfile else None)
            server = uvicorn.Server(config)
            intake.start()
            if ladder_workers:
                ladder.start()
            shown = f"[{host}]" if ":" in host else host
            announce(f"{'https' if tls else 'http'}://{shown}:{sock.getsockname()[1]}/")
            try:
                server.run(sockets=[sock])
            finally:
                sock.close()
                intake.stop(timeout=1.0)
                ladder.stop(timeout=1.0)
        finally:
            hub.close()
    finally:
        lock.release()


class _Encrypted(Exception):
    """The private key asked for its password while being checked."""


def _ask_no_password():
    raise _Encrypted


def tls_problem(certfile: Path, keyfile: Path) -> str | None:
    """What is wrong with the certificate chain and private key the server would serve TLS with
    (:meth:`ssl.SSLContext.load_cert_chain`), in one line naming the file: missing, unreadable,
    no PEM certificate or key in it, the key not the certificate's; None when they load (or the
    key is encrypted: uvicorn asks for its password when it starts)."""
    for option, path, what, begin in (("--certfile", certfile, "certificate", rb"-----BEGIN [A-Z0-9 ]*CERTIFICATE-----"),
                                      ("--keyfile", keyfile, "private key", rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")):
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            return f"{option} {path}: no such file; give the PEM file of the TLS {what}"
        except IsADirectoryError:
            return f"{option} {path} is a folder; give the PEM file of the TLS {what}"
        except OSError as e:
            return f"{option} {path} cannot be read ({e.strerror or e}); give a PEM file this user can read"
        if not re.search(begin, data):
            return (f"{option} {path} holds no PEM {what} (no '-----BEGIN … {what.upper()}-----' line): give the "
                    f"TLS {what} in PEM form")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(certfile, keyfile, password=_ask_no_password)
    except _Encrypted:
        return None
    except ssl.SSLError as e:
        if e.reason == "KEY_VALUES_MISMATCH":
            return (f"--keyfile {keyfile} does not match the certificate of --certfile {certfile}: give the private "
                    "key the certificate was issued for")
        return (f"--certfile {certfile} and --keyfile {keyfile} cannot be loaded ({e.reason or e}): give a PEM "
                "certificate chain and its private key, unbroken")
    return None


def _log_to_stderr() -> None:
    """The intake's log (each version settled, failures of the server's with their traceback) on
    stderr, unless logging is set up already."""
    logger = logging.getLogger("arena.compete")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False  # uvicorn may give the root logger a handler too
