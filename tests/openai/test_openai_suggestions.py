"""Per-request skill suggestions through the real ``openai`` client (Chat Completions and
Responses loops with the dispatcher) and the Agents SDK runner: a note after each user
message, never in the instructions, so the cacheable prefix of every request stays whole."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
from agents import Agent, RunConfig, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore.testing import prefix_stats
from skillcore_openai import AgentSkills, OpenAISkills, with_notes
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"
ASK = "check this csv export for duplicate rows"
OFF_TOPIC = "what's a good recipe for banana bread"
BASE = "Base."


def _lines(items: Any) -> str:
    return "\n".join(json.dumps(i, default=str, sort_keys=True) for i in items)


def test_chat_loop_sends_the_note_and_keeps_the_prefix() -> None:
    skills = OpenAISkills(EXAMPLES, suggestions=3)
    session = skills.session()
    history: list[Any] = [{"role": "user", "content": ASK}]
    given = json.dumps(history)
    with ScriptedServer() as server:
        server.add(
            tool_calls(ScriptedCall("load_skill", {"skill_name": "csv-data-audit"})),
            text("ok"),
            text("no idea"),
        )
        with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
            for ask in (None, OFF_TOPIC):
                if ask is not None:
                    history.append({"role": "user", "content": ask})
                while True:
                    system = {"role": "system", "content": skills.instructions(session, BASE)}
                    sent = [system, *skills.with_suggestions(session, history)]
                    response = client.chat.completions.create(
                        model="m", messages=sent, tools=skills.chat_tools(session)
                    )
                    message = response.choices[0].message
                    history.append(message.model_dump(exclude_none=True))
                    if not message.tool_calls:
                        break
                    turn = skills.dispatch_all(session, message.tool_calls)
                    session = turn.session
                    history.extend(turn.messages)
        bodies = [r.body for r in server.requests]
    assert json.dumps(history[:1]) == given  # your messages are not changed
    assert len(bodies) == 3
    for body in bodies:
        first = body["messages"][1]["content"]
        assert first.startswith(ASK + "\n\n<skill_suggestions>\n")
        assert "- csv-data-audit: " in first
        assert "<skill_suggestions>" not in body["messages"][0]["content"]
    assert bodies[2]["messages"][-1]["content"] == OFF_TOPIC  # no close match: no note
    systems = [b["messages"][0]["content"] for b in bodies]
    stats = prefix_stats(systems, [_lines(b["messages"]) for b in bodies])
    assert stats.system_common == stats.system_length
    assert stats.reused == stats.reusable  # each request extends the one before


def test_responses_input_shapes() -> None:
    skills = OpenAISkills(EXAMPLES, suggestions=3)
    session = skills.session()
    # A plain string input, a list with input_text parts, and an SDK-object item kept.
    assert skills.with_suggestions(session, ASK).startswith(ASK + "\n\n<skill_suggestions>")
    items = [{"role": "user", "content": [{"type": "input_text", "text": ASK}]}]
    out = skills.with_suggestions(session, items)
    assert out[0]["content"][1]["type"] == "input_text"
    assert out[0]["content"][1]["text"].startswith("<skill_suggestions>")
    assert items[0]["content"] == [{"type": "input_text", "text": ASK}]  # not changed
    chat = [{"role": "user", "content": [{"type": "text", "text": ASK}]}]
    assert with_notes(chat, lambda t: "NOTE")[0]["content"][1] == {"type": "text", "text": "NOTE"}
    assert skills.with_suggestions(session, OFF_TOPIC) == OFF_TOPIC
    assert OpenAISkills(EXAMPLES, suggestions=0).with_suggestions(session, ASK) == ASK


def test_agents_sdk_input_filter_sends_the_note_and_keeps_the_prefix() -> None:
    skills = AgentSkills(EXAMPLES, suggestions=3)
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "csv-data-audit"}, call_id="c1")],
            [assistant_message("ok")],
        ]
    )
    agent = Agent(
        name="a", instructions=skills.instructions(BASE), tools=skills.tools(), model=model
    )
    config = RunConfig(tracing_disabled=True, call_model_input_filter=skills.input_filter)
    result = asyncio.run(Runner.run(agent, ASK, run_config=config))
    assert len(model.calls) == 2
    for call in model.calls:
        first = call.input[0]["content"]
        assert first.startswith(ASK + "\n\n<skill_suggestions>\n")
        assert "- csv-data-audit: " in first
        assert "<skill_suggestions>" not in (call.system_instructions or "")
    systems = [c.system_instructions or "" for c in model.calls]
    requests = [s + "\n" + _lines(c.input) for s, c in zip(systems, model.calls)]
    stats = prefix_stats(systems, requests)
    assert stats.system_common == stats.system_length
    assert stats.reused == stats.reusable
    # The run's own items (what a next turn sends back) carry no note.
    assert "<skill_suggestions>" not in json.dumps(result.to_input_list(), default=str)
