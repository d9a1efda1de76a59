"""``arena serve``: the competition in a web browser, read-only.

:func:`create_app` builds the application (:mod:`arena.web.app`); :func:`serve`
runs it with uvicorn on a socket it binds first, so a port in use or a host
that cannot be bound is an error message, not a traceback. Pages and their
JSON twins are built by :mod:`arena.web.views` from the same service
functions as the CLI.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from pathlib import Path

__all__ = ["ServeError", "create_app", "is_loopback", "serve"]


class ServeError(OSError):
    """The server cannot start: the address cannot be bound (the message says why)."""


def create_app(db: str | Path, **kwargs):
    """See :func:`arena.web.app.create_app` (imported lazily: FastAPI loads in ~0.3 s)."""
    from .app import create_app as make

    return make(db, **kwargs)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: one the system picks).

    Raises:
        ServeError: the address is in use, not this machine's, or not an address.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise ServeError(f"cannot resolve the host {host!r}: {e.strerror}: pass --host 127.0.0.1") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        hint = "another program listens there: pass another --port (or --port 0 for any free one)" \
            if e.errno == 98 else "pass another --host or --port"
        raise ServeError(f"cannot listen on {host}:{port}: {e.strerror or e}: {hint}") from None
    sock.set_inheritable(True)
    return sock


def serve(db: str | Path, host: str = "127.0.0.1", port: int = 8000, *,
          announce: Callable[[str], None] = print) -> None:
    """Serve the results in ``db`` on ``host:port`` until interrupted (Ctrl-C).

    ``announce`` is called with the server's URL once it listens (with ``port`` 0,
    the port the system picked).

    Raises:
        ServeError: the address cannot be bound.
    """
    import uvicorn

    sock = bind(host, port)
    shown = f"[{host}]" if ":" in host else host
    app = create_app(db, allowed_hosts=None if is_loopback(host) else ["*"])
    config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False)
    server = uvicorn.Server(config)
    announce(f"http://{shown}:{sock.getsockname()[1]}/")
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
