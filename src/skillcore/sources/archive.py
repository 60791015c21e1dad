"""Skills packaged in a zip or tar archive (a whole library or a single skill).

Sources::

    bundle.zip / bundle.tar.gz / bundle.tgz / bundle.tar     a local archive, skills at its root
    zip://skills::bundle.zip                                  the folder ``skills`` inside it
    tar://skills::s3://bucket/bundle.tar.gz                   an archive anywhere fsspec reads

The format is detected from the content (zip, tar, tar.gz, tar.bz2, tar.xz), not the name.
Archives are untrusted input. The archive is read into memory once per change and indexed:

- members with absolute names, ``..`` segments, backslashes or NUL bytes, and symlinks,
  hard links and device entries are rejected with an ``UNSAFE_PATH`` diagnostic and can
  never be read;
- more than ``max_members`` entries, or more than ``max_uncompressed_bytes`` declared (zip)
  or produced (tar) uncompressed bytes, refuses the archive (zip bombs); a zip's entry count
  is read from its end records (zip64 too) and checked against its central directory before
  anything is parsed;
- the format is the container's own magic at offset 0 (a tar ending with a zip member is a
  tar), never found by scanning;
- member names that are not UTF-8 are rejected with an ``UNDECODABLE_NAME`` diagnostic;
- every read is capped, and decompression never produces more than the cap.

The index, or the refusal, is cached by the archive's identity (size, ``mtime_ns`` and inode
for local files; ETag / modification time elsewhere): a refresh of an unchanged archive
parses nothing.

Storage options ``max_members`` (default 20,000), ``max_uncompressed_bytes`` (256 MiB) and
``max_archive_bytes`` (256 MiB) set the limits; other options go to fsspec for opening the
archive file itself.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import posixpath
import struct
import tarfile
import threading
import zipfile
import zlib
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import Resource
from skillcore.paths import printable_name, undecodable
from skillcore.sources.common import (
    cap_skill_directories,
    describe_error,
    listed_resources,
    skill_directories,
)
from skillcore.sources.errors import ReadError, SourceUnavailable
from skillcore.sources.fsspec_reader import FsspecReader
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import ARCHIVE_SUFFIXES, SKILL_FILE, SkillSource


@attrs.frozen
class ArchiveLimits:
    """Bounds that keep hostile archives harmless."""

    max_members: int = 20_000
    max_uncompressed_bytes: int = 256 * 1024 * 1024
    max_archive_bytes: int = 256 * 1024 * 1024


_LIMIT_KEYS = ("max_members", "max_uncompressed_bytes", "max_archive_bytes")


def open_archive_reader(source: SkillSource) -> SourceReader:
    """Reader factory for ``zip://``/``tar://`` URLs and local archive paths."""
    if source.fs is not None:  # a ready fsspec ZipFileSystem/TarFileSystem: generic reader
        return FsspecReader(source, source.fs, source.url)
    opts = source.fsspec_options()
    limits = ArchiveLimits(
        **{k: int(opts.pop(k)) for k in _LIMIT_KEYS if k in opts},
    )
    url = source.url
    inner = ""
    for scheme in ("zip://", "tar://"):
        if url.startswith(scheme):
            head, sep, target = url.partition("::")
            if sep:
                inner, url = head[len(scheme) :], target
            else:
                url = url[len(scheme) :]
            break
    if url.startswith("file://"):
        url = url[len("file://") :]
    if "://" not in url and "::" not in url:
        url = os.path.expanduser(url)
    if not url:
        raise ValueError(f"no archive in {source.url!r}; use zip://FOLDER::ARCHIVE or a path")
    return ArchiveReader(source, url, inner.strip("/"), opts, limits)


@attrs.frozen
class _Member:
    name: str
    size: int
    #: CRC-32 of the content when the archive records it (zip), else None.
    crc: int | None
    #: A ZipInfo, or the (offset, size) of the data in the decompressed tar.
    ref: Any


