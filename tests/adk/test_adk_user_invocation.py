"""User invocation through InMemoryRunner, written from Claude Code's published skills
documentation: ``/name args`` loads the skill with its arguments (user-only skills included),
``user-invocable: false`` is answered without the model, ADK's ``adk_inject_state`` fills
``{var}`` from session state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore.runtime import loaded_names_of
from skillcore_adk import SkillPolicyPlugin, SkillToolset

from .conftest import agent_with, make_skill, run_turn, scripted

pytestmark = pytest.mark.anyio


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(
        root,
        "deploy",
        "Deploy the application.",
        "Deploy $0 to $1 now. Session ${CLAUDE_SESSION_ID}.",
        "disable-model-invocation: true\nallowed-tools: Read\n",
    )
    make_skill(root, "legacy", "Legacy knowledge.", "Legacy notes.", "user-invocable: false\n")
    make_skill(
        root,
        "greet",
        "Greet the user.",
        "Greet {user_name} about $ARGUMENTS. Unknown: {missing} / {missing?}.",
        "metadata:\n  adk_inject_state: true\n",
    )
    return root


async def _runner(
    model: Any, toolset: SkillToolset, plugin: bool, state: dict[str, Any] | None = None
) -> tuple[InMemoryRunner, str]:
    if plugin:
        agent = agent_with(model, toolset)
        runner = InMemoryRunner(
            app=App(name="app", root_agent=agent, plugins=[SkillPolicyPlugin()])
        )
    else:
        agent = agent_with(
            model,
            toolset,
            before_tool_callback=toolset.before_tool_callback,
            before_agent_callback=toolset.before_agent_callback,
        )
        runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state=state or {}
    )
    return runner, session.id


def _texts(request: Any) -> list[str]:
    out = []
    for content in request.contents:
        for part in content.parts or ():
            if part.text:
                out.append(part.text)
            if part.function_response is not None:
                out.append(str((part.function_response.response or {}).get("result")))
    return out


@pytest.mark.parametrize("plugin", [False, True], ids=["callback", "plugin"])
async def test_slash_invocation_loads_a_user_only_skill(library: Path, plugin: bool) -> None:
    toolset = SkillToolset(library, allowed_tools_policy="restrict", user_invocation=True)
    model = scripted([("Write", {})], "deployed")
    runner, sid = await _runner(model, toolset, plugin)
    events = await run_turn(runner, sid, "/deploy web staging")
    request = model.requests[0]
    texts = _texts(request)
    assert texts[0] == "/deploy web staging"
    assert any(f"Deploy web to staging now. Session {sid}." in t for t in texts), texts
    assert "deploy" not in model.instructions(0), "still hidden from the model's catalog"
    write = [r for e in events for r in e.get_function_responses() if r.name == "Write"]
    assert write and "error" in (write[0].response or {}), "its allowed-tools restrict"
    s = await runner.session_service.get_session(app_name="app", user_id="u", session_id=sid)
    assert s is not None
    assert loaded_names_of(s.state.get(toolset.state_key("assistant"))) == ["deploy"]
    # The next turn's request still holds the delivery: no repeat in the instructions.
    await run_turn(runner, sid, "thanks")
    assert "Deploy web" not in model.instructions()


@pytest.mark.parametrize("plugin", [False, True], ids=["callback", "plugin"])
async def test_not_user_invocable_is_answered_without_the_model(
    library: Path, plugin: bool
) -> None:
    toolset = SkillToolset(library, user_invocation=True)
    model = scripted()
    runner, sid = await _runner(model, toolset, plugin)
    events = await run_turn(runner, sid, "/legacy")
    assert model.requests == []
    said = [p.text for e in events if e.content for p in e.content.parts or () if p.text]
    assert any("cannot be invoked by the user" in t for t in said), said


async def test_inject_state_fills_session_state(library: Path) -> None:
    toolset = SkillToolset(library, user_invocation=True)
    model = scripted()
    runner, sid = await _runner(model, toolset, False, state={"user_name": "Ada"})
    await run_turn(runner, sid, "/greet the release")
    texts = _texts(model.requests[0])
    assert any("Greet Ada about the release. Unknown: {missing} / ." in t for t in texts), texts


async def test_off_by_default(library: Path) -> None:
    toolset = SkillToolset(library)
    model = scripted()
    runner, sid = await _runner(model, toolset, False)
    await run_turn(runner, sid, "/deploy web staging")
    assert _texts(model.requests[0]) == ["/deploy web staging"]


async def test_inject_state_on_the_models_own_load(library: Path) -> None:
    """As ADK's own toolset: a model's load of a skill with adk_inject_state fills {var}."""
    toolset = SkillToolset(library)
    model = scripted([("load_skill", {"skill_name": "greet"})], "done")
    runner, sid = await _runner(model, toolset, False, state={"user_name": "Ada"})
    events = await run_turn(runner, sid, "hello")
    (reply,) = [r for e in events for r in e.get_function_responses() if r.name == "load_skill"]
    text = str((reply.response or {}).get("result"))
    assert "Greet Ada about $ARGUMENTS. Unknown: {missing} / ." in text, text
