"""The submission path (issue 19 item 6): what a bot folder may hold, and what submitting it costs.

Devices, FIFOs and sockets are refused with a one-line message naming the file; deep folders
are refused past ``MAX_DEPTH`` without a recursion error; files are hashed in constant memory,
and a frozen copy's seats do not read it again at every start; control and format characters
(Unicode Cc, Cf) never reach a terminal or the web page from a manifest; a refused submission
leaves nothing in the store.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import referee.manifest as manifest_module
from arena.store import Store
from referee.manifest import ManifestError, bot_files, check_size, content_hash, content_hash_cached

from .conftest import REPO, SAMPLES, cli, copy_bot, output

WHAT = "a bot folder may hold only regular files, folders and symbolic links; remove it and submit again"


def refused(r, *words: str) -> str:
    """The command failed with a one-line error holding ``words``, without a traceback."""
    text = output(r)
    assert r.exit_code == 1, text
    assert "Traceback" not in text and (r.exception is None or isinstance(r.exception, SystemExit)), text
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, text
    for w in words:
        assert w in errors[0], text
    return errors[0]


def store_is_empty(tmp_path: Path) -> None:
    """No ``bots`` row and no frozen copy (nor a NAME/VERSION folder) in the store at ``tmp_path``."""
    bots = tmp_path / "bots"
    assert not bots.exists() or not any(bots.iterdir()), sorted(bots.rglob("*"))
    db = tmp_path / "a.duckdb"
    if db.exists():
        with Store.open(db, read_only=True) as s:
            assert s.list_bots() == []


def submit_and_check_refuse(tmp_path: Path, bot: Path, *words: str) -> None:
    """``arena bots check`` and ``arena bots submit`` both refuse ``bot``; nothing is stored."""
    refused(cli("bots", "check", bot, "--boards", "1"), *words)
    refused(cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb"), *words)
    store_is_empty(tmp_path)


def test_a_device_node_is_refused(tmp_path):
    """A character device (here a copy of /dev/null: /dev/zero was copied until the disk was full)."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    try:
        os.mknod(bot / "zero", 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod of a character device needs root (CAP_MKNOD)")
    submit_and_check_refuse(tmp_path, bot, f"{bot / 'zero'} is a character device", WHAT)
    with pytest.raises(ManifestError, match="is a character device"):
        content_hash(bot)


def test_a_fifo_is_refused(tmp_path):
    """A FIFO ended in a traceback (shutil's SpecialFileError), or blocked whoever opened it."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    (bot / "lib").mkdir()
    os.mkfifo(bot / "lib" / "pipe")
    submit_and_check_refuse(tmp_path, bot, f"{bot / 'lib' / 'pipe'} is a FIFO (named pipe)", WHAT)
    for f in (bot_files, check_size, content_hash):
        with pytest.raises(ManifestError, match="is a FIFO"):
            f(bot)


def test_a_socket_file_is_refused(tmp_path, monkeypatch):
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    monkeypatch.chdir(bot)  # a Unix socket's path is at most 107 bytes: bind it by a short relative name
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind("bot.sock")
        monkeypatch.chdir(tmp_path)
        submit_and_check_refuse(tmp_path, bot, f"{bot / 'bot.sock'} is a socket", WHAT)
    finally:
        s.close()


def test_a_file_name_is_shown_inert(tmp_path):
    """A special file's name is the submitter's: escape codes and bidi overrides are shown escaped."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    os.mkfifo(bot / "x\x1b]0;PWNED\x07\u202e")
    line = refused(cli("bots", "check", bot), "is a FIFO")
    assert "\x1b" not in line and "\u202e" not in line and r"x\x1b]0;PWNED\x07\u202e is a FIFO" in line


def _deep(root: Path, levels: int) -> None:
    """Make ``root/d/d/.../d`` (``levels`` folders) by descriptors (the path is longer than PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            sub = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
        with open(os.open("f.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("# the bottom\n")
    finally:
        os.close(fd)


def _undeep(root: Path) -> None:
    """Remove what :func:`_deep` made, without recursion (shutil.rmtree recurses, pytest's cleanup too)."""
    fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY)]
    while "d" in os.listdir(fds[-1]):
        fds.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    os.unlink("f.py", dir_fd=fds[-1])
    while len(fds) > 1:
        os.close(fds.pop())
        os.rmdir("d", dir_fd=fds[-1])
    os.close(fds[0])


