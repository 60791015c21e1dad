"""Skill-gated tools, TOOL_NOT_AVAILABLE and hide_blocked_tools through the dispatcher and the
real ``openai`` client against the scripted loopback server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillcore import SkillSession
from skillcore.testing import make_gated_library
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

MODEL = "scripted-model"
PARAMS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
DEPLOY = {"type": "function", "name": "deploy", "description": "Deploy.", "parameters": PARAMS}
USER_TOOLS = [
    {"type": "function", "function": {"name": n, "description": n, "parameters": PARAMS}}
    for n in ("Read", "Write")
]


@pytest.fixture
def gated_skills(tmp_path: Path) -> Path:
    return make_gated_library(tmp_path / "skills")


def make(skills: Path, **knobs: Any) -> OpenAISkills:
    handlers = {
        "Read": lambda a: "read",
        "Write": lambda a: "wrote",
        "deploy": lambda a: "deployed",
    }
    return OpenAISkills(skills, handlers=handlers, tools=[DEPLOY], **knobs)


def chat_turn(
    client: Any, skills: OpenAISkills, session: SkillSession
) -> tuple[SkillSession, list[Any]]:
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "go"}],
        tools=skills.chat_tools(session, USER_TOOLS),
    )
    result = skills.dispatch_all(session, response.choices[0].message.tool_calls)
    return result.session, list(result.results)


def sent_tools(server: ScriptedServer, index: int = -1) -> list[str]:
    tools = server.requests[index].body.get("tools", [])
    return [t["function"]["name"] if "function" in t else t["name"] for t in tools]


@pytest.mark.parametrize("mode", ["recommend", "restrict"])
def test_gated_tool_is_offered_only_while_unlocked(
    client: Any, server: ScriptedServer, gated_skills: Path, mode: str
) -> None:
    skills = make(gated_skills, allowed_tools_policy=mode)
    session = skills.session()
    server.add(tool_calls(ScriptedCall("deploy", {}, "c1")))
    session, (locked,) = chat_turn(client, skills, session)
    assert "deploy" not in sent_tools(server) and "Read" in sent_tools(server)
    assert locked.is_error and locked.code.value == "TOOL_LOCKED", locked
    assert "release" in locked.output and "ops" in locked.output

    server.add(tool_calls(ScriptedCall("load_skill", {"skill_name": "release"}, "c2")))
    session, (loaded,) = chat_turn(client, skills, session)
    assert not loaded.is_error, loaded
    server.add(tool_calls(ScriptedCall("deploy", {}, "c3")))
    session, (ran,) = chat_turn(client, skills, session)
    assert "deploy" in sent_tools(server), sent_tools(server)
    assert not ran.is_error and ran.output == "deployed", ran

    server.add(tool_calls(ScriptedCall("unload_skill", {"skill_name": "release"}, "c4")))
    session, _ = chat_turn(client, skills, session)
    server.add(tool_calls(ScriptedCall("deploy", {}, "c5")))
    session, (again,) = chat_turn(client, skills, session)
    assert "deploy" not in sent_tools(server)
    assert again.is_error and again.code.value == "TOOL_LOCKED", again


def test_responses_api_gets_the_gated_tool_in_its_shape(
    client: Any, server: ScriptedServer, gated_skills: Path
) -> None:
    skills = make(gated_skills)
    session = skills.session()
    session, _ = skills.dispatch_all(
        session,
        [
            {
                "type": "function_call",
                "name": "load_skill",
                "call_id": "x",
                "arguments": '{"skill_name": "release"}',
            }
        ],
    )
    server.add(text("ok"))
    client.responses.create(model=MODEL, input="go", tools=skills.response_tools(session))
    sent = server.requests[-1].body["tools"]
    assert {
        "type": "function",
        "name": "deploy",
        "description": "Deploy.",
        "parameters": PARAMS,
    } in sent


def test_tool_not_available(gated_skills: Path) -> None:
    call = {"id": "c", "function": {"name": "load_skill", "arguments": '{"skill_name": "writer"}'}}
    skills = make(gated_skills, check_tools_available=True)
    result = skills.dispatch(skills.session(), call)
    assert not result.is_error and "Warning" in result.output and "Edit" in result.output
    skills = make(gated_skills, allowed_tools_policy="restrict", check_tools_available=True)
    result = skills.dispatch(skills.session(), call)
    assert result.is_error and result.code.value == "TOOL_NOT_AVAILABLE", result
    assert result.session.loaded_names == ()
    # Without handlers the dispatcher does not know the agent's tools: no check.
    bare = OpenAISkills(gated_skills, allowed_tools_policy="restrict", check_tools_available=True)
    assert not bare.dispatch(bare.session(), call).is_error


def test_hide_blocked_tools(gated_skills: Path) -> None:
    skills = make(gated_skills, allowed_tools_policy="restrict", hide_blocked_tools=True)
    session = skills.session()
    assert [t["function"]["name"] for t in skills.chat_tools(session, USER_TOOLS)][-2:] == [
        "Read",
        "Write",
    ]
    call = {"id": "c", "function": {"name": "load_skill", "arguments": '{"skill_name": "ops"}'}}
    session = skills.dispatch(session, call).session
    names = [t["function"]["name"] for t in skills.chat_tools(session, USER_TOOLS)]
    assert "Write" not in names and "Read" in names and "deploy" in names, names
    assert "unload_skill" in names
    write = {"id": "w", "function": {"name": "Write", "arguments": "{}"}}
    assert skills.dispatch(session, write).code.value == "TOOL_BLOCKED"


# -- the Agents SDK helper ----------------------------------------------------------------


def _sdk_run(skills: Any, model: Any, *extra: Any) -> Any:
    import asyncio

    from agents import Agent, RunConfig, Runner

    read, write = _sdk_plain_tools()
    agent = skills.guard_agent(
        Agent(
            name="a",
            instructions=skills.instructions(),
            tools=[*skills.tools(), read, write, *extra],
            model=model,
        )
    )
    config = RunConfig(tracing_disabled=True, tool_not_found_behavior="return_error_to_model")
    return asyncio.run(Runner.run(agent, "go", run_config=config))


def _sdk_plain_tools() -> tuple[Any, Any]:
    from agents import function_tool

    @function_tool(name_override="Read")
    def read() -> str:
        """Read."""
        return "read"

    @function_tool(name_override="Write")
    def write() -> str:
        """Write."""
        return "wrote"

    return read, write


def _outputs(call: Any) -> dict[str, str]:
    return {
        i["call_id"]: i["output"]
        for i in call.input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


def _names(call: Any) -> list[str]:
    return [t.name for t in call.tools]


def sdk_deploy() -> str:
    """Deploy the service."""
    return "deployed"


@pytest.mark.parametrize("mode", ["recommend", "restrict"])
def test_agents_sdk_gated_tool_enabled_only_while_unlocked(gated_skills: Path, mode: str) -> None:
    from agents import function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from skillcore_openai import AgentSkills

    deploy = function_tool(sdk_deploy, name_override="deploy")
    skills = AgentSkills(gated_skills, tools=[deploy], allowed_tools_policy=mode)
    model = ScriptedModel(
        [
            [function_call("deploy", {}, call_id="c0")],
            [function_call("load_skill", {"skill_name": "release"}, call_id="c1")],
            [function_call("deploy", {}, call_id="c2")],
            [function_call("unload_skill", {"skill_name": "release"}, call_id="c3")],
            [function_call("deploy", {}, call_id="c4")],
            [assistant_message("done")],
        ]
    )
    _sdk_run(skills, model)
    calls = model.calls
    out = _outputs(calls[-1])
    # Locked: not offered, so the SDK answers a call of it as an unknown tool (not run).
    assert "deploy" not in _names(calls[0]) and "Read" in _names(calls[0])
    assert out["c0"] != "deployed" and "deploy" in out["c0"], out["c0"]
    assert "deploy" in _names(calls[2]), _names(calls[2])
    assert out["c2"] == "deployed"
    assert "deploy" not in _names(calls[4]) and out["c4"] != "deployed"
    # The guardrail refuses a locked call that reaches it (the same rule as every adapter).
    decision = skills.toolkit.check_call(skills.state.session, "deploy")
    assert decision.code.value == "TOOL_LOCKED" and "release" in decision.reason


def test_agents_sdk_tool_not_available_and_hide_blocked(gated_skills: Path) -> None:
    from agents.testing import ScriptedModel, assistant_message, function_call

    from skillcore_openai import AgentSkills

    skills = AgentSkills(gated_skills, check_tools_available=True)
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "writer"}, call_id="c1")],
            [assistant_message("x")],
        ]
    )
    _sdk_run(skills, model)
    out = _outputs(model.calls[-1])["c1"]
    assert "Warning" in out and "Edit" in out, out

    skills = AgentSkills(gated_skills, allowed_tools_policy="restrict", check_tools_available=True)
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "writer"}, call_id="c1")],
            [assistant_message("x")],
        ]
    )
    _sdk_run(skills, model)
    out = _outputs(model.calls[-1])["c1"]
    assert out.startswith("Error: Cannot load 'writer'") and "Edit" in out, out
    assert skills.state.loaded_names == ()

    skills = AgentSkills(gated_skills, allowed_tools_policy="restrict", hide_blocked_tools=True)
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "ops"}, call_id="c1")],
            [function_call("Write", {}, call_id="c2")],
            [assistant_message("x")],
        ]
    )
    _sdk_run(skills, model)
    assert "Write" in _names(model.calls[0])
    names = _names(model.calls[1])
    assert "Write" not in names and "Read" in names and "unload_skill" in names, names
    # Hidden = disabled in the SDK: a call of it is an unknown tool there, and never runs.
    assert _outputs(model.calls[-1])["c2"] != "wrote"
