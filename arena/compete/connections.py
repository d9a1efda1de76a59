"""What the competition server allows a connection (red team 42): time to send its request
head, time between the bytes of its body, and how many connections are open at once.

uvicorn (0.55) times out neither a request head that is half sent nor a body that stalls, and
takes any number of connections: red team 42 held 1,100 to 10,300 idle connections to the
server (its descriptors ran out and the API timed out). :func:`protocol` makes a subclass of
uvicorn's ``H11Protocol`` (``uvicorn.Config(http=...)``) that

- answers **408** and closes a connection whose request head (request line and headers) is not
  whole :data:`HEAD_TIMEOUT_S` after the connection opened or after its previous response ended
  (trickling bytes does not extend it);
- answers **408** and closes a connection whose request body gets no byte for
  :data:`BODY_STALL_S` while the server waits for one (not while the application is busy and
  has not asked for more: that is the server's delay, not the client's);
- answers **503** and closes at once a connection past :data:`MAX_CONNECTIONS_PER_CLIENT` open
  from one address, or past :data:`MAX_CONNECTIONS` in all.

A TLS handshake is bounded by asyncio's own timeout (60 s) before any of this starts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BODY_STALL_S", "ConnectionLimits", "HEAD_TIMEOUT_S", "MAX_CONNECTIONS", "MAX_CONNECTIONS_PER_CLIENT",
           "protocol"]

#: Seconds a request head (request line and headers) may take to arrive whole, counted from the
#: connection's opening or its previous response's end; then 408 and the connection closed
#: (a head is a few hundred bytes: a client on any link sends it in well under a second).
HEAD_TIMEOUT_S = 15.0
#: Seconds a request body may go without a byte arriving while the server waits for one; then
#: 408 and the connection closed (an upload on a slow link keeps sending; a stalled one ends).
BODY_STALL_S = 30.0
#: Connections open at once from one client address; the next is answered 503 and closed at
#: once (a browser opens about 6; a room of participants behind one address fits).
MAX_CONNECTIONS_PER_CLIENT = 64
#: Connections open at once in all; the next is answered 503 and closed at once (well under the
#: process's usual limit of 1,024 descriptors, beside the database, bots and logs).
MAX_CONNECTIONS = 512


@dataclass(frozen=True)
class ConnectionLimits:
    """The bounds a server's connections are held to (the module's constants by default)."""

    head_s: float = HEAD_TIMEOUT_S
    body_stall_s: float = BODY_STALL_S
    per_client: int = MAX_CONNECTIONS_PER_CLIENT
    total: int = MAX_CONNECTIONS


def _answer(status: int, reason: str, text: str) -> bytes:
    body = (text + "\n").encode()
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


def protocol(limits: ConnectionLimits = ConnectionLimits()) -> type[H11Protocol]:
    """uvicorn's ``H11Protocol`` held to ``limits`` (module docstring); one class per server:
    it counts that server's connections."""
    open_by_client: Counter[str] = Counter()

    class Guarded(H11Protocol):
        _client_key: str | None = None  # the address counted for this connection (None: refused)
        _timer = None
        _phase: str | None = None  # "head" or "body": what the timer waits for

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            key = self.client[0] if self.client else ""  # a Unix socket: no address
            if open_by_client[key] >= limits.per_client:
                return self._refuse(_answer(503, "Service Unavailable", f"more than {limits.per_client} "
                                            "connections open from your address: close some"))
            if open_by_client.total() >= limits.total:
                return self._refuse(_answer(503, "Service Unavailable", f"the server has {limits.total} "
                                            "connections open, its most: try again in a minute"))
            open_by_client[key] += 1
            self._client_key = key
            self._watch()

        def connection_lost(self, exc) -> None:
            self._stop_timer()
            if self._client_key is not None:
                open_by_client[self._client_key] -= 1
                if open_by_client[self._client_key] <= 0:
                    del open_by_client[self._client_key]
                self._client_key = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch(progress=True)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def _watch(self, progress: bool = False) -> None:
            """(Re)arm the timer for what the connection waits for now: a head (from when it
            began waiting for it), a body's next byte (from the last one), or nothing."""
            if self._client_key is None or self.transport.is_closing():
                return self._stop_timer()
            state = self.conn.their_state
            if state is h11.IDLE:
                if self._phase != "head":
                    self._start_timer("head", limits.head_s)
            elif state is h11.SEND_BODY:
                if self._phase != "body" or progress:
                    self._start_timer("body", limits.body_stall_s)
            else:  # the request is whole: the application's time, not the client's
                self._stop_timer()

        def _start_timer(self, phase: str, seconds: float) -> None:
            self._stop_timer()
            self._phase = phase
            self._timer = self.loop.call_later(seconds, self._late)

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._timer, self._phase = None, None

        def _late(self) -> None:
            phase, self._timer = self._phase, None
            if self.transport.is_closing():
                return
            if phase == "body":
                waiting = self.flow.read_paused or (self.cycle is not None and self.cycle.waiting_for_100_continue)
                if waiting:  # the application has not asked for more yet: not a stall of the client's
                    return self._start_timer("body", limits.body_stall_s)
                started = self.cycle is not None and self.cycle.response_started
                self._refuse(b"" if started else _answer(
                    408, "Request Timeout", f"no byte of the request body for {limits.body_stall_s:g} s"))
            else:
                self._refuse(_answer(408, "Request Timeout", f"the request head was not whole within "
                                     f"{limits.head_s:g} s"))

        def _refuse(self, answer: bytes) -> None:
            """Send ``answer`` if it fits the socket's buffer at once, and close the connection
            (abort it when the client reads nothing: a close would wait for it)."""
            self._stop_timer()
            if answer:
                self.transport.write(answer)
            if self.transport.get_write_buffer_size():
                self.transport.abort()
            else:
                self.transport.close()

    return Guarded
