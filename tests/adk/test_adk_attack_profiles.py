"""Profiled toolsets under the app-wide policy plugin, given explicitly or found on the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore import SkillConfig
from skillcore.testing import make_tenant_libraries
from skillcore_adk import DEFAULT_PROFILE_KEY, ProfiledSkillToolset, SkillPolicyPlugin

from .conftest import agent_with, response_of, run_turn, scripted

pytestmark = pytest.mark.anyio


def toolset(root: Path, **kw: Any) -> ProfiledSkillToolset:
    tenants = make_tenant_libraries(root)
    restrict = SkillConfig(allowed_tools_policy="restrict", hide_blocked_tools=True)
    profiles = {"acme": (tenants["acme"], restrict), "beta": tenants["beta"]}
    return ProfiledSkillToolset(profiles, **kw)


@pytest.mark.parametrize("explicit", [True, False])
async def test_plugin_with_a_profiled_toolset(tmp_path: Path, explicit: bool) -> None:
    ts = toolset(tmp_path / "tenants")
    load = ("load_skill", {"skill_name": "acme-report"})
    model = scripted([load], "done", [("Write", {})], "done")
    agent = agent_with(model, ts)
    plugin = SkillPolicyPlugin(ts) if explicit else SkillPolicyPlugin()
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=[plugin]))
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state={DEFAULT_PROFILE_KEY: "acme"}
    )
    await run_turn(runner, session.id)
    events = await run_turn(runner, session.id)
    assert response_of(events, "Write")["error_code"] == "TOOL_BLOCKED"
    # hide_blocked_tools: the blocked tool was left out of the second turn's requests.
    assert "Write" in model.tool_names(0) and "Write" not in model.tool_names(2)
