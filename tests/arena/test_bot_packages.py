"""A bot with its own packages (issue 24 item 5): its manifest names a requirements file,
``arena bots submit`` installs it into the frozen copy (here offline, from the wheels the bot
ships in ``wheels/``), the registered content hash covers the packages, and the bot imports
them in the sandbox and plays. A requirements file that fails to install is refused with
pip's last lines; one holding a pip option is refused before pip runs."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import zipfile
from pathlib import Path

import pytest

from arena.play.build import BuildError, read_requirements
from referee.manifest import ManifestError, content_hash, load_manifest

from .conftest import cli, output

PACKAGE = "beloteplus"  # not in the arena's environment (asserted)

PACKAGE_CODE = '''"""A strategy shipped as a package of its own: the bot's every decision is made here."""
from belote_arena_sdk import Bot

__version__ = "0.1.0"


class LastLegal(Bot):
    author = "made by beloteplus 0.1.0"

    def decide(self, request):
        return request.legal_actions[-1]
'''

BOT = '''from beloteplus import LastLegal
from belote_arena_sdk import serve


class Packaged(LastLegal):  # its name and version from bot.toml, beside this file; its decisions: the package's
    pass


if __name__ == "__main__":
    raise SystemExit(serve(Packaged()))
'''

MANIFEST = '''name = "packaged"
version = "1.0.0"
author = "tests"
command = ["python", "bot.py"]
protocol = "1.0"
rulesets = ["classic"]
requirements = "requirements.txt"
'''


def make_wheel(tmp_path: Path) -> Path:
    """A pure-Python wheel of ``beloteplus`` 0.1.0 (PEP 427: the package, its METADATA, WHEEL and
    RECORD with every file's SHA-256), written here with zipfile: no build backend, no network."""
    dist = f"{PACKAGE}-0.1.0.dist-info"
    files = {f"{PACKAGE}/__init__.py": PACKAGE_CODE.encode(),
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 0.1.0\n".encode(),
             f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    digest = {name: base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
              for name, data in files.items()}
    files[f"{dist}/RECORD"] = "".join(f"{name},sha256={digest[name]},{len(data)}\n" for name, data in files.items()
                                      ).encode() + f"{dist}/RECORD,,\n".encode()
    wheel = tmp_path / f"{PACKAGE}-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return wheel


def make_bot(tmp_path: Path, requirements: str, wheel: Path | None) -> Path:
    bot = tmp_path / "packaged"
    (bot / "wheels").mkdir(parents=True)
    (bot / "bot.py").write_text(BOT)
    (bot / "bot.toml").write_text(MANIFEST)
    (bot / "requirements.txt").write_text(requirements)
    if wheel is not None:
        (bot / "wheels" / wheel.name).write_bytes(wheel.read_bytes())
    return bot


def test_a_bot_brings_a_package_installs_it_at_submission_and_plays_with_it(tmp_path, monkeypatch):
    assert importlib.util.find_spec(PACKAGE) is None  # the arena's environment lacks it
    bot = make_bot(tmp_path, f"# the strategy\n{PACKAGE}==0.1.0\n", make_wheel(tmp_path))
    monkeypatch.chdir(tmp_path)
    db = Path("db") / "arena.duckdb"  # relative, as the default --db (new-user trial: pip ran elsewhere)
    r = cli("bots", "submit", bot, "--db", db)
    assert r.exit_code == 0 and "registered packaged@1.0.0" in r.stdout, output(r)
    assert f"installed: {PACKAGE}==0.1.0" in r.stdout, output(r)

    (row,) = json.loads(cli("bots", "list", "--json", "--db", db).stdout)
    copy = db.parent / row["path"]
    assert (copy / "site-packages" / PACKAGE / "__init__.py").read_text() == PACKAGE_CODE
    assert copy.name == content_hash(bot)[:16]  # named by what was submitted ...
    assert row["content_hash"] == content_hash(copy) != content_hash(bot)  # ... registered with what plays
    assert not (bot / "site-packages").exists()  # the submitted folder is left as it was

    again = cli("bots", "submit", bot, "--db", db)  # the same folder again: the same bot, nothing rebuilt
    assert again.exit_code == 0 and "already registered (same content)" in again.stdout, output(again)

    records = tmp_path / "records.jsonl"
    run = cli("tournament", "run", "t", "--bots", "packaged", "--bots", "random", "--boards", 1, "--seed", 5,
              "--records", records, "--db", db)
    assert run.exit_code == 0 and "1 board pairs played now, 0 already stored, 0 faults" in output(run), output(run)
    # its decisions are the package's, the last legal action: in classic's bidding that is never a pass
    # (a take), while a fault's fallback, the first legal action, would be one
    bids = []
    for line in map(json.loads, records.read_text().splitlines()):
        team = 0 if line["ns"] == "packaged@1.0.0" else 1
        bids += [a["bid"] for a in line["record"]["actions"] if "bid" in a and a["seat"] % 2 == team]
    assert bids and "pass" not in bids, bids


def test_bots_check_builds_the_requirements_into_a_temporary_copy(tmp_path):
    """`arena bots check FOLDER` (not submitted) installs the packages into a copy of its own,
    readable by the sandbox's user, and checks that; the folder is left as it was."""
    bot = make_bot(tmp_path, f"{PACKAGE}==0.1.0\n", make_wheel(tmp_path))
    r = cli("bots", "check", bot, "--boards", 1)
    assert r.exit_code == 0 and "conformance check passed" in r.stdout, output(r)
    assert "installing the packages of requirements.txt into a temporary copy" in r.stdout
    assert sorted(p.name for p in bot.iterdir()) == ["bot.py", "bot.toml", "requirements.txt", "wheels"]


def test_a_bots_folder_cannot_stand_in_for_pip_at_submission(tmp_path):
    """Red team 35: pip ran as ``python -m pip`` in the bot's copy, where ``-m`` looks first, so a
    bot shipping ``pip/__main__.py`` ran that as the arena's user, outside any sandbox (then
    handed over to the real pip: its partner's hand at every decision through a relay of its
    own).  The build runs pip isolated (``-I``): the bot's file never runs, the real pip installs."""
    bot = make_bot(tmp_path, f"{PACKAGE}==0.1.0\n", make_wheel(tmp_path))
    marker = tmp_path / "ran-on-the-host"
    (bot / "pip").mkdir()
    (bot / "pip" / "__init__.py").write_text("")
    (bot / "pip" / "__main__.py").write_text(f"open({str(marker)!r}, 'w').write('bot code ran')\n"
                                             "raise SystemExit(0)\n")
    r = cli("bots", "submit", bot, "--db", tmp_path / "db" / "arena.duckdb")
    assert not marker.exists()
    assert r.exit_code == 0 and f"installed: {PACKAGE}==0.1.0" in r.stdout, output(r)


def test_a_wheel_linked_from_elsewhere_is_never_installed(tmp_path):
    """Red team 39: a link in ``wheels/`` to another bot's wheel (in its frozen copy) was followed
    by pip, and that bot's code installed into the thief's. Refused, naming the link; nothing is
    installed or registered. Control: the same wheel as a file of the folder installs."""
    victim = make_wheel(tmp_path)  # the wheel elsewhere on the machine
    bot = make_bot(tmp_path, f"{PACKAGE}==0.1.0\n", None)
    (bot / "wheels" / victim.name).symlink_to(victim)
    db = tmp_path / "db" / "arena.duckdb"
    r = cli("bots", "submit", bot, "--db", db)
    assert r.exit_code == 1, output(r)
    assert f"wheels/{victim.name} is not a regular file (a link" in output(r)
    assert "installed:" not in r.stdout and not list((tmp_path / "db").rglob(f"{PACKAGE}/__init__.py"))
    (bot / "wheels" / victim.name).unlink()
    (bot / "wheels" / victim.name).write_bytes(victim.read_bytes())
    r = cli("bots", "submit", bot, "--db", db)
    assert r.exit_code == 0 and f"installed: {PACKAGE}==0.1.0" in r.stdout, output(r)


def test_requirements_that_fail_to_install_are_refused_with_pips_lines(tmp_path):
    bot = make_bot(tmp_path, "beloteplus-missing==9.9\n", None)  # an empty wheels/: offline, nothing there
    db = tmp_path / "db" / "arena.duckdb"
    r = cli("bots", "submit", bot, "--db", db)
    said = output(r)
    assert r.exit_code == 1, said
    assert "installing its requirements (requirements.txt) from the wheels in its wheels/ folder (offline) failed" \
        in said, said
    assert "pip's last lines:" in said and "No matching distribution found for beloteplus-missing==9.9" in said, said
    assert json.loads(cli("bots", "list", "--json", "--db", db).stdout) == []
    assert not any((db.parent / "bots").rglob("bot.toml"))  # no frozen copy left behind
    # `arena match` builds a folder's requirements too (into a temporary copy): the same refusal
    r = cli("match", "--bot", bot, "--bot", "random", "--boards", 1, "--seed", 1)
    assert r.exit_code == 1 and "No matching distribution found for beloteplus-missing==9.9" in output(r), output(r)


@pytest.mark.parametrize("line, why", [
    ("--index-url http://example.invalid/simple", "not a package requirement"),
    ("-r ../../secrets.txt", "not a package requirement"),
    ("colver @ https://example.invalid/colver.whl", "not a package requirement"),
    ("./vendor/colver", "not a package requirement"),
    # red team 38: pip built a source archive or folder of the bot's own, running its code on the host
    ("evil.zip", "not a package requirement"),
    ("evil.tar.gz", "not a package requirement"),
    ("x${HOME}", "not a package requirement"),  # pip expands it: a folder of the bot, or a secret leaked
])
def test_a_requirements_file_names_packages_only(tmp_path, line, why):
    path = tmp_path / "requirements.txt"
    path.write_text(f"numpy>=1.26  # fine\ncolver[fast]==1.2; python_version >= '3.11'\n{line}\n")
    with pytest.raises(BuildError, match=rf"line 3: .* is {why}"):
        read_requirements(path)
    path.write_text("numpy>=1.26  # fine\n\ncolver[fast]==1.2; python_version >= '3.11'\n")
    assert read_requirements(path) == ["numpy>=1.26", "colver[fast]==1.2; python_version >= '3.11'"]


@pytest.mark.parametrize("value, said", [
    ('"/etc/passwd"', "must be a path inside the bot's folder"),
    ('"../requirements.txt"', "must be a path inside the bot's folder"),
    ('"missing.txt"', "no such file"),
    ('["a.txt"]', "must be the path of a pip requirements file"),
    ('"site-packages/r.txt"', "is in site-packages/"),
])
def test_the_manifest_names_a_requirements_file_of_the_folder(tmp_path, value, said):
    bot = tmp_path / "b"
    bot.mkdir()
    (bot / "bot.toml").write_text(MANIFEST.replace('"requirements.txt"', value))
    with pytest.raises(ManifestError, match=said):
        load_manifest(bot)
