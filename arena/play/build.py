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

A Node.js bot names its ``package.json`` instead (``requirements = "package.json"``, at the
top of its folder, with its ``package-lock.json`` beside it): the build is ``npm ci
--ignore-scripts --omit=dev`` in the copy (a clean ``node_modules/``, replacing one the folder
held), no package's install scripts run, with npm's cache first (``--prefer-offline``) and
the registry as this machine's npm is configured, git disabled, in a process group killed
whole at the end.  Every dependency must be a version or range of the registry, and every
package of the lock file an exact registry version, resolved from the registry when it says
where (:func:`check_node_packages`): no ``file:``, ``link:``, git or URL sources, which could
reach files or hosts of the arena's machine, or run code there (red team 27).

Only wheels are installed (``--only-binary=:all:``): installing a wheel runs none of its code,
while building a source distribution would run its setup code here, outside the sandbox. The
requirements file may hold package requirements only (``name[extra]>=1.0; marker``), comments
and blank lines: no pip options, URLs or paths (they could reach files or hosts of the arena's
machine), nor a name pip could take for an archive or folder of the bot, nor ``$`` (pip
expands ``${VAR}``); :func:`read_requirements` says which line is refused.  pip gets each
requirement as an argument, runs isolated (``-I``) from an empty folder: nothing of the bot's
folder is ever run on the host (red teams 35 and 38).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from referee.manifest import NODE_MODULES, NODE_REQUIREMENTS, PACKAGES_DIR, WHEELS_DIR, Manifest, shown

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


#: The lock file beside a Node.js bot's package.json (:data:`referee.manifest.NODE_REQUIREMENTS`).
NODE_LOCK = "package-lock.json"
#: The npm registry every locked package must come from (``npm_config_registry`` overrides it).
NPM_REGISTRY = "https://registry.npmjs.org/"
# a registry version, range or tag: "^1.12.0", ">=1 <2", "1.x || 2.x", "latest"; nothing with
# ":" or "/" (file:, link:, git+https://, github's user/repo)
_NPM_SPEC = re.compile(r"^[0-9A-Za-z.*^~<>=|\s+-]*$")
_DEPENDENCY_FIELDS = ("dependencies", "optionalDependencies", "devDependencies", "peerDependencies")
# a registry version, exactly (semver 2.0): what a lock entry's "version" must be
_SEMVER = re.compile(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
# a package name of the npm registry (optional @scope/, URL-safe, no leading dot or underscore;
# upper case for the old packages that have it, e.g. JSONStream): what a lock entry's path and
# "name" must name
_NPM_NAME = re.compile(r"(?:@[A-Za-z0-9-~][A-Za-z0-9-._~]*/)?[A-Za-z0-9-~][A-Za-z0-9-._~]*")
# the tarball's subresource-integrity digest npm checks before unpacking it
_INTEGRITY = re.compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}(?: sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2})*")
#: Largest package.json and package-lock.json read, bytes.
MAX_PACKAGE_JSON_BYTES = 1024 * 1024
MAX_LOCK_BYTES = 8 * 1024 * 1024


class BuildError(ValueError):
    """A bot's requirements could not be installed; the message says why and how to fix it."""


@dataclass(frozen=True)
class Build:
    """What a build did: ``source`` is ``"wheels"`` (offline, from the bot's ``wheels/``) or
    ``"index"`` (the package index); ``packages`` the distributions installed, as
    ``name==version``, sorted."""

    source: str
    packages: tuple[str, ...]


#: Endings pip takes for a local archive when a file of that name exists (red team 38: `evil.zip`).
_ARCHIVE_ENDINGS = (".zip", ".whl", ".tar", ".tgz", ".tbz", ".txz", ".gz", ".bz2", ".xz", ".egg")


