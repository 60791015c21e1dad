"""Skill-gated tools with skill profiles through a real create_agent: each run offers and
allows a gated tool only while a skill of its own profile unlocks it; a forged profile never
reaches it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore import SkillConfig
from skillcore.testing import write_skill
from skillcore_langchain import ProfiledSkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

RAN: list[str] = []


def deploy() -> str:
    """Deploy the service."""
    RAN.append("deploy")
    return "deployed"


@dataclasses.dataclass
class Ctx:
    skill_profile: str | None = None


def tenants(root: Path) -> dict[str, Path]:
    acme, beta = root / "acme", root / "beta"
    write_skill(acme, "release", "Release.", "ACME-RELEASE", "metadata:\n  include_tools: deploy\n")
    write_skill(beta, "release", "Release.", "BETA-RELEASE")  # same name, unlocks nothing
    return {"acme": acme, "beta": beta}


def test_gated_tools_follow_the_runs_profile(tmp_path: Path) -> None:
    RAN.clear()
    dirs = tenants(tmp_path)
    restrict = SkillConfig(allowed_tools_policy="restrict")
    mw = ProfiledSkillsMiddleware(
        {"acme": (dirs["acme"], restrict), "beta": dirs["beta"]}, tools=[deploy]
    )
    model = ScriptedChatModel()
    agent = create_agent(
        model, plain_tools(), middleware=[mw], context_schema=Ctx, checkpointer=InMemorySaver()
    )

    def run(thread: str, profile: str) -> list[ToolMessage]:
        out = agent.invoke(
            {"messages": [HumanMessage("go")]},
            {"configurable": {"thread_id": thread}},
            context=Ctx(profile),
        )
        start = max(i for i, m in enumerate(out["messages"]) if isinstance(m, HumanMessage))
        return [m for m in out["messages"][start:] if isinstance(m, ToolMessage)]

    load = ("load_skill", {"skill_name": "release"})
    model.push(tool_calls("deploy"), tool_calls(load), tool_calls("deploy"))
    locked, loaded, ran = run("a", "acme")
    assert locked.status == "error" and "release" in str(locked.content)
    assert "ACME-RELEASE" in str(loaded.content) and ran.content == "deployed"
    assert "deploy" not in model.tool_names(0) and "deploy" in model.tool_names(2)
    # beta's release unlocks nothing: the tool stays locked there, and for a forged profile.
    model.push(tool_calls(load), tool_calls("deploy"))
    loaded, locked = run("b", "beta")
    assert "BETA-RELEASE" in str(loaded.content) and locked.status == "error"
    model.push(tool_calls("deploy"))
    [forged] = run("c", "gamma")
    assert forged.status == "error"
    assert RAN == ["deploy"]
