"""A load of a loaded skill whose load reply is not in the thread's messages sends it again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore import OutcomeCode
from skillcore_langchain import SEED_KEY, SkillsMiddleware
from skillcore_langchain.testing import plain_tools, tool_calls

CFG: Any = {"configurable": {"thread_id": "thread-1"}}
MARK = '<skill_content name="alpha">'


def _load_replies(out: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "load_skill"]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_seeded_skill_load_redelivers_then_already_loaded(model, skills, use_async) -> None:
    agent = create_agent(
        model, plain_tools(), middleware=[SkillsMiddleware(skills)], checkpointer=InMemorySaver()
    )

    def run(payload: dict[str, Any]) -> Any:
        return asyncio.run(agent.ainvoke(payload, CFG)) if use_async else agent.invoke(payload, CFG)

    # Seeded: loaded, but no load reply was ever in the conversation.
    model.push(tool_calls(("load_skill", {"skill_name": "alpha"})))
    out = run({"messages": [HumanMessage("hi")], SEED_KEY: ["alpha"]})
    reply = _load_replies(out)[-1]
    assert reply.status != "error" and reply.text.startswith(MARK), reply
    assert reply.artifact == {"code": OutcomeCode.REDELIVERED.value}
    # Now the reply is in the history: a further load is ALREADY_LOADED.
    model.push(tool_calls(("load_skill", {"skill_name": "alpha"})))
    again = _load_replies(run({"messages": [HumanMessage("again")]}))[-1]
    assert again.artifact == {"code": OutcomeCode.ALREADY_LOADED.value}, again
