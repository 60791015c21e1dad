"""The discovery walk of a local source: one listing per directory level (bounded recursion
if asked) and, for each entry, the skill directory it may be (:mod:`local_entry`).

Every open goes through a :class:`~skillcore.sources.cursor.Cursor`; the refresh hot paths
only ``lstat`` (nothing is read there, so no confinement is at stake).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.paths import hidden_name, printable_name, undecodable
from skillcore.sources.cursor import Cursor, PathEscape, path_parts
from skillcore.sources.errors import SourceUnavailable
from skillcore.sources.local_entry import NOT_A_SKILL, SkillDirectories, same_file
from skillcore.sources.reader import SourceReader
from skillcore.sources.scan import ScanEntry
from skillcore.sources.source import SKILL_FILE

#: A key of ``plain`` (no directory entry is called that) meaning "do not trust this scan".
UNTRUSTED = "/"

#: ``(name, is_dir, is_link)`` of one directory entry.
Child = tuple[str, bool, bool]


class LocalScan:
    """One scan of a local source, open at its root: what the walk found so far and the
    directory entries it may still examine (``source.max_entries``)."""

    def __init__(
        self,
        reader: SourceReader,
        root: str,
        root_fd: int,
        head_bytes: int,
        known: Mapping[str, str],
    ) -> None:
        self.reader = reader
        self.source = source = reader.source
        self.root = root
        self.root_fd = root_fd
        self.known = known
        self.entries: list[ScanEntry] = []
        self.diags: list[Diagnostic] = []
        self.budget = source.max_entries
        self.hardlinks = source.allow_hardlinks
        #: Reads each skill directory the walk meets (its findings go to ``diags`` too).
        self.dirs = SkillDirectories(reader, root, head_bytes, known, self.diags)

    # -- one directory level -------------------------------------------------------------

    def walk(
        self,
        rel: str,
        depth: int,
        plain: dict[str, int] | None = None,
        unchanged: dict[str, str] | None = None,
        misnamed: bool = False,
    ) -> None:
        """Walk one directory level; ``plain`` collects the ``mtime_ns`` of directories that
        hold no skill (for ``LocalReader.unchanged``), and is dropped when it cannot be
        trusted. ``unchanged`` collects the top-level skills whose SKILL.md has its known
        stamp (``{name: stamp}``; without it they are entries). ``misnamed``: this
        directory has no SKILL.md; name its case variants (from this same listing)."""
        listed = self._list(rel, depth, unchanged, misnamed)
        if listed is None:
            return
        hot, children = listed
        if hot is not None:
            if len(hot) + len(children) <= self.budget:
                # The whole level fits the budget and nothing below it is walked (depth 1):
                # the skills found unchanged need no place in the name-ordered walk (they
                # add no diagnostic).
                self.budget -= len(hot)
                unchanged.update(hot)  # type: ignore[union-attr]
            else:  # the budget ends in this listing: every entry takes its turn by name
                children.extend((name, True, False) for name in hot)
                hot = None
        children.sort()
        # Where the inline hot path of _visit records unchanged skills (the split listing
        # above has checked them already).
        found = unchanged if hot is None else None
        for name, is_dir, is_link in children:
            if self.budget <= 0:
                self.diags.append(
                    self.reader.diag(
                        Code.SOURCE_LIMIT,
                        f"stopped after {self.source.max_entries} directory entries; "
                        "some skills may be missing",
                        rel,
                        Severity.WARNING,
                    )
                )
                return
            self.budget -= 1
            if hidden_name(name) or not (is_dir or is_link):
                continue
            self._visit(rel, depth, (name, is_dir, is_link), plain, found)

    def _list(
        self, rel: str, depth: int, unchanged: dict[str, str] | None, misnamed: bool
    ) -> tuple[dict[str, str] | None, list[Child]] | None:
        """The entries of ``rel``; at the top of a one-level walk, split as :meth:`_list_top`
        does. None when a directory below the root cannot be listed (reported)."""
        cur = Cursor(self.root, self.root_fd)
        try:
            cur.walk(path_parts(rel), last_is_file=False)
            with os.scandir(cur.fd) as it:
                if rel or depth > 1 or unchanged is None:
                    children = [
                        (c.name, c.is_dir(follow_symlinks=False), c.is_symlink()) for c in it
                    ]
                    if misnamed:
                        self.dirs.misnamed_in(rel, [c[0] for c in children])
                    return None, children
                return self._list_top(it, misnamed)
        except (OSError, PathEscape) as exc:
            if not rel:
                raise SourceUnavailable(f"cannot list {self.root}: {exc}") from exc
            self.diags.append(
                self.reader.diag(Code.READ_FAILED, f"cannot list directory: {exc}", rel)
            )
            return None
        finally:
            cur.close()

    def _list_top(
        self, listing: Iterator[os.DirEntry[str]], misnamed: bool
    ) -> tuple[dict[str, str], list[Child]]:
        """The root's listing, split: ``{name: stamp}`` of the real directories whose
        SKILL.md has its known stamp (in the order of ``known``), and ``(name, is_dir,
        is_link)`` of every other entry. Case variants of SKILL.md are reported when
        ``misnamed`` (as ``SkillDirectories.report_misnamed`` finds them)."""
        found = {child.name: child for child in listing}
        if misnamed:
            self.dirs.misnamed_in("", list(found))
        hardlinks = self.hardlinks
        root_fd = self.root_fd
        lstat = os.stat
        pop = found.pop
        hot: dict[str, str] = {}
        # In the order of ``known``, not of the listing: its strings were made in that order
        # (e.g. by the parse cache), so a large library is read through memory in sequence,
        # and the names and stamps kept are its own objects (later lookups by identity).
        for name, stamp in self.known.items():
            child = pop(name, None)
            if child is None:
                continue
            if child.is_dir(follow_symlinks=False) and name.isascii() and not hidden_name(name):
                # The refresh hot path of SkillDirectories.entry() for the common top-level
                # skill: one lstat of SKILL.md below a real directory tells "unchanged"
                # without opening anything (nothing is read here; reads use a cursor).
                try:
                    st = lstat(f"{name}/{SKILL_FILE}", dir_fd=root_fd, follow_symlinks=False)
                except OSError:
                    pass
                else:
                    if same_file(st, stamp, hardlinks):
                        hot[name] = stamp
                        continue
            found[name] = child  # the name-ordered walk decides
        rest = [(n, c.is_dir(follow_symlinks=False), c.is_symlink()) for n, c in found.items()]
        return hot, rest

    def _visit(
        self,
        rel: str,
        depth: int,
        child: Child,
        plain: dict[str, int] | None,
        found: dict[str, str] | None,
    ) -> None:
        """One directory entry of ``rel``: a skill, a directory to walk, or nothing."""
        name, is_dir, is_link = child
        child_rel = f"{rel}/{name}" if rel else name
        if not name.isascii() and undecodable(name):  # an ASCII name is UTF-8: no call
            self.diags.append(
                self.reader.diag(
                    Code.UNDECODABLE_NAME,
                    f"skipped: the directory name {printable_name(name)!r} is not valid "
                    "UTF-8; rename it",
                    printable_name(child_rel),
                )
            )
            return
        # The refresh hot path of SkillDirectories.entry(), inlined for the common top-level
        # skill: one lstat of SKILL.md tells "unchanged" without opening anything. Otherwise
        # SkillDirectories.entry() decides.
        top_dir = not rel and is_dir and not is_link
        if top_dir and found is not None and name in self.known and self._top_unchanged(name):
            found[name] = self.known[name]
            return
        if top_dir:
            # The common skill (a real directory, a regular SKILL.md) without the general
            # walk; anything else, or any error, is left to it.
            top = self.dirs.top_entry(self.root_fd, name)
            if top is not None:
                self.entries.append(top)
                return
        entry = self.dirs.entry(
            Cursor(self.root, self.root_fd), child_rel, name, listed_dir=is_dir and not is_link
        )
        if plain is not None and UNTRUSTED not in plain:
            self._note_plain(plain, child, entry)
        if isinstance(entry, ScanEntry):
            self.entries.append(entry)
        elif entry is NOT_A_SKILL and depth > 1:
            self.walk(child_rel, depth - 1)

    def _top_unchanged(self, name: str) -> bool:
        try:
            st = os.stat(f"{name}/{SKILL_FILE}", dir_fd=self.root_fd, follow_symlinks=False)
        except OSError:
            return False
        return same_file(st, self.known[name], self.hardlinks)

    def _note_plain(self, plain: dict[str, int], child: Child, entry: object) -> None:
        """Record a top-level directory without a skill for ``LocalReader.unchanged``."""
        name, is_dir, is_link = child
        if is_link:
            plain[UNTRUSTED] = 0  # a linked entry can change without the root changing
        elif entry is NOT_A_SKILL and is_dir:
            try:
                st = os.stat(name, dir_fd=self.root_fd, follow_symlinks=False)
                plain[name] = st.st_mtime_ns
            except OSError:
                plain[UNTRUSTED] = 0
