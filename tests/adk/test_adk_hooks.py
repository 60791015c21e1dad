"""Skill hooks through the real ADK runner (InMemoryRunner, scripted BaseLlm), with the
agent's callbacks and with the plugin: a PreToolUse hook exiting 2 blocks the call with its
stderr; hooks of unloaded skills and untrusted sources do not run; a hook cannot allow what
RESTRICT blocks; ``once`` fires once; hook text reaches the next model call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner
from tests.core.hooks.fixtures import hook_skills

from skillcore import SkillSource
from skillcore.runner import Isolation
from skillcore.testing.script_runner import RecordingRunner
from skillcore_adk import SkillPolicyPlugin, SkillToolset

from .conftest import agent_with, run_turn, scripted

pytestmark = pytest.mark.anyio


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return hook_skills(tmp_path / "skills")


async def run_agent(
    source: Any, steps: list[Any], *, plugin: bool = False, **knobs: Any
) -> tuple[list[dict[str, Any]], Any]:
    """One user turn; the replies (name, response) and the model (its requests)."""
    toolset = SkillToolset(source, **knobs)
    model = scripted(*steps, "done")
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
            after_tool_callback=toolset.after_tool_callback,
            before_agent_callback=toolset.before_agent_callback,
        )
        runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    replies = [
        {"name": r.name, **(r.response or {})} for e in events for r in e.get_function_responses()
    ]
    return replies, model


def reply(replies: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(r for r in replies if r["name"] == name)


@pytest.mark.parametrize("plugin", [False, True], ids=["callbacks", "plugin"])
async def test_exit_2_blocks_and_text_reaches_the_model(root: Path, plugin: bool) -> None:
    replies, model = await run_agent(
        root,
        [[("load_skill", {"skill_name": "guard"})], [("Write", {}), ("Read", {})]],
        plugin=plugin,
        script_runner=RecordingRunner(Isolation.LIMITS),
    )
    write = reply(replies, "Write")
    assert write.get("error_code") == "HOOK_BLOCKED" and "writes are frozen" in write["error"]
    assert "error" not in reply(replies, "Read")
    instructions = [str(r.config.system_instruction) for r in model.requests]
    assert any("REMEMBER-THE-READ" in i for i in instructions[2:])


async def test_unloaded_skill_hooks_do_not_fire(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    replies, _ = await run_agent(
        root, [[("load_skill", {"skill_name": "watch"})], [("Write", {})]], script_runner=runner
    )
    assert "error" not in reply(replies, "Write") and runner.requests == []


async def test_a_hook_cannot_allow_what_restrict_blocks(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    replies, _ = await run_agent(
        root,
        [[("load_skill", {"skill_name": "opener"})], [("Write", {})]],
        script_runner=runner,
        allowed_tools_policy="restrict",
    )
    assert reply(replies, "Write").get("error_code") == "TOOL_BLOCKED" and runner.requests == []


async def test_once_fires_once(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    await run_agent(
        root,
        [[("load_skill", {"skill_name": "watch"})], [("Read", {})], [("Read", {})]],
        script_runner=runner,
    )
    assert len(runner.requests) == 1


async def test_an_untrusted_source_runs_no_hook(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    replies, _ = await run_agent(
        SkillSource(root, trusted=False),
        [[("load_skill", {"skill_name": "guard"})], [("Write", {})]],
        script_runner=runner,
    )
    assert "error" not in reply(replies, "Write") and runner.requests == []


@pytest.mark.parametrize("plugin", [False, True], ids=["callbacks", "plugin"])
async def test_session_start_output_reaches_the_next_run(root: Path, plugin: bool) -> None:
    toolset = SkillToolset(root, script_runner=RecordingRunner(Isolation.LIMITS))
    model = scripted([("load_skill", {"skill_name": "guard"})], "done", "done")
    if plugin:
        agent = agent_with(model, toolset)
        runner = InMemoryRunner(
            app=App(name="app", root_agent=agent, plugins=[SkillPolicyPlugin()])
        )
    else:
        agent = agent_with(model, toolset, before_agent_callback=toolset.before_agent_callback)
        runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    await run_turn(runner, session.id)
    assert not any("SESSION-CONTEXT" in str(r.config.system_instruction) for r in model.requests)
    await run_turn(runner, session.id)  # guard is loaded when this run starts
    assert "SESSION-CONTEXT" in str(model.requests[-1].config.system_instruction)
