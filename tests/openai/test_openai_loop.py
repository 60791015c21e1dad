"""Multi-turn custom loops through the real ``openai`` client on both APIs, asserting the exact
request payloads the SDK sends to the scripted server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from skillcore import Limits, SkillSession, SkillToolkit
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

BASE = "You are a careful data assistant."
PROMPT = "Is data.csv clean?"
MODEL = "scripted-model"
# The user's own tools, in each API's shape.
WRITE_PARAMS = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
    "required": ["path", "text"],
    "additionalProperties": False,
}
CHAT_USER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "Write",
            "description": "Write a file.",
            "parameters": WRITE_PARAMS,
            "strict": True,
        },
    }
]
RESPONSES_USER_TOOLS = [
    {
        "type": "function",
        "name": "Write",
        "description": "Write a file.",
        "parameters": WRITE_PARAMS,
        "strict": True,
    }
]

CSV = {"skill_name": "csv-data-audit"}
CHECKLIST = {"skill_name": "csv-data-audit", "path": "references/checklist.md"}
WRITE = {"path": "report.md", "text": "all good"}
SCRIPT = [
    tool_calls(
        ScriptedCall("load_skill", CSV, "c1"),
        ScriptedCall("search_skills", {"query": "release", "path": None}, "c2"),
    ),
    tool_calls(
        ScriptedCall("Write", WRITE, "c3"), ScriptedCall("load_skill_resource", CHECKLIST, "c4")
    ),
    tool_calls(ScriptedCall("unload_skill", CSV, "c5")),
    tool_calls(ScriptedCall("Write", WRITE, "c6")),
    text("The file is clean; the report is in report.md."),
]


def chat_loop(client: Any, skills: OpenAISkills, session: SkillSession) -> tuple[str, Any]:
    """The Chat Completions loop from docs/openai.md."""
    messages: list[Any] = [{"role": "system", "content": ""}, {"role": "user", "content": PROMPT}]
    for _ in range(10):
        messages[0] = {"role": "system", "content": skills.instructions(session, BASE)}
        response = client.chat.completions.create(
            model=MODEL, messages=messages, tools=[*skills.chat_tools(session), *CHAT_USER_TOOLS]
        )
        message = response.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            return message.content, session
        session, replies = skills.dispatch_all(session, message.tool_calls)
        messages.extend(replies)
    raise AssertionError("the loop did not finish")


def responses_loop(client: Any, skills: OpenAISkills, session: SkillSession) -> tuple[str, Any]:
    """The Responses loop from docs/openai.md."""
    items: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(10):
        response = client.responses.create(
            model=MODEL,
            instructions=skills.instructions(session, BASE),
            input=items,
            tools=[*skills.response_tools(session), *RESPONSES_USER_TOOLS],
        )
        items += response.output
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return response.output_text, session
        session, outputs = skills.dispatch_all(session, calls)
        items += outputs
    raise AssertionError("the loop did not finish")


class Expected:
    """Expected texts computed with the core directly (an independent path)."""

    def __init__(self, skills: OpenAISkills, session: SkillSession) -> None:
        self.toolkit = SkillToolkit(skills.library)
        self.skills = skills
        self.s0 = session
        r1 = self.toolkit.call(session, "load_skill", CSV)
        self.s1 = r1.session
        self.load = r1.text
        self.search = self.toolkit.call(self.s1, "search_skills", {"query": "release"}).text
        self.blocked = "Error: " + self.s1.check_tool("Write").reason
        self.checklist = self.toolkit.call(self.s1, "load_skill_resource", CHECKLIST).text
        r5 = self.toolkit.call(self.s1, "unload_skill", CSV)
        self.s2 = r5.session
        self.unload = r5.text

    def instructions(self, session: SkillSession) -> str:
        return BASE + "\n\n" + self.toolkit.instructions(session)


def _chat_call(call_id: str, name: str, args: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def _tool(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _assistant(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "refusal": None, "tool_calls": list(calls)}


@pytest.fixture
def restricted(make_skills, restrict) -> tuple[OpenAISkills, SkillSession]:
    skills = make_skills()
    return skills, skills.session(Limits(max_loaded=2), restrict)


def test_chat_completions_loop(server: ScriptedServer, client, restricted) -> None:
    skills, session = restricted
    exp = Expected(skills, session)
    server.add(*SCRIPT)
    answer, final = chat_loop(client, skills, session)
    assert answer == "The file is clean; the report is in report.md."
    assert final.loaded_names == ()
    assert len(server.requests) == 5 and server.remaining == 0
    assert all(r.path == "/v1/chat/completions" for r in server.requests)
    assert server.requests[0].headers["authorization"] == "Bearer test-key"

    tools0 = skills.chat_tools(session) + CHAT_USER_TOOLS
    system = {"role": "system", "content": exp.instructions(exp.s0)}
    user = {"role": "user", "content": PROMPT}
    assert server.requests[0].body == {"model": MODEL, "messages": [system, user], "tools": tools0}

    a1 = _assistant(
        _chat_call("c1", "load_skill", '{"skill_name":"csv-data-audit"}'),
        _chat_call("c2", "search_skills", '{"query":"release","path":null}'),
    )
    turn1 = [a1, _tool("c1", exp.load), _tool("c2", exp.search)]
    loaded_system = {"role": "system", "content": exp.instructions(exp.s1)}
    assert loaded_system == system  # the stable prompt: each request extends the previous
    assert server.requests[1].body == {
        "model": MODEL,
        "messages": [loaded_system, user, *turn1],
        "tools": tools0,
    }

    a2 = _assistant(
        _chat_call("c3", "Write", '{"path":"report.md","text":"all good"}'),
        _chat_call(
            "c4",
            "load_skill_resource",
            '{"skill_name":"csv-data-audit","path":"references/checklist.md"}',
        ),
    )
    turn2 = [a2, _tool("c3", exp.blocked), _tool("c4", exp.checklist)]
    assert "not allowed" in exp.blocked and "<skill_resource" in exp.checklist
    a3 = _assistant(_chat_call("c5", "unload_skill", '{"skill_name":"csv-data-audit"}'))
    turn3 = [a3, _tool("c5", exp.unload)]
    a4 = _assistant(_chat_call("c6", "Write", '{"path":"report.md","text":"all good"}'))
    turn4 = [a4, _tool("c6", "written")]
    assert server.requests[4].body == {
        "model": MODEL,
        "messages": [system, user, *turn1, *turn2, *turn3, *turn4],
        "tools": tools0,
    }


def _fc(call_id: str, name: str, args: str, item_id: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": args,
        "status": "completed",
    }


def _out(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def test_responses_loop(server: ScriptedServer, client, restricted) -> None:
    skills, session = restricted
    exp = Expected(skills, session)
    server.add(*SCRIPT)
    answer, final = responses_loop(client, skills, session)
    assert answer == "The file is clean; the report is in report.md."
    assert final.loaded_names == ()
    assert len(server.requests) == 5
    assert all(r.path == "/v1/responses" for r in server.requests)

    tools0 = skills.response_tools(session) + RESPONSES_USER_TOOLS
    user = {"role": "user", "content": PROMPT}
    assert server.requests[0].body == {
        "model": MODEL,
        "instructions": exp.instructions(exp.s0),
        "input": [user],
        "tools": tools0,
    }
    # Item ids follow the scripted server's counter (fc_1, fc_2, resp_3, ...).
    bodies = [r.body for r in server.requests]
    ids = [[i["id"] for i in b["input"] if i.get("type") == "function_call"] for b in bodies]
    fc = ids[-1]
    turn1 = [
        _fc("c1", "load_skill", '{"skill_name":"csv-data-audit"}', fc[0]),
        _fc("c2", "search_skills", '{"query":"release","path":null}', fc[1]),
        _out("c1", exp.load),
        _out("c2", exp.search),
    ]
    assert bodies[1] == {
        "model": MODEL,
        "instructions": exp.instructions(exp.s1),
        "input": [user, *turn1],
        "tools": tools0,
    }
    turn2 = [
        _fc("c3", "Write", '{"path":"report.md","text":"all good"}', fc[2]),
        _fc(
            "c4",
            "load_skill_resource",
            '{"skill_name":"csv-data-audit","path":"references/checklist.md"}',
            fc[3],
        ),
        _out("c3", exp.blocked),
        _out("c4", exp.checklist),
    ]
    turn3 = [
        _fc("c5", "unload_skill", '{"skill_name":"csv-data-audit"}', fc[4]),
        _out("c5", exp.unload),
    ]
    turn4 = [
        _fc("c6", "Write", '{"path":"report.md","text":"all good"}', fc[5]),
        _out("c6", "written"),
    ]
    assert bodies[4] == {
        "model": MODEL,
        "instructions": exp.instructions(exp.s2),
        "input": [user, *turn1, *turn2, *turn3, *turn4],
        "tools": tools0,
    }
    assert len(set(fc)) == 6


def test_async_chat_loop_with_malformed_calls(
    server: ScriptedServer, async_client, make_skills
) -> None:
    """The async client + adispatch_all; malformed model output never breaks the loop."""
    skills = make_skills()
    session = skills.session()
    server.add(
        tool_calls(
            ScriptedCall("load_skill", '{"skill_name": "csv-data-audit"', "m1"),  # cut-off JSON
            ScriptedCall("load_skill", {"skill_name": 7}, "m2"),
            ScriptedCall("unload_skill", {}, "m3"),
            ScriptedCall("search_skills", {"query": "x", "path": None, "top": 2}, "m4"),
            ScriptedCall("Read", "not json", "m5"),
            ScriptedCall("Fly", {}, "m6"),
        ),
        text("sorry"),
    )

    async def loop() -> tuple[str, Any]:
        messages: list[Any] = [{"role": "user", "content": PROMPT}]
        s = session
        for _ in range(5):
            response = await async_client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "system", "content": skills.instructions(s)}, *messages],
                tools=skills.chat_tools(s),
            )
            message = response.choices[0].message
            messages.append(message)
            if not message.tool_calls:
                return message.content, s
            s, replies = await skills.adispatch_all(s, message.tool_calls)
            messages.extend(replies)
        raise AssertionError("no end")

    answer, final = asyncio.run(loop())
    assert answer == "sorry" and final == session
    sent = server.requests[1].body["messages"][-6:]
    assert [m["tool_call_id"] for m in sent] == ["m1", "m2", "m3", "m4", "m5", "m6"]
    assert all(m["role"] == "tool" and m["content"].startswith("Error: ") for m in sent)
    assert "not valid JSON" in sent[0]["content"]
    assert "must be a non-empty string" in sent[1]["content"]
    assert "missing required argument 'skill_name'" in sent[2]["content"]
    assert "unexpected argument(s) top" in sent[3]["content"]
    assert "invalid arguments for Read" in sent[4]["content"]
    assert "no tool named 'Fly'" in sent[5]["content"]