def _plain_requirement(line: str) -> bool:
    """A PEP 508 requirement by name (``packaging``), no URL, no ``$`` (pip expands ``${VAR}``:
    red team 38 turned `x${HOME}` into a folder of the bot and leaked variables), no name pip
    could take for a local archive or folder (a dot first, an archive's ending)."""
    from packaging.requirements import InvalidRequirement, Requirement

    if "$" in line:
        return False
    try:
        req = Requirement(line)
    except InvalidRequirement:
        return False
    name = req.name.lower()
    return req.url is None and not name.startswith(".") and not name.endswith(_ARCHIVE_ENDINGS)


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
        if not _REQUIREMENT.fullmatch(line) or not _plain_requirement(line):
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
    copy = Path(copy).resolve()  # pip runs elsewhere: a relative path (the default --db's) would not resolve
    if Path(manifest.requirements).name == NODE_REQUIREMENTS:
        return install_node_packages(copy, manifest, timeout_s=timeout_s)
    target = copy / PACKAGES_DIR
    if os.path.lexists(target):
        raise BuildError(f"{manifest.key}: its folder holds {PACKAGES_DIR}/, where `arena bots submit` installs "
                         f"the packages of its requirements ({manifest.requirements}): remove or rename it")
    names = read_requirements(copy / manifest.requirements)
    if not names:
        raise BuildError(f"{manifest.key}: {manifest.requirements} names no package: name them, or remove "
                         "`requirements` from bot.toml")
    wheels = copy / WHEELS_DIR
    offline = wheels.is_dir() and not wheels.is_symlink()
    if offline:  # pip follows links: a wheel linked to another bot's frozen copy was installed (red team 39)
        for entry in sorted(wheels.iterdir()):
            if not stat.S_ISREG(entry.lstat().st_mode):
                raise BuildError(f"{manifest.key}: {WHEELS_DIR}/{shown(entry.name)} is not a regular file (a link, a "
                                 f"folder or a device): {WHEELS_DIR}/ holds the wheel files themselves; copy the file "
                                 "in its place")
    # -I: pip runs isolated, never a module of the bot's copy nor the PYTHON* environment;
    # `python -m pip` in the copy would run a `pip/__main__.py` the bot shipped, on the host (red team 35)
    command = [sys.executable, "-I", "-m", "pip", "install", "--target", str(target), "--only-binary=:all:",
               "--no-compile", "--no-input", "--disable-pip-version-check", "--no-warn-script-location",
               "--progress-bar", "off"]
    env = dict(os.environ)
    if offline:
        command += ["--no-index", "--find-links", str(wheels)]
        env = {k: v for k, v in env.items() if not k.startswith("PIP_")}
        env["PIP_CONFIG_FILE"] = os.devnull  # none of this machine's find-links or indexes
    source = "wheels" if offline else "index"
    where = (f"the wheels in its {WHEELS_DIR}/ folder (offline)" if offline
             else "the package index (no wheels/ folder in the bot)")
    try:
        # each requirement an argument (no `-r`: pip would expand ${VAR} in the file), from an empty
        # folder: a name never resolves to a file or folder of the bot, which pip would build (red team 38)
        with tempfile.TemporaryDirectory(prefix="belote-pip-") as empty:
            pip = subprocess.run([*command, "--", *names], cwd=empty, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                 text=True, timeout=timeout_s)
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


def _load_json(path: Path, what: str, limit: int) -> dict:
    """The JSON object of ``path``, at most ``limit`` bytes (parsing takes ~30 times the file's
    size in memory: a huge file would exhaust the arena's)."""
    try:
        with path.open("rb") as f:
            raw = f.read(limit + 1)
    except OSError as e:
        raise BuildError(f"cannot read {shown(path)}: {e.strerror}") from None
    if len(raw) > limit:
        raise BuildError(f"{shown(path)} is larger than {limit // 1024} KiB ({what}): a bot's is far smaller")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise BuildError(f"{shown(path)} is not JSON ({what}): {e}") from None
    if not isinstance(data, dict):
        raise BuildError(f"{shown(path)} is not a JSON object ({what})")
    return data


