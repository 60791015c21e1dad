"""``create_deep_agent`` runs with skills kept in deepagents backends."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from da_helpers import TREE, skill_md, state_files
from deepagents import create_deep_agent
from deepagents.backends import LocalShellBackend, StateBackend
from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, tool_calls


def skill_dir(messages: list[BaseMessage]) -> str:
    """The skill directory named in the latest load_skill reply."""
    for m in reversed(messages):
        if isinstance(m, ToolMessage) and isinstance(m.content, str):
            found = re.search(r"^Skill directory: (.+)$", m.content, re.M)
            if found:
                return found.group(1)
    raise AssertionError("no load_skill reply in the prompt")


def replies(out: dict[str, Any], name: str) -> list[str]:
    return [
        str(m.content) for m in out["messages"] if isinstance(m, ToolMessage) and m.name == name
    ]


def test_deep_agent_loads_a_skill_then_reads_and_runs_its_script(tmp_path: Path) -> None:
    """The directory in the load reply is one deepagents' read_file and execute open."""
    for path, data in TREE.items():
        target = tmp_path / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    backend = LocalShellBackend(root_dir=tmp_path, virtual_mode=False)
    model = ScriptedChatModel()
    model.push(
        tool_calls(("load_skill", {"skill_name": "alpha"})),
        lambda messages: tool_calls(
            ("read_file", {"file_path": f"{skill_dir(messages)}/scripts/run.py"}),
            ("execute", {"command": f"python3 {skill_dir(messages)}/scripts/run.py"}),
        ),
    )
    skills = SkillsMiddleware(backend=backend, sources=[(str(tmp_path / "skills"), "Project")])
    agent = create_deep_agent(
        model=model, backend=backend, middleware=[skills], checkpointer=InMemorySaver()
    )
    out = agent.invoke(
        {"messages": [HumanMessage("use alpha")]}, {"configurable": {"thread_id": "a"}}
    )
    (loaded,) = replies(out, "load_skill")
    assert f"Skill directory: {tmp_path}/skills/alpha" in loaded
    assert "- **alpha**" in model.system(0)
    (read,) = replies(out, "read_file")
    assert "print('alpha ran')" in read
    (ran,) = replies(out, "execute")
    assert "alpha ran" in ran


@pytest.mark.parametrize("refresh", [True, False, 3600.0], ids=["every-run", "once", "hourly"])
def test_state_backend_catalogs_are_per_thread(refresh: bool | float) -> None:
    """Skills in graph state: each thread sees its own files (also when the catalog is not
    re-scanned every run), and the path shown is the state path read_file opens."""
    model = ScriptedChatModel()
    skills = SkillsMiddleware(backend=StateBackend(), sources=["/skills/"], refresh=refresh)
    agent = create_deep_agent(model=model, middleware=[skills], checkpointer=InMemorySaver())
    gamma = {"/skills/gamma/SKILL.md": skill_md("gamma", "Gamma tasks.")}

    model.push(
        tool_calls(("load_skill", {"skill_name": "alpha"})),
        lambda messages: tool_calls(
            ("read_file", {"file_path": f"{skill_dir(messages)}/references/notes.md"})
        ),
    )
    first = agent.invoke(
        {"messages": [HumanMessage("one")], "files": state_files(TREE)},
        {"configurable": {"thread_id": "one"}},
    )
    shown_one = model.system(0)
    n = len(model.requests)
    second = agent.invoke(
        {"messages": [HumanMessage("two")], "files": state_files(gamma)},
        {"configurable": {"thread_id": "two"}},
    )
    shown_two = model.system(n)

    assert "- **alpha**" in shown_one and "- **beta**" in shown_one
    assert "gamma" not in shown_one
    assert "- **gamma**" in shown_two and "alpha" not in shown_two
    assert "Skill directory: /skills/alpha" in replies(first, "load_skill")[0]
    assert "Alpha notes: 42." in replies(first, "read_file")[0]
    assert not replies(second, "load_skill")

    # thread one again: its catalog is still its own
    agent.invoke({"messages": [HumanMessage("again")]}, {"configurable": {"thread_id": "one"}})
    assert "- **beta**" in model.system(-1) and "gamma" not in model.system(-1)


