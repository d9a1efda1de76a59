"""Every hand-checked deal record in tests/data/cases, through the rules and through the CLI.

Each file is ``{"record", "expected": {"contract", "score", "pot"?} | {"error_index"}, "why"}``
(tests/data/cases/README.md); the expected values were worked out by hand from RULES.md.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from referee.rules import RULESETS, RecordError, load_record, parse_record, replay

CASES = Path(__file__).resolve().parents[1] / "data" / "cases"
FILES = sorted(CASES.rglob("*.json"))
IDS = [str(f.relative_to(CASES)) for f in FILES]


def _case(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_case_files_cover_every_ruleset_with_enough_cases():
    counts = Counter(f.relative_to(CASES).parts[0] for f in FILES if "invalid" not in f.parts)
    assert set(counts) == set(RULESETS)
    assert counts["classic"] + counts["strict"] >= 20
    assert counts["all-trumps"] >= 10 and counts["two-player"] >= 10
    assert sum("invalid" in f.parts for f in FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_case_file_is_well_formed(path):
    case = _case(path)
    assert set(case) >= {"record", "expected", "why"} and case["why"].strip()
    ruleset = path.relative_to(CASES).parts[0]
    assert case["record"]["ruleset"] == ruleset
    if "invalid" in path.parts:
        assert set(case["expected"]) == {"error_index"}
    else:
        assert set(case["expected"]) <= {"contract", "score", "pot"}
        assert {"contract", "score"} <= set(case["expected"])


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_replay_gives_the_hand_checked_result(path):
    case = _case(path)
    want = case["expected"]
    record = load_record(path)
    if "error_index" in want:
        with pytest.raises(RecordError) as err:
            replay(record)
        assert err.value.index == want["error_index"]
        seat = case["record"]["actions"][want["error_index"]]["seat"]
        assert err.value.seat == seat
        assert err.value.rule and err.value.rule.startswith("§")
        return
    outcome = replay(record).outcome()
    assert outcome.contract == want["contract"]
    assert list(outcome.score) == want["score"]
    assert outcome.pot == want.get("pot", 0)


@pytest.mark.parametrize("path", [f for f in FILES if "invalid" not in f.parts],
                         ids=[i for i, f in zip(IDS, FILES) if "invalid" not in f.parts])
def test_case_record_round_trips_through_json(path):
    record = load_record(path)
    again = parse_record(json.loads(json.dumps(record.to_json())))
    assert again.to_json() == record.to_json()
    assert replay(again).outcome() == replay(record).outcome()


# ----------------------------------------------------------------------------- the CLI
@pytest.fixture(scope="module")
def runner():
    return CliRunner()


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_cli_replay_json(runner, path):
    want = _case(path)["expected"]
    result = runner.invoke(app, ["replay", str(path), "--json"])
    if "error_index" in want:
        assert result.exit_code == 2, result.output
        assert f"action {want['error_index']}" in result.output
        return
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["contract"] == want["contract"]
    assert out["score"] == want["score"]
    assert out["pot"] == want.get("pot", 0)


def test_cli_replay_refuses_a_file_that_is_not_json(runner, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    result = runner.invoke(app, ["replay", str(bad), "--json"])
    assert result.exit_code == 2
    assert "not JSON" in result.output
