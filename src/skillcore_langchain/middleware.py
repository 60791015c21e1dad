"""``SkillsMiddleware``: Agent Skills for ``langchain.agents.create_agent`` (and deepagents).

Translation only: schemas, execution and replies come from :class:`skillcore.SkillToolkit`,
the policy from :meth:`skillcore.SkillSession.check_tool`, call order and the per-turn session
from :class:`skillcore.TurnStore`; persistence is the JSON-native
:meth:`skillcore.SkillSession.to_state` in one graph state key merged by
:func:`skillcore.merge_states`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from skillcore import (
    Catalog,
    Code,
    OutcomeCode,
    PolicyMode,
    RefreshGate,
    SkillConfig,
    SkillSession,
    ToolSpec,
    TurnCalls,
    TurnStore,
    replies,
    restore_session,
)
from skillcore.config import Sources
from skillcore.coordination import TurnCall
from skillcore.reinjection import Reinjection
from skillcore_langchain._state import SEED_KEY, STATE_KEY, SkillsState, merge_seed

logger = logging.getLogger("skillcore_langchain")

__all__ = ["SEED_KEY", "STATE_KEY", "SkillsMiddleware", "SkillsState", "merge_seed"]


class SkillsMiddleware(AgentMiddleware[SkillsState, Any, Any]):
    """Agent Skills for LangChain agents, backed by skillcore.

    ``create_agent(model, tools, middleware=[SkillsMiddleware("./skills")])`` adds a budgeted
    skill catalog to the system message and the tools ``load_skill``, ``unload_skill``,
    ``load_skill_resource`` and ``search_skills``. Load state lives in the graph state (a few
    hundred bytes, whatever the catalog size), so it follows checkpointers; the tool calls of
    one model turn are decided in the model's call order, so every reply is truthful and a
    tool called after a restricting ``load_skill`` in the same turn is blocked.
    """

    state_schema = SkillsState

    def __init__(
        self,
        sources: Sources,
        config: SkillConfig | None = None,
        *,
        refresh: bool | float = True,
        share_with_subagents: bool = False,
        **options: Any,
    ) -> None:
        """Build the middleware.

        Args:
            sources: skill folders or fsspec URLs (later ones override earlier ones),
                :class:`~skillcore.SkillSource` values, or a ready :class:`~skillcore.SkillLibrary`
                (share one library between agents to discover once).
            config: a :class:`~skillcore.SkillConfig`, or its fields as keyword ``options``
                (``max_loaded_skills``, ``allowed_tools_policy``, ``tool_name_prefix``, ...).
            refresh: re-scan the sources at the start of every run so skills added, changed or
                removed show up on the next turn (unchanged files are not read again); a number
                is the minimum seconds between two scans; False scans once per process.
            share_with_subagents: also write the session to the input-only ``skillcore_seed``
                key, which deepagents' ``task`` tool forwards, so subagents start with the
                skills loaded here.
        """
        self.config = SkillConfig.build(config, **options)
        self.library = self.config.library(sources)
        self.limits = self.config.session_limits()
        self.policy = self.config.policy()
        self.toolkit = self.config.toolkit(self.library)
        self.names = self.toolkit.names
        self.refresh = RefreshGate(refresh)
        self.turns = TurnStore()
        self.share_with_subagents = share_with_subagents
        self.reinjection = Reinjection(self.toolkit)
        self._model_tools: tuple[Catalog, dict[str, BaseTool]] | None = None
        self._seen_catalog: Catalog | None = None
        self._last: tuple[Any, Catalog, SkillSession, bool] | None = None
        # Registered with the tool node once; the model is shown per-catalog copies (with the
        # skill names as an enum) from wrap_model_call, or none when there are no skills.
        self.tools = [self._make_tool(spec) for spec in self.toolkit.generic_specs()]

    # -- sessions --------------------------------------------------------------------------

    def session(self, state: Mapping[str, Any] | None) -> SkillSession:
        """The skill session stored in an agent state (empty if there is none or it is
        unreadable; see :func:`skillcore.restore_session`)."""
        return self._restore((state or {}).get(STATE_KEY))[0]

    def _restore(self, raw: Any) -> tuple[SkillSession, bool]:
        catalog, last = self.library.catalog, self._last
        # LangGraph hands every hook of a run the same state object until it changes, so an
        # identity check (holding a reference, so ids cannot be reused) saves the rebuild.
        if last is not None and last[0] is raw and last[1] is catalog:
            return last[2], last[3]
        r = restore_session(raw, catalog, self.limits, self.policy, self.names)
        self._last = (raw, catalog, r.session, r.repaired)
        return r.session, r.repaired

    def _state_update(self, session: SkillSession, turn: str | None, seq: int) -> dict[str, Any]:
        value = session.to_state(turn=turn, seq=seq)
        update: dict[str, Any] = {STATE_KEY: value}
        if self.share_with_subagents:
            update[SEED_KEY] = value
        return update

    # -- before_agent: refresh, repair, seed -----------------------------------------------

    def before_agent(self, state: SkillsState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Refresh the catalog; seed a new thread or persist a repaired session."""
        if self.refresh.due():
            self._note_catalog(self.library.refresh())
        plan = self._plan(state)
        if not isinstance(plan, list):
            return plan
        return self._seeded(self.toolkit.load_all(self.session(None), plan))

    async def abefore_agent(
        self, state: SkillsState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_agent` (sources are scanned without blocking the loop)."""
        if self.refresh.due():
            self._note_catalog(await self.library.arefresh())
        plan = self._plan(state)
        if not isinstance(plan, list):
            return plan
        return self._seeded(await self.toolkit.aload_all(self.session(None), plan))

    def _plan(self, state: Mapping[str, Any]) -> dict[str, Any] | list[str] | None:
        """A state update, names to load (seeding by name), or None when nothing changes."""
        raw = state.get(STATE_KEY)
        if raw is None:
            seed = state.get(SEED_KEY)
            if isinstance(seed, Mapping):
                return self._state_update(self._restore(seed)[0], None, 0)
            if isinstance(seed, (list, tuple)):
                return [n for n in seed if isinstance(n, str)]
            return None
        session, repaired = self._restore(raw)
        # Unreadable state or skills removed from disk: persist the repaired session.
        return self._state_update(session, None, 0) if repaired else None

    def _seeded(self, loaded: tuple[SkillSession, list[Any]]) -> dict[str, Any]:
        for result in loaded[1]:
            if not result.ok:
                logger.warning("skill seed not loaded: %s", result.text)
        return self._state_update(loaded[0], None, 0)

    def _note_catalog(self, catalog: Catalog) -> None:
        if catalog is self._seen_catalog:
            return
        self._seen_catalog = catalog
        for diag in catalog.diagnostics:
            if diag.code in (Code.SOURCE_UNREACHABLE, Code.SOURCE_STALE):
                logger.warning("%s", diag.format())

    # -- wrap_model_call: catalog, tools, re-injection -------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        """Show the budgeted catalog and the skill tools; restore compacted instructions."""
        session = self.session(request.state)
        missing = self.reinjection.missing(session, _tool_replies(request.messages))
        return handler(self._prepare(request, session, self.reinjection.text(session, missing)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Async :meth:`wrap_model_call`."""
        session = self.session(request.state)
        missing = self.reinjection.missing(session, _tool_replies(request.messages))
        repeated = await self.reinjection.atext(session, missing)
        return await handler(self._prepare(request, session, repeated))

    def _prepare(
        self, request: ModelRequest[Any], session: SkillSession, repeated: str
    ) -> ModelRequest[Any]:
        shown = self._tools_for(session.catalog)
        ours = self.toolkit.tool_names
        tools: list[BaseTool | dict[str, Any]] = []
        for t in request.tools:
            if isinstance(t, BaseTool) and t.name in ours:
                if shown:  # the copy whose schema lists this catalog's skill names
                    tools.append(shown.get(t.name, t))
                continue
            tools.append(t)
        if not shown:  # no skills: no catalog and no skill tools
            return request.override(tools=tools)
        text = self.toolkit.instructions(session)
        if repeated:
            text += "\n" + repeated
        return request.override(
            system_message=_append_block(request.system_message, text), tools=tools
        )

    def _tools_for(self, catalog: Catalog) -> dict[str, BaseTool]:
        cached = self._model_tools
        if cached is not None and cached[0] is catalog:
            return cached[1]
        session = SkillSession(catalog, self.limits, self.policy, (), self.names)
        tools = {spec.name: self._make_tool(spec) for spec in self.toolkit.specs(session)}
        self._model_tools = (catalog, tools)
        return tools

    # -- tool calls: call order, RESTRICT, the skill tools ---------------------------------

    def _turn(self, state: Any, config: Any, call_id: str) -> TurnCall:
        """The call's place in its turn: calls of one AIMessage share a turn, keyed by the
        thread id (never by session value) and the message."""
        thread = str(((config or {}).get("configurable") or {}).get("thread_id", ""))
        messages = (state or {}).get("messages", ()) if isinstance(state, Mapping) else ()
        pairs: list[tuple[str, str]] = [(call_id, "")]
        turn = call_id
        for message in reversed(messages):
            if isinstance(message, AIMessage) and any(
                c.get("id") == call_id for c in message.tool_calls
            ):
                pairs = [(str(c.get("id")), c.get("name", "")) for c in message.tool_calls]
                turn = message.id or "|".join(p[0] for p in pairs)
                break
        calls = TurnCalls.of(thread, f"{thread}|{turn}", pairs, self.toolkit.is_skill_tool)
        return self.turns.enter(calls, call_id, self.session(state))

    def _blocked(self, view: TurnCall, call: Mapping[str, Any]) -> ToolMessage | None:
        if view.timed_out:
            text = replies.turn_incomplete(call["name"])
        else:
            decision = view.read().check_tool(call["name"])
            if decision.allowed:
                return None
            text = replies.blocked(decision)
        return _message(text, OutcomeCode.TOOL_BLOCKED, call["id"], call["name"])

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Block tools the loaded skills do not allow (RESTRICT), deciding in call order."""
        call = request.tool_call
        if self.policy.mode is PolicyMode.RECOMMEND or self.toolkit.is_skill_tool(call["name"]):
            return handler(request)
        with self._turn(
            request.state, getattr(request.runtime, "config", None), call["id"]
        ) as view:
            blocked = self._blocked(view, call)
        return blocked if blocked is not None else handler(request)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        call = request.tool_call
        if self.policy.mode is PolicyMode.RECOMMEND or self.toolkit.is_skill_tool(call["name"]):
            return await handler(request)
        async with self._turn(
            request.state, getattr(request.runtime, "config", None), call["id"]
        ) as view:
            blocked = self._blocked(view, call)
        return blocked if blocked is not None else await handler(request)

    def _make_tool(self, spec: ToolSpec) -> StructuredTool:
        name = spec.name

        def run(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            with self._turn(runtime.state, runtime.config, runtime.tool_call_id) as view:
                return self._reply(self.toolkit.call(view, name, arguments), runtime, view)

        async def arun(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            async with self._turn(runtime.state, runtime.config, runtime.tool_call_id) as view:
                result = await self.toolkit.acall(view, name, arguments)
                return self._reply(result, runtime, view)

        return StructuredTool.from_function(
            func=run,
            coroutine=arun,
            name=name,
            description=spec.description,
            args_schema=spec.json_schema(),
        )

    def _reply(
        self, result: Any, runtime: ToolRuntime, view: TurnCall
    ) -> ToolMessage | Command[Any]:
        message = _message(result.text, result.code, runtime.tool_call_id, result.tool, result.ok)
        if not result.changed:
            return message
        update = self._state_update(result.session, view.calls.turn, view.seq)
        return Command(update={**update, "messages": [message]})


def _tool_replies(messages: Sequence[BaseMessage]) -> Iterator[str]:
    """Texts of tool replies, newest first."""
    for message in reversed(messages):
        if isinstance(message, ToolMessage) and isinstance(message.content, str):
            yield message.content


def _message(
    text: str, code: OutcomeCode, call_id: str, name: str, ok: bool = False
) -> ToolMessage:
    return ToolMessage(
        content=text,
        tool_call_id=call_id,
        name=name,
        status="success" if ok else "error",
        artifact={"code": code.value},
    )


def _append_block(system: SystemMessage | None, text: str) -> SystemMessage:
    """Append ``text`` as its own content block (earlier blocks stay byte-identical, which
    keeps provider prompt caches valid); the block starts with a blank line."""
    if system is None:
        return SystemMessage(content=text)
    content = system.content
    # Raw content items are kept as they are (cheaper than a content_blocks round trip).
    blocks: list[Any] = (
        ([{"type": "text", "text": content}] if content else [])
        if isinstance(content, str)
        else list(content)
    )
    blocks.append({"type": "text", "text": f"\n\n{text}" if blocks else text})
    return SystemMessage(content=blocks)
