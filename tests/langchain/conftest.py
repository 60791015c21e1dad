"""Fixtures for the LangChain adapter tests (scripted model, skill folders, agent builders)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    """A small writable library: alpha (restricts to Read), beta (open), gamma (files)."""
    root = tmp_path / "skills"
    write_skill(root, "alpha", "Alpha tasks.", "Alpha says: only read.", "allowed-tools: Read\n")
    write_skill(root, "beta", "Beta tasks.", "Beta says: anything goes.")
    g = write_skill(root, "gamma", "Gamma tasks.", "Gamma: see references/notes.md.")
    (g / "references").mkdir()
    (g / "references" / "notes.md").write_text("Gamma notes: 42.\n")
    return root


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A writable copy of the bundled example skills."""
    dest = tmp_path / "examples"
    shutil.copytree(EXAMPLES, dest)
    return dest


AgentFactory = Callable[..., tuple[Any, SkillsMiddleware]]


@pytest.fixture
def make_agent(model: ScriptedChatModel) -> AgentFactory:
    """``make_agent(sources, tools=None, checkpointer=..., middleware_before=(), **knobs)``."""

    def build(
        sources: Any,
        *,
        tools: list[Any] | None = None,
        checkpointer: Any = "memory",
        extra_middleware: tuple[Any, ...] = (),
        system_prompt: str | None = "You are a test agent.",
        **knobs: Any,
    ) -> tuple[Any, SkillsMiddleware]:
        mw = SkillsMiddleware(sources, **knobs)
        agent = create_agent(
            model,
            plain_tools() if tools is None else tools,
            system_prompt=system_prompt,
            middleware=[*extra_middleware, mw],
            checkpointer=InMemorySaver() if checkpointer == "memory" else checkpointer,
        )
        return agent, mw

    return build


def last_turn(out: dict[str, Any]) -> list[Any]:
    """Messages of the most recent run (after the last HumanMessage)."""
    messages = out["messages"]
    start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    return messages[start + 1 :]


def replies(out: dict[str, Any]) -> list[ToolMessage]:
    """ToolMessages of the most recent run, in order."""
    return [m for m in last_turn(out) if isinstance(m, ToolMessage)]


@pytest.fixture
def run() -> Callable[..., dict[str, Any]]:
    """``run(agent, text="go", thread="t", use_async=False)``: one agent run on a thread."""

    def go(agent: Any, text: str = "go", thread: str = "t", use_async: bool = False) -> Any:
        config: Any = {"configurable": {"thread_id": thread}}
        payload: Any = {"messages": [HumanMessage(text)]}
        if use_async:
            return asyncio.run(agent.ainvoke(payload, config))
        return agent.invoke(payload, config)

    return go


@pytest.fixture
def helpers() -> Any:
    """Plain helper functions (test modules cannot import conftest by name reliably)."""
    import types

    return types.SimpleNamespace(
        write_skill=write_skill, last_turn=last_turn, replies=replies, tool_calls=tool_calls
    )
