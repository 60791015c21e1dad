"""Where skills live: ``SkillSource`` values and the readers behind them.

A reader does all I/O for one source through a few primitives: ``scan`` (list skill
directories and read the head of each ``SKILL.md``), ``read_file`` (confined, capped) and
``list_files``. Local disk gets a direct ``os.scandir`` reader (several times faster than
fsspec's ``find``); any other fsspec URL goes through the generic reader. Other backends
register themselves with :func:`register_reader`.

Local reads are confined at read time: every path is walked from the source root one
component at a time with ``O_NOFOLLOW`` (symlinks are resolved here, at most
:data:`MAX_SYMLINK_HOPS`, and must stay inside the source for a skill directory and inside
the skill directory for its files), the final open is non-blocking and checked with
``fstat``, and only regular files with a single hard link are read (see
``SkillSource.allow_hardlinks``). Names that are not UTF-8 are never returned.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import re
import stat as stat_mod
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import compress, islice
from pathlib import Path
from typing import Any, NamedTuple

import attrs

from skillcore._frozen import FrozenDict, thaw, to_frozen
from skillcore._text import describe
from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SkillcoreError, SourceError, install_hint
from skillcore.limits import DEFAULT_MAX_FILE_BYTES
from skillcore.model import Resource, ResourceKind
from skillcore.paths import (
    PathProblem,
    normalise_relpath,
    path_problem,
    printable_name,
    undecodable,
)

SKILL_FILE = "SKILL.md"
#: Directory names never descended into.
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".hg", ".svn"})

#: Symlinks followed at most while resolving one local path (the kernel's own limit is 40).
MAX_SYMLINK_HOPS = 40
#: Directories one resource listing visits at most (symlinked directories are never entered).
MAX_LISTED_DIRS = 1_000
#: Directory entries one resource listing examines at most.
MAX_LISTED_ENTRIES = 20_000

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK everywhere: opening a FIFO planted in a skill must never block.
_O_ROOT = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_O_DIR = _O_ROOT | getattr(os, "O_NOFOLLOW", 0)
_O_FILE = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | _CLOEXEC
)


def _as_text(url: str | os.PathLike[str]) -> str:
    """A path object as the text it stands for; anything else unchanged (validated later)."""
    return os.fspath(url) if isinstance(url, os.PathLike) else url


@attrs.frozen
class SkillSource:
    """A place skills live: a path or fsspec URL (or a ready filesystem), plus options.

    Sources listed later override earlier ones (the shadowing is recorded as a diagnostic).
    """

    #: A path (``str`` or path object, kept as text) or an fsspec URL.
    url: str = attrs.field(converter=_as_text)
    label: str = attrs.field()
    storage_options: FrozenDict[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    #: An fsspec filesystem to use instead of resolving ``url`` (``url`` is then its root path).
    fs: Any = attrs.field(default=None, eq=False, hash=False, repr=False)
    #: Look for skills below the root, up to ``max_depth`` levels (monorepos).
    recursive: bool = False
    max_depth: int = 4
    #: Directory entries examined at most during one scan.
    max_entries: int = 100_000
    #: Read local files that have more than one hard link. Off by default: a hard link is
    #: indistinguishable from the file it links to (e.g. ``~/.ssh/id_rsa`` linked into a
    #: skill), so confinement cannot be checked. Turn on for trees built with hard links
    #: (e.g. package managers that link files from a cache).
    allow_hardlinks: bool = False

    def fsspec_options(self) -> dict[str, Any]:
        """``storage_options`` as plain, mutable values (nested mappings as dicts, sequences
        as lists): what fsspec and its filesystems expect, since some copy or update them
        (s3fs copies ``client_kwargs``). A fresh copy on every call."""
        return thaw(self.storage_options)  # type: ignore[no-any-return]

    @label.default
    def _label(self) -> str:
        return self.url

    @classmethod
    def coerce(cls, value: SkillSource | str | os.PathLike[str]) -> SkillSource:
        """Accept a SkillSource, a path or a URL."""
        if isinstance(value, SkillSource):
            return value
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str) or not value.strip():
            raise SourceError(f"a source must be a path, a URL or a SkillSource, got {value!r}")
        return cls(value)

    @property
    def protocol(self) -> str:
        """``file`` for local paths, else the URL scheme (first of a chain)."""
        if self.fs is not None:
            proto = self.fs.protocol
            return proto if isinstance(proto, str) else proto[0]
        if "://" not in self.url and "::" not in self.url:
            return "file"
        head = self.url.split("::", 1)[0]
        return head.split("://", 1)[0] if "://" in head else head


class ReadError(SkillcoreError):
    """A file could not be read; ``code`` is the outcome code to report.

    ``missing`` is True when the file does not exist (as opposed to existing but refused);
    ``problem`` says why a path was refused (``PATH_REJECTED`` by the path rule).
    """

    def __init__(
        self,
        code: OutcomeCode,
        message: str,
        *,
        missing: bool = False,
        problem: PathProblem | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.missing = missing
        self.problem = problem


class SourceUnavailable(SkillcoreError):
    """A whole source could not be scanned (missing root, network failure, ...)."""


@attrs.frozen
class ScanEntry:
    """One skill directory found by a scan."""

    #: Skill directory relative to the source root ('' when the root is the skill).
    directory: str
    #: Name of the directory (used to check the skill's name).
    dir_name: str
    stamp: str
    #: Head bytes of SKILL.md; None when the stamp matched a known one (unchanged).
    head: bytes | None
    #: True when ``head`` is the whole file.
    complete: bool = False
    #: Why SKILL.md could not be read this time (``head`` is then None). The library keeps
    #: the skill's last good version for a grace period instead of dropping it at once.
    error: Diagnostic | None = None


@attrs.frozen
class Scan:
    """What one scan of a source found."""

    entries: tuple[ScanEntry, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    #: Top-level skill directories whose SKILL.md has its known stamp, ``{directory: stamp}``
    #: in the order of the known stamps, when the caller asked for them apart from ``entries``
    #: (``LocalReader.scan(..., unchanged_apart=True)``): each stands for
    #: ``ScanEntry(directory, directory, stamp, None)``. One small dict instead of an object
    #: per skill: an unchanged library of 100,000 skills is mostly this.
    unchanged: Mapping[str, str] = attrs.field(factory=dict, hash=False)

    def all_entries(self) -> tuple[ScanEntry, ...]:
        """``entries`` with the ``unchanged`` ones as entries too, in directory order."""
        if not self.unchanged:
            return self.entries
        found = [ScanEntry(d, d, stamp, None) for d, stamp in self.unchanged.items()]
        found.extend(self.entries)
        found.sort(key=_directory_of)
        return tuple(found)


def _directory_of(entry: ScanEntry) -> str:
    return entry.directory


def safe_relpath(path: str) -> str:
    """Normalise a path relative to a skill directory, rejecting escapes (the rule is
    :func:`skillcore.paths.path_problem`). Raises ReadError(PATH_REJECTED) with the reason."""
    problem = path_problem(path)
    if problem is not None:
        shown = printable_name(path) if isinstance(path, str) else repr(path)
        raise ReadError(OutcomeCode.PATH_REJECTED, f"{problem.value}: {shown!r}", problem=problem)
    return normalise_relpath(path)


class SourceReader:
    """Base class of source readers. Subclasses implement the three sync primitives; the async
    versions default to one thread hop per call (a whole scan is one hop)."""

    #: Files larger than this are never read whole, not even for a discovery head (backends
    #: that must inflate a whole object to read its head, like Git, refuse it up front).
    #: ``SkillLibrary`` sets it to its ``max_file_bytes``.
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    def __init__(self, source: SkillSource) -> None:
        self.source = source

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """List skill directories and read SKILL.md heads for entries whose stamp changed."""
        raise NotImplementedError

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read a file of a skill directory, confined to it. Raises ReadError."""
        raise NotImplementedError

    def read_head(self, directory: str, rel_path: str, max_bytes: int) -> tuple[bytes, bool]:
        """The first ``max_bytes`` of a file and whether that is all of it. Raises ReadError.

        This default reads the file whole (up to ``max_file_bytes``) and cuts it; readers that
        can read a byte range override it.
        """
        try:
            return self.read_file(directory, rel_path, max_bytes), True
        except ReadError as exc:
            if exc.code is not OutcomeCode.TOO_LARGE:
                raise
        data = self.read_file(directory, rel_path, max(self.max_file_bytes, max_bytes))
        return data[:max_bytes], len(data) <= max_bytes

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Files of a skill directory (excluding SKILL.md), capped; ``(resources, truncated)``."""
        raise NotImplementedError

    def url_for(self, directory: str) -> str:
        """A display URL/path of a skill directory."""
        base = self.source.url.rstrip("/")
        return f"{base}/{directory}" if directory else base

    async def ascan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """Async :meth:`scan`."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.scan, head_bytes, known)

    async def aread_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Async :meth:`read_file`."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.read_file, directory, rel_path, max_bytes)

    async def alist_files(
        self, directory: str, max_entries: int
    ) -> tuple[tuple[Resource, ...], bool]:
        """Async :meth:`list_files`."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.list_files, directory, max_entries)


def misnamed_skill_file(name: str) -> bool:
    """True for a case variant of ``SKILL.md`` (``skill.md``, ``Skill.md``, ...): the guide
    asks for a file "named exactly ``SKILL.md``", so it is reported, not read."""
    return name != SKILL_FILE and name.lower() == SKILL_FILE.lower()


def misnamed_diagnostic(reader: SourceReader, path: str) -> Diagnostic:
    """A WARNING; the library makes it an ERROR in strict mode."""
    name = posixpath.basename(path)
    return _diag(
        Code.MISNAMED_SKILL_FILE,
        f"{name!r} is not read as a skill: the file must be named exactly {SKILL_FILE} "
        "(case matters); rename it",
        reader,
        path,
        Severity.WARNING,
    )


def _join(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p.strip("/"))


class PathEscape(SkillcoreError):
    """A path (through its symlinks) leads outside the allowed directory."""

    def __init__(self, outside_source: bool) -> None:
        super().__init__("outside the source" if outside_source else "outside the directory")
        self.outside_source = outside_source


class NotRegularFile(SkillcoreError):
    """The path names something other than a regular file (FIFO, socket, device, directory)
    or a regular file with more than one hard link."""

    def __init__(self, what: str, hardlink: bool = False) -> None:
        super().__init__(what)
        self.what = what
        self.hardlink = hardlink


def file_kind(mode: int) -> str:
    """A short description of a non-regular file type, for messages."""
    if stat_mod.S_ISDIR(mode):
        return "a directory"
    if stat_mod.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat_mod.S_ISSOCK(mode):
        return "a socket"
    if stat_mod.S_ISCHR(mode) or stat_mod.S_ISBLK(mode):
        return "a device"
    if stat_mod.S_ISLNK(mode):
        return "a symlink"
    return "not a regular file"


class _Cursor:
    """A position below a source root held as a chain of directory file descriptors.

    Every component is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so the
    kernel never follows a symlink for us: links are read with ``readlink`` and resolved here
    (at most :data:`MAX_SYMLINK_HOPS`), and ``canon`` is always the physical path below the
    root. A directory swapped for a symlink between two reads is therefore seen, never
    followed blindly, and there is no window between a check and the open.
    """

    __slots__ = ("canon", "fds", "hops", "root")

    def __init__(self, root: str, root_fd: int) -> None:
        self.root = root
        self.fds = [root_fd]  # fds[0] belongs to the caller
        self.canon: list[str] = []
        self.hops = 0

    @property
    def fd(self) -> int:
        return self.fds[-1]

    def close(self) -> None:
        for fd in self.fds[1:]:
            os.close(fd)
        del self.fds[1:]

    def _up(self) -> None:
        if not self.canon:
            raise PathEscape(True)
        self.canon.pop()
        os.close(self.fds.pop())

    def _link(self, name: str, pending: list[str]) -> bool:
        """Splice the target of symlink ``name`` into ``pending``; False if not a link."""
        try:
            target = os.readlink(name, dir_fd=self.fd)
        except OSError:
            return False
        self.hops += 1
        if self.hops > MAX_SYMLINK_HOPS:
            raise OSError(errno.ELOOP, f"more than {MAX_SYMLINK_HOPS} symlinks", name)
        if target.startswith("/"):
            real_root = os.path.realpath(self.root)
            if target != real_root and not target.startswith(real_root.rstrip("/") + "/"):
                raise PathEscape(True)
            target = target[len(real_root) :]
            self.close()
            self.canon.clear()
        pending.extend(reversed(target.split("/")))
        return True

    def walk(self, parts: list[str], last_is_file: bool) -> tuple[str, os.stat_result] | None:
        """Descend through ``parts`` (directories; the last one a file if ``last_is_file``).

        Returns ``(name, lstat)`` of the final file, which sits in :attr:`fd` and is not a
        symlink; None when ``last_is_file`` is False (the cursor is then at the directory).
        Raises PathEscape, OSError (FileNotFoundError, NotADirectoryError, ELOOP, ...).
        """
        pending = list(reversed(parts))
        while pending:
            name = pending.pop()
            if name in ("", "."):
                continue
            if name == "..":
                self._up()
                continue
            if last_is_file and not pending:
                st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
                if stat_mod.S_ISLNK(st.st_mode):
                    self._link(name, pending)
                    continue
                if stat_mod.S_ISDIR(st.st_mode):
                    # A link to a directory resolved to here; its name is not a file.
                    raise NotRegularFile(file_kind(st.st_mode))
                return name, st
            try:
                fd = os.open(name, _O_DIR, dir_fd=self.fd)
            except FileNotFoundError:
                raise
            except OSError:
                if self._link(name, pending):
                    continue
                raise
            self.fds.append(fd)
            self.canon.append(name)
        if last_is_file:  # the path ended at a directory (e.g. a link to '.')
            raise NotRegularFile("a directory")
        return None

    def open_file(self, name: str, st: os.stat_result, allow_hardlinks: bool) -> int:
        """Open the (non-link) file ``name`` located by :meth:`walk`: regular files only,
        non-blocking, and checked to be the very file ``st`` describes."""
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotRegularFile(file_kind(st.st_mode))
        if st.st_nlink > 1 and not allow_hardlinks:
            raise NotRegularFile(f"a file with {st.st_nlink} hard links", hardlink=True)
        fd = os.open(name, _O_FILE, dir_fd=self.fd)
        try:
            fst = os.fstat(fd)
            if not stat_mod.S_ISREG(fst.st_mode):
                raise NotRegularFile(file_kind(fst.st_mode))
            if (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino) or (
                fst.st_nlink > 1 and not allow_hardlinks
            ):
                raise OSError(errno.EAGAIN, "the file changed while it was being opened", name)
        except BaseException:
            os.close(fd)
            raise
        return fd


def _read_fd(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd`` (closes it)."""
    try:
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p] if path else []


