"""``arena remote login|submit|pack|status|logs|challenge|challenges|final|whoami``: a participant's client of a competition
server (``arena.compete.client``). Every command takes ``--json``; a refusal prints
``{"error": why, "status": HTTP status}`` then, besides the ``error:`` line on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from referee.manifest import ManifestError

from ..report.render import show_table
from .base import _Group, app, console, err, fail

remote_app = typer.Typer(help="Enter a competition from your machine: log in, submit a bot, follow its "
                         "status, read its logs.", no_args_is_help=True, cls=_Group)
app.add_typer(remote_app, name="remote")

JsonOption = Annotated[bool, typer.Option("--json", help="print JSON (a refusal: {\"error\": why})")]
ServerOption = Annotated[str | None, typer.Option(
    "--server", metavar="URL", help="the competition server (default: ARENA_SERVER, else the last login)",
    show_default=False)]


def refuse(message: str, as_json: bool, status: int | None = None) -> typer.Exit:
    if as_json:
        print(json.dumps({"error": message, "status": status}))
    return fail(message)


def _remote(server: str | None, as_json: bool):
    from ..compete.client import Remote, RemoteError, resolve

    try:
        return Remote(*resolve(server))
    except RemoteError as e:
        raise refuse(str(e), as_json) from None


def _call(as_json: bool, work):
    from ..compete.archive import ArchiveError
    from ..compete.client import RemoteError

    try:
        return work()
    except RemoteError as e:
        raise refuse(str(e), as_json, e.status) from None
    except (ArchiveError, ManifestError) as e:
        raise refuse(str(e), as_json) from None


@remote_app.command("login")
def login(
    server: Annotated[str, typer.Option("--server", metavar="URL", help="the competition server, "
                                        "https://HOST:PORT")],
    token: Annotated[str | None, typer.Option(
        "--token", metavar="TOKEN", help="your token (default: ARENA_TOKEN, else read from the terminal or stdin; "
        "prefer those: a command line shows in the process list)", show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Check your token at the server and keep it in a config file only you can read (0600)."""
    from ..compete.client import login as do_login

    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        token = typer.prompt("token", hide_input=True) if sys.stdin.isatty() else sys.stdin.readline()
    token = token.strip()
    if not token:
        raise refuse("no token given: paste the token the organiser sent you (or set ARENA_TOKEN)", as_json)
    who, path = _call(as_json, lambda: do_login(server, token))
    if as_json:
        print(json.dumps({"participant": who["participant"], "scope": who["scope"],
                          "competition": who["competition"]["name"], "config": str(path)}))
        return
    console.print(f"logged in to {escape(server)} as {escape(who['participant'])} ({who['scope']}) in "
                  f"{escape(who['competition']['name'])}; token kept in {escape(str(path))}", highlight=False)


@remote_app.command("whoami")
def whoami(server: ServerOption = None, as_json: JsonOption = False) -> None:
    """Who your token is; the competition (status, ruleset, options, policy); your upload quota
    and your final."""
    from .compete import competition_text

    with _remote(server, as_json) as r:
        me = _call(as_json, r.me)
        url = r.server
    if as_json:
        print(json.dumps(me))
        return
    c = me["competition"]
    console.print(f"{escape(me['participant'])} ({me['scope']}) in {competition_text(c)}", highlight=False)
    if c["status"] != "open":
        console.print(f"uploads: none, the competition is {c['status']}", highlight=False)
    elif "quota" in me:
        q = me["quota"]
        console.print(f"uploads: {q['used']} of {q['per_day']} in the last 24 hours"
                      + (f"; next possible in {q['retry_after_s']} s" if not q["left"] else ""), highlight=False)
    if me["scope"] == "participant":
        console.print(_final_line(me, url), highlight=False)


def _final_line(me: dict, server: str) -> str:
    """The participant's final: its choice while the competition is open; once it is closed,
    whether the final is played or under way, and which version of theirs is in it."""
    c, fin = me["competition"], me.get("final")
    if c["status"] == "open":
        choice = me.get("final_choice")
        return (f"the final: version {choice} (`arena remote final`)" if choice else
                "the final: your latest active version (choose another with `arena remote final VERSION`)")
    standings = f"`arena compete standings {escape(c['name'])} --server {escape(server)}` shows it"
    if fin is None:  # closed a moment ago (its final being made), or a server that does not say
        return f"the final: the competition is {c['status']}; {standings}"
    state = "played" if fin["status"] == "complete" else "under way"
    entered = f"your version {fin['version']} in it" if fin["version"] else "no version of yours in it"
    return f"the final is {state}, {entered}: {standings}"


