"""Skills read from real deepagents backends through the generic fsspec reader."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from da_helpers import TREE, LocalSandbox, run_in_graph, skill_md, state_files
from deepagents.backends import CompositeBackend, FilesystemBackend, StateBackend, StoreBackend
from langgraph.store.memory import InMemoryStore

from skillcore import SkillLibrary, SkillSource, SkillToolkit
from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code
from skillcore.errors import SourceError
from skillcore.runtime.deepagents import ScopedLibrary, backend_library, run_scope
from skillcore.sources.deepagents import BackendFileSystem, backend_sources
from skillcore.sources.fsspec_reader import FsspecReader
from skillcore.sources.registry import open_reader


def names(library: SkillLibrary) -> list[str]:
    return sorted(m.name for m in library.catalog.skills)


def load(library: SkillLibrary, name: str) -> str:
    toolkit = SkillToolkit(library)
    result = toolkit.call(library.session(), "load_skill", {"skill_name": name})
    assert result.code is OutcomeCode.LOADED, result.text
    return result.text


def resource(library: SkillLibrary, name: str, path: str) -> Any:
    toolkit = SkillToolkit(library)
    session = toolkit.call(library.session(), "load_skill", {"skill_name": name}).session
    return toolkit.call(session, "load_skill_resource", {"skill_name": name, "path": path})


# -- the filesystem itself -----------------------------------------------------------------


def test_fs_lists_reads_and_ranges(fs_backend: FilesystemBackend) -> None:
    fs = BackendFileSystem(fs_backend)
    assert [e["name"] for e in fs.ls("/skills")] == ["/skills/alpha", "/skills/beta"]
    assert fs.info("/skills/alpha")["type"] == "directory"
    info = fs.info("/skills/alpha/SKILL.md")
    assert info["type"] == "file" and info["size"] == len(TREE["/skills/alpha/SKILL.md"])
    assert "mtime" in info  # the change stamp the reader keys re-reads on
    data = TREE["/skills/alpha/SKILL.md"]
    assert fs.cat_file("/skills/alpha/SKILL.md") == data
    assert fs.cat_file("/skills/alpha/SKILL.md", start=4, end=9) == data[4:9]
    assert fs.cat_file("/skills/alpha/SKILL.md", start=0, end=10_000) == data
    assert fs.find("/skills") == sorted(p for p in TREE if p.startswith("/skills/"))
    assert fs.find("/skills", maxdepth=2) == ["/skills/alpha/SKILL.md", "/skills/beta/SKILL.md"]
    with fs.open("/skills/beta/SKILL.md") as f:
        assert f.read() == TREE["/skills/beta/SKILL.md"]


def test_fs_errors_are_the_matching_oserrors(fs_backend: FilesystemBackend) -> None:
    fs = BackendFileSystem(fs_backend)
    with pytest.raises(FileNotFoundError):
        fs.cat_file("/skills/alpha/missing.md")
    with pytest.raises(IsADirectoryError):
        fs.cat_file("/skills/alpha/scripts")
    with pytest.raises(FileNotFoundError):
        fs.info("/nowhere")
    with pytest.raises(FileNotFoundError):
        fs.ls("/nowhere")
    assert not fs.isdir("/nowhere")
    # a file listed as itself, as fsspec expects
    assert [e["name"] for e in fs.ls("/skills/beta/SKILL.md")] == ["/skills/beta/SKILL.md"]
    with pytest.raises(PermissionError):
        fs.open("/skills/beta/new.md", "wb")
    got = fs.cat_ranges(["/skills/beta/SKILL.md", "/skills/nope.md"], [0, 0], [3, 3])
    assert got[0] == b"---" and isinstance(got[1], FileNotFoundError)


def test_not_a_backend_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="BackendProtocol"):
        BackendFileSystem(object())


def test_each_filesystem_is_its_own_instance(store_backend: StoreBackend) -> None:
    other = StoreBackend(store=InMemoryStore(), namespace=lambda _rt: ("x",))
    # fsspec caches instances by arguments; two backends must never share one
    assert BackendFileSystem(store_backend).backend is store_backend
    assert BackendFileSystem(other).backend is other


def test_reads_go_through_the_generic_reader(store_backend: StoreBackend) -> None:
    (source,) = backend_sources(store_backend, ["/skills/"])
    assert isinstance(open_reader(source), FsspecReader)
    assert source.url == "/skills" and source.label == "/skills"


# -- sources -------------------------------------------------------------------------------


def test_sources_accept_paths_and_label_tuples(store_backend: StoreBackend) -> None:
    sources = backend_sources(store_backend, ["/skills/", ("/other/", "Other")])
    assert [(s.url, s.label) for s in sources] == [("/skills", "/skills"), ("/other", "Other")]
    assert sources[0].fs is sources[1].fs
    (single,) = backend_sources(store_backend, ("/skills", "Team"))
    assert single.label == "Team"
    (rec,) = backend_sources(store_backend, "/skills", recursive=True, max_depth=2)
    assert rec.recursive and rec.max_depth == 2


@pytest.mark.parametrize(
    "bad",
    [[("/skills",)], [("/skills", 3)], [42], ["/skills/../etc"], [""], [("/a", "b", "c")]],
)
def test_bad_source_specs_are_clear_errors(store_backend: StoreBackend, bad: Any) -> None:
    with pytest.raises(SourceError):
        backend_sources(store_backend, bad)


# -- each backend end to end -----------------------------------------------------------------


def check_library(library: SkillLibrary, skill_dir: str) -> None:
    assert names(library) == ["alpha", "beta"]
    assert not library.catalog.diagnostics
    text = load(library, "alpha")
    assert f"Skill directory: {skill_dir}" in text
    assert "- scripts/run.py (script)" in text and "- references/notes.md (reference)" in text
    got = resource(library, "alpha", "references/notes.md")
    assert got.code is OutcomeCode.RESOURCE_READ and "Alpha notes: 42." in got.text
    escape = resource(library, "alpha", "../beta/SKILL.md")
    assert escape.code is OutcomeCode.PATH_REJECTED


def test_filesystem_backend(fs_backend: FilesystemBackend) -> None:
    check_library(SkillLibrary(backend_sources(fs_backend, ["/skills/"])), "/skills/alpha")


def test_filesystem_backend_real_paths(tmp_path: Any, fs_backend: FilesystemBackend) -> None:
    """Without virtual mode the backend's paths are host paths, and so is the directory."""
    real = FilesystemBackend(root_dir=tmp_path, virtual_mode=False)
    library = SkillLibrary(backend_sources(real, [str(tmp_path / "skills")]))
    check_library(library, str(tmp_path / "skills" / "alpha"))


