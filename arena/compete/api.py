"""The competition's authenticated API under ``/api/v1`` (in the OpenAPI of ``/api/openapi.json``).

Every route needs ``Authorization: Bearer <token>`` (``arena compete participant add`` issues
tokens). Answers, as JSON ``{"detail": why}`` when refused:

- **401** a missing, wrong or revoked token (``WWW-Authenticate: Bearer``);
- **403** a route of the other scope (an admin route with a participant's token, an upload with
  an admin's);
- **404** what does not exist *or is another participant's* (the same answer: nobody learns
  which ids others hold);
- **413** an upload over the competition's ``archive_mib``; **422** an archive refused (the
  reason: :mod:`arena.compete.archive`); **409** uploads to a closed competition;
- **429** the upload quota spent (``uploads_per_day`` in any 24 hours), with ``Retry-After``
  (seconds) and the time in the message; or an upload while another of the same participant's
  is still being received (one at a time each).

Routes: ``GET /api/v1/ladder`` (public, no token: the ladder's and the final's standings);
``GET /api/v1/me``; ``PUT /api/v1/final`` (the version that enters the final); ``POST
/api/v1/challenges``, ``GET /api/v1/challenges[/{id}]`` (unrated matches, a participant's own); ``POST /api/v1/versions`` (the body: the ``.tar.gz``, as
``application/gzip``; 201 with the new version, 200 with the earlier one when the same bytes were
uploaded before); ``GET /api/v1/versions``, ``GET /api/v1/versions/{id}``, ``GET
/api/v1/versions/{id}/logs[?block=N]`` (a participant's own; an admin's: every version, no logs); admin:
``GET /api/v1/participants``, ``POST /api/v1/participants``, ``POST
/api/v1/participants/{name}/revoke``, ``POST /api/v1/participants/{name}/rotate``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Path as PathParam, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.requests import ClientDisconnect

from ..store import Participant, StoreError, Version
from ..store.compete import day_ago
from ..store.model import _now
from . import challenge, final, policy
from .archive import ArchiveError, ArchiveLimits, check_archive
from .hub import Hub
from .intake import ladder_log_blocks, own_logs
from .ladder import ladder_report, version_ladder

__all__ = ["ApiError", "mount"]

_bearer = HTTPBearer(auto_error=False, description="a token of `arena compete participant add` (bat_…)")


class ApiError(Exception):
    """A refused request: HTTP ``status``, the ``detail`` shown, extra ``headers``."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers or {}


class Closing(BaseModel):
    boards: int = Field(64, ge=1, le=10_000, description="boards per pair of the final")
    choices: dict[str, int] = Field(default_factory=dict, description="participant → the version id it enters "
                                    "(default: its latest active version)")


class NewParticipant(BaseModel):
    name: str = Field(description="1 to 64 letters, digits, '-', '_' or '.'")
    admin: bool = Field(False, description="an admin token (manages participants) instead of a participant's")


def _hub(request: Request) -> Hub:
    return request.app.state.hub


