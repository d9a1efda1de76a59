"""``arena bots new NAME --lang python|node|cpp`` (issue 24 item 2): the folder it writes
passes ``arena bots check`` (sandboxed) as written, after the set-up its README and its
"next:" line give (``--build`` runs it). Node.js and C++ need their toolchains: a missing one
fails these tests, saying how to install it (tests/toolchains.py)."""

from __future__ import annotations

import tomllib

import pytest

from arena.play.newbot import LANGUAGES
from tests.toolchains import require

from .conftest import cli, output


@pytest.mark.parametrize("lang", ["python", "node", "cpp"])
def test_a_new_bot_passes_the_check_as_written(tmp_path, lang):
    language = LANGUAGES[lang]
    if lang != "python":
        require(lang)
    r = cli("bots", "new", f"my-{lang}", "--lang", lang, "--dir", tmp_path / "bots", "--author", "Ada",
            *(["--build"] if language.setup else []))
    assert r.exit_code == 0, output(r)
    folder = tmp_path / "bots" / f"my-{lang}"
    assert f"made {folder}: a {language.title} bot; its decisions are in {folder / language.logic}" in r.stdout
    assert f"next: cd {folder} && arena bots check ." in r.stdout
    for command in language.setup:  # what --build ran, echoed
        assert f"$ {' '.join(command)}" in r.stdout
    manifest = tomllib.loads((folder / "bot.toml").read_text())
    assert manifest == {"name": f"my-{lang}", "version": "0.1.0", "author": "Ada", "command": list(language.command),
                        "protocol": "1.0", "rulesets": ["classic", "strict", "all-trumps", "two-player"]}
    readme = (folder / "README.md").read_text()
    assert "arena bots check ." in readme and language.logic in readme
    assert all(" ".join(c[:3]) in readme for c in language.setup)  # the set-up, in the README too

    r = cli("bots", "check", folder, "--ruleset", "two-player", "--db", tmp_path / "a.duckdb")
    assert r.exit_code == 0, output(r)
    assert f"my-{lang}@0.1.0 by Ada — protocol 1.0, bot-info rulesets classic, strict, all-trumps, two-player" in r.stdout
    assert "transport: DecideStream" in r.stdout and "conformance check passed" in r.stdout


def test_the_next_steps_without_build(tmp_path):
    r = cli("bots", "new", "later", "--lang", "cpp", "--dir", tmp_path)
    assert r.exit_code == 0, output(r)
    assert (f"next: cd {tmp_path / 'later'} && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && "
            "cmake --build build -j 2 && arena bots check .") in r.stdout
    assert not (tmp_path / "later" / "build").exists()


def test_an_existing_folder_or_a_bad_name_is_refused_leaving_nothing(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    r = cli("bots", "new", "taken", "--dir", tmp_path)
    assert r.exit_code == 1 and "already exists and is not an empty folder" in output(r)
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["notes.txt"]

    r = cli("bots", "new", "my bot", "--dir", tmp_path)
    assert r.exit_code == 1, output(r)
    said = output(r).replace("\n", "")  # the trial: it named a bot.toml that was never written
    assert "error: name 'my bot' must be 1-40 letters" in said and said.endswith("nothing was written"), said
    assert "bot.toml" not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]  # no folder, no temporary one

    (tmp_path / "empty").mkdir()
    r = cli("bots", "new", "empty", "--lang", "node", "--dir", tmp_path)  # an empty folder is used
    assert r.exit_code == 0, output(r)
    assert (tmp_path / "empty" / "strategy.js").is_file()


def test_a_node_bot_checked_before_its_packages_are_installed_is_told_to_install_them(tmp_path):
    """New-user trial: `bots new --lang node` then `bots check` ended in a SIGABRT and a cut
    stack trace; the check now says what is missing and the command that installs it."""
    r = cli("bots", "new", "nodebot", "--lang", "node", "--dir", tmp_path)
    assert r.exit_code == 0, output(r)
    r = cli("bots", "check", tmp_path / "nodebot")
    assert r.exit_code == 1 and "package.json but no node_modules/" in output(r)
    assert "npm ci --ignore-scripts" in output(r)
