"""Regenerate the Python code of the bot protocol (``make proto``).

Runs ``grpc_tools.protoc`` on every ``.proto`` file under ``protos/`` and
writes, for each ``X.proto``, ``X_pb2.py`` (messages), ``X_pb2.pyi`` (type
stubs) and ``X_pb2_grpc.py`` (service stubs) into the SDK's package
``belote_arena_sdk.proto`` (``sdk/belote_arena_sdk/proto/``), its imports of
each other made relative: the Python package is ours and cannot clash with
another ``belote`` package, while the protocol package on the wire stays
``belote.bot.v1``. The output depends only on the ``.proto`` files and the
installed grpcio-tools version, so it is committed and
``tests/test_proto_fresh.py`` checks that it is fresh.

Usage::

    python protos/generate.py             # write into sdk/belote_arena_sdk/proto (the committed copy)
    python protos/generate.py --out DIR   # write into DIR instead (the freshness test)

Exit status 0 on success; protoc's status (non-zero) with its message on stderr
otherwise.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

PROTO_ROOT = Path(__file__).resolve().parent
"""The include root: ``protos/``; a file's path under it mirrors its package."""

OUT = PROTO_ROOT.parent / "sdk" / "belote_arena_sdk" / "proto"
"""Where the generated modules live: the package ``belote_arena_sdk.proto``."""

GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")
"""What protoc writes for each ``X.proto``: ``X_pb2.py``, ``X_pb2.pyi``, ``X_pb2_grpc.py``."""


def proto_files(root: Path = PROTO_ROOT) -> list[str]:
    """The ``.proto`` files under ``root``, relative to it, sorted (``belote/bot/v1/bot.proto``);
    not those of npm's packages (``node_modules/``: the buf CLI's, buf.yaml)."""
    return sorted(rel for p in root.rglob("*.proto")
                  if (rel := p.relative_to(root).as_posix()).split("/", 1)[0] != "node_modules")


def generated_files(root: Path = PROTO_ROOT) -> list[str]:
    """The names of every generated file for the protos under ``root`` (one flat package)."""
    return [Path(p).stem + suffix for p in proto_files(root) for suffix in GENERATED_SUFFIXES]


def generate(out: Path, root: Path = PROTO_ROOT) -> None:
    """Generate the Python code of every proto under ``root`` into the folder ``out``
    (flat: ``out/bot_pb2.py``), with imports between generated modules made relative
    (``from belote.bot.v1 import bot_pb2`` becomes ``from . import bot_pb2``).

    Raises:
        RuntimeError: when protoc fails (its message went to stderr).
    """
    out.mkdir(parents=True, exist_ok=True)
    well_known = resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "grpc_tools.protoc",
            f"--proto_path={root}",
            f"--proto_path={well_known}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            *proto_files(root),
        ]
        status = protoc.main(args)
        if status != 0:
            raise RuntimeError(f"protoc failed with status {status}")
        packages = {Path(p).parent.as_posix().replace("/", ".") for p in proto_files(root)}
        for path in sorted(Path(tmp).rglob("*")):
            if path.is_file() and path.name.endswith(GENERATED_SUFFIXES):
                text = path.read_text(encoding="utf-8")
                for package in packages:
                    text = re.sub(rf"^from {re.escape(package)} import ", "from . import ", text, flags=re.M)
                (out / path.name).write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (default: sdk/belote_arena_sdk/proto)")
    args = parser.parse_args(argv)
    try:
        generate(args.out)
    except RuntimeError as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 1
    for name in generated_files():
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
