"""The repository side of a Git source: where it is (URL parsing), opening or cloning it
(fetching on refresh), and pinning the ref to a commit and its folder."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.sources.common import describe_error
from skillcore.sources.errors import SourceUnavailable

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


@attrs.frozen
class Pinned:
    """A ref resolved to a commit, and the tree of the source's folder in it."""

    commit: str
    ref: str
    tree: Any  # pygit2.Tree of the source root


class GitRepository:
    """One source's repository: opened (or cloned) once, fetched on refresh when remote, and
    its ref pinned to a commit on every scan. Not thread-safe: the reader holds its lock."""

    def __init__(self, location: GitLocation, cache_dir: str, label: str) -> None:
        self.location = location
        self.cache_dir = cache_dir
        self.label = label
        self._repo: Any = None
        self._pinned: Pinned | None = None
        self._subdir = location.subdir

    @property
    def repo(self) -> Any:
        """The open ``pygit2.Repository`` (None before the first pin)."""
        return self._repo

    @property
    def pinned(self) -> Pinned | None:
        """What the last pin resolved (None before the first)."""
        return self._pinned

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
                    self.label,
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

    def pin(self, diags: list[Diagnostic]) -> Pinned:
        """Open the repository, resolve the ref and find the folder; raises
        SourceUnavailable."""
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
        pinned = Pinned(str(commit.id), ref, tree)
        self._pinned = pinned
        return pinned

    def current(self) -> Pinned:
        """The last pin, or a new one."""
        return self._pinned if self._pinned is not None else self.pin([])

    def subdir_of_pin(self) -> str:
        """The source's folder in the repository, as the last pin found it."""
        loc = self.location
        if loc.spec is None or self._pinned is None:
            return self._subdir
        return loc.spec[len(self._pinned.ref) :].strip("/")


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
