"""The custom-loop dispatcher: failing handlers, unknown tools under RESTRICT, handlers that
take the call and the session, and Anthropic Messages ``tool_use`` blocks."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from skillcore import OutcomeCode, SkillLibrary, SkillSession
from skillcore_openai import FunctionCall, OpenAISkills, parse_call, tool_output

CSV = {"skill_name": "csv-data-audit"}


def chat(name: str, arguments: Any, call_id: str) -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def tool_use(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def boom(args: dict[str, Any]) -> str:
    raise LookupError("disk on fire")


async def aboom(args: dict[str, Any]) -> str:
    raise LookupError("disk on fire")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_failing_handler_gets_an_error_reply(examples_library: SkillLibrary, mode: str) -> None:
    """One handler raising costs only its own reply; the turn's other replies are kept."""
    skills = OpenAISkills(
        examples_library,
        handlers={"Read": boom if mode == "sync" else aboom, "Write": lambda a: "w"},
    )
    calls = [chat("load_skill", CSV, "a"), chat("Read", {}, "b"), chat("Write", {}, "c")]
    s = skills.session()
    if mode == "sync":
        turn = skills.dispatch_all(s, calls)
    else:
        turn = anyio.run(skills.adispatch_all, s, calls)
    assert [r.call.call_id for r in turn.results] == ["a", "b", "c"]
    failed = turn.results[1]
    assert failed.is_error and failed.code is OutcomeCode.TOOL_FAILED
    assert failed.output == "Error: 'Read' failed: LookupError: disk on fire. " + (
        "Fix the arguments or try another way."
    )
    assert failed.message == {"role": "tool", "tool_call_id": "b", "content": failed.output}
    assert turn.results[2].output == "w" and turn.session.loaded_names == ("csv-data-audit",)


def test_on_handler_error_options(examples_library: SkillLibrary) -> None:
    seen: list[tuple[str, str]] = []

    def mine(call: FunctionCall, exc: Exception) -> str:
        seen.append((call.call_id, type(exc).__name__))
        return "Error: try again later"

    skills = OpenAISkills(examples_library, handlers={"Read": boom}, on_handler_error=mine)
    res = skills.dispatch(skills.session(), chat("Read", {}, "x"))
    assert res.output == "Error: try again later" and seen == [("x", "LookupError")]
    raising = OpenAISkills(examples_library, handlers={"Read": boom}, on_handler_error="raise")
    with pytest.raises(LookupError):
        raising.dispatch_all(raising.session(), [chat("Read", {}, "x")])
    with pytest.raises(ValueError, match="on_handler_error"):
        OpenAISkills(examples_library, on_handler_error="ignore")  # type: ignore[arg-type]


def test_unknown_tool_is_unknown_under_restrict(examples_library: SkillLibrary) -> None:
    """A tool that does not exist is reported as unknown, not as blocked by a skill (which
    would send the model off to unload skills)."""
    skills = OpenAISkills(
        examples_library, handlers={"Read": lambda a: "r"}, allowed_tools_policy="restrict"
    )
    s = skills.dispatch(skills.session(), chat("load_skill", CSV, "a")).session
    res = skills.dispatch(s, chat("Wrtie", {}, "b"))
    assert res.code is OutcomeCode.UNKNOWN_TOOL and "no tool named 'Wrtie'" in res.output
    assert "not allowed" not in res.output


def test_handlers_may_take_the_call_and_the_session(examples_library: SkillLibrary) -> None:
    got: list[Any] = []

    def read(args: dict[str, Any], call: FunctionCall) -> str:
        got.append(call.call_id)
        return "r"

    async def write(args: dict[str, Any], *, session: SkillSession, call: FunctionCall) -> str:
        got.append((call.name, session.loaded_names))
        return "w"

    skills = OpenAISkills(examples_library, handlers={"Read": read, "Write": write})
    calls = [chat("Read", {}, "r1"), chat("load_skill", CSV, "l"), chat("Write", {}, "w1")]
    turn = anyio.run(skills.adispatch_all, skills.session(), calls)
    assert [r.output for r in turn.results][::2] == ["r", "w"]
    # Each handler sees the session its call was decided on (after the earlier load).
    assert got == ["r1", ("Write", ("csv-data-audit",))] or got == [
        ("Write", ("csv-data-audit",)),
        "r1",
    ]


def test_anthropic_tool_use_blocks(examples_library: SkillLibrary) -> None:
    skills = OpenAISkills(
        examples_library, handlers={"Write": lambda a: "w"}, allowed_tools_policy="restrict"
    )
    blocks = [
        {"type": "text", "text": "Let me load the skill."},
        tool_use("load_skill", CSV, "toolu_1"),
        tool_use("Write", {"path": "x"}, "toolu_2"),
    ]
    calls = [b for b in blocks if b["type"] == "tool_use"]
    assert parse_call(calls[0]) == FunctionCall("anthropic", "load_skill", CSV, "toolu_1")
    turn = skills.dispatch_all(skills.session(), calls)
    loaded, blocked = turn.messages
    assert loaded["type"] == "tool_result" and loaded["tool_use_id"] == "toolu_1"
    assert loaded["is_error"] is False and loaded["content"].startswith("<skill_content")
    assert blocked["is_error"] is True and "not allowed" in blocked["content"]
    assert tool_output(calls[1], "done") == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "done",
        "is_error": False,
    }
    # The SDK's own block objects work the same way when anthropic is installed.
    types = pytest.importorskip("anthropic.types")
    block = types.ToolUseBlock(type="tool_use", id="toolu_3", name="load_skill", input=CSV)
    assert parse_call(block).call_id == "toolu_3"
    types.ToolResultBlockParam  # noqa: B018 - the reply shape is this TypedDict
