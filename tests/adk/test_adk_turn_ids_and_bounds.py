"""A turn is decided by call position, whatever its ids and length, through the real ADK
runner (DESIGN §3.8, §3.13): a plain call sharing its id with a restricting ``load_skill``
listed before it, or listed past the per-turn bound, never runs on the turn's starting
state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore.state.listed_calls import MAX_TURN_CALLS
from skillcore_adk import SkillPolicyPlugin, SkillToolset

from .conftest import agent_with, responses, run_turn, scripted

pytestmark = pytest.mark.anyio

LOAD = ("load_skill", {"skill_name": "alpha-tools"})


async def replies(skills_dir: Path, enforcement: str, step: Any) -> list[tuple[str, Any]]:
    """Run one model response ``step``; its function responses as (name, response)."""
    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict")
    model = scripted(step, "done")
    if enforcement == "callback":
        agent = agent_with(model, toolset, before_tool_callback=toolset.before_tool_callback)
        runner = InMemoryRunner(agent=agent, app_name="app")
    else:
        app = App(name="app", root_agent=agent_with(model, toolset), plugins=[SkillPolicyPlugin()])
        runner = InMemoryRunner(app=app)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    return [(r.name, r.response or {}) for r in responses(events)]


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
async def test_a_repeated_call_id_never_lets_write_run(skills_dir: Path, enforcement: str) -> None:
    got = await replies(skills_dir, enforcement, [(*LOAD, "x"), ("Write", {}, "x")])
    writes = [r for n, r in got if n == "Write"]
    assert writes and all("error" in r for r in writes), got
    assert all(r.get("error_code") == "TURN_CALL_IDS_REPEAT" for _, r in got), got


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
async def test_a_call_past_the_turn_bound_fails_closed(skills_dir: Path, enforcement: str) -> None:
    step = [(*LOAD, "c0"), *[("Read", {}, f"c{i}") for i in range(1, MAX_TURN_CALLS)]]
    got = await replies(skills_dir, enforcement, [*step, ("Write", {}, "last")])
    (write,) = [r for n, r in got if n == "Write"]
    assert write.get("error_code") == "TURN_TOO_LONG", write
    assert "result" in got[0][1] and all("error" not in r for _, r in got[1:-1])
