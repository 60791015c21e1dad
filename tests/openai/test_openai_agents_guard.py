"""RESTRICT in the Agents SDK covers every tool an agent can call: function tools, the tools of
its MCP servers (a real MCP server over stdio) and the agents it hands off to; guarding never
changes the caller's tools."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, WebSearchTool, function_tool, handoff
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore_openai import AgentSkills

NO_TRACE = RunConfig(tracing_disabled=True)
CSV = {"skill_name": "csv-data-audit"}
SERVER = Path(__file__).with_name("mcp_file_tools.py")


def restrict(library: SkillLibrary, **kwargs: Any) -> AgentSkills:
    return AgentSkills(
        library, limits=Limits(max_loaded=2), policy=ToolPolicy(PolicyMode.RESTRICT), **kwargs
    )


def outputs(call: Any) -> dict[str, Any]:
    return {
        i["call_id"]: i["output"]
        for i in call.input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


def write_tool(log: list[str]) -> Any:
    @function_tool(name_override="Write")
    def write(path: str, text: str) -> str:
        """Write a file."""
        log.append(f"Write {path}")
        return "written"

    return write


def test_mcp_tools_are_restricted(examples_library: SkillLibrary, tmp_path: Path) -> None:
    """An MCP Write while a restricting skill is loaded is blocked and never reaches the
    server; an MCP Read the skill allows runs."""
    log = tmp_path / "calls.log"
    skills = restrict(examples_library)
    model = ScriptedModel(
        [
            [function_call("load_skill", CSV, call_id="c1")],
            [
                function_call("Write", {"path": "x.md", "text": "hi"}, call_id="c2"),
                function_call("Read", {"path": "data.csv"}, call_id="c3"),
            ],
            [assistant_message("done")],
        ]
    )

    async def main() -> None:
        params = {
            "command": sys.executable,
            "args": [str(SERVER)],
            "env": {**os.environ, "SKILLCORE_TEST_LOG": str(log)},
        }
        async with MCPServerStdio(params, name="files", client_session_timeout_seconds=30) as mcp:
            agent = Agent(
                name="a",
                instructions=skills.instructions(),
                tools=skills.tools(),
                mcp_servers=[mcp],
                model=model,
            )
            guarded = skills.guard_agent(agent)
            assert agent.mcp_servers == [mcp] and mcp.tool_input_guardrails is None
            result = await Runner.run(guarded, "go", run_config=NO_TRACE)
            assert result.final_output == "done"

    asyncio.run(main())
    out = outputs(model.calls[-1])
    assert out["c2"].startswith("Error: Tool 'Write' is not allowed")
    assert "unload_skill" in out["c2"]
    assert "contents of data.csv" in str(out["c3"])
    assert log.read_text().splitlines() == ["Read data.csv"]


def test_guard_returns_copies(examples_library: SkillLibrary) -> None:
    one, two = restrict(examples_library), restrict(examples_library)
    write = write_tool([])
    first = one.guard(write)[0]
    assert first is not write and write.tool_input_guardrails in (None, [])
    assert first.tool_input_guardrails == [one.guardrail]
    # Guarding again (by another AgentSkills) replaces the guardrail, never stacks a stale one.
    second = two.guard(first)[0]
    assert second.tool_input_guardrails == [two.guardrail]
    assert first.tool_input_guardrails == [one.guardrail]
    # Skill tools are never blocked, so they are handed back as they are.
    skill_tool = one.tools()[0]
    assert one.guard(skill_tool) == [skill_tool]
    with pytest.raises(TypeError, match="RESTRICT cannot"):
        one.guard(WebSearchTool())
    allowing = AgentSkills(
        examples_library, policy=ToolPolicy(PolicyMode.RESTRICT, frozenset({"web_search"}))
    )
    web = WebSearchTool()
    assert allowing.guard(web) == [web]


def test_guard_agent_leaves_the_agent_alone(examples_library: SkillLibrary) -> None:
    skills = restrict(examples_library)
    write = write_tool([])
    helper = Agent(name="helper", tools=[write])
    main = Agent(name="main", tools=[*skills.tools(), write], handoffs=[helper])
    helper.handoffs = [main]  # a cycle
    guarded = skills.guard_agent(main)
    assert guarded is not main and main.tools[-1] is write and helper.tools == [write]
    assert write.tool_input_guardrails in (None, [])
    g_helper = guarded.handoffs[0]
    assert isinstance(g_helper, Agent) and g_helper is not helper
    assert g_helper.tools[0].tool_input_guardrails == [skills.guardrail]
    assert g_helper.handoffs[0] is guarded  # the cycle is kept, not unrolled


@pytest.mark.parametrize("how", ["agent", "handoff()", "guard()"])
def test_handed_off_agent_is_restricted(examples_library: SkillLibrary, how: str) -> None:
    """After a handoff, the other agent's tools obey the conversation's skills, and the
    reply does not tell it to call an unload tool it does not have."""
    skills = restrict(examples_library)
    log: list[str] = []
    model = ScriptedModel(
        [
            [function_call("load_skill", CSV, call_id="c1")],
            [function_call("transfer_to_writer", {}, call_id="c2")],
            [function_call("Write", {"path": "x.md", "text": "hi"}, call_id="c3")],
            [assistant_message("done")],
        ]
    )
    write = write_tool(log)
    writer = Agent(
        name="writer", tools=skills.guard(write) if how == "guard()" else [write], model=model
    )
    main = Agent(
        name="main",
        instructions=skills.instructions(),
        tools=skills.tools(),
        handoffs=[handoff(writer) if how == "handoff()" else writer],
        model=model,
    )
    agent = main if how == "guard()" else skills.guard_agent(main)
    result = asyncio.run(Runner.run(agent, "go", run_config=NO_TRACE))
    assert result.final_output == "done"
    blocked = outputs(model.calls[-1])["c3"]
    assert blocked.startswith("Error: Tool 'Write' is not allowed")
    assert "unload_skill" not in blocked and "cannot unload" in blocked
    assert log == []
