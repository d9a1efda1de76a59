"""Bot archives: what ``arena remote submit`` packs and what the competition server accepts.

An archive is a gzip-compressed tar (``.tar.gz``) of a bot folder's files: exactly those
:func:`referee.manifest.content_hash` covers (:func:`referee.manifest.bot_files`), so the
folder the server unpacks has the content hash the participant's folder has.

:func:`check_archive` reads an upload **before anything is extracted or written**, as a
stream whose unpacked bytes are counted as they are read (a bomb is never inflated past
the caps): it refuses anything but a ``.tar.gz``, absolute paths, ``..`` parts, links (symbolic
or hard), devices, FIFOs and other special entries, names repeated or not printable, more than
``files`` entries, more than ``unpacked_bytes`` unpacked, more than ``ratio`` times the
compressed size, and an archive without a ``bot.toml`` at its top. :func:`extract` unpacks a
checked archive with :mod:`tarfile`'s ``data`` filter.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from referee.manifest import MAX_DEPTH, NODE_MODULES, NODE_REQUIREMENTS, Manifest, bot_files, shown

__all__ = ["ArchiveError", "ArchiveLimits", "ArchiveSummary", "check_archive", "extract", "no_packages", "pack"]

#: How an archive is told from other bytes: gzip's magic number.
GZIP_MAGIC = b"\x1f\x8b"


class ArchiveError(ValueError):
    """An archive refused; the message says what is wrong and how to pack it instead."""


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps of one archive: ``compressed_bytes`` (the upload), ``unpacked_bytes`` (its files'
    sizes), ``files`` (entries: files and folders), ``ratio`` (unpacked over compressed bytes,
    tar headers included, once past ``ratio_floor`` unpacked bytes: a small archive's tar
    padding alone makes its ratio high)."""

    compressed_bytes: int = 64 << 20
    unpacked_bytes: int = 256 << 20
    files: int = 5_000
    ratio: int = 200
    ratio_floor: int = 1 << 20

    @classmethod
    def of(cls, policy: dict) -> ArchiveLimits:
        """The limits of a competition's policy (``archive_mib``, ``unpacked_mib``, ``archive_files``, ``max_ratio``)."""
        return cls(policy["archive_mib"] << 20, policy["unpacked_mib"] << 20, policy["archive_files"],
                   policy["max_ratio"])


@dataclass(frozen=True)
class ArchiveSummary:
    """What a checked archive holds: ``files`` (regular files), ``folders``, ``unpacked_bytes`` (files' sizes)."""

    files: int
    folders: int
    unpacked_bytes: int


class _Capped(io.RawIOBase):
    """A read-only stream over ``inner`` that refuses to go past ``cap`` bytes (a bomb stops there)."""

    def __init__(self, inner, cap: int, why: str):
        self.inner, self.cap, self.why, self.read_bytes = inner, cap, why, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        n = self.inner.readinto(memoryview(buf)[: max(0, min(len(buf), self.cap + 1 - self.read_bytes))])
        self.read_bytes += n
        if self.read_bytes > self.cap:
            raise ArchiveError(self.why)
        return n


#: How to install a Node.js bot's packages with no link (npm's ``node_modules/.bin/`` holds links).
NPM_WITHOUT_LINKS = "npm ci --ignore-scripts --no-bin-links"


def no_packages(manifest: Manifest) -> str | None:
    """Why a competition refuses this bot (it names ``requirements``: nothing is installed for an
    upload, a build would fetch from the network) and what to ship instead, fit for a Node.js
    bot's ``package.json`` or a pip requirements file; None when it names none."""
    if manifest.requirements is None:
        return None
    head = f"{manifest.key} names requirements ({manifest.requirements}): a competition installs no packages"
    if PurePosixPath(manifest.requirements).name == NODE_REQUIREMENTS:
        return (f"{head}: ship {NODE_MODULES}/ in the folder, installed with `{NPM_WITHOUT_LINKS}` (an archive "
                "carries no links), and remove `requirements` from bot.toml")
    return (f"{head}; ship them in the bot's folder (`pip install --target deps -r {manifest.requirements}`, then put "
            "deps/ on sys.path; a virtual environment holds symbolic links, which an archive cannot carry) and remove "
            "`requirements` from bot.toml")