_IS_EIGHT = (8).__eq__


def _file_stamp(st: os.stat_result) -> str:
    """The change stamp of a local ``SKILL.md``: what refresh and the parse cache compare.

    Size and ``mtime_ns``, plus ``ctime_ns`` and the inode: ``cp -p``, ``tar x`` or a
    restore can write new content keeping size and mtime, but no user can set the ctime
    (every write and metadata change sets it to now) and a replaced file has a new inode.
    Still unseen: two same-size writes within one tick of the filesystem's clock whose mtime
    is then restored, and filesystems that do not keep a ctime (see docs/security.md)."""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def _same_file(st: os.stat_result, stamp: str, hardlinks: bool) -> bool:
    """True when ``st`` is still the file ``stamp`` was taken of: same stamp, a regular file,
    and not hard-linked unless the source allows it (the skill is unchanged)."""
    return (
        _file_stamp(st) == stamp
        and stat_mod.S_ISREG(st.st_mode)
        and (st.st_nlink == 1 or hardlinks)
    )


#: Returned by LocalReader._entry for a directory without a SKILL.md file.
_NOT_A_SKILL = object()
#: Returned instead by LocalReader._entry(misnamed=False) for a directory without SKILL.md.
_NO_SKILL_FILE = object()
#: A key of ``plain`` (no directory entry is called that) meaning "do not trust this scan".
_UNTRUSTED = "/"
#: File times within this many seconds of a scan are not trusted by LocalReader.unchanged.
_RACY_SECONDS = 1.0


