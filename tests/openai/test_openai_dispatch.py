"""The dispatcher: tool calls of both APIs (SDK objects and dicts) applied to a session."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from openai.types.chat import ChatCompletionMessageFunctionToolCall, ChatCompletionToolMessageParam
from openai.types.chat.chat_completion_message_custom_tool_call import (
    ChatCompletionMessageCustomToolCall,
)
from openai.types.responses import ResponseCustomToolCall, ResponseFunctionToolCall
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

from skillcore import Limits, OutcomeCode
from skillcore.runtime import SessionRef
from skillcore_openai import FunctionCall, OpenAISkills, parse_call, tool_output

APIS = ["chat", "responses"]


def make_call(api: str, name: str, arguments: Any, call_id: str = "call_1", as_dict: bool = False):
    """A tool call exactly as the SDK returns it (or its ``model_dump()``)."""
    args = arguments if isinstance(arguments, str) else __import__("json").dumps(arguments)
    if api == "chat":
        obj: Any = ChatCompletionMessageFunctionToolCall.model_validate(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
        )
    else:
        obj = ResponseFunctionToolCall.model_validate(
            {
                "type": "function_call",
                "id": "fc_" + call_id,
                "call_id": call_id,
                "name": name,
                "arguments": args,
                "status": "completed",
            }
        )
    return obj.model_dump(exclude_none=True) if as_dict else obj


def check_reply_shape(api: str, message: dict, call_id: str) -> None:
    if api == "chat":
        assert set(message) == {"role", "tool_call_id", "content"}
        assert message["role"] == "tool" and message["tool_call_id"] == call_id
        assert TypeAdapter(ChatCompletionToolMessageParam).validate_python(message) == message
    else:
        assert set(message) == {"type", "call_id", "output"}
        assert message["type"] == "function_call_output" and message["call_id"] == call_id
        assert TypeAdapter(FunctionCallOutput).validate_python(message) == message


def output_of(api: str, message: dict) -> str:
    return message["content"] if api == "chat" else message["output"]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("as_dict", [False, True], ids=["sdk-object", "dict"])
def test_load_skill(make_skills, api: str, as_dict: bool) -> None:
    skills = make_skills()
    session = skills.session()
    call = make_call(api, "load_skill", {"skill_name": "csv-data-audit"}, "call_7", as_dict)
    new, message = skills.dispatch(session, call)
    check_reply_shape(api, message, "call_7")
    assert output_of(api, message).startswith('<skill_content name="csv-data-audit">')
    assert new.loaded_names == ("csv-data-audit",)
    assert session.loaded_names == ()  # the input session is immutable


MALFORMED = {
    "invalid-json": ('{"skill_name": "csv-data-audit"', "not valid JSON"),
    "not-an-object": ('["csv-data-audit"]', "must be a JSON object"),
    "wrong-type": ('{"skill_name": 42}', "must be a non-empty string"),
    "null": ('{"skill_name": null}', "missing required argument 'skill_name'"),
    "missing": ("{}", "missing required argument 'skill_name'"),
    "empty-string": ("", "missing required argument 'skill_name'"),
    "extra-field": (
        '{"skill_name": "csv-data-audit", "force": true}',
        "unexpected argument(s) force",
    ),
}


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("case", list(MALFORMED), ids=list(MALFORMED))
def test_malformed_arguments_are_error_outputs(make_skills, api: str, case: str) -> None:
    raw, expected = MALFORMED[case]
    skills = make_skills()
    session = skills.session()
    res = skills.dispatch(session, make_call(api, "load_skill", raw, "c1"))
    check_reply_shape(api, res.message, "c1")
    out = output_of(api, res.message)
    assert out.startswith("Error: invalid arguments for load_skill: ")
    assert expected in out, out
    assert res.is_error and res.code is OutcomeCode.INVALID_ARGUMENTS
    assert res.session is session


@pytest.mark.parametrize("api", APIS)
def test_malformed_arguments_of_every_skill_tool(make_skills, api: str) -> None:
    skills = make_skills()
    session = skills.session()
    cases = [
        ("unload_skill", {"skill_name": ["a"]}, "must be a non-empty string"),
        (
            "load_skill_resource",
            {"skill_name": "csv-data-audit"},
            "missing required argument 'path'",
        ),
        ("search_skills", {"query": 3, "path": None}, "must be a string or null"),
        ("search_skills", {"query": "csv", "limit": 3}, "unexpected argument(s) limit"),
    ]
    for name, args, expected in cases:
        res = skills.dispatch(session, make_call(api, name, args))
        assert res.is_error and expected in output_of(api, res.message), (name, res.output)
    # Nullable fields of search may be null or missing (the model omits them in non-strict mode).
    res = skills.dispatch(session, make_call(api, "search_skills", {"query": "csv"}))
    assert not res.is_error and "csv-data-audit" in res.output


@pytest.mark.parametrize("api", APIS)
def test_plain_tools_with_handlers(make_skills, restrict, api: str) -> None:
    seen: list[Any] = []
    skills = make_skills(
        handlers={"Read": lambda a: seen.append(a) or {"text": "é"}, "Write": lambda a: "w"}
    )
    session = skills.session(policy=restrict)
    res = skills.dispatch(session, make_call(api, "Read", {"path": "x"}))
    assert seen == [{"path": "x"}]
    assert output_of(api, res.message) == '{"text": "é"}' and not res.is_error
    # Bad JSON for a plain tool: an error output, the handler is not called.
    res = skills.dispatch(session, make_call(api, "Read", "{oops"))
    assert res.is_error and res.code is OutcomeCode.INVALID_ARGUMENTS and len(seen) == 1
    assert "invalid arguments for Read: arguments are not valid JSON" in res.output
    res = skills.dispatch(session, make_call(api, "Read", "[1]"))
    assert res.is_error and "must be a JSON object" in res.output and len(seen) == 1
    # A tool nobody knows: the model is told which tools exist.
    res = skills.dispatch(session, make_call(api, "Delete", {}))
    assert res.is_error and res.code is OutcomeCode.UNKNOWN_TOOL
    assert "no tool named 'Delete'" in res.output and "Read, Write" in res.output


@pytest.mark.parametrize("api", APIS)
def test_restrict_blocks_plain_tools(make_skills, restrict, api: str) -> None:
    calls: list[str] = []
    skills = make_skills(handlers={"Write": lambda a: calls.append("w") or "ok", "Read": str})
    session = skills.session(policy=restrict)
    session, _ = skills.dispatch(
        session, make_call(api, "load_skill", {"skill_name": "csv-data-audit"})
    )
    res = skills.dispatch(session, make_call(api, "Write", {"path": "x"}, "c9"))
    check_reply_shape(api, res.message, "c9")
    assert res.is_error and res.code is OutcomeCode.TOOL_BLOCKED and calls == []
    assert "Tool 'Write' is not allowed" in res.output and "unload_skill" in res.output
    assert not res.decision.allowed
    assert not skills.dispatch(session, make_call(api, "Read", {"path": "x"})).is_error
    # Exact names: a look-alike of an allowed tool is no tool at all (unknown, not blocked).
    assert skills.dispatch(session, make_call(api, "read", {})).code is OutcomeCode.UNKNOWN_TOOL
    session, _ = skills.dispatch(
        session, make_call(api, "unload_skill", {"skill_name": "csv-data-audit"})
    )
    assert not skills.dispatch(session, make_call(api, "Write", {})).is_error and calls == ["w"]


@pytest.mark.parametrize("api", APIS)
def test_without_handlers_plain_calls_are_yours(examples_library, restrict, api: str) -> None:
    skills = OpenAISkills(examples_library)
    session = skills.session(policy=restrict)
    res = skills.dispatch(session, make_call(api, "Write", {"path": "x"}, "c3"))
    assert res.message is None and not res.handled and res.decision.allowed
    s, message = res
    assert s is session and message is None
    assert tool_output(res.call, "done") == tool_output(make_call(api, "Write", "{}", "c3"), "done")
    check_reply_shape(api, tool_output(res.call, "done"), "c3")
    session = skills.dispatch(
        session, make_call(api, "load_skill", {"skill_name": "csv-data-audit"})
    ).session
    blocked = skills.dispatch(session, make_call(api, "Write", {}))
    assert blocked.handled and blocked.is_error  # RESTRICT still answered for you
    turn = skills.dispatch_all(
        session, [make_call(api, "Read", {}, "a"), make_call(api, "Write", {}, "b")]
    )
    assert [c.call_id for c in turn.pending] == ["a"] and len(turn.messages) == 1


def test_async_handler_needs_adispatch(examples_library) -> None:
    async def read(args: dict) -> str:
        return "async read"

    skills = OpenAISkills(examples_library, handlers={"Read": read})
    session = skills.session()
    with pytest.raises(TypeError, match="adispatch"):
        skills.dispatch(session, make_call("chat", "Read", {}))
    res = asyncio.run(skills.adispatch(session, make_call("chat", "Read", {})))
    assert res.output == "async read"


def test_parse_call_rejects_non_calls() -> None:
    for bad in (
        {},
        {"type": "message"},
        object(),
        {"function": {"name": "x"}},
        {"type": "function_call"},
    ):
        with pytest.raises(ValueError):
            parse_call(bad)
    fc = parse_call({"type": "function_call", "name": "x", "call_id": "c", "arguments": "{}"})
    assert fc == FunctionCall("responses", "x", "{}", "c") and parse_call(fc) is fc
    # Streaming accumulators often build items without "type".
    assert parse_call({"name": "x", "call_id": "c", "arguments": "{}"}) == fc
    chat = parse_call({"id": "i", "function": {"name": "x", "arguments": {"a": 1}}})
    assert chat == FunctionCall("chat", "x", {"a": 1}, "i")


def test_custom_tool_calls(examples_library) -> None:
    skills = OpenAISkills(examples_library, handlers={"shell": lambda raw: f"ran {raw}"})
    session = skills.session()
    chat = ChatCompletionMessageCustomToolCall.model_validate(
        {"id": "c1", "type": "custom", "custom": {"name": "shell", "input": "ls -la"}}
    )
    resp = ResponseCustomToolCall.model_validate(
        {"type": "custom_tool_call", "call_id": "c2", "name": "shell", "input": "pwd"}
    )
    assert skills.dispatch(session, chat).message == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "ran ls -la",
    }
    assert skills.dispatch(session, resp).message == {
        "type": "custom_tool_call_output",
        "call_id": "c2",
        "output": "ran pwd",
    }


@pytest.mark.parametrize("api", APIS)
def test_parallel_calls_on_a_shared_store_stay_truthful(examples_library, api: str) -> None:
    """Calls of one message on one shared SessionStore: one slot, one winner."""
    skills = OpenAISkills(examples_library)
    store = SessionRef(skills.session(Limits(max_loaded=1)))
    calls = [
        make_call(api, "load_skill", {"skill_name": "csv-data-audit"}, "a"),
        make_call(api, "load_skill", {"skill_name": "python-testing"}, "b"),
        make_call(api, "search_skills", {"query": "csv", "path": None}, "c"),
    ]
    results = [skills.dispatch(store, c) for c in calls]
    assert [r.is_error for r in results] == [False, True, False]
    assert results[1].code is OutcomeCode.LOAD_LIMIT_REACHED
    assert "csv-data-audit [Loaded]" in results[2].output  # search sees the store's state
    assert store.read().loaded_names == results[-1].session.loaded_names == ("csv-data-audit",)


@pytest.mark.parametrize("api", APIS)
def test_dispatch_all(make_skills, api: str) -> None:
    skills = make_skills()
    base = skills.session(Limits(max_loaded=2))
    calls = [
        make_call(api, "load_skill", {"skill_name": "csv-data-audit"}, "a"),
        make_call(api, "load_skill", {"skill_name": "python-testing"}, "b"),
        make_call(api, "load_skill", {"skill_name": "release-notes"}, "c"),
        make_call(api, "unload_skill", {"skill_name": "csv-data-audit"}, "d"),
        make_call(api, "Read", {"path": "p"}, "e"),
    ]
    turn = skills.dispatch_all(base, calls)
    session, messages = turn
    assert [m.get("tool_call_id") or m.get("call_id") for m in messages] == list("abcde")
    assert [r.is_error for r in turn.results] == [False, False, True, False, False]
    assert session.loaded_names == ("python-testing",)
    assert skills.dispatch_all(base, None).session is base


def _run_all(skills: OpenAISkills, base, calls):
    async def main():
        return await skills.adispatch_all(base, calls)

    return anyio.run(main)


@pytest.mark.parametrize("api", APIS)
def test_adispatch_all_parallel_loads_one_slot(examples_library, api: str) -> None:
    skills = OpenAISkills(examples_library, handlers={"Read": lambda a: "r"})
    base = skills.session(Limits(max_loaded=2))
    base, _ = skills.dispatch(base, make_call(api, "load_skill", {"skill_name": "release-notes"}))
    names = ["csv-data-audit", "python-testing", "api-design-review"]
    calls = [make_call(api, "load_skill", {"skill_name": n}, f"c{i}") for i, n in enumerate(names)]
    turn = _run_all(skills, base, [*calls, make_call(api, "Read", {}, "r")])
    ok = [r for r in turn.results if not r.is_error]
    assert len(ok) == 2  # one load won the slot, plus Read
    winner = next(n for n in names if f'name="{n}"' in (ok[0].output or ""))
    assert turn.session.loaded_names == ("release-notes", winner)
    refused = [r for r in turn.results if r.is_error]
    assert all(r.code is OutcomeCode.LOAD_LIMIT_REACHED for r in refused)
    assert [r.call.call_id for r in turn.results] == ["c0", "c1", "c2", "r"]


def test_adispatch_all_raises_the_handlers_own_error(examples_library) -> None:
    def boom(args: dict) -> str:
        raise LookupError("disk on fire")

    skills = OpenAISkills(
        examples_library,
        handlers={"Read": boom, "Write": lambda a: "w"},
        on_handler_error="raise",
    )
    calls = [make_call("chat", "Write", {}, "a"), make_call("chat", "Read", {}, "b")]
    with pytest.raises(LookupError, match="disk on fire"):
        _run_all(skills, skills.session(), calls)
