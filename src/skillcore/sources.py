"""Where skills live: ``SkillSource`` values and the readers behind them.

A reader does all I/O for one source through a few primitives: ``scan`` (list skill
directories and read the head of each ``SKILL.md``), ``read_file`` (confined, capped) and
``list_files``. Local disk gets a direct ``os.scandir`` reader (several times faster than
fsspec's ``find``); any other fsspec URL goes through the generic reader. Other backends
register themselves with :func:`register_reader`.
"""

from __future__ import annotations

import os
import posixpath
import stat as stat_mod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillcore._frozen import FrozenDict, to_frozen
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SourceError, install_hint
from skillcore.model import Resource, ResourceKind
from skillcore.session import OutcomeCode

SKILL_FILE = "SKILL.md"
#: Directory names never descended into.
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".hg", ".svn"})


@attrs.frozen
class SkillSource:
    """A place skills live: a path or fsspec URL (or a ready filesystem), plus options.

    Sources listed later override earlier ones (the shadowing is recorded as a diagnostic).
    """

    url: str
    label: str = attrs.field()
    storage_options: FrozenDict[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    #: An fsspec filesystem to use instead of resolving ``url`` (``url`` is then its root path).
    fs: Any = attrs.field(default=None, eq=False, hash=False, repr=False)
    #: Look for skills below the root, up to ``max_depth`` levels (monorepos).
    recursive: bool = False
    max_depth: int = 4
    #: Directory entries examined at most during one scan.
    max_entries: int = 100_000

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


class ReadError(Exception):
    """A file could not be read; ``code`` is the outcome code to report."""

    def __init__(self, code: OutcomeCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class SourceUnavailable(Exception):
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


@attrs.frozen
class Scan:
    """What one scan of a source found."""

    entries: tuple[ScanEntry, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


def safe_relpath(path: str) -> str:
    """Normalise a path relative to a skill directory, rejecting escapes.

    Raises ReadError(PATH_REJECTED) for absolute paths, ``..`` segments, NUL bytes, drive
    letters or backslashes.
    """
    if not isinstance(path, str) or not path.strip():
        raise ReadError(OutcomeCode.PATH_REJECTED, "the path is empty")
    p = path.strip()
    if "\x00" in p or "\\" in p:
        raise ReadError(OutcomeCode.PATH_REJECTED, f"path {path!r} contains NUL or backslashes")
    if p.startswith("/") or (len(p) > 1 and p[1] == ":") or "://" in p:
        raise ReadError(
            OutcomeCode.PATH_REJECTED,
            f"path {path!r} is absolute; give a path relative to the skill directory",
        )
    parts = [seg for seg in p.split("/") if seg not in ("", ".")]
    if any(seg == ".." for seg in parts):
        raise ReadError(
            OutcomeCode.PATH_REJECTED, f"path {path!r} goes outside the skill directory ('..')"
        )
    if not parts:
        raise ReadError(OutcomeCode.PATH_REJECTED, f"path {path!r} names the skill directory")
    return "/".join(parts)


class SourceReader:
    """Base class of source readers. Subclasses implement the three sync primitives; the async
    versions default to one thread hop per call (a whole scan is one hop)."""

    def __init__(self, source: SkillSource) -> None:
        self.source = source

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """List skill directories and read SKILL.md heads for entries whose stamp changed."""
        raise NotImplementedError

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read a file of a skill directory, confined to it. Raises ReadError."""
        raise NotImplementedError

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


def _join(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p.strip("/"))


#: Returned by LocalReader._entry for a directory without a SKILL.md file.
_NOT_A_SKILL = object()


class LocalReader(SourceReader):
    """Reads a local directory with ``os.scandir`` and plain ``open``; confines symlinks."""

    def __init__(self, source: SkillSource, root: str) -> None:
        super().__init__(source)
        self.root = os.path.abspath(os.path.expanduser(root))

    def url_for(self, directory: str) -> str:
        """The absolute path of the skill directory."""
        return os.path.join(self.root, directory) if directory else self.root

    def _real_root(self) -> str:
        return os.path.realpath(self.root)

    def _inside(self, real: str, real_root: str) -> bool:
        return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """One ``scandir`` of the root (bounded recursion if asked), a read per changed skill."""
        if not os.path.isdir(self.root):
            what = "is not a directory" if os.path.exists(self.root) else "does not exist"
            raise SourceUnavailable(f"source {self.root} {what}")
        real_root = self._real_root()
        diags: list[Diagnostic] = []
        entries: list[ScanEntry] = []
        budget = [self.source.max_entries]
        if os.path.isfile(os.path.join(self.root, SKILL_FILE)):
            entry = self._entry(
                "", os.path.basename(self.root), head_bytes, known, real_root, diags
            )
            return Scan((entry,) if isinstance(entry, ScanEntry) else (), tuple(diags))
        depth = self.source.max_depth if self.source.recursive else 1
        self._walk("", depth, head_bytes, known, real_root, entries, diags, budget)
        entries.sort(key=lambda e: e.directory)
        return Scan(tuple(entries), tuple(diags))

    def _walk(
        self,
        rel: str,
        depth: int,
        head_bytes: int,
        known: Mapping[str, str],
        real_root: str,
        entries: list[ScanEntry],
        diags: list[Diagnostic],
        budget: list[int],
    ) -> None:
        path = os.path.join(self.root, rel) if rel else self.root
        try:
            it = os.scandir(path)
        except OSError as exc:
            if not rel:
                raise SourceUnavailable(f"cannot list {path}: {exc}") from exc
            diags.append(_diag(Code.READ_FAILED, f"cannot list directory: {exc}", self, rel))
            return
        with it:
            children = sorted(it, key=lambda e: e.name)
        for child in children:
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
            name = child.name
            if name.startswith(".") or name in SKIP_DIRS:
                continue
            try:
                if not child.is_dir():
                    continue
            except OSError:
                continue
            child_rel = f"{rel}/{name}" if rel else name
            if child.is_symlink():
                real = os.path.realpath(child.path)
                if not self._inside(real, real_root):
                    diags.append(
                        _diag(
                            Code.SYMLINK_ESCAPE,
                            f"skipped: symlinked directory points outside the source ({real})",
                            self,
                            child_rel,
                        )
                    )
                    continue
            entry = self._entry(child_rel, name, head_bytes, known, real_root, diags)
            if isinstance(entry, ScanEntry):
                entries.append(entry)
            elif entry is _NOT_A_SKILL and depth > 1:
                self._walk(
                    child_rel, depth - 1, head_bytes, known, real_root, entries, diags, budget
                )

    def _entry(
        self,
        rel: str,
        dir_name: str,
        head_bytes: int,
        known: Mapping[str, str],
        real_root: str,
        diags: list[Diagnostic],
    ) -> ScanEntry | object | None:
        """The scan entry of a skill directory; None if skipped (with a diagnostic);
        ``_NOT_A_SKILL`` when there is no SKILL.md file."""
        # Plain string joins: this runs once per skill on every refresh.
        path = f"{self.root}/{rel}/{SKILL_FILE}" if rel else f"{self.root}/{SKILL_FILE}"
        file_rel = f"{rel}/{SKILL_FILE}" if rel else SKILL_FILE
        # One lstat tells "not a skill", "symlink" and the change stamp (hot path).
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return _NOT_A_SKILL
        except OSError as exc:
            diags.append(
                _diag(Code.READ_FAILED, f"skipped: cannot stat SKILL.md: {exc}", self, file_rel)
            )
            return None
        try:
            if stat_mod.S_ISLNK(st.st_mode):
                if not self._inside(os.path.realpath(path), real_root):
                    diags.append(
                        _diag(
                            Code.SYMLINK_ESCAPE,
                            "skipped: SKILL.md is a symlink pointing outside the source",
                            self,
                            file_rel,
                        )
                    )
                    return None
                st = os.stat(path)
            if not stat_mod.S_ISREG(st.st_mode):
                return _NOT_A_SKILL
            stamp = f"{st.st_size}:{st.st_mtime_ns}"
            if known.get(rel) == stamp:
                return ScanEntry(rel, dir_name, stamp, None)
            with open(path, "rb") as fh:
                head = fh.read(head_bytes)
        except OSError as exc:
            diags.append(
                _diag(Code.READ_FAILED, f"skipped: cannot read SKILL.md: {exc}", self, file_rel)
            )
            return None
        return ScanEntry(rel, dir_name, stamp, head, complete=st.st_size <= len(head))

    def _resolve(self, directory: str, rel_path: str) -> str:
        rel = safe_relpath(rel_path)
        skill_dir = os.path.join(self.root, directory) if directory else self.root
        full = os.path.join(skill_dir, *rel.split("/"))
        real_dir = os.path.realpath(skill_dir)
        real = os.path.realpath(full)
        if not self._inside(real, real_dir):
            raise ReadError(
                OutcomeCode.PATH_REJECTED,
                f"path {rel_path!r} resolves outside the skill directory (symlink escape)",
            )
        return real

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read at most ``max_bytes``; larger files raise ReadError(TOO_LARGE)."""
        real = self._resolve(directory, rel_path)
        try:
            # O_NONBLOCK: opening a FIFO planted in a skill must not hang the agent.
            fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with open(fd, "rb") as fh:
                st = os.fstat(fh.fileno())
                if not stat_mod.S_ISREG(st.st_mode):
                    raise ReadError(
                        OutcomeCode.RESOURCE_NOT_FOUND, f"{rel_path!r} is not a regular file"
                    )
                data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise read_error(exc, rel_path, str) from exc
        if len(data) > max_bytes:
            raise ReadError(
                OutcomeCode.TOO_LARGE,
                f"{rel_path!r} is {st.st_size} bytes, over the {max_bytes}-byte limit",
            )
        return data

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Walk the skill directory (skipping hidden and SKIP_DIRS), confined, capped."""
        skill_dir = os.path.join(self.root, directory) if directory else self.root
        real_dir = os.path.realpath(skill_dir)
        out: list[Resource] = []
        stack = [""]
        while stack:
            rel = stack.pop()
            try:
                with os.scandir(os.path.join(skill_dir, rel) if rel else skill_dir) as it:
                    children = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            subdirs = []
            for child in children:
                name = child.name
                if name.startswith(".") or name in SKIP_DIRS:
                    continue
                child_rel = f"{rel}/{name}" if rel else name
                if child.is_symlink() and not self._inside(os.path.realpath(child.path), real_dir):
                    continue  # never advertise a file we would refuse to read
                try:
                    if child.is_dir():
                        subdirs.append(child_rel)
                        continue
                    if child_rel == SKILL_FILE or not child.is_file():
                        continue  # FIFOs, sockets, devices are not resources
                    size = child.stat().st_size
                except OSError:
                    continue
                if len(out) >= max_entries:
                    return tuple(out), True
                out.append(Resource(child_rel, ResourceKind.for_path(child_rel), size))
            stack.extend(reversed(subdirs))
        out.sort(key=lambda r: r.path)
        return tuple(out), False


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
        root_is_skill = False
        for path, info in sorted(found.items()):
            rel = path[len(prefix) :] if path.startswith(prefix) else path.lstrip("/")
            if rel == SKILL_FILE:
                root_is_skill = True
                candidates = [("", info)]
                break
            if not rel.endswith("/" + SKILL_FILE):
                continue
            directory = rel[: -len(SKILL_FILE) - 1]
            segments = directory.split("/")
            if any(s.startswith(".") or s in SKIP_DIRS for s in segments):
                continue
            candidates.append((directory, info))
        if not root_is_skill:
            # A skill directory's own sub-folders are resources, not more skills.
            dirs = {d for d, _ in candidates}
            candidates = [(d, i) for d, i in candidates if not _has_ancestor(d, dirs)]
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
                diags.append(
                    _diag(
                        Code.READ_FAILED,
                        f"skipped: cannot read SKILL.md: {type(head).__name__}: {head}",
                        self,
                        _join(directory, SKILL_FILE),
                    )
                )
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
            if rel == SKILL_FILE or any(
                s.startswith(".") or s in SKIP_DIRS for s in rel.split("/")
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
    return f"{type(exc).__name__}: {exc}"


def read_error(
    exc: BaseException, rel_path: str, describe: Callable[[BaseException], str] = _describe
) -> ReadError:
    """The :class:`ReadError` for a failed read of ``rel_path`` (missing, a directory, other)."""
    if isinstance(exc, FileNotFoundError):
        return ReadError(
            OutcomeCode.RESOURCE_NOT_FOUND, f"no file {rel_path!r} in the skill directory"
        )
    if isinstance(exc, IsADirectoryError):
        return ReadError(OutcomeCode.RESOURCE_NOT_FOUND, f"{rel_path!r} is a directory, not a file")
    return ReadError(OutcomeCode.READ_FAILED, f"cannot read {rel_path!r}: {describe(exc)}")


def cat_capped(
    fs: Any,
    path: str,
    rel_path: str,
    max_bytes: int,
    describe: Callable[[BaseException], str] = _describe,
) -> bytes:
    """Read at most ``max_bytes`` of ``path`` with one ranged ``cat_file`` (``max_bytes + 1``
    tells an over-size file without a HEAD request); failures become :class:`ReadError`."""
    try:
        data = fs.cat_file(path, start=0, end=max_bytes + 1)
    except Exception as exc:  # backends raise anything from OSError to botocore errors
        if isinstance(exc, OSError) and exc.errno == 22 and "range" in str(exc).lower():
            return b""  # an empty object answers a ranged GET with 416
        raise read_error(exc, rel_path, describe) from exc
    if len(data) > max_bytes:
        raise ReadError(OutcomeCode.TOO_LARGE, f"{rel_path!r} is over the {max_bytes}-byte limit")
    return bytes(data)


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

_S3 = "skillcore.backends.s3:open_s3_reader"
_GIT = "skillcore.backends.git:open_git_reader"
_ARCHIVE = "skillcore.backends.archive:open_archive_reader"
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
        return FsspecReader(source, source.fs, source.url)
    if proto == "file" and "::" not in source.url:
        path = source.url[len("file://") :] if source.url.startswith("file://") else source.url
        if path.lower().endswith(ARCHIVE_SUFFIXES) and os.path.isfile(os.path.expanduser(path)):
            return _builtin_factory(_ARCHIVE)(source)  # a packaged skill library
        return LocalReader(source, path)
    import fsspec

    try:
        fs, root = fsspec.url_to_fs(source.url, **dict(source.storage_options))
    except ImportError as exc:
        raise SourceError(
            f"cannot open {source.url!r}: {exc}. Install the matching extra, e.g. "
            f"{install_hint('s3')} or {install_hint('git')}"
        ) from exc
    except Exception as exc:
        raise SourceError(f"cannot open {source.url!r}: {type(exc).__name__}: {exc}") from exc
    return FsspecReader(source, fs, root)


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
