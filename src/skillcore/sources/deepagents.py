"""Skills kept in a deepagents backend (``StateBackend``, ``StoreBackend``,
``FilesystemBackend``, ``CompositeBackend``, a sandbox, ...).

:class:`BackendFileSystem` is a read-only fsspec filesystem over any object with the
deepagents ``BackendProtocol`` read methods (``ls`` -- or the older ``ls_info`` -- and
``download_files``), so a backend is read by the same generic reader as every other
fsspec source: no second discovery code. Paths are the backend's own absolute paths, so
the skill directory shown to the model (``Skill directory: /skills/web-research``) is a
path deepagents' ``read_file``, ``ls``, ``glob`` and ``execute`` accept for that backend,
route prefixes of a ``CompositeBackend`` included.

:func:`backend_sources` builds the sources from deepagents' own ``sources=`` list (bare
paths or ``(path, label)`` tuples)::

    from deepagents.backends import FilesystemBackend
    from skillcore import SkillLibrary
    from skillcore.sources.deepagents import backend_sources

    library = SkillLibrary(backend_sources(FilesystemBackend(root_dir="."), ["/skills/"]))

Backends have no byte-range read: a ranged read downloads the file and cuts it (the
library's byte caps then apply). ``StateBackend`` reads the graph state of the running
thread, so it must be read inside a LangGraph run; the catalog of such a backend is
per thread.

This module imports nothing from deepagents: any object with the methods above works.
"""

from __future__ import annotations

import errno
import io
import logging
import posixpath
from collections.abc import Iterable, Sequence
from typing import Any

from fsspec.spec import AbstractFileSystem

from skillcore.errors import SourceError
from skillcore.events import library_logger
from skillcore.sources.source import SkillSource

logger = logging.getLogger(__name__)
library_logger(logging)  # the library convention: a NullHandler, the application decides

#: Paths sent to the backend in one ``download_files`` call at most (one round trip each
#: for a remote sandbox; a bound on the bytes held at once).
DOWNLOAD_BATCH = 64
#: Entries one ``ls`` of a directory may return; a larger listing is an error, not a cut.
MAX_LS_ENTRIES = 100_000
#: Files one ``find`` may return; more is an error, not a cut.
MAX_FIND_ENTRIES = 200_000
#: Directory levels a ``find`` descends at most (a symlink loop in a FilesystemBackend
#: would otherwise be walked until the OS gives up).
MAX_WALK_DEPTH = 32

SourceSpec = str | tuple[str, str]


def normalize_path(path: str) -> str:
    """A backend path in the form deepagents uses: absolute, ``/``-separated, no trailing
    ``/`` (except the root). ``..`` segments are rejected, not resolved."""
    if not isinstance(path, str) or not path.strip():
        raise SourceError(f"a backend path must be a non-empty string, got {path!r}")
    p = path.strip()
    if p.startswith(BackendFileSystem.protocol + "://"):
        p = p[len(BackendFileSystem.protocol) + 3 :]
    if "\x00" in p or "\\" in p:
        raise SourceError(f"backend path {path!r} contains NUL or backslashes")
    parts = [seg for seg in p.split("/") if seg not in ("", ".")]
    if ".." in parts:
        raise SourceError(f"backend path {path!r} contains '..'")
    return "/" + "/".join(parts)


