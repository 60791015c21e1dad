"""The generic reader over any fsspec filesystem (memory, zip, cached chains, ...), and the
ranged reads the object-store readers share."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic
from skillcore.model import Resource, ResourceKind
from skillcore.paths import printable_name, undecodable
from skillcore.sources.common import cap_skill_directories, hidden_or_skipped, inside_other
from skillcore.sources.errors import ReadError, SourceUnavailable, _describe, read_error
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import (
    Scan,
    ScanEntry,
    misnamed_diagnostic,
    misnamed_skill_file,
)
from skillcore.sources.source import SKILL_FILE, SkillSource, join_rel

#: ``(directory, fsspec info)`` of one SKILL.md found.
_Found = tuple[str, dict[str, Any]]


class FsspecReader(SourceReader):
    """Generic reader over any fsspec filesystem (memory, zip, cached chains, ...)."""

    def __init__(self, source: SkillSource, fs: Any, root: str) -> None:
        super().__init__(source)
        self.fs = fs
        self.root = root.rstrip("/") if root not in ("", "/") else root

    def _abs(self, *parts: str) -> str:
        if self.root in ("", "/"):
            joined = join_rel(*parts)
            return f"/{joined}" if self.root == "/" else joined
        return "/".join([self.root, *(p for p in parts if p)])

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """One ``find`` of the root, then a batched ranged ``cat`` of changed heads."""
        found = self._find()
        diags: list[Diagnostic] = []
        candidates = self._candidates(found, diags)
        candidates, cut = cap_skill_directories(candidates, self.source)
        diags.extend(cut)
        entries = self._entries(candidates, head_bytes, known, diags)
        entries.sort(key=lambda e: e.directory)
        return Scan(tuple(entries), tuple(diags))

    def _find(self) -> dict[str, dict[str, Any]]:
        """Every file below the root, to the depth a skill file can sit at."""
        fs = self.fs
        try:
            if not fs.isdir(self.root):
                raise SourceUnavailable(
                    f"source {self.source.url} does not exist or is not a directory"
                )
            depth = (self.source.max_depth if self.source.recursive else 1) + 1
            found: dict[str, dict[str, Any]] = fs.find(
                self.root, maxdepth=depth, withdirs=False, detail=True
            )
        except SourceUnavailable:
            raise
        except Exception as exc:  # backends raise anything from OSError to botocore errors
            raise SourceUnavailable(
                f"cannot list {self.source.url}: {type(exc).__name__}: {exc}"
            ) from exc
        return found

    def _candidates(
        self, found: Mapping[str, dict[str, Any]], diags: list[Diagnostic]
    ) -> list[_Found]:
        """The skill directories among ``found`` (the root alone when it is a skill), with
        the case variants of SKILL.md outside them reported."""
        prefix = self.root.rstrip("/") + "/" if self.root not in ("", "/") else self.root
        candidates: list[_Found] = []
        misnamed: list[str] = []
        for path, info in sorted(found.items()):
            rel = path[len(prefix) :] if path.startswith(prefix) else path.lstrip("/")
            if rel == SKILL_FILE:
                return [("", info)]
            if not rel.endswith("/" + SKILL_FILE):
                if misnamed_skill_file(posixpath.basename(rel)):
                    misnamed.append(rel)
                continue
            directory = rel[: -len(SKILL_FILE) - 1]
            if hidden_or_skipped(directory.split("/")):
                continue
            if undecodable(directory):
                diags.append(
                    self.diag(
                        Code.UNDECODABLE_NAME,
                        f"skipped: the directory name {printable_name(directory)!r} is not "
                        "valid UTF-8; rename it",
                        printable_name(directory),
                    )
                )
                continue
            candidates.append((directory, info))
        # A skill directory's own sub-folders are resources, not more skills.
        dirs = {d for d, _ in candidates}
        for rel in misnamed:
            directory = posixpath.dirname(rel)
            segments = directory.split("/") if directory else []
            if directory in dirs or inside_other(directory, dirs) or undecodable(rel):
                continue  # a skill's own file, or a resource of a skill
            if not hidden_or_skipped(segments):
                diags.append(misnamed_diagnostic(self.source, rel))
        return [(d, i) for d, i in candidates if not inside_other(d, dirs)]

    def _entries(
        self,
        candidates: list[_Found],
        head_bytes: int,
        known: Mapping[str, str],
        diags: list[Diagnostic],
    ) -> list[ScanEntry]:
        """One entry per candidate: unchanged ones as they are, the others with their head
        (read in one batch)."""
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
                error = self.diag(
                    Code.READ_FAILED,
                    f"skipped: cannot read SKILL.md: {type(head).__name__}: {head}",
                    join_rel(directory, SKILL_FILE),
                )
                if isinstance(head, FileNotFoundError):
                    diags.append(error)
                else:  # the library keeps a skill read before for its grace period
                    entries.append(ScanEntry(directory, dir_name, stamp, None, error=error))
                continue
            complete = size is not None and size <= len(head)
            known_size = size if isinstance(size, int) else None
            entries.append(ScanEntry(directory, dir_name, stamp, head, complete, size=known_size))
        return entries

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
            if rel == SKILL_FILE or undecodable(rel) or hidden_or_skipped(rel.split("/")):
                continue
            if len(out) >= max_entries:
                return tuple(out), True
            out.append(Resource(rel, ResourceKind.for_path(rel), info.get("size")))
        return tuple(out), False


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
