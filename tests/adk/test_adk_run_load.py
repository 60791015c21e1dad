"""A run's request to load skills through InMemoryRunner: ``state_delta`` with the toolset's
``load_key`` on any turn; the body reaches that turn's model request; the next skill tool
call saves the session and clears the request; bad values are ignored with a warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.runners import InMemoryRunner

from skillcore.runtime import loaded_names_of
from skillcore.testing import EventRecorder
from skillcore_adk import SkillToolset
from skillcore_adk.testing import user_message

from .conftest import agent_with, response_of, run_turn, scripted

pytestmark = pytest.mark.anyio

BETA = "Instructions of beta-open."
#: The request key of the agent "assistant" (spelled out: it is the public contract).
LOAD = "skillcore:assistant:load"


async def _runner(model: Any, toolset: SkillToolset) -> tuple[InMemoryRunner, str]:
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return runner, session.id


async def _state(runner: InMemoryRunner, sid: str) -> dict[str, Any]:
    s = await runner.session_service.get_session(app_name="app", user_id="u", session_id=sid)
    assert s is not None
    return dict(s.state)


async def _turn(runner: InMemoryRunner, sid: str, delta: dict[str, Any] | None) -> list[Any]:
    return [
        e
        async for e in runner.run_async(
            user_id="u", session_id=sid, new_message=user_message("go"), state_delta=delta
        )
    ]


async def test_second_turn_loads_requested_skill(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)
    model = scripted("hello", "with beta", [("unload_skill", {"skill_name": "beta-open"})], "ok")
    runner, sid = await _runner(model, toolset)
    await run_turn(runner, sid)
    assert BETA not in model.instructions(0)
    await _turn(runner, sid, {LOAD: ["beta-open"]})
    assert BETA in model.instructions(), "the body reaches this turn's request"
    # No skill tool call yet: the request still stands with the saved session.
    assert (await _state(runner, sid)).get(LOAD) == ["beta-open"]
    events = await run_turn(runner, sid)  # the model unloads it: saved, request cleared
    assert "error" not in response_of(events, "unload_skill")
    state = await _state(runner, sid)
    assert state.get(LOAD) is None
    assert loaded_names_of(state.get(toolset.state_key("assistant"))) == []
    await run_turn(runner, sid)
    assert BETA not in model.instructions(), "a consumed request does not come back"
    assert toolset.load_key("assistant") == LOAD


async def test_a_single_name_given_as_a_string_is_loaded(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)
    model = scripted("with beta")
    runner, sid = await _runner(model, toolset)
    await _turn(runner, sid, {LOAD: "beta-open"})  # not silently ignored: one name
    assert BETA in model.instructions(), "the body reaches this turn's request"


@pytest.mark.parametrize(
    "bad",
    [{"beta-open": 1}, [1], ["beta-open"] * 40, ["nope"]],
    ids=["dict", "ints", "too-many", "unknown"],
)
async def test_bad_request_is_ignored_and_session_intact(skills_dir: Path, bad: Any) -> None:
    toolset = SkillToolset(skills_dir, default_skills=["alpha-tools"])
    model = scripted([("load_skill", {"skill_name": "gamma-files"})], "done")
    runner, sid = await _runner(model, toolset)
    with EventRecorder() as rec:
        events = await _turn(runner, sid, {LOAD: bad})
    assert "error" not in response_of(events, "load_skill")
    state = await _state(runner, sid)
    loaded = loaded_names_of(state.get(toolset.state_key("assistant")))
    assert loaded == ["alpha-tools", "gamma-files"]
    assert state.get(LOAD) is None, "cleared by the tool call that saved the session"
    names = rec.names()
    assert "load_request.ignored" in names or "load_request.skipped" in names