class _Seen(NamedTuple):
    """The root's signature, the directories without a skill, and when the scan started."""

    root: tuple[int, int, int, int]
    plain: dict[str, int]
    started: float


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


class LocalReader(SourceReader):
    """Reads a local directory; every open is confined to the source root (see _Cursor)."""

    def __init__(self, source: SkillSource, root: str) -> None:
        super().__init__(source)
        self.root = os.path.abspath(os.path.expanduser(root))
        self._prefix = self.root if self.root.endswith("/") else self.root + "/"
        #: What the last clean scan saw, for :meth:`unchanged` (None: a full scan is needed).
        self._seen: _Seen | None = None
        # The rolling check of unchanged(): the stamps in a fixed order and where to go on.
        self._items: tuple[Mapping[str, str], tuple[tuple[str, str], ...]] | None = None
        self._cursor = 0

    def url_for(self, directory: str) -> str:
        """The absolute path of the skill directory."""
        if not directory:
            return self.root
        if directory[0] == "/":
            return os.path.join(self.root, directory)
        # What os.path.join gives for a relative directory, at a fraction of the cost (it runs
        # once per skill when a large catalog is rebuilt from the parse cache).
        return self._prefix + directory

    def _open_root(self) -> int:
        return os.open(self.root, _O_ROOT)

    def scan(
        self, head_bytes: int, known: Mapping[str, str], unchanged_apart: bool = False
    ) -> Scan:
        """One listing of the root (bounded recursion if asked), a read per changed skill.

        ``unchanged_apart``: give the top-level skills whose stamp is in ``known`` as
        :attr:`Scan.unchanged` instead of one entry each (what ``SkillLibrary`` asks for).
        """
        self._seen = None
        started = time.time()
        try:
            root_fd = self._open_root()
        except FileNotFoundError as exc:
            raise SourceUnavailable(f"source {self.root} does not exist") from exc
        except NotADirectoryError as exc:
            raise SourceUnavailable(f"source {self.root} is not a directory") from exc
        except OSError as exc:
            raise SourceUnavailable(f"cannot list {self.root}: {exc}") from exc
        unchanged: dict[str, str] = {}
        try:
            diags: list[Diagnostic] = []
            entries: list[ScanEntry] = []
            cur = _Cursor(self.root, root_fd)
            root_entry = self._entry(
                cur, "", os.path.basename(self.root), head_bytes, known, diags, misnamed=False
            )
            # A root without SKILL.md names its case variants from the walk's own listing.
            misnamed = root_entry is _NO_SKILL_FILE
            if not misnamed and root_entry is not _NOT_A_SKILL:
                found = (root_entry,) if isinstance(root_entry, ScanEntry) else ()
                return Scan(found, tuple(diags))
            budget = [self.source.max_entries]
            depth = self.source.max_depth if self.source.recursive else 1
            plain: dict[str, int] | None = {} if depth == 1 else None
            root_st = os.fstat(root_fd)
            self._walk(
                root_fd,
                "",
                depth,
                head_bytes,
                known,
                entries,
                diags,
                budget,
                plain,
                unchanged=unchanged,
                misnamed=misnamed,
            )
        finally:
            os.close(root_fd)
        entries.sort(key=_directory_of)
        if (
            plain is not None
            and _UNTRUSTED not in plain
            and not diags
            and all(e.error is None for e in entries)
        ):
            self._seen = _Seen(_signature(root_st), plain, started)
        scan = Scan(tuple(entries), tuple(diags), unchanged)
        return scan if unchanged_apart else Scan(scan.all_entries(), scan.diagnostics)

    def unchanged(self, known: Mapping[str, str], files: int | None = None) -> bool:
        """True when a scan now would find exactly ``known`` again, checked without listing:
        the root directory is the same (same inode, ``mtime_ns`` and ``ctime_ns``: no entry
        was added, removed or renamed), every directory without a ``SKILL.md`` is unchanged
        (none gained one), and every ``SKILL.md`` has its known stamp and is a regular file.

        ``files``: check only that many ``SKILL.md`` stamps, the next ones in turn after
        those the previous call checked (a rolling check: every file is checked once every
        ``len(known) / files`` calls); None checks them all.

        Only after a clean, non-recursive scan without symlinked entries; timestamps newer
        than a second before that scan are not trusted (file times are coarse: a change in
        the same tick as the scan would keep them), so the next call scans again.
        """
        seen = self._seen
        if seen is None or not known:
            return False
        try:
            root_fd = self._open_root()
        except OSError:
            return False
        try:
            if _signature(os.fstat(root_fd)) != seen.root:
                return False
            fresh = seen.started - _RACY_SECONDS
            if seen.root[2] >= fresh * 1e9:  # mtime: any later change moves it past this
                return False
            lstat = os.stat
            for name, mtime in seen.plain.items():
                st = lstat(name, dir_fd=root_fd, follow_symlinks=False)
                if st.st_mtime_ns != mtime or mtime >= fresh * 1e9:
                    return False
            hardlinks = self.source.allow_hardlinks
            for rel, stamp in self._rolling(known, files):
                st = lstat(f"{rel}/{SKILL_FILE}", dir_fd=root_fd, follow_symlinks=False)
                if not _same_file(st, stamp, hardlinks):
                    return False
        except OSError:
            return False
        finally:
            os.close(root_fd)
        return True

    def _rolling(self, known: Mapping[str, str], files: int | None) -> Iterable[tuple[str, str]]:
        """The stamps :meth:`unchanged` checks this time (all, or the next ``files``)."""
        if files is None or files >= len(known):
            return known.items()
        items = self._items
        if items is None or items[0] is not known:
            items = self._items = (known, tuple(known.items()))
        entries, start = items[1], self._cursor % len(items[1])
        self._cursor = start + files
        window = entries[start : start + files]
        return window + entries[: files - len(window)] if len(window) < files else window

    def _walk(
        self,
        root_fd: int,
        rel: str,
        depth: int,
        head_bytes: int,
        known: Mapping[str, str],
        entries: list[ScanEntry],
        diags: list[Diagnostic],
        budget: list[int],
        plain: dict[str, int] | None = None,
        unchanged: dict[str, str] | None = None,
        misnamed: bool = False,
    ) -> None:
        """Walk one directory level; ``plain`` collects the ``mtime_ns`` of directories that
        hold no skill (for :meth:`unchanged`), and is dropped when it cannot be trusted.
        ``unchanged`` collects the top-level skills whose SKILL.md has its known stamp
        (``{name: stamp}``; without it they are entries). ``misnamed``: this
        directory has no SKILL.md; name its case variants (from this same listing)."""
        cur = _Cursor(self.root, root_fd)
        hot: dict[str, str] | None = None
        try:
            cur.walk(_parts(rel), last_is_file=False)
            with os.scandir(cur.fd) as it:
                if rel or depth > 1 or unchanged is None:
                    children = [
                        (c.name, c.is_dir(follow_symlinks=False), c.is_symlink()) for c in it
                    ]
                    if misnamed:
                        self._misnamed_in(rel, [c[0] for c in children], diags)
                else:
                    hot, children = self._list_top(it, root_fd, known, diags if misnamed else None)
        except (OSError, PathEscape) as exc:
            if not rel:
                raise SourceUnavailable(f"cannot list {self.root}: {exc}") from exc
            diags.append(_diag(Code.READ_FAILED, f"cannot list directory: {exc}", self, rel))
            return
        finally:
            cur.close()
        if hot is not None:
            if len(hot) + len(children) <= budget[0]:
                # The whole level fits the budget and nothing below it is walked (depth 1):
                # the skills found unchanged need no place in the name-ordered walk (they
                # add no diagnostic).
                budget[0] -= len(hot)
                unchanged.update(hot)  # type: ignore[union-attr]
            else:  # the budget ends in this listing: every entry takes its turn by name
                children.extend((name, True, False) for name in hot)
                hot = None
        children.sort()
        # Where the inline hot path below records unchanged skills (the split listing above
        # has checked them already).
        found = unchanged if hot is None else None
        hardlinks = self.source.allow_hardlinks
        for name, is_dir, is_link in children:
            if budget[0] <= 0:
                diags.append(
                    _diag(
                        Code.SOURCE_LIMIT,
                        f"stopped after {self.source.max_entries} directory entries; "
                        "some skills may be missing",
                        self,
                        rel,
                        Severity.WARNING,
                    )
                )
                return
            budget[0] -= 1
            if name.startswith(".") or name in SKIP_DIRS or not (is_dir or is_link):
                continue
            child_rel = f"{rel}/{name}" if rel else name
            if undecodable(name):
                diags.append(
                    _diag(
                        Code.UNDECODABLE_NAME,
                        f"skipped: the directory name {printable_name(name)!r} is not valid "
                        "UTF-8; rename it",
                        self,
                        printable_name(child_rel),
                    )
                )
                continue
            if not rel and is_dir and not is_link and found is not None and name in known:
                # The refresh hot path of _entry, inlined for the common top-level skill:
                # one lstat of SKILL.md tells "unchanged" without opening anything (nothing is
                # read here; any read goes through a cursor). Otherwise _entry decides.
                try:
                    st = os.stat(f"{name}/{SKILL_FILE}", dir_fd=root_fd, follow_symlinks=False)
                except OSError:
                    st = None
                if st is not None and _same_file(st, known[name], hardlinks):
                    found[name] = known[name]
                    continue
            entry = self._entry(
                _Cursor(self.root, root_fd),
                child_rel,
                name,
                head_bytes,
                known,
                diags,
                listed_dir=is_dir and not is_link,
            )
            if plain is not None and _UNTRUSTED not in plain:
                if is_link:
                    plain[_UNTRUSTED] = 0  # a linked entry can change without the root changing
                elif entry is _NOT_A_SKILL and is_dir:
                    try:
                        st = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
                        plain[name] = st.st_mtime_ns
                    except OSError:
                        plain[_UNTRUSTED] = 0
            if isinstance(entry, ScanEntry):
                entries.append(entry)
            elif entry is _NOT_A_SKILL and depth > 1:
                self._walk(root_fd, child_rel, depth - 1, head_bytes, known, entries, diags, budget)

    def _list_top(
        self,
        listing: Iterator[os.DirEntry[str]],
        root_fd: int,
        known: Mapping[str, str],
        misnamed: list[Diagnostic] | None,
    ) -> tuple[dict[str, str], list[tuple[str, bool, bool]]]:
        """The root's listing, split: ``{name: stamp}`` of the real directories whose
        SKILL.md has its known stamp (in the order of ``known``), and ``(name, is_dir,
        is_link)`` of every other entry. Case variants of SKILL.md go to ``misnamed`` when
        given (as :meth:`_report_misnamed` finds them)."""
        found = {child.name: child for child in listing}
        if misnamed is not None:
            self._misnamed_in("", list(found), misnamed)
        hardlinks = self.source.allow_hardlinks
        lstat = os.stat
        pop = found.pop
        hot: dict[str, str] = {}
        # In the order of ``known``, not of the listing: its strings were made in that order
        # (e.g. by the parse cache), so a large library is read through memory in sequence,
        # and the names and stamps kept are its own objects (later lookups by identity).
        for name, stamp in known.items():
            child = pop(name, None)
            if child is None:
                continue
            if (
                child.is_dir(follow_symlinks=False)
                and name.isascii()
                and name[0] != "."
                and name not in SKIP_DIRS
            ):
                # The refresh hot path of _entry for the common top-level skill: one lstat
                # of SKILL.md below a real directory tells "unchanged" without opening
                # anything (nothing is read here; any read goes through a cursor).
                try:
                    st = lstat(f"{name}/{SKILL_FILE}", dir_fd=root_fd, follow_symlinks=False)
                except OSError:
                    pass
                else:
                    if _same_file(st, stamp, hardlinks):
                        hot[name] = stamp
                        continue
            found[name] = child  # the name-ordered walk decides
        rest = [(n, c.is_dir(follow_symlinks=False), c.is_symlink()) for n, c in found.items()]
        return hot, rest

    def _entry(
        self,
        cur: _Cursor,
        rel: str,
        dir_name: str,
        head_bytes: int,
        known: Mapping[str, str],
        diags: list[Diagnostic],
        listed_dir: bool = False,
        misnamed: bool = True,
    ) -> ScanEntry | object | None:
        """The scan entry of a skill directory; None if skipped (with a diagnostic);
        ``_NOT_A_SKILL`` when it is no directory or has no SKILL.md file. ``listed_dir``: the
        listing just reported ``rel`` as a directory, not a symlink (no need to lstat it).
        ``misnamed=False``: leave the case variants of a missing SKILL.md to the caller and
        return ``_NO_SKILL_FILE`` for a directory without one."""
        file_rel = f"{rel}/{SKILL_FILE}" if rel else SKILL_FILE
        if rel in known and "/" not in rel and rel:
            # Refresh hot path: two lstats (one when the listing already told the entry is a
            # real directory) tell "unchanged" without opening anything. Nothing is read here,
            # so no confinement is at stake; any read goes through the cursor.
            try:
                if listed_dir or stat_mod.S_ISDIR(
                    os.stat(rel, dir_fd=cur.fd, follow_symlinks=False).st_mode
                ):
                    st = os.stat(file_rel, dir_fd=cur.fd, follow_symlinks=False)
                    if _same_file(st, known[rel], self.source.allow_hardlinks):
                        return ScanEntry(rel, dir_name, known[rel], None)
            except OSError:
                pass
        try:
            try:
                fast = None
                if rel and "/" not in rel:  # hot path: a plain directory under the root
                    with contextlib.suppress(OSError):
                        fast = os.open(rel, _O_DIR, dir_fd=cur.fd)
                if fast is not None:
                    cur.fds.append(fast)
                    cur.canon.append(rel)
                else:
                    cur.walk(_parts(rel), last_is_file=False)
            except (FileNotFoundError, NotADirectoryError):
                return _NOT_A_SKILL  # a file, a link to one, or a dangling link
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                return _NOT_A_SKILL  # a symlink loop is no skill directory
            except PathEscape:
                real = os.path.realpath(os.path.join(self.root, rel))
                diags.append(
                    _diag(
                        Code.SYMLINK_ESCAPE,
                        f"skipped: symlinked directory points outside the source ({real})",
                        self,
                        rel,
                    )
                )
                return None
            try:
                name, st = SKILL_FILE, os.stat(SKILL_FILE, dir_fd=cur.fd, follow_symlinks=False)
                if stat_mod.S_ISLNK(st.st_mode):
                    base = list(cur.canon)
                    name, st = cur.walk([SKILL_FILE], last_is_file=True)  # type: ignore[misc]
                    if cur.canon != base:
                        raise PathEscape(False)
                elif stat_mod.S_ISDIR(st.st_mode):
                    diags.append(_not_a_file(self, file_rel, "a directory"))
                    return _NOT_A_SKILL
            except (FileNotFoundError, NotADirectoryError):
                if not misnamed:
                    return _NO_SKILL_FILE
                self._report_misnamed(cur.fd, rel, diags)
                return _NOT_A_SKILL
            except NotRegularFile:
                diags.append(_not_a_file(self, file_rel, "a symlink to a directory"))
                return _NOT_A_SKILL
            stamp = _file_stamp(st)
            if rel in known and _same_file(st, known[rel], self.source.allow_hardlinks):
                return ScanEntry(rel, dir_name, stamp, None)
            fd = cur.open_file(name, st, self.source.allow_hardlinks)
            head = _read_fd(fd, head_bytes)
        except PathEscape as exc:
            where = "the source" if exc.outside_source else "its skill directory"
            diags.append(
                _diag(
                    Code.SYMLINK_ESCAPE,
                    f"skipped: SKILL.md is a symlink pointing outside {where}",
                    self,
                    file_rel,
                )
            )
            return None
        except NotRegularFile as exc:
            diags.append(_diag(Code.UNSAFE_PATH, _refusal(SKILL_FILE, exc), self, file_rel))
            return None
        except OSError as exc:
            error = _diag(Code.READ_FAILED, f"skipped: cannot read SKILL.md: {exc}", self, file_rel)
            return ScanEntry(rel, dir_name, "", None, error=error)
        finally:
            cur.close()
        complete = st.st_size <= len(head)
        return ScanEntry(rel, dir_name, stamp, _frontmatter_prefix(head), complete=complete)

    def _report_misnamed(self, dir_fd: int, rel: str, diags: list[Diagnostic]) -> None:
        """A directory without SKILL.md: name a case variant of it if there is one (bounded
        listing; only directories that are no skill pay for it)."""
        names: list[str] = []
        try:
            with os.scandir(dir_fd) as it:
                names.extend(islice((child.name for child in it), self.source.max_entries))
        except OSError:
            pass  # the walk that follows reports an unreadable directory
        self._misnamed_in(rel, names, diags)  # the names listed before any error count

    def _misnamed_in(self, rel: str, names: list[str], diags: list[Diagnostic]) -> None:
        """Case variants of SKILL.md among the first ``max_entries`` of ``names`` (a listing
        of ``rel``, in listing order)."""
        names = names[: self.source.max_entries]
        # Lowercasing never shortens a name: only 8-character names can match (picked in C).
        for name in compress(names, map(_IS_EIGHT, map(len, names))):
            if misnamed_skill_file(name) and not undecodable(name):
                diags.append(misnamed_diagnostic(self, _join(rel, name)))

    def _locate(
        self, cur: _Cursor, directory: str, rel: str, rel_path: str
    ) -> tuple[str, os.stat_result]:
        """Walk to a file of a skill directory, confined to that directory."""
        try:
            try:
                cur.walk(_parts(directory), last_is_file=False)
            except PathEscape:
                raise ReadError(
                    OutcomeCode.PATH_REJECTED,
                    "the skill directory now resolves outside the source (symlink escape); "
                    "the skill list may be out of date",
                ) from None
            base = list(cur.canon)
            name, st = cur.walk(rel.split("/"), last_is_file=True)  # type: ignore[misc]
            if cur.canon[: len(base)] != base:
                raise PathEscape(False)
        except PathEscape:
            raise ReadError(
                OutcomeCode.PATH_REJECTED,
                f"path {rel_path!r} resolves outside the skill directory (symlink escape)",
            ) from None
        except NotRegularFile as exc:
            raise ReadError(OutcomeCode.RESOURCE_NOT_FOUND, _refusal(rel_path, exc)) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ReadError(
                    OutcomeCode.PATH_REJECTED, f"path {rel_path!r}: {exc.strerror}"
                ) from None
            raise read_error(exc, rel_path, str) from exc
        return name, st

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read at most ``max_bytes``; larger files raise ReadError(TOO_LARGE)."""
        data, size = self._read(directory, rel_path, max_bytes + 1)
        if len(data) > max_bytes:
            raise ReadError(
                OutcomeCode.TOO_LARGE,
                f"{rel_path!r} is {size} bytes, over the {max_bytes}-byte limit",
            )
        return data

    def read_head(self, directory: str, rel_path: str, max_bytes: int) -> tuple[bytes, bool]:
        """The first ``max_bytes`` of a file (one bounded read) and whether that is all."""
        data, _ = self._read(directory, rel_path, max_bytes + 1)
        return data[:max_bytes], len(data) <= max_bytes

    def _read(self, directory: str, rel_path: str, limit: int) -> tuple[bytes, int]:
        """At most ``limit`` bytes of a file, confined, and the file's size."""
        rel = safe_relpath(rel_path)
        try:
            root_fd = self._open_root()
        except OSError as exc:
            raise ReadError(OutcomeCode.READ_FAILED, f"cannot open the source: {exc}") from exc
        cur = _Cursor(self.root, root_fd)
        try:
            name, st = self._locate(cur, directory, rel, rel_path)
            try:
                fd = cur.open_file(name, st, self.source.allow_hardlinks)
            except NotRegularFile as exc:
                code = OutcomeCode.PATH_REJECTED if exc.hardlink else OutcomeCode.RESOURCE_NOT_FOUND
                raise ReadError(code, _refusal(rel_path, exc)) from None
            data = _read_fd(fd, limit)
        except OSError as exc:
            raise read_error(exc, rel_path, str) from exc
        finally:
            cur.close()
            os.close(root_fd)
        return data, st.st_size

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Files of the skill directory: confined, never through symlinked directories,
        and bounded (``max_entries`` files, :data:`MAX_LISTED_DIRS` directories,
        :data:`MAX_LISTED_ENTRIES` directory entries examined)."""
        try:
            root_fd = self._open_root()
        except OSError:
            return (), False
        top = _Cursor(self.root, root_fd)
        out: list[Resource] = []
        truncated = False
        try:
            top.walk(_parts(directory), last_is_file=False)
            base = list(top.canon)
            stack = [""]  # directories still to visit, relative to the skill directory
            dirs = examined = 0
            while stack and len(out) < max_entries and examined <= MAX_LISTED_ENTRIES:
                rel = stack.pop()
                dirs += 1
                try:
                    dir_fd = _open_dirs(top.fd, rel)
                except OSError:
                    continue  # gone, or swapped for a link since it was listed
                try:
                    with os.scandir(dir_fd) as it:
                        children = []
                        for child in it:
                            examined += 1
                            if examined > MAX_LISTED_ENTRIES:
                                truncated = True
                                break
                            children.append(child)
                    children.sort(key=lambda c: c.name)
                    subdirs: list[str] = []
                    for child in children:
                        name = child.name
                        if name.startswith(".") or name in SKIP_DIRS or undecodable(name):
                            continue  # an undecodable name could not be shown nor asked for
                        child_rel = f"{rel}/{name}" if rel else name
                        if child_rel == SKILL_FILE:
                            continue
                        size = self._listed_size(child, top, base, child_rel, subdirs)
                        if size is None:
                            continue
                        if len(out) >= max_entries:
                            truncated = True
                            break
                        out.append(Resource(child_rel, ResourceKind.for_path(child_rel), size))
                except OSError:
                    continue
                finally:
                    os.close(dir_fd)
                room = max(0, MAX_LISTED_DIRS - dirs - len(stack))
                truncated = truncated or len(subdirs) > room
                stack.extend(reversed(subdirs[:room]))
        except (OSError, PathEscape):
            return (), False
        finally:
            top.close()
            os.close(root_fd)
        out.sort(key=lambda r: r.path)
        return tuple(out), truncated

    def _listed_size(
        self,
        child: os.DirEntry[str],
        top: _Cursor,
        base: list[str],
        child_rel: str,
        subdirs: list[str],
    ) -> int | None:
        """The size of a listable file; None for anything not offered (queues subdirs)."""
        try:
            st = child.stat(follow_symlinks=False)
            if stat_mod.S_ISDIR(st.st_mode):
                subdirs.append(child_rel)
                return None
            if stat_mod.S_ISLNK(st.st_mode):
                # Offer a symlinked file only if reading it would succeed: resolved inside
                # the skill directory, a regular file with one link. Directories behind
                # links are never descended into (no loops).
                cur = _Cursor(self.root, top.fds[0])
                try:
                    cur.walk(base, last_is_file=False)
                    _, st = cur.walk(child_rel.split("/"), last_is_file=True)  # type: ignore[misc]
                    if cur.canon[: len(base)] != base:
                        return None
                finally:
                    cur.close()
        except (OSError, PathEscape, NotRegularFile):
            return None
        if not stat_mod.S_ISREG(st.st_mode):
            return None  # FIFOs, sockets, devices are not resources
        if st.st_nlink > 1 and not self.source.allow_hardlinks:
            return None  # never advertise a file we would refuse to read
        return st.st_size


#: The line closing a frontmatter, as ``parsing.split_frontmatter`` finds it (LF endings).
_CLOSING_LINE = re.compile(rb"^(?:---|\.\.\.)[ \t\r]*\n", re.M)


def _frontmatter_prefix(head: bytes) -> bytes:
    """``head`` up to the end of its frontmatter's closing line (the rest is body, which
    discovery does not need): a scan holds every head until it is parsed, so keeping only
    the frontmatter divides the peak memory of a large discovery. Unchanged when no closing
    line is found (the parser then asks for more, as before)."""
    if not head.startswith(b"---") or b"\x00" in head[:8192]:
        return head  # the parser reports NUL bytes anywhere in the first 8 KiB
    if not head.isascii():
        try:
            head.decode("utf-8")
        except UnicodeDecodeError:
            return head  # the parser judges the whole head's UTF-8
    first = head.find(b"\n")
    if first == -1:
        return head
    m = _CLOSING_LINE.search(head, first + 1)
    return head if m is None else head[: m.end()]


def _open_dirs(dir_fd: int, rel: str) -> int:
    """Open the real (non-symlink) directory ``rel`` below ``dir_fd``, component by component."""
    fd = os.dup(dir_fd)
    for name in _parts(rel):
        try:
            nxt = os.open(name, _O_DIR, dir_fd=fd)
        finally:
            os.close(fd)
        fd = nxt
    return fd


def _not_a_file(reader: SourceReader, path: str, what: str) -> Diagnostic:
    return _diag(
        Code.SKILL_FILE_NOT_A_FILE,
        f"skipped: {SKILL_FILE} is {what}, not a file",
        reader,
        path,
        Severity.WARNING,
    )


def _refusal(rel_path: str, exc: NotRegularFile) -> str:
    if exc.hardlink:
        return (
            f"{rel_path!r} is refused: it is {exc.what}, so it may be the same file as one "
            "outside the skill (hard links to outside files are not read)"
        )
    return f"{rel_path!r} is {exc.what}, not a regular file"


class FsspecReader(SourceReader):
    """Generic reader over any fsspec filesystem (memory, zip, cached chains, ...)."""

    def __init__(self, source: SkillSource, fs: Any, root: str) -> None:
        super().__init__(source)
        self.fs = fs
        self.root = root.rstrip("/") if root not in ("", "/") else root

    def _abs(self, *parts: str) -> str:
        if self.root in ("", "/"):
            joined = _join(*parts)
            return f"/{joined}" if self.root == "/" else joined
        return "/".join([self.root, *(p for p in parts if p)])

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """One ``find`` of the root, then a batched ranged ``cat`` of changed heads."""
        fs = self.fs
        try:
            if not fs.isdir(self.root):
                raise SourceUnavailable(
                    f"source {self.source.url} does not exist or is not a directory"
                )
            depth = (self.source.max_depth if self.source.recursive else 1) + 1
            found = fs.find(self.root, maxdepth=depth, withdirs=False, detail=True)
        except SourceUnavailable:
            raise
        except Exception as exc:  # backends raise anything from OSError to botocore errors
            raise SourceUnavailable(
                f"cannot list {self.source.url}: {type(exc).__name__}: {exc}"
            ) from exc
        diags: list[Diagnostic] = []
        prefix = self.root.rstrip("/") + "/" if self.root not in ("", "/") else self.root
        candidates: list[tuple[str, dict[str, Any]]] = []
        misnamed: list[str] = []
        root_is_skill = False
        for path, info in sorted(found.items()):
            rel = path[len(prefix) :] if path.startswith(prefix) else path.lstrip("/")
            if rel == SKILL_FILE:
                root_is_skill = True
                candidates = [("", info)]
                break
            if not rel.endswith("/" + SKILL_FILE):
                if misnamed_skill_file(posixpath.basename(rel)):
                    misnamed.append(rel)
                continue
            directory = rel[: -len(SKILL_FILE) - 1]
            segments = directory.split("/")
            if any(s.startswith(".") or s in SKIP_DIRS for s in segments):
                continue
            if undecodable(directory):
                diags.append(
                    _diag(
                        Code.UNDECODABLE_NAME,
                        f"skipped: the directory name {printable_name(directory)!r} is not "
                        "valid UTF-8; rename it",
                        self,
                        printable_name(directory),
                    )
                )
                continue
            candidates.append((directory, info))
        if not root_is_skill:
            # A skill directory's own sub-folders are resources, not more skills.
            dirs = {d for d, _ in candidates}
            candidates = [(d, i) for d, i in candidates if not _has_ancestor(d, dirs)]
            for rel in misnamed:
                directory = posixpath.dirname(rel)
                segments = directory.split("/") if directory else []
                if directory in dirs or _has_ancestor(directory, dirs) or undecodable(rel):
                    continue  # a skill's own file, or a resource of a skill
                if not any(s.startswith(".") or s in SKIP_DIRS for s in segments):
                    diags.append(misnamed_diagnostic(self, rel))
        if len(candidates) > self.source.max_entries:
            diags.append(
                _diag(
                    Code.SOURCE_LIMIT,
                    f"found {len(candidates)} skills; only the first "
                    f"{self.source.max_entries} are read",
                    self,
                    "",
                    Severity.WARNING,
                )
            )
            candidates = candidates[: self.source.max_entries]
        entries: list[ScanEntry] = []
        to_read: list[tuple[str, str, str, int | None]] = []
        for directory, info in candidates:
            stamp = _stamp(info)
            dir_name = posixpath.basename(directory) or posixpath.basename(self.root.rstrip("/"))
            if known.get(directory) == stamp:
                entries.append(ScanEntry(directory, dir_name, stamp, None))
            else:
                to_read.append((directory, dir_name, stamp, info.get("size")))
        heads = self._read_heads([self._abs(d, SKILL_FILE) for d, *_ in to_read], head_bytes)
        for (directory, dir_name, stamp, size), head in zip(to_read, heads):
            if isinstance(head, BaseException):
                error = _diag(
                    Code.READ_FAILED,
                    f"skipped: cannot read SKILL.md: {type(head).__name__}: {head}",
                    self,
                    _join(directory, SKILL_FILE),
                )
                if isinstance(head, FileNotFoundError):
                    diags.append(error)
                else:  # the library keeps a skill read before for its grace period
                    entries.append(ScanEntry(directory, dir_name, stamp, None, error=error))
                continue
            complete = size is not None and size <= len(head)
            entries.append(ScanEntry(directory, dir_name, stamp, head, complete))
        entries.sort(key=lambda e: e.directory)
        return Scan(tuple(entries), tuple(diags))

    def _read_heads(self, paths: list[str], head_bytes: int) -> list[bytes | BaseException]:
        if not paths:
            return []
        try:
            result = self.fs.cat_ranges(
                paths, [0] * len(paths), [head_bytes] * len(paths), on_error="return"
            )
            return list(result)
        except Exception:  # some filesystems lack ranged batch reads: fall back per file
            out: list[bytes | BaseException] = []
            for p in paths:
                try:
                    out.append(self.fs.cat_file(p, start=0, end=head_bytes))
                except Exception as exc:
                    out.append(exc)
            return out

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Ranged read of at most ``max_bytes + 1`` bytes (detects over-size without a HEAD)."""
        return cat_capped(
            self.fs, self._abs(directory, safe_relpath(rel_path)), rel_path, max_bytes
        )

    def read_head(self, directory: str, rel_path: str, max_bytes: int) -> tuple[bytes, bool]:
        """One ranged read of the first ``max_bytes`` (and one more, to tell the end)."""
        path = self._abs(directory, safe_relpath(rel_path))
        return cat_head(self.fs, path, rel_path, max_bytes)

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """One ``find`` under the skill directory."""
        base = self._abs(directory)
        try:
            found = self.fs.find(base, withdirs=False, detail=True)
        except Exception:
            return (), False
        prefix = base.rstrip("/") + "/"
        out: list[Resource] = []
        for path, info in sorted(found.items()):
            rel = path[len(prefix) :] if path.startswith(prefix) else path
            if (
                rel == SKILL_FILE
                or undecodable(rel)
                or any(s.startswith(".") or s in SKIP_DIRS for s in rel.split("/"))
            ):
                continue
            if len(out) >= max_entries:
                return tuple(out), True
            out.append(Resource(rel, ResourceKind.for_path(rel), info.get("size")))
        return tuple(out), False