def test_store_backend(store_backend: StoreBackend) -> None:
    check_library(SkillLibrary(backend_sources(store_backend, ["/skills/"])), "/skills/alpha")


def test_state_backend_inside_a_graph_run() -> None:
    def work() -> tuple[list[str], str, str]:
        library = SkillLibrary(backend_sources(StateBackend(), ["/skills"]))
        got = resource(library, "alpha", "scripts/run.py")
        return names(library), load(library, "alpha"), got.text

    found, text, script = run_in_graph(work, state_files(TREE))
    assert found == ["alpha", "beta"]
    assert "Skill directory: /skills/alpha" in text
    assert "print('alpha ran')" in script


def test_state_backend_async_reads_keep_the_graph_context() -> None:
    """The async library path hops to a worker thread; the backend still sees the run."""

    async def work() -> tuple[list[str], str]:
        library = SkillLibrary(backend_sources(StateBackend(), ["/skills"]))
        toolkit = SkillToolkit(library)
        await library.arefresh()
        result = await toolkit.acall(library.session(), "load_skill", {"skill_name": "beta"})
        return names(library), result.text

    found, text = run_in_graph(work, state_files(TREE), is_async=True)
    assert found == ["alpha", "beta"]
    assert "Skill directory: /skills/beta" in text


def test_state_backend_outside_a_run_is_a_diagnostic_not_a_crash() -> None:
    library = SkillLibrary(backend_sources(StateBackend(), ["/skills"]))
    assert names(library) == []
    (diag,) = library.catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE and "graph" in diag.message


