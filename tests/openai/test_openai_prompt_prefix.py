"""The stable prompt prefix and the ``system_prompt=`` template through the real ``openai``
client (Chat Completions loop with the dispatcher) and the Agents SDK runner: ten model calls of
one conversation that load and unload skills, measured in both prompt modes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore.testing import (
    PREFIX_SCRIPT,
    PrefixStats,
    make_prefix_library,
    prefix_stats,
    write_skill,
)
from skillcore_openai import AgentSkills, OpenAISkills, instructions
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

BASE = "You are a careful assistant."
PLAIN = {"Read": lambda args: "ok", "Write": lambda args: "ok"}
NO_TRACE = RunConfig(tracing_disabled=True)


def _chat_run(root: Path, server: ScriptedServer, **options: Any) -> list[dict[str, Any]]:
    """A Chat Completions loop over :data:`PREFIX_SCRIPT`; the request bodies sent."""
    server.add(
        *(tool_calls(ScriptedCall(c.tool, c.args)) for c in PREFIX_SCRIPT if c is not None),
        text("done"),
    )
    skills = OpenAISkills(root, handlers=PLAIN, **options)
    session = skills.session()
    history: list[Any] = [{"role": "user", "content": "work"}]
    with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
        for _ in PREFIX_SCRIPT:
            system = {"role": "system", "content": skills.instructions(session, BASE)}
            response = client.chat.completions.create(
                model="m", messages=[system, *history], tools=skills.chat_tools(session)
            )
            message = response.choices[0].message
            history.append(message)
            if not message.tool_calls:
                break
            turn = skills.dispatch_all(session, message.tool_calls)
            session = turn.session
            history.extend(turn.messages)
    return [r.body for r in server.requests]


def _lines(items: Any) -> str:
    """A request's messages or input items, one JSON line each, as sent in order."""
    if isinstance(items, str):
        return items
    return "\n".join(json.dumps(i, default=str, sort_keys=True) for i in items)


def _chat_measure(root: Path, mode: str) -> PrefixStats:
    with ScriptedServer() as server:
        bodies = _chat_run(root, server, prompt_mode=mode)
    systems = [b["messages"][0]["content"] for b in bodies]
    return prefix_stats(systems, [_lines(b["messages"]) for b in bodies])


def _read() -> Any:
    @function_tool(name_override="Read")
    def read() -> str:
        """Read something."""
        return "ok"

    return read


def _agents_run(skills: AgentSkills, steps: list[Any]) -> ScriptedModel:
    model = ScriptedModel(steps)
    agent = Agent(
        name="a",
        instructions=skills.instructions(BASE),
        tools=[*skills.tools(), _read()],
        model=model,
    )
    asyncio.run(Runner.run(agent, "work", run_config=NO_TRACE, max_turns=20))
    return model


def _agents_measure(root: Path, mode: str) -> PrefixStats:
    steps: list[Any] = [
        [function_call(c.tool, c.args, call_id=f"c{i}")]
        for i, c in enumerate(PREFIX_SCRIPT)
        if c is not None
    ]
    model = _agents_run(AgentSkills(root, prompt_mode=mode), [*steps, [assistant_message("done")]])
    systems = [c.system_instructions or "" for c in model.calls]
    requests = [s + "\n" + _lines(c.input) for s, c in zip(systems, model.calls)]
    return prefix_stats(systems, requests)


@pytest.mark.parametrize("runtime", ["chat", "agents_sdk"])
def test_stable_catalog_is_byte_identical_over_ten_calls(tmp_path: Path, runtime: str) -> None:
    root = make_prefix_library(tmp_path / "skills")
    measure = _chat_measure if runtime == "chat" else _agents_measure
    stable, dynamic = measure(root, "stable"), measure(root, "dynamic")
    print(f"\n{runtime} prefix over {stable.calls} calls: stable {stable}, dynamic {dynamic}")
    assert stable.calls == dynamic.calls == len(PREFIX_SCRIPT)
    assert stable.system_common == stable.system_length  # the same system text every call
    assert stable.reused == stable.reusable  # every request extends the one before
    assert dynamic.system_common < stable.system_common
    assert dynamic.reused < stable.reused


TEMPLATE = "At most {max_loaded} skills; {search_tool} finds more ({{literal}}).\n{skills_list}"


def test_template_reaches_the_model_through_the_client(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    write_skill(root, "braces", "Formats {name}, {0} and {{x}} placeholders.")
    with ScriptedServer() as server:
        server.add(tool_calls(ScriptedCall("load_skill", {"skill_name": "braces"})), text("ok"))
        skills = OpenAISkills(root, handlers=PLAIN, system_prompt=TEMPLATE, max_loaded_skills=4)
        session = skills.session()
        with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
            system = {"role": "system", "content": skills.instructions(session, BASE)}
            client.chat.completions.create(
                model="m", messages=[system, {"role": "user", "content": "go"}]
            )
        sent = server.requests[0].body["messages"][0]["content"]
    assert sent.startswith(BASE + "\n\nAt most 4 skills; search_skills finds more ({literal}).\n")
    assert "- **braces**: Formats {name}, {0} and {{x}} placeholders.\n" in sent


def test_template_reaches_the_model_through_the_agents_sdk(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    write_skill(root, "braces", "Formats {name}, {0} and {{x}} placeholders.")
    skills = AgentSkills(root, system_prompt=TEMPLATE)
    load = function_call("load_skill", {"skill_name": "braces"}, call_id="b1")
    steps = [[load], [assistant_message("ok")]]
    model = _agents_run(skills, steps)
    first, second = (c.system_instructions or "" for c in model.calls)
    assert first.startswith(BASE + "\n\nAt most 10 skills; search_skills finds more ({literal}).\n")
    assert "- **braces**: Formats {name}, {0} and {{x}} placeholders.\n" in first
    assert second == first


def test_instructions_helper_follows_the_prompt_mode(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    skills = OpenAISkills(root)
    empty = skills.session()
    call = {"type": "function_call", "call_id": "c1", "name": "load_skill"}
    call["arguments"] = '{"skill_name": "skill-03"}'
    loaded = skills.dispatch(empty, call).session
    assert loaded.loaded_names == ("skill-03",)
    assert instructions(loaded) == instructions(empty) == skills.instructions(loaded)
    assert "- **skill-03** [Loaded]" in instructions(loaded, prompt_mode="dynamic")
