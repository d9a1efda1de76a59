"""A participant's pages in the browser (issue 22 item 3): log in with the token, upload a
version, follow its status, read its own logs.

- ``GET /login`` a form for the token; ``POST /login`` checks it (a participant's live token)
  and opens a **session**: a random id (256 bits) in the cookie ``arena_session`` — ``HttpOnly``
  (no script reads it), ``SameSite=Strict`` (no other site's page sends it), ``Secure`` when
  served over https, ``Path=/`` — kept in this process's memory for :data:`SESSION_S` seconds,
  with the SHA-256 of the token it was opened with: a revoked or rotated token ends it.
- ``GET /me``: the participant's versions (status, ladder Elo, reason), its faults on the
  ladder, its quota, and an upload form; ``POST /me/versions`` takes the archive as the body
  (``application/gzip``, sent by the page's script) and answers as ``POST /api/v1/versions``
  does; ``GET /me/versions/{id}/logs``: its own bot's output; ``POST /logout``.
- **CSRF**: every POST of a session needs its CSRF token (a second random value, in the page),
  in the ``X-CSRF-Token`` header or the form's ``csrf`` field, besides the ``SameSite=Strict``
  cookie; compared in constant time. ``POST /login`` and ``/logout`` are refused from another
  site's page (``Sec-Fetch-Site``, ``Origin``: login CSRF would put a visitor in the attacker's
  session), and read at most :data:`FORM_BYTES` of body.

A server restart ends every session (log in again). The API (``/api/v1``) takes tokens only,
never the cookie.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from ..store import Participant
from . import policy
from .api import ApiError, _own_version, _with_ladder, quota, receive_upload
from .hub import Hub
from .intake import own_logs

__all__ = ["COOKIE", "SESSION_S", "mount_pages"]

#: The session cookie's name.
COOKIE = "arena_session"
#: How long a session lasts, seconds (12 hours).
SESSION_S = 12 * 3600
_TEMPLATES = Jinja2Templates(directory=str(Path(__file__).resolve().parents[1] / "web" / "templates"))


@dataclass(frozen=True)
class Session:
    participant: str
    token_hash: str
    csrf: str
    expires: float  # time.monotonic()


def _sessions(hub: Hub) -> dict[str, Session]:
    return hub.sessions


def _who(request: Request, hub: Hub) -> tuple[Participant, Session] | None:
    """The participant of the request's live session, or None (no cookie, expired, token revoked)."""
    sid = request.cookies.get(COOKIE)
    sessions = _sessions(hub)
    session = sessions.get(sid) if sid else None
    if session is None or session.expires < time.monotonic():
        sessions.pop(sid, None)
        return None
    who = hub.run(lambda s: s.participant_by_token_hash(hub.competition, session.token_hash))
    if who is None or who.name != session.participant:
        sessions.pop(sid, None)
        return None
    return who, session


#: The largest body ``POST /login`` and ``POST /logout`` read, bytes (a token is ~47).
FORM_BYTES = 4096


async def _form(request: Request) -> dict[str, list[str]] | None:
    """The request's url-encoded form, or None when its body is over :data:`FORM_BYTES`."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BYTES:
            return None
    return parse_qs(body.decode("utf-8", "replace"))


def _same_site(request: Request) -> bool:
    """Whether a browser sent the request from this site's own pages, so that a page of another
    site cannot log a visitor in or out (login CSRF). ``Sec-Fetch-Site``, which current browsers
    send over https and to localhost, decides: ``same-origin`` or ``none`` (typed, a bookmark).
    Without it, ``Origin`` must name this host: the pages' ``same-origin`` referrer policy makes a
    browser send it on their own forms, and ``null`` (another site's no-referrer page, a sandboxed
    frame) is refused. No ``Origin`` at all (no browser: a script, ``curl``) is let through: it
    carries no visitor's cookie."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site in ("same-origin", "none")
    origin = request.headers.get("origin")  # its host only: behind a TLS proxy the scheme differs
    return origin is None or urlsplit(origin).netloc == request.headers.get("host", "")


