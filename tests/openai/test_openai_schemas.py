"""Tool schemas for both OpenAI APIs, validated with the ``openai`` package's own types."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletionToolParam, ChatCompletionToolUnionParam
from openai.types.responses import FunctionToolParam, ToolParam
from pydantic import TypeAdapter

from skillcore import SkillLibrary, SkillToolkit
from skillcore.testing import write_skill
from skillcore_openai import OpenAISkills, chat_tool, instructions, response_tool

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "skills"

NAMES = ["load_skill", "unload_skill", "load_skill_resource", "search_skills"]
EXAMPLE_NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").exists())


def _strict_ok(schema: Any) -> None:
    """OpenAI strict mode: every object closed, every property required."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            assert schema["additionalProperties"] is False, schema
            assert sorted(schema["required"]) == sorted(schema["properties"]), schema
        for value in schema.values():
            _strict_ok(value)
    elif isinstance(schema, list):
        for value in schema:
            _strict_ok(value)


def test_chat_tools_validate_under_sdk_types(examples_library: SkillLibrary) -> None:
    skills = OpenAISkills(examples_library)
    tools = skills.chat_tools(skills.session())
    assert [t["function"]["name"] for t in tools] == NAMES
    for adapter in (
        TypeAdapter(ChatCompletionToolParam),
        TypeAdapter(ChatCompletionToolUnionParam),
    ):
        for tool in tools:
            # Validation must keep every key: nothing we send is unknown to the SDK's type.
            assert adapter.validate_python(tool) == tool
    for tool in tools:
        assert tool["type"] == "function"
        assert tool["function"]["strict"] is True
        assert tool["function"]["description"]
        _strict_ok(tool["function"]["parameters"])
    load = tools[0]["function"]["parameters"]["properties"]["skill_name"]
    assert sorted(load["enum"]) == EXAMPLE_NAMES


def test_response_tools_validate_under_sdk_types(examples_library: SkillLibrary) -> None:
    skills = OpenAISkills(examples_library)
    tools = skills.response_tools(skills.session())
    assert [t["name"] for t in tools] == NAMES
    for adapter in (TypeAdapter(FunctionToolParam), TypeAdapter(ToolParam)):
        for tool in tools:
            assert adapter.validate_python(tool) == tool
    for tool in tools:
        # Responses requires ``strict`` and ``parameters``: both always explicit.
        assert set(tool) == {"type", "name", "description", "parameters", "strict"}
        assert tool["strict"] is True
        _strict_ok(tool["parameters"])
    search = tools[3]["parameters"]["properties"]
    assert search["query"]["type"] == ["string", "null"]


def test_same_schema_in_both_shapes(examples_library: SkillLibrary) -> None:
    toolkit = SkillToolkit(examples_library)
    for spec in toolkit.specs(examples_library.session()):
        chat, resp = chat_tool(spec), response_tool(spec)
        assert chat["function"] == {k: v for k, v in resp.items() if k != "type"}
        assert chat["function"]["parameters"] == dict(spec.parameters)
        # Each dict owns its schema: editing one cannot leak into the spec or the other.
        chat["function"]["parameters"]["properties"].clear()
        assert resp["parameters"]["properties"]


def test_strict_false_is_explicit(examples_library: SkillLibrary) -> None:
    skills = OpenAISkills(examples_library, strict=False)
    session = skills.session()
    assert all(t["function"]["strict"] is False for t in skills.chat_tools(session))
    assert all(t["strict"] is False for t in skills.response_tools(session))


def test_skill_name_enum_only_while_catalog_is_small(examples_library: SkillLibrary) -> None:
    n = len(EXAMPLE_NAMES)
    small = OpenAISkills(examples_library, enum_limit=n)
    big = OpenAISkills(examples_library, enum_limit=n - 1)
    prop = small.response_tools(small.session())[0]["parameters"]["properties"]["skill_name"]
    assert sorted(prop["enum"]) == EXAMPLE_NAMES
    prop = big.response_tools(big.session())[0]["parameters"]["properties"]["skill_name"]
    assert prop == {"type": "string", "description": "Exact skill name."}
    assert TypeAdapter(FunctionToolParam).validate_python(big.response_tools(big.session())[0])


def test_hidden_skills_not_in_enum(tmp_path: Path) -> None:
    write_skill(tmp_path, "shown")
    write_skill(tmp_path, "hidden", extra="disable-model-invocation: true\n")
    skills = OpenAISkills(SkillLibrary([tmp_path]))
    prop = skills.chat_tools(skills.session())[0]["function"]["parameters"]["properties"]
    assert prop["skill_name"]["enum"] == ["shown"]
    assert "hidden" not in skills.instructions(skills.session())


def test_no_skills_no_tools_no_catalog(tmp_path: Path) -> None:
    skills = OpenAISkills(SkillLibrary([tmp_path]))
    session = skills.session()
    assert skills.chat_tools(session) == [] and skills.response_tools(session) == []
    assert skills.instructions(session) == ""
    assert skills.instructions(session, "You help.") == "You help."


def test_instructions(examples_library: SkillLibrary) -> None:
    skills = OpenAISkills(examples_library)
    session = skills.session()
    text = instructions(session)
    assert text == skills.instructions(session)
    for name in EXAMPLE_NAMES:
        assert name in text
    assert skills.instructions(session, "Base prompt.\n") == "Base prompt.\n\n" + text
    xml = instructions(session, format="xml")
    assert "<available_skills>" in xml
    assert len(instructions(session, budget=300)) < len(text)


def test_prefixed_names(examples_library: SkillLibrary) -> None:
    skills = OpenAISkills(examples_library, tool_name_prefix="sc_")
    session = skills.session()
    assert [t["name"] for t in skills.response_tools(session)] == ["sc_" + n for n in NAMES]
    assert session.names == skills.toolkit.names
    with pytest.raises(TypeError):
        OpenAISkills(SkillToolkit(examples_library), enum_limit=3)


def test_schemas_reach_the_server_unchanged(examples_library: SkillLibrary, server, client) -> None:
    """What the real client puts on the wire is exactly our tool list, on both APIs."""
    from skillcore_openai.testing import text

    skills = OpenAISkills(examples_library)
    session = skills.session()
    server.add(text("a"), text("b"))
    client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=skills.chat_tools(session)
    )
    client.responses.create(model="m", input="hi", tools=skills.response_tools(session))
    assert server.requests[0].body["tools"] == skills.chat_tools(session)
    assert server.requests[1].body["tools"] == skills.response_tools(session)
    # And it is JSON: the server parsed it back into the same structures.
    assert json.loads(json.dumps(server.requests[1].body["tools"])) == skills.response_tools(
        session
    )


def test_import_is_light() -> None:
    """``import skillcore_openai`` pulls in neither openai nor the Agents SDK."""
    code = (
        "import sys, skillcore_openai\n"
        "bad = [m for m in ('openai', 'agents') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "print(skillcore_openai.OpenAISkills.__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "OpenAISkills"


def test_missing_agents_sdk_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['agents'] = None\n"
        "import skillcore_openai\n"
        "try:\n"
        "    skillcore_openai.AgentSkills\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MissingDependencyError")
    assert 'pip install "skillcore-agents[agents]"' in out.stdout


def test_unknown_attribute() -> None:
    import skillcore_openai

    with pytest.raises(AttributeError):
        skillcore_openai.NoSuchThing  # noqa: B018
