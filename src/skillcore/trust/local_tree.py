"""The files of a local skill read in one pass from its directory (what verification at
discovery reads on local disk): the directory is reached through the confined cursor once,
then each file is opened relative to it, never through a link. A skill holding a symbolic
link is left to the reader's own path (None), so that both read the same bytes. With a
digest cache, a file whose stamps match its entry is not read (see ``digest_cache``)."""

from __future__ import annotations

import os
import stat as stat_mod

from skillcore.errors import SkillcoreError
from skillcore.paths import hidden_name, undecodable
from skillcore.sources.cursor import O_DIR, O_FILE, Cursor, PathEscape, path_parts, read_fd
from skillcore.sources.local import LocalReader
from skillcore.sources.local_listing import MAX_LISTED_DIRS, MAX_LISTED_ENTRIES
from skillcore.trust.digest_cache import DigestCache
from skillcore.trust.digests import file_digest


class TreeTooLarge(SkillcoreError):
    """The skill holds more files or bytes than the bounds allow."""


def local_tree(
    reader: LocalReader,
    directory: str,
    max_files: int,
    max_file_bytes: int,
    max_total: int,
    digests: DigestCache | None = None,
) -> dict[str, str] | None:
    """``{relative path: digest}`` of every file the reader would list or serve (``SKILL.md``
    included), or None when the fast pass does not apply (a link, a file that changed while
    read). Raises :class:`TreeTooLarge` past a bound, OSError when the directory is gone."""
    root_fd = os.open(reader.root, os.O_RDONLY | os.O_DIRECTORY)
    cur = Cursor(reader.root, root_fd)
    try:
        cur.walk(path_parts(directory), last_is_file=False)
        top = os.dup(cur.fd)
    except PathEscape:
        return None
    finally:
        cur.close()
        os.close(root_fd)
    try:
        where = directory.strip("/")
        prefix = f"{where}/" if where else ""
        one = _Pass(top, max_files, max_file_bytes, max_total, reader, digests, prefix)
        files = one.run()
        if files is not None and digests is not None:
            parts = where.split("/") if where else []
            chain = ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)]
            above = [(c, os.lstat(os.path.join(reader.root, c))) for c in chain]
            digests.put_skill(where, above + one.stamps, files)
        return files
    finally:
        os.close(top)


class _Pass:
    def __init__(
        self,
        top: int,
        max_files: int,
        max_file_bytes: int,
        max_total: int,
        reader: LocalReader,
        digests: DigestCache | None,
        prefix: str,
    ) -> None:
        self.top = top
        self.max_files = max_files
        self.max_file_bytes = max_file_bytes
        self.left = max_total
        self.hardlinks = reader.source.allow_hardlinks
        self.files: dict[str, str] = {}
        self.examined = 0
        self.digests = digests
        self.prefix = prefix
        #: ``(path below the root, stat)`` of every folder and file read (the digest cache's
        #: record of the skill).
        self.stamps: list[tuple[str, os.stat_result]] = []

    def run(self) -> dict[str, str] | None:
        stack: list[tuple[int, str]] = [(os.dup(self.top), "")]
        dirs = 0
        try:
            while stack:
                fd, rel = stack.pop()
                dirs += 1
                if dirs > MAX_LISTED_DIRS:
                    raise TreeTooLarge(f"more than {MAX_LISTED_DIRS} folders")
                try:
                    if self.digests is not None:
                        self.stamps.append(((self.prefix + rel).rstrip("/"), os.fstat(fd)))
                    if not self._visit(fd, rel, stack):
                        return None
                finally:
                    os.close(fd)
        finally:
            for fd, _rel in stack:
                os.close(fd)
        return self.files

    def _visit(self, fd: int, rel: str, stack: list[tuple[int, str]]) -> bool:
        with os.scandir(fd) as it:
            entries = list(it)
        self.examined += len(entries)
        if self.examined > MAX_LISTED_ENTRIES:
            raise TreeTooLarge(f"more than {MAX_LISTED_ENTRIES} entries")
        for entry in entries:
            name = entry.name
            if hidden_name(name) or undecodable(name):
                continue
            child = f"{rel}/{name}" if rel else name
            st = entry.stat(follow_symlinks=False)
            if stat_mod.S_ISLNK(st.st_mode):
                return False  # the reader resolves links inside the skill: its path decides
            if stat_mod.S_ISDIR(st.st_mode):
                stack.append((os.open(name, O_DIR, dir_fd=fd), child))
                continue
            if not stat_mod.S_ISREG(st.st_mode) or (st.st_nlink > 1 and not self.hardlinks):
                continue  # neither listed nor served by the reader
            if len(self.files) >= self.max_files:
                raise TreeTooLarge(f"more than {self.max_files} files")
            known = None
            if self.digests is not None:
                self.stamps.append((self.prefix + child, st))
                known = self.digests.get(self.prefix.rstrip("/"), child, st)
            if known is not None:
                self._count(child, st.st_size)
                self.files[child] = known
                continue
            if not self._read(fd, name, child, st):
                return False
        return True

    def _read(self, fd: int, name: str, child: str, st: os.stat_result) -> bool:
        file_fd = os.open(name, O_FILE, dir_fd=fd)
        fst = os.fstat(file_fd)
        if (fst.st_dev, fst.st_ino) != (st.st_dev, st.st_ino) or not stat_mod.S_ISREG(fst.st_mode):
            os.close(file_fd)
            return False  # swapped while read: the reader's path decides
        # A change while reading shows in ctime: the stamp recorded is the one from before.
        data = read_fd(file_fd, min(self.max_file_bytes, self.left) + 1)
        self._count(child, len(data))
        self.files[child] = file_digest(data)
        return True

    def _count(self, child: str, size: int) -> None:
        if size > self.max_file_bytes:
            raise TreeTooLarge(f"{child!r} is larger than {self.max_file_bytes} bytes")
        if size > self.left:
            raise TreeTooLarge("its files exceed the byte limit")
        self.left -= size


__all__ = ["TreeTooLarge", "local_tree"]
