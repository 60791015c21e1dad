"""One skill directory of a local source, as discovery sees it: is it a skill, is its
``SKILL.md`` unchanged (the refresh hot path only ``lstat``s: nothing is read there, so no
confinement is at stake), else a confined read of its head; and the case variants of
``SKILL.md`` reported when it is missing."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat as stat_mod
from collections.abc import Mapping
from itertools import compress, islice

from skillcore.diagnostics import Code, Diagnostic
from skillcore.parse.headings import scanned_headings
from skillcore.paths import undecodable
from skillcore.sources.cursor import (
    O_DIR,
    Cursor,
    NotRegularFile,
    PathEscape,
    open_checked,
    path_parts,
    read_fd,
    refusal,
)
from skillcore.sources.reader import SourceReader
from skillcore.sources.scan import (
    ScanEntry,
    misnamed_diagnostic,
    misnamed_skill_file,
    not_a_file_diagnostic,
    scan_entry,
)
from skillcore.sources.source import SKILL_FILE, join_rel

#: Returned by SkillDirectories.entry for a directory without a SKILL.md file.
NOT_A_SKILL = object()
#: Returned instead by SkillDirectories.entry(misnamed=False) for a directory without SKILL.md.
NO_SKILL_FILE = object()

_IS_EIGHT = (8).__eq__

#: The line closing a frontmatter, as ``parsing.split_frontmatter`` finds it (LF endings),
#: with the line break before it: a pattern that starts with a fixed character lets the
#: regex engine skip to each one in C instead of trying every position.
_CLOSING_LINE = re.compile(rb"\n(?:---|\.\.\.)[ \t\r]*\n")


def closing_end(head: bytes) -> int:
    """Where the frontmatter of ``head`` (opened by its first line) ends: just after its
    closing line and that line's newline; -1 when no such line is found."""
    first = head.find(b"\n")
    m = None if first == -1 else _CLOSING_LINE.search(head, first)
    return -1 if m is None else m.end()


def file_stamp(st: os.stat_result) -> str:
    """The change stamp of a local ``SKILL.md``: what refresh and the parse cache compare.

    Size and ``mtime_ns``, plus ``ctime_ns`` and the inode: ``cp -p``, ``tar x`` or a
    restore can write new content keeping size and mtime, but no user can set the ctime
    (every write and metadata change sets it to now) and a replaced file has a new inode.
    Still unseen: two same-size writes within one tick of the filesystem's clock whose mtime
    is then restored, and filesystems that do not keep a ctime (see docs/security.md)."""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def same_file(st: os.stat_result, stamp: str, hardlinks: bool) -> bool:
    """True when ``st`` is still the file ``stamp`` was taken of: same stamp, a regular file,
    and not hard-linked unless the source allows it (the skill is unchanged)."""
    return (
        file_stamp(st) == stamp and stat_mod.S_ISREG(st.st_mode) and (st.st_nlink == 1 or hardlinks)
    )


def frontmatter_prefix(head: bytes, complete: bool = False) -> tuple[bytes, tuple[str, ...] | None]:
    """``(prefix, headings)``: ``head`` up to the end of its frontmatter's closing line and
    the section headings of the body after it (:func:`scanned_headings`, read here from the
    bytes already read); the rest of the body discovery does not need, and a scan holds every
    head until it is parsed, so keeping this little divides the peak memory of a large
    discovery. ``(head, None)`` when no closing line is found (the parser then asks for
    more, as before) or the parser must judge the bytes. ``complete``: ``head`` is the whole
    file."""
    if not head.startswith(b"---") or head.find(b"\x00", 0, 8192) != -1:
        return head, None  # the parser reports NUL bytes anywhere in the first 8 KiB
    if not head.isascii():
        try:
            head.decode("utf-8")
        except UnicodeDecodeError:
            return head, None  # the parser judges the whole head's UTF-8
    end = closing_end(head)
    if end == -1:
        return head, None
    if head.find(b"\r", 0, end) != -1 and head.count(b"\r", 0, end) != head.count(b"\r\n", 0, end):
        return head, None  # a lone CR breaks lines for the parser: its frontmatter may differ
    return head[:end], scanned_headings(head, end, complete)


def has_agents(dir_fd: int) -> bool:
    """True when the directory open at ``dir_fd`` holds an entry named ``agents`` (Codex's
    folder), as ``os.path.lexists`` of its path would say (a link is not followed; any error
    is False), without a path to resolve: one syscall that raises nothing. Nothing is read
    through it; a read of the folder's file is confined as any other."""
    return os.access(_AGENTS, os.F_OK, dir_fd=dir_fd, follow_symlinks=False)


