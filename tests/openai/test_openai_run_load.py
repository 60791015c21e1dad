"""A run's request to load skills in the OpenAI adapters: ``load=`` of the dispatcher's
``load``/``ensure`` (real client on a loopback server) and the run context's ``skill_load``
(Agents SDK Runner with a scripted model)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import openai
import pytest
from agents import Agent, RunConfig, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import SkillLibrary
from skillcore.testing import EventRecorder, write_skill
from skillcore_openai import AgentSkills, OpenAISkills
from skillcore_openai.testing import ScriptedServer, text

BETA, GAMMA = "Beta says: anything goes.", "Gamma body."


def _library(tmp_path: Path) -> SkillLibrary:
    root = tmp_path / "skills"
    write_skill(root, "alpha", "Alpha tasks.", "Alpha body.")
    write_skill(root, "beta", "Beta tasks.", BETA)
    write_skill(root, "gamma", "Gamma tasks.", GAMMA)
    write_skill(root, "hidden", "Hidden.", "Hidden body.", "disable-model-invocation: true\n")
    return SkillLibrary([root])


def test_dispatcher_load_request_reaches_the_model(tmp_path: Path) -> None:
    skills = OpenAISkills(_library(tmp_path), max_loaded_skills=2)
    skills.save("conv", skills.load("conv"))  # an earlier run: nothing loaded
    with EventRecorder() as rec:
        session = skills.load("conv", load=["beta", "nope", "hidden"])
    assert session.loaded_names == ("beta",)
    skipped = [
        (e.fields["skill"], e.fields["code"])
        for e in rec.events
        if e.name == "load_request.skipped"
    ]
    assert ("nope", "SKILL_NOT_FOUND") in skipped and ("hidden", "DISABLED") in skipped
    messages: list[Any] = [{"role": "user", "content": "use beta"}]
    with ScriptedServer([text("ok")]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=30)
        system = {"role": "system", "content": skills.instructions(session, history=messages)}
        client.chat.completions.create(
            model="m", messages=[system, *messages], tools=skills.chat_tools(session)
        )
        client.close()
        sent = server.requests[0].body["messages"][0]["content"]
    assert BETA in sent, sent
    # ensure(load=) on a session you keep: the model's limit applies, nothing is evicted.
    session = skills.ensure(session, load=["alpha", "gamma"])
    assert session.loaded_names == ("beta", "alpha")


def test_dispatcher_bad_request_keeps_the_session(tmp_path: Path) -> None:
    skills = OpenAISkills(_library(tmp_path), default_skills=["gamma"])
    for bad in ([1], ["beta"] * 40, {"beta": True}):
        with EventRecorder() as rec, pytest.warns(UserWarning, match="load request ignored"):
            session = skills.load("conv", load=bad)  # type: ignore[arg-type]
        assert session.loaded_names == ("gamma",)
        assert rec.names().count("load_request.ignored") == 1, rec.names()


def test_dispatcher_takes_a_single_name_as_a_string(tmp_path: Path) -> None:
    skills = OpenAISkills(_library(tmp_path))
    session = skills.load("conv", load="beta")
    assert session.loaded_names == ("beta",)


@dataclasses.dataclass
class _Context:
    skill_state: Any
    skill_load: list[str] | None = None


def test_agents_sdk_context_field_loads_on_a_later_run(tmp_path: Path) -> None:
    skills = AgentSkills(_library(tmp_path))
    model = ScriptedModel(
        [
            [assistant_message("first")],
            [function_call("load_skill", {"skill_name": "alpha"}, call_id="c1")],
            [assistant_message("second")],
            [assistant_message("third")],
        ]
    )
    agent = Agent(
        name="a", instructions=skills.instructions("Base."), tools=skills.tools(), model=model
    )
    state = skills.conversation("conv")
    cfg = RunConfig(tracing_disabled=True)
    asyncio.run(Runner.run(agent, "hi", context=_Context(state), run_config=cfg))
    assert state.loaded_names == ()
    ctx = _Context(state, ["beta"])
    asyncio.run(Runner.run(agent, "use beta", context=ctx, run_config=cfg))
    assert ctx.skill_load is None, "consumed"
    assert state.loaded_names == ("beta", "alpha")
    # Both model calls of that run see beta's instructions (no tool reply carried them).
    assert BETA in (model.calls[1].system_instructions or "")
    assert BETA in (model.calls[2].system_instructions or "")
    # The SkillConversation itself as the context: its own skill_load field.
    state.skill_load = ["gamma"]
    asyncio.run(Runner.run(agent, "more", context=state, run_config=cfg))
    assert state.skill_load is None and state.loaded_names == ("beta", "alpha", "gamma")
    assert GAMMA in (model.calls[-1].system_instructions or "")
