"""A bot's build step: the packages its manifest's ``requirements`` names, installed into its
frozen copy by ``arena bots submit`` (never during play: the sandbox has no network).

``pip install --target COPY/site-packages --only-binary=:all: -r COPY/REQUIREMENTS`` with the
arena's own interpreter (the one that runs a bot whose command is ``python``), so the
packages fit it; then ``COPY/site-packages`` is on the bot's ``PYTHONPATH`` when it plays
(:meth:`referee.botproc.BotClient`). Two sources:

- the bot ships a ``wheels/`` folder: offline, from those wheels only (``--no-index
  --find-links wheels``, no pip configuration of this machine), so the build is the same
  anywhere;
- otherwise: the package index as this machine's pip is configured (``pip.conf``,
  ``PIP_INDEX_URL``, proxies): the network is used during the build only.

Only wheels are installed (``--only-binary=:all:``): installing a wheel runs none of its code,
while building a source distribution would run its setup code here, outside the sandbox. The
requirements file may hold package requirements only (``name[extra]>=1.0; marker``), comments
and blank lines: no pip options, URLs or paths (they could reach files or hosts of the arena's
machine); :func:`read_requirements` says which line is refused.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from referee.manifest import PACKAGES_DIR, WHEELS_DIR, Manifest, shown

#: Longest a build may take, seconds (a slow index, many packages).
BUILD_TIMEOUT_S = 600.0
#: Largest requirements file read, bytes.
MAX_REQUIREMENTS_BYTES = 64 * 1024
#: pip's last lines shown when a build fails.
TAIL_LINES = 12

# PEP 508's name, optional extras, then version specifiers and an environment marker; nothing
# that reads as an option (-r, --index-url), a URL or a path (a direct reference: "name @ url")
_REQUIREMENT = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\s*(\[[A-Za-z0-9._,\s-]*\])?"
                          r"\s*[^@/\\:]*?(;[^@/\\]*)?$")


class BuildError(ValueError):
    """A bot's requirements could not be installed; the message says why and how to fix it."""


@dataclass(frozen=True)
class Build:
    """What a build did: ``source`` is ``"wheels"`` (offline, from the bot's ``wheels/``) or
    ``"index"`` (the package index); ``packages`` the distributions installed, as
    ``name==version``, sorted."""

    source: str
    packages: tuple[str, ...]


def read_requirements(path: Path) -> list[str]:
    """The requirements of the file ``path``, one per line, comments and blank lines left out.

    Raises:
        BuildError: the file cannot be read, is too large or not UTF-8, or a line is a pip
            option, a URL or a path (named, with its number).
    """
    try:
        raw = path.read_bytes()[:MAX_REQUIREMENTS_BYTES + 1]
        text = raw.decode("utf-8")
    except OSError as e:
        raise BuildError(f"cannot read {shown(path)}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise BuildError(f"{shown(path)} is not UTF-8 text") from None
    if len(raw) > MAX_REQUIREMENTS_BYTES:
        raise BuildError(f"{shown(path)} is larger than {MAX_REQUIREMENTS_BYTES // 1024} KiB")
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not line:
            continue
        if not _REQUIREMENT.fullmatch(line):
            raise BuildError(
                f"{shown(path)}, line {number}: {shown(line)!r} is not a package requirement: the file may name "
                "packages only (e.g. `numpy>=2`, `sortedcontainers==2.4.0`), without pip options, URLs or paths; for a "
                f"package that is not on the package index, put its wheel in the bot's {WHEELS_DIR}/ folder")
        out.append(line)
    return out


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-TAIL_LINES:])


def install_requirements(copy: Path, manifest: Manifest, *, timeout_s: float = BUILD_TIMEOUT_S) -> Build:
    """Install ``manifest``'s requirements into ``copy/site-packages`` (``copy``: the bot's
    copy being frozen, still writable); see the module's docstring for how.

    Raises:
        BuildError: ``copy`` already holds ``site-packages/`` (the build's own folder), the
            requirements file is refused (:func:`read_requirements`), pip failed (its last
            :data:`TAIL_LINES` lines are in the message, with what to fix) or took longer
            than ``timeout_s`` seconds.
    """
    assert manifest.requirements is not None
    copy = Path(copy).resolve()  # pip runs in the copy: a relative path (the default --db's) would not resolve
    target = copy / PACKAGES_DIR
    if os.path.lexists(target):
        raise BuildError(f"{manifest.key}: its folder holds {PACKAGES_DIR}/, where `arena bots submit` installs "
                         f"the packages of its requirements ({manifest.requirements}): remove or rename it")
    requirements = copy / manifest.requirements
    if not read_requirements(requirements):
        raise BuildError(f"{manifest.key}: {manifest.requirements} names no package: name them, or remove "
                         "`requirements` from bot.toml")
    wheels = copy / WHEELS_DIR
    offline = wheels.is_dir() and not wheels.is_symlink()
    command = [sys.executable, "-m", "pip", "install", "--target", str(target), "--only-binary=:all:",
               "--no-compile", "--no-input", "--disable-pip-version-check", "--no-warn-script-location",
               "--progress-bar", "off", "--requirement", str(requirements)]
    env = dict(os.environ)
    if offline:
        command += ["--no-index", "--find-links", str(wheels)]
        env = {k: v for k, v in env.items() if not k.startswith("PIP_")}
        env["PIP_CONFIG_FILE"] = os.devnull  # none of this machine's find-links or indexes
    source = "wheels" if offline else "index"
    where = (f"the wheels in its {WHEELS_DIR}/ folder (offline)" if offline
             else "the package index (no wheels/ folder in the bot)")
    try:
        pip = subprocess.run(command, cwd=copy, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{manifest.key}: installing its requirements ({manifest.requirements}) from {where} took "
                         f"more than {timeout_s:.0f} s (a slow or unreachable package index?): ship the wheels in "
                         f"its {WHEELS_DIR}/ folder to build offline") from None
    if pip.returncode != 0:
        raise BuildError(
            f"{manifest.key}: installing its requirements ({manifest.requirements}) from {where} failed "
            f"(pip exited with status {pip.returncode}). pip's last lines:\n{_tail(pip.stdout + pip.stderr)}\n"
            f"Fix {manifest.requirements}: every package needs a wheel for this arena's Python "
            f"({sys.implementation.name} {sys.version_info.major}.{sys.version_info.minor}, {sys.platform}), on the "
            f"package index or in the bot's {WHEELS_DIR}/ folder (then nothing else is looked at)")
    return Build(source, installed(copy))


def installed(copy: Path) -> tuple[str, ...]:
    """The distributions a build installed in ``copy/site-packages``, as ``name==version``
    (their ``.dist-info`` folders' names), sorted; empty when there is none."""
    target = copy / PACKAGES_DIR
    return tuple(sorted(p.name.removesuffix(".dist-info").replace("-", "==", 1)
                        for p in target.glob("*.dist-info")))


__all__ = ["Build", "BuildError", "install_requirements", "installed", "read_requirements"]
