"""Skill-gated tools, TOOL_NOT_AVAILABLE and hide_blocked_tools through ``create_agent`` with a
scripted model and a checkpointer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import make_gated_library, write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


@tool
def deploy(target: str = "prod") -> str:
    """Deploy the service."""
    return f"deployed {target}"


@pytest.fixture
def gated_skills(tmp_path: Path) -> Path:
    root = make_gated_library(tmp_path / "skills")
    write_skill(root, "plain", "Plain work.", "Plain steps.")
    return root


def build(skills: Path, **knobs: Any) -> tuple[Any, ScriptedChatModel]:
    model = ScriptedChatModel()
    mw = SkillsMiddleware(skills, tools=[deploy], **knobs)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    return agent, model


def run(agent: Any, *, use_async: bool = False) -> list[ToolMessage]:
    import asyncio

    config: Any = {"configurable": {"thread_id": "t"}}
    payload: Any = {"messages": [HumanMessage("go")]}
    out = (
        asyncio.run(agent.ainvoke(payload, config)) if use_async else agent.invoke(payload, config)
    )
    start = max(i for i, m in enumerate(out["messages"]) if isinstance(m, HumanMessage))
    return [m for m in out["messages"][start + 1 :] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("mode", ["recommend", "restrict"])
def test_gated_tool_is_offered_only_while_a_skill_naming_it_is_loaded(
    gated_skills: Path, mode: str, use_async: bool
) -> None:
    agent, model = build(gated_skills, allowed_tools_policy=mode)
    model.push(tool_calls("deploy"))
    (locked,) = run(agent, use_async=use_async)
    assert "deploy" not in model.tool_names(0), "locked: not offered before any load"
    assert locked.status == "error" and locked.artifact == {"code": "TOOL_LOCKED"}, locked
    assert "ops" in locked.text and "release" in locked.text and "load_skill" in locked.text

    model.push(tool_calls(("load_skill", {"skill_name": "release"})), tool_calls("deploy"))
    load_reply, deployed = run(agent, use_async=use_async)
    assert load_reply.status == "success", load_reply
    assert "deploy" in model.tool_names(-2), "unlocked: offered after the load"
    assert deployed.status == "success" and deployed.text == "deployed prod", deployed

    model.push(tool_calls(("unload_skill", {"skill_name": "release"})), tool_calls("deploy"))
    _, again = run(agent, use_async=use_async)
    assert "deploy" not in model.tool_names(-2), "locked again after the unload"
    assert again.status == "error" and again.artifact == {"code": "TOOL_LOCKED"}, again


def test_restrict_unlocking_skill_allows_its_gated_tool(gated_skills: Path) -> None:
    """Under RESTRICT, naming a gated tool counts as allowing it for the unlocking skill,
    even when its allowed-tools list does not repeat it."""
    agent, model = build(gated_skills, allowed_tools_policy="restrict")
    model.push(tool_calls(("load_skill", {"skill_name": "ops"})), tool_calls("deploy", "Write"))
    _, deployed, write = run(agent)
    assert deployed.status == "success", deployed
    assert write.status == "error" and write.artifact == {"code": "TOOL_BLOCKED"}, write


def test_tool_not_available_warns_in_recommend_and_refuses_under_restrict(
    gated_skills: Path,
) -> None:
    agent, model = build(gated_skills, check_tools_available=True)
    model.push(tool_calls(("load_skill", {"skill_name": "writer"})))
    (reply,) = run(agent)
    assert reply.status == "success" and "Warning" in reply.text and "Edit" in reply.text, reply
    assert "Read" not in reply.text.split("Warning", 1)[1].split(".")[0]

    agent, model = build(gated_skills, allowed_tools_policy="restrict", check_tools_available=True)
    model.push(tool_calls(("load_skill", {"skill_name": "writer"})))
    (reply,) = run(agent)
    assert reply.status == "error" and reply.artifact == {"code": "TOOL_NOT_AVAILABLE"}, reply
    assert "Edit" in reply.text
    # Off by default: no check, no warning.
    agent, model = build(gated_skills, allowed_tools_policy="restrict")
    model.push(tool_calls(("load_skill", {"skill_name": "writer"})))
    (reply,) = run(agent)
    assert reply.status == "success" and "Warning" not in reply.text, reply


def test_hide_blocked_tools_filters_the_model_tool_list(gated_skills: Path) -> None:
    agent, model = build(gated_skills, allowed_tools_policy="restrict", hide_blocked_tools=True)
    model.push(tool_calls(("load_skill", {"skill_name": "ops"})), tool_calls("Write"))
    _, write = run(agent)
    names = model.tool_names(-2)
    assert "Write" not in names and "Read" in names and "deploy" in names, names
    assert "unload_skill" in names
    assert write.status == "error" and write.artifact == {"code": "TOOL_BLOCKED"}, write
    assert "Write" in model.tool_names(0), "nothing loaded: nothing hidden"
