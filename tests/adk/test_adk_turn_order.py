"""Calls of one model response are decided in call order through the real ADK runner, with
RESTRICT enforced by the agent callback and by the app plugin (DESIGN §3.8), and a session
whose saved skill state is unreadable keeps working."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore.runtime import STATE_SCHEMA, loaded_names_of
from skillcore_adk import SkillPolicyPlugin, SkillToolset

from .conftest import agent_with, run_turn, scripted

pytestmark = pytest.mark.anyio

KEY = "skillcore:assistant"


async def turns(skills_dir: Path, enforcement: str, *steps: Any, state: Any = None):
    """Run one user message whose model turns are ``steps``; returns the function responses
    per step and the persisted state."""
    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict")
    model = scripted(*steps, "done")
    if enforcement == "callback":
        agent = agent_with(model, toolset, before_tool_callback=toolset.before_tool_callback)
        runner = InMemoryRunner(agent=agent, app_name="app")
    else:
        agent = agent_with(model, toolset)
        app = App(name="app", root_agent=agent, plugins=[SkillPolicyPlugin()])
        runner = InMemoryRunner(app=app)
    initial = {KEY: state} if state is not None else None
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state=initial
    )
    events = await run_turn(runner, session.id)
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    per_step = [
        {r.name: r.response for r in e.get_function_responses()}
        for e in events
        if e.get_function_responses()
    ]
    return per_step, dict(session.state)


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
async def test_write_after_a_restricting_load_in_the_same_response_is_blocked(
    skills_dir: Path, enforcement: str
) -> None:
    steps, state = await turns(
        skills_dir, enforcement, [("load_skill", {"skill_name": "alpha-tools"}), ("Write", {})]
    )
    (replies,) = steps
    assert "result" in replies["load_skill"]
    assert replies["Write"].get("error_code") == "TOOL_BLOCKED", replies["Write"]
    assert loaded_names_of(state[KEY]) == ["alpha-tools"]


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
async def test_write_after_the_unload_in_the_same_response_runs(
    skills_dir: Path, enforcement: str
) -> None:
    steps, _ = await turns(
        skills_dir,
        enforcement,
        [("load_skill", {"skill_name": "alpha-tools"})],
        [("unload_skill", {"skill_name": "alpha-tools"}), ("Write", {})],
    )
    assert "error" not in steps[1]["Write"], steps[1]["Write"]


@pytest.mark.parametrize(
    "bad",
    [
        {
            "schema": STATE_SCHEMA,
            "loaded": [{"name": "alpha-tools", "resources": [["a", "reference", float("inf")]]}],
        },
        {"schema": STATE_SCHEMA, "loaded": [{"name": "alpha-tools", "allowed_tools": ["*"]}]},
        "garbage",
    ],
    ids=["infinity", "widened", "garbage"],
)
async def test_unreadable_or_tampered_state_never_breaks_a_turn(skills_dir: Path, bad: Any) -> None:
    steps, state = await turns(
        skills_dir,
        "callback",
        [("Write", {}), ("load_skill", {"skill_name": "beta-open"})],
        state=bad,
    )
    (replies,) = steps
    assert "result" in replies["load_skill"]
    if isinstance(bad, dict) and "allowed_tools" in str(bad):
        # Restored from the catalog: alpha-tools still allows only Read.
        assert replies["Write"].get("error_code") == "TOOL_BLOCKED"
    assert "beta-open" in loaded_names_of(state[KEY])
