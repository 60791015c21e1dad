"""Configured skills in the OpenAI adapters: the function dispatcher through the real client
on a loopback server, and the Agents SDK Runner with a scripted model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import attrs
import openai
from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import OutcomeCode, SkillLibrary
from skillcore.testing import write_skill
from skillcore_openai import AgentSkills, OpenAISkills
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

ALPHA, BETA = "Alpha says: only read.", "Beta says: anything goes."
EMPTY = {"schema": "skillcore.session/1", "loaded": []}


def _library(tmp_path: Path) -> SkillLibrary:
    root = tmp_path / "skills"
    write_skill(root, "alpha", "Alpha tasks.", ALPHA, "allowed-tools: Read\n")
    write_skill(root, "beta", "Beta tasks.", BETA)
    write_skill(root, "gamma", "Gamma tasks.", "Gamma body.")
    return SkillLibrary([root])


def test_dispatcher_chat_loop_default_and_pinned(tmp_path: Path) -> None:
    skills = OpenAISkills(
        _library(tmp_path),
        handlers={"Read": lambda a: "read", "Write": lambda a: "written"},
        default_skills=["beta"],
        pinned_skills="alpha",
        allowed_tools_policy="restrict",
    )
    script = [
        tool_calls(
            ScriptedCall("unload_skill", {"skill_name": "alpha"}, "c1"),
            ScriptedCall("unload_skill", {"skill_name": "beta"}, "c2"),
            ScriptedCall("Write", {"path": "x", "text": "y"}, "c3"),
        ),
        text("done"),
    ]
    with ScriptedServer(script) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=30)
        session = skills.load("conv")
        assert session.loaded_names == ("alpha", "beta")
        messages: list[Any] = [{"role": "user", "content": "hi"}]
        for _ in range(3):
            system = {"role": "system", "content": skills.instructions(session, "Base.")}
            response = client.chat.completions.create(
                model="m", messages=[system, *messages], tools=skills.chat_tools(session)
            )
            message = response.choices[0].message
            messages.append(message)
            if not message.tool_calls:
                break
            turn = skills.dispatch_all(session, message.tool_calls, history=messages)
            session = turn.session
            messages.extend(turn.messages)
        client.close()
        first = server.requests[0].body["messages"][0]["content"]
    assert ALPHA in first and BETA in first, first
    codes = [r.code for r in turn.results]
    assert codes == [OutcomeCode.PINNED, OutcomeCode.UNLOADED, OutcomeCode.TOOL_BLOCKED], codes
    skills.save("conv", session)
    assert skills.load("conv").loaded_names == ("alpha",)  # defaults only at the start
    skills.states.save("conv", EMPTY)  # state lost: the pinned skill comes back
    assert skills.load("conv").loaded_names == ("alpha",)
    # With the history, a skill whose load reply the model still has is not repeated.
    text_now = skills.instructions(session, history=messages)
    assert ALPHA in text_now and BETA not in text_now


def test_agents_sdk_runner_default_and_pinned(tmp_path: Path) -> None:
    skills = AgentSkills(_library(tmp_path), default_skills=["beta"], pinned_skills=["alpha"])

    @function_tool(name_override="Read")
    def read(path: str) -> str:
        """Read a file."""
        return "contents"

    model = ScriptedModel(
        [
            [function_call("unload_skill", {"skill_name": "alpha"}, call_id="c1")],
            [function_call("unload_skill", {"skill_name": "beta"}, call_id="c2")],
            [assistant_message("done")],
            [assistant_message("again")],
        ]
    )
    agent = Agent(
        name="a",
        instructions=skills.instructions("Base."),
        tools=[*skills.tools(), *skills.guard(read)],
        model=model,
    )
    state = skills.conversation("conv")
    cfg = RunConfig(tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, "hi", context=state, run_config=cfg))
    assert result.final_output == "done"
    first = model.calls[0].system_instructions or ""
    assert ALPHA in first and BETA in first, first
    outputs = [
        i["output"]
        for i in model.calls[1].input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]
    assert "pinned" in outputs[0], outputs
    assert state.loaded_names == ("alpha",)
    state.write(attrs.evolve(state.session, loaded=()))  # state lost
    assert state.loaded_names == ()
    asyncio.run(Runner.run(agent, "next", context=state, run_config=cfg))
    assert state.loaded_names == ("alpha",)
    assert ALPHA in (model.calls[-1].system_instructions or "")
    assert BETA not in (model.calls[-1].system_instructions or "")
