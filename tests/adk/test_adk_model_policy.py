"""A skill's ``model``, ``disallowed-tools`` and ``paths``, and the APPROVE mode (ADK tool
confirmation), through ADK's ``InMemoryRunner`` with a scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.runners import InMemoryRunner
from google.genai import types

from skillcore_adk import SkillToolset

from .conftest import agent_with, make_skill, responses, run_turn, scripted

pytestmark = pytest.mark.anyio

CONFIRM = "adk_request_confirmation"


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(root, "quick", "Quick chores.", extra="model: gemini-flash\n")
    make_skill(root, "deep", "Deep work.", extra="model: opus\nallowed-tools: Read\n")
    make_skill(root, "readonly", "Read only.", extra="disallowed-tools: Write\n")
    make_skill(root, "ts-helper", "TypeScript help.", extra="paths: ['src/**/*.ts']\n")
    return root


async def start(model: Any, toolset: SkillToolset) -> tuple[InMemoryRunner, str]:
    agent = agent_with(
        model,
        toolset,
        before_tool_callback=toolset.before_tool_callback,
        before_model_callback=toolset.before_model_callback,
    )
    app = InMemoryRunner(agent=agent, app_name="app")
    session = await app.session_service.create_session(app_name="app", user_id="u")
    return app, session.id


def replies_of(events: list[Any], tool: str) -> list[dict[str, Any]]:
    return [r.response or {} for r in responses(events) if r.name == tool]


async def test_the_request_names_the_loaded_skills_model_until_unload(skills: Path) -> None:
    model = scripted(
        [("load_skill", {"skill_name": "quick"})],
        [("load_skill", {"skill_name": "deep"})],
        [("unload_skill", {"skill_name": "deep"})],
        [("unload_skill", {"skill_name": "quick"})],
        "done",
    )
    toolset = SkillToolset(skills, model_resolver={"gemini-flash": "gemini-2.5-flash"})
    app, sid = await start(model, toolset)
    with pytest.warns(UserWarning, match="'deep' asks for model 'opus'"):
        await run_turn(app, sid)
    # deep's model is unknown: the one before it (quick's) stays while deep is loaded
    assert [r.model for r in model.requests] == [
        "scripted",
        "gemini-2.5-flash",
        "gemini-2.5-flash",
        "gemini-2.5-flash",
        "scripted",
    ]


@pytest.mark.parametrize("mode", ["recommend", "restrict", "approve"])
async def test_disallowed_tools_are_not_declared_and_refused(skills: Path, mode: str) -> None:
    model = scripted(
        [("load_skill", {"skill_name": "readonly"}), ("Write", {})], [("Write", {})], "done"
    )
    app, sid = await start(model, SkillToolset(skills, allowed_tools_policy=mode))
    events = await run_turn(app, sid)
    refused = replies_of(events, "Write")
    assert [r.get("error_code") for r in refused] == ["TOOL_DISALLOWED"] * 2, refused
    assert "Write" in model.tool_names(0) and "Write" not in model.tool_names(1)


@pytest.mark.parametrize("confirmed", [True, False])
async def test_approve_asks_through_tool_confirmation(skills: Path, confirmed: bool) -> None:
    model = scripted(
        [("load_skill", {"skill_name": "deep"})], [("Read", {}), ("Write", {})], "done", "done"
    )
    app, sid = await start(model, SkillToolset(skills, allowed_tools_policy="approve"))
    events = await run_turn(app, sid)
    assert "error" not in replies_of(events, "Read")[0], "Read is pre-approved"
    asks = [
        p.function_call
        for e in events
        for p in (e.content.parts if e.content and e.content.parts else [])
        if p.function_call and p.function_call.name == CONFIRM
    ]
    assert len(asks) == 1 and asks[0].args["originalFunctionCall"]["name"] == "Write"
    answer = types.FunctionResponse(id=asks[0].id, name=CONFIRM, response={"confirmed": confirmed})
    message = types.Content(role="user", parts=[types.Part(function_response=answer)])
    resumed = [e async for e in app.run_async(user_id="u", session_id=sid, new_message=message)]
    (reply,) = replies_of(resumed, "Write")
    if confirmed:
        assert "error" not in reply, reply
    else:
        assert reply.get("error_code") == "TOOL_DECLINED", reply


async def test_a_paths_skill_is_offered_for_touched_files_only(skills: Path) -> None:
    model = scripted([("load_skill", {"skill_name": "ts-helper"})], "done")
    toolset = SkillToolset(skills)
    app, sid = await start(model, toolset)
    events = await run_turn(app, sid)
    assert replies_of(events, "load_skill")[0].get("error_code") == "PATHS_NOT_TOUCHED"
    assert "ts-helper" not in model.instructions(0)
    toolset.touch_paths(["src/index.ts"])
    model.add([("load_skill", {"skill_name": "ts-helper"})], "done")
    events = await run_turn(app, sid)
    assert "error" not in replies_of(events, "load_skill")[0]
    assert "ts-helper" in model.instructions(-2)


@pytest.mark.parametrize("confirmed", [True, False])
async def test_approve_asks_before_a_script_run_its_skill_does_not_pre_approve(
    tmp_path: Path, confirmed: bool
) -> None:
    import shutil

    from skillcore.testing.script_runner import RecordingRunner

    examples = tmp_path / "examples"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "skills", examples)
    run = {"skill_name": "csv-data-audit", "script": "scripts/profile_csv.py", "args": ["-"]}
    runner = RecordingRunner()
    toolset = SkillToolset(
        examples, script_runner=runner, script_isolation="process", allowed_tools_policy="approve"
    )
    model = scripted(
        [("load_skill", {"skill_name": "csv-data-audit"})], [("run_skill_script", run)], "done"
    )
    app, sid = await start(model, toolset)
    events = await run_turn(app, sid)
    asks = [
        p.function_call
        for e in events
        for p in (e.content.parts if e.content and e.content.parts else [])
        if p.function_call and p.function_call.name == CONFIRM
    ]
    assert len(asks) == 1 and runner.requests == []
    answer = types.FunctionResponse(id=asks[0].id, name=CONFIRM, response={"confirmed": confirmed})
    message = types.Content(role="user", parts=[types.Part(function_response=answer)])
    resumed = [e async for e in app.run_async(user_id="u", session_id=sid, new_message=message)]
    (reply,) = replies_of(resumed, "run_skill_script")
    assert len(runner.requests) == (1 if confirmed else 0), reply
    assert ("error" in reply) is not confirmed, reply
