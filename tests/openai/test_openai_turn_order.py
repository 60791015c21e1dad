"""The dispatcher through the real ``openai`` client and the loopback server: the calls of one
assistant message are decided in call order by ``dispatch_all`` and ``adispatch_all`` alike
(DESIGN §3.8); hostile arguments and state never escape as exceptions."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from skillcore import OutcomeCode
from skillcore.runtime import STATE_SCHEMA
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedServer, tool_calls

HANDLERS = {"Read": lambda a: "read", "Write": lambda a: "written"}


def assistant_calls(server: ScriptedServer, *calls) -> list:
    server.add(tool_calls(*calls))
    client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    try:
        response = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}]
        )
    finally:
        client.close()
    return list(response.choices[0].message.tool_calls or [])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_write_after_a_restricting_load_in_one_message(server, examples_library, mode) -> None:
    skills = OpenAISkills(examples_library, handlers=HANDLERS, allowed_tools_policy="restrict")
    session = skills.session()
    calls = assistant_calls(server, ("load_skill", {"skill_name": "csv-data-audit"}), ("Write", {}))
    turn = (
        skills.dispatch_all(session, calls)
        if mode == "sync"
        else asyncio.run(skills.adispatch_all(session, calls))
    )
    load, write = turn.results
    assert not load.is_error
    assert write.is_error and write.code is OutcomeCode.TOOL_BLOCKED, write.output
    # And the unload of the same skill, followed by Write, in one message:
    calls = assistant_calls(
        server, ("unload_skill", {"skill_name": "csv-data-audit"}), ("Write", {})
    )
    again = (
        skills.dispatch_all(turn.session, calls)
        if mode == "sync"
        else asyncio.run(skills.adispatch_all(turn.session, calls))
    )
    assert [r.is_error for r in again.results] == [False, False], again.results


def deep_json(n: int) -> str:
    return "[" * n + "]" * n


HOSTILE_ARGUMENTS = [
    deep_json(100_000),
    '{"skill_name": ' + "9" * 5001 + "}",
    json.dumps({"skill_name": "csv-data-audit", "path": "a\ud800b"}),
    '{"skill_name": "' + "x" * 20_000_000 + '"}',
]


@pytest.mark.parametrize("raw", HOSTILE_ARGUMENTS, ids=["deep", "digits", "surrogate", "huge"])
@pytest.mark.parametrize("tool", ["load_skill_resource", "Read"])
def test_hostile_arguments_are_invalid_arguments(examples_library, raw: str, tool: str) -> None:
    skills = OpenAISkills(examples_library, handlers=HANDLERS)
    session, _ = skills.dispatch(
        skills.session(),
        {
            "id": "c0",
            "type": "function",
            "function": {"name": "load_skill", "arguments": '{"skill_name": "csv-data-audit"}'},
        },
    )
    call = {"id": "c1", "type": "function", "function": {"name": tool, "arguments": raw}}
    result = skills.dispatch(session, call)
    if tool == "Read" and raw == HOSTILE_ARGUMENTS[2]:
        assert not result.is_error  # valid JSON: the handler gets the string as it is
        return
    assert result.is_error
    assert result.code in (OutcomeCode.INVALID_ARGUMENTS, OutcomeCode.PATH_REJECTED)
    assert len(result.output or "") < 1_000


@pytest.mark.parametrize(
    "state",
    [
        {
            "schema": STATE_SCHEMA,
            "loaded": [{"name": "csv-data-audit", "resources": [["a", "reference", float("inf")]]}],
        },
        {"schema": STATE_SCHEMA, "loaded": deep_json(5)},
        "garbage",
    ],
)
def test_unreadable_state_resets_like_every_adapter(examples_library, state) -> None:
    skills = OpenAISkills(examples_library)
    assert skills.restore(state).loaded_names == ()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_call_past_the_turn_bound_fails_closed(server, examples_library, mode) -> None:
    """A message listing more calls than one turn tracks: the call past the bound is never
    decided without the restricting load before it (``dispatch_all`` runs the calls one
    after another, in order; ``adispatch_all`` refuses it with ``TURN_TOO_LONG``)."""
    from skillcore.state.listed_calls import MAX_TURN_CALLS

    skills = OpenAISkills(examples_library, handlers=HANDLERS, allowed_tools_policy="restrict")
    load = ("load_skill", {"skill_name": "csv-data-audit"})
    calls = assistant_calls(server, load, *[("Read", {})] * (MAX_TURN_CALLS - 1), ("Write", {}))
    session = skills.session()
    turn = (
        skills.dispatch_all(session, calls)
        if mode == "sync"
        else asyncio.run(skills.adispatch_all(session, calls))
    )
    write = turn.results[-1]
    expected = OutcomeCode.TOOL_BLOCKED if mode == "sync" else OutcomeCode.TURN_TOO_LONG
    assert write.is_error and write.code is expected, write.output
    assert not any(r.is_error for r in turn.results[:-1])