def test_composite_backend_shows_route_prefixes(
    fs_backend: FilesystemBackend, store_backend: StoreBackend
) -> None:
    composite = CompositeBackend(default=fs_backend, routes={"/team/": store_backend})
    sources = backend_sources(composite, [("/skills/", "Local"), ("/team/skills", "Team")])
    library = SkillLibrary(sources)
    # the Team copies override the local ones (later sources win), shown under their route
    by_name = {m.name: m for m in library.catalog.skills}
    assert by_name["alpha"].location.url == "/team/skills/alpha"
    assert {d.code for d in library.catalog.diagnostics} == {Code.SHADOWED}
    text = load(library, "alpha")
    assert "Skill directory: /team/skills/alpha" in text
    # the directory shown is one the composite backend itself opens
    assert (
        composite.download_files(["/team/skills/alpha/scripts/run.py"])[0].content
        == (TREE["/skills/alpha/scripts/run.py"])
    )


def test_composite_root_lists_routes(fs_backend: FilesystemBackend) -> None:
    store = StoreBackend(store=InMemoryStore(), namespace=lambda _rt: ("ns",))
    store.upload_files([("/gamma/SKILL.md", skill_md("gamma"))])
    composite = CompositeBackend(default=fs_backend, routes={"/mem/": store})
    fs = BackendFileSystem(composite)
    assert "/mem" in [e["name"] for e in fs.ls("/")]
    library = SkillLibrary(backend_sources(composite, ["/mem/"]))
    assert names(library) == ["gamma"]
    assert "Skill directory: /mem/gamma" in load(library, "gamma")


def test_refresh_sees_a_changed_skill(store_backend: StoreBackend) -> None:
    library = SkillLibrary(backend_sources(store_backend, ["/skills"]))
    first = library.catalog
    assert library.refresh() is first  # nothing changed: the same catalog
    store_backend.upload_files([("/skills/beta/SKILL.md", skill_md("beta", "Beta, revised."))])
    store_backend.upload_files([("/skills/delta/SKILL.md", skill_md("delta"))])
    second = library.refresh()
    assert second is not first
    assert {m.name: m.description for m in second.skills}["beta"] == "Beta, revised."
    assert names(library) == ["alpha", "beta", "delta"]


def test_a_missing_source_loses_nothing_else(store_backend: StoreBackend) -> None:
    library = SkillLibrary(backend_sources(store_backend, ["/skills", ("/nowhere", "Gone")]))
    assert names(library) == ["alpha", "beta"]
    assert [d.source for d in library.catalog.diagnostics] == ["Gone"]


def test_a_broken_skill_is_a_diagnostic(store_backend: StoreBackend) -> None:
    store_backend.upload_files([("/skills/bad/SKILL.md", b"---\nname: [unclosed\n---\nx\n")])
    library = SkillLibrary(backend_sources(store_backend, ["/skills"]))
    assert names(library) == ["alpha", "beta"]
    assert any(d.path.startswith("bad") for d in library.catalog.diagnostics)


def test_source_with_an_explicit_filesystem(store_backend: StoreBackend) -> None:
    fs = BackendFileSystem(store_backend)
    library = SkillLibrary([SkillSource("/skills", label="Store", fs=fs)])
    assert names(library) == ["alpha", "beta"]


