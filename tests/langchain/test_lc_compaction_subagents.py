"""Loaded skills survive context compaction; subagents are isolated or seeded; deepagents."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.runtime import loaded_names_of
from skillcore_langchain import SEED_KEY, STATE_KEY, SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

CFG: Any = {"configurable": {"thread_id": "thread-1"}}
HEADING = "## Loaded skill instructions"


def _compacting_agent(model: ScriptedChatModel, skills: Path, **knobs: Any) -> Any:
    summarizer = SummarizationMiddleware(
        ScriptedChatModel(), trigger=("messages", 6), keep=("messages", 2)
    )
    mw = SkillsMiddleware(skills, **knobs)
    return create_agent(
        model, plain_tools(), middleware=[summarizer, mw], checkpointer=InMemorySaver()
    )


def _invoke(agent: Any, text: str, use_async: bool) -> Any:
    payload: Any = {"messages": [HumanMessage(text)]}
    if use_async:
        return asyncio.run(agent.ainvoke(payload, CFG))
    return agent.invoke(payload, CFG)


def _has_skill_message(request: dict[str, Any], name: str) -> bool:
    marker = f'<skill_content name="{name}">'
    return any(marker in m.text for m in request["messages"][1:])


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_instructions_restored_after_summarization(model, skills, use_async) -> None:
    agent = _compacting_agent(model, skills)
    model.push(tool_calls(("load_skill", {"skill_name": "beta"})))
    _invoke(agent, "use beta", use_async)
    # While the load reply is in the conversation, nothing is repeated.
    assert _has_skill_message(model.requests[-1], "beta")
    assert HEADING not in model.system()
    for i in range(3):
        model.push(tool_calls("Read"))
        _invoke(agent, f"step {i}", use_async)
    last = model.requests[-1]
    assert not _has_skill_message(last, "beta"), "summarization should have dropped it"
    system = model.system()
    assert HEADING in system
    assert '<skill_content name="beta">\nBeta says: anything goes.\n</skill_content>' in system
    # The catalog is the one of the first call (stable prompt): the repeat comes after it.
    assert system.startswith(model.system(0)) and "[Loaded]" not in system
    # Still loaded in the checkpoint; the summary did not unload anything.
    assert loaded_names_of(agent.get_state(CFG).values[STATE_KEY]) == ["beta"]


def test_unreadable_instructions_after_compaction_are_reported(model, skills) -> None:
    agent = _compacting_agent(model, skills, refresh=False)
    model.push(tool_calls(("load_skill", {"skill_name": "beta"})))
    agent.invoke({"messages": [HumanMessage("use beta")]}, CFG)
    (skills / "beta" / "SKILL.md").unlink()
    for i in range(3):
        model.push(tool_calls("Read"))
        agent.invoke({"messages": [HumanMessage(f"step {i}")]}, CFG)
    system = model.system()
    assert "Skill 'beta' is loaded, but its instructions could not be read again" in system
    assert "unload_skill" in system


def test_seed_by_names_loads_and_injects(model, skills) -> None:
    mw = SkillsMiddleware(skills)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    agent.invoke({"messages": [HumanMessage("hi")], SEED_KEY: ["alpha", "nope"]}, CFG)
    assert "- **alpha**: " in model.system()  # the stable catalog lists it unmarked
    assert '<skill_content name="alpha">' in model.system()
    assert loaded_names_of(agent.get_state(CFG).values[STATE_KEY]) == ["alpha"]
    # A seed is for a thread's first run only.
    agent.invoke({"messages": [HumanMessage("hi")], SEED_KEY: ["beta"]}, CFG)
    assert loaded_names_of(agent.get_state(CFG).values[STATE_KEY]) == ["alpha"]


def test_state_key_is_private(model, skills, caplog) -> None:
    mw = SkillsMiddleware(skills)
    agent = create_agent(model, plain_tools(), middleware=[mw])
    model.push(tool_calls(("load_skill", {"skill_name": "alpha"})))
    forged = {"schema": "forged", "loaded": []}
    with caplog.at_level(logging.WARNING, logger="skillcore_langchain"):
        out = agent.invoke({"messages": [HumanMessage("hi")], STATE_KEY: forged})
    # Not accepted as input (the hooks would have warned about the forged value) ...
    assert not [r for r in caplog.records if "unreadable skill state" in r.getMessage()]
    # ... and not returned.
    assert STATE_KEY not in out and SEED_KEY not in out
    assert out["messages"][-2].status == "success"


# -- deepagents ---------------------------------------------------------------------------------


def _deep_agent(model: ScriptedChatModel, skills: Path, share: bool) -> Any:
    from deepagents import create_deep_agent

    parent = SkillsMiddleware(skills, share_with_subagents=share)
    child = SkillsMiddleware(parent.library)  # one library: discovered once for both
    helper = {
        "name": "helper",
        "description": "Does delegated work.",
        "system_prompt": "You are the helper subagent.",
        "middleware": [child],
    }
    return create_deep_agent(
        model=model,
        system_prompt="You are the parent.",
        middleware=[parent],
        subagents=[helper],
        checkpointer=InMemorySaver(),
    )


def _helper_requests(model: ScriptedChatModel) -> list[int]:
    return [
        i for i in range(len(model.requests)) if "You are the helper subagent." in model.system(i)
    ]


@pytest.mark.parametrize("share", [False, True], ids=["isolated", "seeded"])
def test_deep_agent_with_subagent(model, skills, share: bool) -> None:
    agent = _deep_agent(model, skills, share)
    model.push(
        tool_calls(("load_skill", {"skill_name": "alpha"})),
        tool_calls(("task", {"description": "do beta work", "subagent_type": "helper"})),
        tool_calls(("load_skill", {"skill_name": "beta"})),  # inside the subagent
        tool_calls(text="helper finished"),
    )
    out = agent.invoke({"messages": [HumanMessage("delegate")]}, CFG)

    parent_first = model.system(0)
    assert "You are the parent." in parent_first and "- **alpha**:" in parent_first
    assert "load_skill" in model.tool_names(0) and "task" in model.tool_names(0)
    helper = _helper_requests(model)
    assert helper, "the helper subagent never called the model"
    child_first = model.system(helper[0])
    assert "- **beta**:" in child_first
    if share:
        assert '<skill_content name="alpha">' in child_first  # instructions came along
    else:
        assert "<skill_content" not in child_first
    assert _has_skill_message(model.requests[helper[-1]], "beta")  # the child's load
    # Whatever the child did stays in the child.
    assert loaded_names_of(agent.get_state(CFG).values[STATE_KEY]) == ["alpha"]
    task_reply = next(m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "task")
    assert "helper finished" in task_reply.text


def test_deep_agent_drop_in_replaces_builtin_skills(model, skills) -> None:
    """Named ``SkillsMiddleware``, ours takes the slot deepagents' would fill (main agent and
    general-purpose subagent), so ``skills=`` users switch by adding one middleware."""
    from deepagents import create_deep_agent

    mw = SkillsMiddleware(skills)
    agent = create_deep_agent(
        model=model, skills=["/skills/"], middleware=[mw], checkpointer=InMemorySaver()
    )
    model.push(
        tool_calls(("task", {"description": "beta work", "subagent_type": "general-purpose"})),
        tool_calls(("load_skill", {"skill_name": "beta"})),  # in the general-purpose subagent
    )
    agent.invoke({"messages": [HumanMessage("delegate")]}, CFG)
    assert len(model.requests) >= 4
    for i in range(len(model.requests)):
        assert "## Skills System" not in model.system(i)  # deepagents' own prompt is gone
        assert "- **alpha**" in model.system(i)
    assert any(_has_skill_message(r, "beta") for r in model.requests)
    assert loaded_names_of(agent.get_state(CFG).values.get(STATE_KEY)) == []