def _csrf_ok(session: Session, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(session.csrf.encode(), given.encode())


def _page(request: Request, hub: Hub, name: str, status: int = 200, **context) -> HTMLResponse:
    return _TEMPLATES.TemplateResponse(request, name, {"db": str(hub.db), "competition": hub.competition, **context},
                                       status_code=status)


def mount_pages(app: FastAPI, hub: Hub) -> FastAPI:
    """Add the participant's pages (module docstring) to the competition server's application."""

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_form(request: Request):
        return _page(request, hub, "login.html")

    @app.post("/login", include_in_schema=False)
    async def login(request: Request):
        if not _same_site(request):
            return _page(request, hub, "login.html", status=403, error="a login from another site's page is refused: "
                         "open this server's /login yourself")
        form = await _form(request)
        if form is None:
            return _page(request, hub, "login.html", status=413, error="that is no token (too long)")
        token = (form.get("token") or [""])[0].strip()
        digest = policy.token_hash(token)
        who = hub.run(lambda s: s.participant_by_token_hash(hub.competition, digest)) if token else None
        if who is None or who.scope != "participant":
            why = ("an admin token enters no bots: log in with a participant's" if who is not None else
                   "that token is wrong or revoked: ask the organiser for a new one")
            return _page(request, hub, "login.html", status=401, error=why)
        sessions, now = _sessions(hub), time.monotonic()
        for old in [k for k, v in sessions.items() if v.expires < now]:  # ended ones go as new ones come
            sessions.pop(old, None)
        sid = secrets.token_urlsafe(32)
        sessions[sid] = Session(who.name, digest, secrets.token_urlsafe(32), time.monotonic() + SESSION_S)
        r = RedirectResponse("/me", status_code=303)
        r.set_cookie(COOKIE, sid, max_age=SESSION_S, path="/", httponly=True, samesite="strict",
                     secure=request.url.scheme == "https")
        return r

    @app.post("/logout", include_in_schema=False)
    async def logout(request: Request):
        found = _who(request, hub)
        form = await _form(request) if _same_site(request) else None
        if found is None or form is None or not _csrf_ok(found[1], (form.get("csrf") or [None])[0]):
            return RedirectResponse("/me", status_code=303)  # another site's logout: nothing ends
        _sessions(hub).pop(request.cookies.get(COOKIE), None)
        r = RedirectResponse("/login", status_code=303)
        r.delete_cookie(COOKIE, path="/")
        return r

    @app.get("/me", response_class=HTMLResponse, include_in_schema=False)
    def me(request: Request):
        found = _who(request, hub)
        if found is None:
            return RedirectResponse("/login", status_code=303)
        who, session = found
        versions = hub.run(lambda s: _with_ladder(s, hub.competition, s.versions(hub.competition, who.name)))
        return _page(request, hub, "me.html", who=who, csrf=session.csrf, versions=versions,
                     quota=quota(hub, who), faults=[(v["id"], f) for v in versions for f in v["ladder"]["faults"]])

    @app.post("/me/versions", include_in_schema=False)
    async def upload(request: Request) -> Response:
        found = _who(request, hub)
        if found is None:
            return JSONResponse({"detail": "not logged in (or the session ended): log in again"}, status_code=401)
        who, session = found
        if not _csrf_ok(session, request.headers.get("x-csrf-token")):
            return JSONResponse({"detail": "a request without this page's CSRF token: reload the page"},
                                status_code=403)
        try:
            version, new = await receive_upload(request, hub, who)
        except ApiError as e:
            return JSONResponse({"detail": e.detail}, status_code=e.status, headers=e.headers)
        return JSONResponse(version.public(), status_code=201 if new else 200)

    @app.get("/me/versions/{version_id}/logs", response_class=HTMLResponse, include_in_schema=False)
    def logs(request: Request, version_id: int):
        found = _who(request, hub)
        if found is None:
            return RedirectResponse("/login", status_code=303)
        try:
            v = _own_version(hub, found[0], version_id)
        except ApiError as e:
            return _page(request, hub, "error.html", status=e.status, message=e.detail)
        return _page(request, hub, "version_logs.html", version=v, logs=own_logs(hub, v))

    return app
