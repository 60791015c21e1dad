"""The resource listing of a local skill directory: confined, never through symlinked
directories, and bounded in files, directories and directory entries examined."""

from __future__ import annotations

import os
import stat as stat_mod

from skillcore.model import Resource, ResourceKind
from skillcore.paths import hidden_name, undecodable
from skillcore.sources.cursor import Cursor, NotRegularFile, PathEscape, open_dirs
from skillcore.sources.source import SKILL_FILE

#: Directories one resource listing visits at most (symlinked directories are never entered).
MAX_LISTED_DIRS = 1_000
#: Directory entries one resource listing examines at most.
MAX_LISTED_ENTRIES = 20_000


class Listing:
    """One listing of the skill directory at ``top`` (a cursor below the source root)."""

    def __init__(self, top: Cursor, max_entries: int, allow_hardlinks: bool) -> None:
        self.top = top
        self.base = list(top.canon)
        self.max_entries = max_entries
        self.allow_hardlinks = allow_hardlinks
        self.found: list[Resource] = []
        self.truncated = False
        self.examined = 0

    def run(self) -> tuple[tuple[Resource, ...], bool]:
        """``(resources, truncated)``, sorted by path."""
        stack = [""]  # directories still to visit, relative to the skill directory
        dirs = 0
        while stack and len(self.found) < self.max_entries and self.examined <= MAX_LISTED_ENTRIES:
            rel = stack.pop()
            dirs += 1
            subdirs = self._visit(rel)
            if subdirs is None:
                continue
            room = max(0, MAX_LISTED_DIRS - dirs - len(stack))
            self.truncated = self.truncated or len(subdirs) > room
            stack.extend(reversed(subdirs[:room]))
        return tuple(sorted(self.found, key=lambda r: r.path)), self.truncated

    def _visit(self, rel: str) -> list[str] | None:
        """List the files of ``rel``; its subdirectories, or None when it cannot be read."""
        try:
            dir_fd = open_dirs(self.top.fd, rel)
        except OSError:
            return None  # gone, or swapped for a link since it was listed
        try:
            subdirs: list[str] = []
            for child in self._children(dir_fd):
                name = child.name
                if hidden_name(name) or undecodable(name):
                    continue  # an undecodable name could not be shown nor asked for
                child_rel = f"{rel}/{name}" if rel else name
                if child_rel == SKILL_FILE:
                    continue
                size = self._size(child, child_rel, subdirs)
                if size is None:
                    continue
                if len(self.found) >= self.max_entries:
                    self.truncated = True
                    break
                self.found.append(Resource(child_rel, ResourceKind.for_path(child_rel), size))
            return subdirs
        except OSError:
            return None
        finally:
            os.close(dir_fd)

    def _children(self, dir_fd: int) -> list[os.DirEntry[str]]:
        """The entries of a directory by name, counted against :data:`MAX_LISTED_ENTRIES`."""
        children = []
        with os.scandir(dir_fd) as it:
            for child in it:
                self.examined += 1
                if self.examined > MAX_LISTED_ENTRIES:
                    self.truncated = True
                    break
                children.append(child)
        children.sort(key=lambda c: c.name)
        return children

    def _size(self, child: os.DirEntry[str], child_rel: str, subdirs: list[str]) -> int | None:
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
                cur = Cursor(self.top.root, self.top.fds[0])
                try:
                    cur.walk(self.base, last_is_file=False)
                    name, st = cur.walk(child_rel.split("/"), last_is_file=True)  # type: ignore[misc]
                    inside = cur.canon[len(self.base) :]
                    if cur.canon[: len(self.base)] != self.base or any(
                        hidden_name(seg) for seg in (*inside, name)
                    ):
                        return None  # outside, or a link to a hidden file: never offered
                finally:
                    cur.close()
        except (OSError, PathEscape, NotRegularFile):
            return None
        if not stat_mod.S_ISREG(st.st_mode):
            return None  # FIFOs, sockets, devices are not resources
        if st.st_nlink > 1 and not self.allow_hardlinks:
            return None  # never advertise a file we would refuse to read
        return st.st_size
