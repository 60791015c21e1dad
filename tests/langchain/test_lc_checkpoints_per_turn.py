"""The skills layer adds no checkpoint to a turn: the run-start work (refresh, seeding,
configured and requested skills, a repair, the user's ``/name`` invocation) runs inside the
run's first model call, whose own update carries any state change, so a turn writes as many
checkpoints as the same agent without the middleware (through the real agent runtime with a
counting ``InMemorySaver`` and ``SqliteSaver``), sync and async."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from tests.core.hooks.fixtures import hook_skills

from skillcore.runner import Isolation
from skillcore.testing.script_runner import RecordingRunner
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


class Counting(InMemorySaver):
    """The in-memory checkpointer, counting the checkpoints it saves."""

    def __init__(self) -> None:
        super().__init__()
        self.saved = 0

    def put(self, *args: Any, **kwargs: Any) -> Any:
        self.saved += 1
        return super().put(*args, **kwargs)

    async def aput(self, *args: Any, **kwargs: Any) -> Any:
        self.saved += 1
        return await super().aput(*args, **kwargs)


def saved_per_turn(middleware: list[Any], *, run_async: bool = False) -> list[int]:
    """Checkpoints saved by each of three turns (a ``Read`` call, then an answer)."""
    saver, model = Counting(), ScriptedChatModel()
    agent = create_agent(model, plain_tools(), middleware=middleware, checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "t"}}
    counts = []
    for _ in range(3):
        model.push(tool_calls("Read"))
        before = saver.saved
        if run_async:
            asyncio.run(agent.ainvoke({"messages": [HumanMessage("go")]}, config))
        else:
            agent.invoke({"messages": [HumanMessage("go")]}, config)
        counts.append(saver.saved - before)
    return counts


@pytest.mark.parametrize("run_async", [False, True])
def test_a_turn_saves_no_more_checkpoints_than_without_skills(
    skills: Path, run_async: bool
) -> None:
    without = saved_per_turn([], run_async=run_async)
    assert saved_per_turn([SkillsMiddleware(skills)], run_async=run_async) == without
    # A run-start change (a pinned skill loaded on the first turn) rides on the model call.
    pinned = SkillsMiddleware(skills, pinned_skills=["beta"])
    assert saved_per_turn([pinned], run_async=run_async) == without


@pytest.fixture
def sqlite_saver(tmp_path: Path) -> Iterator[Any]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(tmp_path / "cp.db")) as saver:
        yield saver


def test_run_start_changes_persist_with_the_model_call(skills: Path, sqlite_saver: Any) -> None:
    """A pinned skill and a run's requested load are saved with the first model call: the
    same turn's tool calls see them, and a new agent on the same database reads them."""
    model = ScriptedChatModel()
    mw = SkillsMiddleware(skills, pinned_skills=["beta"], allowed_tools_policy="restrict")
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=sqlite_saver)
    config: Any = {"configurable": {"thread_id": "s"}}
    model.push(tool_calls("Write"))
    out = agent.invoke({"messages": [HumanMessage("go")], "skillcore_load": ["alpha"]}, config)
    replies = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert replies[-1].status == "error"  # alpha (loaded at the run start) restricts Write
    fresh = SkillsMiddleware(skills, allowed_tools_policy="restrict")
    saved = sqlite_saver.get_tuple(config).checkpoint["channel_values"]
    assert fresh.session_for(saved).loaded_names == ("beta", "alpha")
    assert saved.get("skillcore_load") is None


class CallsTwice(AgentMiddleware[Any, Any, Any]):
    """An outer middleware that calls the model again after a first answer (as a retry does)."""

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        handler(request)
        return handler(request)

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        await handler(request)
        return await handler(request)


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_retried_model_call_starts_the_run_once(
    make_agent: Any, model: ScriptedChatModel, run: Any, tmp_path: Path, use_async: bool
) -> None:
    """The once-a-run work (here the loaded skill's SessionStart hook) runs once per user
    message, however often an outer middleware calls the model."""
    runner = RecordingRunner(Isolation.LIMITS)
    root = hook_skills(tmp_path / "skills")
    mw = {"script_runner": runner, "pinned_skills": ["guard"], "extra_middleware": (CallsTwice(),)}
    agent, _ = make_agent(root, **mw)
    for turn in (1, 2):
        model.push(tool_calls("Read"), tool_calls("Read"))
        run(agent, use_async=use_async)
        assert len([r for r in runner.requests if b'"SessionStart"' in r.stdin]) == turn
