"""``arena bots new``: a ready bot folder in Python, Node.js or C++, from the starters.

The Node.js and C++ templates are the starter bots themselves (``sample_bots/node``,
``sample_bots/cpp``: their source, protocol copy and README, never their build products);
the Python one is ``templates/python`` beside this module (the SDK is its server). Each
new folder gets a manifest of its own (:func:`manifest_text`) and is checked with
:func:`referee.manifest.load_manifest` before it is put in place.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from referee.manifest import ManifestError, load_manifest
from referee.rules import RULESETS

_SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
_PROTO = "proto/belote/bot/v1/bot.proto"


@dataclass(frozen=True)
class Language:
    """How a bot in one language is made, set up and started.

    Attributes:
        name: ``python``, ``node`` or ``cpp`` (``--lang``).
        title: the language's name in prose.
        template: the folder the files come from.
        files: the files copied, relative to ``template`` (never ``bot.toml``: each bot gets its own).
        command: the manifest's ``command``.
        logic: the file holding the decisions, the one an author changes.
        tools: programs the set-up and the bot need, on ``PATH``.
        libraries: pkg-config modules the build needs.
        install: how to install ``tools`` and ``libraries`` (Debian, as root).
        setup: the commands that make the folder ready to play, run in it, in order
            (``node_modules/``, the C++ binary): before play, since a bot has no network.
    """

    name: str
    title: str
    template: Path
    files: tuple[str, ...]
    command: tuple[str, ...]
    logic: str
    tools: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    install: str = ""
    setup: tuple[tuple[str, ...], ...] = ()


LANGUAGES: dict[str, Language] = {
    "python": Language(
        "python", "Python", Path(__file__).resolve().parent / "templates" / "python", ("bot.py", "README.md"),
        ("python", "bot.py"), "bot.py"),
    "node": Language(
        "node", "Node.js", _SAMPLES / "node",
        ("bot.js", "strategy.js", "package.json", "package-lock.json", _PROTO, "README.md", ".gitignore"),
        ("node", "bot.js"), "strategy.js", tools=("node", "npm"), install="apt-get install -y nodejs npm",
        setup=(("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"),)),
    "cpp": Language(
        "cpp", "C++", _SAMPLES / "cpp",
        ("CMakeLists.txt", "src/main.cpp", "src/strategy.cpp", "src/strategy.h", _PROTO, "README.md", ".gitignore"),
        ("./bot",), "src/strategy.cpp", tools=("cmake", "c++", "pkg-config", "protoc", "grpc_cpp_plugin"),
        libraries=("grpc++", "protobuf"),
        install="apt-get install -y cmake g++ pkg-config libgrpc++-dev protobuf-compiler-grpc",
        setup=(("cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"), ("cmake", "--build", "build", "-j", "2"))),
}


class NewBotError(ValueError):
    """The folder cannot be made (it exists and is not empty, a bad name) or set up; the message says why."""


def missing(language: Language) -> list[str]:
    """The programs and libraries ``language``'s set-up needs that this machine lacks (empty: none)."""
    gone = [t for t in language.tools if shutil.which(t) is None]
    if language.libraries and shutil.which("pkg-config"):
        gone += [lib for lib in language.libraries
                 if subprocess.run(["pkg-config", "--exists", lib], check=False).returncode != 0]
    return gone


def manifest_text(name: str, author: str, language: Language, version: str = "0.1.0") -> str:
    """The new bot's ``bot.toml`` (docs/PROTOCOL.md §1), playing every ruleset."""
    def text(s: str) -> str:  # a TOML basic string (JSON's escapes are TOML's)
        return json.dumps(s, ensure_ascii=False)

    return (f"# A Belote Arena bot in {language.title}: its decisions are in {language.logic} (README.md).\n"
            f"name = {text(name)}\nversion = {text(version)}\nauthor = {text(author)}\n"
            f"command = [{', '.join(map(text, language.command))}]\nprotocol = \"1.0\"\n"
            f"rulesets = [{', '.join(map(text, RULESETS))}]\n")


def new_bot(name: str, language: Language, parent: Path, author: str) -> Path:
    """Write a bot folder ``parent/name`` from ``language``'s template, with its manifest;
    return the folder. It is made under a temporary name and put in place once its
    manifest loads, so a refused name leaves nothing behind.

    Raises:
        NewBotError: the folder exists and is not empty, ``parent`` cannot be written,
            or the manifest is refused (e.g. a name with a space: the message says why).
    """
    folder = parent / name
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise NewBotError(f"{folder} already exists and is not an empty folder: choose another name or --dir")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{name[:40]}.", dir=parent))
    except OSError as e:
        raise NewBotError(f"cannot write in {parent}: {e.strerror or e}") from None
    try:
        work.chmod(0o755)
        for rel in language.files:
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(language.template / rel, work / rel)
        (work / "bot.toml").write_text(manifest_text(name, author, language), encoding="utf-8")
        load_manifest(work)
        if folder.exists():
            folder.rmdir()
        os.rename(work, folder)
    except ManifestError as e:
        said = str(e).replace(f"{work.resolve()}/bot.toml: ", "").replace(str(work.resolve()), str(folder.resolve()))
        raise NewBotError(f"{said}: nothing was written") from None
    except OSError as e:
        raise NewBotError(f"cannot write {folder}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder


def set_up(folder: Path, language: Language, echo: Callable[[str], None] = print) -> None:
    """Run ``language``'s set-up commands in ``folder`` (``npm ci``, the C++ build), each
    echoed first; their output goes to this process's.

    Raises:
        NewBotError: a program is missing (the message says how to install it) or a command failed.
    """
    if gone := missing(language):
        raise NewBotError(f"{language.title} bots need {', '.join(gone)}: install with `{language.install}` "
                          "(Debian, as root)")
    for command in language.setup:
        echo(" ".join(command))
        if subprocess.run(command, cwd=folder, check=False).returncode != 0:
            raise NewBotError(f"`{' '.join(command)}` failed in {folder} (its output is above)")
