"""A turn's earlier skill call that starts late (its thread is scheduled after a later plain
call's, as happens on a loaded machine) must not change what the plain call is allowed to
do: one process decides ``[unload_skill(restricting), Write]`` as the model's order says,
however the threads are scheduled. An earlier call that never reaches skillcore (another
middleware answers it) still never lifts a restriction."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

#: How late the first call starts, in multiples of the store's arrival wait.
LATE = 4


class StartsLate(AgentMiddleware):
    """Outer middleware: the turn's first call reaches skillcore late (or, with
    ``answer``, never: this middleware answers it itself)."""

    def __init__(self, delay: float, answer: bool = False) -> None:
        self.delay, self.answer = delay, answer

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call["name"] == "unload_skill":
            time.sleep(self.delay)
            if self.answer:
                return ToolMessage("stopped here", tool_call_id=request.tool_call["id"])
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call["name"] == "unload_skill":
            await asyncio.sleep(self.delay)
            if self.answer:
                return ToolMessage("stopped here", tool_call_id=request.tool_call["id"])
        return await handler(request)


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "skill-00", "Restricts.", "Zero: only Read.", "allowed-tools: Read\n")
    return root


def run(lib: Path, answer: bool, use_async: bool) -> list[ToolMessage]:
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "skill-00"})),
        AIMessage("loaded"),
        tool_calls(("unload_skill", {"skill_name": "skill-00"}), "Write"),
    )
    mw = SkillsMiddleware(lib, allowed_tools_policy="restrict")
    mw.turns.arrival_seconds = 0.05
    mw.turns.confirm_seconds = 0.5
    late = StartsLate(mw.turns.arrival_seconds * LATE, answer)
    agent = create_agent(model, plain_tools(), middleware=[late, mw], checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    if use_async:
        asyncio.run(agent.ainvoke({"messages": [HumanMessage("load")]}, config))
        run = agent.ainvoke({"messages": [HumanMessage("unload and write")]}, config)
        out = asyncio.run(run)
    else:
        agent.invoke({"messages": [HumanMessage("load")]}, config)
        out = agent.invoke({"messages": [HumanMessage("unload and write")]}, config)
    return [m for m in out["messages"][-4:] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_late_unload_still_comes_before_the_write(lib: Path, use_async: bool) -> None:
    unload, write = run(lib, answer=False, use_async=use_async)
    assert unload.status == "success", unload.content
    assert write.status == "success", write.content


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_an_unload_answered_elsewhere_never_lifts_restrict(lib: Path, use_async: bool) -> None:
    unload, write = run(lib, answer=True, use_async=use_async)
    assert unload.content == "stopped here"
    assert write.status == "error", write.content
