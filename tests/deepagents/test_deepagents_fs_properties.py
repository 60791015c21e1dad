"""Properties of the fsspec view of a deepagents backend, and backends that misbehave."""

from __future__ import annotations

import posixpath
from typing import Any

from da_helpers import TREE, skill_md
from deepagents.backends import StoreBackend
from deepagents.backends.protocol import GlobResult, LsResult
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.memory import InMemoryStore

from skillcore import SkillLibrary
from skillcore.sources import deepagents as da
from skillcore.sources.deepagents import BackendFileSystem, backend_sources

SEGMENT = st.text(alphabet="abcxyz-_.", min_size=1, max_size=4).filter(
    lambda s: s not in (".", "..") and not s.startswith(".")
)
PATHS = st.lists(st.lists(SEGMENT, min_size=1, max_size=4), min_size=1, max_size=12).map(
    lambda parts: {"/" + "/".join(p) for p in parts}
)


def consistent(paths: set[str]) -> bool:
    """No path is both a file and a directory."""
    dirs = {posixpath.dirname(p) for p in paths}
    dirs |= {d for p in dirs for d in _ancestors(p)}
    return not (dirs & paths)


def _ancestors(path: str) -> list[str]:
    out = []
    while path not in ("/", ""):
        path = posixpath.dirname(path)
        out.append(path)
    return out


def store(files: dict[str, bytes], cls: type[StoreBackend] = StoreBackend) -> StoreBackend:
    backend = cls(store=InMemoryStore(), namespace=lambda _rt: ("p",))
    assert all(r.error is None for r in backend.upload_files(list(files.items())))
    return backend


class WalkOnlyStore(StoreBackend):
    """A StoreBackend whose glob is unavailable, so ``find`` walks with ``ls``."""

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        raise NotImplementedError


@settings(settings.get_profile("skillcore"), max_examples=60)
@given(
    tree=PATHS.filter(consistent),
    data=st.data(),
    walk=st.booleans(),
)
def test_find_ls_and_ranged_reads_agree_with_the_backend(
    tree: set[str], data: st.DataObject, walk: bool
) -> None:
    files = {p: data.draw(st.binary(max_size=40), label=p) for p in sorted(tree)}
    fs = BackendFileSystem(store(files, WalkOnlyStore if walk else StoreBackend))
    assert fs.find("/") == sorted(files)
    for path, content in files.items():
        assert fs.cat_file(path) == content
        start = data.draw(st.integers(0, len(content) + 2))
        end = data.draw(st.integers(start, len(content) + 3))
        assert fs.cat_file(path, start=start, end=end) == content[start:end]
        parent = posixpath.dirname(path)
        children = {
            parent.rstrip("/") + "/" + p[len(parent.rstrip("/")) + 1 :].split("/")[0]
            for p in files
            if p.startswith(parent.rstrip("/") + "/")
        }
        assert {e["name"] for e in fs.ls(parent)} == children
        # sizes are the backend's (a StoreBackend counts binary files in base64 characters)
        size = fs.info(path)["size"]
        assert size is not None and size >= len(content)
    for depth in (1, 2):
        expected = sorted(p for p in files if p.count("/") <= depth)
        assert fs.find("/", maxdepth=depth) == expected


def test_walk_and_glob_find_the_same_skills() -> None:
    backend = store(TREE)
    walker = WalkOnlyStore(store=backend._store, namespace=lambda _rt: ("p",))
    by_glob = SkillLibrary(backend_sources(backend, ["/skills"])).catalog
    by_walk = SkillLibrary(backend_sources(walker, ["/skills"])).catalog
    assert by_glob.skills == by_walk.skills
    assert sorted(m.name for m in by_glob.skills) == ["alpha", "beta"]


class CountingStore(StoreBackend):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.downloads: list[int] = []
        self.listings = 0
        self.globs = 0

    def download_files(self, paths: list[str]) -> Any:
        self.downloads.append(len(paths))
        return super().download_files(paths)

    def ls(self, path: str) -> LsResult:
        self.listings += 1
        return super().ls(path)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        self.globs += 1
        return super().glob(pattern, path)


def test_discovery_is_one_glob_and_batched_downloads() -> None:
    n = da.DOWNLOAD_BATCH + 6
    files = {f"/skills/s{i:03d}/SKILL.md": skill_md(f"s{i:03d}") for i in range(n)}
    backend = store(files, CountingStore)
    assert isinstance(backend, CountingStore)
    library = SkillLibrary(backend_sources(backend, ["/skills"]))
    assert len(library.catalog.skills) == n
    assert backend.globs == 1
    assert backend.downloads == [da.DOWNLOAD_BATCH, 6]  # every head, in two round trips
    assert backend.listings <= 2  # the root's existence check, not one per skill


class LoopingStore(StoreBackend):
    """Lists itself, its parent and a grandchild under every directory: a walk that trusts
    the listing never ends."""

    def ls(self, path: str) -> LsResult:
        result = super().ls(path)
        extra = [
            {"path": path, "is_dir": True},
            {"path": posixpath.dirname(path.rstrip("/")) or "/", "is_dir": True},
            {"path": path.rstrip("/") + "/x/y", "is_dir": True},
            {"path": "loop/", "is_dir": True},  # a relative path: a child named 'loop'
            "not an entry",
        ]
        return LsResult(entries=[*(result.entries or []), *extra])  # type: ignore[list-item]

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        return GlobResult(error="glob is not supported here")


def test_a_walk_is_bounded_when_a_backend_lists_nonsense() -> None:
    backend = store(TREE, LoopingStore)
    fs = BackendFileSystem(backend)
    # 'loop' directories nest forever; the walk stops at MAX_WALK_DEPTH levels
    found = fs.find("/skills")
    assert set(TREE) - {"/other/readme.md"} <= set(found)
    library = SkillLibrary(backend_sources(backend, ["/skills"]))
    assert sorted(m.name for m in library.catalog.skills) == ["alpha", "beta"]


class LegacyStore(StoreBackend):
    """deepagents before 0.3: the listing was ``ls_info`` returning a plain list."""

    def ls(self, path: str) -> LsResult:
        raise NotImplementedError

    def ls_info(self, path: str) -> list[Any]:
        return super().ls(path).entries or []

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        raise NotImplementedError


def test_legacy_ls_info_backends_are_read() -> None:
    library = SkillLibrary(backend_sources(store(TREE, LegacyStore), ["/skills"]))
    assert sorted(m.name for m in library.catalog.skills) == ["alpha", "beta"]


class FailingDownloads(StoreBackend):
    def download_files(self, paths: list[str]) -> Any:
        raise ConnectionError("sandbox went away")


def test_a_failing_backend_is_a_diagnostic_per_skill() -> None:
    library = SkillLibrary(backend_sources(store(TREE, FailingDownloads), ["/skills"]))
    assert library.catalog.skills == ()
    messages = [d.message for d in library.catalog.diagnostics]
    assert messages and all("sandbox went away" in m for m in messages)


def test_huge_listing_is_an_error_not_a_cut(monkeypatch: Any) -> None:
    monkeypatch.setattr(da, "MAX_LS_ENTRIES", 1)
    fs = BackendFileSystem(store(TREE))
    try:
        fs.ls("/skills")
    except OSError as exc:
        assert "limit" in str(exc)
    else:
        raise AssertionError("an over-size listing must raise")
