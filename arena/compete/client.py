"""``arena remote``: a participant's client of a competition server, over httpx.

The token comes from ``ARENA_TOKEN``, else from the config file ``arena remote login`` wrote:
``$ARENA_CONFIG``, else ``$XDG_CONFIG_HOME/belote-arena/remote.json`` (``~/.config/…``), made
readable by its owner only (0600, in a folder of mode 0700) and holding ``{"default": URL,
"servers": {URL: token}}``. The server is ``--server URL``, else ``ARENA_SERVER``, else the one
logged in last. ``https`` URLs are checked against the system's certificate authorities (or
``SSL_CERT_FILE``).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

import httpx

from ..web import is_loopback
from .archive import pack

__all__ = ["Remote", "RemoteError", "config_path", "login", "resolve"]


class RemoteError(Exception):
    """A request that failed: no server, a refusal (with the server's reason), a bad answer."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def config_path() -> Path:
    """Where ``arena remote login`` keeps tokens (module docstring)."""
    if os.environ.get("ARENA_CONFIG"):
        return Path(os.environ["ARENA_CONFIG"])
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "belote-arena" / "remote.json"


def _read_config() -> dict:
    path = config_path()
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise RemoteError(f"cannot read {path}: {e}: log in again (`arena remote login --server URL`)") from None


def _write_config(data: dict) -> Path:
    """Write the config file readable and writable by its owner only (0600), atomically."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        os.fchmod(f.fileno(), 0o600)
        json.dump(data, f, indent=1)
    os.replace(tmp, path)
    return path


def _normal(url: str) -> str:
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise RemoteError(f"{url!r} is not a server URL: give it as https://HOST:PORT (http:// on this machine only)")
    if url.startswith("http://") and not is_loopback(urllib.parse.urlsplit(url).hostname or ""):
        raise RemoteError(f"{url!r}: plain http:// would send your token in clear over the network: give the "
                          "server as https://HOST:PORT (http:// is for a server on this machine only)")
    return url


def resolve(server: str | None, token: str | None = None, *, need_token: bool = True) -> tuple[str, str | None]:
    """``(server URL, token)``: the given ones, else ``ARENA_SERVER`` / ``ARENA_TOKEN``, else the config file
    (``need_token`` False: the token None when none is known, for the public ladder).

    Raises:
        RemoteError: no server or no token known (the message says how to give them)."""
    config = None
    if not server:
        server = os.environ.get("ARENA_SERVER")
    if not server:
        config = _read_config()
        server = config.get("default")
    if not server:
        raise RemoteError("no server: pass --server URL (or set ARENA_SERVER, or `arena remote login --server URL`)")
    server = _normal(server)
    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        config = config if config is not None else _read_config()
        token = config.get("servers", {}).get(server)
    if not token and need_token:
        raise RemoteError(f"no token for {server}: `arena remote login --server {server}` (or set ARENA_TOKEN)")
    return server, token or None


class Remote:
    """The API of one competition server (:mod:`arena.compete.api`), as one participant or admin."""

    def __init__(self, server: str, token: str | None, *, timeout_s: float = 60.0):
        self.server = _normal(server)
        self._http = httpx.Client(base_url=self.server, headers={"Authorization": f"Bearer {token}"} if token else {},
                                  timeout=timeout_s, follow_redirects=False)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Remote:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _call(self, method: str, path: str, **kw):
        try:
            r = self._http.request(method, "/api/v1" + path, **kw)
        except httpx.HTTPError as e:
            raise RemoteError(f"cannot reach {self.server}: {e or type(e).__name__}: check the URL and that the "
                              "server runs") from None
        try:
            body = r.json()
        except ValueError:
            body = None
        if r.status_code >= 400:
            detail = body.get("detail") if isinstance(body, dict) else None
            detail = detail if isinstance(detail, str) else r.text[:300]
            raise RemoteError(f"{self.server} refused ({r.status_code}): {detail}", r.status_code)
        if body is None:
            raise RemoteError(f"{self.server} answered {r.status_code} without JSON: is it a competition server?")
        return body

    def me(self) -> dict:
        """Who the token is, the competition and its policy, the upload quota."""
        return self._call("GET", "/me")

    def submit(self, folder: str | Path) -> tuple[dict, bool]:
        """Pack the bot folder (:func:`arena.compete.archive.pack`) and upload it; ``(version, new)``
        (``new`` False: these bytes were uploaded before, the earlier version is returned).

        Raises:
            RemoteError: refused (the server's reason; 429 with when to retry); ArchiveError,
            ManifestError: the folder cannot be packed."""
        data = pack(folder)
        try:
            r = self._http.post("/api/v1/versions", content=data, headers={"Content-Type": "application/gzip"})
        except httpx.HTTPError as e:
            raise RemoteError(f"cannot reach {self.server}: {e or type(e).__name__}") from None
        if r.status_code >= 400:
            try:
                detail = r.json().get("detail")
            except ValueError:
                detail = r.text[:300]
            retry = r.headers.get("Retry-After")
            raise RemoteError(f"{self.server} refused the upload ({r.status_code}): {detail}"
                              + (f" (retry after {retry} s)" if retry else ""), r.status_code)
        return r.json(), r.status_code == 201

    def versions(self) -> list[dict]:
        return self._call("GET", "/versions")

    def version(self, version_id: int) -> dict:
        return self._call("GET", f"/versions/{version_id}")

    def logs(self, version: str | int, block: int | None = None) -> dict:
        """The logs of one of your versions (by id, or by ``name@version``): its validation's and its
        newest ladder unit's, or ladder block ``block``'s."""
        params = {} if block is None else {"block": block}
        return self._call("GET", f"/versions/{self.version_id(version)}/logs", params=params)

    def challenge(self, version: str | int, opponents: list[str | int], boards: int) -> dict:
        """Ask for an unrated match of your version against ``opponents`` (version ids, or
        ``name@version`` of active versions: :meth:`opponent_id`), ``boards`` boards each."""
        body = {"version": self.version_id(version), "opponents": [self.opponent_id(o) for o in opponents],
                "boards": boards}
        return self._call("POST", "/challenges", json=body)

    def challenges(self) -> list[dict]:
        return self._call("GET", "/challenges")

    def get_challenge(self, challenge_id: int) -> dict:
        return self._call("GET", f"/challenges/{challenge_id}")

    def opponent_id(self, opponent: str | int) -> int:
        """An active version's id from its id or its bot's ``name@version`` (the public ladder)."""
        text = str(opponent)
        if text.isdigit():
            return int(text)
        for st in self._call("GET", "/ladder")["ladder"]["standings"]:
            if st["bot"] == text and st["status"] == "active":
                return st["version"]
        raise RemoteError(f"no active version {text!r} on the ladder: `arena compete standings --server URL` "
                          "lists them (give a version id or name@version)")

    def choose_final(self, version: str | int) -> dict:
        """Enter one of your active versions (by id or ``name@version``) in the final."""
        return self._call("PUT", "/final", json={"version": self.version_id(version)})

    def version_id(self, version: str | int) -> int:
        """A version's id from its id or its bot's ``name@version`` (the latest upload of it not
        rejected, else the latest)."""
        text = str(version)
        if text.isdigit():
            return int(text)
        found = sorted((v["status"] != "rejected", v["id"]) for v in self.versions() if v.get("bot") == text)
        if not found:
            raise RemoteError(f"no version {text!r} of yours: `arena remote status` lists them")
        return found[-1][1]

    def participants(self) -> list[dict]:
        return self._call("GET", "/participants")

    def add_participant(self, name: str, admin: bool = False) -> dict:
        return self._call("POST", "/participants", json={"name": name, "admin": admin})

    def rotate(self, name: str) -> dict:
        return self._call("POST", f"/participants/{name}/rotate")

    def close_competition(self, boards: int) -> dict:
        """Admin: close the competition and make its final (``POST /api/v1/close``)."""
        return self._call("POST", "/close", json={"boards": boards})

    def ladder(self) -> dict:
        """The ladder's and the final's standings (``GET /api/v1/ladder``, public)."""
        return self._call("GET", "/ladder")

    def revoke(self, name: str) -> dict:
        return self._call("POST", f"/participants/{name}/revoke")


def login(server: str, token: str) -> tuple[dict, Path]:
    """Check ``token`` at ``server`` (``GET /api/v1/me``), then keep it in the config file (0600)
    as that server's token and the default server; ``(who, config path)``.

    Raises:
        RemoteError: the server refuses the token or cannot be reached."""
    server = _normal(server)
    with Remote(server, token) as r:
        who = r.me()
    data = _read_config()
    data.setdefault("servers", {})[server] = token
    data["default"] = server
    return who, _write_config(data)