#: Codex's folder beside ``SKILL.md`` (``skillcore.parse.codex.CODEX_FILE``'s first part).
_AGENTS = "agents"


class SkillDirectories:
    """Reads the skill directories of one scan of a local source; findings go to ``diags``."""

    def __init__(
        self,
        reader: SourceReader,
        root: str,
        head_bytes: int,
        known: Mapping[str, str],
        diags: list[Diagnostic],
    ) -> None:
        self.reader = reader
        self.source = source = reader.source
        self.root = root
        self.head_bytes = head_bytes
        self.known = known
        self.diags = diags
        self.hardlinks = source.allow_hardlinks

    # -- is it a skill -------------------------------------------------------------

    def entry(
        self,
        cur: Cursor,
        rel: str,
        dir_name: str,
        listed_dir: bool = False,
        misnamed: bool = True,
    ) -> ScanEntry | object | None:
        """The scan entry of a skill directory; None if skipped (with a diagnostic);
        ``NOT_A_SKILL`` when it is no directory or has no SKILL.md file. ``listed_dir``: the
        listing just reported ``rel`` as a directory, not a symlink (no need to lstat it).
        ``misnamed=False``: leave the case variants of a missing SKILL.md to the caller and
        return ``NO_SKILL_FILE`` for a directory without one."""
        file_rel = f"{rel}/{SKILL_FILE}" if rel else SKILL_FILE
        hot = rel and "/" not in rel and rel in self.known
        if hot and self._known_unchanged(cur.fd, rel, file_rel, listed_dir):
            return ScanEntry(rel, dir_name, self.known[rel], None)
        try:
            return self._read_entry(cur, rel, dir_name, file_rel, misnamed)
        except PathEscape as exc:
            where = "the source" if exc.outside_source else "its skill directory"
            self.diags.append(
                self.reader.diag(
                    Code.SYMLINK_ESCAPE,
                    f"skipped: SKILL.md is a symlink pointing outside {where}",
                    file_rel,
                )
            )
            return None
        except NotRegularFile as exc:
            self.diags.append(
                self.reader.diag(Code.UNSAFE_PATH, refusal(SKILL_FILE, exc), file_rel)
            )
            return None
        except OSError as exc:
            error = self.reader.diag(
                Code.READ_FAILED, f"skipped: cannot read SKILL.md: {exc}", file_rel
            )
            return ScanEntry(rel, dir_name, "", None, error=error)
        finally:
            cur.close()

    def top_entry(self, root_fd: int, name: str) -> ScanEntry | None:
        """:meth:`entry` of ``name``, a real directory right under the root (the listing
        says so) whose ``SKILL.md`` is a regular file: the common skill, read with the same
        confined calls (the directory opened with ``O_NOFOLLOW``, ``SKILL.md`` ``lstat``-ed,
        opened with ``O_NOFOLLOW`` and checked with ``fstat``) without the general walk's
        steps. None for anything else, or on any error: :meth:`entry` then decides (and
        reports), as it would have."""
        try:
            dir_fd = os.open(name, O_DIR, dir_fd=root_fd)
        except OSError:
            return None
        try:
            st = os.stat(SKILL_FILE, dir_fd=dir_fd, follow_symlinks=False)
            hardlinks = self.hardlinks
            if not stat_mod.S_ISREG(st.st_mode) or (st.st_nlink > 1 and not hardlinks):
                return None  # a link, a directory, no file: the walk reads (or reports) it
            stamp = file_stamp(st)
            known = self.known.get(name)
            if known is not None and same_file(st, known, hardlinks):
                return ScanEntry(name, name, known, None)
            fd = open_checked(dir_fd, SKILL_FILE, st, hardlinks)
            head = read_fd(fd, self.head_bytes, st.st_size)
            agents = has_agents(dir_fd)
        except (OSError, NotRegularFile):
            return None  # changed since the lstat, or unreadable: the walk reports it
        finally:
            os.close(dir_fd)
        complete = st.st_size <= len(head)
        kept, headings = frontmatter_prefix(head, complete)
        return scan_entry(
            name,
            name,
            stamp,
            kept,
            complete=complete,
            size=st.st_size,
            headings=headings,
            agents=agents,
        )

    def _known_unchanged(self, dir_fd: int, rel: str, file_rel: str, listed_dir: bool) -> bool:
        """Refresh hot path: two lstats (one when the listing already told the entry is a
        real directory) tell "unchanged" without opening anything. Nothing is read here, so
        no confinement is at stake; any read goes through the cursor."""
        try:
            if listed_dir or stat_mod.S_ISDIR(
                os.stat(rel, dir_fd=dir_fd, follow_symlinks=False).st_mode
            ):
                st = os.stat(file_rel, dir_fd=dir_fd, follow_symlinks=False)
                return same_file(st, self.known[rel], self.hardlinks)
        except OSError:
            pass
        return False

    def _read_entry(
        self, cur: Cursor, rel: str, dir_name: str, file_rel: str, misnamed: bool
    ) -> ScanEntry | object | None:
        """Enter ``rel``, find its SKILL.md and read its head if its stamp changed."""
        try:
            fast = self._enter(cur, rel)
        except (FileNotFoundError, NotADirectoryError):
            return NOT_A_SKILL  # a file, a link to one, or a dangling link
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            return NOT_A_SKILL  # a symlink loop is no skill directory
        except PathEscape:
            real = os.path.realpath(os.path.join(self.root, rel))
            self.diags.append(
                self.reader.diag(
                    Code.SYMLINK_ESCAPE,
                    f"skipped: symlinked directory points outside the source ({real})",
                    rel,
                )
            )
            return None
        located = self._skill_file(cur, rel, file_rel, misnamed)
        if not isinstance(located, tuple):
            return located
        dir_fd = cur.fd  # the skill directory (a link to SKILL.md stays in it)
        name, st = located
        stamp = file_stamp(st)
        if rel in self.known and same_file(st, self.known[rel], self.hardlinks):
            return ScanEntry(rel, dir_name, stamp, None)
        head = read_fd(cur.open_file(name, st, self.hardlinks), self.head_bytes)
        complete = st.st_size <= len(head)
        kept, headings = frontmatter_prefix(head, complete)
        return ScanEntry(
            rel,
            dir_name,
            stamp,
            kept,
            complete=complete,
            size=st.st_size,
            headings=headings,
            # Only for a real directory right under the root, where the library's own
            # check of the path would reach this same directory.
            agents=has_agents(dir_fd) if fast else None,
        )

    @staticmethod
    def _enter(cur: Cursor, rel: str) -> bool:
        """Move ``cur`` to the directory ``rel`` (one open for a plain directory under the
        root, the hot path; a confined walk otherwise). True when it took the hot path."""
        fast = None
        if rel and "/" not in rel:
            with contextlib.suppress(OSError):
                fast = os.open(rel, O_DIR, dir_fd=cur.fd)
        if fast is not None:
            cur.fds.append(fast)
            cur.canon.append(rel)
            return True
        cur.walk(path_parts(rel), last_is_file=False)
        return False

    def _skill_file(
        self, cur: Cursor, rel: str, file_rel: str, misnamed: bool
    ) -> tuple[str, os.stat_result] | object:
        """``(name, lstat)`` of the SKILL.md in the directory at ``cur`` (a link to it is
        resolved, and must stay in that directory), or what the directory is instead."""
        try:
            name, st = SKILL_FILE, os.stat(SKILL_FILE, dir_fd=cur.fd, follow_symlinks=False)
            if stat_mod.S_ISLNK(st.st_mode):
                base = list(cur.canon)
                name, st = cur.walk([SKILL_FILE], last_is_file=True)  # type: ignore[misc]
                if cur.canon != base:
                    raise PathEscape(False)
            elif stat_mod.S_ISDIR(st.st_mode):
                self.diags.append(not_a_file_diagnostic(self.source, file_rel, "a directory"))
                return NOT_A_SKILL
        except (FileNotFoundError, NotADirectoryError):
            if not misnamed:
                return NO_SKILL_FILE
            self.report_misnamed(cur.fd, rel)
            return NOT_A_SKILL
        except NotRegularFile:
            self.diags.append(
                not_a_file_diagnostic(self.source, file_rel, "a symlink to a directory")
            )
            return NOT_A_SKILL
        return name, st

    # -- case variants of SKILL.md -------------------------------------------------------

    def report_misnamed(self, dir_fd: int, rel: str) -> None:
        """A directory without SKILL.md: name a case variant of it if there is one (bounded
        listing; only directories that are no skill pay for it)."""
        names: list[str] = []
        try:
            with os.scandir(dir_fd) as it:
                names.extend(islice((child.name for child in it), self.source.max_entries))
        except OSError:
            pass  # the walk that follows reports an unreadable directory
        self.misnamed_in(rel, names)  # the names listed before any error count

    def misnamed_in(self, rel: str, names: list[str]) -> None:
        """Case variants of SKILL.md among the first ``max_entries`` of ``names`` (a listing
        of ``rel``, in listing order)."""
        names = names[: self.source.max_entries]
        # Lowercasing never shortens a name: only 8-character names can match (picked in C).
        for name in compress(names, map(_IS_EIGHT, map(len, names))):
            if misnamed_skill_file(name) and not undecodable(name):
                self.diags.append(misnamed_diagnostic(self.source, join_rel(rel, name)))
