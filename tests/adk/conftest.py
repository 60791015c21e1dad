"""Fixtures for the ADK adapter tests: the scripted ``BaseLlm`` and helpers to run real turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.events.event import Event
from google.adk.models.base_llm import BaseLlm
from google.genai import types

from skillcore_adk.testing import ScriptedLlm, Step, plain_tools, run_turn

__all__ = [
    "ScriptedLlm",
    "agent_with",
    "make_skill",
    "response_of",
    "responses",
    "run_turn",
    "scripted",
]


@pytest.fixture
def anyio_backend() -> str:
    """ADK runs on asyncio."""
    return "asyncio"


def scripted(*steps: Step) -> ScriptedLlm:
    """A fresh scripted model: each step is a list of (tool, args) calls or a text answer."""
    return ScriptedLlm(script=list(steps))


def responses(events: list[Event]) -> list[types.FunctionResponse]:
    """Every function response of the events, in order."""
    out = []
    for event in events:
        out.extend(event.get_function_responses())
    return out


def response_of(events: list[Event], tool: str) -> dict[str, Any]:
    """The (single) response dict of ``tool`` in ``events``."""
    found = [r.response for r in responses(events) if r.name == tool]
    assert len(found) == 1, f"expected one {tool} response, got {found!r}"
    return found[0] or {}


def make_skill(root: Path, name: str, description: str, body: str = "", extra: str = "") -> Path:
    """Write one skill directory under ``root``."""
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n"
        f"{body or f'Instructions of {name}.'}\n"
    )
    return d


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    """A small library: three skills, one restricting tools, one with resources."""
    root = tmp_path / "skills"
    make_skill(root, "alpha-tools", "Alpha restricts tools.", extra="allowed-tools: Read\n")
    make_skill(root, "beta-open", "Beta does beta tasks.")
    gamma = make_skill(
        root,
        "gamma-files",
        "Gamma has files; use for csv reports.",
        body="See references/notes.md.",
        extra="allowed-tools: Read Bash(ls:*)\nfile_patterns: ['*.csv']\n",
    )
    (gamma / "references").mkdir()
    (gamma / "references" / "notes.md").write_text("Gamma notes: 42.\n")
    (gamma / "scripts").mkdir()
    (gamma / "scripts" / "run.py").write_text("print('gamma')\n")
    (gamma / "assets").mkdir()
    (gamma / "assets" / "logo.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    return root


def agent_with(model: BaseLlm, toolset: Any, name: str = "assistant", **kw: Any) -> LlmAgent:
    """An LlmAgent with the toolset (if any) and the plain Read/Write tools."""
    tools = [toolset, *plain_tools()] if toolset is not None else plain_tools()
    return LlmAgent(name=name, model=model, instruction="You are helpful.", tools=tools, **kw)
