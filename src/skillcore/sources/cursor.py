"""Confined local paths: a cursor that walks below a source root one directory descriptor at a
time (``openat`` with ``O_NOFOLLOW``), resolving symlinks itself, and the bounded reads and
refusals that go with it."""

from __future__ import annotations

import errno
import os
import stat as stat_mod

from skillcore.errors import SkillcoreError

#: Symlinks followed at most while resolving one local path (the kernel's own limit is 40).
MAX_SYMLINK_HOPS = 40

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK everywhere: opening a FIFO planted in a skill must never block.
O_ROOT = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
O_DIR = O_ROOT | getattr(os, "O_NOFOLLOW", 0)
O_FILE = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | _CLOEXEC
)


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


class Cursor:
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
                fd = os.open(name, O_DIR, dir_fd=self.fd)
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
        """Open the (non-link) file ``name`` located by :meth:`walk`: see :func:`open_checked`."""
        return open_checked(self.fd, name, st, allow_hardlinks)


def open_checked(dir_fd: int, name: str, st: os.stat_result, allow_hardlinks: bool) -> int:
    """Open the file ``name`` in the directory open at ``dir_fd``, whose ``lstat`` is ``st``:
    regular files only, no link followed, non-blocking, and checked to be the very file
    ``st`` describes (a file swapped in between raises)."""
    if not stat_mod.S_ISREG(st.st_mode):
        raise NotRegularFile(file_kind(st.st_mode))
    if st.st_nlink > 1 and not allow_hardlinks:
        raise NotRegularFile(f"a file with {st.st_nlink} hard links", hardlink=True)
    fd = os.open(name, O_FILE, dir_fd=dir_fd)
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


def read_fd(fd: int, limit: int, size: int | None = None) -> bytes:
    """At most ``limit`` bytes from ``fd`` (closes it). ``size``: the file's size as its
    stat told; reading stops once that many bytes are in (a file read to its known size
    needs no further read to see its end; a file grown since is cut there, as if read
    before it grew)."""
    try:
        if limit <= 0:
            return b""
        # The usual file comes whole (or to ``limit``) in one read: no list to join.
        first = os.read(fd, min(limit, 1 << 20))
        if not first or len(first) >= limit or (size is not None and len(first) >= size):
            return first
        chunks: list[bytes] = [first]
        left = limit - len(first)
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            if size is not None and limit - left >= size:
                break
        return b"".join(chunks)
    finally:
        os.close(fd)


def path_parts(path: str) -> list[str]:
    """The non-empty components of a relative path."""
    return [p for p in path.split("/") if p] if path else []


def open_dirs(dir_fd: int, rel: str) -> int:
    """Open the real (non-symlink) directory ``rel`` below ``dir_fd``, component by component."""
    fd = os.dup(dir_fd)
    for name in path_parts(rel):
        try:
            nxt = os.open(name, O_DIR, dir_fd=fd)
        finally:
            os.close(fd)
        fd = nxt
    return fd


def refusal(rel_path: str, exc: NotRegularFile) -> str:
    """Why ``rel_path`` is not read (not a regular file, or hard-linked)."""
    if exc.hardlink:
        return (
            f"{rel_path!r} is refused: it is {exc.what}, so it may be the same file as one "
            "outside the skill (hard links to outside files are not read)"
        )
    return f"{rel_path!r} is {exc.what}, not a regular file"