class BackendFileSystem(AbstractFileSystem):  # type: ignore[misc]  # fsspec ships no types
    """A read-only fsspec filesystem over a deepagents backend.

    ``ls``/``info`` come from the backend's ``ls``; ``cat_file`` (ranged or whole) and
    ``cat_ranges`` from ``download_files`` (one call per :data:`DOWNLOAD_BATCH` paths).
    Backend errors become the matching ``OSError`` (``FileNotFoundError``,
    ``PermissionError``, ``IsADirectoryError``, ...).
    """

    protocol = "deepagents"
    root_marker = "/"
    #: Every instance wraps its own backend: never share one through fsspec's cache.
    cachable = False

    def __init__(self, backend: Any, **kwargs: Any) -> None:
        if not callable(getattr(backend, "download_files", None)) or not (
            callable(getattr(backend, "ls", None)) or callable(getattr(backend, "ls_info", None))
        ):
            raise TypeError(
                "backend must implement deepagents' BackendProtocol (ls and download_files), "
                f"got {type(backend).__name__}"
            )
        super().__init__(**kwargs)
        self.backend = backend

    # -- paths -----------------------------------------------------------------------------

    @classmethod
    def _strip_protocol(cls, path: Any) -> Any:
        if isinstance(path, list):
            return [cls._strip_protocol(p) for p in path]
        p = str(path)
        if p.startswith(cls.protocol + "://"):
            p = p[len(cls.protocol) + 3 :]
        p = "/" + "/".join(seg for seg in p.split("/") if seg not in ("", "."))
        return p

    def _parent(self, path: str) -> str:
        return posixpath.dirname(self._strip_protocol(path)) or "/"

    def unstrip_protocol(self, name: str) -> str:
        """Backend paths are shown as they are (no ``deepagents://`` prefix)."""
        return name

    # -- listing ---------------------------------------------------------------------------

    def _raw_entries(self, path: str) -> list[dict[str, Any]]:
        """The backend's listing of ``path`` (a directory), as FileInfo dicts."""
        backend = self.backend
        result: Any
        try:
            result = backend.ls(path)
        except (NotImplementedError, AttributeError):
            # deepagents before 0.3 named the listing ``ls_info`` (returning a plain list).
            if not callable(getattr(backend, "ls_info", None)):
                raise
            result = backend.ls_info(path)
        if isinstance(result, list):
            return result
        error = getattr(result, "error", None)
        if error:
            raise _listing_error(path, str(error))
        entries = getattr(result, "entries", None)
        return list(entries or [])

    def _info(self, fi: Any, base: str) -> dict[str, Any] | None:
        """A backend FileInfo as an fsspec info dict (relative paths are below ``base``)."""
        if not isinstance(fi, dict) or not isinstance(fi.get("path"), str):
            return None
        raw_path = fi["path"]
        is_dir = bool(fi.get("is_dir")) or raw_path.endswith("/")
        prefix = "/" if base == "/" else base + "/"
        name = self._strip_protocol(raw_path if raw_path.startswith("/") else prefix + raw_path)
        info: dict[str, Any] = {
            "name": name,
            "size": 0 if is_dir else _int_or_none(fi.get("size")),
            "type": "directory" if is_dir else "file",
        }
        modified = fi.get("modified_at")
        if isinstance(modified, str) and modified:
            info["mtime"] = modified
        return info

    def _entries(self, path: str) -> list[dict[str, Any]]:
        """Direct children of directory ``path`` as fsspec info dicts (sorted by name)."""
        raw = self._raw_entries(path)
        if len(raw) > MAX_LS_ENTRIES:
            raise OSError(
                errno.EFBIG, f"{path} lists {len(raw)} entries, over the {MAX_LS_ENTRIES} limit"
            )
        out: dict[str, dict[str, Any]] = {}
        for fi in raw:
            info = self._info(fi, path)
            # Only direct children: a backend that lists itself or deeper paths must not
            # send a walk in circles.
            if info is None or info["name"] == path or posixpath.dirname(info["name"]) != path:
                continue
            out[info["name"]] = info
        return [out[k] for k in sorted(out)]

    def _glob_files(self, root: str) -> dict[str, dict[str, Any]] | None:
        """Every file below ``root`` from one backend ``glob``, or None when the backend
        cannot answer completely (no glob, an error, a truncated walk).

        Key-value backends (State, Store) scan all their keys on every ``ls``, so walking
        directory by directory costs one full scan per directory; one glob costs one.
        """
        glob = getattr(self.backend, "glob", None)
        if not callable(glob):
            return None
        try:
            result = glob("*", path=root)
        except Exception:  # NotImplementedError, or anything a backend raises: walk instead
            return None
        matches = getattr(result, "matches", None)
        if getattr(result, "error", None) or getattr(result, "truncated", False):
            return None
        if not isinstance(matches, list):
            return None
        if len(matches) > MAX_FIND_ENTRIES:
            raise OSError(
                errno.EFBIG, f"{root} holds {len(matches)} files, over the {MAX_FIND_ENTRIES} limit"
            )
        prefix = "/" if root == "/" else root + "/"
        out: dict[str, dict[str, Any]] = {}
        for fi in matches:
            info = self._info(fi, root)
            if info is not None and info["type"] == "file" and info["name"].startswith(prefix):
                out[info["name"]] = info
        return out

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        """Entries of a directory (or the one entry of a file)."""
        p = self._strip_protocol(path)
        try:
            entries = self._entries(p)
        except NotADirectoryError:
            entries = [self.info(p)]
        return entries if detail else [e["name"] for e in entries]

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        """The entry of ``path`` from its parent's listing; a directory that exists only
        through the files below it (State/Store backends) is found by listing it."""
        p = self._strip_protocol(path)
        if p == "/":
            return {"name": "/", "size": 0, "type": "directory"}
        try:
            for entry in self._entries(self._parent(p)):
                if entry["name"] == p:
                    return entry
        except (FileNotFoundError, NotADirectoryError):
            pass
        try:
            if self._entries(p):
                return {"name": p, "size": 0, "type": "directory"}
        except (FileNotFoundError, NotADirectoryError):
            pass
        raise FileNotFoundError(errno.ENOENT, "no such file or directory", p)

    def find(
        self,
        path: str,
        maxdepth: int | None = None,
        withdirs: bool = False,
        detail: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Files below ``path``, at most ``maxdepth`` (and :data:`MAX_WALK_DEPTH`) levels down:
        one backend ``glob`` when it answers completely, else a walk with ``ls``."""
        root = self._strip_protocol(path)
        depth_cap = MAX_WALK_DEPTH if maxdepth is None else min(maxdepth, MAX_WALK_DEPTH)
        try:
            root_info = self.info(root)
        except FileNotFoundError:
            return {} if detail else []
        found: dict[str, dict[str, Any]] = {}
        globbed = None if withdirs or root_info["type"] == "file" else self._glob_files(root)
        if globbed is not None:
            skip = 0 if root == "/" else len(root)
            for name, info in globbed.items():
                if name[skip:].count("/") <= depth_cap:
                    found[name] = info
        elif root_info["type"] == "file":
            found[root] = root_info
        else:
            level = [root]
            depth = 0
            while level and depth < depth_cap:
                depth += 1
                nxt: list[str] = []
                for directory in level:
                    for entry in self._entries(directory):
                        if entry["type"] == "directory":
                            nxt.append(entry["name"])
                            if withdirs:
                                found[entry["name"]] = entry
                        else:
                            found[entry["name"]] = entry
                level = nxt
        if detail:
            return {k: found[k] for k in sorted(found)}
        return sorted(found)

    # -- reading ---------------------------------------------------------------------------

    def _download(self, paths: list[str]) -> list[bytes | BaseException]:
        out: list[bytes | BaseException] = []
        for i in range(0, len(paths), DOWNLOAD_BATCH):
            batch = paths[i : i + DOWNLOAD_BATCH]
            try:
                responses = list(self.backend.download_files(batch))
            except Exception as exc:  # a backend failure fails every path of the batch
                out.extend(exc for _ in batch)
                continue
            for j, path in enumerate(batch):
                resp = responses[j] if j < len(responses) else None
                content = getattr(resp, "content", None)
                error = getattr(resp, "error", None)
                if resp is None:
                    out.append(OSError(errno.EIO, "the backend returned no response", path))
                elif error:
                    out.append(_download_error(path, str(error)))
                elif isinstance(content, (bytes, bytearray, memoryview)):
                    out.append(bytes(content))
                elif isinstance(content, str):
                    out.append(content.encode("utf-8"))
                else:
                    out.append(OSError(errno.EIO, "the backend returned no content", path))
        return out

    def cat_file(
        self, path: str, start: int | None = None, end: int | None = None, **kwargs: Any
    ) -> bytes:
        """The bytes of a file, ``[start:end]`` when given (cut from one download)."""
        p = self._strip_protocol(path)
        (result,) = self._download([p])
        if isinstance(result, BaseException):
            raise result
        return result[start:end]

    def cat_ranges(
        self,
        paths: list[str],
        starts: int | list[int] | None,
        ends: int | list[int] | None,
        max_gap: int | None = None,
        on_error: str = "return",
        **kwargs: Any,
    ) -> list[Any]:
        """Ranged reads of many files with one ``download_files`` call per batch."""
        n = len(paths)
        starts_l = starts if isinstance(starts, list) else [starts] * n
        ends_l = ends if isinstance(ends, list) else [ends] * n
        if len(starts_l) != n or len(ends_l) != n:
            raise ValueError("paths, starts and ends must have the same length")
        results = self._download([self._strip_protocol(p) for p in paths])
        out: list[Any] = []
        for result, s, e in zip(results, starts_l, ends_l):
            if isinstance(result, BaseException):
                if on_error != "return":
                    raise result
                out.append(result)
            else:
                out.append(result[s:e])
        return out

    def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> io.BytesIO:
        if mode != "rb":
            raise PermissionError(errno.EROFS, "a deepagents backend is read here, not written")
        return io.BytesIO(self.cat_file(path))


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _listing_error(path: str, message: str) -> OSError:
    low = message.lower()
    if "not_a_directory" in low or "not a directory" in low:
        return NotADirectoryError(errno.ENOTDIR, message, path)
    if "not_found" in low or "not found" in low or "does not exist" in low:
        return FileNotFoundError(errno.ENOENT, message, path)
    if "permission" in low or "denied" in low:
        return PermissionError(errno.EACCES, message, path)
    return OSError(errno.EIO, message, path)


def _download_error(path: str, error: str) -> OSError:
    """The OSError for a ``FileDownloadResponse.error`` (deepagents' standard codes first)."""
    if error == "file_not_found":
        return FileNotFoundError(errno.ENOENT, "no such file", path)
    if error == "is_directory":
        return IsADirectoryError(errno.EISDIR, "is a directory", path)
    if error == "permission_denied":
        return PermissionError(errno.EACCES, "permission denied", path)
    if error == "invalid_path":
        return OSError(errno.EINVAL, "the backend rejected the path as invalid", path)
    return _listing_error(path, error)


def backend_sources(
    backend: Any,
    sources: Iterable[SourceSpec] | SourceSpec,
    **options: Any,
) -> list[SkillSource]:
    """Sources for skill folders kept in a deepagents backend, lowest precedence first.

    ``sources`` mirrors deepagents' ``SkillsMiddleware(sources=...)``: each entry is a
    backend path (``"/skills/user/"``) or a ``(path, label)`` tuple. The label (default:
    the path) names the source in diagnostics and must be unique. ``options`` go to every
    :class:`~skillcore.SkillSource` (``recursive=True``, ``max_depth=...``).
    """
    fs = backend if isinstance(backend, BackendFileSystem) else BackendFileSystem(backend)
    items: Sequence[Any] = [sources] if isinstance(sources, (str, tuple)) else list(sources)
    out: list[SkillSource] = []
    for item in items:
        if isinstance(item, tuple):
            if len(item) != 2 or not all(isinstance(x, str) for x in item):
                raise SourceError(f"a backend source tuple must be (path, label), got {item!r}")
            path, label = item
        elif isinstance(item, str):
            path, label = item, None
        else:
            raise SourceError(
                f"a backend source must be a path or a (path, label) tuple, got {item!r}"
            )
        url = normalize_path(path)
        out.append(SkillSource(url, label=label or url, fs=fs, **options))
    return out


# -- backends whose files depend on the run ------------------------------------------------
