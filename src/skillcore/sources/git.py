"""Skills in a Git repository at a pinned ref, read straight from the object database.

URL form (``@`` separates the repository from the ref; the part after the ref is a folder
inside the repository)::

    git:///abs/path/to/repo                   HEAD, repository root
    git:///abs/path/to/repo@v1.4              tag, branch or commit
    git:///abs/path/to/repo@v1.4/skills       ... and a sub-folder
    git://relative/repo@release/2.0/skills    refs containing '/' work (longest match wins)
    git+https://host/org/repo.git@v1.4/skills a remote: cloned (bare) into a cache, fetched
                                              on refresh (also git+ssh://, git+file://)

Storage options ``ref`` and ``subdir`` may be given instead (then the URL is taken verbatim as
the repository, so paths containing ``@`` work); ``cache_dir`` sets where remotes are cloned.

Only committed content is read (never the working tree), so any ref can be read whatever is
checked out. Stamps are blob ids; sizes come from object headers without inflating blobs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import Any

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import require
from skillcore.model import Resource, ResourceKind
from skillcore.paths import printable_name, undecodable
from skillcore.sources.common import describe_error, hidden_or_skipped
from skillcore.sources.errors import ReadError, SourceUnavailable
from skillcore.sources.fsspec_reader import FsspecReader
from skillcore.sources.git_repo import GitLocation, GitRepository, parse_git_url
from skillcore.sources.local_listing import MAX_LISTED_DIRS
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import SKILL_FILE, SkillSource

__all__ = ["GitLocation", "GitReader", "GitRepository", "open_git_reader", "parse_git_url"]

_LINK_MODE = 0o120000
_COMMIT_MODE = 0o160000  # a submodule entry
_TREE_MODE = 0o040000


def open_git_reader(source: SkillSource) -> SourceReader:
    """Reader factory for ``git://`` sources (registered lazily by ``open_reader``)."""
    if source.fs is not None:  # a ready fsspec GitFileSystem: the generic reader
        return FsspecReader(source, source.fs, source.url)
    require("pygit2", "git", "Reading skills from git:// sources")
    opts = source.fsspec_options()
    location = parse_git_url(source.url, opts)
    cache_dir = opts.get("cache_dir") or os.path.join(
        os.path.expanduser("~"), ".cache", "skillcore", "git"
    )
    return GitReader(source, location, str(cache_dir))


