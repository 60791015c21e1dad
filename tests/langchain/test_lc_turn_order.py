"""Calls of one AIMessage are decided in call order through create_agent with a checkpointer
(DESIGN §3.8), and unreadable or tampered saved state never breaks a thread."""

from __future__ import annotations

from typing import Any

import pytest

from skillcore.runtime import STATE_SCHEMA, loaded_names_of
from skillcore_langchain.middleware import STATE_KEY
from skillcore_langchain.testing import tool_calls


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


def unload(name: str) -> tuple[str, dict[str, Any]]:
    return ("unload_skill", {"skill_name": name})


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_write_after_a_restricting_load_in_the_same_turn_is_blocked(
    make_agent, model, run, skills, helpers, use_async
) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    model.push(tool_calls(load("alpha"), "Write"))
    r_load, r_write = helpers.replies(run(agent, use_async=use_async))
    assert r_load.status == "success"
    assert r_write.status == "error" and r_write.artifact == {"code": "TOOL_BLOCKED"}, r_write


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_write_after_the_unload_in_the_same_turn_runs(
    make_agent, model, run, skills, helpers, use_async
) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    model.push(tool_calls(load("alpha")))
    run(agent, use_async=use_async)
    model.push(tool_calls(unload("alpha"), "Write"))
    r_unload, r_write = helpers.replies(run(agent, use_async=use_async))
    assert r_unload.status == "success"
    assert r_write.status == "success", r_write


@pytest.mark.parametrize(
    "bad",
    [
        {
            "schema": STATE_SCHEMA,
            "loaded": [{"name": "alpha", "resources": [["a", "reference", float("inf")]]}],
        },
        {"schema": STATE_SCHEMA, "loaded": [{"name": "alpha", "allowed_tools": ["*"]}]},
        {"schema": STATE_SCHEMA, "loaded": [{"name": "alpha", "allowed_tools": None}]},
    ],
    ids=["infinity", "star", "null"],
)
def test_tampered_seed_never_breaks_the_thread(
    make_agent, model, run, skills, helpers, bad
) -> None:
    """A bad seed in the checkpoint: every later turn still works, and a stored allowed-tools
    value never widens the catalog's."""
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    config: Any = {"configurable": {"thread_id": "t"}}
    model.push(tool_calls("Write"))
    agent.invoke({"messages": [{"role": "user", "content": "go"}], "skillcore_seed": bad}, config)
    for _ in range(2):
        model.push(tool_calls("Write"))
        (reply,) = helpers.replies(run(agent))
        if "allowed_tools" in str(bad):
            assert reply.status == "error", "alpha-tools allows only Read"
    state = agent.get_state(config).values.get(STATE_KEY)
    assert loaded_names_of(state) in ([], ["alpha"])


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_more_calls_than_worker_threads_keep_call_order(
    make_agent, model, run, skills, helpers, use_async
) -> None:
    """Sixteen calls in one turn (more than the tool node's threads): no deadlock, and each
    Write is decided by the loads and unloads before it."""
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    calls = ["Write"] * 4 + [load("alpha")] + ["Write"] * 5 + [unload("alpha")] + ["Write"] * 5
    model.push(tool_calls(*calls))
    out = helpers.replies(run(agent, use_async=use_async))
    writes = [m.status for m in out if m.name == "Write"]
    assert writes == ["success"] * 4 + ["error"] * 5 + ["success"] * 5
