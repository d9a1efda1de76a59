"""Attack bot 'attack_files' (tests/bots/README.md, issue 9): code theft and tampering.

``python bot.py --out DIR [--db-dir D ...] [--repo R ...]``: ``D`` an arena's results folder
(where ``arena.duckdb`` and the frozen copies ``bots/NAME/VERSION`` live), ``R`` the project
tree, as an attacker who knows the layout would guess them. It also looks for them itself:
the host path of its own frozen copy (``/proc/self/mountinfo``, ``/proc/1/cmdline``: its
grand-grand-parent is the results folder), ``/proc/*/cwd``, and ``results/`` folders it can
walk. On its first decision each process tries, and reports (tests/bots/attack_common.py):

- ``files:read-frozen-others`` / ``files:write-frozen-others``: read, append a marker to and
  create files in other entrants' frozen copies (``D/bots/*/*``);
- ``files:read-db`` / ``files:write-db``: read the DuckDB file; append to it and open it with
  ``duckdb`` to create a table;
- ``files:read-project`` / ``files:write-project``: read the referee's and the arena's code;
  append a marker to and create files in ``referee/``, ``arena/``, ``sample_bots/``;
- ``files:plant-pth``: a ``.pth`` in the interpreter's ``site-packages`` (code every later
  ``arena`` command would run);
- ``files:write-own-code``: append to its own ``bot.py`` and create a file in its own code
  folder (``/arena/bot``).

Every marker and planted file is named or contains ``attack-planted-<token>``; each line lists
the paths it tried (``tried``) so the test can look at them on the host. Plays a random legal action.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sysconfig

from attack_common import TOKEN, Reporter, why
from belote_arena_sdk import Bot, pb, serve

MARK = f"attack-planted-{TOKEN}"


def outcome(results: dict[str, str]) -> str:
    """``results``: path -> "ok ..." or an errno text."""
    ok = {k: v for k, v in results.items() if v.startswith("ok")}
    if ok:
        return f"{ok}"
    if not results:
        return "blocked: nothing found to try"
    return "blocked: " + "; ".join(f"{k}: {v}" for k, v in list(results.items())[:12])


def each(paths, fn) -> dict[str, str]:
    res = {}
    for p in paths:
        try:
            res[p] = "ok " + fn(p)
        except Exception as e:  # noqa: BLE001 - a failure is the result
            res[p] = why(e)
    return res


def append(path: str) -> str:
    with open(path, "a") as f:
        f.write(f"\n# {MARK}\n")
    return "appended"


def create(folder: str, suffix: str = ".py") -> str:
    with open(os.path.join(folder, MARK + suffix), "w") as f:
        f.write(f"# {MARK}\n")
    return "created"


def read(path: str) -> str:
    with open(path, "rb") as f:
        return f"read {len(f.read(1 << 20))} bytes"


class FilesBot(Bot):
    def __init__(self, out: str, db_dirs: list[str], repos: list[str]):
        super().__init__()
        self.report = Reporter(out, bot="attack_files")
        self.db_dirs, self.repos = list(db_dirs), list(repos)
        self.name_ = self.info().name

    def discover(self) -> None:
        """Add the results folder and project trees it can infer from what it sees."""
        text = ""
        for path in ("/proc/self/mountinfo", "/proc/1/cmdline", "/proc/self/cmdline"):
            try:
                text += open(path, "rb").read().decode("latin-1").replace("\0", " ") + "\n"
            except OSError:
                continue
        for m in re.finditer(r"(/\S+)/bots/[^/\s]+/[^/\s]+\s", text):  # a frozen copy: D/bots/NAME/VERSION
            self.db_dirs.append(m.group(1))
        for m in re.finditer(r"(/\S+)/(?:\.venv|sample_bots|protos)\b", text):  # the project's tree
            self.repos.append(m.group(1))
        for link in glob.glob("/proc/*/cwd"):
            try:
                cwd = os.readlink(link)
            except OSError:
                continue
            self.db_dirs.append(os.path.join(cwd, "results"))
            self.repos.append(cwd)
        for root, dirs, _ in os.walk("/", onerror=lambda e: None):
            dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/dev", "/usr")]
            if "results" in dirs:
                self.db_dirs.append(os.path.join(root, "results"))
        self.db_dirs = sorted(set(self.db_dirs))
        self.repos = sorted(set(self.repos))
        self.report.write(attack="files:discovered", db_dirs=self.db_dirs, repos=self.repos)

    def others_frozen(self) -> list[str]:
        """Other entrants' frozen copies: every D/bots/NAME/VERSION folder but its own name's."""
        out = []
        for d in self.db_dirs:
            for copy in sorted(glob.glob(os.path.join(d, "bots", "*", "*"))) or [os.path.join(d, "bots", "*", "*")]:
                if f"/bots/{self.name_}/" not in copy:
                    out.append(copy)
        return out

    def attempt(self, attack: str, paths: list[str], fn) -> None:
        self.report.attempt(attack, lambda: outcome(each(paths, fn)), tried=paths)

    def attack(self) -> None:
        self.discover()
        frozen = self.others_frozen()
        frozen_files = [os.path.join(c, "bot.py") for c in frozen]
        self.attempt("files:read-frozen-others", frozen_files, read)
        self.attempt("files:write-frozen-others", frozen_files + frozen,
                     lambda p: append(p) if p.endswith(".py") else create(p))
        dbs = [os.path.join(d, "arena.duckdb") for d in self.db_dirs]
        self.attempt("files:read-db", dbs, read)
        self.attempt("files:write-db", dbs, self.write_db)
        code = [os.path.join(r, p) for r in self.repos for p in ("referee/match.py", "arena/store/__init__.py")]
        self.attempt("files:read-project", code, read)
        folders = [os.path.join(r, p) for r in self.repos for p in ("referee", "arena", "sdk/belote_arena_sdk")]
        self.attempt("files:write-project", code + [os.path.join(r, "sdk/belote_arena_sdk/__init__.py") for r in self.repos]
                     + folders, lambda p: append(p) if p.endswith(".py") else create(p))
        site = sysconfig.get_paths()["purelib"]
        self.attempt("files:plant-pth", [site] + [os.path.join(r, ".venv") for r in self.repos],
                     lambda p: create(p, ".pth"))
        self.attempt("files:write-own-code", ["/arena/bot/bot.py", "/arena/bot"],
                     lambda p: append(p) if p.endswith(".py") else create(p))

    @staticmethod
    def write_db(path: str) -> str:
        results = []
        try:
            append(path)
            results.append("appended")
        except OSError as e:
            results.append(f"append: {why(e)}")
        try:
            import duckdb

            con = duckdb.connect(path)
            con.execute(f'CREATE TABLE "{MARK}" (x INTEGER)')
            con.close()
            results.append("table created")
        except Exception as e:  # noqa: BLE001
            results.append(f"duckdb: {why(e)}")
        if any(r in ("appended", "table created") for r in results):
            return ", ".join(results)
        raise OSError(" / ".join(results))

    def decide(self, request: pb.DecideRequest) -> pb.Action:
        return self.rng.choice(request.legal_actions)


if __name__ == "__main__":
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--out", required=True)
    p.add_argument("--db-dir", action="append", default=[])
    p.add_argument("--repo", action="append", default=[])
    args, rest = p.parse_known_args()
    bot = FilesBot(args.out, args.db_dir, args.repo)
    bot.attack()  # at start-up, not in a decision: walking every file it sees takes longer than a deadline
    raise SystemExit(serve(bot, rest))
