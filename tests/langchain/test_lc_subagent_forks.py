"""Forked skills (``context: fork``) and subagent scoping through ``create_agent``: the skill's
instructions become the task of a subagent (a real LangGraph agent with its own scripted
model), which runs with its own skill session under the forked skill's allowed-tools; the
parent gets its answer as the tool reply and its own session does not change."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

FORK = "context: fork\nagent: Explore\n"


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "explore",
        "Explore the code.",
        "Find where X is defined.",
        FORK + "allowed-tools: Read\n",
    )
    write_skill(root, "stray", "Stray fork.", "Go.", "context: fork\nagent: Nobody\n")
    write_skill(
        root, "wide", "Read and write.", "Wide says: anything.", "allowed-tools: Read Write\n"
    )
    write_skill(root, "readonly", "Only read.", "Readonly says: read.", "allowed-tools: Read\n")
    write_skill(root, "secret", "A subagent-only skill.", "Secret steps.")
    write_skill(root, "private", "Denied to Explore.", "Private steps.")
    return root


def build(library: Path, model: Any, child: Any, **knobs: Any) -> tuple[Any, SkillsMiddleware]:
    def explore(skills: SkillsMiddleware) -> Any:
        return create_agent(child, plain_tools(), system_prompt="You explore.", middleware=[skills])

    mw = SkillsMiddleware(library, subagents={"Explore": explore}, **knobs)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    return agent, mw


def go(agent: Any, use_async: bool = False, thread: str = "t") -> dict[str, Any]:
    config: Any = {"configurable": {"thread_id": thread}}
    payload: Any = {"messages": [HumanMessage("go")]}
    if use_async:
        return asyncio.run(agent.ainvoke(payload, config))  # type: ignore[no-any-return]
    return agent.invoke(payload, config)  # type: ignore[no-any-return]


def loaded(agent: Any, mw: SkillsMiddleware, thread: str = "t") -> tuple[str, ...]:
    """The parent's loaded skills, from its checkpointed state."""
    state = agent.get_state({"configurable": {"thread_id": thread}}).values
    return mw.session_for(state).loaded_names


