"""Through ``create_agent``: when the budget cuts the catalog, the skill with the lowest
``priority`` is still in the prompt, and ``search_skills`` with a path alone lists the
skills whose patterns match it, then the skills without file patterns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

CFG: Any = {"configurable": {"thread_id": "priority"}}


def test_a_cut_catalog_keeps_the_high_priority_skill(tmp_path: Path) -> None:
    for i in range(60):
        write_skill(tmp_path, f"helper-{i:02d}", f"Generic helper number {i} for chores.")
    # Last in precedence (name) order, first by priority.
    write_skill(tmp_path, "zz-release", "Cut a release.", extra="priority: -1\n")
    write_skill(tmp_path, "aa-legacy", "Old helper.", extra="priority: 3\n")
    write_skill(tmp_path, "zz-sheets", "Spreadsheets.", extra="file_patterns: ['*.xlsx']\n")
    model = ScriptedChatModel()
    agent = create_agent(
        model,
        plain_tools(),
        middleware=[SkillsMiddleware(tmp_path, max_description_budget=600)],
        checkpointer=InMemorySaver(),
    )
    model.push(tool_calls(("search_skills", {"query": None, "path": "Q3/Budget.XLSX"})))
    out = agent.invoke({"messages": [HumanMessage("go")]}, CFG)
    first = model.system(0)
    assert "**zz-release**" in first and "more skills are not shown" in first, first
    assert "**aa-legacy**" not in first and "**helper-00**" in first
    assert first.index("**zz-release**") < first.index("**helper-00**")
    reply = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    text = reply.text
    # The pattern match (case folded) first, then general skills by priority.
    assert text.index("zz-sheets") < text.index("zz-release") < text.index("helper-00"), text
    assert "aa-legacy" not in text

    model.push(tool_calls(("load_skill", {"skill_name": "zz-release"})))
    agent.invoke({"messages": [HumanMessage("release")]}, CFG)
    loaded = model.system()
    assert "**zz-release** [Loaded]" in loaded
    assert loaded.index("**zz-release** [Loaded]") < loaded.index("**helper-00**")