def _link_hint(name: str) -> str:
    """What to add to the refusal of a link at ``name``: how npm installs without its ``.bin/`` links."""
    parts = PurePosixPath(name).parts
    in_bin = any(a == NODE_MODULES and b == ".bin" for a, b in zip(parts, parts[1:]))
    return f"; run `{NPM_WITHOUT_LINKS}` to install {NODE_MODULES} without links" if in_bin else ""


def _kind(member: tarfile.TarInfo) -> str | None:
    """What is wrong with an entry's type, or None for a regular file or folder."""
    if member.issparse():  # a few bytes that unpack to its whole size: past the ratio's count (red team 22)
        return "a sparse file (its holes would be unpacked in full)"
    if member.isreg() or member.isdir():
        return None
    if member.issym():
        return f"a symbolic link (to {shown(member.linkname)!r})"
    if member.islnk():
        return f"a hard link (to {shown(member.linkname)!r})"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a FIFO (named pipe)"
    return "a special entry"


def _check_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if not name or name.startswith("/") or "\\" in name or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"the archive holds the absolute path {shown(name)!r}: paths must be relative to the "
                           "bot's folder; pack it with `arena remote submit FOLDER`")
    if ".." in path.parts:
        raise ArchiveError(f"the archive holds the path {shown(name)!r} with '..': paths must stay inside the bot's "
                           "folder; pack it with `arena remote submit FOLDER`")
    if not name.isprintable() or "\x00" in name:
        raise ArchiveError(f"the archive holds the name {shown(name)!r} with control or format characters: "
                           "rename that file")
    if len(path.parts) > MAX_DEPTH + 1:
        raise ArchiveError(f"the archive holds {shown(name)!r}, more than {MAX_DEPTH} folders deep: flatten it")
    return path


def check_archive(data: bytes | Path, limits: ArchiveLimits = ArchiveLimits()) -> ArchiveSummary:
    """Check an uploaded archive, its bytes or the file holding them, without extracting or
    writing anything (module docstring).

    Raises:
        ArchiveError: the first thing refused, named, with its limit and what to do.
    """
    if isinstance(data, (bytes, bytearray)):
        return _check(io.BytesIO(data), len(data), limits)
    with open(data, "rb") as f:
        return _check(f, os.fstat(f.fileno()).st_size, limits)


