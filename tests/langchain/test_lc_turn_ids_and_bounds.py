"""A turn is decided by call position, whatever its ids and length, through create_agent
(DESIGN §3.8, §3.13): a plain call sharing its id with a restricting ``load_skill`` listed
before it, or listed past the per-turn bound, never runs on the turn's starting state."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from skillcore.state.listed_calls import MAX_TURN_CALLS


def calls(*items: tuple[str, dict[str, Any], str]) -> AIMessage:
    """An AIMessage whose tool calls carry the given ids (repeats allowed)."""
    return AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in items])


LOAD = ("load_skill", {"skill_name": "alpha"})


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_repeated_call_id_never_lets_write_run(
    make_agent, model, run, skills, helpers, use_async
) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    model.push(calls((*LOAD, "x"), ("Write", {}, "x")))
    out = helpers.replies(run(agent, use_async=use_async))
    writes = [m for m in out if m.name == "Write"]
    assert writes and all(m.status == "error" for m in writes), out
    assert all(m.artifact["code"] == "TURN_CALL_IDS_REPEAT" for m in out), out


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_repeated_ids_without_a_skill_call_are_decided_as_usual(
    make_agent, model, run, skills, helpers, use_async
) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    model.push(calls(("Read", {}, "x"), ("Write", {}, "x")))
    out = helpers.replies(run(agent, use_async=use_async))
    assert [m.status for m in out] == ["success", "success"], out


def test_a_call_past_the_turn_bound_fails_closed(make_agent, model, run, skills, helpers) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    items = [(*LOAD, "c0")] + [("Read", {}, f"c{i}") for i in range(1, MAX_TURN_CALLS)]
    model.push(calls(*items, ("Write", {}, "last")))
    out = helpers.replies(run(agent, use_async=True))
    (write,) = [m for m in out if m.name == "Write"]
    assert write.status == "error" and write.artifact["code"] == "TURN_TOO_LONG", write
    assert f"{MAX_TURN_CALLS:,}" in str(write.content)
    # The calls within the bound are decided in position order as usual.
    assert out[0].status == "success" and all(m.status == "success" for m in out[1:-1])
