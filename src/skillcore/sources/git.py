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

import hashlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import require
from skillcore.model import Resource, ResourceKind
from skillcore.paths import printable_name, undecodable
from skillcore.sources.common import describe_error, hidden_or_skipped
from skillcore.sources.errors import ReadError, SourceUnavailable
from skillcore.sources.fsspec_reader import FsspecReader
from skillcore.sources.local_listing import MAX_LISTED_DIRS
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import SKILL_FILE, SkillSource

_LINK_MODE = 0o120000
_COMMIT_MODE = 0o160000  # a submodule entry
_TREE_MODE = 0o040000
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@attrs.frozen
class GitLocation:
    """A parsed ``git://`` source: the repository, the ref (None: HEAD) and a folder spec.

    ``spec`` is what follows ``@`` in the URL (ref and folder not yet told apart: refs may
    contain ``/``); ``subdir`` is an explicit folder from storage options.
    """

    repo: str
    remote: bool
    spec: str | None = None
    ref: str | None = None
    subdir: str = ""


def parse_git_url(url: str, options: Mapping[str, Any] | None = None) -> GitLocation:
    """Split a ``git://`` or ``git+<transport>://`` URL into repository, ref and folder."""
    options = options or {}
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a git URL: {url!r}")
    remote = scheme != "git"
    if remote:
        transport = scheme.split("+", 1)[1] if "+" in scheme else ""
        if not transport:
            raise ValueError(f"not a git URL: {url!r}")
        rest = f"{transport}://{rest}"
    explicit_ref = options.get("ref")
    explicit_subdir = str(options.get("subdir") or "").strip("/")
    if explicit_ref is not None or "subdir" in options:
        return GitLocation(
            _norm_repo(rest, remote),
            remote,
            None,
            explicit_ref and str(explicit_ref),
            explicit_subdir,
        )
    # The ref separator is the last '@' of the path part (not a user@ in a remote's host).
    start = rest.find("/", rest.find("://") + 3) if remote else 0
    at = rest.rfind("@")
    if at < max(start, 0) or (not remote and os.path.isdir(os.path.expanduser(rest))):
        return GitLocation(_norm_repo(rest, remote), remote)
    return GitLocation(_norm_repo(rest[:at], remote), remote, rest[at + 1 :].strip("/") or None)


def _norm_repo(repo: str, remote: bool) -> str:
    if remote:
        return repo
    return os.path.abspath(os.path.expanduser(repo)) if repo else os.getcwd()


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


@attrs.frozen
class _Pinned:
    commit: str
    ref: str
    tree: Any  # pygit2.Tree of the source root


