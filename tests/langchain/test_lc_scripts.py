"""``run_skill_script`` through ``create_agent``: the example ``csv-data-audit`` profiler run
end to end, and approval with LangChain's own ``HumanInTheLoopMiddleware`` (a checkpointer,
resumed with approve and with reject)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from skillcore.testing.script_runner import RecordingRunner
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

CFG: Any = {"configurable": {"thread_id": "t1"}}
RUN = {
    "skill_name": "csv-data-audit",
    "script": "scripts/profile_csv.py",
    "args": ["-"],
    "stdin": "id,amount\n1,10\n2,x\n2,x\n",
}


def _agent(examples: Path, runner: RecordingRunner, *middleware: Any) -> tuple[Any, Any]:
    model = ScriptedChatModel()
    model.push(tool_calls(("load_skill", {"skill_name": "csv-data-audit"})))
    model.push(tool_calls(("run_skill_script", RUN)))
    model.push(AIMessage("done"))
    mw = SkillsMiddleware(examples, script_runner=runner, script_isolation="process")
    agent = create_agent(
        model, plain_tools(), middleware=[mw, *middleware], checkpointer=InMemorySaver()
    )
    return agent, model


def _script_reply(out: dict[str, Any]) -> ToolMessage:
    (msg,) = [
        m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "run_skill_script"
    ]
    return msg


def test_profiler_runs_end_to_end(examples: Path) -> None:
    runner = RecordingRunner()
    agent, _ = _agent(examples, runner)
    out = agent.invoke({"messages": [HumanMessage("audit this")]}, CFG)
    reply = _script_reply(out)
    assert 'exit_code="1"' in str(reply.content) and "amount" in str(reply.content), reply
    assert reply.status != "error" and len(runner.requests) == 1


@pytest.mark.parametrize("decision", ["approve", "reject"])
def test_human_in_the_loop_middleware(examples: Path, decision: str) -> None:
    runner = RecordingRunner()
    hitl = HumanInTheLoopMiddleware(interrupt_on={"run_skill_script": True})
    agent, _ = _agent(examples, runner, hitl)
    first = agent.invoke({"messages": [HumanMessage("audit this")]}, CFG)
    assert "__interrupt__" in first and runner.requests == []
    answer: dict[str, Any] = {"type": decision}
    if decision == "reject":
        answer["message"] = "not now"
    out = agent.invoke(Command(resume={"decisions": [answer]}), CFG)
    reply = _script_reply(out)
    if decision == "approve":
        assert 'exit_code="1"' in str(reply.content) and len(runner.requests) == 1
    else:
        assert runner.requests == [] and "not now" in str(reply.content)
