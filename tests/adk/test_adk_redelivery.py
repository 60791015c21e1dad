"""A load of a loaded skill whose load reply the model no longer receives sends it again."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.runners import InMemoryRunner

from skillcore_adk import SkillToolset

from .conftest import agent_with, response_of, run_turn, scripted

pytestmark = pytest.mark.anyio

LOAD = [("load_skill", {"skill_name": "beta-open"})]
MARK = '<skill_content name="beta-open">'


async def _second_load(skills_dir: Path, **agent: object) -> dict:
    model = scripted(LOAD, "done", LOAD, "done")
    runner = InMemoryRunner(
        agent=agent_with(model, SkillToolset(skills_dir), **agent), app_name="app"
    )
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    first = await run_turn(runner, session.id)
    assert response_of(first, "load_skill")["result"].startswith(MARK)
    return response_of(await run_turn(runner, session.id), "load_skill")


async def test_include_contents_none_redelivers(skills_dir: Path) -> None:
    reply = await _second_load(skills_dir, include_contents="none")
    assert "error" not in reply, reply
    assert reply["result"].startswith(MARK)


async def test_full_history_still_already_loaded(skills_dir: Path) -> None:
    reply = await _second_load(skills_dir)
    assert reply.get("error_code") == "ALREADY_LOADED", reply