def test_2000_deep_folders_are_refused_past_max_depth(tmp_path):
    """2,000 nested folders ended in a RecursionError traceback (pathlib's rglob recurses)."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    _deep(bot, 2000)
    try:
        words = (f"is more than {manifest_module.MAX_DEPTH} folders deep in {bot}",
                 f"at most {manifest_module.MAX_DEPTH} levels deep; flatten it")
        submit_and_check_refuse(tmp_path, bot, *words)
        for f in (bot_files, check_size, content_hash, content_hash_cached):
            with pytest.raises(ManifestError, match="folders deep"):
                f(bot)
    finally:
        _undeep(bot)


def test_folders_up_to_max_depth_are_kept(tmp_path, monkeypatch):
    """A folder exactly MAX_DEPTH levels deep is a bot's content (and hashed as before)."""
    monkeypatch.setattr(manifest_module, "MAX_DEPTH", 5)
    folder = tmp_path / "bot"
    folder.mkdir()
    _deep(folder, 5)
    assert [p.relative_to(folder).as_posix() for p in bot_files(folder)] == ["d/d/d/d/d/f.py"]
    (folder / "d/d/d/d/d/e").mkdir()
    with pytest.raises(ManifestError, match="more than 5 folders deep"):
        bot_files(folder)


_PEAK = """
import resource, sys, time
from pathlib import Path
from referee.manifest import content_hash
t = time.perf_counter()
digest = content_hash(Path(sys.argv[1]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, time.perf_counter() - t, digest)
"""


def _hash_peak(folder: Path) -> tuple[int, float, str]:
    """Peak RSS (bytes) and seconds of ``content_hash(folder)`` in a fresh interpreter, and the hash."""
    out = subprocess.run([sys.executable, "-c", _PEAK, str(folder)], capture_output=True, text=True, check=True,
                         cwd=REPO, timeout=120).stdout.split()
    return int(out[0]), float(out[1]), out[2]


def test_a_1_gib_file_is_hashed_in_flat_memory(tmp_path):
    """Hashing read each file whole: a 1,000 MiB file took 1 GB per seat, four seats at once."""
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    without, _, _ = _hash_peak(bot)
    with open(bot / "weights.bin", "wb") as f:
        f.truncate(2**30)  # sparse: 1 GiB of zeros, cheap on disk
    peak, seconds, digest = _hash_peak(bot)
    assert peak < 2 * without, (peak, without)
    import hashlib
    h = hashlib.sha256()  # the same bytes as before: the path, the content, separators
    for p in bot_files(bot):
        h.update(p.relative_to(bot).as_posix().encode() + b"\0")
        h.update(b"\0" * 2**30 if p.name == "weights.bin" else p.read_bytes())
        h.update(b"\0")
    assert digest == h.hexdigest()
    print(f"1 GiB: {2**30 / 2**20 / seconds:.0f} MiB/s, peak RSS {peak / 2**20:.0f} MiB "
          f"(without the file {without / 2**20:.0f} MiB)")