class GitReader(SourceReader):
    """Reads a folder of a Git tree at a ref with pygit2 (one ref resolution per scan)."""

    def __init__(self, source: SkillSource, location: GitLocation, cache_dir: str) -> None:
        super().__init__(source)
        self.location = location
        self.cache_dir = cache_dir
        self.git = GitRepository(location, cache_dir, source.label)
        # libgit2 repository handles must not be used by two threads at once.
        self._lock = threading.RLock()

    def url_for(self, directory: str) -> str:
        """``git://repo@ref/subdir/directory`` (the ref the last scan resolved)."""
        loc = self.location
        ref = self.git.pinned.ref if self.git.pinned else (loc.ref or loc.spec or "HEAD")
        tail = "/".join(p for p in (self.git.subdir_of_pin(), directory) if p)
        prefix = "git+" if loc.remote else "git://"
        url = f"{prefix}{loc.repo}@{ref}"
        return f"{url}/{tail}" if tail else url

    # -- the three primitives -------------------------------------------------------------

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """Resolve the ref, walk the tree and read the blobs of changed SKILL.md files."""
        diags: list[Diagnostic] = []
        with self._lock:
            try:
                pinned = self.git.pin(diags)
            except SourceUnavailable:
                raise
            except Exception as exc:
                raise SourceUnavailable(
                    f"cannot read {self.location.repo}: {describe_error(exc)}"
                ) from exc
            repo = self.git.repo
            entries: list[ScanEntry] = []
            root_name = self.git.subdir_of_pin().rsplit("/", 1)[-1] or os.path.basename(
                self.location.repo.rstrip("/")
            ).removesuffix(".git")
            if SKILL_FILE in pinned.tree:
                entry = self._entry(repo, pinned.tree, "", root_name, head_bytes, known, diags)
                return Scan((entry,) if entry else (), tuple(diags))
            budget = [self.source.max_entries]
            depth = self.source.max_depth if self.source.recursive else 1
            self._walk(repo, pinned.tree, "", depth, head_bytes, known, entries, diags, budget)
        entries.sort(key=lambda e: e.directory)
        return Scan(tuple(entries), tuple(diags))

    def _walk(
        self,
        repo: Any,
        tree: Any,
        rel: str,
        depth: int,
        head_bytes: int,
        known: Mapping[str, str],
        entries: list[ScanEntry],
        diags: list[Diagnostic],
        budget: list[int],
    ) -> None:
        for child in tree:
            if budget[0] <= 0:
                diags.append(
                    self.diag(
                        Code.SOURCE_LIMIT,
                        f"stopped after {self.source.max_entries} tree entries; "
                        "some skills may be missing",
                        rel,
                        Severity.WARNING,
                    )
                )
                return
            budget[0] -= 1
            name = child.name
            if child.filemode != _TREE_MODE or hidden_or_skipped((name,)):
                continue
            child_rel = f"{rel}/{name}" if rel else name
            if undecodable(name):
                diags.append(
                    self.diag(
                        Code.UNDECODABLE_NAME,
                        f"skipped: the directory name {printable_name(name)!r} is not valid "
                        "UTF-8; rename it",
                        printable_name(child_rel),
                    )
                )
                continue
            try:
                sub = repo[child.id]
                is_skill = SKILL_FILE in sub
            except Exception as exc:  # a corrupt or missing tree object: this folder only
                diags.append(
                    self.diag(
                        Code.READ_FAILED,
                        f"skipped: cannot read the folder from the repository: "
                        f"{describe_error(exc)}",
                        child_rel,
                    )
                )
                continue
            if is_skill:
                entry = self._entry(repo, sub, child_rel, name, head_bytes, known, diags)
                if entry is not None:
                    entries.append(entry)
            elif depth > 1:
                self._walk(
                    repo, sub, child_rel, depth - 1, head_bytes, known, entries, diags, budget
                )

    def _entry(
        self,
        repo: Any,
        tree: Any,
        rel: str,
        dir_name: str,
        head_bytes: int,
        known: Mapping[str, str],
        diags: list[Diagnostic],
    ) -> ScanEntry | None:
        item = tree[SKILL_FILE]
        file_rel = f"{rel}/{SKILL_FILE}" if rel else SKILL_FILE
        if item.filemode == _LINK_MODE:
            diags.append(
                self.diag(
                    Code.SYMLINK_ESCAPE,
                    "skipped: SKILL.md is a symlink; symlinks in Git sources are not followed",
                    file_rel,
                )
            )
            return None
        if item.type_str != "blob":
            return None
        stamp = str(item.id)
        if known.get(rel) == stamp:
            return ScanEntry(rel, dir_name, stamp, None)
        try:
            # The size from the object header first: libgit2 inflates whole blobs, so a
            # small pack can hold a huge SKILL.md; never inflate one over the file cap.
            size = repo.odb.read_header(item.id)[1]
            if size > self.max_file_bytes:
                diags.append(
                    self.diag(
                        Code.TOO_LARGE,
                        f"skipped: SKILL.md is {size} bytes, over the {self.max_file_bytes}-byte "
                        "limit",
                        file_rel,
                    )
                )
                return None
            head = repo[item.id].data[:head_bytes]
        except Exception as exc:  # a corrupt object: this skill only
            error = self.diag(
                Code.READ_FAILED,
                f"skipped: cannot read SKILL.md from the repository: {describe_error(exc)}",
                file_rel,
            )
            return ScanEntry(rel, dir_name, stamp, None, error=error)
        return ScanEntry(rel, dir_name, stamp, head, complete=size <= head_bytes, size=size)

    def _lookup(self, directory: str, rel_path: str) -> tuple[Any, Any, str]:
        rel = safe_relpath(rel_path)
        pinned = self.git.current()
        path = f"{directory}/{rel}" if directory else rel
        try:
            item = pinned.tree[path]
        except KeyError:
            raise ReadError(
                OutcomeCode.RESOURCE_NOT_FOUND,
                f"no file {rel_path!r} in the skill directory",
                missing=True,
            ) from None
        return self.git.repo, item, rel

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read a blob of the pinned commit; the size check uses the object header only."""
        with self._lock:
            try:
                repo, item, _ = self._lookup(directory, rel_path)
            except SourceUnavailable as exc:
                raise ReadError(OutcomeCode.READ_FAILED, str(exc)) from exc
            if item.filemode == _LINK_MODE:
                raise ReadError(
                    OutcomeCode.PATH_REJECTED,
                    f"{rel_path!r} is a symlink; symlinks in Git sources are not followed",
                )
            if item.type_str != "blob":
                raise ReadError(
                    OutcomeCode.RESOURCE_NOT_FOUND, f"{rel_path!r} is a directory, not a file"
                )
            try:
                size = repo.odb.read_header(item.id)[1]
                if size <= max_bytes:
                    return bytes(repo[item.id].data)
            except Exception as exc:  # a corrupt or missing object (pygit2.GitError, ...)
                raise ReadError(
                    OutcomeCode.READ_FAILED,
                    f"cannot read {rel_path!r} from the repository: {describe_error(exc)}",
                ) from exc
            raise ReadError(
                OutcomeCode.TOO_LARGE,
                f"{rel_path!r} is {size} bytes, over the {max_bytes}-byte limit",
            )

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Walk the skill's tree at the pinned commit (blobs only, no symlinks/submodules)."""
        with self._lock:
            try:
                pinned = self.git.current()
                repo = self.git.repo
                tree = pinned.tree if not directory else repo[pinned.tree[directory].id]
            except Exception:
                return (), False
            out: list[Resource] = []
            stack: list[tuple[str, Any]] = [("", tree)]
            dirs = 0
            truncated = False
            while stack:
                rel, node = stack.pop()
                dirs += 1
                subdirs: list[tuple[str, Any]] = []
                for child in node:
                    name = child.name
                    # An undecodable name could be neither shown nor asked for: not listed.
                    if hidden_or_skipped((name,)) or undecodable(name):
                        continue
                    child_rel = f"{rel}/{name}" if rel else name
                    try:
                        if child.filemode == _TREE_MODE:
                            if dirs + len(stack) + len(subdirs) >= MAX_LISTED_DIRS:
                                truncated = True
                            else:
                                subdirs.append((child_rel, repo[child.id]))
                            continue
                        if child.filemode in (_LINK_MODE, _COMMIT_MODE) or child_rel == SKILL_FILE:
                            continue
                        size = repo.odb.read_header(child.id)[1]
                    except Exception:  # a corrupt object is not offered
                        continue
                    if len(out) >= max_entries:
                        return tuple(sorted(out, key=lambda r: r.path)), True
                    out.append(Resource(child_rel, ResourceKind.for_path(child_rel), size))
                stack.extend(reversed(subdirs))
        out.sort(key=lambda r: r.path)
        return tuple(out), truncated
