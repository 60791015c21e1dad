"""``run_skill_script`` through ADK's ``InMemoryRunner``: the example ``csv-data-audit``
profiler run end to end, and ADK tool confirmation (``confirm_scripts=True``): the run waits
for the user's ``adk_request_confirmation`` answer, then runs (approved) or not (rejected)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from google.adk.runners import InMemoryRunner
from google.genai import types

from skillcore.testing.script_runner import RecordingRunner
from skillcore_adk import SkillToolset

from .conftest import agent_with, responses, run_turn, scripted

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"
RUN = {
    "skill_name": "csv-data-audit",
    "script": "scripts/profile_csv.py",
    "args": ["-"],
    "stdin": "id,amount\n1,10\n2,x\n2,x\n",
}
CONFIRM = "adk_request_confirmation"


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    dest = tmp_path / "examples"
    shutil.copytree(EXAMPLES, dest)
    return dest


async def _runner(examples: Path, runner: RecordingRunner, **options: Any) -> Any:
    toolset = SkillToolset(examples, script_runner=runner, script_isolation="process", **options)
    model = scripted(
        [("load_skill", {"skill_name": "csv-data-audit"})], [("run_skill_script", RUN)], "done"
    )
    app = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await app.session_service.create_session(app_name="app", user_id="u")
    return app, session.id


def _script_replies(events: list[Any]) -> list[dict[str, Any]]:
    return [r.response or {} for r in responses(events) if r.name == "run_skill_script"]


async def test_profiler_runs_end_to_end(examples: Path) -> None:
    runner = RecordingRunner()
    app, sid = await _runner(examples, runner)
    events = await run_turn(app, sid)
    (reply,) = _script_replies(events)
    assert "error" not in reply, reply
    assert 'exit_code="1"' in str(reply) and "amount" in str(reply), reply
    assert len(runner.requests) == 1


@pytest.mark.parametrize("confirmed", [True, False])
async def test_tool_confirmation(examples: Path, confirmed: bool) -> None:
    runner = RecordingRunner()
    app, sid = await _runner(examples, runner, confirm_scripts=True)
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
    (reply,) = _script_replies(resumed)
    if confirmed:
        assert 'exit_code="1"' in str(reply) and len(runner.requests) == 1, reply
    else:
        assert reply.get("error_code") == "SCRIPT_DECLINED" and runner.requests == [], reply


async def test_confirmation_asked_for_a_run_after_a_load_in_the_same_turn(examples: Path) -> None:
    runner = RecordingRunner()
    toolset = SkillToolset(
        examples, script_runner=runner, script_isolation="process", confirm_scripts=True
    )
    model = scripted(
        [("load_skill", {"skill_name": "csv-data-audit"}), ("run_skill_script", RUN)], "done"
    )
    app = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await app.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(app, session.id)
    asks = [
        p.function_call
        for e in events
        for p in (e.content.parts if e.content and e.content.parts else [])
        if p.function_call and p.function_call.name == CONFIRM
    ]
    assert len(asks) == 1 and runner.requests == []
