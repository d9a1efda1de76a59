"""``arena compete create|list|serve`` and ``arena compete participant add|list|rotate|revoke``:
the organiser's commands of a competition server (``arena/compete/``). Every one takes
``--json``; a refusal prints ``{"error": why}`` then, besides the ``error:`` line on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .base import (
    DEFAULT_DB, NoIsolateOption, OptionOption, RulesetName, WeakLimitsOption, DbOption, _Group, _limits,
    _options_text, _parse_options, app, command, console, err, fail,
)

compete_app = typer.Typer(help="Host a competition: participants upload bots to its server from their own "
                          "machines.", no_args_is_help=True, cls=_Group)
participant_app = typer.Typer(help="Add participants and admins, rotate and revoke their tokens.",
                              no_args_is_help=True, cls=_Group)
app.add_typer(compete_app, name="compete")
compete_app.add_typer(participant_app, name="participant")

JsonOption = Annotated[bool, typer.Option("--json", help="print JSON (a refusal: {\"error\": why})")]
ServerOption = Annotated[str | None, typer.Option(
    "--server", metavar="URL", help="go through this running server with an admin token (ARENA_TOKEN or "
    "`arena remote login`) instead of opening --db", show_default=False)]


def refuse(message: str, as_json: bool, code: int = 1) -> typer.Exit:
    """:func:`fail`, and ``{"error": message}`` on stdout with ``--json``."""
    if as_json:
        print(json.dumps({"error": message}))
    return fail(message, code)


def _writable(db: Path, as_json: bool):
    """The store at ``db`` opened for writing, refused while a competition server holds it
    (:func:`arena.store.held_by_server`) or a tournament runs in it."""
    from ..store import RunLock, Store, StoreError, held_by_server

    lock = RunLock(db)
    holder = lock.holder()
    if holder is not None:
        raise refuse(held_by_server(db) or lock.busy_message(holder), as_json)
    try:
        return Store.open(db)
    except StoreError as e:
        raise refuse(str(e), as_json) from None


def _policy_option(name: str, low: int = 1):
    from ..compete.policy import DEFAULT_POLICY, POLICY_HELP

    return Annotated[int | None, typer.Option(
        "--" + name.replace("_", "-"), min=low, show_default=False,
        help=f"{POLICY_HELP[name]} (default {DEFAULT_POLICY[name]})")]


@compete_app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="competition name")],
    ruleset: Annotated[RulesetName, typer.Option(help="rule system")] = RulesetName.classic,
    option: OptionOption = None,
    uploads_per_day: _policy_option("uploads_per_day") = None,
    active_versions: _policy_option("active_versions") = None,
    archive_mib: _policy_option("archive_mib") = None,
    unpacked_mib: _policy_option("unpacked_mib") = None,
    archive_files: _policy_option("archive_files") = None,
    max_ratio: _policy_option("max_ratio") = None,
    decision_ms: _policy_option("decision_ms", 10) = None,
    cpu_s: _policy_option("cpu_s", 0) = None,
    memory_mib: _policy_option("memory_mib", 0) = None,
    block_boards: _policy_option("block_boards") = None,
    validation_boards: _policy_option("validation_boards") = None,
    as_json: JsonOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Create a competition with its ruleset, options and policy (fixed once created).

    A secret practice seed is drawn for the validation matches (never rated). Then add
    participants (`arena compete participant add`) and start its server (`arena compete serve`).
    """
    from ..compete import policy
    from ..store import StoreError

    values = dict(uploads_per_day=uploads_per_day, active_versions=active_versions, archive_mib=archive_mib,
                  unpacked_mib=unpacked_mib, archive_files=archive_files, max_ratio=max_ratio, decision_ms=decision_ms,
                  cpu_s=cpu_s, memory_mib=memory_mib, block_boards=block_boards, validation_boards=validation_boards)
    options = _parse_options(option)
    store = _writable(db, as_json)
    try:
        c = policy.create(store, name, ruleset.value, options, values)
    except (StoreError, ValueError) as e:
        raise refuse(str(e), as_json) from None
    finally:
        store.close()
    if as_json:
        print(json.dumps(c.public()))
        return
    console.print(f"created competition [bold]{escape(c.name)}[/] ({c.ruleset}); policy: "
                  + ", ".join(f"{k}={v}" for k, v in c.policy.items()), highlight=False)
    console.print(f"next: {escape(command('compete', 'participant', 'add', 'NAME', '--competition', c.name, db=db))}",
                  highlight=False)


