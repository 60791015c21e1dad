"""A forked skill in a deep agent: the subagent is a deepagents ``SubAgent`` spec, compiled by
deepagents' own ``create_sub_agent`` with the subagent's skill middleware added, and run under
the forked skill's allowed-tools; the deep agent's session is unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends import StateBackend
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.deepagents import create_deep_agent
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


def test_a_forked_skill_runs_in_a_deepagents_subagent_spec(tmp_path: Path) -> None:
    lib = tmp_path / "skills"
    fork = "context: fork\nagent: researcher\nallowed-tools: Read\n"
    write_skill(lib, "research", "Research things.", "Find where X is defined.", fork)
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    child.push(tool_calls("Write", "Read"), AIMessage(content="X is in a.py"))
    spec: dict[str, Any] = {
        "name": "researcher",
        "description": "Researches.",
        "system_prompt": "You research.",
        "model": child,
        "tools": plain_tools(),
    }
    skills = SkillsMiddleware(lib, allowed_tools_policy="restrict", subagents={"researcher": spec})
    agent = create_deep_agent(
        model=parent, backend=StateBackend(), middleware=[skills], checkpointer=InMemorySaver()
    )
    parent.push(tool_calls(("load_skill", {"skill_name": "research"})))
    config: Any = {"configurable": {"thread_id": "t"}}
    out = agent.invoke({"messages": [HumanMessage("go")]}, config)
    (reply,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert "X is in a.py" in reply.text and reply.status == "success"
    assert "You research." in child.system(0)
    write, read = [m for m in child.requests[-1]["messages"] if isinstance(m, ToolMessage)]
    assert write.status == "error" and write.artifact == {"code": "TOOL_BLOCKED"}
    assert read.status == "success"
    state = agent.get_state(config).values
    assert skills.session_for(state).loaded_names == ()
