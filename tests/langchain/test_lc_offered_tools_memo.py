"""The tools a model call may see are worked out once per session object: the model calls
of a turn whose state did not change ask the session again for the same answer. The memo is
bounded, keyed by the session object (immutable) and the names asked about, and dropped with
its catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from skillcore import SkillSession
from skillcore.testing import make_gated_library
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain._requests import OfferedTools
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


@tool
def deploy(target: str = "prod") -> str:
    """Deploy the service."""
    return f"deployed {target}"


@pytest.fixture
def gated(tmp_path: Path) -> Path:
    return make_gated_library(tmp_path / "skills")


def test_a_turn_asks_each_session_once_and_offers_the_same_tools(
    gated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[SkillSession] = []
    real = SkillSession.offered_tools

    def counting(self: SkillSession, *args: Any, **kwargs: Any) -> list[str]:
        asked.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SkillSession, "offered_tools", counting)
    model = ScriptedChatModel()
    mw = SkillsMiddleware(gated, tools=[deploy], allowed_tools_policy="restrict")
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}}
    # Two model calls on the state before any load, then two after the load.
    model.push(tool_calls("Read"), tool_calls(("load_skill", {"skill_name": "release"})))
    model.push(tool_calls("deploy"), tool_calls("Read"))
    agent.invoke({"messages": [HumanMessage("go")]}, config)
    offered = [model.tool_names(i) for i in range(5)]
    assert all("deploy" not in names for names in offered[:2]), offered
    assert all("deploy" in names for names in offered[2:]), offered
    assert len(asked) < 5, "each session object is asked once, not once per model call"
    assert len({id(s) for s in asked}) == len(asked)


def test_bounded_and_keyed_by_the_session_and_the_names(gated: Path) -> None:
    mw = SkillsMiddleware(gated, tools=[deploy])
    empty = mw.session_for(None)
    release = mw.toolkit.load_all(empty, ["release"])[0]
    ops = mw.toolkit.load_all(empty, ["ops"])[0]
    memo = OfferedTools(2)
    names = ("Read", "deploy")
    assert memo(empty, names, False) == {"Read"}
    assert memo(release, names, False) == {"Read", "deploy"}
    assert memo(release, ("deploy",), False) == {"deploy"}  # other names: asked again
    assert memo(ops, names, False) == {"Read", "deploy"}
    kept = memo._memo(empty.catalog)
    assert len(kept) == 2 and id(empty) not in kept  # the oldest dropped
    assert memo(empty, names, False) == {"Read"}
