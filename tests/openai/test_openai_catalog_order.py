"""``catalog_order="relevance"`` with OpenAI: custom loops through the real client (Chat
Completions and Responses) and the Agents SDK runner. The catalog is ranked for the latest user
message and stays the same for every model call of that message."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import SkillLibrary
from skillcore.testing import INVOICE_QUERY as INVOICE
from skillcore.testing import RELEVANCE_BUDGET as BUDGET
from skillcore.testing import ROLLOUT_QUERY as ROLLOUT
from skillcore.testing import make_relevance_library
from skillcore_openai import AgentSkills, OpenAISkills, latest_user_text
from skillcore_openai.testing import ScriptedServer, text, tool_calls

BASE = "You are helpful."
MODEL = "scripted-model"
READ = {"type": "function", "function": {"name": "Read", "parameters": {"type": "object"}}}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> SkillLibrary:
    """300 skills; the two that matter sort last, past any small budget in precedence order."""
    root = tmp_path_factory.mktemp("order") / "skills"
    make_relevance_library(root)
    return SkillLibrary([root])


def skills_for(library: SkillLibrary, order: str) -> OpenAISkills:
    return OpenAISkills(
        library,
        handlers={"Read": lambda a: "file text"},
        catalog_order=order,
        max_description_budget=BUDGET,
    )


def chat_loop(client: Any, skills: OpenAISkills, messages: list[Any]) -> None:
    """One user message through the Chat Completions loop of docs/openai.md."""
    session = skills.session()
    for _ in range(5):
        query = latest_user_text(messages)
        system = {"role": "system", "content": skills.instructions(session, BASE, query=query)}
        response = client.chat.completions.create(
            model=MODEL,
            messages=[system, *messages],
            tools=[*skills.chat_tools(session), READ],
        )
        message = response.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            return
        session, replies = skills.dispatch_all(session, message.tool_calls)
        messages.extend(replies)
    raise AssertionError("the loop did not finish")


def systems(server: ScriptedServer) -> list[str]:
    return [r.body["messages"][0]["content"] for r in server.requests]


def test_chat_loop_relevance(server: ScriptedServer, client: Any, library: SkillLibrary) -> None:
    skills = skills_for(library, "relevance")
    server.add(tool_calls(("Read", {"path": "invoice.pdf"})), text("ok"))
    messages: list[Any] = [{"role": "user", "content": INVOICE}]
    chat_loop(client, skills, messages)
    first, second = systems(server)
    assert "**zz-invoice-check**" in first
    assert first == second  # tool replies are no new user message

    server.add(text("ok"))
    messages.append({"role": "user", "content": [{"type": "text", "text": ROLLOUT}]})
    chat_loop(client, skills, messages)
    assert "**zz-k8s-rollout**" in systems(server)[-1]
    assert "**zz-invoice-check**" not in systems(server)[-1]


def test_chat_loop_precedence(server: ScriptedServer, client: Any, library: SkillLibrary) -> None:
    skills = skills_for(library, "precedence")
    server.add(tool_calls(("Read", {"path": "invoice.pdf"})), text("ok"))
    chat_loop(client, skills, [{"role": "user", "content": INVOICE}])
    first, second = systems(server)
    assert "zz-invoice-check" not in first
    assert first == second


def test_responses_loop_relevance(
    server: ScriptedServer, client: Any, library: SkillLibrary
) -> None:
    skills = skills_for(library, "relevance")
    session = skills.session()
    server.add(tool_calls(("Read", {"path": "invoice.pdf"})), text("ok"))
    items: list[Any] = [{"role": "user", "content": [{"type": "input_text", "text": INVOICE}]}]
    for _ in range(5):
        response = client.responses.create(
            model=MODEL,
            instructions=skills.instructions(session, BASE, query=latest_user_text(items)),
            input=items,
            tools=skills.response_tools(session),
        )
        items += response.output  # SDK objects: read by duck typing
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            break
        session, outputs = skills.dispatch_all(session, calls)
        items += outputs
    first, second = (r.body["instructions"] for r in server.requests)
    assert "**zz-invoice-check**" in first
    assert first == second


def test_latest_user_text_shapes() -> None:
    assert latest_user_text("just a string") == "just a string"
    assert latest_user_text(None) is None
    assert latest_user_text([{"role": "system", "content": "sys"}]) is None
    chat = [
        {"role": "user", "content": "old"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
        {"role": "assistant", "content": "hi"},
        {"role": "tool", "tool_call_id": "1", "content": "out"},
    ]
    assert latest_user_text(chat) == "old"  # a message without text is skipped
    responses = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}]},
        {"type": "function_call_output", "call_id": "1", "output": "x"},
        {"role": "user", "content": [{"type": "input_text", "text": "b"}, {"type": "input_image"}]},
    ]
    assert latest_user_text(responses) == "b"


def test_agents_sdk_reads_the_run_input(library: SkillLibrary) -> None:
    skills = AgentSkills(library, catalog_order="relevance", max_description_budget=BUDGET)
    model = ScriptedModel(
        [
            [function_call("search_skills", {"query": "invoice", "path": None}, call_id="c1")],
            [assistant_message("ok")],
            [assistant_message("ok")],
        ]
    )
    agent = Agent(
        name="a", instructions=skills.instructions(BASE), tools=skills.tools(), model=model
    )
    config = RunConfig(tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, INVOICE, run_config=config))
    first, second = (c.system_instructions for c in model.calls)
    assert first is not None and "**zz-invoice-check**" in first
    assert first == second

    follow_up = [*result.to_input_list(), {"role": "user", "content": ROLLOUT}]
    asyncio.run(Runner.run(agent, follow_up, run_config=config))
    last = model.calls[-1].system_instructions
    assert last is not None and "**zz-k8s-rollout**" in last
    assert "**zz-invoice-check**" not in last