def _has_ancestor(directory: str, dirs: set[str]) -> bool:
    parts = directory.split("/")
    return any("/".join(parts[:i]) in dirs for i in range(1, len(parts)))


def _describe(exc: BaseException) -> str:
    return describe(exc)


def read_error(
    exc: BaseException, rel_path: str, describe: Callable[[BaseException], str] = _describe
) -> ReadError:
    """The :class:`ReadError` for a failed read of ``rel_path`` (missing, a directory, other)."""
    if isinstance(exc, FileNotFoundError):
        return ReadError(
            OutcomeCode.RESOURCE_NOT_FOUND,
            f"no file {rel_path!r} in the skill directory",
            missing=True,
        )
    if isinstance(exc, IsADirectoryError):
        return ReadError(OutcomeCode.RESOURCE_NOT_FOUND, f"{rel_path!r} is a directory, not a file")
    return ReadError(OutcomeCode.READ_FAILED, f"cannot read {rel_path!r}: {describe(exc)}")


def cat_head(
    fs: Any,
    path: str,
    rel_path: str,
    max_bytes: int,
    describe: Callable[[BaseException], str] = _describe,
) -> tuple[bytes, bool]:
    """The first ``max_bytes`` of ``path`` and whether that is all of it: one ranged
    ``cat_file`` of ``max_bytes + 1`` (tells the end without a HEAD request)."""
    try:
        data = fs.cat_file(path, start=0, end=max_bytes + 1)
    except Exception as exc:  # backends raise anything from OSError to botocore errors
        if isinstance(exc, OSError) and exc.errno == 22 and "range" in str(exc).lower():
            return b"", True  # an empty object answers a ranged GET with 416
        raise read_error(exc, rel_path, describe) from exc
    return bytes(data[:max_bytes]), len(data) <= max_bytes


