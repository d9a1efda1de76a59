"""Archives (arena/compete/archive.py): a bot folder packs to exactly the files its content hash
covers, and every kind of hostile archive is refused, with a message naming it, before anything
is extracted or written."""

from __future__ import annotations

import gzip
import io
import os
import random
import shutil
import tarfile
from pathlib import Path

import pytest

from arena.compete.archive import ArchiveError, ArchiveLimits, check_archive, extract, pack
from referee.manifest import content_hash

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
MANIFEST = b'name = "x"\nversion = "1"\nauthor = "a"\ncommand = ["python", "bot.py"]\nprotocol = "1.0"\n' \
           b'rulesets = ["classic"]\n'


def tgz(*members: tuple[tarfile.TarInfo, bytes | None], manifest: bool = True, level: int = 9) -> bytes:
    """A .tar.gz of the given (TarInfo, data) members, with a bot.toml first unless told not to."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=level) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        if manifest:
            info = tarfile.TarInfo("bot.toml")
            info.size = len(MANIFEST)
            tar.addfile(info, io.BytesIO(MANIFEST))
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def entry(name: str, kind=tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, linkname
    return info


def zeros(n: int) -> bytes:
    return bytes(n)


#: Ten kinds of bad archive (and more), each with the words its refusal must hold.
BAD = {
    "absolute path": (lambda: tgz((entry("/etc/cron.d/x"), b"x")), "absolute path"),
    "dot-dot": (lambda: tgz((entry("../../outside.py"), b"x")), "'..'"),
    "dot-dot inside": (lambda: tgz((entry("a/../../b"), b"x")), "'..'"),
    "symbolic link": (lambda: tgz((entry("link", tarfile.SYMTYPE, "/etc/passwd"), None)), "symbolic link"),
    "hard link": (lambda: tgz((entry("hard", tarfile.LNKTYPE, "bot.toml"), None)), "hard link"),
    "npm's link": (lambda: tgz((entry("node_modules/.bin/tsc", tarfile.SYMTYPE, "../typescript/bin/tsc"), None)),
                   "run `npm ci --ignore-scripts --no-bin-links` to install node_modules without links"),
    "character device": (lambda: tgz((entry("null", tarfile.CHRTYPE), None)), "a device"),
    "block device": (lambda: tgz((entry("sda", tarfile.BLKTYPE), None)), "a device"),
    "fifo": (lambda: tgz((entry("pipe", tarfile.FIFOTYPE), None)), "FIFO"),
    # red team 22: an old-GNU sparse entry of 1,973 bytes unpacked to 250 MiB, past the ratio's count
    "sparse file": (lambda: tgz((entry("big.bin", tarfile.GNUTYPE_SPARSE), None)), "a sparse file"),
    "too many files": (lambda: tgz(*[(entry(f"f{i}"), b"") for i in range(30)]), "more than 20 files"),
    "too large unpacked": (lambda: tgz((entry("big.txt"), bytes(random.choice(b"AB") for _ in range(210_000)))),
                           "more than 200,000 bytes"),
    "compression bomb": (lambda: tgz((entry("zeros.bin"), zeros(150_000))), "tar bomb"),
    "not gzip": (lambda: b"PK\x03\x04 a zip file", "not a gzip-compressed tar"),
    "truncated": (lambda: tgz((entry("a.py"), os.urandom(5000)))[:-2000], "not a readable .tar.gz"),
    "gzip of no tar": (lambda: gzip.compress(b"hello" * 10), "not a readable .tar.gz"),
    # red team 22b: a whole gzip of a tar cut inside its last member's data passed the check
    "member data missing": (lambda: gzip.compress(gzip.decompress(tgz((entry("a.bin"), os.urandom(50_000))))[:30_000]),
                            "unexpected end of data"),
    "no manifest": (lambda: tgz((entry("bot.py"), b"print()"), manifest=False), "no bot.toml"),
    "twice the same name": (lambda: tgz((entry("a.py"), b"1"), (entry("./a.py"), b"2")), "twice"),
    # red team 38: a file, then a path inside it: the extraction failed, blamed on the server
    "a path inside a file": (lambda: tgz((entry("a"), b"1"), (entry("a/b"), b"2")), "as a file and as a folder"),
    "a file where a folder was": (lambda: tgz((entry("a/b"), b"1"), (entry("a"), b"2")), "as a file and as a folder"),
    "control character": (lambda: tgz((entry("a\x1b[31m.py"), b"1")), "control or format"),
    "compressed too large": (lambda: tgz((entry("noise"), os.urandom(70_000))), "over the competition's"),
}

LIMITS = ArchiveLimits(compressed_bytes=64_000, unpacked_bytes=200_000, files=20, ratio=30, ratio_floor=32_768)


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_archives_are_refused_with_a_clear_message(kind, tmp_path):
    make, words = BAD[kind]
    data = make()
    with pytest.raises(ArchiveError) as e:
        check_archive(data, LIMITS)
    assert words in str(e.value), str(e.value)
    assert "\x1b" not in str(e.value)
    (tmp_path / "upload.tar.gz").write_bytes(data)
    with pytest.raises(ArchiveError):  # extraction checks again first: nothing is written
        extract(tmp_path / "upload.tar.gz", tmp_path / "out", LIMITS)
    assert not (tmp_path / "out").exists()


def test_a_bomb_is_never_inflated_past_the_cap():
    """64 MiB of zeros (~64 KiB compressed) under the default caps: refused after reading at most
    the ratio's cap."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = 64 << 20

        class Zeros(io.RawIOBase):
            left = info.size

            def readable(self):
                return True

            def readinto(self, b):
                n = min(len(b), self.left)
                b[:n] = bytes(n)
                self.left -= n
                return n

        tar.addfile(info, io.BufferedReader(Zeros()))
    with pytest.raises(ArchiveError, match="tar bomb"):
        check_archive(out.getvalue(), ArchiveLimits())


def test_pack_covers_exactly_the_content_hash(tmp_path):
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLES / "greedy", bot, ignore=shutil.ignore_patterns("__pycache__"))
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "x.pyc").write_bytes(b"cache")
    (bot / "data").mkdir()
    (bot / "data" / "weights.bin").write_bytes(os.urandom(1000))
    data = pack(bot)
    assert pack(bot) == data  # the same folder packs to the same bytes
    summary = check_archive(data)
    assert summary.files == len([p for p in bot.rglob("*") if p.is_file() and "__pycache__" not in p.parts])
    extract_to = tmp_path / "unpacked"
    (tmp_path / "a.tar.gz").write_bytes(data)
    extract(tmp_path / "a.tar.gz", extract_to)
    assert content_hash(extract_to) == content_hash(bot)
    assert not (extract_to / "__pycache__").exists()


def test_pack_refuses_a_symbolic_link(tmp_path):
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLES / "random", bot, ignore=shutil.ignore_patterns("__pycache__"))
    (bot / "secret").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError, match="symbolic link"):
        pack(bot)
