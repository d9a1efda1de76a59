"""Bot manifests (``bot.toml``): who a bot is and how to start it.

Required keys::

    name = "heuristic"            # letters, digits, '-', '_' ; 1-40 characters
    version = "1.0.0"             # 1-40 letters, digits, ".", "_", "+", "-"; starts with a letter or digit
    author = "Belote Arena"
    command = ["python", "bot.py"]  # run with cwd = the bot's folder; "python" is the arena's own
    protocol = "1.0"              # the belote.bot.v1 protocol version the bot speaks

Optional: ``rulesets = ["classic", ...]`` (default: all four).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from referee.rules import RULESETS

PROTOCOL_MAJOR = "1"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,39}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: The fields of a manifest (docs/PROTOCOL.md §1); any other is refused (a misspelt
#: ``rulesets`` would otherwise enter the bot in every ruleset).
FIELDS = ("name", "version", "author", "command", "protocol", "rulesets")
#: Largest manifest read, bytes.
MAX_MANIFEST_BYTES = 64 * 1024
#: Largest submission: its files' total size, MiB, and their number (caches and VCS folders
#: not counted). Room for a virtual environment or a node_modules folder.
MAX_BOT_MIB = 1024
MAX_BOT_FILES = 100_000


class ManifestError(ValueError):
    """A missing or malformed bot manifest; the message says what to fix."""


@dataclass(frozen=True)
class Manifest:
    """A validated manifest; ``folder`` is the bot's directory (absolute)."""

    name: str
    version: str
    author: str
    command: tuple[str, ...]
    protocol: str
    rulesets: tuple[str, ...]
    folder: Path
    text: str

    @property
    def key(self) -> str:
        """The entrant key ``name@version``."""
        return f"{self.name}@{self.version}"

    def check_plays(self, ruleset: str) -> None:
        """Refuse a ruleset the manifest does not list (the one message of every command).

        Raises:
            ManifestError: ``ruleset`` is not in ``rulesets``.
        """
        if ruleset not in self.rulesets:
            raise ManifestError(f"{self.key} does not play {ruleset} (its bot.toml lists {', '.join(self.rulesets)})")


def load_manifest(folder: str | Path) -> Manifest:
    """Read and validate ``folder/bot.toml``.

    Raises:
        ManifestError: no such folder or file, not TOML, a missing or wrong field,
            or a protocol version this referee does not speak.
    """
    folder = Path(folder).resolve()
    path = folder / "bot.toml"
    if not folder.exists():
        raise ManifestError(f"{folder} does not exist: give the bot's folder (the one holding bot.toml)")
    if not folder.is_dir():
        raise ManifestError(f"{folder} is not a folder: give the bot's folder (the one holding bot.toml)")
    try:
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise ManifestError(f"{path} must be a regular file (not a symbolic link, device or folder)")
        with open(path, "rb") as f:
            raw = f.read(MAX_MANIFEST_BYTES + 1)
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{path} is larger than {MAX_MANIFEST_BYTES // 1024} KiB: a manifest is a few lines")
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ManifestError(f"{path} is not UTF-8 text") from None
    except FileNotFoundError:
        raise ManifestError(f"{path} not found: a bot folder needs a bot.toml manifest (see docs/PROTOCOL.md)") from None
    except OSError as e:
        raise ManifestError(f"cannot read {path}: {e.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"{path} is not valid TOML: {e}") from None

    def need(key: str, kind, what: str):
        if key not in data:
            raise ManifestError(f"{path}: missing field {key!r} ({what})")
        value = data[key]
        if not isinstance(value, kind):
            raise ManifestError(f"{path}: field {key!r} must be {what}, got {value!r}")
        return value

    extra = sorted(set(data) - set(FIELDS))
    if extra:
        close = difflib.get_close_matches(extra[0], FIELDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ManifestError(f"{path}: unknown field {extra[0]!r}{hint}: a manifest holds {', '.join(FIELDS)}")
    name = need("name", str, "a name of letters, digits, '-' or '_'")
    if not _NAME.match(name):
        raise ManifestError(f"{path}: name {name!r} must be 1-40 letters, digits, '-' or '_', starting with a letter or digit")
    version = need("version", str, 'a version string such as "1.0.0"')
    if not _VERSION.match(version):
        raise ManifestError(f"{path}: version {version!r} must be 1-40 letters, digits, '.', '_', '+' or '-', "
                            "starting with a letter or digit")
    author = need("author", str, "the author's name")
    if len(author) > 100 or _CONTROL.search(author):
        raise ManifestError(f"{path}: author must be at most 100 characters, without control characters")
    command = need("command", list, 'a list of strings such as ["python", "bot.py"]')
    if not command or not all(isinstance(x, str) and x for x in command):
        raise ManifestError(f"{path}: command must be a non-empty list of strings such as [\"python\", \"bot.py\"]")
    protocol = need("protocol", str, 'the protocol version, "1.0"')
    if protocol.split(".")[0] != PROTOCOL_MAJOR:
        raise ManifestError(
            f"{path}: protocol {protocol!r} is not supported: this referee speaks belote.bot.v1 (protocol \"1.x\")"
        )
    rulesets = data.get("rulesets", list(RULESETS))
    if not isinstance(rulesets, list) or not rulesets or not all(isinstance(r, str) for r in rulesets):
        raise ManifestError(f"{path}: rulesets must list at least one of {', '.join(RULESETS)} (or be left out: all four)")
    unknown = [r for r in rulesets if r not in RULESETS]
    if unknown:
        raise ManifestError(f"{path}: unknown rulesets {unknown}: choose from {', '.join(RULESETS)}")
    return Manifest(
        name=name, version=version, author=author, command=tuple(command), protocol=protocol,
        rulesets=tuple(rulesets), folder=folder, text=text,
    )


SKIP = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache"}  # a bot's own .venv is part of it


def bot_files(folder: Path) -> list[Path]:
    """The files and symbolic links of a bot folder that make up its content (caches and VCS folders left out)."""
    return sorted(
        p for p in folder.rglob("*")
        if (p.is_symlink() or p.is_file()) and not any(part in SKIP or part.endswith(".pyc") for part in p.relative_to(folder).parts)
    )


def check_size(folder: Path) -> None:
    """Refuse a bot folder over :data:`MAX_BOT_MIB` MiB or :data:`MAX_BOT_FILES` files
    (what :func:`bot_files` counts; a symbolic link counts as one file of no size).

    Raises:
        ManifestError: too large, with the size found and the limit.
    """
    files, size = 0, 0
    for p in bot_files(folder):
        files += 1
        size += 0 if p.is_symlink() else p.stat().st_size
        if files > MAX_BOT_FILES or size > MAX_BOT_MIB * 2**20:
            raise ManifestError(
                f"{folder} holds more than {MAX_BOT_FILES:,} files or {MAX_BOT_MIB:,} MiB: a submission is "
                "at most that big; leave out data the bot does not need (caches and .git are not counted)")


def content_hash(folder: Path) -> str:
    """SHA-256 over every file's relative path and bytes (a symbolic link: its target's name, never the
    file it points to), caches and VCS folders excluded; 64 hex digits.

    Raises:
        OSError: a file cannot be read.
    """
    h = hashlib.sha256()
    for p in bot_files(folder):
        h.update(p.relative_to(folder).as_posix().encode() + b"\0")
        h.update(b"->" + os.readlink(p).encode() if p.is_symlink() else p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()