def _caller(request: Request, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Participant:
    """The participant or admin whose live token the request carries, else a 401."""
    hub = _hub(request)
    if creds is None or creds.scheme.lower() != "bearer":
        raise ApiError(401, "no token: send `Authorization: Bearer TOKEN` (`arena remote login` keeps one)",
                       {"WWW-Authenticate": "Bearer"})
    digest = policy.token_hash(creds.credentials)
    who = hub.run(lambda s: s.participant_by_token_hash(hub.competition, digest))
    if who is None:
        raise ApiError(401, "the token is wrong or revoked: ask the organiser for a new one",
                       {"WWW-Authenticate": "Bearer"})
    return who


Caller = Annotated[Participant, Depends(_caller)]
VersionId = Annotated[int, PathParam(ge=1, description="a version's id (`arena remote status` lists them)")]
ChallengeId = Annotated[int, PathParam(ge=1, description="a challenge's id (`arena remote challenges` lists them)")]


def _participant(who: Participant) -> Participant:
    if who.scope != "participant":
        raise ApiError(403, "an admin token enters no bots: add a participant (`arena compete participant add`)")
    return who


def _admin(who: Participant) -> Participant:
    if who.scope != "admin":
        raise ApiError(403, "this needs an admin token (`arena compete participant add NAME --admin`)")
    return who


def _own_version(hub: Hub, who: Participant, version_id: int) -> Version:
    v = hub.run(lambda s: s.get_version(version_id))
    if v is None or v.competition != hub.competition or (who.scope != "admin" and v.participant != who.name):
        raise ApiError(404, f"no version {version_id} of yours: `arena remote status` lists your versions")
    return v


def quota(hub: Hub, who: Participant, store=None) -> dict:
    """The participant's upload quota: ``per_day``, ``used`` (in the last 24 hours), ``left``,
    ``retry_after_s`` (seconds until one is free again; 0 when one is left)."""
    def work(s):
        c = s.get_competition(hub.competition)
        now = _now()
        return policy.quota(s.uploads_since(hub.competition, who.name, day_ago(now)), c.policy["uploads_per_day"], now)

    return work(store) if store is not None else hub.run(work)


def closed_refusal(competition: str) -> str:
    """Why an upload to a closed competition is refused (409)."""
    return f"competition {competition!r} is closed: it takes no uploads"


def _store_upload(hub: Hub, who: Participant, spool: Path, size: int, digest: str) -> tuple[Version, bool]:
    """Under the store's lock: the earlier version of these bytes, or (quota allowing) the
    archive moved from ``spool`` and a new ``queued`` version; ``(version, new)``. A competition closed
    while the body was read refuses it here (409), as one closed before: the status is read
    under the same lock ``close`` writes it under (red team 42: an upload whose last byte came
    after ``close`` got 201, and its version turned active)."""
    def work(s):
        c = s.get_competition(hub.competition)
        if c.status != "open":
            raise ApiError(409, closed_refusal(c.name))
        old = s.find_upload(hub.competition, who.name, digest)
        if old is not None:
            return old, False
        q = quota(hub, who, s)
        if q["left"] == 0:
            raise ApiError(429, f"{q['used']} uploads in the last 24 hours, the competition's limit: the next is "
                           f"possible in {q['retry_after_s']} s", {"Retry-After": str(q["retry_after_s"])})
        path = hub.archives / f"{digest}.tar.gz"
        if not path.exists():
            os.replace(spool, path)  # the same file system: whole or not there
        return s.add_version(hub.competition, who.name, digest, size), True

    return hub.run(work)


def _admin_run(hub: Hub, work):
    """``hub.run(work)``, a refusal (a taken or bad name: 400; an unknown participant: 404) as an :class:`ApiError`."""
    try:
        return hub.run(work)
    except ValueError as e:  # StoreError too
        raise ApiError(404 if str(e).startswith("no participant") else 400, str(e)) from None


router = APIRouter(prefix="/api/v1", tags=["competition"])


@router.get("/me")
def me(request: Request, who: Caller) -> dict:
    """Who the token is (name, scope), the competition (ruleset, options, policy, status) and, for a
    participant, the upload quota, its choice for the final and, once the competition is closed,
    ``final``: the final's status and the participant's version in it (:func:`final.final_entry`)."""
    hub = _hub(request)
    c = hub.run(lambda s: s.get_competition(hub.competition))
    out = {"participant": who.name, "scope": who.scope, "competition": c.public()}
    if who.scope == "participant":
        out["quota"] = quota(hub, who)
        out["final_choice"] = hub.run(lambda s: s.final_choices(hub.competition)).get(who.name)
        out["final"] = hub.run(lambda s: final.final_entry(s, hub.competition, who.name))
    return out


class FinalChoice(BaseModel):
    version: int = Field(ge=1, description="one of your active versions: it enters the final when the "
                                           "competition closes (default: your latest active version)")


@router.put("/final")
def choose_final(request: Request, body: FinalChoice, who: Caller) -> dict:
    """Choose the version of yours that enters the final (``arena remote final VERSION``): one of
    your active versions, while the competition is open (404: not an active version of yours;
    409: the competition is closed). ``{"participant", "version"}``."""
    hub = _hub(request)
    _participant(who)
    v = _own_version(hub, who, body.version)
    try:
        hub.run(lambda s: s.choose_final(hub.competition, who.name, v.id))
    except StoreError as e:
        raise ApiError(409 if "is not open" in str(e) else 404, str(e)) from None
    return {"participant": who.name, "version": v.id}


@router.post("/versions", status_code=201, openapi_extra={"requestBody": {
    "required": True, "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}},
    "description": "the bot folder as a .tar.gz (`arena remote submit FOLDER` packs it)"}})
async def upload(request: Request, who: Caller) -> JSONResponse:
    """Upload a bot version: the archive is checked before anything is written (paths, links,
    special files, sizes, file count, compression ratio), stored, and queued for the intake.
    201 and the new version; 200 and the earlier version for bytes uploaded before."""
    version, new = await receive_upload(request, _hub(request), _participant(who))
    return JSONResponse(version.public(), status_code=201 if new else 200)


async def receive_upload(request: Request, hub: Hub, who: Participant) -> tuple[Version, bool]:
    """Read a request's body as an upload of ``who`` (the API's and the upload page's) into a
    file of ``hub.incoming`` (:func:`_spool`), one at a time for each participant: checked
    (:func:`arena.compete.archive.check_archive`), stored and queued; ``(version, new)``.

    Raises:
        ApiError: 409 a closed competition, 413 over the size cap, 422 a refused archive, 429 the
            quota or another upload of ``who``'s still being received, 400 a body cut short
            (the client went away, or stalled and was cut off: nobody reads that answer).
    """
    c = await run_in_threadpool(hub.run, lambda s: s.get_competition(hub.competition))
    if c.status != "open":
        raise ApiError(409, closed_refusal(c.name))
    if who.name in hub.uploading:  # red team 42: 4 stalled uploads held 4 x 60 MiB of the server's memory
        raise ApiError(429, "another upload of yours is still being received: a participant sends one at a time; "
                            "send this one once that one is answered")
    limits = ArchiveLimits.of(c.policy)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.compressed_bytes:
        raise ApiError(413, _too_big(limits))
    hub.uploading.add(who.name)
    spool = None
    try:
        fd, name = tempfile.mkstemp(prefix="upload-", suffix=".partial", dir=hub.incoming)
        spool = Path(name)
        size, digest = await _spool(request, fd, limits)
        try:
            await run_in_threadpool(check_archive, spool, limits)
        except ArchiveError as e:
            raise ApiError(422, str(e)) from None
        version, new = await run_in_threadpool(_store_upload, hub, who, spool, size, digest)
    finally:
        hub.uploading.discard(who.name)
        if spool is not None:
            spool.unlink(missing_ok=True)  # refused, cut short, or the same bytes stored before
    if new:
        hub.wake.set()
    return version, new


def _too_big(limits: ArchiveLimits) -> str:
    return (f"the upload is over {limits.compressed_bytes:,} bytes, the competition's cap: leave out what the bot "
            "does not need")


#: Bytes of an upload gathered in memory before they are written to its file (:func:`_spool`).
SPOOL_CHUNK = 1 << 20


async def _spool(request: Request, fd: int, limits: ArchiveLimits) -> tuple[int, str]:
    """Write the request's body to the open file ``fd`` (closed after) as it arrives, a
    :data:`SPOOL_CHUNK` at a time: ``(size, sha256 hex)``. Raises: ApiError 413 past the
    competition's cap, 400 the body cut short (a stalled one is cut off after
    :data:`arena.compete.connections.BODY_STALL_S`)."""
    digest, size, pending = hashlib.sha256(), 0, bytearray()

    def write(buf: bytearray) -> None:
        f.write(buf)
        digest.update(buf)

    with open(fd, "wb") as f:
        try:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limits.compressed_bytes:
                    raise ApiError(413, _too_big(limits))
                pending += chunk
                if len(pending) >= SPOOL_CHUNK:
                    buf, pending = pending, bytearray()
                    await run_in_threadpool(write, buf)
        except ClientDisconnect:  # no 500 and no traceback: the client went away, or was cut off
            raise ApiError(400, "the upload ended before its last byte: send it again") from None
        await run_in_threadpool(write, pending)
    return size, digest.hexdigest()


@router.get("/versions")
def versions(request: Request, who: Caller) -> list[dict]:
    """The caller's versions, oldest first (an admin: every participant's)."""
    hub = _hub(request)
    owner = None if who.scope == "admin" else who.name
    return hub.run(lambda s: _with_ladder(s, hub.competition, s.versions(hub.competition, owner)))


@router.get("/versions/{version_id}")
def version(request: Request, version_id: VersionId, who: Caller) -> dict:
    """One of the caller's versions: status, reason, validation summary, and ``ladder``: its
    rating there (``standing``, None before it played) and its newest faults (404 for another's)."""
    hub = _hub(request)
    v = _own_version(hub, who, version_id)
    return hub.run(lambda s: _with_ladder(s, hub.competition, [v]))[0]


def _with_ladder(store, competition: str, versions: list[Version]) -> list[dict]:
    ladder = version_ladder(store, competition, versions)
    return [{**v.public(), "ladder": ladder[v.id]} for v in versions]


@router.get("/versions/{version_id}/logs")
def logs(request: Request, version_id: VersionId, who: Caller,
         block: Annotated[int | None, Query(ge=0, description="a ladder block (default: the validation "
                                                               "and the newest ladder unit)")] = None) -> dict:
    """The output (stdout and stderr) of the caller's own bot, per process: in its validation
    matches and its newest ladder unit, or in ladder block ``block`` (``{"version", "status",
    "reason", "ladder_blocks": [blocks kept], "logs": {"FOLDER/FILE": text}}``, each the last 256
    KiB); readable by the version's owner only (404 for anyone else, and for a block not kept)."""
    hub = _hub(request)
    v = _own_version(hub, _participant(who), version_id)
    try:
        files = own_logs(hub, v, block)
    except KeyError as e:
        raise ApiError(404, e.args[0]) from None
    return {"version": v.id, "status": v.status, "reason": v.reason,
            "ladder_blocks": ladder_log_blocks(hub, v.id), "logs": files}


class ChallengeRequest(BaseModel):
    version: int = Field(ge=1, description="one of your active versions")
    opponents: list[int] = Field(min_length=1, max_length=challenge.MAX_OPPONENTS,
                                 description="active versions of the competition (anyone's) it plays")
    boards: int = Field(4, ge=1, le=challenge.MAX_BOARDS, description="boards against each opponent "
                        "(each at both tables)")


@router.post("/challenges", status_code=201)
def ask_challenge(request: Request, body: ChallengeRequest, who: Caller) -> dict:
    """Ask for an unrated match of your version against chosen opponents on practice boards
    (:mod:`arena.compete.challenge`): 201 and the queued challenge. 404: not an active version of
    yours, or an opponent that is not active; 409: the competition is closed; 429: the quota
    spent (``Retry-After``)."""
    hub = _hub(request)
    _participant(who)
    try:
        ch = hub.run(lambda s: challenge.ask(s, hub.competition, who.name, body.version, body.opponents,
                                             body.boards, hub.challenges_per_day))
    except challenge.ChallengeRefused as e:
        raise ApiError(e.status, str(e), {"Retry-After": str(e.retry_after_s)} if e.status == 429 else None) from None
    hub.wake_ladder()
    return ch.public()


@router.get("/challenges")
def challenges(request: Request, who: Caller) -> list[dict]:
    """Your challenges, oldest first (an admin: everyone's), with their results once played."""
    hub = _hub(request)
    owner = None if who.scope == "admin" else who.name
    return [ch.public() for ch in hub.run(lambda s: s.challenges(hub.competition, owner))]


@router.get("/challenges/{challenge_id}")
def one_challenge(request: Request, challenge_id: ChallengeId, who: Caller) -> dict:
    """One of your challenges: status, result per opponent (boards, wins, draws, losses, margin,
    your bot's faults) and your bot's output in it (``logs``); 404 for another's."""
    hub = _hub(request)
    ch = hub.run(lambda s: s.get_challenge(challenge_id))
    if ch is None or ch.competition != hub.competition or (who.scope != "admin" and ch.participant != who.name):
        raise ApiError(404, f"no challenge {challenge_id} of yours: `arena remote challenges` lists them")
    out = ch.public()
    if who.scope != "admin":
        v = hub.run(lambda s: s.get_version(ch.version_id))
        out["logs"] = own_logs(hub, v, challenge=ch.id)
    return out


@router.get("/ladder")
def ladder(request: Request) -> dict:
    """Public (no token): the ladder's standings (each version that played: Elo with its 95%
    interval, board pairs, units, ``provisional``), its blocks and units, the commitment of its
    secret seed (the seed once the competition is closed), and the final's standings beside it."""
    hub = _hub(request)
    at, report = hub.ladder_cache
    if report is None or time.monotonic() - at > LADDER_CACHE_S:  # anonymous readers share one a second
        report = hub.run(lambda s: ladder_report(s, hub.competition))
        hub.ladder_cache = (time.monotonic(), report)
    return report


@router.post("/close")
def close(request: Request, body: Closing, who: Caller) -> dict:
    """Admin: close the competition (uploads locked, the ladder ended and its seed revealed) and
    make the final under a new secret seed, whose commitment is in the answer; the server plays it
    (``GET /api/v1/ladder`` shows its progress, then its standings and seed)."""
    hub = _hub(request)
    _admin(who)
    t = _admin_run(hub, lambda s: final.close(s, hub.competition, boards=body.boards, choices=body.choices))
    hub.ladder_cache = (0.0, None)  # the ladder's report shows the final from now on
    hub.wake_ladder()
    return hub.run(lambda s: final.final_report(s, hub.competition)) | {"tournament": t.name}


@router.get("/participants")
def participants(request: Request, who: Caller) -> list[dict]:
    """Admin: every participant and admin (name, scope, whether its token is live)."""
    hub = _hub(request)
    _admin(who)
    return [p.public() for p in hub.run(lambda s: s.participants(hub.competition))]


@router.post("/participants", status_code=201)
def add(request: Request, body: NewParticipant, who: Caller) -> dict:
    """Admin: add a participant (or admin); its token is in the answer, and shown only there."""
    hub = _hub(request)
    _admin(who)
    p, token = _admin_run(hub, lambda s: policy.add_participant(s, hub.competition, body.name, admin=body.admin))
    return {**p.public(), "token": token}


@router.post("/participants/{name}/rotate")
def rotate(request: Request, name: str, who: Caller) -> dict:
    """Admin: a new token for the participant (the old one answers 401 from now on)."""
    hub = _hub(request)
    _admin(who)
    p, token = _admin_run(hub, lambda s: policy.rotate(s, hub.competition, name))
    return {**p.public(), "token": token}


@router.post("/participants/{name}/revoke")
def revoke(request: Request, name: str, who: Caller) -> dict:
    """Admin: revoke the participant's token (401 from now on; `rotate` issues a new one)."""
    hub = _hub(request)
    _admin(who)
    return _admin_run(hub, lambda s: policy.revoke(s, hub.competition, name)).public()


#: Seconds a computed ``GET /api/v1/ladder`` is served again (anonymous readers: one report a
#: second, not one each under the store's lock; red team 22b's flood took the ladder from 26.8
#: to 11.1 blocks a minute).
LADDER_CACHE_S = 1.0
#: The largest body read for a request that is no upload (JSON of the API, the pages' forms), bytes.
BODY_BYTES = 64 * 1024
#: The routes whose body is an upload, capped by the competition's ``archive_mib`` as it is read.
_UPLOADS = {("POST", "/api/v1/versions"), ("POST", "/me/versions")}


class BodyCap:
    """ASGI middleware: a request with a body, but an upload, is read here up to
    :data:`BODY_BYTES` and answered 413 past it, before any route parses it or checks its token
    (FastAPI parses a JSON body before a route's dependencies run: red team 22b made an
    anonymous 32 MiB JSON body take 820 MiB of the server before its 401)."""

    def __init__(self, app, limit: int = BODY_BYTES):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS") \
                or (scope["method"], scope["path"]) in _UPLOADS:
            return await self.app(scope, receive, send)
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return await self.app(scope, receive, send)  # the client went away: let the app see it
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                response = JSONResponse({"detail": f"a request body over {self.limit:,} bytes: this one is no "
                                                   "upload"}, status_code=413)
                return await response(scope, receive, send)
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        return await self.app(scope, replay, send)


def mount(app: FastAPI, hub: Hub) -> FastAPI:
    """Add the ``/api/v1`` routes over ``hub`` to a web application (:func:`arena.web.create_app`),
    every body but an upload's capped (:class:`BodyCap`)."""
    app.state.hub = hub
    app.include_router(router)
    app.add_middleware(BodyCap)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError):
        return JSONResponse({"detail": exc.detail}, status_code=exc.status, headers=exc.headers)

    pages = app.exception_handlers.get(RequestValidationError)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError):
        """Under ``/api/v1``: a bad body is a 422 saying which field; a bad id in the path a 404."""
        if not request.url.path.startswith("/api/v1/") and pages is not None:
            return await pages(request, exc)
        where = "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg', '')}" for e in exc.errors())
        if all(e.get("loc", ("",))[0] == "body" for e in exc.errors()):
            return JSONResponse({"detail": f"a bad request body ({where}): see /api/openapi.json"}, status_code=422)
        return JSONResponse({"detail": f"there is nothing at {request.url.path} ({where})"}, status_code=404)

    app.openapi_schema = None
    return app