class GitReader(SourceReader):
    """Reads a folder of a Git tree at a ref with pygit2 (one ref resolution per scan)."""

    def __init__(self, source: SkillSource, location: GitLocation, cache_dir: str) -> None:
        super().__init__(source)
        self.location = location
        self.cache_dir = cache_dir
        self._repo: Any = None
        self._pinned: _Pinned | None = None
        self._subdir = location.subdir
        # libgit2 repository handles must not be used by two threads at once.
        self._lock = threading.RLock()

    # -- repository and ref ----------------------------------------------------------------

    def _open(self, diags: list[Diagnostic]) -> Any:
        import pygit2

        if self._repo is not None:
            if self.location.remote:
                self._fetch(self._repo, diags)
            return self._repo
        loc = self.location
        if loc.remote:
            self._repo = self._clone(diags)
            return self._repo
        found = pygit2.discover_repository(loc.repo) if os.path.exists(loc.repo) else None
        if found is None:
            exists = os.path.exists(loc.repo)
            what = "is not in a Git repository" if exists else "does not exist"
            raise SourceUnavailable(f"{loc.repo} {what}")
        repo = pygit2.Repository(found)
        if loc.spec is None and not loc.subdir and repo.workdir:
            # git:///repo/skills (no '@'): the folder is the path below the work tree.
            rel = os.path.relpath(loc.repo, repo.workdir)
            if rel not in (".", "") and not rel.startswith(".."):
                self._subdir = rel.replace(os.sep, "/")
        self._repo = repo
        return repo

    def _clone(self, diags: list[Diagnostic]) -> Any:
        import pygit2

        url = self.location.repo
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", url.rstrip("/").rsplit("/", 1)[-1])[:40]
        target = os.path.join(
            self.cache_dir, f"{hashlib.sha256(url.encode()).hexdigest()[:16]}-{name}"
        )
        if os.path.isdir(target):
            repo = pygit2.Repository(target)
            self._fetch(repo, diags)
            return repo
        os.makedirs(self.cache_dir, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".clone-", dir=self.cache_dir)
        try:
            pygit2.clone_repository(url, tmp, bare=True)
            repo = pygit2.Repository(tmp)
            self._fetch(repo, None)
            os.replace(tmp, target)
        except Exception as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if os.path.isdir(target):  # another process won the race
                return pygit2.Repository(target)
            raise SourceUnavailable(f"cannot clone {url}: {describe_error(exc)}") from exc
        return pygit2.Repository(target)

    def _fetch(self, repo: Any, diags: list[Diagnostic] | None) -> None:
        spec = self.location.ref or self.location.spec or ""
        if _FULL_SHA.fullmatch(spec.split("/", 1)[0]) and spec.split("/", 1)[0] in repo:
            return  # a pinned commit never changes: no network
        try:
            repo.remotes["origin"].fetch(["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"])
        except Exception as exc:
            if diags is None:
                raise
            diags.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.SOURCE_STALE,
                    f"cannot fetch {self.location.repo} ({describe_error(exc)}); "
                    "using the cached clone",
                    self.source.label,
                )
            )

    def _resolve(self, repo: Any) -> tuple[Any, str, str]:
        """(commit, ref, subdir) for the location; raises SourceUnavailable."""
        import pygit2

        loc = self.location
        if loc.spec is None:
            candidates = [(loc.ref or "HEAD", self._subdir)]
        else:
            parts = loc.spec.split("/")
            candidates = [
                ("/".join(parts[:i]), "/".join(parts[i:])) for i in range(len(parts), 0, -1)
            ]
        for ref, subdir in candidates:
            try:
                commit = repo.revparse_single(ref).peel(pygit2.Commit)
            except (KeyError, ValueError, pygit2.GitError):
                continue
            return commit, ref, subdir
        wanted = loc.ref or (loc.spec.split("/", 1)[0] if loc.spec else "HEAD")
        raise SourceUnavailable(f"ref {wanted!r} not found in {loc.repo} ({_known_refs(repo)})")

    def _pin(self, diags: list[Diagnostic]) -> _Pinned:
        import pygit2

        repo = self._open(diags)
        commit, ref, subdir = self._resolve(repo)
        tree = commit.tree
        if subdir:
            try:
                obj = tree[subdir]
            except KeyError:
                obj = None
            if obj is None or obj.type_str != "tree":
                raise SourceUnavailable(
                    f"no folder {subdir!r} in {self.location.repo} at {ref!r} "
                    f"(commit {str(commit.id)[:10]})"
                )
            tree = repo[obj.id]
            assert isinstance(tree, pygit2.Tree)
        pinned = _Pinned(str(commit.id), ref, tree)
        self._pinned = pinned
        return pinned

    def _current(self) -> _Pinned:
        return self._pinned if self._pinned is not None else self._pin([])

    def url_for(self, directory: str) -> str:
        """``git://repo@ref/subdir/directory`` (the ref the last scan resolved)."""
        loc = self.location
        ref = self._pinned.ref if self._pinned else (loc.ref or loc.spec or "HEAD")
        tail = "/".join(p for p in (self._subdir_of_pin(), directory) if p)
        prefix = "git+" if loc.remote else "git://"
        url = f"{prefix}{loc.repo}@{ref}"
        return f"{url}/{tail}" if tail else url

    def _subdir_of_pin(self) -> str:
        loc = self.location
        if loc.spec is None or self._pinned is None:
            return self._subdir
        return loc.spec[len(self._pinned.ref) :].strip("/")

    # -- the three primitives -------------------------------------------------------------

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """Resolve the ref, walk the tree and read the blobs of changed SKILL.md files."""
        diags: list[Diagnostic] = []
        with self._lock:
            try:
                pinned = self._pin(diags)
            except SourceUnavailable:
                raise
            except Exception as exc:
                raise SourceUnavailable(
                    f"cannot read {self.location.repo}: {describe_error(exc)}"
                ) from exc
            repo = self._repo
            entries: list[ScanEntry] = []
            root_name = self._subdir_of_pin().rsplit("/", 1)[-1] or os.path.basename(
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
                    Diagnostic(
                        Severity.WARNING,
                        Code.SOURCE_LIMIT,
                        f"stopped after {self.source.max_entries} tree entries; "
                        "some skills may be missing",
                        self.source.label,
                        rel,
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
                    Diagnostic(
                        Severity.ERROR,
                        Code.UNDECODABLE_NAME,
                        f"skipped: the directory name {printable_name(name)!r} is not valid "
                        "UTF-8; rename it",
                        self.source.label,
                        printable_name(child_rel),
                    )
                )
                continue
            try:
                sub = repo[child.id]
                is_skill = SKILL_FILE in sub
            except Exception as exc:  # a corrupt or missing tree object: this folder only
                diags.append(
                    Diagnostic(
                        Severity.ERROR,
                        Code.READ_FAILED,
                        f"skipped: cannot read the folder from the repository: "
                        f"{describe_error(exc)}",
                        self.source.label,
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
                Diagnostic(
                    Severity.ERROR,
                    Code.SYMLINK_ESCAPE,
                    "skipped: SKILL.md is a symlink; symlinks in Git sources are not followed",
                    self.source.label,
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
                    Diagnostic(
                        Severity.ERROR,
                        Code.TOO_LARGE,
                        f"skipped: SKILL.md is {size} bytes, over the {self.max_file_bytes}-byte "
                        "limit",
                        self.source.label,
                        file_rel,
                    )
                )
                return None
            head = repo[item.id].data[:head_bytes]
        except Exception as exc:  # a corrupt object: this skill only
            error = Diagnostic(
                Severity.ERROR,
                Code.READ_FAILED,
                f"skipped: cannot read SKILL.md from the repository: {describe_error(exc)}",
                self.source.label,
                file_rel,
            )
            return ScanEntry(rel, dir_name, stamp, None, error=error)
        return ScanEntry(rel, dir_name, stamp, head, complete=size <= head_bytes)

    def _lookup(self, directory: str, rel_path: str) -> tuple[Any, Any, str]:
        rel = safe_relpath(rel_path)
        pinned = self._current()
        path = f"{directory}/{rel}" if directory else rel
        try:
            item = pinned.tree[path]
        except KeyError:
            raise ReadError(
                OutcomeCode.RESOURCE_NOT_FOUND,
                f"no file {rel_path!r} in the skill directory",
                missing=True,
            ) from None
        return self._repo, item, rel

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
                pinned = self._current()
                repo = self._repo
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


def _known_refs(repo: Any) -> str:
    branches: list[str] = []
    tags: list[str] = []
    for name in repo.references:
        if name.startswith("refs/heads/"):
            branches.append(name[len("refs/heads/") :])
        elif name.startswith("refs/tags/"):
            tags.append(name[len("refs/tags/") :])

    def few(items: list[str]) -> str:
        items = sorted(items)
        more = f", ... ({len(items) - 8} more)" if len(items) > 8 else ""
        return ", ".join(items[:8]) + more if items else "none"

    return f"branches: {few(branches)}; tags: {few(tags)}"
