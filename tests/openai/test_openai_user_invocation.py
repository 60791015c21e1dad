"""User invocation in custom loops through the real ``openai`` client (both APIs), written
from Claude Code's published skills documentation: ``/name args`` loads the skill with its
arguments before the model call; a refusal is answered without the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillcore import OutcomeCode, SkillLibrary
from skillcore.testing import write_skill
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedServer, text

MODEL = "scripted-model"


@pytest.fixture
def skills(tmp_path: Path) -> OpenAISkills:
    root = tmp_path / "skills"
    write_skill(
        root,
        "deploy",
        "Deploy the application.",
        "Deploy $0 to $1. Session ${SKILLCORE_SESSION_ID}.",
        "disable-model-invocation: true\n",
    )
    write_skill(root, "legacy", "Legacy knowledge.", "Legacy.", "user-invocable: false\n")
    return OpenAISkills(SkillLibrary([root]))


def test_chat_loop_sends_the_expanded_skill_after_the_user_message(
    server: ScriptedServer, client: Any, skills: OpenAISkills
) -> None:
    session = skills.session()
    user = {"role": "user", "content": "/deploy web staging"}
    messages: list[Any] = [user]
    invoked = skills.invoke_user_message(session, user, conversation="conv-7")
    assert invoked is not None and invoked.ok and invoked.code is OutcomeCode.LOADED
    session = invoked.session
    messages.extend(invoked.messages)
    server.add(text("Deploying."))
    system = {"role": "system", "content": skills.instructions(session, history=messages)}
    client.chat.completions.create(model=MODEL, messages=[system, *messages])
    sent = server.requests[0].body["messages"]
    call = sent[2]["tool_calls"][0]
    assert call["function"] == {"name": "load_skill", "arguments": '{"skill_name": "deploy"}'}
    assert sent[3]["tool_call_id"] == call["id"]
    assert "Deploy web to staging. Session conv-7." in sent[3]["content"]
    # Delivered by the reply: not repeated in the system prompt.
    assert "Deploy web" not in sent[0]["content"]
    assert session.loaded_names == ("deploy",)


def test_responses_items_and_a_refusal(
    server: ScriptedServer, client: Any, skills: OpenAISkills
) -> None:
    session = skills.session()
    item = {"role": "user", "content": [{"type": "input_text", "text": "$deploy api prod"}]}
    invoked = skills.invoke_user_message(session, item, api="responses")
    assert invoked is not None and invoked.ok
    server.add(text("ok"))
    client.responses.create(model=MODEL, input=[item, *invoked.messages])
    sent = server.requests[0].body["input"]
    assert sent[1]["type"] == "function_call" and sent[1]["name"] == "load_skill"
    assert sent[2] == {
        "type": "function_call_output",
        "call_id": sent[1]["call_id"],
        "output": invoked.result.text,
    }
    refused = skills.invoke_user_message(session, "/legacy")
    assert refused is not None and not refused.ok
    assert refused.code is OutcomeCode.NOT_USER_INVOCABLE and refused.session is session
    assert refused.messages[0]["role"] == "assistant"
    assert skills.invoke_user_message(session, "hello /deploy") is None


def test_agents_sdk_run_with_an_invoked_skill(skills: OpenAISkills) -> None:
    import asyncio

    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message

    from skillcore_openai import AgentSkills

    agent_skills = AgentSkills(skills.library)
    state = agent_skills.new_state()
    user = {"role": "user", "content": "/deploy web staging"}
    invoked = asyncio.run(agent_skills.invoke_user_message(state, user))
    assert invoked is not None and invoked.ok and state.loaded_names == ("deploy",)
    model = ScriptedModel([[assistant_message("deploying")]])
    agent = Agent(
        name="ops",
        instructions=agent_skills.instructions("You operate."),
        tools=agent_skills.tools(),
        model=model,
    )
    result = asyncio.run(
        Runner.run(
            agent,
            [user, *invoked.messages],
            context=state,
            run_config=RunConfig(tracing_disabled=True),
        )
    )
    assert result.final_output == "deploying"
    sent = model.calls[0]
    outputs = [
        i for i in sent.input if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]
    assert "Deploy web to staging." in outputs[0]["output"]
    assert "Deploy web" not in sent.system_instructions, "delivered by the output item"
    refused = asyncio.run(agent_skills.invoke_user_message(state, "/legacy"))
    assert refused is not None and refused.code is OutcomeCode.NOT_USER_INVOCABLE
