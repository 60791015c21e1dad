"""Skill-gated tools, TOOL_NOT_AVAILABLE and hide_blocked_tools through the dispatcher and the
real ``openai`` client against the scripted loopback server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillcore import SkillSession
from skillcore.testing import write_skill
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
    root = tmp_path / "skills"
    write_skill(
        root, "release", "Release work.", "Release steps.", "metadata:\n  include_tools: deploy\n"
    )
    write_skill(
        root,
        "ops",
        "Ops work.",
        "Ops steps.",
        "allowed-tools: Read\nmetadata:\n  adk_additional_tools: [deploy]\n",
    )
    write_skill(root, "writer", "Writing.", "Write things.", "allowed-tools: Read Write Edit\n")
    return root


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
    skills = make(gated_skills)
    result = skills.dispatch(skills.session(), call)
    assert not result.is_error and "Warning" in result.output and "Edit" in result.output
    skills = make(gated_skills, allowed_tools_policy="restrict")
    result = skills.dispatch(skills.session(), call)
    assert result.is_error and result.code.value == "TOOL_NOT_AVAILABLE", result
    assert result.session.loaded_names == ()
    # Without handlers the dispatcher does not know the agent's tools: no check.
    bare = OpenAISkills(gated_skills, allowed_tools_policy="restrict")
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