def cat_capped(
    fs: Any,
    path: str,
    rel_path: str,
    max_bytes: int,
    describe: Callable[[BaseException], str] = _describe,
) -> bytes:
    """Read at most ``max_bytes`` of ``path`` with one ranged read; a larger file raises
    ReadError(TOO_LARGE), as do failures (as :class:`ReadError`)."""
    data, complete = cat_head(fs, path, rel_path, max_bytes, describe)
    if not complete:
        raise ReadError(OutcomeCode.TOO_LARGE, f"{rel_path!r} is over the {max_bytes}-byte limit")
    return data


def _stamp(info: Mapping[str, Any]) -> str:
    for key in ("ETag", "etag", "sha", "hex", "mtime", "LastModified", "created"):
        if info.get(key) is not None:
            return f"{info.get('size')}:{info[key]}"
    return f"{info.get('size')}:"


def _diag(
    code: Code,
    message: str,
    reader: SourceReader,
    path: str,
    severity: Severity = Severity.ERROR,
) -> Diagnostic:
    return Diagnostic(severity, code, message, reader.source.label, path)


ReaderFactory = Callable[[SkillSource], SourceReader]
_FACTORIES: dict[str, ReaderFactory] = {}

_S3 = "skillcore.sources.s3:open_s3_reader"
_GIT = "skillcore.sources.git:open_git_reader"
_ARCHIVE = "skillcore.sources.archive:open_archive_reader"
_MCP = "skillcore.sources.mcp:open_mcp_reader"
#: Built-in backends, imported on first use so ``import skillcore`` stays light (no s3fs,
#: no pygit2). A user's :func:`register_reader` for the same protocol takes precedence.
_BUILTIN_READERS: dict[str, str] = {
    "s3": _S3,
    "s3a": _S3,
    "git": _GIT,
    "git+file": _GIT,
    "git+https": _GIT,
    "git+http": _GIT,
    "git+ssh": _GIT,
    "zip": _ARCHIVE,
    "tar": _ARCHIVE,
    "mcp+stdio": _MCP,
    "mcp+http": _MCP,
    "mcp+https": _MCP,
}
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def register_reader(protocol: str, factory: ReaderFactory) -> None:
    """Use ``factory`` for sources whose URL protocol is ``protocol`` (e.g. ``s3``, ``git``)."""
    _FACTORIES[protocol] = factory


