"""The ``arena serve`` application: FastAPI routes, Jinja2 pages, static files.

Each page has a JSON twin under ``/api/…`` built by the same function of
:mod:`arena.web.views`; the OpenAPI description is ``/api/openapi.json`` and
``/api`` lists it as a page (the framework's Swagger page is left out: it loads
its scripts from the internet). The database is opened **read-only for each
request** and closed after it, so the server never holds the file and runs
beside ``arena tournament run``.

Safe by default: :func:`create_app` answers only requests addressed to the
host it serves (``localhost``/``127.0.0.1`` when bound there: no DNS
rebinding), pages allow scripts and styles from the server only
(Content-Security-Policy), unknown URLs and ids answer a 404 page, a database
that cannot be read a 503 page saying why, and any other error a 500 page
without a traceback (the traceback goes to the server's log).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import Depends, FastAPI, Path as PathParam, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from referee.records import printable

from ..report.faults import fault_words
from ..report.tables import whole
from ..store import Store, StoreError
from . import views

__all__ = ["create_app"]


def _ticks(text: str) -> Markup:
    """``text`` escaped, its `backticked` (or ``double-backticked``) spans as ``<code>`` (the API
    routes' descriptions)."""
    return Markup(re.sub(r"``([^`]+)``|`([^`]+)`", lambda m: f"<code>{m.group(1) or m.group(2)}</code>",
                         str(escape(text))))

HERE = Path(__file__).resolve().parent
log = logging.getLogger("arena.web")

#: What pages may load: only what this server sends (no CDN, no internet).
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


class Unavailable(Exception):
    """The database cannot be read now (missing, busy, another schema): a 503."""


def _store(request: Request) -> Iterator[Store]:
    """The results database, opened read-only for one request and closed after it."""
    try:
        s = _open(request.app)
    except StoreError as e:
        raise Unavailable(str(e)) from None
    try:
        yield s
    finally:
        s.close()


def _open(app: FastAPI) -> Store:
    """A read-only store for one request: ``app.state.open_store()`` when the application was
    given one (the competition server lends its own database), else the file opened read-only."""
    opener = getattr(app.state, "open_store", None)
    return opener() if opener is not None else Store.open(app.state.db, read_only=True)


# Route parameters (at module level: FastAPI resolves these annotations by name).
Db = Annotated[Store, Depends(_store)]
Name = Annotated[str, PathParam(description="tournament name")]
Pair = Annotated[str, PathParam(description="the match's entrants, A~B (its id is TOURNAMENT/A~B)")]
Board = Annotated[int, PathParam(ge=0, description="board number")]
BotName = Annotated[str, PathParam(description="bot name")]
TableNo = Annotated[int, PathParam(ge=1, le=2, description="table, 1 or 2")]
SeatNo = Annotated[int, PathParam(ge=0, le=3, description="seat, 0..3 (two players: 0..1)")]
LogIndex = Annotated[int, PathParam(ge=0, description="the seat's process during the board: 0, 1, …")]
Suits = Annotated[Literal["board", "table"], Query(
    description="board: table 2 in the board's own suits; table: in the suits it was played with")]


def _entrant(e) -> str:
    """``name@version`` of an entrant given as JSON (``{"name", "version"}``) or as its key."""
    return f"{e['name']}@{e['version']}" if isinstance(e, dict) else str(e)


def _elo(x) -> str:
    """An Elo for a page: whole (as `arena ratings`), ``…`` for an open end (a one-sided bound)."""
    return "…" if x is None else whole(x)


def _ci(r: dict) -> str:
    """A rating's 95% interval as `arena ratings` shows it: ``1450–1550``, ``≥ 1620`` (won every
    board pair: no upper end), ``≤ 1380`` (lost every one)."""
    low, high = r.get("ci_low"), r.get("ci_high")
    if low is None and high is None:
        return "–"
    if high is None:
        return f"≥ {whole(low)}"
    if low is None:
        return f"≤ {whole(high)}"
    return f"{whole(low)}–{whole(high)}"


def _diff(r: dict) -> str:
    """Δnext as `arena ratings` shows it: ``+45 (+3…+88) *``, ``+600 (≥ +317) *``; ``–`` for the last."""
    d, low, high = r.get("diff_next"), r.get("diff_next_low"), r.get("diff_next_high")
    if d is None:
        return "–"
    if low is None and high is None:
        interval = "any"
    elif high is None:
        interval = f"≥ {low:+.0f}"
    elif low is None:
        interval = f"≤ {high:+.0f}"
    else:
        interval = f"{low:+.0f}…{high:+.0f}"
    return f"{d:+.0f} ({interval})" + (" *" if r.get("significant_next") else "")


#: Suit letters as symbols.
SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _took(t: dict, seats: int = 4) -> str:
    """Which side took at a table and how it went, for a match page: ``EW dedans ♦``,
    ``NS made all-trumps``, ``passed``; two players: ``P1 made ♠``."""
    if t.get("taker") is None:
        return t["contract"]
    side = (f"P{t['taker']}" if seats == 2 else ("NS", "EW")[t["taker"] % 2])
    trump = SUITS.get(t.get("trump") or "", "") or (t.get("trump_mode") or "")
    return " ".join(x for x in (side, t["contract"], trump) if x)


def _signed(x) -> str:
    return "–" if x is None else f"{x:+.0f}"


def _seconds(x) -> str:
    if x is None:
        return "–"
    x = int(round(x))
    return f"{x // 3600}h {x % 3600 // 60:02d}m" if x >= 3600 else f"{x // 60}m {x % 60:02d}s"


def create_app(db: str | Path, *, allowed_hosts: list[str] | None = None,
               open_store: Callable[[], Store] | None = None) -> FastAPI:
    """The web application over the results database ``db`` (read-only).

    Args:
        db: the DuckDB results file (``arena tournament run --db``).
        allowed_hosts: the ``Host`` header values answered (default: the loopback
            names); ``["*"]`` answers any.
        open_store: how a request opens the database read-only (default: ``Store.open(db,
            read_only=True)``); the competition server passes its own (``arena.compete``),
            since a process that writes the file cannot also open it read-only.
    """
    db = Path(db)
    app = FastAPI(
        title="Belote Arena",
        description="The arena's results, read-only: tournaments, ratings (as `arena ratings --json`), "
        "head-to-head records, matches, boards replayed trick by trick, bots, live progress.",
        version="1",
        openapi_url="/api/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    app.state.db = db
    app.state.open_store = open_store
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or LOOPBACK_HOSTS)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters.update(q=lambda s: quote(str(s), safe=""), signed=_signed, seconds=_seconds, elo=_elo,
                                 ci=_ci, diff=_diff, took=_took,
                                 entrant=_entrant, printable=printable,  # printable: manifest text, escaped
                                 ticks=_ticks, fault_words=fault_words)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.middleware("http")
    async def headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        # same-origin (not no-referrer): a browser then sends this site's Origin on its own forms, so a
        # login from another site's page ("null", from a no-referrer page) is told apart (arena.compete.pages)
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    def page(request: Request, name: str, status_code: int = 200, **context) -> HTMLResponse:
        return templates.TemplateResponse(request, name, {"db": str(db), **context}, status_code=status_code)

    # ------------------------------------------------------------ errors
    def error(request: Request, status: int, title: str, message: str) -> Response:
        if request.url.path.startswith("/api"):
            return JSONResponse({"detail": message}, status_code=status)
        return page(request, "error.html", status, title=title, message=message, status=status)

    @app.exception_handler(views.NotFound)
    async def not_found(request: Request, exc: views.NotFound):
        return error(request, 404, "Not found", str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 404:
            return error(request, 404, "Not found", f"there is no page {request.url.path}")
        return error(request, exc.status_code, "Error", str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_url(request: Request, exc: RequestValidationError):
        where = "; ".join(f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg', '')}" for e in exc.errors())
        return error(request, 404, "Not found", f"there is no page {request.url.path} ({where})")

    @app.exception_handler(Unavailable)
    async def unavailable(request: Request, exc: Unavailable):
        return error(request, 503, "Results unavailable", str(exc))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError):
        return error(request, 503, "Results unavailable", str(exc))

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception):
        log.exception("error answering %s", request.url.path)
        return error(request, 500, "Internal error", "the server could not build this page; its log says why")

    # ------------------------------------------------------------ JSON
    @app.get("/api/tournaments", tags=["tournaments"])
    def api_tournaments(s: Db) -> list[dict]:
        """Every tournament, oldest first, as `arena tournament list --json`."""
        return views.tournaments(s)

    @app.get("/api/index", tags=["tournaments"])
    def api_index(s: Db) -> dict:
        """The index page's lists: tournaments newest first with their game in words, `arena sprt` tests apart."""
        return views.index(s)

    @app.get("/api/tournaments/{name}", tags=["tournaments"])
    def api_tournament(name: Name, s: Db) -> dict:
        """One tournament: ruleset, options, entrants, board pairs stored / expected, status."""
        return views.tournament(s, name)

    @app.get("/api/tournaments/{name}/ratings", tags=["tournaments"])
    def api_ratings(name: Name, s: Db) -> list[dict]:
        """The rating list, best first: exactly `arena ratings --tournament NAME --json`."""
        return views.leaderboard(s, name)["ratings"]

    @app.get("/api/tournaments/{name}/leaderboard", tags=["tournaments"])
    def api_leaderboard(name: Name, s: Db) -> dict:
        """The rating list with faults per entrant and the positions of the drawn intervals."""
        return views.leaderboard(s, name)

    @app.get("/api/tournaments/{name}/head-to-head", tags=["tournaments"])
    def api_head_to_head(name: Name, s: Db) -> dict:
        """Each pair's record and mean margin (`arena ratings --head-to-head --json`) and the grid."""
        board = views.leaderboard(s, name)
        order = [f"{r['name']}@{r['version']}" for r in board["ratings"]]
        return views.head_to_head(s, name, order or None)

    @app.get("/api/tournaments/{name}/matches", tags=["tournaments"])
    def api_matches(name: Name, s: Db) -> list[dict]:
        """The tournament's matches, as `arena matches --tournament NAME --json`."""
        return views.matches(s, name)

    @app.get("/api/tournaments/{name}/progress", tags=["tournaments"])
    def api_progress(name: Name) -> dict:
        """Board pairs stored of expected, board pairs per second, ETA, standings so far.

        Polled by the live page: a database that cannot be read just now (e.g. held by a
        writer longer than the store waits) answers 200 with ``{"unavailable": why}``.
        """
        try:
            s = _open(app)
        except StoreError as e:
            return {"unavailable": str(e)}
        try:
            return views.progress(s, name)
        finally:
            s.close()

    @app.get("/api/matches/{name}/{pair}", tags=["matches"])
    def api_match(name: Name, pair: Pair, s: Db) -> dict:
        """A match and each stored board pair: both tables' contracts and points, the margin."""
        return views.match(s, f"{name}/{pair}")

    @app.get("/api/matches/{name}/{pair}/boards/{number}", tags=["matches"])
    def api_board(name: Name, pair: Pair, number: Board, s: Db, suits: Suits = "board") -> dict:
        """One board at both tables, replayed: hands, bidding, declarations, tricks, scores."""
        return views.board(s, f"{name}/{pair}", number, board_suits=suits == "board")

    @app.get("/api/bots/{name}", tags=["bots"])
    def api_bot(name: BotName, s: Db) -> dict:
        """A bot's versions, its rating in each tournament, faults by kind, slowest decisions."""
        return views.bot(s, name)

    @app.get("/api/sprt/{name}", tags=["tournaments"])
    def api_sprt(name: Name, s: Db) -> dict:
        """An `arena sprt` test: its settings and state, and the LLR after each board pair it counted."""
        return views.sprt(s, name)

    # ------------------------------------------------------------ pages
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index(request: Request, s: Db):
        return page(request, "index.html", index=views.index(s))

    @app.get("/tournaments/{name}", response_class=HTMLResponse, include_in_schema=False)
    def tournament_page(request: Request, name: str, s: Db):
        t = views.tournament(s, name)
        t["summary"] = views.describe(t)
        board = views.leaderboard(s, name)
        order = [f"{r['name']}@{r['version']}" for r in board["ratings"]]
        return page(request, "tournament.html", t=t, ladder=s.is_ladder(name), board=board, h2h=views.head_to_head(s, name, order or None),
                    matches=views.matches(s, name))

    @app.get("/sprt/{name}", response_class=HTMLResponse, include_in_schema=False)
    def sprt_page(request: Request, name: str, s: Db):
        return page(request, "sprt.html", x=views.sprt(s, name))

    @app.get("/tournaments/{name}/live", response_class=HTMLResponse, include_in_schema=False)
    def live_page(request: Request, name: str, s: Db):
        return page(request, "live.html", t=views.tournament(s, name), progress=views.progress(s, name))

    @app.get("/matches/{name}/{pair}", response_class=HTMLResponse, include_in_schema=False)
    def match_page(request: Request, name: str, pair: str, s: Db):
        return page(request, "match.html", m=views.match(s, f"{name}/{pair}"), tname=name, pair=pair)

    @app.get("/matches/{name}/{pair}/records.jsonl", tags=["matches"])
    def match_records(name: Name, pair: Pair, s: Db) -> Response:
        """The match's deal records, one JSON line per table (by board, then table); each line is a record as `arena replay` reads it from a file."""
        body = views.match_records(s, f"{name}/{pair}")
        filename = f"{name}_{pair}.jsonl".replace("/", "_").replace('"', "_")
        return Response(body, media_type="application/x-ndjson", headers={
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(filename, safe='')}"})

    @app.get("/matches/{name}/{pair}/boards/{number}", response_class=HTMLResponse, include_in_schema=False)
    def board_page(request: Request, name: str, pair: str, number: Board, s: Db,
                   suits: Suits = "board"):
        view = views.board(s, f"{name}/{pair}", number, board_suits=suits == "board")
        return page(request, "board.html", b=view, tname=name, pair=pair, suits=suits)

    @app.get("/matches/{name}/{pair}/boards/{number}/logs/{table}/{seat}/{index}", tags=["matches"],
             response_class=PlainTextResponse)
    def bot_log(name: Name, pair: Pair, number: Board, table: TableNo, seat: SeatNo, index: LogIndex,
                s: Db) -> PlainTextResponse:
        """The output (stdout, stderr) of a bot process that held a seat of a board, kept by a run
        with `--logs DIR` (`index`: 0, 1, … when the seat had several processes during the board);
        only a file inside that folder is served."""
        return PlainTextResponse(views.bot_log(s, f"{name}/{pair}", number, table, seat, index))

    @app.get("/bots/{name}", response_class=HTMLResponse, include_in_schema=False)
    def bot_page(request: Request, name: str, s: Db):
        return page(request, "bot.html", bot=views.bot(s, name))

    @app.get("/api", response_class=HTMLResponse, include_in_schema=False)
    def api_page(request: Request):
        spec = app.openapi()
        routes = [{"path": p, "summary": op.get("summary", ""), "description": op.get("description", ""),
                   "params": [x["name"] for x in op.get("parameters", [])]}
                  for p, ops in spec["paths"].items() for op in ops.values()]
        return page(request, "api.html", routes=routes)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response((HERE / "static" / "favicon.svg").read_bytes(), media_type="image/svg+xml")

    return app
