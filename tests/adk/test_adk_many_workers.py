"""ADK workers sharing one PostgreSQL (``DatabaseSessionService``) and one ledger: a
session's turns run on whichever worker is free, each with its own toolset and memory, and
the skill state, RESTRICT and the fork ledger carry over as in one process."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from google.adk.runners import Runner

from skillcore import loaded_names_of
from skillcore.state.coordination import SQLLedger
from skillcore_adk import SkillToolset

from .conftest import agent_with, response_of, responses, run_turn, scripted

pytestmark = pytest.mark.anyio
pytest.importorskip("psycopg")


def worker(skills_dir: Path, url: str, ledger: SQLLedger, *steps: Any) -> Runner:
    from google.adk.sessions import DatabaseSessionService

    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict", ledger=ledger)
    agent = agent_with(scripted(*steps), toolset, before_tool_callback=toolset.before_tool_callback)
    service = DatabaseSessionService(url.replace("postgresql://", "postgresql+psycopg://", 1))
    return Runner(agent=agent, app_name="app", session_service=service)


async def test_turns_move_between_workers_on_one_postgres(
    skills_dir: Path, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = SQLLedger.postgres(postgres_url)
    w1 = worker(
        skills_dir,
        postgres_url,
        ledger,
        [("load_skill", {"skill_name": "alpha-tools"}), ("Read", {})],
        "done",
    )
    session = await w1.session_service.create_session(app_name="app", user_id="u")
    with caplog.at_level(logging.INFO, logger="skillcore"):
        events = await run_turn(w1, session.id)
        assert "result" in response_of(events, "load_skill")
        # The next turn on another worker: the restriction holds there.
        w2 = worker(
            skills_dir,
            postgres_url,
            ledger,
            [("Write", {}), ("unload_skill", {"skill_name": "alpha-tools"})],
            [("Write", {})],
            "done",
        )
        events = await run_turn(w2, session.id)
        blocked, after_unload = [r.response for r in responses(events) if r.name == "Write"]
        assert blocked.get("error_code") == "TOOL_BLOCKED"  # the restriction carried over
        assert "result" in after_unload
        # ... and on the first one again, after the unload: Write runs.
        w1b = worker(skills_dir, postgres_url, ledger, [("Write", {})], "done")
        events = await run_turn(w1b, session.id)
        assert "error" not in response_of(events, "Write")
    stored = await w1b.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert loaded_names_of(stored.state["skillcore:assistant"]) == []
    forks = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "state.forked"]
    assert forks == [], "turns that follow each other are no fork"
    for runner in (w1, w2, w1b):
        await runner.close()
    ledger.close()
