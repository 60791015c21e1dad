"""SkillLibrary: sources (local, file://, memory://), recursive discovery, refresh, reading
documents and resources, sync and async."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import anyio
import pytest
from fsspec.implementations.memory import MemoryFileSystem

from skillcore import (
    Catalog,
    Code,
    OutcomeCode,
    ReadError,
    ResourceKind,
    Severity,
    SkillLibrary,
    SkillSource,
    SkillToolkit,
    project_sources,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "skills"


def write_skill(root: Path, directory: str, name: str | None = None, desc: str = "Does X.") -> Path:
    d = root / directory
    d.mkdir(parents=True, exist_ok=True)
    path = d / "SKILL.md"
    path.write_text(
        f"---\nname: {name or Path(directory).name}\ndescription: {desc}\n---\n# Body\n"
    )
    return path


def touch_changed(path: Path, text: str) -> None:
    """Rewrite a file so its size/mtime stamp surely changes."""
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def memfs() -> MemoryFileSystem:
    """A private in-memory filesystem (not fsspec's shared ``memory://`` store)."""
    fs = MemoryFileSystem(skip_instance_cache=True)
    fs.store = {}
    fs.pseudo_dirs = [""]
    fs.pipe(
        {
            "/lib/mem-one/SKILL.md": (
                b"---\nname: mem-one\ndescription: From memory.\n---\nMem body\n"
            ),
            "/lib/mem-one/references/r.md": b"ref text",
            "/lib/mem-one/scripts/run.py": b"print(1)\n",
            "/lib/mem-one/assets/logo.bin": b"\x00\x01",
            "/lib/broken/SKILL.md": b"---\nname: broken\n---\n",
            "/lib/.hidden/SKILL.md": b"---\nname: hidden\ndescription: x\n---\n",
        }
    )
    return fs


# -- sources --------------------------------------------------------------------------------------


def test_examples_discover_clean_in_strict_mode() -> None:
    cat = SkillLibrary([EXAMPLES], mode="strict").discover()
    assert len(cat) >= 4
    assert cat.errors == ()
    assert not [d for d in cat.diagnostics if d.severity is Severity.WARNING]


def test_file_url_equals_plain_path() -> None:
    by_path = SkillLibrary([EXAMPLES]).discover()
    by_url = SkillLibrary([EXAMPLES.as_uri()]).discover()
    assert by_url.names == by_path.names
    assert [s.description for s in by_url] == [s.description for s in by_path]
    meta = by_url.get(by_url.names[0])
    assert meta.location.url == str(EXAMPLES / meta.name)


def test_memory_filesystem_source(memfs: MemoryFileSystem) -> None:
    lib = SkillLibrary([SkillSource("/lib", label="mem", fs=memfs)])
    cat = lib.discover()
    assert cat.names == ("mem-one",)  # .hidden is skipped, broken is diagnosed
    (diag,) = cat.diagnostics
    assert (diag.code, diag.source, diag.path, diag.field) == (
        Code.MISSING_FIELD,
        "mem",
        "broken/SKILL.md",
        "description",
    )
    doc = lib.read_document("mem-one")
    assert doc.body == "Mem body"
    assert [(r.path, r.kind, r.size) for r in doc.resources] == [
        ("assets/logo.bin", ResourceKind.ASSET, 2),
        ("references/r.md", ResourceKind.REFERENCE, 8),
        ("scripts/run.py", ResourceKind.SCRIPT, 9),
    ]
    assert lib.read_resource("mem-one", "references/r.md").text == "ref text"
    assert lib.read_resource("mem-one", "assets/logo.bin").binary
    for bad in ("../broken/SKILL.md", "/lib/broken/SKILL.md"):
        with pytest.raises(ReadError) as info:
            lib.read_resource("mem-one", bad)
        assert info.value.code is OutcomeCode.PATH_REJECTED
    with pytest.raises(ReadError) as info:
        lib.read_resource("mem-one", "references/missing.md")
    assert info.value.code is OutcomeCode.RESOURCE_NOT_FOUND


def test_memory_url_source() -> None:
    fs = MemoryFileSystem()  # the shared store behind memory:// URLs
    root = "/skillcore-test-memory-url"
    fs.pipe(f"{root}/m-skill/SKILL.md", b"---\nname: m-skill\ndescription: Via URL.\n---\nB\n")
    try:
        lib = SkillLibrary([f"memory://{root}"])
        cat = lib.discover()
        assert cat.names == ("m-skill",)
        assert cat.get("m-skill").location.source == f"memory://{root}"
        assert lib.read_document("m-skill").body == "B"
    finally:
        fs.rm(root, recursive=True)


def test_later_sources_override_and_come_first(tmp_path: Path, memfs: MemoryFileSystem) -> None:
    write_skill(tmp_path / "disk", "mem-one", desc="Disk version.")
    write_skill(tmp_path / "disk", "disk-only")
    lib = SkillLibrary(
        [SkillSource(str(tmp_path / "disk"), label="disk"), SkillSource("/lib", "mem", fs=memfs)]
    )
    cat = lib.discover()
    assert cat.get("mem-one").description == "From memory."
    assert cat.names == ("mem-one", "disk-only")  # highest precedence first
    assert [d.code for d in cat.diagnostics if d.code is Code.SHADOWED] == [Code.SHADOWED]


def test_root_that_is_itself_a_skill(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "solo")
    cat = SkillLibrary([path.parent]).discover()
    assert cat.names == ("solo",)
    assert cat.get("solo").location.directory == ""


def test_source_labels_must_be_unique(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unique"):
        SkillLibrary([tmp_path, str(tmp_path)])


def test_project_sources_order(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    write_skill(home / ".agents" / "skills", "shared", desc="User.")
    write_skill(proj / ".claude" / "skills", "shared", desc="Project.")
    sources = project_sources(proj, home=str(home))
    assert [s.label for s in sources] == ["user:.agents", "project:.claude"]
    assert SkillLibrary(sources).discover().get("shared").description == "Project."


# -- recursive discovery --------------------------------------------------------------------------


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    root = tmp_path / "mono"
    write_skill(root, "top")
    write_skill(root, "pkg/a/skills/deep")  # depth 4
    write_skill(root, "l1/l2/l3/l4/l5")  # depth 5
    write_skill(root, ".git/hooks/hidden")
    write_skill(root, "node_modules/pkg/nm")
    write_skill(root, "pkg/.cache/cached")
    write_skill(root, "top/scripts/inner")  # inside a skill: a resource, not a skill
    return root


@pytest.mark.parametrize(
    ("depth", "expected"),
    [(1, {"top"}), (3, {"top"}), (4, {"top", "deep"}), (5, {"top", "deep", "l5"})],
)
def test_recursive_discovery_respects_max_depth(
    monorepo: Path, depth: int, expected: set[str]
) -> None:
    source = SkillSource(str(monorepo), recursive=True, max_depth=depth)
    assert set(SkillLibrary([source]).discover().names) == expected


def test_non_recursive_sees_only_direct_children(monorepo: Path) -> None:
    assert SkillLibrary([monorepo]).discover().names == ("top",)


def test_recursive_discovery_in_memory_skips_git_and_node_modules(monorepo: Path) -> None:
    fs = MemoryFileSystem(skip_instance_cache=True)
    fs.store, fs.pseudo_dirs = {}, [""]
    for path in monorepo.rglob("SKILL.md"):
        fs.pipe("/mono/" + path.relative_to(monorepo).as_posix(), path.read_bytes())
    source = SkillSource("/mono", label="mem", fs=fs, recursive=True, max_depth=5)
    assert set(SkillLibrary([source]).discover().names) == {"top", "deep", "l5"}


def test_max_entries_bounds_a_scan(tmp_path: Path) -> None:
    for i in range(30):
        write_skill(tmp_path / "many", f"s{i:02d}")
    source = SkillSource(str(tmp_path / "many"), max_entries=10)
    cat = SkillLibrary([source]).discover()
    assert len(cat) == 10
    (diag,) = cat.diagnostics
    assert (diag.severity, diag.code) == (Severity.WARNING, Code.SOURCE_LIMIT)
    assert "some skills may be missing" in diag.message


# -- refresh --------------------------------------------------------------------------------------


@pytest.fixture
def two(tmp_path: Path) -> Path:
    root = tmp_path / "two"
    write_skill(root, "one", desc="First.")
    write_skill(root, "two", desc="Second.")
    return root


def test_refresh_unchanged_returns_the_same_catalog(two: Path) -> None:
    lib = SkillLibrary([two])
    first = lib.discover()
    assert lib.refresh() is first
    assert lib.catalog is first


def test_refresh_sees_a_changed_file(two: Path) -> None:
    lib = SkillLibrary([two])
    first = lib.discover()
    touch_changed(two / "two" / "SKILL.md", "---\nname: two\ndescription: Changed!\n---\n")
    second = lib.refresh()
    assert second is not first
    assert second.get("two").description == "Changed!"
    assert second.fingerprint != first.fingerprint
    assert first.get("two").description == "Second."  # the old catalog is immutable
    assert lib.refresh() is second


def test_refresh_sees_added_and_removed_skills(two: Path) -> None:
    lib = SkillLibrary([two])
    lib.discover()
    write_skill(two, "three")
    shutil.rmtree(two / "one")
    assert set(lib.refresh().names) == {"two", "three"}


def test_deleted_source_keeps_last_good_skills(two: Path, tmp_path: Path) -> None:
    lib = SkillLibrary([two])
    good = lib.discover()
    shutil.move(two, tmp_path / "moved")
    stale = lib.refresh()
    assert stale.names == good.names
    (diag,) = stale.diagnostics
    assert (diag.severity, diag.code, diag.source) == (
        Severity.WARNING,
        Code.SOURCE_STALE,
        str(two),
    )
    assert "does not exist" in diag.message and "keeping its 2 skill files" in diag.message
    shutil.move(tmp_path / "moved", two)
    back = lib.refresh()
    assert back.diagnostics == () and back.names == good.names


def test_stale_source_does_not_affect_healthy_ones(two: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write_skill(other, "solo-x")
    lib = SkillLibrary([two, other])
    lib.discover()
    shutil.rmtree(two)
    write_skill(other, "solo-y")
    cat = lib.refresh()
    assert set(cat.names) == {"one", "two", "solo-x", "solo-y"}
    assert [d.code for d in cat.diagnostics] == [Code.SOURCE_STALE]


def test_a_source_never_seen_is_unreachable_not_stale(tmp_path: Path) -> None:
    lib = SkillLibrary([SkillSource(str(tmp_path / "nothing"), optional=True)])
    assert [d.code for d in lib.discover().diagnostics] == [Code.SOURCE_UNREACHABLE]
    assert [d.code for d in lib.refresh().diagnostics] == [Code.SOURCE_UNREACHABLE]


def test_refresh_only_reparses_changed_files(two: Path) -> None:
    lib = SkillLibrary([two])
    first = lib.discover()
    touch_changed(two / "one" / "SKILL.md", "---\nname: one\ndescription: New.\n---\n")
    second = lib.refresh()
    assert second.get("two") is first.get("two")  # unchanged file: same parsed value
    assert second.get("one") is not first.get("one")


# -- loading --------------------------------------------------------------------------------------


def test_skill_deleted_between_discovery_and_load(two: Path) -> None:
    lib = SkillLibrary([two])
    toolkit = SkillToolkit(lib)
    session = lib.session()
    (two / "one" / "SKILL.md").unlink()
    result = toolkit.call(session, "load_skill", {"skill_name": "one"})
    assert result.code is OutcomeCode.READ_FAILED
    assert result.session is session and session.loaded_names == ()
    assert "deleted after discovery" in result.text
    assert toolkit.call(session, "load_skill", {"skill_name": "two"}).code is OutcomeCode.LOADED


def test_skill_directory_deleted_between_discovery_and_async_load(two: Path) -> None:
    lib = SkillLibrary([two])
    toolkit = SkillToolkit(lib)
    session = lib.session()
    shutil.rmtree(two / "one")
    result = anyio.run(toolkit.acall, session, "load_skill", {"skill_name": "one"})
    assert result.code is OutcomeCode.READ_FAILED
    assert result.session is session


def test_read_document_unknown_skill(two: Path) -> None:
    with pytest.raises(ReadError) as info:
        SkillLibrary([two]).read_document("nope")
    assert info.value.code is OutcomeCode.SKILL_NOT_FOUND


def test_resource_listing_is_capped(two: Path) -> None:
    refs = two / "one" / "references"
    refs.mkdir()
    for i in range(12):
        (refs / f"r{i:02d}.md").write_text("x")
    (two / "one" / ".secret").write_text("hidden")
    (two / "one" / "__pycache__").mkdir()
    (two / "one" / "__pycache__" / "x.pyc").write_bytes(b"\x00")
    doc = SkillLibrary([two], max_resources=5).read_document("one")
    assert len(doc.resources) == 5 and doc.resources_truncated
    full = SkillLibrary([two]).read_document("one")
    assert len(full.resources) == 12 and not full.resources_truncated
    assert all(r.kind is ResourceKind.REFERENCE for r in full.resources)


def test_resource_byte_cap(two: Path) -> None:
    (two / "one" / "big.txt").write_text("y" * 1000)
    lib = SkillLibrary([two])
    with pytest.raises(ReadError) as info:
        lib.read_resource("one", "big.txt", max_bytes=100)
    assert info.value.code is OutcomeCode.TOO_LARGE
    assert lib.read_resource("one", "big.txt", max_bytes=1000).size == 1000


# -- async ---------------------------------------------------------------------------------------


def test_adiscover_equals_discover(tmp_path: Path, memfs: MemoryFileSystem, monorepo: Path) -> None:
    backend = "asyncio"

    def sources() -> list[SkillSource]:
        return [
            SkillSource(str(EXAMPLES), label="ex"),
            SkillSource("/lib", label="mem", fs=memfs),
            SkillSource(str(monorepo), label="mono", recursive=True, max_depth=5),
            SkillSource(str(tmp_path / "missing"), label="missing", optional=True),
        ]

    sync = SkillLibrary(sources()).discover()
    lib = SkillLibrary(sources())
    async_cat = anyio.run(lib.adiscover, backend=backend)
    assert isinstance(async_cat, Catalog)
    assert async_cat == sync
    assert async_cat.diagnostics == sync.diagnostics
    assert {Code.SOURCE_UNREACHABLE, Code.MISSING_FIELD} <= {d.code for d in sync.diagnostics}

    async def more() -> tuple[Catalog, str, str]:
        again = await lib.arefresh()
        doc = await lib.aread_document("mem-one")
        res = await lib.aread_resource("mem-one", "references/r.md")
        return again, doc.body, res.text or ""

    again, body, text = anyio.run(more, backend=backend)
    assert again is async_cat
    assert (body, text) == ("Mem body", "ref text")


def test_progress_callback(tmp_path: Path) -> None:
    for i in range(5):
        write_skill(tmp_path / "p", f"s{i}")
    calls: list[tuple[int, int]] = []
    SkillLibrary(
        [tmp_path / "p"], progress=lambda done, total: calls.append((done, total))
    ).discover()
    assert calls[0] == (1, 5) and calls[-1] == (5, 5)
