"""Skills in S3 (or any S3-compatible store): ``s3://bucket/prefix``.

Discovery lists the prefix once (one ``ListObjectsV2`` request per 1,000 keys) and then
fetches the heads of all changed ``SKILL.md`` objects concurrently with ranged GETs, at most
``max_concurrency`` at a time. Refresh compares ETags and sizes from that one listing, so an
unchanged library costs one listing and no GET.

Storage options go to :class:`s3fs.S3FileSystem` (``endpoint_url``, ``key``, ``secret``,
``token``, ``anon``, ``client_kwargs``, ``config_kwargs``, ...), except these, read here:

- ``max_concurrency`` (default 32): concurrent GETs during discovery;
- ``connect_timeout`` / ``read_timeout`` (seconds, default 5 / 15);
- ``max_attempts`` (default 2): attempts per request, so a dead endpoint fails fast.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from skillcore.diagnostics import Code, Diagnostic
from skillcore.errors import require
from skillcore.model import Resource
from skillcore.sources.common import (
    cap_skill_directories,
    describe_error,
    listed_resources,
    skill_directories,
)
from skillcore.sources.errors import SourceUnavailable
from skillcore.sources.fsspec_reader import cat_capped
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import Scan, ScanEntry, source_diagnostic
from skillcore.sources.source import SKILL_FILE, SkillSource

DEFAULT_MAX_CONCURRENCY = 32
_READER_OPTIONS = ("max_concurrency", "connect_timeout", "read_timeout", "max_attempts")


def open_s3_reader(source: SkillSource) -> S3Reader:
    """Reader factory for ``s3://`` sources (registered lazily by ``open_reader``)."""
    opts = source.fsspec_options()
    max_concurrency = int(opts.pop("max_concurrency", DEFAULT_MAX_CONCURRENCY))
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    connect_timeout = float(opts.pop("connect_timeout", 5))
    read_timeout = float(opts.pop("read_timeout", 15))
    max_attempts = int(opts.pop("max_attempts", 2))
    root = _strip_protocol(source.url)
    if source.fs is not None:
        return S3Reader(source, source.fs, root, max_concurrency)
    require("s3fs", "s3", "Reading skills from s3:// sources")
    import fsspec

    config = dict(opts.pop("config_kwargs", None) or {})
    config.setdefault("connect_timeout", connect_timeout)
    config.setdefault("read_timeout", read_timeout)
    # botocore retries connection errors with backoff for many seconds by default.
    config.setdefault("retries", {"total_max_attempts": max(1, max_attempts), "mode": "standard"})
    # aiobotocore's pool defaults to 10 connections, which would cap the concurrency.
    config.setdefault("max_pool_connections", max(10, max_concurrency))
    if "session" not in opts and "profile" not in opts:
        opts["session"] = _shared_session()
    # A private instance: fsspec caches instances and an async one is bound to its loop.
    fs = fsspec.filesystem("s3", skip_instance_cache=True, config_kwargs=config, **opts)
    fs.retries = 1  # botocore already retries; s3fs' own loop would multiply the attempts
    return S3Reader(source, fs, root, max_concurrency)


_SESSION: Any = None
_SESSION_LOCK = threading.Lock()


def _shared_session() -> Any:
    """One aiobotocore session for all readers: a new session re-parses botocore's service
    models (~0.5 s per source); clients, credentials and connections stay per reader."""
    global _SESSION
    with _SESSION_LOCK:
        if _SESSION is None:
            from aiobotocore.session import AioSession

            _SESSION = AioSession()
        return _SESSION


def _strip_protocol(url: str) -> str:
    for prefix in ("s3://", "s3a://"):
        if url.startswith(prefix):
            url = url[len(prefix) :]
    return url.strip("/")


