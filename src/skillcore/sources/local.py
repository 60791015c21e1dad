"""The local-disk reader: confined reads below the source root (see
:mod:`~skillcore.sources.cursor`), the discovery walk (:mod:`~skillcore.sources.local_scan`,
one skill directory at a time in :mod:`~skillcore.sources.local_entry`), the resource
listing (:mod:`~skillcore.sources.local_listing`), and the check that tells a refresh nothing
changed without listing anything.

Local reads are confined at read time: every path is walked from the source root one
component at a time with ``O_NOFOLLOW`` (symlinks are resolved here, at most
:data:`~skillcore.sources.cursor.MAX_SYMLINK_HOPS`, and must stay inside the source for a
skill directory and inside the skill directory for its files), the final open is
non-blocking and checked with ``fstat``, and only regular files with a single hard link are
read (see ``SkillSource.allow_hardlinks``). Names that are not UTF-8 are never returned.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import NamedTuple

from skillcore.codes import OutcomeCode
from skillcore.model import Resource
from skillcore.paths import PathProblem, hidden_name
from skillcore.sources.cursor import (
    O_ROOT,
    Cursor,
    NotRegularFile,
    PathEscape,
    path_parts,
    read_fd,
    refusal,
)
from skillcore.sources.errors import ReadError, SourceUnavailable, read_error
from skillcore.sources.local_entry import NO_SKILL_FILE, NOT_A_SKILL, same_file
from skillcore.sources.local_listing import Listing
from skillcore.sources.local_scan import UNTRUSTED, LocalScan
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import SKILL_FILE, SkillSource

#: File times within this many seconds of a scan are not trusted by LocalReader.unchanged.
_RACY_SECONDS = 1.0
#: A scan entry's directory, its sort key (read in C).
_DIRECTORY = attrgetter("directory")


class _Seen(NamedTuple):
    """The root's signature, the directories without a skill, and when the scan started."""

    root: tuple[int, int, int, int]
    plain: dict[str, int]
    started: float


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


class LocalReader(SourceReader):
    """Reads a local directory; every open is confined to the source root (see Cursor)."""

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
        return os.open(self.root, O_ROOT)

    # -- discovery -----------------------------------------------------------------------

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
        walk = LocalScan(self, self.root, root_fd, head_bytes, known)
        try:
            root_entry = walk.dirs.entry(
                Cursor(self.root, root_fd), "", os.path.basename(self.root), misnamed=False
            )
            # A root without SKILL.md names its case variants from the walk's own listing.
            misnamed = root_entry is NO_SKILL_FILE
            if not misnamed and root_entry is not NOT_A_SKILL:
                found = (root_entry,) if isinstance(root_entry, ScanEntry) else ()
                return Scan(found, tuple(walk.diags))
            depth = self.source.max_depth if self.source.recursive else 1
            plain: dict[str, int] | None = {} if depth == 1 else None
            root_st = os.fstat(root_fd)
            walk.walk("", depth, plain, unchanged=unchanged, misnamed=misnamed)
        finally:
            os.close(root_fd)
        entries = sorted(walk.entries, key=_DIRECTORY)
        if (
            plain is not None
            and UNTRUSTED not in plain
            and not walk.diags
            and all(e.error is None for e in entries)
        ):
            self._seen = _Seen(_signature(root_st), plain, started)
        scan = Scan(tuple(entries), tuple(walk.diags), unchanged)
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
                if not same_file(st, stamp, hardlinks):
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

    # -- reads ---------------------------------------------------------------------------

    def _locate(
        self, cur: Cursor, directory: str, rel: str, rel_path: str
    ) -> tuple[str, os.stat_result]:
        """Walk to a file of a skill directory, confined to that directory."""
        try:
            try:
                cur.walk(path_parts(directory), last_is_file=False)
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
            if any(hidden_name(seg) for seg in (*cur.canon[len(base) :], name)):
                # A listed name that is a link to .git/config or .env: the rule holds for
                # what a path resolves to, not only for what it spells.
                raise ReadError(
                    OutcomeCode.PATH_REJECTED,
                    f"{PathProblem.HIDDEN.value}: {rel_path!r} leads to one",
                    problem=PathProblem.HIDDEN,
                )
        except PathEscape:
            raise ReadError(
                OutcomeCode.PATH_REJECTED,
                f"path {rel_path!r} resolves outside the skill directory (symlink escape)",
            ) from None
        except NotRegularFile as exc:
            raise ReadError(OutcomeCode.RESOURCE_NOT_FOUND, refusal(rel_path, exc)) from None
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
        cur = Cursor(self.root, root_fd)
        try:
            name, st = self._locate(cur, directory, rel, rel_path)
            try:
                fd = cur.open_file(name, st, self.source.allow_hardlinks)
            except NotRegularFile as exc:
                code = OutcomeCode.PATH_REJECTED if exc.hardlink else OutcomeCode.RESOURCE_NOT_FOUND
                raise ReadError(code, refusal(rel_path, exc)) from None
            data = read_fd(fd, limit)
        except OSError as exc:
            raise read_error(exc, rel_path, str) from exc
        finally:
            cur.close()
            os.close(root_fd)
        return data, st.st_size

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Files of the skill directory: confined, never through symlinked directories,
        and bounded (``max_entries`` files,
        :data:`~skillcore.sources.local_listing.MAX_LISTED_DIRS` directories,
        :data:`~skillcore.sources.local_listing.MAX_LISTED_ENTRIES` directory entries
        examined)."""
        try:
            root_fd = self._open_root()
        except OSError:
            return (), False
        top = Cursor(self.root, root_fd)
        try:
            top.walk(path_parts(directory), last_is_file=False)
            return Listing(top, max_entries, self.source.allow_hardlinks).run()
        except (OSError, PathEscape):
            return (), False
        finally:
            top.close()
            os.close(root_fd)