def test_a_frozen_copy_is_hashed_once_and_changes_are_still_seen(tmp_path, monkeypatch):
    """Every seat's start hashed the whole copy (8 per match, 4 at once); now the copy is read
    again only when its stat signature changed: rewritten bytes (even with the size and mtime
    kept), a file replaced or added are all seen."""
    calls = []
    real = manifest_module.content_hash
    monkeypatch.setattr(manifest_module, "content_hash", lambda f: calls.append(f) or real(f))
    monkeypatch.setattr(manifest_module, "RACY_S", 0.0)  # files written by this test count as settled
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    digest = real(bot)
    time.sleep(0.05)
    assert [content_hash_cached(bot) for _ in range(8)] == [digest] * 8 and len(calls) == 1
    st = (bot / "bot.py").stat()
    data = (bot / "bot.py").read_bytes()
    (bot / "bot.py").write_bytes(data.replace(b"import", b"imp0rt", 1))  # same size
    os.utime(bot / "bot.py", ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime: ctime still moves
    assert content_hash_cached(bot) != digest and len(calls) == 2
    (bot / "bot.py").write_bytes(data)
    (bot / "extra.txt").write_text("x")
    assert content_hash_cached(bot) == real(bot) != digest


def test_a_changed_copy_is_refused_at_start_after_a_cached_check(tmp_path, monkeypatch):
    """The guarantee of issue 9 item 3 holds with the signature cache warm: a copy changed after
    a start is refused at the next start."""
    from referee.botproc import BotClient, BotStartError

    monkeypatch.setattr(manifest_module, "RACY_S", 0.0)
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    digest = content_hash(bot)
    time.sleep(0.05)
    for _ in range(2):  # the second start is checked by its signature alone
        client = BotClient(manifest_module.load_manifest(bot), content_hash=digest)
        client.start()
        client.close()
    with open(bot / "bot.py", "a") as f:
        f.write("# rewritten by a rival\n")
    client = BotClient(manifest_module.load_manifest(bot), content_hash=digest)
    with pytest.raises(BotStartError, match="has changed since it was submitted"):
        client.start()
    client.close()


def test_a_fresh_copy_is_hashed_in_full_at_each_start(tmp_path, monkeypatch):
    """A copy changed within RACY_S seconds is not trusted by its signature (a file system's
    timestamp granularity): each call reads it."""
    calls = []
    real = manifest_module.content_hash
    monkeypatch.setattr(manifest_module, "content_hash", lambda f: calls.append(f) or real(f))
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    content_hash_cached(bot)
    content_hash_cached(bot)
    assert len(calls) == 2


@pytest.mark.parametrize("field, value", [
    ("author", "Mallory \u202eevil"),  # right-to-left override
    ("author", "zero\u200bwidth"),
    ("author", "bell\x07"),
    ("author", "isolate\u2066x\u2069"),
    ("protocol", "1.0\u202e"),
    ("command", ["python", "bot.py\u202e"]),
    ("name", "random\n"),  # a regular expression's $ took the last newline
    ("version", "1.0.0\n"),
])
def test_control_and_format_characters_in_a_manifest_are_refused(tmp_path, field, value):
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    toml = bot / "bot.toml"
    lines = [line for line in toml.read_text().splitlines() if not line.startswith(f"{field} ")]
    toml.write_text("\n".join(lines) + f"\n{field} = {json.dumps(value)}\n")
    for r in (cli("bots", "check", bot), cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")):
        line = refused(r, str(toml), field)
        assert not any(c in line for c in "\u202e\u200b\x07\u2066\u2069"), line
    store_is_empty(tmp_path)


def test_stored_text_with_format_characters_is_shown_escaped(tmp_path):
    """A database written before manifests were checked: `arena bots list` and the bot's web
    page show U+202E and its kind escaped, never raw."""
    from fastapi.testclient import TestClient

    from arena.web import create_app

    db = tmp_path / "a.duckdb"
    with Store.open(db) as s:
        s.add_bot("old", "1.0.0", "Mallory \u202eevil\u200b\x1b[2J", "", "0" * 64, str(tmp_path))
    text = output(cli("bots", "list", "--db", db))
    assert "\u202e" not in text and "\u200b" not in text and "\x1b" not in text, text
    assert r"\u202eevil\u200b\x1b[2J" in text.replace("\n", "").replace("│", "").replace(" ", ""), text
    with TestClient(create_app(db), base_url="http://127.0.0.1") as c:
        page = c.get("/bots/old")
    assert page.status_code == 200
    assert "\u202e" not in page.text and "\u200b" not in page.text and "\x1b" not in page.text
    assert r"Mallory \u202eevil\u200b\x1b[2J" in page.text


def test_a_crashed_check_leaves_nothing_behind(tmp_path, monkeypatch):
    """A bot whose conformance check crashed left its frozen copy behind."""
    import arena.play.submit

    def crash(*args, **kwargs):
        raise RuntimeError("the check fell over")

    monkeypatch.setattr(arena.play.submit, "check_bot", crash)
    monkeypatch.setenv("ARENA_CHECK_CACHE", "off")  # a pass kept by an earlier test would skip the check
    r = cli("bots", "submit", SAMPLES / "random", "--db", tmp_path / "a.duckdb", "--no-isolate")
    refused(r, "the conformance check of random@1.0.0 could not run: RuntimeError: the check fell over")
    store_is_empty(tmp_path)


def test_a_check_passed_on_this_machine_is_not_run_again(tmp_path, monkeypatch):
    """A bot entered into a second database with the same content, deadline and limits is not
    checked again (the check's ~10 s); another deadline is checked afresh, and so is everything
    with ARENA_CHECK_CACHE=off."""
    import arena.play.submit

    monkeypatch.setenv("ARENA_CHECK_CACHE", str(tmp_path / "checks"))
    r = cli("bots", "submit", SAMPLES / "random", "--db", tmp_path / "a" / "a.duckdb")
    assert r.exit_code == 0 and "checking random@1.0.0" in output(r), output(r)
    assert len(list((tmp_path / "checks").glob("*.json"))) == 1

    def crash(*args, **kwargs):
        raise RuntimeError("the check ran")

    monkeypatch.setattr(arena.play.submit, "check_bot", crash)
    r = cli("bots", "submit", SAMPLES / "random", "--db", tmp_path / "b" / "b.duckdb")
    assert r.exit_code == 0, output(r)
    assert "random@1.0.0 passed the conformance check on this machine on" in output(r)
    assert "checking" not in output(r)
    r = cli("tournament", "run", "t", "--bots", SAMPLES / "random", "--bots", SAMPLES / "greedy",
            "--decision-ms", 900, "--db", tmp_path / "c" / "c.duckdb")
    refused(r, "the conformance check of random@1.0.0 could not run: RuntimeError: the check ran")
    monkeypatch.setenv("ARENA_CHECK_CACHE", "off")
    r = cli("bots", "submit", SAMPLES / "random", "--db", tmp_path / "d" / "d.duckdb")
    refused(r, "the conformance check of random@1.0.0 could not run: RuntimeError: the check ran")


def test_a_failed_check_leaves_no_empty_folders(tmp_path):
    """A bot that fails its check: neither its copy nor the NAME/VERSION folders made for it are left."""
    from tests.referee.botkit import bot_folder

    bot = bot_folder(tmp_path / "src", "raiser", "--every")
    r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
    refused(r, "failed the conformance check")
    store_is_empty(tmp_path)


def test_links_are_copied_and_hashed_as_links_never_followed(tmp_path):
    """A symbolic link to a file or a folder outside the bot (here one holding a FIFO and a secret)
    is kept as a link: what it points to is never read, walked, hashed or copied."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("the host's secret")
    os.mkfifo(outside / "pipe")
    bot = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    (bot / "to_dir").symlink_to(outside)
    (bot / "to_file").symlink_to(outside / "secret")
    (bot / "to_pipe").symlink_to(outside / "pipe")
    assert {p.name for p in bot_files(bot)} >= {"to_dir", "to_file", "to_pipe"}
    digest = content_hash(bot)
    (outside / "secret").write_text("changed")
    assert content_hash(bot) == digest  # the target's bytes are not hashed
    r = cli("bots", "submit", bot, "--db", tmp_path / "a.duckdb")
    assert r.exit_code == 0, output(r)
    with Store.open(tmp_path / "a.duckdb", read_only=True) as s:
        frozen = Path(s.get_bot("random", "1.0.0").path)
    for name, target in (("to_dir", outside), ("to_file", outside / "secret"), ("to_pipe", outside / "pipe")):
        assert (frozen / name).is_symlink() and os.readlink(frozen / name) == str(target)
    assert content_hash(frozen) == digest
    assert not any(p.is_file() and not p.is_symlink() and p.read_text() == "changed" for p in frozen.rglob("*"))


def test_a_frozen_copy_keeps_programs_executable(tmp_path):
    """A compiled bot's binary (``command = ["./bot"]``) stays executable in its frozen copy:
    programs 0555, other files 0444, folders 0555 (frozen, they were all 0444 and a C++ bot
    failed to start: "Permission denied")."""
    from arena.play.bots import freeze
    from referee.manifest import load_manifest

    folder = copy_bot(SAMPLES / "random", tmp_path / "bot", "1.0.0")
    (folder / "run.sh").write_text("#!/bin/sh\nexec python bot.py \"$@\"\n")
    (folder / "run.sh").chmod(0o750)
    (folder / "data").mkdir()
    (folder / "data" / "table.txt").write_text("1 2 3\n")
    copy, made = freeze(folder, tmp_path / "store", load_manifest(folder), content_hash(folder))
    assert made
    modes = {p.relative_to(copy).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in copy.rglob("*")}
    assert modes["run.sh"] == 0o555 and modes["bot.py"] == modes["bot.toml"] == modes["data/table.txt"] == 0o444
    assert modes["data"] == 0o555 and stat.S_IMODE(copy.stat().st_mode) == 0o555
    assert os.access(copy / "run.sh", os.X_OK) and not os.access(copy / "bot.py", os.X_OK)


def test_a_manifest_nested_past_the_parsers_depth_is_a_manifest_error(tmp_path):
    """Red team 22: 30,000 nested '[' in bot.toml made tomllib recurse past Python's limit; the
    competition's intake took the RecursionError for its own failure and retried it."""
    (tmp_path / "bot.toml").write_text("x = " + "[" * 30_000 + "]" * 30_000 + "\n")
    with pytest.raises(ManifestError, match="nests arrays or tables too deeply"):
        manifest_module.load_manifest(tmp_path)
