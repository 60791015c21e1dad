"""Skill profiles through a real InMemoryRunner: the profile is the session state value
``skillcore:profile``; each tenant sees its own catalog, policy and state, and a forged value
(tools and the model can write state) fails closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext

from skillcore import SkillConfig
from skillcore.testing import EventRecorder, make_tenant_libraries
from skillcore_adk import DEFAULT_PROFILE_KEY, ProfiledSkillToolset, SkillPolicyPlugin

from .conftest import agent_with, response_of, run_turn, scripted

pytestmark = pytest.mark.anyio


@pytest.fixture
def tenants(tmp_path: Path) -> dict[str, Path]:
    return make_tenant_libraries(tmp_path / "tenants")


def toolset(tenants: dict[str, Path], **kw: Any) -> ProfiledSkillToolset:
    return ProfiledSkillToolset(
        {
            "acme": (tenants["acme"], SkillConfig(allowed_tools_policy="restrict")),
            "beta": tenants["beta"],
        },
        **kw,
    )


async def start(
    model: Any, ts: ProfiledSkillToolset, state: dict[str, Any], *extra: Any
) -> tuple[InMemoryRunner, str]:
    agent = agent_with(model, ts)
    agent.tools.extend(extra)
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=[SkillPolicyPlugin()]))
    session = await runner.session_service.create_session(app_name="app", user_id="u", state=state)
    return runner, session.id


async def another(runner: InMemoryRunner, state: dict[str, Any]) -> str:
    """A second session of the same runner."""
    session = await runner.session_service.create_session(app_name="app", user_id="u", state=state)
    return session.id


async def test_each_tenant_sees_only_its_catalog(tenants: dict[str, Path]) -> None:
    ts = toolset(tenants)
    model = scripted("done", "done")
    runner, acme = await start(model, ts, {DEFAULT_PROFILE_KEY: "acme"})
    await run_turn(runner, acme)
    beta = await another(runner, {DEFAULT_PROFILE_KEY: "beta"})
    await run_turn(runner, beta)
    assert "acme-report" in model.instructions(0) and "beta-deploy" not in model.instructions(0)
    assert "beta-deploy" in model.instructions(1) and "acme-report" not in model.instructions(1)
    assert "load_skill" in model.tool_names(0) and "load_skill" in model.tool_names(1)


async def test_a_tenant_cannot_load_another_tenants_skill(tenants: dict[str, Path]) -> None:
    model = scripted([("load_skill", {"skill_name": "beta-deploy"})], "done")
    runner, sid = await start(model, toolset(tenants), {DEFAULT_PROFILE_KEY: "acme"})
    reply = response_of(await run_turn(runner, sid), "load_skill")
    assert reply["error_code"] == "SKILL_NOT_FOUND"
    assert "BETA-DEPLOY-BODY" not in str(reply)


async def test_the_profiles_policy_applies(tenants: dict[str, Path]) -> None:
    load = ("load_skill", {"skill_name": "acme-report"})
    model = scripted(
        [load, ("Write", {})],
        "done",
        [("load_skill", {"skill_name": "beta-deploy"}), ("Write", {})],
        "done",
    )
    ts = toolset(tenants)
    runner, acme = await start(model, ts, {DEFAULT_PROFILE_KEY: "acme"})
    events = await run_turn(runner, acme)
    assert response_of(events, "Write")["error_code"] == "TOOL_BLOCKED"
    beta = await another(runner, {DEFAULT_PROFILE_KEY: "beta"})
    events = await run_turn(runner, beta)
    assert "error" not in response_of(events, "Write")


@pytest.mark.parametrize("forged", ["gamma", "ACME", 7, {"name": "acme"}, ["acme"], None])
async def test_forged_or_missing_profile_in_state_fails_closed(
    tenants: dict[str, Path], forged: Any
) -> None:
    model = scripted([("load_skill", {"skill_name": "handbook"})], "done")
    state = {} if forged is None else {DEFAULT_PROFILE_KEY: forged}
    runner, sid = await start(model, toolset(tenants), state)
    with EventRecorder() as rec:
        events = await run_turn(runner, sid)
    assert "profile.refused" in rec.names()
    # No catalog and no skill tools; the model's call of one is not served.
    assert "handbook" not in model.instructions(0)
    assert "load_skill" not in model.tool_names(0)
    assert "HANDBOOK-BODY" not in str([e.model_dump() for e in events])


async def test_an_unknown_profile_never_falls_back_to_the_default(tenants: dict[str, Path]) -> None:
    ts = toolset(tenants, default="beta")
    model = scripted("done", "done")
    runner, none = await start(model, ts, {})
    await run_turn(runner, none)
    forged = await another(runner, {DEFAULT_PROFILE_KEY: "gamma"})
    await run_turn(runner, forged)
    assert "beta-deploy" in model.instructions(0)
    assert "beta-deploy" not in model.instructions(1) and "load_skill" not in model.tool_names(1)


def switch_to_beta(tool_context: ToolContext) -> str:
    """Switch the skill profile (as a hostile tool could)."""
    tool_context.state[DEFAULT_PROFILE_KEY] = "beta"
    return "switched"


async def test_switching_profile_does_not_carry_loaded_skills(tenants: dict[str, Path]) -> None:
    ts = toolset(tenants)
    handbook = ("load_skill", {"skill_name": "handbook"})
    model = scripted([handbook], "done", [("switch_to_beta", {})], "done", [handbook], "done")
    runner, sid = await start(
        model, ts, {DEFAULT_PROFILE_KEY: "acme"}, FunctionTool(switch_to_beta)
    )
    reply = response_of(await run_turn(runner, sid), "load_skill")
    assert "ACME-HANDBOOK-BODY" in reply["result"]
    await run_turn(runner, sid)  # the tool writes the profile key
    reply = response_of(await run_turn(runner, sid), "load_skill")
    # beta's own handbook: loaded fresh, not ALREADY_LOADED from acme's state.
    assert "BETA-HANDBOOK-BODY" in reply["result"] and "ACME" not in reply["result"]
    session = await runner.session_service.get_session(app_name="app", user_id="u", session_id=sid)
    assert session is not None
    acme_state, beta_state = (session.state[f"skillcore@{p}:assistant"] for p in ("acme", "beta"))
    assert [s["name"] for s in acme_state["loaded"]] == ["handbook"]
    assert [s["name"] for s in beta_state["loaded"]] == ["handbook"]
    # The request after the switch showed beta's catalog with nothing loaded.
    after_switch = model.instructions(4)
    assert "beta-deploy" in after_switch and "[Loaded]" not in after_switch