@remote_app.command("submit")
def submit(
    folder: Annotated[Path, typer.Argument(help="the bot's folder (holding bot.toml)")],
    server: ServerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Pack the bot's folder (the files its content hash covers) and upload it.

    The server checks the archive, then the bot (sandbox check, a validation match
    against its house bot on practice boards): follow it with `arena remote status`.
    """
    from referee.manifest import content_hash

    manifest = _uploadable(folder, as_json)
    digest = _call(as_json, lambda: content_hash(manifest.folder))
    with _remote(server, as_json) as r:
        version, new = _call(as_json, lambda: r.submit(manifest.folder))
    if as_json:
        print(json.dumps({**version, "new": new, "local_content_hash": digest}))
        return
    console.print(("uploaded" if new else "already uploaded (the same bytes)") + f" {escape(manifest.key)} "
                  f"(content hash {digest[:16]}…) as version {version['id']}: {version['status']}; "
                  "`arena remote status` follows it", highlight=False)


def _uploadable(folder: Path, as_json: bool):
    """The bot's manifest, refused here (before any upload) when the server would refuse it for
    naming ``requirements``: a competition installs no packages."""
    from referee.manifest import load_manifest

    from ..compete.archive import no_packages

    manifest = _call(as_json, lambda: load_manifest(folder))
    if (why := no_packages(manifest)) is not None:
        raise refuse(why, as_json)
    return manifest


@remote_app.command("status")
def status(
    version: Annotated[str | None, typer.Argument(help="one version: its id or name@version (default: all)",
                                                  show_default=False)] = None,
    server: ServerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Your versions: queued, checking, validating, active, rejected (why) or retired."""
    with _remote(server, as_json) as r:
        rows = _call(as_json, (lambda: [r.version(r.version_id(version))]) if version else r.versions)
    if as_json:
        print(json.dumps(rows if version is None else rows[0]))
        return
    t = Table(title="versions", header_style="bold")
    for col in ("id", "bot", "status", "ladder Elo [95%]", "uploaded (UTC)", "validation / reason"):
        t.add_column(col)
    for v in rows:
        val = v.get("validation") or {}
        summary = "; ".join(f"{k}: {x['wins']}-{x['draws']}-{x['losses']} vs {val.get('house', '?')}"
                            for k, x in val.get("rulesets", {}).items())
        t.add_row(str(v["id"]), escape(v["bot"] or "?"), v["status"], _standing(v), v["uploaded_at"][:19],
                  escape(v["reason"] or summary))
    show_table(console, t)
    faults = [(v["id"], f) for v in rows for f in (v.get("ladder") or {}).get("faults", [])]
    if faults:
        ft = Table(title="faults on the ladder (newest first; `arena remote logs VERSION --block N` shows the output)",
                   header_style="bold")
        for col in ("version", "block", "board", "table", "seat", "kind", "what happened"):
            ft.add_column(col)
        for vid, f in faults[:20]:
            ft.add_row(str(vid), str(f["block"]), str(f["board"]), str(f["table"]), str(f["seat"]), f["kind"],
                       escape(f["detail"]))
        show_table(console, ft)


def _standing(v: dict) -> str:
    """A version's ladder rating in words: "1512 [1440, 1590]", "1746 [≥ 1038]" (provisional marked), or "-"."""
    from .compete import rating_text

    st = (v.get("ladder") or {}).get("standing")
    if not st or st.get("elo") is None:
        return "-"
    return rating_text(st) + (" provisional" if st["provisional"] else "")


@remote_app.command("final")
def final(
    version: Annotated[str, typer.Argument(help="one of your active versions: its id or name@version")],
    server: ServerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Choose the version of yours that enters the final when the competition closes (default:
    your latest active version)."""
    with _remote(server, as_json) as r:
        out = _call(as_json, lambda: r.choose_final(version))
    if as_json:
        print(json.dumps(out))
        return
    console.print(f"version {out['version']} enters the final for {escape(out['participant'])}", highlight=False)


@remote_app.command("pack")
def pack_folder(
    folder: Annotated[Path, typer.Argument(help="the bot's folder (holding bot.toml)")],
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", help="the archive to write (default: "
                                             "NAME-VERSION.tar.gz here)", show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Write the .tar.gz `arena remote submit` would upload (the files the content hash covers):
    for the upload form in the browser (/me)."""
    from ..compete.archive import pack

    manifest = _uploadable(folder, as_json)
    data = _call(as_json, lambda: pack(manifest.folder))
    out = out or Path(f"{manifest.name}-{manifest.version}.tar.gz")
    try:
        out.write_bytes(data)
    except OSError as e:
        raise refuse(f"cannot write {out}: {e.strerror or e}", as_json) from None
    if as_json:
        print(json.dumps({"archive": str(out), "bytes": len(data), "bot": manifest.key}))
        return
    console.print(f"wrote {escape(str(out))} ({len(data):,} bytes) of {escape(manifest.key)}: upload it at the "
                  "server's /me page, or use `arena remote submit`", highlight=False)


@remote_app.command("challenge")
def ask_challenge(
    version: Annotated[str, typer.Argument(help="one of your active versions: its id or name@version")],
    against: Annotated[list[str], typer.Option("--against", help="an opponent: an active version's id or "
                                               "name@version (repeat, up to 8)", show_default=False)],
    boards: Annotated[int, typer.Option(min=1, max=16, help="boards against each opponent (each at both tables)")] = 4,
    server: ServerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ask for an unrated match of your version against chosen opponents, on practice boards
    (never rated, never the ladder's or the final's); `arena remote challenges ID` shows the result."""
    with _remote(server, as_json) as r:
        out = _call(as_json, lambda: r.challenge(version, against, boards))
    if as_json:
        print(json.dumps(out))
        return
    console.print(f"challenge {out['id']} queued: version {out['version']} against "
                  f"{', '.join(map(str, out['opponents']))}, {out['boards']} boards each "
                  f"(`arena remote challenges {out['id']}`)", highlight=False)


@remote_app.command("challenges")
def list_challenges(
    challenge_id: Annotated[int | None, typer.Argument(metavar="[ID]", help="one challenge: its result and your "
                                                       "bot's output (default: all, a line each)",
                                                       show_default=False)] = None,
    server: ServerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Your challenges: queued, playing, done (the result against each opponent) or failed (why)."""
    with _remote(server, as_json) as r:
        rows = _call(as_json, (lambda: [r.get_challenge(challenge_id)]) if challenge_id else r.challenges)
    if as_json:
        print(json.dumps(rows if challenge_id is None else rows[0]))
        return
    t = Table(title="challenges (unrated)", header_style="bold")
    for col in ("id", "version", "opponent", "boards", "W-D-L", "margin", "status / faults"):
        t.add_column(col)
    for ch in rows:
        results = (ch.get("result") or {}).get("opponents") or []
        if not results:
            t.add_row(str(ch["id"]), str(ch["version"]), ", ".join(map(str, ch["opponents"])), str(ch["boards"]),
                      "", "", escape(ch["status"] + (f": {ch['reason']}" if ch.get("reason") else "")))
        for x in results:
            t.add_row(str(ch["id"]), str(ch["version"]), escape(f"{x['bot']} (v{x['opponent']})"), str(x["boards"]),
                      f"{x['wins']}-{x['draws']}-{x['losses']}", f"{x['margin']:+d}",
                      escape("; ".join(x["faults"][:3]) or ch["status"]))
    show_table(console, t)
    for name, text in (rows[0].get("logs") or {}).items() if challenge_id else ():
        console.rule(escape(name))
        console.print(text, markup=False, highlight=False)


@remote_app.command("logs")
def logs(
    version: Annotated[str, typer.Argument(help="your version: its id or name@version")],
    block: Annotated[int | None, typer.Option(min=0, help="a ladder block (`arena remote status` lists those with "
                                                          "faults); default: the validation and the newest unit")] = None,
    server: ServerOption = None,
    as_json: JsonOption = False,
) -> None:
    """Your bot's own output (stdout, stderr), per process: in its validation matches and its
    newest ladder unit, or in one ladder block."""
    with _remote(server, as_json) as r:
        out = _call(as_json, lambda: r.logs(version, block))
    if as_json:
        print(json.dumps(out))
        return
    if not out["logs"]:
        err.print(f"version {out['version']} ({out['status']}) has no logs yet"
                  + (f": {escape(out['reason'])}" if out.get("reason") else ""), highlight=False)
    for name, text in out["logs"].items():
        console.rule(escape(name))
        console.print(text, markup=False, highlight=False)
    if out.get("ladder_blocks"):
        err.print(f"ladder blocks kept (--block N): {', '.join(map(str, out['ladder_blocks']))}", highlight=False)
