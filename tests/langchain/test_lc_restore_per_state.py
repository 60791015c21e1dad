"""Many conversations at once in one worker: each saved session is read (validated against
the catalog) once per state object, however the threads' hooks interleave. A worker runs
dozens of threads; one remembered slot for all of them made every hook of one conversation
re-read its state after another conversation's hook ran."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.state import restore as restore_module
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

THREADS = ("one", "two")


def _step(messages: list[BaseMessage]) -> AIMessage:
    """Call ``Meet`` after the user's message, then answer."""
    if isinstance(messages[-1], HumanMessage):
        return tool_calls("Meet")
    return AIMessage(content="done")


def _restores(skills: Path, monkeypatch: pytest.MonkeyPatch, *, together: bool) -> int:
    """Sessions read while both conversations (each with a skill loaded) run one turn that
    calls ``Meet``: at once (their tool calls wait for each other) or one after the other."""
    meeting = threading.Barrier(2 if together else 1, timeout=20)

    @tool("Meet")
    def meet() -> str:
        """Wait for the other conversation."""
        meeting.wait()
        return "met"

    model = ScriptedChatModel()
    mw = SkillsMiddleware(skills)
    agent = create_agent(
        model, [*plain_tools(), meet], middleware=[mw], checkpointer=InMemorySaver()
    )

    def config(thread: str) -> Any:
        return {"configurable": {"thread_id": thread}}

    for thread in THREADS:  # a saved session on each thread
        model.push(tool_calls(("load_skill", {"skill_name": "beta"})))
        agent.invoke({"messages": [HumanMessage("load")]}, config(thread))
    read: list[Any] = []
    real = restore_module.restore_session

    def counting(state: Any, *args: Any, **kwargs: Any) -> Any:
        read.append(state)
        return real(state, *args, **kwargs)

    monkeypatch.setattr(restore_module, "restore_session", counting)
    model.push(*[_step] * (2 * len(THREADS)))
    errors: list[BaseException] = []

    def run(thread: str) -> None:
        try:
            agent.invoke({"messages": [HumanMessage("meet")]}, config(thread))
        except BaseException as exc:  # reported by the test thread
            errors.append(exc)

    if together:
        workers = [threading.Thread(target=run, args=(t,)) for t in THREADS]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    else:
        for thread in THREADS:
            run(thread)
    monkeypatch.setattr(restore_module, "restore_session", real)
    assert not errors, errors
    assert all(isinstance(s, dict) and s.get("loaded") for s in read)  # the saved sessions
    return len(read)


def test_interleaved_conversations_read_each_saved_session_as_often_as_alone(
    skills: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _restores(skills, monkeypatch, together=False)
    assert alone == len(THREADS)  # once per run: its hooks share the state object
    assert _restores(skills, monkeypatch, together=True) == alone