def _check(archive, size: int, limits: ArchiveLimits) -> ArchiveSummary:
    """:func:`check_archive` of the ``size`` bytes of the binary file ``archive``."""
    if size > limits.compressed_bytes:
        raise ArchiveError(f"the archive is {size:,} bytes, over the competition's {limits.compressed_bytes:,}: "
                           "leave out what the bot does not need")
    if archive.read(len(GZIP_MAGIC)) != GZIP_MAGIC:
        raise ArchiveError("the upload is not a gzip-compressed tar archive (.tar.gz): pack the bot's folder with "
                           "`arena remote pack FOLDER` (or upload it with `arena remote submit FOLDER`)")
    archive.seek(0)
    cap = min(limits.unpacked_bytes + 512 * (2 * limits.files + 4) + 10240,
              max(limits.ratio * size, limits.ratio_floor))
    why = (f"the archive unpacks to more than {cap:,} bytes (caps: {limits.unpacked_bytes:,} bytes of files, "
           f"{limits.ratio} times its compressed size): a tar bomb, or a bot too large; leave out what it does not need")
    stream = _Capped(gzip.GzipFile(fileobj=archive, mode="rb"), cap, why)
    files = folders = size = 0
    seen: set[PurePosixPath] = set()
    regular: set[PurePosixPath] = set()  # the files' paths, and every folder above a path, so far
    above: set[PurePosixPath] = set()
    top_manifest = False
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:  # read a record (10 KiB) at a time
            for member in tar:
                path = _check_name(member.name)
                if (problem := _kind(member)) is not None:
                    raise ArchiveError(f"{shown(member.name)!r} in the archive is {problem}: an archive may hold "
                                       "only regular files and folders; replace it by a copy of its file, or remove it"
                                       + (_link_hint(member.name) if member.issym() or member.islnk() else ""))
                norm = PurePosixPath(*[p for p in path.parts if p != "."]) if path.parts else path
                if str(norm) in ("", "."):
                    folders += member.isdir()
                    continue
                if norm in seen:
                    raise ArchiveError(f"the archive holds {shown(member.name)!r} twice: pack each file once")
                seen.add(norm)
                if any(p in regular for p in norm.parents) or (not member.isdir() and norm in above):
                    raise ArchiveError(f"the archive holds {shown(member.name)!r} as a file and as a folder (a path "
                                       "inside a file, or a file where a folder is): pack each path once")
                if member.isreg():
                    regular.add(norm)
                above.update(norm.parents)
                files += member.isreg()
                folders += member.isdir()
                size += member.size if member.isreg() else 0
                if files + folders > limits.files:
                    raise ArchiveError(f"the archive holds more than {limits.files:,} files and folders, the "
                                       "competition's cap: leave out what the bot does not need")
                if size > limits.unpacked_bytes:
                    raise ArchiveError(f"the archive's files add up to more than {limits.unpacked_bytes:,} bytes, "
                                       "the competition's cap: leave out what the bot does not need")
                if norm == PurePosixPath("bot.toml") and member.isreg():
                    top_manifest = True
                if member.isreg():  # its data read to its end: a truncated member is refused here, not at
                    data_in = tar.extractfile(member)  # the extraction (red team 22b: a "server failure" 3 times)
                    while data_in.read(1 << 16):
                        pass
    except ArchiveError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile, OSError) as e:
        raise ArchiveError(f"the upload is not a readable .tar.gz ({type(e).__name__}: {e}): pack the bot's folder "
                           "with `arena remote submit FOLDER`") from None
    if stream.read_bytes > max(limits.ratio * size, limits.ratio_floor):
        raise ArchiveError(why)
    if not top_manifest:
        raise ArchiveError("the archive has no bot.toml at its top: pack the bot's folder itself (the one holding "
                           "bot.toml), e.g. `arena remote submit FOLDER`")
    return ArchiveSummary(files, folders, size)


def extract(archive: Path, dest: Path, limits: ArchiveLimits = ArchiveLimits()) -> ArchiveSummary:
    """Check the archive file ``archive`` again (:func:`check_archive`), then unpack it into
    the new folder ``dest`` with :mod:`tarfile`'s ``data`` filter (no links, devices, absolute
    paths or modes beyond the owner's rwx and everyone's r-x).

    Raises:
        ArchiveError: as :func:`check_archive`; or the data filter refused a member, or a
            member's path could not be made as the archive shapes it (a path inside a file).
        OSError: ``dest`` exists or cannot be written (the server's fault, not the archive's).
    """
    summary = check_archive(archive, limits)  # read from the file: 64 MiB never held whole
    dest.mkdir(mode=0o700)
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            tar.extractall(dest, filter="data")
    except (tarfile.FilterError, NotADirectoryError, IsADirectoryError, FileExistsError) as e:
        raise ArchiveError(f"the archive could not be unpacked as it is shaped ({type(e).__name__}: "
                           f"{shown(str(e).replace(str(dest), 'the bot folder'))}): pack the bot's folder with "
                           "`arena remote submit FOLDER`") from None
    return summary


def pack(folder: str | Path) -> bytes:
    """The ``.tar.gz`` of a bot folder: the files :func:`referee.manifest.content_hash` covers,
    by their paths relative to the folder, with neutral owners and times (the same folder
    packs to the same bytes).

    Raises:
        ArchiveError: the folder holds a symbolic link (an archive carries none).
        ManifestError: a special file, a folder too deep or unreadable (:func:`referee.manifest.walk`).
    """
    folder = Path(folder)
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w",
                                                                            format=tarfile.PAX_FORMAT) as tar:
        for path in bot_files(folder):
            rel = path.relative_to(folder).as_posix()
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                raise ArchiveError(f"{shown(path)} is a symbolic link: an archive carries no links; replace it by a "
                                   "copy of the file it points to" + _link_hint(rel))
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = st.st_size, 0o755 if st.st_mode & 0o111 else 0o644, 0
            with open(path, "rb") as f:
                tar.addfile(info, f)
    return out.getvalue()
