"""A run's request to load skills (``skillcore_load``) through create_agent: honoured on any
run of a thread, its instructions in that run's model request, cleared once applied."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.runtime import loaded_names_of
from skillcore.testing import EventRecorder, write_skill
from skillcore_langchain import STATE_KEY, SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools

CFG: Any = {"configurable": {"thread_id": "t1"}}
#: The input key (spelled out: it is the public contract).
LOAD_KEY = "skillcore_load"


def _agent(model: ScriptedChatModel, skills: Any, **knobs: Any) -> Any:
    mw = SkillsMiddleware(skills, **knobs)
    return create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())


def _run(agent: Any, use_async: bool, text: str, **extra: Any) -> Any:
    payload = {"messages": [HumanMessage(text)], **extra}
    return asyncio.run(agent.ainvoke(payload, CFG)) if use_async else agent.invoke(payload, CFG)


def _loaded(agent: Any) -> list[str]:
    return loaded_names_of(agent.get_state(CFG).values.get(STATE_KEY))


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_second_run_loads_requested_skill_and_model_sees_it(
    model: ScriptedChatModel, skills: Any, use_async: bool
) -> None:
    agent = _agent(model, skills)
    _run(agent, use_async, "hi")
    assert _loaded(agent) == [] and "Beta says" not in model.system(0)
    out = _run(agent, use_async, "use beta", **{LOAD_KEY: ["beta"]})
    assert _loaded(agent) == ["beta"]
    assert "Beta says: anything goes." in model.system(), "this run's request has the body"
    assert LOAD_KEY not in out, "input-only"
    assert agent.get_state(CFG).values.get(LOAD_KEY) is None, "cleared once applied"
    _run(agent, use_async, "more")  # no request: nothing new loaded
    assert _loaded(agent) == ["beta"]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_single_name_given_as_a_string_is_loaded(
    model: ScriptedChatModel, skills: Any, use_async: bool
) -> None:
    # Not silently ignored: "beta" means ["beta"].
    agent = _agent(model, skills)
    _run(agent, use_async, "use beta", **{LOAD_KEY: "beta"})
    assert _loaded(agent) == ["beta"]
    assert "Beta says: anything goes." in model.system()
    assert agent.get_state(CFG).values.get(LOAD_KEY) is None, "cleared once applied"


def test_request_follows_model_rules_and_reports_skips(
    model: ScriptedChatModel, skills: Any
) -> None:
    write_skill(skills, "hidden", "Hidden.", "Hidden body.", "disable-model-invocation: true\n")
    agent = _agent(model, skills, max_loaded_skills=2)
    _run(agent, False, "hi", **{LOAD_KEY: ["alpha"]})
    with EventRecorder() as rec:
        _run(agent, False, "more", **{LOAD_KEY: ["nope", "hidden", "beta", "gamma"]})
    # beta fills the last slot; gamma is refused, nothing is evicted.
    assert _loaded(agent) == ["alpha", "beta"]
    skipped = {
        (e.fields["skill"], e.fields["code"])
        for e in rec.events
        if e.name == "load_request.skipped"
    }
    assert skipped == {
        ("nope", "SKILL_NOT_FOUND"),
        ("hidden", "DISABLED"),
        ("gamma", "LOAD_LIMIT_REACHED"),
    }


@pytest.mark.parametrize(
    "bad",
    [{"beta": 1}, [1, 2], ["x" * 500], ["beta"] * 40],
    ids=["dict", "ints", "long-name", "too-many"],
)
def test_bad_request_is_ignored_with_a_warning(
    model: ScriptedChatModel, skills: Any, bad: Any
) -> None:
    agent = _agent(model, skills, default_skills=["gamma"])
    # Shown through ``warnings`` too: the event alone is silent without logging set up.
    with EventRecorder() as rec, pytest.warns(UserWarning, match="load request ignored"):
        _run(agent, False, "hi", **{LOAD_KEY: bad})
    assert _loaded(agent) == ["gamma"], "session intact, the request ignored whole"
    assert rec.names().count("load_request.ignored") == 1
    _run(agent, False, "next")
    assert _loaded(agent) == ["gamma"]
