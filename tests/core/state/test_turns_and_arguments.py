"""The toolkit never raises for what a model sends, resource access follows the session, and
the turn store keeps conversations apart, orders calls and forgets finished turns."""

from __future__ import annotations

import json
import threading

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import OutcomeCode, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import TurnCalls, TurnStore
from skillcore.testing import write_skill


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> SkillLibrary:
    root = tmp_path_factory.mktemp("skills")
    a = write_skill(root, "alpha", "Alpha tasks.", "Only read.", "allowed-tools: Read\n")
    (a / "references").mkdir()
    (a / "references" / "notes.md").write_text("alpha notes")
    h = write_skill(root, "hidden", "Hidden.", "", "disable-model-invocation: true\n")
    (h / "notes.md").write_text("hidden notes")
    write_skill(root, "beta", "Beta tasks.")
    return SkillLibrary([root])


def restrict(library: SkillLibrary):
    return library.session(policy=ToolPolicy(PolicyMode.RESTRICT))


# -- arguments ---------------------------------------------------------------------------------

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=12), c, max_size=4),
    max_leaves=20,
)
arguments = st.one_of(
    json_like,
    json_like.map(lambda v: json.dumps(v)),
    st.text(max_size=60),
    st.fixed_dictionaries(
        {"skill_name": json_like | st.sampled_from(["alpha", "beta", "hidden"])},
        optional={"path": json_like | st.text(max_size=30), "query": json_like},
    ),
)


@settings(settings.get_profile("skillcore"))
@given(
    st.sampled_from(["load_skill", "unload_skill", "load_skill_resource", "search_skills"]),
    arguments,
)
def test_call_never_raises(library: SkillLibrary, tool: str, args) -> None:
    toolkit = SkillToolkit(library)
    session = toolkit.call(restrict(library), "load_skill", {"skill_name": "alpha"}).session
    result = toolkit.call(session, tool, args)
    assert len(result.text) < 20_000
    if result.code is OutcomeCode.INVALID_ARGUMENTS:
        assert result.session is session and len(result.text) < 400


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"skill_name": ' + "7" * 5001 + "}",
        '{"skill_name": "' + "x" * 20_000_000 + '"}',
        {"skill_name": [[[[["x"]]]]] * 1000},
    ],
    ids=["deep", "digits", "huge", "nested-dict"],
)
def test_hostile_arguments_sync_and_async(library: SkillLibrary, raw) -> None:
    toolkit = SkillToolkit(library)
    for result in (
        toolkit.call(library.session(), "load_skill", raw),
        anyio.run(toolkit.acall, library.session(), "load_skill", raw),
    ):
        assert result.code is OutcomeCode.INVALID_ARGUMENTS and len(result.text) < 400


# -- resources follow the session --------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True])
@pytest.mark.parametrize(
    ("skill", "path", "code"),
    [
        ("hidden", "notes.md", OutcomeCode.DISABLED),
        ("beta", "SKILL.md", OutcomeCode.NOT_LOADED),
        ("nope", "a.md", OutcomeCode.SKILL_NOT_FOUND),
        ("alpha", "references/\ud800.md", OutcomeCode.PATH_REJECTED),
        ("alpha", "references/notes.md", OutcomeCode.RESOURCE_READ),
    ],
)
def test_resource_access_is_decided_by_the_session(
    library: SkillLibrary, use_async: bool, skill: str, path: str, code: OutcomeCode
) -> None:
    toolkit = SkillToolkit(library)
    session = toolkit.call(library.session(), "load_skill", {"skill_name": "alpha"}).session
    args = {"skill_name": skill, "path": path}
    if use_async:
        result = anyio.run(toolkit.acall, session, "load_skill_resource", args)
    else:
        result = toolkit.call(session, "load_skill_resource", args)
    assert result.code is code, result.text
    assert "hidden notes" not in result.text


# -- the turn store ------------------------------------------------------------------------------


def test_two_conversations_with_the_same_turn_id_never_share(library: SkillLibrary) -> None:
    toolkit, store = SkillToolkit(library), TurnStore()
    fresh = library.session()
    for conversation in ("a", "b"):
        calls = TurnCalls(conversation, "1", ["c1"], ["c1"])
        with store.enter(calls, "c1", fresh) as view:
            result = toolkit.call(view, "load_skill", {"skill_name": "alpha"})
        assert result.ok and "Only read." in result.text, result.text


def test_turn_order_and_bounded_memory(library: SkillLibrary) -> None:
    """A plain call listed after a skill call waits for it, whichever thread starts first;
    finished turns are forgotten and unfinished ones are bounded."""
    toolkit, store = SkillToolkit(library), TurnStore(max_turns=3)
    base = restrict(library)
    calls = TurnCalls.of("conv", "t", [("1", "load_skill"), ("2", "Write")], toolkit.is_skill_tool)
    seen: dict[str, bool] = {}

    def plain() -> None:
        with store.enter(calls, "2", base) as view:
            seen["write"] = view.read().check_tool("Write").allowed

    t = threading.Thread(target=plain)
    t.start()  # the Write starts first and must wait for the load
    with store.enter(calls, "1", base) as view:
        assert toolkit.call(view, "load_skill", {"skill_name": "alpha"}).ok
    t.join()
    assert seen == {"write": False}
    assert len(store) == 0
    for i in range(10):  # turns whose calls never all arrive
        store.enter(TurnCalls("conv", f"x{i}", ["a", "b"], ["a"]), "a", base)
    assert len(store) == 3


def test_a_missing_earlier_call_times_out_instead_of_deadlocking(library: SkillLibrary) -> None:
    store = TurnStore(wait_seconds=0.01)
    calls = TurnCalls("conv", "t", ["never", "me"], ["never"])
    with store.enter(calls, "me", library.session()) as view:
        assert view.timed_out


def test_async_waits_do_not_block_the_event_loop(library: SkillLibrary) -> None:
    toolkit, store = SkillToolkit(library), TurnStore()
    base = restrict(library)
    calls = TurnCalls.of(
        "conv", "t", [("1", "load_skill"), ("2", "Write"), ("3", "Read")], toolkit.is_skill_tool
    )
    out: dict[str, bool] = {}

    async def plain(call_id: str, tool: str) -> None:
        async with store.enter(calls, call_id, base) as view:
            out[tool] = view.read().check_tool(tool).allowed

    async def skill() -> None:
        async with store.enter(calls, "1", base) as view:
            await toolkit.acall(view, "load_skill", {"skill_name": "alpha"})

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(plain, "2", "Write")
            tg.start_soon(plain, "3", "Read")
            tg.start_soon(skill)

    anyio.run(main)
    assert out == {"Write": False, "Read": True}
