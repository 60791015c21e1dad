"""Which reader serves a source: registered backends, the built-in ones (imported on first
use), local disk (also behind fsspec wrappers that can be unwrapped) and generic fsspec."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

from skillcore.errors import (
    MissingDependencyError,
    SourceError,
    SourceNotFoundError,
    install_hint,
)
from skillcore.sources.fsspec_reader import FsspecReader
from skillcore.sources.local import LocalReader
from skillcore.sources.reader import SourceReader
from skillcore.sources.source import ARCHIVE_SUFFIXES, SkillSource

ReaderFactory = Callable[[SkillSource], SourceReader]
_FACTORIES: dict[str, ReaderFactory] = {}

_S3 = "skillcore.sources.s3:open_s3_reader"
_GIT = "skillcore.sources.git:open_git_reader"
_ARCHIVE = "skillcore.sources.archive:open_archive_reader"
_MCP = "skillcore.sources.mcp:open_mcp_reader"
_WELLKNOWN = "skillcore.sources.wellknown:open_wellknown_reader"
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
    "wellknown+https": _WELLKNOWN,
    "wellknown+http": _WELLKNOWN,  # loopback hosts only (refused elsewhere)
}

#: Checks of a built-in backend's URL and options, run where the library is built.
_BUILTIN_CHECKS: dict[str, str] = {
    "wellknown+https": "skillcore.sources.wellknown:check_wellknown_source",
    "wellknown+http": "skillcore.sources.wellknown:check_wellknown_source",
}

#: The optional dependency (module, extra) each built-in backend needs.
_BUILTIN_NEEDS: dict[str, tuple[str, str]] = {
    _S3: ("s3fs", "s3"),
    _GIT: ("pygit2", "git"),
    _MCP: ("mcp", "mcp"),
}


def register_reader(protocol: str, factory: ReaderFactory) -> None:
    """Use ``factory`` for sources whose URL protocol is ``protocol`` (e.g. ``s3``, ``git``)."""
    _FACTORIES[protocol] = factory


def _builtin_factory(spec: str) -> ReaderFactory:
    import importlib

    module, _, attr = spec.partition(":")
    factory: ReaderFactory = getattr(importlib.import_module(module), attr)
    return factory


def check_source(source: SkillSource) -> None:
    """Refuse, where the library is built, a source that can never be read.

    A local path that does not exist raises :class:`~skillcore.errors.SourceNotFoundError`
    (unless the source is ``optional``); a protocol whose backend is not installed raises
    :class:`~skillcore.errors.MissingDependencyError` naming the ``pip install`` to run; an
    unknown protocol raises :class:`~skillcore.errors.SourceError`. Nothing is read or
    listed: a remote that is merely unreachable is discovery's business (a diagnostic and a
    warning, its last good skills kept).
    """
    if source.fs is not None:
        return
    for proto in _chain_protocols(source.url):
        _check_protocol(source, proto)
    check = _BUILTIN_CHECKS.get(source.protocol)
    if check is not None and source.protocol not in _FACTORIES:
        _builtin_factory(check)(source)
    if source.protocol == "file" and "::" not in source.url and not source.optional:
        _check_exists(source)


def _chain_protocols(url: str) -> list[str]:
    """The protocols of an fsspec URL chain (``simplecache::s3://b/k`` -> cache, s3)."""
    links = url.split("::")
    head = links[0]
    protos = [head.split("://", 1)[0] if "://" in head else ("file" if len(links) == 1 else head)]
    protos += [link.split("://", 1)[0] for link in links[1:] if "://" in link]
    return protos


def _check_protocol(source: SkillSource, proto: str) -> None:
    if proto in ("file", "local") or proto in _FACTORIES:
        return
    spec = _BUILTIN_READERS.get(proto)
    if spec is not None:
        need = _BUILTIN_NEEDS.get(spec)
        if need is not None and importlib.util.find_spec(need[0]) is None:
            raise MissingDependencyError(
                f"skill source {_named(source)} needs the optional dependency {need[0]!r}: "
                f"{install_hint(need[1])}"
            )
        return
    import fsspec

    try:
        fsspec.get_filesystem_class(proto)
    except ImportError as exc:
        raise MissingDependencyError(
            f"skill source {_named(source)} needs a package that is not installed: {exc}"
        ) from exc
    except ValueError as exc:
        raise SourceError(
            f"skill source {_named(source)}: unknown protocol {proto!r} (a typo? local "
            "paths need no protocol; see register_reader for custom backends)"
        ) from exc


def _named(source: SkillSource) -> str:
    """How an error names a source: its URL, and its label when that differs."""
    if source.label == source.url:
        return repr(source.url)
    return f"{source.label!r} ({source.url!r})"


def _check_exists(source: SkillSource) -> None:
    path = os.path.expanduser(source.url.removeprefix("file://"))
    if os.path.exists(path):
        return
    where = ""
    if not os.path.isabs(path):  # the usual surprise: run from another directory
        where = f" (resolved from the current directory {os.getcwd()} to {os.path.abspath(path)})"
    raise SourceNotFoundError(
        f"skill source {_named(source)} does not exist{where}; check the path (a folder that "
        "appears later: SkillSource(path, optional=True))"
    )


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