@compete_app.command("list")
def list_competitions(as_json: JsonOption = False, db: DbOption = DEFAULT_DB) -> None:
    """List the competitions of the database with their policy."""
    from ..store import Store, StoreError

    if not db.exists():
        raise refuse(f"no database at {db}: create a competition first, or pass --db PATH", as_json)
    try:
        with Store.open(db, read_only=True) as s:
            rows = [c.public() for c in s.list_competitions()]
    except StoreError as e:
        raise refuse(str(e), as_json) from None
    if as_json:
        print(json.dumps(rows))
        return
    for c in rows:
        console.print(competition_text(c), highlight=False)


def competition_text(c: dict) -> str:
    """A competition in one line of markup (`compete list`, `remote whoami`): its name, status,
    ruleset and RULES.md §6.4 options, and policy: ``cup (closed): classic declarations=on
    contree=on; uploads_per_day=10, …``."""
    from ..store.model import variant_options

    options = _options_text(variant_options(c["ruleset"], c["options"]))
    return (f"[bold]{escape(c['name'])}[/] ({c['status']}): {c['ruleset']}" + (f" {options}" if options else "")
            + "; " + ", ".join(f"{k}={v}" for k, v in c["policy"].items()))


CompetitionOption = Annotated[str | None, typer.Option(
    "--competition", metavar="NAME", help="the competition (default: the database's only one)", show_default=False)]


def _no_competition(db: Path) -> str:
    """The refusal of a participant command on a database without any competition."""
    what = f"{db} holds no competition" if db.exists() else f"no database at {db}"
    return f"{what}: create a competition with `{command('compete', 'create', 'NAME', '--ruleset', 'R', db=db)}`, " \
           "or pass the right --db"


def _only_competition(store, given: str | None, as_json: bool, db: Path) -> str:
    if given is not None:
        return given
    names = [c.name for c in store.list_competitions()]
    if not names:
        raise refuse(_no_competition(db), as_json)
    if len(names) > 1:
        raise refuse(f"pass --competition NAME: {db} holds {', '.join(names)}", as_json)
    return names[0]


def _participant_command(action: str, name: str | None, competition: str | None, admin: bool, server: str | None,
                         as_json: bool, db: Path) -> None:
    """add, rotate, revoke or list: through ``server``'s API, or on the database."""
    from ..compete import policy
    from ..compete.client import Remote, RemoteError, resolve
    from ..store import StoreError

    try:
        if server is not None:
            with Remote(*resolve(server)) as r:
                out = {"add": lambda: r.add_participant(name, admin), "rotate": lambda: r.rotate(name),
                       "revoke": lambda: r.revoke(name), "list": r.participants}[action]()
        else:
            if not db.exists():  # not made here: it would hold no competition
                raise refuse(_no_competition(db), as_json)
            store = _writable(db, as_json)
            try:
                comp = _only_competition(store, competition, as_json, db)
                if action == "add":
                    p, token = policy.add_participant(store, comp, name, admin=admin)
                    out = {**p.public(), "token": token}
                elif action == "rotate":
                    p, token = policy.rotate(store, comp, name)
                    out = {**p.public(), "token": token}
                elif action == "revoke":
                    out = policy.revoke(store, comp, name).public()
                else:
                    out = [p.public() for p in store.participants(comp)]
            finally:
                store.close()
    except (RemoteError, StoreError, ValueError) as e:
        raise refuse(str(e), as_json) from None
    if as_json:
        print(json.dumps({"token": out["token"]} if action in ("add", "rotate") else out))
        return
    if action == "list":
        for p in out:
            console.print(f"{escape(p['name'])} ({p['scope']}){'' if p['active'] else ' revoked'}", highlight=False)
    elif action == "revoke":
        console.print(f"revoked the token of {escape(out['name'])}: its requests answer 401 "
                      "(`arena compete participant rotate` issues a new one)", highlight=False)
    else:
        err.print(f"{'new' if action == 'add' else 'rotated'} token of {escape(out['name'])} ({out['scope']}), "
                  "shown only now: give it to them privately", highlight=False)
        print(out["token"])