def test_general_purpose_subagent_gets_the_skills(tmp_path: Path) -> None:
    """The one-liner gives the general-purpose subagent skillcore's skills (deepagents only
    creates the slot when skills= is given), and share_with_subagents seeds it."""
    from skillcore_langchain.deepagents import create_deep_agent as create

    for path, data in TREE.items():
        target = tmp_path / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    backend = LocalShellBackend(root_dir=tmp_path, virtual_mode=False)
    model = ScriptedChatModel()
    skills = SkillsMiddleware(
        backend=backend, sources=[str(tmp_path / "skills")], share_with_subagents=True
    )
    agent = create(model=model, backend=backend, middleware=[skills], checkpointer=InMemorySaver())
    model.push(
        tool_calls(("load_skill", {"skill_name": "alpha"})),
        tool_calls(("task", {"description": "beta work", "subagent_type": "general-purpose"})),
        tool_calls(("load_skill", {"skill_name": "beta"})),  # inside the subagent
    )
    agent.invoke({"messages": [HumanMessage("delegate")]}, {"configurable": {"thread_id": "g"}})
    sub = [
        i
        for i in range(len(model.requests))
        if "beta work" in str(model.requests[i]["messages"][1:2])
    ]
    assert sub, "the general-purpose subagent never ran"
    for i in sub:
        assert "- **beta**" in model.system(i)  # the subagent is shown the catalog
        assert "## Skills System" not in model.system(i)  # not deepagents' own middleware
    # Seeded from the parent: alpha's instructions are repeated to the subagent.
    assert '<skill_content name="alpha">' in model.system(sub[0])
    assert "load_skill" in model.tool_names(sub[0])


def test_skills_argument_next_to_the_middleware_warns(tmp_path: Path) -> None:
    from skillcore_langchain.deepagents import create_deep_agent as create

    (tmp_path / "skills").mkdir()
    skills = SkillsMiddleware(str(tmp_path / "skills"))
    with pytest.warns(UserWarning, match="skills= has no effect"):
        create(model=ScriptedChatModel(), middleware=[skills], skills=["/skills/"])
    with pytest.raises(ValueError, match="one SkillsMiddleware"):
        create(model=ScriptedChatModel(), middleware=[skills, SkillsMiddleware(str(tmp_path))])


def restricted_tree(tmp_path: Path) -> LocalShellBackend:
    tree = {
        **TREE,
        "/skills/alpha/SKILL.md": skill_md(
            "alpha", "Alpha tasks.", extra="allowed-tools: read_file\n"
        ),
    }
    for path, data in tree.items():
        target = tmp_path / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return LocalShellBackend(root_dir=tmp_path, virtual_mode=False)


@pytest.mark.parametrize("mode", ["batched", "per_call"])
def test_restrict_is_checked_before_the_human_is_asked(tmp_path: Path, mode: str) -> None:
    """A call the loaded skill does not allow is blocked without an approval request, also
    when it follows the load_skill in the same model turn; allowed calls are still asked."""
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    from skillcore_langchain.deepagents import create_deep_agent as create

    backend = restricted_tree(tmp_path)
    model = ScriptedChatModel()
    skills = SkillsMiddleware(
        backend=backend, sources=[str(tmp_path / "skills")], allowed_tools_policy="restrict"
    )
    interrupt_on: dict[str, Any] = {"execute": True, "write_file": True}
    if mode == "per_call":
        # Per-call approvals are asked in HumanInTheLoopMiddleware.wrap_tool_call, which
        # deepagents places outside the skills slot: the gated interrupt_on skips them.
        hitl = HumanInTheLoopMiddleware(
            interrupt_on=skills.gate_interrupts(interrupt_on), interrupt_mode="per_call"
        )
        agent = create(
            model=model, backend=backend, middleware=[skills, hitl], checkpointer=InMemorySaver()
        )
    else:
        agent = create(
            model=model,
            backend=backend,
            middleware=[skills],
            interrupt_on=interrupt_on,
            checkpointer=InMemorySaver(),
        )
    config = {"configurable": {"thread_id": mode}}
    model.push(
        tool_calls(
            ("load_skill", {"skill_name": "alpha"}),
            ("execute", {"command": "echo should-not-run"}),
        ),
    )
    out = agent.invoke({"messages": [HumanMessage("go")]}, config)
    assert not out.get("__interrupt__"), "the human was asked about a call RESTRICT blocks"
    (blocked,) = replies(out, "execute")
    assert "should-not-run" not in blocked and "alpha" in blocked

    # with no restricting skill loaded, the human is asked as before
    model.push(
        tool_calls(("unload_skill", {"skill_name": "alpha"})),
        tool_calls(("execute", {"command": "echo asked"})),
    )
    out = agent.invoke({"messages": [HumanMessage("again")]}, config)
    assert out.get("__interrupt__")


def test_gate_interrupts_keeps_its_own_when_and_recommend_is_unchanged(tmp_path: Path) -> None:
    backend = restricted_tree(tmp_path)
    recommend = SkillsMiddleware(backend=backend, sources=[str(tmp_path / "skills")])
    assert recommend.gate_interrupts({"execute": True}) == {"execute": True}
    restrict = SkillsMiddleware(
        backend=backend, sources=[str(tmp_path / "skills")], allowed_tools_policy="restrict"
    )
    gated = restrict.gate_interrupts(
        {
            "execute": True,
            "ls": False,
            "write_file": {"allowed_decisions": ["approve"], "when": lambda r: False},
        }
    )
    assert gated["ls"] is False
    assert set(gated["execute"]["allowed_decisions"]) >= {"approve", "reject"}
    assert callable(gated["write_file"]["when"]) and gated["write_file"]["allowed_decisions"] == [
        "approve"
    ]