def check_node_packages(copy: Path, manifest: Manifest) -> None:
    """Refuse a Node.js build that could read the arena machine's files or reach other hosts:
    ``package.json`` at the top of the folder, without ``workspaces`` or ``overrides``, every
    dependency a registry name and a version or range; ``package-lock.json`` beside it (version
    2 or 3) with every package under ``node_modules/`` by a registry name (its path's and its
    ``name``), an exact version, an ``integrity`` digest, resolved (if it says) from
    :data:`NPM_REGISTRY`, and none a link; no ``.npmrc`` (npm would read its settings: another
    registry) nor shrinkwrap.  (Red teams 27 and 38: without ``resolved`` npm fetches
    ``name@version``, so a name or version that is a path, git or URL spec fetched anything.)

    Raises:
        BuildError: naming the field, package or entry refused, and what to do.
    """
    if manifest.requirements != NODE_REQUIREMENTS:
        raise BuildError(f"{manifest.key}: requirements {manifest.requirements!r}: a Node.js bot names the "
                         f"{NODE_REQUIREMENTS} at the top of its folder (requirements = \"{NODE_REQUIREMENTS}\")")
    for name in (".npmrc", "npm-shrinkwrap.json"):
        if os.path.lexists(copy / name):  # a project .npmrc could name another registry, a shrinkwrap another lock
            raise BuildError(f"{manifest.key}: its folder holds {name}, which npm would read during the build: remove "
                             f"it (the build uses this machine's npm settings and {NODE_LOCK} only)")
    package = _load_json(copy / NODE_REQUIREMENTS, "npm's package.json", MAX_PACKAGE_JSON_BYTES)
    for field in ("workspaces", "overrides"):
        if field in package:
            raise BuildError(f"{NODE_REQUIREMENTS}: {field!r} is not allowed in a bot (it can install folders from "
                             "outside the bot's, or other packages than the dependencies name): remove it")
    for field in _DEPENDENCY_FIELDS:
        deps = package.get(field, {})
        if not isinstance(deps, dict):
            raise BuildError(f"{NODE_REQUIREMENTS}: {field} is not an object of package names and versions")
        for name, spec in deps.items():
            if not _is_npm_name(name):
                raise BuildError(f"{NODE_REQUIREMENTS}: {field} names {shown(str(name))!r}, not a package name of "
                                 "the npm registry (e.g. \"@grpc/grpc-js\")")
            if not isinstance(spec, str) or not _NPM_SPEC.fullmatch(spec):
                raise BuildError(
                    f"{NODE_REQUIREMENTS}: {field} {shown(str(name))!r} is {shown(str(spec))!r}: a bot's packages come "
                    'from the npm registry only, by version or range (e.g. "^1.12.0"): no file:, link:, git or URL sources')
    lock_path = copy / NODE_LOCK
    if not lock_path.is_file() or lock_path.is_symlink():
        raise BuildError(f"{manifest.key}: no {NODE_LOCK} beside {NODE_REQUIREMENTS}: the build installs exactly "
                         f"what it locks (npm ci); make it with `npm install --package-lock-only --ignore-scripts`")
    lock = _load_json(lock_path, "npm's lock file", MAX_LOCK_BYTES)
    if lock.get("lockfileVersion") not in (2, 3) or not isinstance(lock.get("packages"), dict):
        raise BuildError(f"{NODE_LOCK}: lockfileVersion {lock.get('lockfileVersion')!r}: make it again with npm 7 or "
                         "later (`npm install --package-lock-only --ignore-scripts`)")
    registry = os.environ.get("npm_config_registry") or NPM_REGISTRY
    registry = registry if registry.endswith("/") else registry + "/"
    for key, entry in lock["packages"].items():
        if key == "":
            continue
        if not isinstance(key, str) or _lock_path_names(key) is None:
            raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} is not a package under {NODE_MODULES}/ (a workspace "
                             "or a folder): a bot's packages come from the npm registry only")
        if not isinstance(entry, dict) or entry.get("link"):
            raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} is a link to a folder, not a package of the registry")
        name = entry.get("name", _lock_path_names(key)[-1])  # "name": what an alias installs under the path's name
        if not _is_npm_name(name):
            raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} names {shown(str(name))!r}, not a package name of the "
                             "npm registry: a bot's packages come from the npm registry only")
        resolved = entry.get("resolved")
        if resolved is not None and (not isinstance(resolved, str) or not resolved.startswith(f"{registry}{name}/-/")):
            raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} resolves to {shown(str(resolved))!r}: a bot's packages "
                             f"come from the npm registry ({registry}) only")
        version = entry.get("version")  # without "resolved", npm fetches name@version: a spec of any source
        if not isinstance(version, str) or not _SEMVER.fullmatch(version):
            raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} has version {shown(str(version))!r}: a locked package "
                             "is a version of the npm registry (e.g. \"1.14.3\"), no file:, git or URL source")
        integrity = entry.get("integrity")
        if not entry.get("inBundle") and (not isinstance(integrity, str) or not _INTEGRITY.fullmatch(integrity)):
            raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} has integrity {shown(str(integrity))!r}: every locked "
                             "package carries the digest of its tarball (\"sha512-...\"), as npm writes it; make the "
                             "lock again with `npm install --package-lock-only --ignore-scripts`")
        for field in _DEPENDENCY_FIELDS:
            deps = entry.get(field, {})
            if not isinstance(deps, dict) or not all(isinstance(v, str) and _NPM_SPEC.fullmatch(v) for v in deps.values()):
                raise BuildError(f"{NODE_LOCK}: {shown(str(key))!r} has {field} that are not registry versions or "
                                 "ranges: a bot's packages come from the npm registry only")


