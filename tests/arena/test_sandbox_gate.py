"""Refuse rather than pretend (issue 9 item 4): where the machine cannot make the bot
sandbox, the arena says what is missing and how to get it, runs the sample bots
unsandboxed with a warning, and refuses any other bot unless given --no-isolate."""

from __future__ import annotations

import re

import pytest

from referee import sandbox

from .conftest import SAMPLES, cli, copy_bot, output
from .test_bad_input import refused

MISSING = "bubblewrap (bwrap) not found: reinstall with `make setup`"


@pytest.fixture
def no_sandbox(monkeypatch):
    """This machine as one without bubblewrap: the probe itself finds no bwrap."""
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: None)
    sandbox.support.cache_clear()
    yield
    sandbox.support.cache_clear()


def test_untrusted_bot_refused_without_the_sandbox(tmp_path, no_sandbox):
    mine = copy_bot(SAMPLES / "random", tmp_path / "mine", "2.0.0")
    (mine / "bot.py").write_text((mine / "bot.py").read_text() + "\n# my own bot\n")
    r = cli("match", "--bot", mine, "--bot", SAMPLES / "random", "--boards", "1")
    text = refused(r, "the bot sandbox is unavailable", MISSING, "random@2.0.0", "--no-isolate", code=1)
    assert not re.search(r"\d+ boards? won", text)  # nothing was played
    r = cli("bots", "check", mine)
    refused(r, "the bot sandbox is unavailable", "--no-isolate", code=1)
    db = tmp_path / "a.duckdb"
    r = cli("tournament", "run", "t", "--bots", mine, "--bots", SAMPLES / "greedy", "--boards", "1", "--db", db)
    refused(r, "the bot sandbox is unavailable", code=1)
    assert not (tmp_path / "bots").exists()  # nothing frozen or registered


def test_sample_bots_run_unsandboxed_with_a_warning(tmp_path, no_sandbox):
    r = cli("match", "--bot", SAMPLES / "random", "--bot", SAMPLES / "greedy", "--boards", "1")
    text = output(r)
    assert r.exit_code == 0, text
    assert "the sample bots run without it" in text and MISSING in text
    assert "bot sandbox: OFF: bots run as this user, unisolated" in text  # the line tells the truth


def test_no_isolate_runs_a_trusted_bot_and_says_so(tmp_path, no_sandbox):
    mine = copy_bot(SAMPLES / "random", tmp_path / "mine", "2.0.0")
    (mine / "bot.py").write_text((mine / "bot.py").read_text() + "\n# my own bot\n")
    r = cli("match", "--bot", mine, "--bot", SAMPLES / "random", "--boards", "1", "--no-isolate")
    text = output(r)
    assert r.exit_code == 0, text
    assert "bots run WITHOUT the sandbox" in text and "bot sandbox: OFF: bots run as this user" in text
    assert re.search(r"random@2\.0\.0: \d+ boards? won", text)  # the match was played
