"""Configured skills through InMemoryRunner: default skills at a session's start, pinned
skills on every turn, their instructions in the model request (also with
include_contents='none' and with state preloaded by hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.runners import InMemoryRunner

from skillcore.runtime import loaded_names_of
from skillcore_adk import SkillToolset

from .conftest import agent_with, response_of, run_turn, scripted

pytestmark = pytest.mark.anyio

BETA = "Instructions of beta-open."
ALPHA = "Instructions of alpha-tools."


async def _runner(model: Any, toolset: SkillToolset, **agent: Any) -> tuple[InMemoryRunner, str]:
    cb = toolset.before_tool_callback
    runner = InMemoryRunner(
        agent=agent_with(model, toolset, before_tool_callback=cb, **agent), app_name="app"
    )
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return runner, session.id


async def _loaded(runner: InMemoryRunner, sid: str, toolset: SkillToolset) -> list[str]:
    s = await runner.session_service.get_session(app_name="app", user_id="u", session_id=sid)
    assert s is not None
    return loaded_names_of(s.state.get(toolset.state_key("assistant")))


@pytest.mark.parametrize("include", ["default", "none"])
async def test_default_skill_in_first_request_then_unloaded(skills_dir: Path, include: str) -> None:
    toolset = SkillToolset(skills_dir, default_skills=["beta-open"])
    model = scripted("hello", [("unload_skill", {"skill_name": "beta-open"})], "done", "again")
    runner, sid = await _runner(model, toolset, include_contents=include)
    await run_turn(runner, sid)
    first = model.instructions(0)
    assert BETA in first and "[Loaded]" not in first, first  # stable prompt mode
    reply = response_of(await run_turn(runner, sid), "unload_skill")
    assert "error" not in reply, reply
    assert await _loaded(runner, sid, toolset) == []
    await run_turn(runner, sid)  # only at the start: not loaded again
    assert BETA not in model.instructions() and "[Loaded]" not in model.instructions()


@pytest.mark.parametrize("include", ["default", "none"])
async def test_pinned_skill_every_turn_and_unload_refused(skills_dir: Path, include: str) -> None:
    toolset = SkillToolset(
        skills_dir, pinned_skills=["alpha-tools"], allowed_tools_policy="restrict"
    )
    model = scripted(
        [("unload_skill", {"skill_name": "alpha-tools"}), ("Write", {})],
        "done",
        [("load_skill", {"skill_name": "beta-open"})],
        "done",
    )
    runner, sid = await _runner(model, toolset, include_contents=include)
    events = await run_turn(runner, sid)
    assert ALPHA in model.instructions(0)
    refused = response_of(events, "unload_skill")
    assert refused.get("error_code") == "PINNED" and "pinned" in refused["error"], refused
    assert response_of(events, "Write").get("error_code") == "TOOL_BLOCKED"
    await run_turn(runner, sid)
    assert await _loaded(runner, sid, toolset) == ["alpha-tools", "beta-open"]
    assert ALPHA in model.instructions()
    # State lost (reset to an empty session): the next turn loads the pinned skill again.
    session = await runner.session_service.get_session(app_name="app", user_id="u", session_id=sid)
    assert session is not None
    empty = {"schema": "skillcore.session/1", "loaded": []}
    reset = EventActions(state_delta={toolset.state_key("assistant"): empty})
    await runner.session_service.append_event(session, Event(author="user", actions=reset))
    assert await _loaded(runner, sid, toolset) == []
    model.add([("search_skills", {"query": "beta"})], "done")
    await run_turn(runner, sid)
    assert ALPHA in model.instructions()
    model.add([("load_skill", {"skill_name": "gamma-files"})], "done")
    await run_turn(runner, sid)
    assert await _loaded(runner, sid, toolset) == ["alpha-tools", "gamma-files"]


async def test_state_preloaded_by_hand_reaches_the_model(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)
    model = scripted("hello")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    key = toolset.state_key("assistant")
    state = {key: {"schema": "skillcore.session/1", "loaded": [{"name": "beta-open"}]}}
    session = await runner.session_service.create_session(app_name="app", user_id="u", state=state)
    await run_turn(runner, session.id)
    assert BETA in model.instructions(0), model.instructions(0)
