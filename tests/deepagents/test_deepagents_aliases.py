"""RESTRICT inside a real ``create_deep_agent``: Claude-style ``allowed-tools`` reach
deepagents' own tools through the ``deepagents`` alias preset (its names by default), and
``Bash(git:*)`` is enforced on ``execute``'s command; in a plain LangChain agent whose tools
none of a restricting skill's entries name, the load warns once."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest
from deepagents import create_deep_agent
from deepagents.backends import LocalShellBackend
from deepagents.backends.protocol import ExecuteResponse
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import EventRecorder, write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, tool_calls


class GitOnlyShell(LocalShellBackend):
    """A local shell that records every command and, as a safety net for this test, runs
    only ``git`` ones: a command the policy wrongly let through is recorded, never run."""

    def __init__(self, root: Path) -> None:
        super().__init__(root_dir=root, virtual_mode=True, inherit_env=True)
        self.commands: list[str] = []

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        self.commands.append(command)
        if not command.startswith("git "):
            return ExecuteResponse(output="(not run)", exit_code=1)
        return super().execute(command, timeout=timeout)


def replies(out: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for m in out["messages"]:
        if isinstance(m, ToolMessage):
            found.setdefault(str(m.name), []).append(str(m.content))
    return found


def test_deepagents_preset_under_restrict(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "notes.txt").write_text("hello from notes\n")
    skills = tmp_path / "skills"
    write_skill(
        skills, "gitter", "Git reports.", "Report git status.", "allowed-tools: Read Bash(git:*)\n"
    )
    backend = GitOnlyShell(work)
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "gitter"})),
        tool_calls(
            ("read_file", {"file_path": "/notes.txt"}),
            ("write_file", {"file_path": "/new.txt", "content": "x"}),
            ("execute", {"command": "git status"}),
            ("execute", {"command": "rm -rf /"}),
            ("execute", {"command": "git status; rm -rf /"}),
            ("write_todos", {"todos": [{"content": "report", "status": "pending"}]}),
        ),
    )
    middleware = SkillsMiddleware(
        [skills], allowed_tools_policy="restrict", tool_aliases="deepagents"
    )
    agent = create_deep_agent(
        model=model, backend=backend, middleware=[middleware], checkpointer=InMemorySaver()
    )
    out = agent.invoke(
        {"messages": [HumanMessage("status?")]}, {"configurable": {"thread_id": "t"}}
    )

    got = replies(out)
    assert "hello from notes" in got["read_file"][0]
    (write,) = got["write_file"]
    assert "not allowed" in write and "Read, Bash(git:*)" in write
    assert not (work / "new.txt").exists()
    status, rm, chained = got["execute"]
    assert "No commits yet" in status or "branch" in status
    assert "only for commands matching 'git:*'" in rm
    assert "only for commands matching 'git:*'" in chained
    assert backend.commands == ["git status"]  # the blocked commands never reached the shell
    (todos,) = got["write_todos"]
    assert "not allowed" not in todos


def test_without_the_preset_restrict_blocks_the_harness(tmp_path: Path) -> None:
    """The problem the preset solves: Claude-style names match no deepagents tool (with
    the aliases turned off, the load says so)."""
    skills = tmp_path / "skills"
    write_skill(skills, "reader", "Reads.", "Read only.", "allowed-tools: Read\n")
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "reader"})),
        tool_calls(("ls", {"path": "/"})),
    )
    middleware = SkillsMiddleware([skills], allowed_tools_policy="restrict", tool_aliases=None)
    agent = create_deep_agent(
        model=model,
        backend=GitOnlyShell(tmp_path),
        middleware=[middleware],
        checkpointer=InMemorySaver(),
    )
    with pytest.warns(UserWarning, match="'reader' restricts tools to Read, and none of them"):
        out = agent.invoke({"messages": [HumanMessage("ls")]}, {"configurable": {"thread_id": "t"}})
    (ls,) = replies(out)["ls"]
    assert "not allowed" in ls


def test_git_configuration_on_the_command_line_is_refused(tmp_path: Path) -> None:
    """``Bash(git:*)`` in a real deep agent: ``git clone -c``/``--config`` (every spelling)
    and ``--template`` would make git run a program; none reaches the shell."""
    work = tmp_path / "work"
    work.mkdir()
    source = tmp_path / "src"
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    subprocess.run(
        ["git", "-C", str(source), "-c", "user.name=u", "-c", "user.email=u@x", "commit",
         "-q", "--allow-empty", "-m", "x"],
        check=True,
    )  # fmt: skip
    pwned = tmp_path / "pwned"
    skills = tmp_path / "skills"
    write_skill(skills, "gitter", "Git.", "Use git.", "allowed-tools: Bash(git:*)\n")
    attacks = [
        f'git clone -c protocol.ext.allow=always "ext::sh -c touch% {pwned}" d1',
        f'git clone -cprotocol.ext.allow=always "ext::sh -c touch% {pwned}" d2',
        f'git clone --config=protocol.ext.allow=always "ext::sh -c touch% {pwned}" d3',
        f'git clone --conf protocol.ext.allow=always "ext::sh -c touch% {pwned}" d4',
        f"git clone --config core.sshCommand='touch {pwned}' host:repo d5",
    ]
    backend = GitOnlyShell(work)
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "gitter"})),
        tool_calls(
            *(("execute", {"command": c}) for c in attacks),
            ("execute", {"command": f"git clone -q {source} plain"}),
        ),
    )
    middleware = SkillsMiddleware(
        [skills], allowed_tools_policy="restrict", tool_aliases="deepagents"
    )
    agent = create_deep_agent(
        model=model, backend=backend, middleware=[middleware], checkpointer=InMemorySaver()
    )
    out = agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}})
    got = replies(out)["execute"]
    assert all("runs other programs" in r for r in got[:-1]), got
    assert backend.commands == [f"git clone -q {source} plain"]
    assert not pwned.exists()


def test_deep_agent_tools_are_reached_by_default(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "notes.txt").write_text("hello from notes\n")
    skills = tmp_path / "skills"
    write_skill(skills, "gitter", "Git.", "Report.", "allowed-tools: Read Bash(git:*)\n")
    backend = GitOnlyShell(work)
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "gitter"})),
        tool_calls(
            ("read_file", {"file_path": "/notes.txt"}),
            ("execute", {"command": "git status"}),
            ("write_file", {"file_path": "/new.txt", "content": "x"}),
            ("write_todos", {"todos": [{"content": "report", "status": "pending"}]}),
        ),
    )
    middleware = SkillsMiddleware([skills], allowed_tools_policy="restrict")
    agent = create_deep_agent(
        model=model, backend=backend, middleware=[middleware], checkpointer=InMemorySaver()
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the names match: nothing to warn about
        out = agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}})
    got = replies(out)
    assert "hello from notes" in got["read_file"][0]
    assert "not allowed" not in got["execute"][0]
    assert backend.commands == ["git status"]
    assert "not allowed" in got["write_file"][0]
    assert not (work / "new.txt").exists()
    # Names only by default: harness tools are always allowed once the preset is named.
    assert "not allowed" in got["write_todos"][0]
    named = SkillsMiddleware([skills], allowed_tools_policy="restrict", tool_aliases="deepagents")
    assert "write_todos" in named.policy.always


def test_plain_agent_warns_when_a_skill_names_none_of_its_tools(tmp_path: Path) -> None:
    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        return "found"

    skills = tmp_path / "skills"
    write_skill(skills, "gitter", "Git.", "Report.", "allowed-tools: Read Bash(git:*)\n")
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "gitter"})),
        tool_calls(("lookup", {"query": "x"})),
        tool_calls(("unload_skill", {"skill_name": "gitter"})),
        tool_calls(("load_skill", {"skill_name": "gitter"})),
    )
    middleware = SkillsMiddleware([skills], allowed_tools_policy="restrict")
    agent = create_agent(model, [lookup], middleware=[middleware], checkpointer=InMemorySaver())
    with EventRecorder() as rec, pytest.warns(UserWarning) as caught:
        out = agent.invoke({"messages": [HumanMessage("go")]}, {"configurable": {"thread_id": "t"}})
    assert "not allowed" in replies(out)["lookup"][0]
    texts = [str(w.message) for w in caught if "gitter" in str(w.message)]
    assert len(texts) == 1, texts  # loaded twice, warned once
    assert "Bash(git:*)" in texts[0] and "lookup" in texts[0] and "tool_aliases" in texts[0]
    assert [e.name for e in rec.take() if e.name == "skill.tools_unmatched"] == [
        "skill.tools_unmatched"
    ]