def _builtin_factory(spec: str) -> ReaderFactory:
    import importlib

    module, _, attr = spec.partition(":")
    factory: ReaderFactory = getattr(importlib.import_module(module), attr)
    return factory


def open_reader(source: SkillSource) -> SourceReader:
    """The reader for a source: a registered backend, local disk, or generic fsspec.

    A missing optional dependency (s3fs, pygit2) raises
    :class:`~skillcore.errors.MissingDependencyError` naming the extra to install.
    """
    proto = source.protocol
    factory = _FACTORIES.get(proto)
    if factory is None and proto in _BUILTIN_READERS:
        factory = _builtin_factory(_BUILTIN_READERS[proto])
    if factory is not None:
        return factory(source)
    if source.fs is not None:
        local = _local_path(source.fs, source.fs._strip_protocol(source.url))
        if local is not None:
            return _local_reader(source, local)
        return FsspecReader(source, source.fs, source.url)
    if proto == "file" and "::" not in source.url:
        path = source.url[len("file://") :] if source.url.startswith("file://") else source.url
        return _local_reader(source, path)
    import fsspec

    try:
        fs, root = fsspec.url_to_fs(source.url, **source.fsspec_options())
    except ImportError as exc:
        raise SourceError(
            f"cannot open {source.url!r}: {exc}. Install the matching extra, e.g. "
            f"{install_hint('s3')} or {install_hint('git')}"
        ) from exc
    except Exception as exc:
        raise SourceError(f"cannot open {source.url!r}: {type(exc).__name__}: {exc}") from exc
    local = _local_path(fs, root)
    if local is not None:
        return _local_reader(source, local)
    return FsspecReader(source, fs, root)