def tool_replies(messages: list[Any]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_forked_skill_runs_in_its_subagent_under_its_allowed_tools(
    library: Path, use_async: bool
) -> None:
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, mw = build(library, parent, child, allowed_tools_policy="restrict")
    parent.push(tool_calls(load("explore")))
    # The child: Write is not allowed by the forked skill; loading a wider skill in the child
    # does not widen it; Read is allowed.
    child.push(tool_calls("Write"), tool_calls(load("wide")), tool_calls("Write", "Read"))
    child.push(tool_calls(text="X is in a.py"))
    child.script[-1].tool_calls = []
    out = go(agent, use_async)
    (fork_reply,) = tool_replies(out["messages"])
    assert fork_reply.status == "success", fork_reply
    assert fork_reply.artifact == {"code": "FORKED"}
    assert "X is in a.py" in fork_reply.text
    # The child got the skill's instructions as its task, in its own context.
    first = child.requests[0]["messages"]
    assert any(isinstance(m, HumanMessage) and "Find where X is defined." in m.text for m in first)
    assert not any(getattr(m, "text", None) == "go" for m in first[1:])
    child_replies = [m for m in child.requests[-1]["messages"] if isinstance(m, ToolMessage)]
    codes = [(m.name, (m.artifact or {}).get("code"), m.status) for m in child_replies]
    assert codes[0] == ("Write", "TOOL_BLOCKED", "error")
    assert codes[2] == ("Write", "TOOL_BLOCKED", "error")
    assert codes[3][0] == "Read" and codes[3][2] == "success"
    # The parent's session is unchanged by the fork and the child's load.
    assert loaded(agent, mw) == ()
    parent.push(tool_calls("Write"))
    (write,) = tool_replies(go(agent, use_async)["messages"][len(out["messages"]) + 1 :])
    assert write.status == "success"


def test_a_subagent_the_agent_does_not_have_is_a_clear_reply(library: Path) -> None:
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, _mw = build(library, parent, child)
    parent.push(tool_calls(load("stray")))
    (reply,) = tool_replies(go(agent)["messages"])
    assert reply.status == "error" and reply.artifact == {"code": "SUBAGENT_UNKNOWN"}
    assert "Nobody" in reply.text and "Explore" in reply.text
    assert child.requests == []


def test_without_subagents_a_forked_skill_is_not_loaded(library: Path) -> None:
    model = ScriptedChatModel()
    mw = SkillsMiddleware(library)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    model.push(tool_calls(load("explore")))
    out = go(agent)
    (reply,) = tool_replies(out["messages"])
    assert reply.status == "error" and reply.artifact == {"code": "FORK"}
    assert "cannot start" in reply.text
    assert loaded(agent, mw) == ()


def test_scoping_hides_and_denies_skills(library: Path) -> None:
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, _mw = build(
        library,
        parent,
        child,
        hidden_skills=["secret"],
        subagent_skills={
            "Explore": {"deny": ["private"], "allow": ["explore", "secret", "wide", "private"]}
        },
    )
    parent.push(tool_calls(load("secret")), tool_calls(load("explore")))
    child.push(tool_calls(load("private")), tool_calls(load("secret")))
    out = go(agent)
    hidden, forked = tool_replies(out["messages"])
    assert hidden.artifact == {"code": "SKILL_NOT_FOUND"}
    assert "secret" not in parent.system(0)
    assert forked.artifact == {"code": "FORKED"}
    # The child's catalog holds only its allowed set, without the denied skill.
    child_system = child.system(0)
    assert "secret" in child_system and "wide" in child_system
    assert "private" not in child_system and "readonly" not in child_system
    loads = tool_replies(child.requests[-1]["messages"])
    assert [(m.artifact or {}).get("code") for m in loads] == ["SKILL_NOT_FOUND", "LOADED"]


def test_an_inheriting_subagent_starts_with_the_parents_skills_and_restrictions(
    library: Path,
) -> None:
    write_skill(library, "explore", "Explore.", "Find X.", FORK + "allowed-tools: Read Write\n")
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, mw = build(
        library, parent, child, allowed_tools_policy="restrict", subagent_inherit="inherit"
    )
    parent.push(tool_calls(load("readonly")), tool_calls(load("explore")))
    child.push(tool_calls("Write", "Read"))
    out = go(agent)
    _loaded, forked = tool_replies(out["messages"])
    assert forked.artifact == {"code": "FORKED"}, forked
    # The inherited skill's instructions reach the child (it has none of the parent's history).
    assert "Readonly says: read." in child.system(0)
    write, read = tool_replies(child.requests[-1]["messages"])
    assert write.status == "error" and write.artifact == {"code": "TOOL_BLOCKED"}
    assert read.status == "success"
    assert loaded(agent, mw) == ("readonly",)


def test_a_subagent_skill_layer_outside_a_fork_blocks_every_plain_tool(library: Path) -> None:
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    _agent, mw = build(library, parent, child)
    graph = mw.subagents.graph("Explore")
    child.push(tool_calls("Read"))
    out = graph.invoke({"messages": [HumanMessage("hi")]})
    (read,) = tool_replies(out["messages"])
    assert read.status == "error" and read.artifact == {"code": "TOOL_BLOCKED"}


def test_a_compiled_subagent_is_refused_at_build_time(library: Path) -> None:
    with pytest.raises(TypeError, match="compiled subagent"):
        SkillsMiddleware(library, subagents={"Explore": {"name": "Explore", "runnable": object()}})


def test_a_forked_child_runs_no_script_its_skill_does_not_allow(library: Path) -> None:
    from skillcore.testing.script_runner import RecordingRunner

    scripted = write_skill(
        library, "runner", "Runs.", "Run it.", "allowed-tools: run_skill_script\n"
    )
    (scripted / "scripts").mkdir()
    (scripted / "scripts" / "go.py").write_text("print('ran')\n")
    runner = RecordingRunner()
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, _mw = build(
        library, parent, child, allowed_tools_policy="restrict", script_runner=runner
    )
    parent.push(tool_calls(load("explore")))
    run = ("run_skill_script", {"skill_name": "runner", "script": "scripts/go.py", "args": []})
    child.push(tool_calls(load("runner")), tool_calls(run))
    go(agent)
    _loaded, script = tool_replies(child.requests[-1]["messages"])
    assert script.status == "error" and script.artifact == {"code": "TOOL_BLOCKED"}, script
    assert runner.requests == []


def test_a_padded_skill_name_forks_as_the_toolkit_reads_it(library: Path) -> None:
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, _mw = build(library, parent, child)
    parent.push(tool_calls(("load_skill", {"skill_name": "  explore "})))
    child.push(AIMessage(content="found"))
    (reply,) = tool_replies(go(agent)["messages"])
    assert reply.artifact == {"code": "FORKED"} and "found" in reply.text, reply
