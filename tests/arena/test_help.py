"""Help and messages that keep what they say (issue 14 item 7): every command's help
fits 80 columns, shows placeholders in one style (no Python types, no ``<bool>`` on
flags, defaults in typer's brackets or the help's parentheses), and mistakes get
"did you mean" or "does not exist"; usage errors exit 2, refused requests 1."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from typer.main import get_command

from arena.cli import app

from .conftest import REPO, SAMPLES, cli, output


def commands(group=None, path=()):
    group = group or get_command(app)
    yield path
    for name, sub in getattr(group, "commands", {}).items():
        yield from commands(sub, (*path, name))


ALL = list(commands())


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "arena")
def test_help_fits_80_columns_with_one_placeholder_style(path):
    out = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", *path, "--help"], cwd=REPO,
                         env=dict(os.environ, COLUMNS="80", TERM="dumb"), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Usage:" in text
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert not too_long, too_long
    assert not re.search(r"<(bool|str|path|int|list|float)[^>]*>", text), text
    # no sentence broken mid-line: a description line is cut short only where its paragraph ends
    # (typer keeps a docstring's own line breaks unless the arena reflows it)
    lines = text.split("╭")[0].splitlines()
    for line, after in zip(lines, lines[1:]):
        word = after.split()[0] if after.strip() else ""
        if line.strip() and word and not re.match(r"([-*]|\d+\.)$", word):
            assert len(line.rstrip()) + 1 + len(word) > 78, f"broken mid-sentence:\n{line}\n{after}"
    assert "{folder}" not in text and "{name}" not in text


def test_bots_spelled_alike_in_match_and_tournament_run(tmp_path):
    """`--bot` and `--bots` are the same option in both commands."""
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", "t", "--bot", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--boards", 1,
            "--seed", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    r = cli("match", "--bots", SAMPLES / "random", "--bot", SAMPLES / "greedy", "--boards", 1, "--seed", 1)
    assert r.exit_code == 0, output(r)


def test_mistakes_get_did_you_mean_and_does_not_exist(tmp_path):
    db = tmp_path / "arena.duckdb"
    r = cli("tournament", "run", "club", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy", "--boards", 1,
            "--seed", 1, "--db", db)
    assert r.exit_code == 0, output(r)
    r = cli("ratings", "--tournament", "clb", "--db", db)
    assert r.exit_code == 1 and "did you mean 'club'?" in r.stderr, output(r)
    r = cli("tournament", "show", "cluub", "--db", db)
    assert r.exit_code == 1 and "did you mean 'club'?" in r.stderr, output(r)
    r = cli("matches", "--bot", "gredy", "--db", db)
    assert r.exit_code == 1 and "did you mean 'greedy'?" in r.stderr, output(r)
    r = cli("bots", "check", tmp_path / "nowhere")
    assert r.exit_code == 1 and "nowhere does not exist" in r.stderr, output(r)
    r = cli("replay", tmp_path / "nowhere.json")
    assert r.exit_code == 2 and "does not exist" in r.stderr, output(r)
    r = cli("ratings", "--ruleset", "clasic", "--db", db)  # a usage error: typer's exit 2, the choices listed
    assert r.exit_code == 2 and "'classic', 'strict', 'all-trumps', 'two-player'" in output(r)


def test_a_slow_field_s_speed_is_said_in_a_unit_that_shows_it():
    """issue 20: a board pair every 20 s read "0.0/s" on the progress bar."""
    from arena.cli.tournament import rate_text

    assert rate_text(5, 2.0) == "2.5/s"
    assert rate_text(3, 60.0) == "3.0/min"  # 0.05/s
    assert rate_text(1, 1200.0) == "3.0/h"
    assert rate_text(0, 5.0) == ""
