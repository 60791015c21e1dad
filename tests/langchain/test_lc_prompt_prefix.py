"""The stable prompt prefix and the ``system_prompt=`` template through ``create_agent``: ten
model calls of one conversation that load and unload skills, measured in both prompt modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import (
    PREFIX_SCRIPT,
    PrefixStats,
    make_prefix_library,
    prefix_stats,
    write_skill,
)
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

BASE = "You are a careful assistant."


def _request_text(request: dict[str, Any]) -> str:
    """A request as a provider receives it: every message's role and content, in order."""
    parts = []
    for m in request["messages"]:
        calls = m.tool_calls if isinstance(m, AIMessage) else []
        parts.append(f"{m.type}: {m.text}{json.dumps(calls, sort_keys=True) if calls else ''}")
    return "\n".join(parts)


def _measure(root: Path, mode: str) -> tuple[PrefixStats, ScriptedChatModel]:
    model = ScriptedChatModel()
    model.push(*(tool_calls((c.tool, c.args)) for c in PREFIX_SCRIPT if c is not None))
    agent = create_agent(
        model,
        plain_tools(),
        system_prompt=BASE,
        middleware=[SkillsMiddleware(root, prompt_mode=mode)],
        checkpointer=InMemorySaver(),
    )
    agent.invoke({"messages": [HumanMessage("work")]}, {"configurable": {"thread_id": mode}})
    systems = [model.system(i) for i in range(len(model.requests))]
    return prefix_stats(systems, [_request_text(r) for r in model.requests]), model


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PrefixStats]:
    root = make_prefix_library(tmp_path_factory.mktemp("prefix"))
    return {mode: _measure(root, mode)[0] for mode in ("stable", "dynamic")}


def test_stable_catalog_is_byte_identical_over_ten_calls(measured) -> None:
    stable, dynamic = measured["stable"], measured["dynamic"]
    print(f"\nLangChain prefix over {stable.calls} calls: stable {stable}, dynamic {dynamic}")
    assert stable.calls == dynamic.calls == len(PREFIX_SCRIPT)
    assert stable.system_common == stable.system_length  # the same system text every call
    assert stable.reused == stable.reusable  # every request extends the one before
    assert dynamic.system_common < stable.system_common
    assert dynamic.reused < stable.reused


def test_template_reaches_the_model_and_skill_braces_stay(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    write_skill(root, "braces", "Formats {name}, {0} and {{x}} placeholders.")
    template = (
        "Up to {max_loaded} skills at once; load with {load_tool}, literal {{braces}}.\n"
        "{skills_list}Sources:\n{skills_locations}"
    )
    model = ScriptedChatModel()
    model.push(tool_calls(("load_skill", {"skill_name": "braces"})))
    agent = create_agent(
        model,
        plain_tools(),
        system_prompt=BASE,
        middleware=[SkillsMiddleware(root, system_prompt=template, max_loaded_skills=3)],
    )
    agent.invoke({"messages": [HumanMessage("work")]})
    system = model.system(0)
    assert system.startswith(
        BASE + "\n\nUp to 3 skills at once; load with load_skill, literal {braces}.\n"
    )
    assert "- **braces**: Formats {name}, {0} and {{x}} placeholders.\n" in system
    assert f"Sources:\n- {root}\n" in system
    assert "## Skills" not in system  # {skills_list} is the entries without the heading
    assert model.system(1) == system


def test_bad_template_is_refused_when_built(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    with pytest.raises(ValueError, match=r"unknown placeholder\(s\) \{skills\}"):
        SkillsMiddleware(root, system_prompt="{skills}")
    with pytest.raises(ValueError, match=r"must contain \{skills_list\} or \{catalog\}"):
        SkillsMiddleware(root, system_prompt="No catalog here.")
    with pytest.raises(ValueError, match="prompt_mode='dynamic'"):
        SkillsMiddleware(root, prompt_mode="stable", catalog_order="relevance")
