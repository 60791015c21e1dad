"""Offline testing helpers for ADK agents with skills: a scripted model and the conformance driver.

``ScriptedLlm`` is a real ``BaseLlm`` (so ``LlmAgent`` and the runners work unchanged) that
replays scripted turns -- tool calls (issued in parallel) or a text answer -- and records every
request, so tests can assert exactly what the model was shown::

    model = ScriptedLlm(script=[[("load_skill", {"skill_name": "x"})], "done"])
    agent = LlmAgent(name="a", model=model, tools=[SkillToolset("./skills")])
    ...
    model.instructions()    # the system instruction of the last model call
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.events.event import Event
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner, Runner
from google.adk.tools.function_tool import FunctionTool
from google.genai import types
from pydantic import Field

from skillcore import Limits, SkillLibrary, ToolPolicy
from skillcore.runtime import loaded_names_of
from skillcore.testing import (
    ALL_CAPABILITIES,
    SCENARIO_PROFILE,
    SHELL_TOOL,
    SUBAGENT_ANSWER,
    SUBAGENT_NAME,
    AdapterDriver,
    Attachment,
    Call,
    Capability,
    Reply,
    UserTurn,
    scenario_config,
    scenario_profiles,
    shell_reply,
)
from skillcore_adk._plugin import SkillPolicyPlugin
from skillcore_adk._profiles import DEFAULT_PROFILE_KEY, ProfiledSkillToolset
from skillcore_adk._toolset import SkillToolset

__all__ = [
    "AdkDriver",
    "ProfiledAdkDriver",
    "ScriptedLlm",
    "plain_tools",
    "run_turn",
    "shell_tool",
    "user_message",
]

#: One scripted model turn: tool calls ``[(name, args), ...]`` (parallel; ``(name, args, id)``
#: gives a call its id) or a text answer.
Step = str | Sequence[tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str]]

_ids = itertools.count(1)


class ScriptedLlm(BaseLlm):
    """Replays ``script`` and records every request; answers ``"done"`` when it runs out.

    One instance may serve several agents (the script is consumed in call order).
    """

    model: str = "scripted"
    script: list[Any] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    def add(self, *steps: Step) -> ScriptedLlm:
        """Append steps to the script (returns self)."""
        self.script.extend(steps)
        return self

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Yield the next scripted turn."""
        self.requests.append(llm_request)
        step = self.script.pop(0) if self.script else "done"
        if isinstance(step, str):
            parts = [types.Part.from_text(text=step)]
        else:
            parts = [
                types.Part(
                    function_call=types.FunctionCall(
                        name=c[0], args=c[1], id=c[2] if len(c) > 2 else f"call-{next(_ids)}"
                    )
                )
                for c in step
            ]
        yield LlmResponse(content=types.Content(role="model", parts=parts))

    def instructions(self, index: int = -1) -> str:
        """The system instruction of a recorded request (default: the last one)."""
        si = self.requests[index].config.system_instruction
        return si if isinstance(si, str) else str(si or "")

    def declarations(self, index: int = -1) -> list[types.FunctionDeclaration]:
        """The function declarations of a recorded request."""
        out: list[types.FunctionDeclaration] = []
        for tool in self.requests[index].config.tools or []:
            out.extend(getattr(tool, "function_declarations", None) or [])
        return out

    def tool_names(self, index: int = -1) -> list[str]:
        """Names of the tools declared in a recorded request."""
        return [d.name or "" for d in self.declarations(index)]

    def declaration(self, name: str, index: int = -1) -> types.FunctionDeclaration:
        """The declaration of tool ``name`` in a recorded request."""
        for decl in self.declarations(index):
            if decl.name == name:
                return decl
        raise KeyError(name)


def Read() -> str:
    """Read something (a plain tool of the conformance scenario)."""
    return "ok"


def Write() -> str:
    """Write something (a plain tool of the conformance scenario)."""
    return "ok"


def plain_tools() -> list[FunctionTool]:
    """Two ordinary function tools named ``Read`` and ``Write``."""
    return [FunctionTool(Read), FunctionTool(Write)]


