"""SkillToolset through the real ADK runtime: catalog, tools, state, restarts, sub-agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner, Runner

from skillcore import SkillLibrary
from skillcore.runtime import loaded_names_of
from skillcore_adk import SkillTool, SkillToolset

from .conftest import (
    agent_with,
    make_skill,
    response_of,
    responses,
    run_turn,
    scripted,
)

pytestmark = pytest.mark.anyio


async def new_session(runner: Runner, app: str = "app") -> str:
    session = await runner.session_service.create_session(app_name=app, user_id="u")
    return session.id


async def state_of(runner: Runner, session_id: str, app: str = "app") -> dict:
    session = await runner.session_service.get_session(
        app_name=app, user_id="u", session_id=session_id
    )
    assert session is not None
    return dict(session.state)


@pytest.mark.parametrize("mode", ["stable", "dynamic"])
async def test_catalog_and_marks_before_every_model_call(skills_dir: Path, mode: str) -> None:
    toolset = SkillToolset(skills_dir, prompt_mode=mode)
    model = scripted([("load_skill", {"skill_name": "beta-open"})], "done")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    sid = await new_session(runner)
    await run_turn(runner, sid)

    first, second = model.instructions(0), model.instructions(1)
    assert "You are helpful." in first  # the agent's own instruction is kept
    for name in ("alpha-tools", "beta-open", "gamma-files"):
        assert f"**{name}**" in first
    assert "[Loaded]" not in first
    if mode == "dynamic":
        assert "**beta-open** [Loaded]" in second
    else:  # the load changes nothing before the reply: prompt caches keep the history
        assert second == first
    assert first.count("## Skills") == 1 and second.count("## Skills") == 1

    decl = model.declaration("load_skill")
    schema = decl.parameters_json_schema
    assert schema["properties"]["skill_name"]["enum"] == ["alpha-tools", "beta-open", "gamma-files"]
    search = model.declaration("search_skills").parameters_json_schema
    assert search["required"] == [] and search["properties"]["query"]["type"] == "string"
    assert model.tool_names()[:4] == [
        "load_skill",
        "unload_skill",
        "load_skill_resource",
        "search_skills",
    ]


async def test_no_skills_no_catalog_no_tools(tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    hidden = tmp_path / "hidden"
    make_skill(hidden, "secret", "Only users invoke it.", extra="disable-model-invocation: true\n")
    for root in (empty, hidden):
        model = scripted("hello")
        runner = InMemoryRunner(agent=agent_with(model, SkillToolset(root)), app_name="app")
        await run_turn(runner, await new_session(runner))
        assert "Skills" not in model.instructions()
        assert model.tool_names() == ["Read", "Write"]


async def test_state_is_json_per_agent_and_small(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for i in range(300):
        make_skill(root, f"skill-{i:03d}", f"Skill number {i} does task {i}.")
    # Dynamic: a loaded skill is shown even when the budget leaves it out of the catalog.
    toolset = SkillToolset(root, max_description_budget=2_000, prompt_mode="dynamic")
    model = scripted([("load_skill", {"skill_name": "skill-299"})], "done")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    sid = await new_session(runner)
    await run_turn(runner, sid)
    state = await state_of(runner, sid)
    assert set(state) == {"skillcore:assistant"}
    value = state["skillcore:assistant"]
    assert json.loads(json.dumps(value)) == value  # JSON-native
    assert loaded_names_of(value) == ["skill-299"]
    assert len(json.dumps(value)) < 300  # the catalog is not stored
    # The budget left most skills out; the model is pointed at search.
    text = model.instructions(1)
    assert "**skill-299** [Loaded]" in text
    assert "more skills are not shown here; call search_skills" in text
    assert len(text) < 4_000


async def test_search_finds_skills_the_budget_left_out(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    for i in range(50):
        make_skill(root, f"filler-{i:02d}", f"Filler skill {i} about nothing in particular.")
    make_skill(root, "zz-invoices", "Extracts totals from invoices.", extra="triggers: [invoice]\n")
    make_skill(root, "zz-sheets", "Cleans tables.", extra="file_patterns: ['*.xlsx']\n")
    toolset = SkillToolset(root, max_description_budget=500)
    model = scripted(
        [("search_skills", {"query": "invoice totals"})],
        [("search_skills", {"path": "reports/q3.xlsx", "query": None})],
        "done",
    )
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    events = await run_turn(runner, await new_session(runner))
    assert "zz-invoices" not in model.instructions(0)
    by_query, by_path = (r.response["result"] for r in responses(events))
    assert by_query.splitlines()[1].startswith("- zz-invoices:")
    assert by_path.splitlines()[1].startswith("- zz-sheets:")
    assert "zz-invoices" not in by_path


@pytest.mark.parametrize("service", ["database", "sqlite"])
async def test_state_survives_a_restart_with_a_sqlite_session_service(
    skills_dir: Path, tmp_path: Path, service: str
) -> None:
    db = tmp_path / "sessions.db"

    def make_service():
        if service == "database":
            from google.adk.sessions import DatabaseSessionService

            return DatabaseSessionService(f"sqlite+aiosqlite:///{db}")
        from google.adk.sessions.sqlite_session_service import SqliteSessionService

        return SqliteSessionService(str(db))

    # First process: load two skills (in parallel), then the runner goes away.
    model1 = scripted(
        [
            ("load_skill", {"skill_name": "beta-open"}),
            ("load_skill", {"skill_name": "gamma-files"}),
        ],
        "done",
    )
    runner1 = Runner(
        agent=agent_with(model1, SkillToolset(skills_dir)),
        app_name="app",
        session_service=make_service(),
    )
    sid = await new_session(runner1)
    await run_turn(runner1, sid)
    await runner1.close()

    # Second process: a new toolset, agent, service and runner on the same database file.
    toolset2 = SkillToolset(SkillLibrary([skills_dir]), prompt_mode="dynamic")  # marks state
    model2 = scripted(
        [("load_skill", {"skill_name": "beta-open"})],
        [("unload_skill", {"skill_name": "gamma-files"})],
        "done",
    )
    runner2 = Runner(
        agent=agent_with(model2, toolset2), app_name="app", session_service=make_service()
    )
    events = await run_turn(runner2, sid)
    assert "**beta-open** [Loaded]" in model2.instructions(0)
    assert "**gamma-files** [Loaded]" in model2.instructions(0)
    assert response_of(events, "load_skill")["error_code"] == "ALREADY_LOADED"
    assert "result" in response_of(events, "unload_skill")
    assert "**gamma-files** [Loaded]" not in model2.instructions(2)
    state = await state_of(runner2, sid)
    assert loaded_names_of(state["skillcore:assistant"]) == ["beta-open"]
    await runner2.close()


async def test_sub_agents_keep_separate_loaded_sets(skills_dir: Path) -> None:
    # One toolset shared by both agents; the dynamic marks show each agent's own state.
    toolset = SkillToolset(skills_dir, prompt_mode="dynamic")
    model = scripted(
        [("load_skill", {"skill_name": "alpha-tools"})],
        [("transfer_to_agent", {"agent_name": "helper"})],
        # now the sub-agent runs
        [("load_skill", {"skill_name": "beta-open"})],
        "helper done",
    )
    helper = agent_with(model, toolset, name="helper", description="Helps.")
    root = agent_with(model, toolset, name="boss", sub_agents=[helper])
    runner = InMemoryRunner(agent=root, app_name="app")
    sid = await new_session(runner)
    events = await run_turn(runner, sid)
    assert {e.author for e in events} >= {"boss", "helper"}
    state = await state_of(runner, sid)
    assert loaded_names_of(state["skillcore:boss"]) == ["alpha-tools"]
    assert loaded_names_of(state["skillcore:helper"]) == ["beta-open"]
    helper_view = model.instructions(-1)
    assert "**beta-open** [Loaded]" in helper_view
    assert "**alpha-tools** [Loaded]" not in helper_view


async def test_restrict_callback_per_agent_and_agent_transfer(skills_dir: Path) -> None:
    """RESTRICT applies to the agent whose skills restrict; transfer stays possible."""
    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict")
    model = scripted(
        [("load_skill", {"skill_name": "alpha-tools"})],
        [("Write", {})],
        [("transfer_to_agent", {"agent_name": "helper"})],
        [("Write", {})],  # the helper has loaded nothing, so Write is allowed there
        "done",
    )
    cb = toolset.before_tool_callback
    helper = agent_with(
        model, toolset, name="helper", description="Helps.", before_tool_callback=cb
    )
    root = agent_with(model, toolset, name="boss", sub_agents=[helper], before_tool_callback=cb)
    runner = InMemoryRunner(agent=root, app_name="app")
    events = await run_turn(runner, await new_session(runner))
    writes = [r.response for r in responses(events) if r.name == "Write"]
    assert writes[0]["error_code"] == "TOOL_BLOCKED"
    assert writes[1] == {"result": "ok"}
    assert "error" not in response_of(events, "transfer_to_agent")


async def test_restrict_can_block_agent_transfer(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict", allow_agent_transfer=False)
    model = scripted(
        [("load_skill", {"skill_name": "alpha-tools"})],
        [("transfer_to_agent", {"agent_name": "helper"})],
        "done",
    )
    helper = LlmAgent(name="helper", model=model, description="Helps.")
    root = agent_with(
        model,
        toolset,
        name="boss",
        sub_agents=[helper],
        before_tool_callback=toolset.before_tool_callback,
    )
    runner = InMemoryRunner(agent=root, app_name="app")
    events = await run_turn(runner, await new_session(runner))
    assert response_of(events, "transfer_to_agent")["error_code"] == "TOOL_BLOCKED"
    assert {e.author for e in events} == {"boss"}  # no transfer happened


async def test_recommend_never_blocks(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)  # RECOMMEND is the default
    model = scripted([("load_skill", {"skill_name": "alpha-tools"})], [("Write", {})], "done")
    agent = agent_with(model, toolset, before_tool_callback=toolset.before_tool_callback)
    runner = InMemoryRunner(agent=agent, app_name="app")
    events = await run_turn(runner, await new_session(runner))
    assert response_of(events, "Write") == {"result": "ok"}
    # ...but the model is told what the skill allows.
    reply = response_of(events, "load_skill")["result"]
    assert "Allowed tools while this skill is loaded: Read" in reply


async def test_refresh_shows_new_skills_next_turn(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)
    model = scripted("first", [("load_skill", {"skill_name": "delta-new"})], "done")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    sid = await new_session(runner)
    await run_turn(runner, sid)
    assert "delta-new" not in model.instructions(0)
    make_skill(skills_dir, "delta-new", "Added while the agent runs.")
    events = await run_turn(runner, sid)
    assert "**delta-new**" in model.instructions(1)
    assert "result" in response_of(events, "load_skill")
    decl = model.declaration("load_skill", 1).parameters_json_schema
    assert "delta-new" in decl["properties"]["skill_name"]["enum"]


async def test_tool_name_prefix_and_filter(skills_dir: Path) -> None:
    toolset = SkillToolset(
        skills_dir, tool_name_prefix="sc_", tool_filter=["sc_load_skill", "sc_search_skills"]
    )
    model = scripted([("sc_load_skill", {"skill_name": "beta-open"})], "done")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    events = await run_turn(runner, await new_session(runner))
    assert "result" in response_of(events, "sc_load_skill")
    assert model.tool_names() == ["sc_load_skill", "sc_search_skills", "Read", "Write"]
    assert "call sc_load_skill with its name" in model.instructions()
    assert all(isinstance(t, SkillTool) for t in await toolset.get_tools())


class _Ctx:
    """The part of a ReadonlyContext that get_tools reads."""

    def __init__(self, invocation_id: str) -> None:
        self.invocation_id = invocation_id


async def test_one_scan_per_invocation_even_with_concurrent_callers(skills_dir: Path) -> None:
    import asyncio

    library = SkillLibrary([skills_dir])
    scans = []
    real = library.arefresh

    async def counting_refresh():
        scans.append(1)
        return await real()

    library.arefresh = counting_refresh  # type: ignore[method-assign]
    toolset = SkillToolset(library)
    results = await asyncio.gather(*(toolset.get_tools(_Ctx("inv-1")) for _ in range(5)))
    assert all(len(tools) == 4 for tools in results)
    assert len(scans) == 1
    await toolset.get_tools(_Ctx("inv-1"))
    assert len(scans) == 1
    await toolset.get_tools(_Ctx("inv-2"))  # a new turn re-scans
    assert len(scans) == 2
    never = SkillToolset(library, refresh=False)
    await never.get_tools(_Ctx("a"))
    await never.get_tools(_Ctx("b"))
    assert len(scans) == 3


async def test_xml_catalog_without_resource_tool_and_context_helpers(skills_dir: Path) -> None:
    toolset = SkillToolset(
        skills_dir, catalog_format="xml", include_resource_tool=False, prompt_mode="dynamic"
    )
    seen: list[tuple[list[str], bool]] = []

    def after_model(callback_context, llm_response):
        # The public helpers work on any ADK context (here a callback's).
        seen.append(
            (
                toolset.loaded_skills(callback_context),
                bool(toolset.check_tool("Write", callback_context)),
            )
        )

    model = scripted([("load_skill", {"skill_name": "gamma-files"})], "done")
    agent = agent_with(model, toolset, after_model_callback=after_model)
    runner = InMemoryRunner(agent=agent, app_name="app")
    events = await run_turn(runner, await new_session(runner))
    assert model.tool_names()[:3] == ["load_skill", "unload_skill", "search_skills"]
    assert "load_skill_resource" not in model.tool_names()
    reply = response_of(events, "load_skill")["result"]
    assert "(paths are relative to the skill directory)" in reply
    assert "<name>gamma-files</name>\n<description>" in model.instructions(1)
    assert "<loaded>true</loaded>" in model.instructions(1)
    assert seen == [([], True), (["gamma-files"], True)]  # RECOMMEND: Write stays allowed


def test_refresh_interval_throttles_scans(tmp_path, monkeypatch) -> None:
    """``refresh=<seconds>`` means the same as in the LangChain adapter: at most that often."""
    import asyncio

    from skillcore import SkillLibrary
    from skillcore.state import refresh as refresh_rules
    from skillcore_adk import SkillToolset

    # A scan slowed by a loaded machine (or a first import) must not space out the next
    # one here: this test is about the interval, tests/core/library/test_refresh_pacing.py
    # about the pacing.
    monkeypatch.setattr(refresh_rules, "REFRESH_COST_FLOOR", float("inf"))

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("---\nname: a\ndescription: A.\n---\nbody\n")
    library = SkillLibrary([tmp_path])
    scans = 0
    original = library.arefresh

    async def counting():
        nonlocal scans
        scans += 1
        return await original()

    library.arefresh = counting  # type: ignore[method-assign]

    async def run(toolset) -> None:
        for invocation in ("i1", "i2", "i3"):
            await toolset._ensure_catalog(invocation)

    asyncio.run(run(SkillToolset(library, refresh=3600)))
    assert scans == 1  # the first discovery only: later invocations are inside the interval
    scans = 0
    asyncio.run(run(SkillToolset(library, refresh=True)))
    assert scans == 3  # once per invocation
    scans = 0
    asyncio.run(run(SkillToolset(library, refresh=False)))
    assert scans == 1