@attrs.frozen
class _Index:
    stamp: str
    files: Mapping[str, _Member]
    dirs: frozenset[str]
    rejected: Mapping[str, str]
    diagnostics: tuple[Diagnostic, ...]
    opener: Callable[[_Member, int], bytes]


def member_name(raw: str) -> tuple[str | None, str | None]:
    """``(normalised name, None)``, ``(None, reason)`` for an unsafe name, or ``(None, None)``
    for the archive root itself (``./``)."""
    if "\x00" in raw:
        return None, "contains a NUL byte"
    if "\\" in raw:
        return None, "contains a backslash"
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        return None, "is an absolute path"
    segments = [s for s in raw.split("/") if s not in ("", ".")]
    if ".." in segments:
        return None, "contains '..' (would escape the archive)"
    if not segments:
        return None, None
    return "/".join(segments), None


class ArchiveReader(SourceReader):
    """Reads skills from an indexed in-memory zip or tar archive."""

    def __init__(
        self,
        source: SkillSource,
        target: str,
        inner: str,
        target_options: Mapping[str, Any],
        limits: ArchiveLimits,
    ) -> None:
        super().__init__(source)
        self.target = target
        self.inner = inner
        self.target_options = dict(target_options)
        self.limits = limits
        self._index: _Index | None = None
        #: (stamp, message) of the last refusal: an unchanged hostile archive is not re-parsed.
        self._refused: tuple[str, str] | None = None
        self._lock = threading.Lock()

    def url_for(self, directory: str) -> str:
        """``<archive>!/<folder>/<directory>``."""
        inside = "/".join(p for p in (self.inner, directory) if p)
        return f"{self.target}!/{inside}" if inside else self.target

    # -- loading ---------------------------------------------------------------------------

    def _load(self) -> _Index:
        """The index of the archive, rebuilt only when the archive file changed."""
        import fsspec

        try:
            fs, path = fsspec.url_to_fs(self.target, **self.target_options)
            info = fs.info(path)
        except FileNotFoundError as exc:
            raise SourceUnavailable(f"archive {self.target} does not exist") from exc
        except Exception as exc:
            raise SourceUnavailable(
                f"cannot open archive {self.target}: {describe_error(exc)}"
            ) from exc
        if info.get("type") == "directory":
            raise SourceUnavailable(f"{self.target} is a directory, not an archive")
        size = int(info.get("size") or 0)
        stamp = _identity(fs, path, info)
        cached = self._index
        if cached is not None and cached.stamp == stamp:
            return cached
        if self._refused is not None and self._refused[0] == stamp:
            raise SourceUnavailable(self._refused[1])
        try:
            if size > self.limits.max_archive_bytes:
                raise SourceUnavailable(
                    f"archive {self.target} is {size} bytes, over the limit of "
                    f"{self.limits.max_archive_bytes} (max_archive_bytes)"
                )
            try:
                data = fs.cat_file(path)
            except Exception as exc:
                raise SourceUnavailable(
                    f"cannot read archive {self.target}: {describe_error(exc)}"
                ) from exc
            index = self._build(bytes(data), stamp)
        except SourceUnavailable as exc:
            self._refused = (stamp, str(exc))
            raise
        self._index = index
        self._refused = None
        return index

    def _build(self, data: bytes, stamp: str) -> _Index:
        # The container's own magic at offset 0 decides, never a scan: an uncompressed tar
        # whose last member is a zip must be read as the tar it is.
        if data[:4] in (b"PK\x03\x04", b"PK\x05\x06") and data[257:262] != b"ustar":
            return self._build_zip(data, stamp)
        return self._build_tar(data, stamp)

    def _refuse(self, what: str) -> SourceUnavailable:
        return SourceUnavailable(f"archive {self.target} refused: {what}")

    def _build_zip(self, data: bytes, stamp: str) -> _Index:
        # Count the entries from the end records before zipfile builds one object per entry
        # (600,000 entries cost ~300 MiB and seconds before a count check could refuse them).
        declared = zip_entry_count(data, self.limits.max_members + 1)
        if declared is not None and declared > self.limits.max_members:
            raise self._refuse(
                f"{declared} entries, over the limit of {self.limits.max_members} (max_members)"
            )
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
            infos = zf.infolist()
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            OSError,
            ValueError,  # includes UnicodeDecodeError (a name flagged UTF-8 that is not)
            EOFError,
        ) as exc:
            raise SourceUnavailable(
                f"archive {self.target} is not a valid zip file (corrupt or truncated: {exc})"
            ) from exc
        if len(infos) > self.limits.max_members:
            raise self._refuse(
                f"{len(infos)} entries, over the limit of {self.limits.max_members} (max_members)"
            )
        total = sum(i.file_size for i in infos)
        if total > self.limits.max_uncompressed_bytes:
            raise self._refuse(
                f"it declares {total} bytes uncompressed, over the limit of "
                f"{self.limits.max_uncompressed_bytes} (max_uncompressed_bytes; a zip bomb?)"
            )
        builder = _Builder(self)
        for info in infos:
            mode = (info.external_attr >> 16) & 0o170000
            kind = "file"
            if info.is_dir():
                kind = "dir"
            elif mode == 0o120000:
                kind = "a symlink (links are not followed)"
            elif mode not in (0, 0o100000):
                kind = "not a regular file"
            builder.add(info.filename, kind, info.file_size, info, info.CRC)
        lock = threading.Lock()

        def opener(member: _Member, limit: int) -> bytes:
            with lock, zf.open(member.ref) as fh:
                return bytes(fh.read(limit))

        return builder.finish(stamp, opener)

    def _build_tar(self, data: bytes, stamp: str) -> _Index:
        cap = self.limits.max_uncompressed_bytes
        raw = self._decompress(data, cap)
        try:
            tf = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")  # noqa: SIM115 (in memory)
        except tarfile.TarError as exc:
            raise SourceUnavailable(
                f"archive {self.target} is neither a zip nor a tar archive (or it is corrupt: "
                f"{exc})"
            ) from exc
        builder = _Builder(self)
        count = 0
        try:
            while True:
                info = tf.next()
                if info is None:
                    break
                count += 1
                if count > self.limits.max_members:
                    raise self._refuse(f"more than {self.limits.max_members} entries (max_members)")
                if info.isdir():
                    kind = "dir"
                elif info.issym() or info.islnk():
                    kind = "a link (links are not followed)"
                elif not info.isreg() or info.issparse():
                    kind = "not a regular file"
                else:
                    kind = "file"
                builder.add(info.name, kind, info.size, (info.offset_data, info.size), None)
        except tarfile.TarError as exc:
            raise SourceUnavailable(f"archive {self.target} is a corrupt tar file ({exc})") from exc
        view = memoryview(raw)

        def opener(member: _Member, limit: int) -> bytes:
            offset, size = member.ref
            return bytes(view[offset : offset + min(size, limit)])

        return builder.finish(stamp, opener)

    def _decompress(self, data: bytes, cap: int) -> bytes:
        """Decompress a tar's outer layer, never producing more than ``cap + 1`` bytes."""
        stream = _decompressor(data)
        if stream is None:
            if len(data) > cap:
                raise self._refuse(f"over {cap} bytes (max_uncompressed_bytes)")
            return data
        try:
            with stream as fh:
                raw = fh.read(cap + 1)
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
            raise SourceUnavailable(
                f"archive {self.target} is corrupt or truncated ({type(exc).__name__}: {exc})"
            ) from exc
        if len(raw) > cap:
            raise self._refuse(
                f"it decompresses to more than {cap} bytes (max_uncompressed_bytes; a bomb?)"
            )
        return bytes(raw)

    # -- the three primitives --------------------------------------------------------------

    def _root_files(self, index: _Index) -> dict[str, _Member]:
        if not self.inner:
            return dict(index.files)
        prefix = self.inner + "/"
        return {n[len(prefix) :]: m for n, m in index.files.items() if n.startswith(prefix)}

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """Index the archive (if it changed) and read the heads of changed SKILL.md members."""
        with self._lock:
            index = self._load()
        if self.inner and self.inner not in index.dirs:
            raise SourceUnavailable(f"no folder {self.inner!r} in archive {self.target}")
        files = self._root_files(index)
        diags = list(index.diagnostics)
        entries: list[ScanEntry] = []
        root_name = self.inner.rsplit("/", 1)[-1] or _stem(self.target)
        dirs = skill_directories(files, self.source)
        dirs, capped = cap_skill_directories(dirs, self.source)
        diags.extend(capped)
        for directory in dirs:
            member = files[f"{directory}/{SKILL_FILE}" if directory else SKILL_FILE]
            dir_name = directory.rsplit("/", 1)[-1] if directory else root_name
            try:
                head = index.opener(member, head_bytes)
            except Exception as exc:
                diags.append(
                    Diagnostic(
                        Severity.ERROR,
                        Code.READ_FAILED,
                        f"skipped: cannot read SKILL.md from the archive: {describe_error(exc)}",
                        self.source.label,
                        member.name,
                    )
                )
                continue
            # The content decides the stamp: a re-packed archive keeps unchanged skills.
            crc = member.crc
            if crc is None:  # tar: the data is in memory already
                whole = head if len(head) >= member.size else index.opener(member, member.size)
                crc = zlib.crc32(whole)
            stamp = f"{member.size}:{crc:08x}"
            if known.get(directory) == stamp:
                entries.append(ScanEntry(directory, dir_name, stamp, None))
            else:
                entries.append(
                    ScanEntry(
                        directory, dir_name, stamp, head, member.size <= len(head), size=member.size
                    )
                )
        return Scan(tuple(entries), tuple(diags))

    def _full(self, directory: str, rel: str) -> str:
        return "/".join(p for p in (self.inner, directory, rel) if p)

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read a member (capped); rejected members are refused with PATH_REJECTED."""
        rel = safe_relpath(rel_path)
        try:
            with self._lock:
                index = self._index or self._load()
        except SourceUnavailable as exc:
            raise ReadError(OutcomeCode.READ_FAILED, str(exc)) from exc
        name = self._full(directory, rel)
        if name in index.rejected:
            raise ReadError(
                OutcomeCode.PATH_REJECTED,
                f"{rel_path!r} was rejected when the archive was opened: {index.rejected[name]}",
            )
        member = index.files.get(name)
        if member is None:
            if name in index.dirs:
                raise ReadError(
                    OutcomeCode.RESOURCE_NOT_FOUND, f"{rel_path!r} is a directory, not a file"
                )
            raise ReadError(
                OutcomeCode.RESOURCE_NOT_FOUND,
                f"no file {rel_path!r} in the skill directory",
                missing=True,
            )
        if member.size > max_bytes:
            raise ReadError(
                OutcomeCode.TOO_LARGE,
                f"{rel_path!r} is {member.size} bytes, over the {max_bytes}-byte limit",
            )
        try:
            return index.opener(member, max_bytes)
        except Exception as exc:
            raise ReadError(
                OutcomeCode.READ_FAILED, f"cannot read {rel_path!r}: {describe_error(exc)}"
            ) from exc

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Members under the skill directory, from the index."""
        try:
            with self._lock:
                index = self._index or self._load()
        except SourceUnavailable:
            return (), False
        base = self._full(directory, "")
        prefix = base + "/" if base else ""
        files = ((name, index.files[name].size) for name in sorted(index.files))
        return listed_resources(files, prefix, max_entries)


