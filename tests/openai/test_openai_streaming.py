"""Streaming loops through the real ``openai`` client (``stream=True``) against the scripted
server: Chat deltas assembled with ``ChatDeltas``, Responses calls dispatched as each
``response.output_item.done`` arrives."""

from __future__ import annotations

from typing import Any

import anyio
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore.runtime import SessionRef
from skillcore_openai import ChatDeltas, OpenAISkills
from skillcore_openai.chat.streaming import MAX_STREAMED_CALLS
from skillcore_openai.testing import ScriptedServer, text, tool_calls

CSV = {"skill_name": "csv-data-audit"}
SCRIPT = [
    tool_calls(("load_skill", CSV)),
    tool_calls(("Write", {"path": "x.md", "text": "a plan"}), ("Read", {"path": "data.csv"})),
    tool_calls(("unload_skill", CSV)),
    text("All done, streamed."),
]


def make(examples_library: Any, log: list[str]) -> OpenAISkills:
    return OpenAISkills(
        examples_library,
        handlers={
            "Read": lambda a: log.append("Read") or "rows",
            "Write": lambda a: log.append("Write") or "written",
        },
        allowed_tools_policy="restrict",
    )


def test_chat_stream_loop(
    examples_library: Any, server: ScriptedServer, client: openai.OpenAI
) -> None:
    log: list[str] = []
    skills = make(examples_library, log)
    server.add(*SCRIPT)
    session = skills.session()
    messages: list[Any] = [{"role": "user", "content": "audit"}]
    replies: list[dict[str, Any]] = []
    for _ in range(6):
        deltas = ChatDeltas()
        stream = client.chat.completions.create(
            model="m", messages=messages, tools=skills.chat_tools(session), stream=True
        )
        for chunk in stream:
            deltas.add(chunk)
        messages.append(deltas.message)
        if not deltas.tool_calls:
            break
        session, out = skills.dispatch_all(session, deltas.tool_calls)
        messages.extend(out)
        replies.extend(out)
    assert deltas.message == {"role": "assistant", "content": "All done, streamed."}
    assert deltas.finish_reason == "stop"
    assert replies[0]["content"].startswith('<skill_content name="csv-data-audit">')
    assert "not allowed" in replies[1]["content"] and replies[2]["content"] == "rows"
    assert log == ["Read"] and session.loaded_names == ()
    # What the client sent back is what a non-streamed loop would send.
    sent = server.requests[1].body["messages"]
    assert sent[1]["tool_calls"][0]["function"] == {
        "name": "load_skill",
        "arguments": '{"skill_name":"csv-data-audit"}',
    }


def test_responses_stream_dispatches_on_item_done(
    examples_library: Any, server: ScriptedServer, async_client: openai.AsyncOpenAI
) -> None:
    log: list[str] = []
    skills = make(examples_library, log)
    server.add(*SCRIPT)

    async def main() -> tuple[str, list[dict[str, Any]]]:
        store = SessionRef(skills.session())
        items: list[Any] = [{"role": "user", "content": "audit"}]
        outputs: list[dict[str, Any]] = []
        final = ""
        for _ in range(6):
            stream = await async_client.responses.create(
                model="m",
                input=items,
                tools=skills.response_tools(store.read()),
                stream=True,
            )
            turn: list[dict[str, Any]] = []
            async for event in stream:
                if event.type == "response.output_item.done":
                    items.append(event.item)
                    if event.item.type == "function_call":
                        # Each call runs as soon as it is complete, in the model's order.
                        turn.append((await skills.adispatch(store, event.item)).message)
                elif event.type == "response.completed":
                    final = event.response.output_text
            if not turn:
                break
            items.extend(turn)
            outputs.extend(turn)
        assert store.read().loaded_names == ()
        return final, outputs

    final, outputs = anyio.run(main)
    assert final == "All done, streamed."
    assert [o["type"] for o in outputs] == ["function_call_output"] * 4
    assert "not allowed" in outputs[1]["output"] and outputs[2]["output"] == "rows"
    assert log == ["Read"]
    assert server.requests[-1].body["stream"] is True


@given(
    args=st.lists(st.text(max_size=30), min_size=1, max_size=3),
    cuts=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=8),
)
def test_chat_deltas_reassemble_any_split(args: list[str], cuts: list[int]) -> None:
    deltas = ChatDeltas()
    for index, whole in enumerate(args):
        head = {"index": index, "id": f"c{index}", "type": "function", "function": {"name": "t"}}
        deltas.add({"choices": [{"delta": {"tool_calls": [head]}}]})
        at = 0
        for i in range(len(whole) + 1):
            size = cuts[i % len(cuts)]
            piece, at = whole[at : at + size], at + size
            part = {"index": index, "function": {"arguments": piece}}
            deltas.add({"choices": [{"delta": {"tool_calls": [part]}}]})
            if at >= len(whole):
                break
    assert [c["function"]["arguments"] for c in deltas.tool_calls] == args
    assert [c["id"] for c in deltas.tool_calls] == [f"c{i}" for i in range(len(args))]


def test_chat_deltas_bounds() -> None:
    deltas = ChatDeltas()
    bad = {"index": MAX_STREAMED_CALLS, "function": {"arguments": "x"}}
    with pytest.raises(ValueError, match="invalid index"):
        deltas.add({"choices": [{"delta": {"tool_calls": [bad]}}]})
    deltas.add({"choices": []})  # a usage-only chunk is ignored
    assert deltas.message == {"role": "assistant", "content": None}
