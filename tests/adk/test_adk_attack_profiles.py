"""Profiled toolsets under the app-wide policy plugin, given explicitly or found on the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore import SkillConfig
from skillcore.testing import make_tenant_libraries, write_skill
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


RAN: list[str] = []


def deploy() -> str:
    """Deploy the service."""
    RAN.append("deploy")
    return "deployed"


@pytest.mark.parametrize("enforcement", ["plugin", "none"])
async def test_gated_tools_follow_the_sessions_profile(tmp_path: Path, enforcement: str) -> None:
    RAN.clear()
    acme, beta = tmp_path / "acme", tmp_path / "beta"
    write_skill(acme, "release", "Release.", "ACME-RELEASE", "metadata:\n  include_tools: deploy\n")
    write_skill(beta, "release", "Release.", "BETA-RELEASE")  # same name, unlocks nothing
    ts = ProfiledSkillToolset({"acme": acme, "beta": beta}, tools=[deploy])
    load = ("load_skill", {"skill_name": "release"})
    model = scripted(
        [("deploy", {})],
        [load],
        [("deploy", {})],
        "done",  # acme
        [load],
        [("deploy", {})],
        "done",  # beta
        [("deploy", {})],
        "done",  # forged
    )
    agent = agent_with(model, ts)
    plugins = [SkillPolicyPlugin()] if enforcement == "plugin" else []
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=plugins))
    sessions = {}
    for profile in ("acme", "beta", "gamma"):
        state = {DEFAULT_PROFILE_KEY: profile}
        created = await runner.session_service.create_session(
            app_name="app", user_id="u", state=state
        )
        sessions[profile] = created.id
    events = await run_turn(runner, sessions["acme"])
    replies = [r.response or {} for e in events for r in e.get_function_responses()]
    assert replies[0].get("error_code") == "TOOL_LOCKED", replies[0]
    assert "ACME-RELEASE" in str(replies[1]) and replies[2].get("result") == "deployed"
    assert "deploy" not in model.tool_names(0) and "deploy" in model.tool_names(2)
    events = await run_turn(runner, sessions["beta"])
    replies = [r.response or {} for e in events for r in e.get_function_responses()]
    assert "BETA-RELEASE" in str(replies[0]) and replies[1].get("error_code") == "TOOL_LOCKED"
    await run_turn(runner, sessions["gamma"])
    assert RAN == ["deploy"]
