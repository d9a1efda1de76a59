"""A Node.js bot's packages installed at submission (issue 24 item 5): its manifest names its
``package.json`` (``requirements = "package.json"``), and ``arena bots submit`` runs ``npm ci
--ignore-scripts`` in the frozen copy, whose content hash then covers ``node_modules/``. A
dependency or locked package that is not the npm registry's (a folder, a git repository, a URL:
what could read the arena machine's files or reach its other hosts) is refused before npm runs.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from arena.play.build import BuildError, check_node_packages
from referee.manifest import content_hash, load_manifest
from tests.toolchains import STARTERS, require

from .conftest import cli, output


def node_bot(tmp_path: Path) -> Path:
    """The Node.js starter without its node_modules, naming its package.json as its requirements."""
    bot = tmp_path / "nodebot"
    shutil.copytree(STARTERS["node"], bot, ignore=shutil.ignore_patterns("node_modules"))
    toml = bot / "bot.toml"
    toml.write_text(toml.read_text() + 'requirements = "package.json"\n')
    return bot


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_submit_installs_the_locked_packages_into_the_frozen_copy(tmp_path):
    require("node")
    bot = node_bot(tmp_path)
    db = tmp_path / "arena.duckdb"
    r = cli("bots", "submit", bot, "--db", db)
    assert r.exit_code == 0 and "registered starter-node@1.0.0" in r.stdout, output(r)
    assert "installed: " in r.stdout and "@grpc/grpc-js@1." in r.stdout
    assert not (bot / "node_modules").exists()  # the submitted folder is left as it was
    listed = json.loads(cli("bots", "list", "--json", "--db", db).stdout)
    copy = tmp_path / listed[0]["path"]
    assert (copy / "node_modules" / "@grpc" / "grpc-js" / "package.json").is_file()
    assert listed[0]["content_hash"] == content_hash(copy)  # what the referee checks covers the packages


@pytest.mark.parametrize("field,name,spec", [
    ("dependencies", "secrets", "file:/etc"),
    ("dependencies", "grpc", "git+https://example.invalid/grpc.git"),
    ("optionalDependencies", "x", "github:someone/x"),
    ("devDependencies", "y", "https://127.0.0.1:9/y.tgz"),
    ("dependencies", "z", "link:../z"),
])
def test_a_dependency_from_outside_the_registry_is_refused(tmp_path, field, name, spec):
    bot = node_bot(tmp_path)
    edit_json(bot / "package.json", lambda d: d.setdefault(field, {}).__setitem__(name, spec))
    with pytest.raises(BuildError, match=re.escape(f"{field} '{name}' is '{spec}': a bot's packages come from the npm registry")):
        check_node_packages(bot, load_manifest(bot))


def test_a_locked_package_resolved_elsewhere_or_linked_is_refused(tmp_path):
    bot = node_bot(tmp_path)
    lock = bot / "package-lock.json"
    edit_json(lock, lambda d: d["packages"]["node_modules/@grpc/grpc-js"].__setitem__(
        "resolved", "http://127.0.0.1:9/grpc-js.tgz"))
    with pytest.raises(BuildError, match="'node_modules/@grpc/grpc-js' resolves to 'http://127.0.0.1:9/grpc-js.tgz'"):
        check_node_packages(bot, load_manifest(bot))
    edit_json(lock, lambda d: d["packages"]["node_modules/@grpc/grpc-js"].update(link=True, resolved="../x"))
    with pytest.raises(BuildError, match="is a link to a folder"):
        check_node_packages(bot, load_manifest(bot))


def test_without_a_lock_file_submit_refuses_and_keeps_nothing(tmp_path):
    bot = node_bot(tmp_path)
    (bot / "package-lock.json").unlink()
    db = tmp_path / "arena.duckdb"
    r = cli("bots", "submit", bot, "--db", db)
    assert r.exit_code == 1, output(r)
    assert "no package-lock.json beside package.json" in output(r) and "npm install --package-lock-only" in output(r)
    assert not any((tmp_path / "bots").rglob("bot.toml")) if (tmp_path / "bots").exists() else True
    assert json.loads(cli("bots", "list", "--json", "--db", db).stdout) == []


@pytest.mark.parametrize("change,message", [
    (lambda bot: (bot / ".npmrc").write_text("registry=http://127.0.0.1:9/\n"), "its folder holds .npmrc"),
    (lambda bot: (bot / "npm-shrinkwrap.json").write_text("{}"), "its folder holds npm-shrinkwrap.json"),
    (lambda bot: edit_json(bot / "package.json", lambda d: d.__setitem__("workspaces", ["../../.."])),
     "'workspaces' is not allowed in a bot"),
    (lambda bot: edit_json(bot / "package.json", lambda d: d.__setitem__("overrides", {"long": "file:/etc"})),
     "'overrides' is not allowed in a bot"),
    (lambda bot: edit_json(bot / "package-lock.json", lambda d: d["packages"].__setitem__("../outside", {"version": "1"})),
     "'../outside' is not a package under node_modules/"),
])
def test_what_would_steer_npm_elsewhere_is_refused(tmp_path, change, message):
    """npm reads a project .npmrc (another registry: a host of the arena's network), installs
    workspaces (folders outside the bot's) and overrides: none reaches the build."""
    bot = node_bot(tmp_path)
    change(bot)
    with pytest.raises(BuildError, match=re.escape(message)):
        check_node_packages(bot, load_manifest(bot))


@pytest.mark.parametrize("version", ["file:/etc", "git+http://127.0.0.1:9/repo.git", "http://127.0.0.1:9/x.tgz",
                                     "npm:other@1.0.0", "1.0.0 || file:/x"])
def test_a_lock_entry_whose_version_is_another_source_is_refused(tmp_path, version):
    """Red team 27: without "resolved", npm fetches name@version, so a lock entry's version that
    is a folder, a git repository or a URL copied host files into the bot (and ran code on the
    host through a git dependency's prepare step)."""
    bot = node_bot(tmp_path)
    edit_json(bot / "package.json", lambda d: d["dependencies"].__setitem__("x", "*"))
    edit_json(bot / "package-lock.json", lambda d: d["packages"].__setitem__("node_modules/x", {"version": version}))
    with pytest.raises(BuildError, match=re.escape(f"'node_modules/x' has version '{version}': a locked package is a "
                                                   "version of the npm registry")):
        check_node_packages(bot, load_manifest(bot))


def test_a_lock_entrys_own_dependencies_are_registry_ranges_only(tmp_path):
    bot = node_bot(tmp_path)
    edit_json(bot / "package-lock.json", lambda d: d["packages"]["node_modules/@grpc/grpc-js"].setdefault(
        "dependencies", {}).__setitem__("x", "file:/etc"))
    with pytest.raises(BuildError, match="'node_modules/@grpc/grpc-js' has dependencies that are not registry"):
        check_node_packages(bot, load_manifest(bot))


def test_a_huge_package_json_is_refused_unparsed(tmp_path):
    """Red team 27: a 30 MiB package.json took 1 GB of the arena's memory to parse."""
    bot = node_bot(tmp_path)
    (bot / "package.json").write_text('{"x": [' + ",".join(["{}"] * 600_000) + "]}")
    with pytest.raises(BuildError, match=r"package.json is larger than 1024 KiB"):
        check_node_packages(bot, load_manifest(bot))


@pytest.mark.parametrize("key,entry,message", [
    # red team 38: npm fetched a lock entry's "name"@version, whatever the name said
    ("node_modules/x", {"name": "x@http://127.0.0.1:9/x.tgz#", "version": "1.0.0"},
     "'node_modules/x' names 'x@http://127.0.0.1:9/x.tgz#', not a package name of the npm registry"),
    ("node_modules/x", {"name": "file:/etc", "version": "1.0.0"}, "names 'file:/etc', not a package name"),
    ("node_modules/x/node_modules/y:z", {"version": "1.0.0"}, "is not a package under node_modules/"),
    ("node_modules/.x", {"version": "1.0.0"}, "is not a package under node_modules/"),
    ("node_modules/@s", {"version": "1.0.0"}, "is not a package under node_modules/"),
    ("node_modules/x/lib", {"version": "1.0.0"}, "is not a package under node_modules/"),
    # a registry package's tarball, resolved under another package's name
    ("node_modules/x", {"version": "1.0.0", "resolved": "https://registry.npmjs.org/evil/-/evil-1.0.0.tgz"},
     "resolves to 'https://registry.npmjs.org/evil/-/evil-1.0.0.tgz'"),
    ("node_modules/x", {"version": "1.0.0"}, "'node_modules/x' has integrity 'None': every locked package carries"),
    ("node_modules/x", {"version": "1.0.0", "integrity": "md5-x y"}, "has integrity 'md5-x y'"),
])
def test_a_lock_entry_names_a_registry_package_with_its_digest(tmp_path, key, entry, message):
    """RULES.md has no say here; SECURITY.md "The build": every locked package is a registry
    name at an exact version with its tarball's digest, or npm fetches a spec of any source."""
    bot = node_bot(tmp_path)
    edit_json(bot / "package-lock.json", lambda d: d["packages"].__setitem__(key, entry))
    with pytest.raises(BuildError, match=re.escape(message)):
        check_node_packages(bot, load_manifest(bot))


def test_an_alias_and_a_bundled_package_pass(tmp_path):
    """What npm itself writes passes: an alias (``"name"`` another registry package) with its
    registry tarball, and a package bundled in its parent's tarball (no digest of its own)."""
    bot = node_bot(tmp_path)
    good = {"node_modules/alias": {"name": "@scope/real", "version": "2.0.1", "integrity": "sha512-AAAA==",
                                   "resolved": "https://registry.npmjs.org/@scope/real/-/real-2.0.1.tgz"},
            "node_modules/alias/node_modules/inner": {"version": "0.1.0", "inBundle": True},
            "node_modules/JSONStream": {"version": "1.3.5", "integrity": "sha1-MgjB8I06TZkmGrZPkjArwV4RHKA="}}
    edit_json(bot / "package-lock.json", lambda d: d["packages"].update(good))
    check_node_packages(bot, load_manifest(bot))


def test_a_dependency_name_that_is_not_a_registry_name_is_refused(tmp_path):
    bot = node_bot(tmp_path)
    edit_json(bot / "package.json", lambda d: d["dependencies"].__setitem__("../x", "1.0.0"))
    with pytest.raises(BuildError, match=re.escape("dependencies names '../x', not a package name of the npm registry")):
        check_node_packages(bot, load_manifest(bot))
