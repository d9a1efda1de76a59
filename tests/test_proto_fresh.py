"""The committed generated code (sdk/belote_arena_sdk/proto) matches what ``make proto`` writes now."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTOS = ROOT / "protos"
GENERATED = ROOT / "sdk" / "belote_arena_sdk" / "proto"


def _load_generate():
    """protos/generate.py as a module (protos/ is not a package)."""
    spec = importlib.util.spec_from_file_location("belote_protos_generate", PROTOS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_generate = _load_generate()
GENERATED_SUFFIXES, generate, proto_files = _generate.GENERATED_SUFFIXES, _generate.generate, _generate.proto_files


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    """Regenerate into a temporary folder and compare every generated file byte for byte."""
    run = subprocess.run(
        [sys.executable, str(PROTOS / "generate.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, f"protos/generate.py failed:\n{run.stderr}"
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written, "protos/generate.py wrote nothing"
    stale = [
        name
        for name in written
        if not (GENERATED / name).is_file() or (GENERATED / name).read_bytes() != (tmp_path / name).read_bytes()
    ]
    assert not stale, f"generated code is stale or missing: {stale}; run `make proto` and commit the result"
    # and nothing generated from a .proto that is gone (or renamed) is left behind
    committed = sorted(p.name for p in GENERATED.iterdir() if p.name.endswith(GENERATED_SUFFIXES))
    assert committed == written, (f"generated files without their .proto: {sorted(set(committed) - set(written))}; "
                                  "delete them (`make proto` writes only what the protos make)")


def test_the_regeneration_covers_every_proto_and_notices_a_change(tmp_path: Path) -> None:
    """The freshness check regenerates from every .proto of protos/ (the one file of belote.bot.v1),
    and a change of the .proto changes what it writes (a control: comparing two runs that ignore
    the .proto would pass forever)."""
    assert proto_files() == ["belote/bot/v1/bot.proto"]
    changed = tmp_path / "protos"
    shutil.copytree(PROTOS / "belote", changed / "belote")
    proto = changed / "belote" / "bot" / "v1" / "bot.proto"
    text = proto.read_text(encoding="utf-8")
    proto.write_text(text.replace("  Rank top_rank = 5;", "  Rank top_rank = 5;\n  // A field added.\n  bool added = 99;"),
                     encoding="utf-8")
    generate(tmp_path / "out", root=changed)
    for name in ("bot_pb2.py", "bot_pb2.pyi"):
        assert (tmp_path / "out" / name).read_bytes() != (GENERATED / name).read_bytes(), name
    assert "added" in (tmp_path / "out" / "bot_pb2.pyi").read_text(encoding="utf-8")


def test_generated_package_imports() -> None:
    """The generated code is ``belote_arena_sdk.proto`` (no top-level ``belote`` package to clash
    with another project's), and the protocol package on the wire is still ``belote.bot.v1``."""
    import importlib.util

    from belote_arena_sdk.proto import bot_pb2, bot_pb2_grpc

    assert importlib.util.find_spec("belote") is None
    assert bot_pb2.DESCRIPTOR.package == "belote.bot.v1"
    assert bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name == "belote.bot.v1.BotService"
    assert "BotService" in bot_pb2.DESCRIPTOR.services_by_name
    assert hasattr(bot_pb2_grpc, "BotServiceStub")


def _descriptor_set(tmp_path: Path):
    """The protos' FileDescriptorSet with source info (comments), as protoc builds it."""
    from google.protobuf import descriptor_pb2
    from grpc_tools import protoc

    out = tmp_path / "set.pb"
    files = proto_files()
    status = protoc.main(
        ["protoc", f"--proto_path={PROTOS}", "--include_source_info", f"--descriptor_set_out={out}", *files]
    )
    assert status == 0
    return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _snake_to_upper(name: str) -> str:
    """``DeclarationKind`` -> ``DECLARATION_KIND``."""
    return "".join("_" + c if c.isupper() and i else c for i, c in enumerate(name)).upper()


def test_proto_style(tmp_path: Path) -> None:
    """The buf style rules of ARCHITECTURE.md: package = directory, enum zero values
    ``*_UNSPECIFIED``, values prefixed with the enum name, RPC-named requests and
    responses, plural repeated fields, and a comment on every message, field, enum,
    enum value, service and RPC."""
    from google.protobuf import descriptor_pb2

    problems: list[str] = []
    for f in _descriptor_set(tmp_path).file:
        assert Path(f.name).parent.as_posix() == f.package.replace(".", "/"), f.name
        commented = {tuple(loc.path) for loc in f.source_code_info.location if loc.leading_comments.strip()}

        def need_comment(path: tuple[int, ...], what: str) -> None:
            if path not in commented:
                problems.append(f"{f.name}: no comment on {what}")

        def check_message(msg, path: tuple[int, ...], prefix: str) -> None:
            need_comment(path, f"message {prefix}{msg.name}")
            for i, field in enumerate(msg.field):
                need_comment(path + (2, i), f"field {prefix}{msg.name}.{field.name}")
                repeated = field.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                is_map = field.type_name.endswith("Entry")
                if repeated and not is_map and not field.name.endswith("s"):
                    problems.append(f"{f.name}: repeated field {msg.name}.{field.name} is not plural")
            for i, nested in enumerate(msg.nested_type):
                if not nested.options.map_entry:
                    check_message(nested, path + (3, i), f"{prefix}{msg.name}.")

        for i, msg in enumerate(f.message_type):
            check_message(msg, (4, i), "")
        for i, enum in enumerate(f.enum_type):
            need_comment((5, i), f"enum {enum.name}")
            prefix = _snake_to_upper(enum.name) + "_"
            if enum.value[0].name != prefix + "UNSPECIFIED" or enum.value[0].number != 0:
                problems.append(f"{f.name}: enum {enum.name} zero value is not {prefix}UNSPECIFIED")
            for j, value in enumerate(enum.value):
                need_comment((5, i, 2, j), f"enum value {value.name}")
                if not value.name.startswith(prefix):
                    problems.append(f"{f.name}: enum value {value.name} lacks prefix {prefix}")
        for i, service in enumerate(f.service):
            need_comment((6, i), f"service {service.name}")
            if not service.name.endswith("Service"):
                problems.append(f"{f.name}: service {service.name} should end with Service")
            for j, rpc in enumerate(service.method):
                need_comment((6, i, 2, j), f"rpc {rpc.name}")
                for got, want in ((rpc.input_type, rpc.name + "Request"), (rpc.output_type, rpc.name + "Response")):
                    if got.rsplit(".", 1)[-1] != want:
                        problems.append(f"{f.name}: rpc {rpc.name} uses {got}, want {want}")
    assert not problems, "\n".join(problems)