def test_async_library_over_a_store(store_backend: StoreBackend) -> None:
    library = SkillLibrary(backend_sources(store_backend, ["/skills"]))
    toolkit = SkillToolkit(library)

    async def go() -> str:
        result = await toolkit.acall(library.session(), "load_skill", {"skill_name": "alpha"})
        return result.text

    assert "Skill directory: /skills/alpha" in asyncio.run(go())


def test_sandbox_backend_lists_through_execute(tmp_path: Any) -> None:
    """A BaseSandbox lists with deepagents' scripts run by ``execute``; the directory shown
    is the sandbox's path, and running the script there works."""
    sandbox = LocalSandbox()
    root = tmp_path / "sandbox"
    sandbox.upload_files([(f"{root}{path}", data) for path, data in TREE.items()])
    library = SkillLibrary(backend_sources(sandbox, [f"{root}/skills"]))
    check_library(library, f"{root}/skills/alpha")
    assert sandbox.commands  # listed inside the sandbox, not on the host
    ran = sandbox.execute(f"cd {root}/skills/alpha && python3 scripts/run.py")
    assert ran.exit_code == 0 and "alpha ran" in ran.output


# -- backends whose files depend on the run ---------------------------------------------------


def test_run_scope_of_each_backend(fs_backend: FilesystemBackend) -> None:
    fixed = StoreBackend(store=InMemoryStore(), namespace=lambda _rt: ("x",))
    assert run_scope(fs_backend, "t") is None
    assert run_scope(fixed, "t") is None  # a fixed store and namespace: one catalog
    assert run_scope(StateBackend(), "t") == ("thread", "t")
    from_runtime = StoreBackend(namespace=lambda _rt: ("x",))  # the store comes from the run
    assert run_scope(from_runtime, "t") == ("thread", "t")  # (outside a run: by thread)
    composite = CompositeBackend(default=fs_backend, routes={"/s/": StateBackend(), "/f/": fixed})
    assert run_scope(composite, "t") == (None, None, ("thread", "t"))
    assert run_scope(CompositeBackend(default=fs_backend, routes={"/f/": fixed}), "t") is None


def test_store_namespace_from_the_runtime_gets_a_catalog_per_user() -> None:
    """A namespace read from the runtime context: each user sees their own skills, and the
    library keeps one catalog per namespace."""
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class Ctx(TypedDict):
        user: str

    class State(TypedDict, total=False):
        out: Any

    store = InMemoryStore()
    backend = StoreBackend(store=store, namespace=lambda rt: ("skills", rt.context["user"]))
    store.put(("skills", "ann"), "/skills/ann-only/SKILL.md", _item(skill_md("ann-only")))
    store.put(("skills", "bob"), "/skills/bob-only/SKILL.md", _item(skill_md("bob-only")))
    library = backend_library(backend, ["/skills"])
    assert isinstance(library, ScopedLibrary)

    def node(state: State) -> dict[str, Any]:
        return {"out": names(library)}

    graph = StateGraph(State, context_schema=Ctx)
    graph.add_node("work", node)
    graph.add_edge(START, "work")
    graph.add_edge("work", END)
    app = graph.compile()
    assert app.invoke({}, context={"user": "ann"})["out"] == ["ann-only"]
    assert app.invoke({}, context={"user": "bob"})["out"] == ["bob-only"]
    assert app.invoke({}, context={"user": "ann"})["out"] == ["ann-only"]


def _item(data: bytes) -> dict[str, Any]:
    from deepagents.backends.utils import create_file_data

    return dict(create_file_data(data.decode()))


def test_scoped_library_keeps_at_most_max_scopes(store_backend: StoreBackend) -> None:
    scope = ["a"]
    library = ScopedLibrary(
        backend_sources(store_backend, ["/skills"]), scope=lambda: scope[0], max_scopes=2
    )
    for key in ("a", "b", "c"):
        scope[0] = key
        assert names(library) == ["alpha", "beta"]
    assert list(library._scopes) == ["b", "c"]
    first = library.catalog
    assert library.refresh() is first  # per scope: nothing changed, same catalog