def _is_npm_name(name: object) -> bool:
    return isinstance(name, str) and len(name) <= 214 and _NPM_NAME.fullmatch(name) is not None


def _lock_path_names(key: str) -> list[str] | None:
    """The package names along a lock entry's path (``node_modules/a/node_modules/@s/b``:
    ``["a", "@s/b"]``), or None when it is not such a path of registry names (a workspace, a
    folder, ``..``)."""
    parts, names = key.split("/"), []
    while parts:
        if parts[0] != NODE_MODULES or len(parts) < 2:
            return None
        take = 3 if parts[1].startswith("@") else 2
        name = "/".join(parts[1:take])
        if len(parts) < take or not _is_npm_name(name):
            return None
        names.append(name)
        parts = parts[take:]
    return names or None


def install_node_packages(copy: Path, manifest: Manifest, *, timeout_s: float = BUILD_TIMEOUT_S) -> Build:
    """``npm ci --ignore-scripts --omit=dev`` in ``copy`` (the bot's copy, still writable), after
    :func:`check_node_packages`; a ``node_modules/`` the folder held is replaced by the clean
    install.  See the module's docstring.

    Raises:
        BuildError: refused by :func:`check_node_packages`; npm missing, failed (its last
            :data:`TAIL_LINES` lines in the message) or took longer than ``timeout_s`` seconds.
    """
    check_node_packages(copy, manifest)
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError(f"{manifest.key}: its {NODE_REQUIREMENTS} needs npm to install its packages, not found "
                         "here: `apt-get install nodejs npm` (Debian, as root)")
    modules = copy / NODE_MODULES
    if modules.is_symlink() or modules.is_file():
        modules.unlink()
    elif modules.is_dir():
        shutil.rmtree(modules)
    # git disabled (no git source can be fetched, whatever slipped through), and npm in a process
    # group of its own, killed whole at the end: nothing it started outlives the build
    command = [npm, "ci", "--ignore-scripts", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline",
               "--loglevel=error", "--git=/bin/false"]
    npm_run = subprocess.Popen(command, cwd=copy, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = npm_run.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{manifest.key}: installing its packages ({NODE_REQUIREMENTS}) with npm took more than "
                         f"{timeout_s:.0f} s (a slow or unreachable npm registry?)") from None
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(npm_run.pid, signal.SIGKILL)
        npm_run.wait()
    if npm_run.returncode != 0:
        raise BuildError(f"{manifest.key}: installing its packages ({NODE_REQUIREMENTS}) failed (npm ci exited with "
                         f"status {npm_run.returncode}). npm's last lines:\n{_npm_tail(out)}\n"
                         f"Fix {NODE_REQUIREMENTS} and {NODE_LOCK} (`npm install --package-lock-only` makes them agree)")
    return Build("npm", installed(copy))


def _npm_tail(text: str) -> str:
    """npm's error without the usage text it appends to some (``npm ci`` out of step with its
    lock file prints the cause, then its whole help)."""
    lines = text.strip().splitlines()
    for i, line in enumerate(lines):
        if "Clean install a project" in line:  # the start of `npm ci`'s usage text
            lines = lines[:i]
            break
    return _tail("\n".join(line for line in lines if line.strip() not in ("npm error", "npm ERR!")))


def installed(copy: Path) -> tuple[str, ...]:
    """The packages a build installed in ``copy``, sorted: a Python build's distributions in
    ``site-packages/`` as ``name==version`` (their ``.dist-info`` folders' names); a Node.js
    build's packages in ``node_modules/`` as ``name@version`` (npm's own record of them, its
    ``.package-lock.json``); empty when there is none."""
    record = copy / NODE_MODULES / ".package-lock.json"
    if record.is_file() and not (copy / PACKAGES_DIR).exists():
        try:
            packages = json.loads(record.read_text(encoding="utf-8")).get("packages", {})
        except (OSError, ValueError):
            return ()
        return tuple(sorted(f"{k.rsplit(NODE_MODULES + '/', 1)[-1]}@{v.get('version', '?')}"
                            for k, v in packages.items() if isinstance(v, dict)))
    target = copy / PACKAGES_DIR
    return tuple(sorted(p.name.removesuffix(".dist-info").replace("-", "==", 1)
                        for p in target.glob("*.dist-info")))


__all__ = ["Build", "BuildError", "NODE_REQUIREMENTS", "check_node_packages", "install_node_packages",
           "install_requirements", "installed", "read_requirements"]
