"""Fixtures for the OpenAI adapter tests: a scripted OpenAI-compatible server on 127.0.0.1,
real ``openai`` clients pointed at it, and small skill libraries."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import openai
import pytest

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.testing import write_skill  # noqa: F401 - re-exported for tests
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "skills"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A started scripted server (empty script; tests add turns)."""
    with ScriptedServer(model="scripted-model") as srv:
        yield srv


@pytest.fixture
def client(server: ScriptedServer) -> Iterator[openai.OpenAI]:
    """The real sync client talking to the scripted server."""
    c = openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0, timeout=30)
    yield c
    c.close()


@pytest.fixture
def async_client(server: ScriptedServer) -> openai.AsyncOpenAI:
    """The real async client talking to the scripted server."""
    return openai.AsyncOpenAI(
        base_url=server.base_url, api_key="test-key", max_retries=0, timeout=30
    )


@pytest.fixture(scope="session")
def examples_library() -> SkillLibrary:
    """The bundled example skills (read-only)."""
    return SkillLibrary([EXAMPLES])


@pytest.fixture
def restrict() -> ToolPolicy:
    return ToolPolicy(PolicyMode.RESTRICT)


@pytest.fixture
def make_skills(examples_library: SkillLibrary) -> Callable[..., OpenAISkills]:
    """OpenAISkills over the example skills, with ``Read``/``Write`` handlers."""

    def make(**kwargs: object) -> OpenAISkills:
        kwargs.setdefault(
            "handlers", {"Read": lambda a: f"read {a.get('path')}", "Write": lambda a: "written"}
        )
        return OpenAISkills(examples_library, **kwargs)  # type: ignore[arg-type]

    return make


@pytest.fixture
def two_slots() -> Limits:
    return Limits(max_loaded=2)
