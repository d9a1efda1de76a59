"""The protocol linted and guarded (issue 24 item 3): ``buf lint`` with protos/buf.yaml's rules,
and ``buf breaking`` against protos/v1.binpb, the image of bot.proto as first published to bot
authors, both pass; a control shows that ``buf breaking`` does catch a renamed field, a
renumbered field and a removed enum value, and that lint catches an enum value without its
prefix. buf comes from npm (protos/package.json; tests/toolchains.py installs it when missing)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.toolchains import PROTOS, buf

PROTO = "belote/bot/v1/bot.proto"
BASELINE = PROTOS / "v1.binpb"


def run_buf(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(buf()), *args, "--error-format", "text"], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_the_baseline_is_v1_as_first_published():
    """The stored image needs no git history, holds the one file of belote.bot.v1 with the service
    as first published (four unary RPCs, before DecideStream), and DeclarationEvent as published
    (top_rank, a Rank: not the draft's top_card)."""
    from google.protobuf import descriptor_pb2

    image = descriptor_pb2.FileDescriptorSet.FromString(BASELINE.read_bytes())  # an Image is one on the wire
    assert [(f.name, f.package) for f in image.file] == [(PROTO, "belote.bot.v1")]
    (service,) = image.file[0].service
    assert (service.name, [m.name for m in service.method]) == (
        "BotService", ["GetBotInfo", "StartMatch", "EndMatch", "Decide"])
    event = next(m for m in image.file[0].message_type if m.name == "DeclarationEvent")
    assert {f.name: (f.number, f.type_name) for f in event.field}["top_rank"] == (5, ".belote.bot.v1.Rank")


def test_buf_lint_and_breaking_pass():
    lint = run_buf("lint", cwd=PROTOS)
    assert lint.returncode == 0 and lint.stdout == "", f"buf lint:\n{lint.stdout}{lint.stderr}"
    breaking = run_buf("breaking", "--against", str(BASELINE), cwd=PROTOS)
    assert breaking.returncode == 0 and breaking.stdout == "", f"buf breaking:\n{breaking.stdout}{breaking.stderr}"


def broken_copy(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of protos/ (buf.yaml and the .proto, not node_modules) with ``old`` replaced by ``new``
    once in bot.proto; returns the copy's folder."""
    copy = tmp_path / "protos"
    (copy / PROTO).parent.mkdir(parents=True)
    shutil.copyfile(PROTOS / "buf.yaml", copy / "buf.yaml")
    text = (PROTOS / PROTO).read_text(encoding="utf-8")
    assert len(re.findall(old, text, flags=re.M)) == 1, old
    (copy / PROTO).write_text(re.sub(old, new, text, flags=re.M), encoding="utf-8")
    return copy


@pytest.mark.parametrize("old, new, said", [
    (r"^  Rank top_rank = 5;", "  Rank highest_rank = 5;",
     'Field "5" on message "DeclarationEvent" changed name from "top_rank" to "highest_rank"'),
    (r"^  Rank top_rank = 5;", "  Rank top_rank = 50;",
     'Previously present field "5" with name "top_rank" on message "DeclarationEvent" was deleted'),
    (r"^  SUIT_CLUBS = 4;\n", "",
     'Previously present enum value "4" on enum "Suit" was deleted'),
], ids=["renamed field", "renumbered field", "removed enum value"])
def test_buf_breaking_catches_a_broken_copy(tmp_path, old, new, said):
    copy = broken_copy(tmp_path, old, new)
    assert run_buf("lint", cwd=copy).returncode == 0  # still good style: only the baseline can tell
    breaking = run_buf("breaking", "--against", str(BASELINE), cwd=copy)
    assert breaking.returncode != 0 and said in breaking.stdout, breaking.stdout + breaking.stderr
    assert breaking.stdout.startswith(f"{PROTO}:")  # where it is, for the author to fix


def test_buf_lint_catches_an_enum_value_without_its_prefix(tmp_path):
    copy = broken_copy(tmp_path, r"^  SUIT_CLUBS = 4;", "  CLUBS = 4;")
    lint = run_buf("lint", cwd=copy)
    assert lint.returncode != 0 and 'Enum value name "CLUBS" should be prefixed with "SUIT_"' in lint.stdout, \
        lint.stdout + lint.stderr
