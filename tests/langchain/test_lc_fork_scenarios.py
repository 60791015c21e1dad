"""Scenarios from Claude Code's public documentation of ``context: fork``, through
``create_agent``: a ``deep-research`` skill forked into a read-only ``Explore`` subagent runs
in a fresh context (the skill's content is its task; none of the conversation), and only its
summary comes back; a forked skill without ``agent:`` runs in ``general-purpose``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

RESEARCH = (
    "Research the topic thoroughly:\n1. Find relevant files using Glob and Grep\n"
    "2. Read and analyze the code\n3. Summarize findings with specific file references"
)


@tool("Grep")
def grep(pattern: str = "") -> str:
    """Search file contents."""
    return "auth/session.py:12: def login("


@tool("Glob")
def glob(pattern: str = "") -> str:
    """Find files by name."""
    return "auth/session.py"


def research_library(root: Path) -> Path:
    lib = root / "skills"
    write_skill(
        lib,
        "deep-research",
        "Research a topic thoroughly",
        RESEARCH,
        "context: fork\nagent: Explore\n",
    )
    write_skill(
        lib, "summarize-diff", "Summarize a diff", "Summarize the current diff.", "context: fork\n"
    )
    return lib


def agents(lib: Path) -> tuple[Any, ScriptedChatModel, ScriptedChatModel, ScriptedChatModel]:
    parent, explore, general = ScriptedChatModel(), ScriptedChatModel(), ScriptedChatModel()
    read = plain_tools()[0]
    subagents = {
        # Read-only research tools, as Claude Code's Explore subagent has.
        "Explore": lambda skills: create_agent(explore, [read, grep, glob], middleware=[skills]),
        "general-purpose": lambda skills: create_agent(general, plain_tools(), middleware=[skills]),
    }
    mw = SkillsMiddleware(lib, subagents=subagents)
    agent = create_agent(
        parent,
        plain_tools(),
        system_prompt="Main agent.",
        middleware=[mw],
        checkpointer=InMemorySaver(),
    )
    return agent, parent, explore, general


def test_deep_research_runs_in_a_fresh_explore_context_and_returns_a_summary(
    tmp_path: Path,
) -> None:
    agent, parent, explore, _ = agents(research_library(tmp_path))
    parent.push(tool_calls(("load_skill", {"skill_name": "deep-research"})))
    explore.push(
        tool_calls(("Glob", {"pattern": "**/*.py"}), ("Grep", {"pattern": "login"})),
        tool_calls(("Read", {"path": "auth/session.py"})),
        AIMessage(content="Login lives in auth/session.py:12."),
    )
    config: Any = {"configurable": {"thread_id": "t"}}
    agent.invoke({"messages": [HumanMessage("How does login work? secret-context")]}, config)
    first = explore.requests[0]["messages"]
    humans = [m for m in first if isinstance(m, HumanMessage)]
    # The skill's content is the subagent's task; it sees none of the conversation.
    assert [m.text for m in humans] == [RESEARCH]
    assert not any("secret-context" in m.text or "Main agent." in m.text for m in first)
    # Only the subagent's own (read-only) tools beside the skill tools.
    offered = set(explore.tool_names(0)) - {
        "load_skill",
        "unload_skill",
        "load_skill_resource",
        "search_skills",
    }
    assert offered == {"Read", "Grep", "Glob"}
    # The subagent's intermediate tool output stays in its context; the parent gets the summary.
    last = parent.requests[-1]["messages"]
    (reply,) = [m for m in last if isinstance(m, ToolMessage)]
    assert "Login lives in auth/session.py:12." in reply.text
    assert not any("def login(" in m.text for m in last)


def test_a_forked_skill_without_agent_runs_in_general_purpose(tmp_path: Path) -> None:
    agent, parent, explore, general = agents(research_library(tmp_path))
    parent.push(tool_calls(("load_skill", {"skill_name": "summarize-diff"})))
    general.push(AIMessage(content="One file changed."))
    agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}})
    assert explore.requests == []
    assert [m.text for m in general.requests[0]["messages"] if isinstance(m, HumanMessage)] == [
        "Summarize the current diff."
    ]