def shell_tool() -> FunctionTool:
    """The conformance scenario's shell tool (:data:`skillcore.testing.SHELL_TOOL`)."""

    def execute(command: str) -> str:
        """Run a shell command."""
        return shell_reply(command)

    execute.__name__ = SHELL_TOOL
    return FunctionTool(execute)


def _gated_tool(name: str) -> FunctionTool:
    """A function tool named ``name`` (a skill-gated tool of the conformance scenario)."""

    def gated() -> str:
        return "ok"

    gated.__name__ = gated.__qualname__ = name
    gated.__doc__ = f"{name} something."
    return FunctionTool(gated)


def user_message(text: str = "go") -> types.Content:
    """A user message."""
    return types.Content(role="user", parts=[types.Part.from_text(text=text)])


async def run_turn(
    runner: Runner, session_id: str, text: str = "go", user_id: str = "u"
) -> list[Event]:
    """Run one user turn through the real runner and return its events."""
    return [
        event
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=user_message(text)
        )
    ]


class AdkDriver(AdapterDriver):
    """Runs the :mod:`skillcore.testing` conformance scenario through ``InMemoryRunner``.

    ``enforcement`` is ``"callback"`` (the agent's ``before_tool_callback``) or ``"plugin"``
    (:class:`SkillPolicyPlugin` on the app). Each :meth:`turn` is one user message: the scripted
    model issues the calls in parallel, then answers.
    """

    app_name = "conformance"
    agent_name = "assistant"

    def __init__(self, enforcement: str = "callback") -> None:
        if enforcement not in ("callback", "plugin"):
            raise ValueError(f"enforcement must be 'callback' or 'plugin', got {enforcement!r}")
        self.enforcement = enforcement
        self.loop = asyncio.new_event_loop()

    def _toolset(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        """The adapter under test (the profiled driver builds another)."""
        config = scenario_config(self, limits, policy)
        return SkillToolset(
            library,
            config,
            tools=[_gated_tool(n) for n in self.gated],
            user_invocation=self.user_invocation,
            subagents={SUBAGENT_NAME: self._subagent},
        )

    def _subagent(self, toolset: SkillToolset) -> LlmAgent:
        """The scenario's subagent: an ``LlmAgent`` with its own scripted model."""
        return LlmAgent(
            name="explorer",
            model=self.subagent_model,
            instruction="You explore.",
            tools=[toolset, *plain_tools(), shell_tool()],
        )

    def subagent_replies(self) -> list[Reply]:
        replies = []
        for content in self.subagent_model.requests[-1].contents or []:
            for part in content.parts or []:
                r = part.function_response
                if r is not None:
                    body = r.response or {}
                    text = body["error"] if "error" in body else body.get("result", "")
                    replies.append(Reply(r.name or "", str(text), "error" in body))
        return replies

    def _session_state(self) -> dict[str, Any]:
        """The state a new ADK session starts with."""
        return {}

    def _state_key(self) -> str:
        """The session-state key of the agent's skill state."""
        return str(self.toolset.state_key(self.agent_name))

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        """Build the agent, runner and a fresh session."""
        self.subagent_model = ScriptedLlm()
        for step in self.subagent_turns:
            self.subagent_model.add([(c.tool, dict(c.args)) for c in step])
        self.subagent_model.add(SUBAGENT_ANSWER)
        self.toolset = self._toolset(library, limits, policy)
        self.model = ScriptedLlm()
        on_agent = self.enforcement == "callback"
        # A user invocation is applied at the agent's start (the plugin does it otherwise).
        starting = self.toolset.before_agent_callback if self.user_invocation and on_agent else None
        agent = LlmAgent(
            name=self.agent_name,
            model=self.model,
            instruction="You are helpful.",
            tools=[self.toolset, *plain_tools(), shell_tool()],
            before_tool_callback=self.toolset.before_tool_callback if on_agent else None,
            before_agent_callback=starting,
            # What the model is shown (disallowed-tools, hide_blocked_tools) is decided here.
            before_model_callback=self.toolset.before_model_callback if on_agent else None,
        )
        self.agent = agent
        if self.enforcement == "callback":
            self.runner = InMemoryRunner(agent=agent, app_name=self.app_name)
        else:
            app = App(name=self.app_name, root_agent=agent, plugins=[SkillPolicyPlugin()])
            self.runner = InMemoryRunner(app=app)
        self.sessions: dict[str, str] = {}
        self.use_conversation("main")

    def use_conversation(self, key: str) -> None:
        """Continue conversation ``key`` (a new ADK session the first time)."""
        if key not in self.sessions:
            session = self.loop.run_until_complete(
                self.runner.session_service.create_session(
                    app_name=self.app_name, user_id="u", state=self._session_state()
                )
            )
            self.sessions[key] = session.id
        self.session_id = self.sessions[key]

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        """One model turn issuing ``calls``; replies in call order."""
        self.model.add([(c.tool, dict(c.args)) for c in calls], "done")
        events = self.loop.run_until_complete(run_turn(self.runner, self.session_id))
        got = [r for e in events for r in e.get_function_responses()]
        if [r.name for r in got] != [c.tool for c in calls]:
            raise AssertionError(f"unexpected function responses: {got!r}")
        replies = []
        for r in got:
            body = r.response or {}
            is_error = "error" in body
            text = body["error"] if is_error else body.get("result", "")
            parts = tuple(
                Attachment(p.inline_data.mime_type or "", p.inline_data.data or b"")
                for p in r.parts or ()
                if p.inline_data is not None
            )
            replies.append(Reply(r.name or "", str(text), is_error, parts))
        return replies

    def user_turn(self, text: str) -> UserTurn:
        """One user message; the model (when called) answers ``"done"``."""
        before = len(self.model.requests)
        events = self.loop.run_until_complete(run_turn(self.runner, self.session_id, text))
        if len(self.model.requests) == before:  # answered without the model
            said = [p.text for e in events if e.content for p in e.content.parts or () if p.text]
            return UserTurn(answer="\n".join(said))
        contents = self.model.requests[-1].contents
        asked = max(
            i
            for i, c in enumerate(contents)
            if c.role == "user" and any(p.text == text for p in c.parts or ())
        )
        replies = [
            str((p.function_response.response or {}).get("result"))
            for c in contents[asked + 1 :]
            for p in c.parts or ()
            if p.function_response is not None
        ]
        return UserTurn(delivered=replies[0] if replies else None)

    def instructions(self) -> str:
        """The system instruction of the last model call."""
        return self.model.instructions()

    def drop_history(self) -> None:
        """From now on the agent sends the model no earlier contents
        (``include_contents='none'``)."""
        self.agent.include_contents = "none"

    def offered(self) -> list[str]:
        """The tools declared on the last model call."""
        return self.model.tool_names()

    def loaded(self) -> list[str]:
        """Loaded skills according to the persisted session state."""
        session = self.loop.run_until_complete(
            self.runner.session_service.get_session(
                app_name=self.app_name, user_id="u", session_id=self.session_id
            )
        )
        if session is None:
            raise AssertionError("the session is gone")
        return loaded_names_of(session.state.get(self._state_key()))

    def close(self) -> None:
        """Close the runner (if started) and the event loop."""
        if hasattr(self, "runner"):
            self.loop.run_until_complete(self.runner.close())
        self.loop.close()


class ProfiledAdkDriver(AdkDriver):
    """:class:`AdkDriver` through :class:`ProfiledSkillToolset`: the scenario is one of two
    profiles (:func:`skillcore.testing.scenario_profiles`), selected by each session's state,
    so every check goes through the profile machinery."""

    #: The profiled toolset takes no ``user_invocation`` option, and profiles take no subagents.
    capabilities = ALL_CAPABILITIES - {Capability.USER_INVOCATION, Capability.SUBAGENTS}

    def _toolset(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        return ProfiledSkillToolset(
            scenario_profiles(self, library, limits, policy),
            tools=[_gated_tool(n) for n in self.gated],
        )

    def _session_state(self) -> dict[str, Any]:
        return {DEFAULT_PROFILE_KEY: SCENARIO_PROFILE}

    def _state_key(self) -> str:
        return str(self.toolset.profiles[SCENARIO_PROFILE].state_key(self.agent_name))