def _local_reader(source: SkillSource, path: str) -> SourceReader:
    if path.lower().endswith(ARCHIVE_SUFFIXES) and os.path.isfile(os.path.expanduser(path)):
        return _builtin_factory(_ARCHIVE)(source)  # a packaged skill library
    return LocalReader(source, path)


def _local_path(fs: Any, root: str, depth: int = 0) -> str | None:
    """The local-disk path behind ``fs`` and ``root`` when the files are on this machine's disk
    (``local://``, a cache chain ending in ``file://``, a ``DirFileSystem`` over the local
    disk), else None. Such sources are read by :class:`LocalReader`: fsspec's local
    filesystem follows symlinks out of the root, opens FIFOs and reads hard links, and a cache
    in front of local files adds nothing. A wrapper over the local disk that cannot be
    unwrapped is refused rather than read unconfined."""
    from fsspec.implementations.local import LocalFileSystem

    if isinstance(fs, LocalFileSystem):
        return root
    inner = getattr(fs, "fs", None)
    if inner is None or depth > 8:
        return None
    kind = type(fs).__name__
    if kind == "DirFileSystem":
        return _local_path(inner, fs._join(root), depth + 1)
    if kind in ("CachingFileSystem", "WholeFileCacheFileSystem", "SimpleCacheFileSystem"):
        return _local_path(inner, inner._strip_protocol(root), depth + 1)
    if _local_path(inner, root, depth + 1) is not None:
        raise SourceError(
            f"cannot confine reads through {kind} over the local disk; give the local path "
            "itself (it is read directly, confined to the source)"
        )
    return None


def project_sources(
    project: str | os.PathLike[str] = ".", home: str | None = None
) -> list[SkillSource]:
    """The conventional source list for a project, lowest precedence first.

    User-level folders (``~/.agents/skills``, ``~/.claude/skills``) come first and project
    folders (``<project>/.agents/skills``, ``<project>/.claude/skills``) last, so project skills
    override user skills. Folders that do not exist are left out.
    """
    home_dir = Path(home) if home else Path.home()
    proj = Path(project)
    candidates = [
        ("user:.agents", home_dir / ".agents" / "skills"),
        ("user:.claude", home_dir / ".claude" / "skills"),
        ("project:.agents", proj / ".agents" / "skills"),
        ("project:.claude", proj / ".claude" / "skills"),
    ]
    return [SkillSource(str(p), label=label) for label, p in candidates if p.is_dir()]