class _Builder:
    """Collects members, rejecting unsafe ones with diagnostics."""

    def __init__(self, reader: ArchiveReader) -> None:
        self.reader = reader
        self.files: dict[str, _Member] = {}
        self.dirs: set[str] = set()
        self.rejected: dict[str, str] = {}
        self.diags: list[Diagnostic] = []

    def _diag(self, code: Code, message: str, path: str, severity: Severity) -> None:
        self.diags.append(Diagnostic(severity, code, message, self.reader.source.label, path))

    def add(self, raw: str, kind: str, size: int, ref: Any, crc: int | None) -> None:
        if undecodable(raw):
            self._diag(
                Code.UNDECODABLE_NAME,
                "archive entry rejected: the name is not valid UTF-8",
                printable_name(raw),
                Severity.ERROR,
            )
            return
        name, reason = member_name(raw)
        if name is None:
            if reason is not None:
                self._diag(
                    Code.UNSAFE_PATH,
                    f"archive entry rejected: the name {reason}",
                    raw,
                    Severity.ERROR,
                )
            return
        if kind == "dir":
            self._add_parents(name + "/x")
            return
        if kind != "file":
            self.rejected[name] = f"it is {kind}"
            self._diag(
                Code.UNSAFE_PATH, f"archive entry rejected: it is {kind}", name, Severity.ERROR
            )
            return
        if name in self.files or name in self.rejected:
            self._diag(
                Code.UNSAFE_PATH,
                "archive entry rejected: a second entry with the same name (the first is kept)",
                name,
                Severity.WARNING,
            )
            return
        self.files[name] = _Member(name, size, crc, ref)
        self._add_parents(name)

    def _add_parents(self, name: str) -> None:
        parent = posixpath.dirname(name)
        while parent and parent not in self.dirs:
            self.dirs.add(parent)
            parent = posixpath.dirname(parent)

    def finish(self, stamp: str, opener: Callable[[_Member, int], bytes]) -> _Index:
        return _Index(
            stamp,
            self.files,
            frozenset(self.dirs),
            self.rejected,
            tuple(self.diags),
            opener,
        )


