"""User invocation through create_agent, written from Claude Code's published skills
documentation: ``/name args`` loads the skill with its arguments (user-only skills included),
``user-invocable: false`` is refused with a reply, and nothing happens without the flag."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.runtime import loaded_names_of
from skillcore.testing import write_skill
from skillcore_langchain import STATE_KEY, SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "deploy",
        "Deploy the application.",
        "Deploy $0 to $1 now. Session ${CLAUDE_SESSION_ID}.",
        "disable-model-invocation: true\nallowed-tools: Read\nargument-hint: <app> <env>\n",
    )
    write_skill(root, "fix-issue", "Fix a GitHub issue.", "Fix GitHub issue $ARGUMENTS.")
    write_skill(
        root, "legacy", "Legacy system knowledge.", "Legacy notes.", "user-invocable: false\n"
    )
    return root


def _run(agent: Any, text: str, use_async: bool, thread: str = "t1") -> dict[str, Any]:
    cfg: Any = {"configurable": {"thread_id": thread}}
    payload = {"messages": [HumanMessage(text)]}
    return asyncio.run(agent.ainvoke(payload, cfg)) if use_async else agent.invoke(payload, cfg)


def _agent(model: ScriptedChatModel, library: Path, **knobs: Any) -> Any:
    mw = SkillsMiddleware(str(library), allowed_tools_policy="restrict", **knobs)
    return create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_slash_invocation_loads_a_user_only_skill_with_its_arguments(
    library: Path, use_async: bool
) -> None:
    model = ScriptedChatModel()
    agent = _agent(model, library, user_invocation=True)
    model.push(tool_calls("Write"), AIMessage(content="deployed"))
    out = _run(agent, "/deploy web staging", use_async)
    first = model.requests[0]["messages"]
    # The model sees the user's message, then a load call answered with the instructions.
    assert isinstance(first[1], HumanMessage) and first[1].text == "/deploy web staging"
    call, reply = first[2], first[3]
    assert isinstance(call, AIMessage) and call.tool_calls[0]["name"] == "load_skill"
    assert isinstance(reply, ToolMessage) and reply.tool_call_id == call.tool_calls[0]["id"]
    assert "Deploy web to staging now. Session t1." in reply.text
    # Its instructions are not repeated in the system prompt (the reply delivers them),
    # and the user-only skill is still absent from the model's catalog.
    assert "Deploy web" not in model.system(0) and "deploy" not in model.system(0)
    # Loaded: its allowed-tools restrict the agent (Write is blocked).
    cfg: Any = {"configurable": {"thread_id": "t1"}}
    assert loaded_names_of(agent.get_state(cfg).values.get(STATE_KEY)) == ["deploy"]
    write = [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "Write"]
    assert write and write[-1].status == "error"


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_not_user_invocable_is_answered_without_calling_the_model(
    library: Path, use_async: bool
) -> None:
    model = ScriptedChatModel()
    agent = _agent(model, library, user_invocation=True)
    out = _run(agent, "/legacy now", use_async)
    assert model.requests == []
    last = out["messages"][-1]
    assert isinstance(last, AIMessage) and "cannot be invoked by the user" in last.text


def test_without_the_flag_and_for_ordinary_text_nothing_is_invoked(library: Path) -> None:
    model = ScriptedChatModel()
    agent = _agent(model, library)
    _run(agent, "/fix-issue 12", False)
    assert [type(m).__name__ for m in model.requests[0]["messages"]] == [
        "SystemMessage",
        "HumanMessage",
    ]
    model2 = ScriptedChatModel()
    agent2 = _agent(model2, library, user_invocation=True)
    _run(agent2, "please /fix-issue 12", False)
    _run(agent2, "/unknown thing", False)
    assert all(len(r["messages"]) == 2 for r in model2.requests[:1])
    assert not any(isinstance(m, ToolMessage) for r in model2.requests for m in r["messages"])


def test_a_second_invocation_delivers_the_new_arguments(library: Path) -> None:
    model = ScriptedChatModel()
    agent = _agent(model, library, user_invocation=True)
    _run(agent, "/fix-issue 1", False)
    _run(agent, "/fix-issue 2", False)
    replies = [m for m in model.requests[-1]["messages"] if isinstance(m, ToolMessage)]
    assert [("issue 1" in r.text, "issue 2" in r.text) for r in replies] == [
        (True, False),
        (False, True),
    ]