class S3Reader(SourceReader):
    """Reads skills under an S3 prefix with one listing and concurrent ranged GETs."""

    def __init__(
        self,
        source: SkillSource,
        fs: Any,
        root: str,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    ) -> None:
        super().__init__(source)
        if not root:
            raise ValueError("an s3:// source needs at least a bucket: s3://bucket/prefix")
        self.fs = fs
        self.root = root
        self.max_concurrency = max_concurrency
        self._lock = threading.Lock()

    @property
    def bucket(self) -> str:
        """The bucket name."""
        return self.root.split("/", 1)[0]

    def url_for(self, directory: str) -> str:
        """``s3://bucket/prefix/directory``."""
        return f"s3://{self.root}/{directory}" if directory else f"s3://{self.root}"

    def _key(self, *parts: str) -> str:
        return "/".join([self.root, *(p.strip("/") for p in parts if p.strip("/"))])

    def _list(self, base: str) -> dict[str, Mapping[str, Any]]:
        # find() without maxdepth is one paginated ListObjectsV2 of the whole prefix;
        # find(maxdepth=...) or walk() would cost one request per "directory".
        self.fs.invalidate_cache()
        result: dict[str, Mapping[str, Any]] = self.fs.find(base, withdirs=False, detail=True)
        return result

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """List the prefix once, then GET the heads of changed SKILL.md objects concurrently."""
        infos = self._listing()
        diags: list[Diagnostic] = []
        dirs = skill_directories(infos, self.source)
        dirs, capped = cap_skill_directories(dirs, self.source)
        diags.extend(capped)
        entries: list[ScanEntry] = []
        to_read: list[tuple[str, str, str, int]] = []
        for directory in dirs:
            file_rel = f"{directory}/{SKILL_FILE}" if directory else SKILL_FILE
            info = infos[file_rel]
            size = int(info.get("size") or 0)
            stamp = f"{size}:{info.get('ETag') or info.get('LastModified') or ''}"
            dir_name = directory.rsplit("/", 1)[-1] if directory else self.root.rsplit("/", 1)[-1]
            if known.get(directory) == stamp:
                entries.append(ScanEntry(directory, dir_name, stamp, None))
            elif size == 0:  # a ranged GET of an empty object is answered with 416
                entries.append(ScanEntry(directory, dir_name, stamp, b"", complete=True))
            else:
                to_read.append((directory, dir_name, stamp, size))
        self._read_changed(to_read, head_bytes, entries, diags)
        entries.sort(key=lambda e: e.directory)
        return Scan(tuple(entries), tuple(diags))

    def _listing(self) -> dict[str, Mapping[str, Any]]:
        """Every object below the root, by its path relative to the root."""
        url = f"s3://{self.root}"
        try:
            with self._lock:
                listing = self._list(self.root)
        except FileNotFoundError as exc:
            raise SourceUnavailable(
                f"cannot list {url}: bucket {self.bucket!r} does not exist ({exc})"
            ) from exc
        except Exception as exc:  # botocore errors are not OSErrors
            raise SourceUnavailable(f"cannot list {url}: {describe_error(exc)}") from exc
        if not listing:
            raise SourceUnavailable(f"no objects under {url} (empty or missing prefix)")
        prefix = self.root + "/"
        infos: dict[str, Mapping[str, Any]] = {}
        for path, info in listing.items():
            if path.startswith(prefix):
                infos[path[len(prefix) :]] = info
        return infos

    def _read_changed(
        self,
        to_read: list[tuple[str, str, str, int]],
        head_bytes: int,
        entries: list[ScanEntry],
        diags: list[Diagnostic],
    ) -> None:
        """The entries of the changed skills, with their heads read concurrently."""
        heads = self._read_heads([self._key(d, SKILL_FILE) for d, *_ in to_read], head_bytes)
        for (directory, dir_name, stamp, size), head in zip(to_read, heads):
            file_rel = f"{directory}/{SKILL_FILE}" if directory else SKILL_FILE
            if isinstance(head, BaseException):
                gone = isinstance(head, FileNotFoundError)
                reason = (
                    "listed, but gone when read (deleted during discovery?)"
                    if gone
                    else describe_error(head)
                )
                error = source_diagnostic(
                    Code.READ_FAILED,
                    f"skipped: cannot read SKILL.md: {reason}",
                    self.source,
                    file_rel,
                )
                if gone:
                    diags.append(error)
                else:  # the library keeps a skill read before for its grace period
                    entries.append(ScanEntry(directory, dir_name, stamp, None, error=error))
                continue
            data = bytes(head)
            entries.append(
                ScanEntry(directory, dir_name, stamp, data, size <= len(data), size=size)
            )

    def _read_heads(self, keys: list[str], head_bytes: int) -> list[bytes | BaseException]:
        if not keys:
            return []
        # One call: s3fs runs the ranged GETs on its event loop, batch_size at a time.
        result = self.fs.cat_ranges(
            keys,
            [0] * len(keys),
            [head_bytes] * len(keys),
            batch_size=self.max_concurrency,
            on_error="return",
        )
        return list(result)

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """One ranged GET of at most ``max_bytes + 1`` bytes (no HEAD request)."""
        key = self._key(directory, safe_relpath(rel_path))
        return cat_capped(self.fs, key, rel_path, max_bytes, describe_error)

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """One listing of the skill's prefix."""
        base = self._key(directory)
        try:
            with self._lock:
                found = self._list(base)
        except Exception:
            return (), False
        files = ((path, info.get("size")) for path, info in sorted(found.items()))
        return listed_resources(files, base + "/", max_entries)