def _decompressor(data: bytes) -> Any:
    """A reading stream for gzip/bzip2/xz content, or None for anything else."""
    buf = io.BytesIO(data)
    if data[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=buf, mode="rb")
    if data[:3] == b"BZh":
        return bz2.BZ2File(buf)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(buf)
    return None


_EOCD = struct.Struct("<4s4H2LH")
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_CD_ENTRY = struct.Struct("<4s4B4HL2L5H2L")


def zip_entry_count(data: bytes, stop: int) -> int | None:
    """Entries of a zip according to its end-of-central-directory record (zip64 too), and at
    least as many as its central directory really holds (counted up to ``stop``; the record
    may lie). None when there is no end record (zipfile then reports the zip as invalid)."""
    start = max(0, len(data) - _EOCD.size - 0xFFFF)
    pos = data.rfind(b"PK\x05\x06", start)
    if pos < 0 or pos + _EOCD.size > len(data):
        return None
    total, cd_size = _EOCD.unpack_from(data, pos)[4:6]
    cd_end = pos
    loc = pos - _EOCD64_LOCATOR.size
    if loc >= 0 and data[loc : loc + 4] == b"PK\x06\x07":
        rec = _EOCD64_LOCATOR.unpack_from(data, loc)[2]
        if rec + _EOCD64.size <= len(data) and data[rec : rec + 4] == b"PK\x06\x06":
            fields = _EOCD64.unpack_from(data, rec)
            total, cd_size = max(total, fields[7]), fields[8]
            cd_end = rec
    # Walk the central directory headers (no objects built), stopping at ``stop``.
    off, seen = max(0, cd_end - cd_size), 0
    while seen < stop and data[off : off + 4] == b"PK\x01\x02":
        if off + _CD_ENTRY.size > len(data):
            break
        fields = _CD_ENTRY.unpack_from(data, off)
        off += _CD_ENTRY.size + fields[12] + fields[13] + fields[14]
        seen += 1
    count: int = max(total, seen)  # (struct fields are untyped)
    return count


def _identity(fs: Any, path: str, info: Mapping[str, Any]) -> str:
    """What identifies one version of the archive file: size + mtime_ns (+ inode) for local
    files, the object's ETag / modification time / sha elsewhere."""
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    if protocol in ("file", "local"):
        try:
            st = os.stat(path)
            return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_dev}"
        except OSError:
            pass
    return ":".join(str(info.get(k, "")) for k in ("size", "mtime", "ETag", "LastModified", "sha"))


def _stem(target: str) -> str:
    name = target.rstrip("/").rsplit("/", 1)[-1]
    for suffix in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name
