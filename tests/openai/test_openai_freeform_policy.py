"""Argument patterns judge exactly what the tool receives: a custom (free-form) tool gets raw
text, so its whole input is the command; a JSON shape the policy cannot read with certainty
(duplicate keys) does not pass an argument-restricted entry. Through the real ``openai``
client (Chat Completions and Responses) and the Agents SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from skillcore.testing import write_skill
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedCall, ScriptedServer, tool_calls

#: The input that parses as JSON with ``command: "git status"`` and runs ``touch`` in bash.
SMUGGLED = '{"command": "git status",\n"touch" : "pwned"\n}'


def _skills(tmp_path: Path, ran: list[str]) -> OpenAISkills:
    write_skill(tmp_path, "gitter", "Git reports.", "Report.", "allowed-tools: Bash(git:*)\n")

    def execute(raw: str) -> str:
        ran.append(raw)
        return "ran"

    return OpenAISkills(
        tmp_path,
        handlers={"execute": execute},
        allowed_tools_policy="restrict",
        tool_aliases="deepagents",
    )


def _turn(api: str, calls: list[ScriptedCall]) -> list[Any]:
    """The tool calls of one model turn, as the real client returns them."""
    with ScriptedServer([tool_calls(*calls)]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        try:
            if api == "chat":
                reply = client.chat.completions.create(model="m", messages=[])
                return list(reply.choices[0].message.tool_calls or [])
            return list(client.responses.create(model="m", input="go").output)
        finally:
            client.close()


def _text(message: dict[str, Any]) -> str:
    return str(message.get("content", message.get("output")))


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_custom_tool_input_is_judged_as_the_raw_command(tmp_path: Path, api: str) -> None:
    ran: list[str] = []
    skills = _skills(tmp_path, ran)
    calls = _turn(
        api,
        [
            ScriptedCall("load_skill", {"skill_name": "gitter"}, "c0"),
            ScriptedCall("execute", SMUGGLED, "c1", custom=True),
            ScriptedCall("execute", '{"command": "git status"}', "c2", custom=True),
            ScriptedCall("execute", "git status", "c3", custom=True),
        ],
    )
    turn = skills.dispatch_all(skills.session(), calls)
    out = [_text(m) for m in turn.messages]
    assert "only for commands matching 'git:*'" in out[1], out[1]
    assert "only for commands matching 'git:*'" in out[2], out[2]
    assert out[3] == "ran"
    assert ran == ["git status"]


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_duplicate_keys_do_not_pass_an_argument_pattern(tmp_path: Path, api: str) -> None:
    """Parsers disagree on which duplicate wins: a shell call with two ``command`` keys is
    not allowed by ``Bash(git:*)``."""
    ran: list[str] = []
    write_skill(tmp_path, "gitter", "Git reports.", "Report.", "allowed-tools: Bash(git:*)\n")
    skills = OpenAISkills(
        tmp_path,
        handlers={"execute": lambda a: ran.append(a["command"]) or "ran"},
        allowed_tools_policy="restrict",
        tool_aliases="deepagents",
    )
    twice = '{"command": "rm -rf /", "command": "git status"}'
    calls = _turn(
        api,
        [
            ScriptedCall("load_skill", {"skill_name": "gitter"}, "c0"),
            ScriptedCall("execute", twice, "c1"),
            ScriptedCall("execute", json.dumps({"command": "git status"}), "c2"),
        ],
    )
    out = [_text(m) for m in skills.dispatch_all(skills.session(), calls).messages]
    assert "cannot be checked" in out[1], out[1]
    assert out[2] == "ran" and ran == ["git status"]


def test_agents_sdk_refuses_to_guard_a_custom_tool(tmp_path: Path) -> None:
    """The Agents SDK runs no input guardrail for custom tools: RESTRICT cannot judge their
    raw input, so guarding one is refused rather than letting it run unchecked."""
    from agents import CustomTool

    from skillcore_openai import AgentSkills

    write_skill(tmp_path, "gitter", "Git reports.", "Report.", "allowed-tools: Bash(git:*)\n")
    skills = AgentSkills(tmp_path, allowed_tools_policy="restrict", tool_aliases="deepagents")

    async def run(ctx: Any, raw: str) -> str:
        return "ran"

    tool = CustomTool(name="execute", description="Run a command.", on_invoke_tool=run)
    with pytest.raises(TypeError, match="RESTRICT cannot block"):
        skills.guard(tool)


def test_agents_sdk_mcp_shell_tool_is_judged_on_what_the_server_gets(tmp_path: Path) -> None:
    """An MCP ``execute`` tool through a guarded server: the guardrail reads the same JSON
    the server is sent; ambiguous JSON (a key twice) and a hidden second line are blocked
    and never reach the server."""
    import asyncio
    import os
    import sys

    from agents import Agent, RunConfig, Runner
    from agents.mcp import MCPServerStdio
    from agents.testing import ScriptedModel, assistant_message, function_call

    from skillcore_openai import AgentSkills

    write_skill(tmp_path, "gitter", "Git reports.", "Report.", "allowed-tools: Bash(git:*)\n")
    log = tmp_path / "calls.log"
    skills = AgentSkills(tmp_path, allowed_tools_policy="restrict", tool_aliases="deepagents")
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "gitter"}, call_id="c1")],
            [
                function_call(
                    "execute", '{"command":"touch pwned","command":"git status"}', call_id="c2"
                ),
                function_call("execute", {"command": "git status\ntouch pwned"}, call_id="c3"),
                function_call("execute", {"command": "git status"}, call_id="c4"),
            ],
            [assistant_message("done")],
        ]
    )
    server = Path(__file__).with_name("mcp_file_tools.py")

    async def main() -> None:
        params = {
            "command": sys.executable,
            "args": [str(server)],
            "env": {**os.environ, "SKILLCORE_TEST_LOG": str(log)},
        }
        async with MCPServerStdio(params, name="shell", client_session_timeout_seconds=30) as mcp:
            agent = Agent(
                name="a",
                instructions=skills.instructions(),
                tools=skills.tools(),
                mcp_servers=[mcp],
                model=model,
            )
            await Runner.run(
                skills.guard_agent(agent), "go", run_config=RunConfig(tracing_disabled=True)
            )

    asyncio.run(main())
    out = {
        i["call_id"]: i["output"]
        for i in model.calls[-1].input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }
    assert "cannot be checked" in str(out["c2"]), out["c2"]
    assert "only for commands matching 'git:*'" in str(out["c3"]), out["c3"]
    assert log.read_text().splitlines() == ["execute git status"]