NameArg = Annotated[str, typer.Argument(help="participant name (1 to 64 letters, digits, '-', '_', '.')")]


@participant_app.command("add")
def participant_add(
    name: NameArg,
    admin: Annotated[bool, typer.Option("--admin", help="an admin token (manages participants) instead")] = False,
    competition: CompetitionOption = None, server: ServerOption = None, as_json: JsonOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Add a participant and print its token, once: the database keeps only its SHA-256."""
    _participant_command("add", name, competition, admin, server, as_json, db)


@participant_app.command("rotate")
def participant_rotate(name: NameArg, competition: CompetitionOption = None, server: ServerOption = None,
                       as_json: JsonOption = False, db: DbOption = DEFAULT_DB) -> None:
    """Give a participant a new token (printed once); the old one answers 401."""
    _participant_command("rotate", name, competition, False, server, as_json, db)


@participant_app.command("revoke")
def participant_revoke(name: NameArg, competition: CompetitionOption = None, server: ServerOption = None,
                       as_json: JsonOption = False, db: DbOption = DEFAULT_DB) -> None:
    """Revoke a participant's token: its requests answer 401 from now on."""
    _participant_command("revoke", name, competition, False, server, as_json, db)


@participant_app.command("list")
def participant_list(competition: CompetitionOption = None, server: ServerOption = None,
                     as_json: JsonOption = False, db: DbOption = DEFAULT_DB) -> None:
    """List participants and admins (name, scope, revoked)."""
    _participant_command("list", None, competition, False, server, as_json, db)


@compete_app.command("serve")
def serve(
    name: Annotated[str, typer.Argument(help="competition name")],
    host: Annotated[str, typer.Option(metavar="ADDRESS", help="address to listen on (another than 127.0.0.1: "
                                      "use TLS or a proxy that adds it)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0: any free one)")] = 8000,
    certfile: Annotated[Path | None, typer.Option(metavar="FILE", help="TLS certificate chain (PEM): serve "
                                                  "https", show_default=False)] = None,
    keyfile: Annotated[Path | None, typer.Option(metavar="FILE", help="TLS private key (PEM)",
                                                 show_default=False)] = None,
    workers: Annotated[int, typer.Option(min=1, max=16, help="uploads checked and validated at once")] = 1,
    ladder_workers: Annotated[int, typer.Option(min=0, max=16, help="ladder units played at once (0: no ladder)")] = 1,
    challenges_per_day: Annotated[int, typer.Option(min=0, help="unrated challenges a participant may ask for in any "
                                                    "24 hours (0: none)")] = 5,
    cluster: Annotated[str | None, typer.Option(metavar="tls://HOST:PORT", help="a Dask scheduler whose workers play "
                                                "the ladder and the final (TLS only: --tls-ca-file, --tls-cert, "
                                                "--tls-key)", show_default=False)] = None,
    tls_ca_file: Annotated[Path | None, typer.Option(metavar="FILE", help="the cluster's CA (PEM)",
                                                     show_default=False)] = None,
    tls_cert: Annotated[Path | None, typer.Option(metavar="FILE", help="this server's certificate for the cluster "
                                                  "(PEM)", show_default=False)] = None,
    tls_key: Annotated[Path | None, typer.Option(metavar="FILE", help="its private key (PEM)",
                                                 show_default=False)] = None,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    as_json: JsonOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Run the competition's server: the API under /api/v1, the pages, the intake, the ladder.

    One process owns the database as its only writer until Ctrl-C. Uploads are
    checked, frozen, checked in the sandbox and validated against the house bot; active
    versions play the ladder (fresh blocks of boards, rated as they land) and, once the
    competition is closed, its final. A server started again resumes the uploads left
    pending and replays the ladder units left playing.
    """
    from referee import sandbox
    from referee.sandbox import report as sandbox_report

    from ..compete.server import serve as run_server, tls_problem
    from ..store import StoreError
    from ..web import ServeError, is_loopback

    if (certfile is None) != (keyfile is None):
        raise refuse("give both --certfile and --keyfile (or neither)", as_json, code=2)
    if certfile is not None and (problem := tls_problem(certfile, keyfile)) is not None:
        raise refuse(problem, as_json, code=2)  # before anything is printed or started
    if not db.exists():
        raise refuse(f"no database at {db}: `arena compete create NAME --db {db}` first", as_json)
    if not no_isolate and not sandbox.support().works:
        raise refuse(f"the bot sandbox is unavailable here ({sandbox.support().problem}): a competition runs "
                     "anyone's code; fix that (SECURITY.md), or pass --no-isolate for trusted bots only", as_json)
    c = _competition_of(db, name, as_json)
    security = None
    if cluster is not None:
        from ..play.cluster import ClusterError, tls_security

        if cluster.startswith("local-tls:"):
            pass  # a LocalCluster over TLS with throwaway credentials (tests, one machine)
        elif not cluster.startswith("tls://"):
            raise refuse(f"--cluster {cluster}: a Dask scheduler runs any code its clients send, so a competition "
                         "server uses one over TLS only: give tls://HOST:PORT with --tls-ca-file, --tls-cert and "
                         "--tls-key (the scheduler and workers started with the same CA)", as_json, code=2)
        elif None in (tls_ca_file, tls_cert, tls_key):
            raise refuse("--cluster tls://… needs --tls-ca-file, --tls-cert and --tls-key", as_json, code=2)
        else:
            try:
                security = tls_security(tls_ca_file, tls_cert, tls_key)
            except ClusterError as e:
                raise refuse(str(e), as_json, code=2) from None
    limits = _limits(c.policy["cpu_s"], c.policy["memory_mib"], not no_isolate, [], weak_limits)
    if not as_json:
        console.print(sandbox_report(limits, brief=True), style="dim", highlight=False)
    if not is_loopback(host) and certfile is None:
        err.print(f"[yellow]warning:[/] listening on {escape(host)} without TLS: tokens cross the network in "
                  "clear; give --certfile/--keyfile or put a TLS proxy in front", highlight=False)

    def announce(url: str) -> None:
        if as_json:
            print(json.dumps({"url": url, "competition": name, "db": str(db)}), flush=True)
        else:
            console.print(f"serving competition {escape(name)} on {url} (API: {url}api/v1, Ctrl-C stops)",
                          highlight=False, soft_wrap=True)

    try:
        run_server(db, name, host, port, limits=limits, workers=workers, certfile=certfile, keyfile=keyfile,
                   announce=announce, ladder_workers=ladder_workers, challenges_per_day=challenges_per_day,
                   cluster=cluster, security=security)
    except (StoreError, ServeError) as e:
        raise refuse(str(e), as_json) from None
    except KeyboardInterrupt:
        pass


def _competition_of(db: Path, name: str, as_json: bool):
    """The competition ``name`` read from ``db`` (closed again before the server opens it)."""
    from ..store import Store, StoreError

    try:
        with Store.open(db, read_only=True) as s:
            c = s.get_competition(name)
    except StoreError as e:
        raise refuse(str(e), as_json) from None
    if c is None:
        raise refuse(f"no competition {name!r} in {db}: `arena compete create {name}` first", as_json)
    return c


BoardsOption = Annotated[int, typer.Option("--boards", min=1, max=10_000, help="boards per pair of the final")]


@compete_app.command("close")
def close(
    name: Annotated[str, typer.Argument(help="competition name")],
    boards: BoardsOption = 64,
    workers: Annotated[int, typer.Option(min=1, max=64, help="tables played at once (local workers)")] = 1,
    server: ServerOption = None,
    no_isolate: NoIsolateOption = False,
    weak_limits: WeakLimitsOption = False,
    as_json: JsonOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Close a competition and play its final.

    Uploads are locked and the ladder ends (its seed revealed); each participant's version chosen
    with `arena remote final` (by default its latest active one) enters a duplicate round robin under a new secret seed, whose commitment
    is printed first. Without --server the final is played here with --workers and its seed
    revealed at the end; with --server (an admin token) the running server plays it.
    """
    from ..compete import final
    from ..compete.client import Remote, RemoteError, resolve
    from ..compete.ladder import ladder_report
    from ..store import StoreError

    if server is not None:
        try:
            with Remote(*resolve(server)) as r:
                out = r.close_competition(boards)
        except RemoteError as e:
            raise refuse(str(e), as_json) from None
        if as_json:
            print(json.dumps(out))
        else:
            console.print(f"closed {escape(name)}: the server plays the final ({len(out['entrants'])} entrants, "
                          f"{out['boards_per_pair']} boards a pair); seed commitment {out['commitment']}",
                          highlight=False)
        return
    store = _writable(db, as_json)
    try:
        c = _competition_in(store, name, as_json)
        limits = _limits(c.policy["cpu_s"], c.policy["memory_mib"], not no_isolate, [], weak_limits)
        t = final.close(store, name, boards=boards)
        if not as_json:
            console.print(f"closed {escape(name)}: final of {len(t.entrants)} entrants, {t.boards_per_pair} boards a "
                          f"pair; seed commitment {t.commitment}", highlight=False)
        store.release()
        summary = final.play(store, name, workers=workers, limits=limits)
        report = ladder_report(store, name)
    except StoreError as e:
        raise refuse(str(e), as_json) from None
    finally:
        store.close()
    if summary.errors:
        raise refuse("the final was interrupted: " + "; ".join(summary.errors[:3])
                     + f" — run `arena compete close {name}` again to resume it", as_json)
    _print_report(report, as_json)


def _competition_in(store, name: str, as_json: bool):
    c = store.get_competition(name)
    if c is None:
        raise refuse(f"no competition {name!r} in this database: `arena compete list` shows them (a running "
                     "server's: give --server URL)", as_json)
    return c


@compete_app.command("standings")
def standings(
    name: Annotated[str, typer.Argument(help="competition name")],
    server: ServerOption = None,
    as_json: JsonOption = False,
    db: DbOption = DEFAULT_DB,
) -> None:
    """The ladder's standings (Elo, 95% interval, board pairs, provisional) and the final's beside them."""
    from ..compete.client import Remote, RemoteError, resolve
    from ..compete.ladder import ladder_report
    from ..store import Store, StoreError

    try:
        if server is not None:
            with Remote(*resolve(server, need_token=False)) as r:  # the ladder is public
                report = r.ladder()
        else:
            if not db.exists():
                raise refuse(f"no database at {db}: give --server URL to read a competition's server, or --db",
                             as_json)
            with Store.open(db, read_only=True) as s:
                _competition_in(s, name, as_json)
                report = ladder_report(s, name)
    except (RemoteError, StoreError) as e:
        raise refuse(str(e), as_json) from None
    _print_report(report, as_json)


def rating_text(r: dict) -> str:
    """An Elo with its 95% interval, whole numbers, as the standings show it (the ladder's, the
    final's, `arena remote status`): ``1512 [1440, 1590]``; ``1746 [≥ 1038]`` for an interval with
    no upper end (every board pair won), ``1254 [≤ 1962]`` with no lower end (as `arena ratings`)."""
    low, high = r["ci_low"], r["ci_high"]
    if low is None and high is None:
        interval = "[-]"
    elif high is None:
        interval = f"[≥ {low:.0f}]"
    elif low is None:
        interval = f"[≤ {high:.0f}]"
    else:
        interval = f"[{low:.0f}, {high:.0f}]"
    return f"{r['elo']:.0f} {interval}"


def _print_report(report: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report))
        return
    lad = report["ladder"]
    console.print(f"[bold]{escape(report['competition'])}[/] ({report['status']}): ladder of {lad['blocks']} blocks, "
                  f"{lad['board_pairs']} board pairs; seed commitment {lad['commitment']}"
                  + (f", seed {lad['seed']}" if lad["seed"] else ""), highlight=False)
    for k, st in enumerate(lad["standings"], 1):
        if st["elo"] is None:  # nothing played yet
            rated = "not rated yet"
        else:
            rated = f"{rating_text(st)} {st['boards']} board pairs" + (" provisional" if st["provisional"] else "")
        console.print(f"{k:>3}. {escape(st['bot'] or '?')} ({escape(st['participant'])}, v{st['version']}, "
                      f"{st['status']}) {rated}", highlight=False)
    fin = report["final"]
    if fin is None:
        return
    console.print(f"final ({fin['status']}): {fin['board_pairs']} of {fin['total']} board pairs; commitment "
                  f"{fin['commitment']}" + (f", seed {fin['seed']}" if fin["seed"] else " (seed secret until done)"),
                  highlight=False)
    for r in fin["standings"]:
        console.print(f"{r['rank']:>3}. {escape(r['name'])}@{escape(r['version'])} ({escape(r['participant'] or '?')}) "
                      f"{rating_text(r)} {r['boards']} board pairs", highlight=False)
