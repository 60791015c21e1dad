"""Under RESTRICT a loaded skill without allowed-tools adds nothing and lifts nothing, by
default (DESIGN §3.5), through the real ADK runner; the lenient reading is an opt-in."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.runners import InMemoryRunner

from skillcore_adk import SkillToolset

from .conftest import agent_with, run_turn, scripted

pytestmark = pytest.mark.anyio


async def write_replies(skills_dir: Path, **knobs: str) -> list[dict]:
    """alpha-tools loaded, then beta-open with a Write, then alpha-tools unloaded with a
    Write: the two Write replies."""
    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict", **knobs)
    model = scripted(
        [("load_skill", {"skill_name": "alpha-tools"})],
        [("load_skill", {"skill_name": "beta-open"}), ("Write", {})],
        [("unload_skill", {"skill_name": "alpha-tools"}), ("Write", {})],
        "done",
    )
    agent = agent_with(model, toolset, before_tool_callback=toolset.before_tool_callback)
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    return [
        r.response or {} for e in events for r in e.get_function_responses() if r.name == "Write"
    ]


async def test_loading_an_unrestricted_skill_lifts_nothing_by_default(skills_dir: Path) -> None:
    beside, alone = await write_replies(skills_dir)
    assert beside.get("error_code") == "TOOL_BLOCKED", beside
    assert "error" not in alone, alone  # no loaded skill declares allowed-tools


async def test_the_lenient_reading_is_an_explicit_opt_in(skills_dir: Path) -> None:
    beside, _ = await write_replies(skills_dir, unrestricted_skills="lift")
    assert "error" not in beside, beside
