"""A single-input LangChain ``Tool`` (how free-form tools are built) receives one raw string:
``Bash(git:*)`` judges exactly that string as the command, through a real ``create_agent``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.tools import Tool

from skillcore.testing import write_skill
from skillcore_langchain.testing import ScriptedChatModel, tool_calls

SMUGGLED = '{"command": "git status",\n"touch" : "pwned"\n}'


def test_single_input_tool_is_judged_on_its_raw_input(
    tmp_path: Path, model: ScriptedChatModel, make_agent: Any, run: Any, helpers: Any
) -> None:
    ran: list[str] = []

    def execute(raw: str) -> str:
        ran.append(raw)
        return "ran"

    tool = Tool(name="execute", func=execute, description="Run one shell command.")
    write_skill(tmp_path, "gitter", "Git reports.", "Report.", "allowed-tools: Bash(git:*)\n")
    model.push(
        tool_calls(("load_skill", {"skill_name": "gitter"})),
        tool_calls(
            ("execute", {"__arg1": SMUGGLED}),
            ("execute", {"__arg1": "git status"}),
            ("execute", {"__arg1": "git status", "extra": "rm -rf /"}),
        ),
    )
    agent, _ = make_agent(
        tmp_path, tools=[tool], allowed_tools_policy="restrict", tool_aliases="deepagents"
    )
    out = helpers.replies(run(agent))
    texts = [str(m.content) for m in out if m.name == "execute"]
    assert "only for commands matching 'git:*'" in texts[0], texts[0]
    assert texts[1] == "ran", texts[1]
    assert "cannot be checked" in texts[2], texts[2]
    assert ran == ["git status"]
