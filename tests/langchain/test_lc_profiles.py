"""Skill profiles through a real create_agent: the profile comes from ``runtime.context``
(``agent.invoke(..., context=...)``); each tenant sees its own catalog, policy and state."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore import PolicyMode, SkillConfig
from skillcore.testing import EventRecorder, make_tenant_libraries
from skillcore_langchain import STATE_KEY, ProfiledSkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


@dataclasses.dataclass
class Ctx:
    skill_profile: str | None = None


@pytest.fixture
def tenants(tmp_path: Path) -> dict[str, Path]:
    return make_tenant_libraries(tmp_path / "tenants")


def build(tenants: dict[str, Path], **kw: Any) -> tuple[Any, ScriptedChatModel, Any]:
    model = ScriptedChatModel()
    mw = ProfiledSkillsMiddleware(
        {
            "acme": (tenants["acme"], SkillConfig(allowed_tools_policy="restrict")),
            "beta": (tenants["beta"], SkillConfig(max_loaded_skills=1)),
        },
        **kw,
    )
    agent = create_agent(
        model,
        plain_tools(),
        system_prompt="You are a test agent.",
        middleware=[mw],
        context_schema=Ctx,
        checkpointer=InMemorySaver(),
    )
    return agent, model, mw


def run(agent: Any, thread: str, context: Any, *, use_async: bool = False) -> list[BaseMessage]:
    cfg: Any = {"configurable": {"thread_id": thread}}
    payload: Any = {"messages": [HumanMessage("go")]}
    if use_async:
        out = asyncio.run(agent.ainvoke(payload, cfg, context=context))
    else:
        out = agent.invoke(payload, cfg, context=context)
    return list(out["messages"])


def replies(messages: list[BaseMessage]) -> list[ToolMessage]:
    start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    return [m for m in messages[start:] if isinstance(m, ToolMessage)]


def expect_catalog(*present: str, absent: tuple[str, ...] = (), then: Any = None) -> Any:
    """A scripted step that asserts on the system prompt it receives, then answers (``then``:
    the message to answer with)."""

    def step(messages: list[BaseMessage]) -> Any:
        system = messages[0].text
        for name in present:
            assert name in system, (name, system)
        for name in absent:
            assert name not in system, (name, system)
        return then if then is not None else AIMessage(content="seen")

    return step


@pytest.mark.parametrize("use_async", [False, True])
def test_each_tenant_sees_only_its_catalog(tenants: dict[str, Path], use_async: bool) -> None:
    agent, model, _ = build(tenants)
    model.push(expect_catalog("acme-report", "handbook", absent=("beta-deploy",)))
    run(agent, "t-acme", Ctx("acme"), use_async=use_async)
    model.push(expect_catalog("beta-deploy", "handbook", absent=("acme-report",)))
    run(agent, "t-beta", {"skill_profile": "beta"}, use_async=use_async)
    assert len(model.requests) == 2


@pytest.mark.parametrize("use_async", [False, True])
def test_a_tenant_cannot_load_another_tenants_skill(
    tenants: dict[str, Path], use_async: bool
) -> None:
    agent, model, _ = build(tenants)
    model.push(tool_calls(("load_skill", {"skill_name": "beta-deploy"})))
    (reply,) = replies(run(agent, "t1", Ctx("acme"), use_async=use_async))
    assert reply.status == "error"
    assert reply.artifact["code"] == "SKILL_NOT_FOUND"
    assert "BETA-DEPLOY-BODY" not in reply.text


@pytest.mark.parametrize("use_async", [False, True])
def test_policy_and_limits_follow_the_profile(tenants: dict[str, Path], use_async: bool) -> None:
    agent, model, _ = build(tenants)
    # acme: RESTRICT -- after acme-report (allowed-tools: Read), Write is blocked.
    model.push(tool_calls(("load_skill", {"skill_name": "acme-report"}), ("Write", {})))
    load, write = replies(run(agent, "a", Ctx("acme"), use_async=use_async))
    assert load.status == "success" and "ACME-REPORT-BODY" in load.text
    assert write.artifact["code"] == "TOOL_BLOCKED"
    # beta: RECOMMEND and max one loaded skill.
    model.push(
        tool_calls(
            ("load_skill", {"skill_name": "beta-deploy"}),
            ("load_skill", {"skill_name": "handbook"}),
            ("Write", {}),
        )
    )
    first, second, write = replies(run(agent, "b", Ctx("beta"), use_async=use_async))
    assert first.status == "success"
    assert second.artifact["code"] == "LOAD_LIMIT_REACHED"
    assert write.status == "success"


def test_switching_profile_does_not_carry_loaded_skills(tenants: dict[str, Path]) -> None:
    agent, model, mw = build(tenants)
    model.push(tool_calls(("load_skill", {"skill_name": "handbook"})))
    (reply,) = replies(run(agent, "shared", Ctx("acme")))
    assert "ACME-HANDBOOK-BODY" in reply.text
    cfg: Any = {"configurable": {"thread_id": "shared"}}
    saved = agent.get_state(cfg).values[STATE_KEY]
    assert saved["profile"] == "acme"
    assert mw.session_for(agent.get_state(cfg).values, Ctx("acme")).loaded_names == ("handbook",)
    # Same thread, now beta: nothing loaded, and beta's own handbook loads (not ALREADY_LOADED).
    model.push(
        expect_catalog(
            "beta-deploy",
            absent=("[Loaded]", "acme-report"),
            then=tool_calls(("load_skill", {"skill_name": "handbook"})),
        )
    )
    with EventRecorder() as rec:
        (reply,) = replies(run(agent, "shared", Ctx("beta")))
    assert "profile.switched" in rec.names()
    assert reply.artifact["code"] == "LOADED"
    assert "BETA-HANDBOOK-BODY" in reply.text and "ACME-HANDBOOK-BODY" not in reply.text
    state = agent.get_state(cfg).values[STATE_KEY]
    assert state["profile"] == "beta"
    # Back to acme: beta's load does not show up as acme's.
    assert mw.session_for(agent.get_state(cfg).values, Ctx("acme")).loaded_names == ()


@pytest.mark.parametrize("context", [Ctx("gamma"), Ctx(None), {"skill_profile": 7}, None])
def test_unknown_missing_or_malformed_selection_fails_closed(
    tenants: dict[str, Path], context: Any
) -> None:
    agent, model, _ = build(tenants)
    model.push(tool_calls(("load_skill", {"skill_name": "handbook"})))
    with EventRecorder() as rec:
        (reply,) = replies(run(agent, "t", context))
    assert reply.status == "error" and "HANDBOOK-BODY" not in reply.text
    assert "profile.refused" in rec.names()
    # No catalog and no skill tools were shown to the model.
    assert "handbook" not in model.system(0)
    assert "load_skill" not in model.tool_names(0)


def test_a_default_profile_serves_runs_without_a_selection(tenants: dict[str, Path]) -> None:
    agent, model, _ = build(tenants, default="beta")
    model.push(expect_catalog("beta-deploy", absent=("acme-report",)))
    run(agent, "t", Ctx(None))
    # An unknown name never falls back to the default.
    model.push(expect_catalog(absent=("beta-deploy", "acme-report", "handbook")))
    run(agent, "u", Ctx("acme "))
    assert len(model.requests) == 2


def test_select_may_be_a_function_of_the_context(tenants: dict[str, Path]) -> None:
    agent, model, _ = build(tenants, select=lambda ctx: ctx.skill_profile.upper().lower())
    model.push(expect_catalog("acme-report", absent=("beta-deploy",)))
    run(agent, "t", Ctx("ACME"))
    # A selector that raises is refused, never defaulted.
    model.push(expect_catalog(absent=("acme-report", "beta-deploy")))
    run(agent, "u", Ctx(None))
    assert len(model.requests) == 2


def test_profiles_share_one_library_per_sources_object(tenants: dict[str, Path]) -> None:
    mw = ProfiledSkillsMiddleware(
        {
            "strict": SkillConfig(allowed_tools_policy="restrict"),
            "open": SkillConfig(),
        },
        [tenants["acme"]],
    )
    assert mw.profiles["strict"].library is mw.profiles["open"].library
    assert mw.profiles["strict"].policy.mode is PolicyMode.RESTRICT
    assert mw.profiles["open"].policy.mode is PolicyMode.RECOMMEND


def test_a_tool_only_some_profiles_have_is_hidden_and_refused_in_the_others(
    tenants: dict[str, Path],
) -> None:
    model = ScriptedChatModel()
    mw = ProfiledSkillsMiddleware(
        {
            "acme": tenants["acme"],
            "beta": (tenants["beta"], SkillConfig(include_resource_tool=False)),
        }
    )
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    run(agent, "a", {"skill_profile": "acme"})
    assert "load_skill_resource" in model.tool_names(-1)
    call = ("load_skill_resource", {"skill_name": "handbook", "path": "x.md"})
    model.push(tool_calls(call))
    (reply,) = replies(run(agent, "b", {"skill_profile": "beta"}))
    assert "load_skill_resource" not in model.tool_names(-2)
    assert "load_skill" in model.tool_names(-2)
    assert reply.artifact["code"] == "UNKNOWN_TOOL"
