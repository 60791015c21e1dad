"""Configured skills through create_agent: default skills at a thread's start, pinned skills
on every run, their instructions in the first model request."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore import OutcomeCode
from skillcore.runtime import loaded_names_of
from skillcore_langchain import STATE_KEY, SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


def _agent(model: ScriptedChatModel, skills: Any, **knobs: Any) -> tuple[Any, SkillsMiddleware]:
    mw = SkillsMiddleware(skills, **knobs)
    return create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver()), mw


def _runner(agent: Any, use_async: bool, thread: str = "t1") -> Any:
    cfg: Any = {"configurable": {"thread_id": thread}}

    def run(text: str, **extra: Any) -> Any:
        payload = {"messages": [HumanMessage(text)], **extra}
        return asyncio.run(agent.ainvoke(payload, cfg)) if use_async else agent.invoke(payload, cfg)

    run.loaded = lambda: loaded_names_of(agent.get_state(cfg).values.get(STATE_KEY))  # type: ignore[attr-defined]
    return run


def _replies(out: dict[str, Any], name: str) -> list[ToolMessage]:
    return [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == name]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_default_skill_reaches_first_request_and_can_be_unloaded(
    model: ScriptedChatModel, skills: Any, use_async: bool
) -> None:
    agent, _ = _agent(model, skills, default_skills=["beta"])
    run = _runner(agent, use_async)
    run("hi")
    first = model.system(0)
    assert "Beta says: anything goes." in first and "[Loaded]" not in first, first
    assert run.loaded() == ["beta"]
    model.push(tool_calls(("unload_skill", {"skill_name": "beta"})))
    out = run("drop it")
    assert _replies(out, "unload_skill")[-1].status != "error"
    assert run.loaded() == []
    run("next")  # default skills only at the start: not loaded again
    assert run.loaded() == [] and "Beta says" not in model.system()
    other = _runner(agent, use_async, "t2")
    other("new thread")
    assert other.loaded() == ["beta"] and "Beta says: anything goes." in model.system()


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_pinned_skill_refuses_unload_and_returns_after_state_loss(
    model: ScriptedChatModel, skills: Any, use_async: bool
) -> None:
    agent, _ = _agent(model, skills, pinned_skills=["alpha"], allowed_tools_policy="restrict")
    run = _runner(agent, use_async)
    model.push(tool_calls(("unload_skill", {"skill_name": "alpha"}), "Write"))
    out = run("hi")
    assert "Alpha says: only read." in model.system(0)
    refused = _replies(out, "unload_skill")[-1]
    assert refused.status == "error" and "pinned" in refused.text
    assert refused.artifact == {"code": OutcomeCode.PINNED.value}
    assert _replies(out, "Write")[-1].status == "error", "the pinned skill restricts tools"
    assert run.loaded() == ["alpha"]
    # State lost (reset by hand): the next run loads the pinned skill again.
    cfg: Any = {"configurable": {"thread_id": "t1"}}
    agent.update_state(cfg, {STATE_KEY: {"schema": "skillcore.session/1", "loaded": []}})
    run("again")
    assert run.loaded() == ["alpha"] and "Alpha says: only read." in model.system()


def test_unknown_and_disabled_configured_skills_are_skipped(
    model: ScriptedChatModel, skills: Any
) -> None:
    from skillcore.testing import EventRecorder, write_skill

    write_skill(skills, "hidden", "Hidden.", "Hidden body.", "disable-model-invocation: true\n")
    agent, _ = _agent(model, skills, default_skills=["nope", "hidden", "beta"])
    run = _runner(agent, False)
    with EventRecorder() as rec:
        run("hi")
        run("again", **{})
    assert run.loaded() == ["beta"]
    skipped = [e for e in rec.events if e.name == "preload.skipped"]
    assert [(e.fields["skill"], e.fields["code"]) for e in skipped] == [
        ("nope", "SKILL_NOT_FOUND"),
        ("hidden", "DISABLED"),
    ]
