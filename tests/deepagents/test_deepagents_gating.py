"""Skill-gated tools inside a real ``create_deep_agent``: deepagents' own frontmatter key
(``metadata.include_tools``, space-separated) unlocks a tool passed as ``tools=`` to the
middleware; TOOL_NOT_AVAILABLE sees the harness tools through the alias preset."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, tool_calls


@tool
def create_ticket(title: str) -> str:
    """Open a ticket."""
    return f"ticket {title!r} created"


def run(agent: Any, text: str) -> list[ToolMessage]:
    out = agent.invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": "t"}})
    start = max(i for i, m in enumerate(out["messages"]) if isinstance(m, HumanMessage))
    return [m for m in out["messages"][start + 1 :] if isinstance(m, ToolMessage)]


def test_include_tools_unlocks_a_tool_in_a_deep_agent(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    write_skill(
        skills,
        "triage",
        "Ticket triage.",
        "Open tickets with create_ticket.",
        "allowed-tools: Read\nmetadata:\n  include_tools: create_ticket\n",
    )
    write_skill(skills, "shell", "Shell work.", "Use the shell.", "allowed-tools: Bash WebFetch\n")
    model = ScriptedChatModel()
    middleware = SkillsMiddleware(
        [skills],
        allowed_tools_policy="restrict",
        tool_aliases="deepagents",
        check_tools_available=True,
        tools=[create_ticket],
    )
    agent = create_deep_agent(model=model, middleware=[middleware], checkpointer=InMemorySaver())

    model.push(tool_calls(("create_ticket", {"title": "a"})))
    (locked,) = run(agent, "open a ticket")
    assert "create_ticket" not in model.tool_names(0) and "read_file" in model.tool_names(0)
    assert locked.status == "error" and locked.artifact == {"code": "TOOL_LOCKED"}, locked

    model.push(
        tool_calls(("load_skill", {"skill_name": "triage"})),
        tool_calls(
            ("create_ticket", {"title": "b"}), ("write_file", {"file_path": "/x", "content": ""})
        ),
    )
    loaded, created, write = run(agent, "open a ticket")
    assert loaded.status == "success" and "Warning" not in loaded.text, loaded.text
    assert "create_ticket" in model.tool_names(-2)
    assert created.text == "ticket 'b' created", created
    assert write.status == "error" and write.artifact == {"code": "TOOL_BLOCKED"}, write

    # Bash maps to execute, which deepagents leaves out without a shell backend (the check
    # sees the tools the model is offered); WebFetch maps to nothing.
    model.push(tool_calls(("load_skill", {"skill_name": "shell"})))
    (refused,) = run(agent, "use the shell")
    assert refused.artifact == {"code": "TOOL_NOT_AVAILABLE"}, refused
    assert "(Bash, WebFetch)" in refused.text, refused.text
