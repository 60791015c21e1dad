"""``SkillsMiddleware``: Agent Skills for ``langchain.agents.create_agent`` (and deepagents).

The middleware only translates: schemas, argument validation, execution and replies come from
:class:`skillcore.SkillToolkit`; the allowed-tools decision from
:meth:`skillcore.SkillSession.check_tool`; persistence is the JSON-native
:meth:`skillcore.SkillSession.to_state` in one graph state key merged by
:func:`skillcore.merge_states`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any
from xml.sax.saxutils import quoteattr

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    OmitFromOutput,
    PrivateStateAttr,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command
from typing_extensions import NotRequired

from skillcore import (
    STATE_SCHEMA,
    Catalog,
    CatalogFormat,
    Code,
    Limits,
    PolicyMode,
    ReadError,
    SkillConfig,
    SkillDocument,
    SkillMetadata,
    SkillSession,
    StateError,
    ToolResult,
    ToolSpec,
    ValidationMode,
    loaded_names_of,
    merge_states,
)
from skillcore.config import Sources

logger = logging.getLogger("skillcore_langchain")

#: The graph state key holding the serialized skill session (private to each agent).
STATE_KEY = "skillcore"
#: Input-only key that seeds the session of a thread's first run (see ``share_with_subagents``).
SEED_KEY = "skillcore_seed"

#: How many re-read skill documents are kept for re-injection after compaction.
_DOC_CACHE_SIZE = 64


def merge_seed(left: Any, right: Any) -> Any:
    """Reducer of :data:`SEED_KEY`: a serialized state merges like the session, names replace."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return merge_states(left, right)
    return left if right is None else right


# LangGraph resolves these annotations at runtime: keep the schema at module level, every name
# imported for real, and the reducer as the last ``Annotated`` entry.
class SkillsState(AgentState):
    """Graph state added by :class:`SkillsMiddleware`."""

    skillcore: NotRequired[Annotated[dict[str, Any] | None, PrivateStateAttr, merge_states]]
    """``SkillSession.to_state()`` plus ``turn``/``seq``; never the catalog. Private: it is
    neither accepted as input nor returned, so parents and subagents never share it."""

    skillcore_seed: NotRequired[
        Annotated[dict[str, Any] | list[str] | None, OmitFromOutput, merge_seed]
    ]
    """Input-only: a serialized session (a parent's ``skillcore`` value) or skill names to load
    when a thread starts. Ignored once the thread has its own session."""


class SkillsMiddleware(AgentMiddleware[SkillsState, Any, Any]):
    """Agent Skills for LangChain agents, backed by skillcore.

    ``create_agent(model, tools, middleware=[SkillsMiddleware("./skills")])`` adds a budgeted
    skill catalog to the system message and the tools ``load_skill``, ``unload_skill``,
    ``load_skill_resource`` and ``search_skills``. Load state lives in the graph state (a few
    hundred bytes, whatever the catalog size), so it follows checkpointers, and several skill
    tool calls in one model turn are serialised so every reply is truthful.
    """

    state_schema = SkillsState

    def __init__(
        self,
        sources: Sources,
        *,
        max_loaded_skills: int = 10,
        max_description_budget: int = 16_000,
        allowed_tools_policy: PolicyMode | str = PolicyMode.RECOMMEND,
        always_allowed_tools: Iterable[str] = (),
        catalog_format: CatalogFormat | str = CatalogFormat.MARKDOWN,
        validation_mode: ValidationMode | str | None = None,
        tool_name_prefix: str = "",
        include_resource_tool: bool = True,
        refresh: bool | float = True,
        share_with_subagents: bool = False,
        limits: Limits | None = None,
        budget_counter: Callable[[str], int] = len,
    ) -> None:
        """Build the middleware.

        Args:
            sources: skill folders or fsspec URLs (later ones override earlier ones),
                :class:`~skillcore.SkillSource` values, or a ready :class:`~skillcore.SkillLibrary`
                (share one library between agents to discover once).
            max_loaded_skills: how many skills can be loaded at once.
            max_description_budget: characters of the catalog in the system message.
            allowed_tools_policy: ``"recommend"`` shows each skill's ``allowed-tools``;
                ``"restrict"`` also blocks other tools while restricting skills are loaded.
            always_allowed_tools: tool names RESTRICT never blocks.
            catalog_format: ``"markdown"`` (a bullet list) or ``"xml"`` (``<available_skills>``).
            validation_mode: ``"lenient"`` (default) or ``"strict"``; only with ``sources`` that
                are not a library (a library has its own mode).
            tool_name_prefix: prefix of the four tool names, e.g. ``"sc_"`` -> ``sc_load_skill``.
            include_resource_tool: set False when the agent reads files with its own tool.
            refresh: re-scan the sources at the start of every run so skills added, changed or
                removed show up on the next turn (unchanged files are not read again); a number
                is the minimum seconds between two scans; False scans once per process.
            budget_counter: measures ``max_description_budget``: ``len`` (characters) or a
                token counter such as ``lambda s: len(encoding.encode(s))``.
            limits: a full :class:`~skillcore.Limits` (file and resource caps too); overrides
                ``max_loaded_skills`` and ``max_description_budget``.
            share_with_subagents: also write the session to the input-only ``skillcore_seed``
                key, which deepagents' ``task`` tool forwards, so subagents start with the
                skills loaded here.
        """
        self.config = SkillConfig(
            max_loaded_skills=max_loaded_skills,
            max_description_budget=max_description_budget,
            allowed_tools_policy=allowed_tools_policy,
            always_allowed_tools=always_allowed_tools,
            catalog_format=catalog_format,
            validation_mode=validation_mode,
            tool_name_prefix=tool_name_prefix,
            include_resource_tool=include_resource_tool,
            limits=limits,
            budget_counter=budget_counter,
        )
        self.library = self.config.library(sources)
        self.limits = self.config.session_limits()
        self.policy = self.config.policy()
        self.toolkit = self.config.toolkit(self.library)
        self.names = self.toolkit.names
        if isinstance(refresh, bool):
            self.refresh_interval: float | None = 0.0 if refresh else None
        else:
            self.refresh_interval = float(refresh)
        self._scanned_at: float | None = None
        self.share_with_subagents = share_with_subagents
        self._lock = threading.Lock()
        self._model_tools: tuple[Catalog, dict[str, BaseTool]] | None = None
        self._docs: OrderedDict[SkillMetadata, SkillDocument | ReadError] = OrderedDict()
        self._seen_catalog: Catalog | None = None
        self._last_session: tuple[Any, Catalog, SkillSession] | None = None
        # Registered with the tool node once; the model is shown per-catalog copies (with the
        # skill names as an enum) from wrap_model_call, or none when there are no skills.
        self.tools = [self._make_tool(spec) for spec in self.toolkit.generic_specs()]

    # -- sessions --------------------------------------------------------------------------

    def session(self, state: Mapping[str, Any] | None) -> SkillSession:
        """The skill session stored in an agent state (empty if there is none)."""
        raw = (state or {}).get(STATE_KEY)
        catalog = self.library.catalog
        last = self._last_session
        # LangGraph hands every hook of a run the same state object until it changes, so an
        # identity check (holding a reference, so ids cannot be reused) saves the rebuild.
        if last is not None and last[0] is raw and last[1] is catalog:
            return last[2]
        try:
            session = SkillSession.from_state(
                raw, catalog, self.limits, self.policy, self.names, strict=False
            )
        except StateError as exc:
            # A checkpoint from an incompatible version must not brick the thread.
            logger.warning("ignoring unreadable skill state: %s", exc)
            session = SkillSession(catalog, self.limits, self.policy, (), self.names)
        self._last_session = (raw, catalog, session)
        return session

    def _state_update(self, session: SkillSession, turn: str | None, seq: int) -> dict[str, Any]:
        value: dict[str, Any] = {**session.to_state(), "turn": turn, "seq": seq}
        update: dict[str, Any] = {STATE_KEY: value}
        if self.share_with_subagents:
            update[SEED_KEY] = value
        return update

    # -- before_agent: refresh, repair, seed -----------------------------------------------

    def before_agent(self, state: SkillsState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Refresh the catalog; seed a new thread or drop loaded skills that vanished."""
        if self._scan_due():
            self._note_catalog(self.library.refresh())
        plan = self._plan(state)
        if isinstance(plan, list):
            session = self.session(None)
            for name in plan:
                result = self.toolkit.call(session, self.names.load, {"skill_name": name})
                session = _seeded(result)
            return self._state_update(session, None, 0)
        return plan

    async def abefore_agent(
        self, state: SkillsState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_agent` (sources are scanned without blocking the loop)."""
        if self._scan_due():
            self._note_catalog(await self.library.arefresh())
        plan = self._plan(state)
        if isinstance(plan, list):
            session = self.session(None)
            for name in plan:
                result = await self.toolkit.acall(session, self.names.load, {"skill_name": name})
                session = _seeded(result)
            return self._state_update(session, None, 0)
        return plan

    def _plan(self, state: Mapping[str, Any]) -> dict[str, Any] | list[str] | None:
        """A state update, names to load (seeding by name), or None when nothing changes."""
        raw = state.get(STATE_KEY)
        if raw is None:
            seed = state.get(SEED_KEY)
            if isinstance(seed, Mapping):
                return self._state_update(self.session({STATE_KEY: seed}), None, 0)
            if isinstance(seed, (list, tuple)):
                return [n for n in seed if isinstance(n, str)]
            return None
        session = self.session(state)
        if (
            not isinstance(raw, Mapping)
            or raw.get("schema") != STATE_SCHEMA
            or list(session.loaded_names) != loaded_names_of(raw)
        ):
            # Skills removed from disk (or unreadable state): persist the repaired session.
            return self._state_update(session, None, 0)
        return None

    def _scan_due(self) -> bool:
        now = time.monotonic()
        last, interval = self._scanned_at, self.refresh_interval
        if last is not None and (interval is None or now - last < interval):
            return False
        self._scanned_at = now
        return True

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
        missing = self._missing_instructions(session, request.messages)
        docs = {m.name: self._document(m) for m in missing}
        return handler(self._prepare(request, session, docs))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Async :meth:`wrap_model_call`."""
        session = self.session(request.state)
        missing = self._missing_instructions(session, request.messages)
        docs = {m.name: await self._adocument(m) for m in missing}
        return await handler(self._prepare(request, session, docs))

    def _prepare(
        self,
        request: ModelRequest[Any],
        session: SkillSession,
        docs: Mapping[str, SkillDocument | ReadError],
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
        if docs:
            text += "\n" + self._reinjection(session, docs)
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

    def _missing_instructions(
        self, session: SkillSession, messages: Sequence[BaseMessage]
    ) -> list[SkillMetadata]:
        """Loaded skills whose load reply (a ToolMessage starting with ``<skill_content``) is
        no longer in the request's messages."""
        if not session.loaded:
            return []
        wanted = {_marker(name): name for name in session.loaded_names}
        for message in reversed(messages):
            # Only the head of tool replies is inspected: scanning every message's text would
            # cost more than the rest of the hook on long conversations.
            content = message.content if isinstance(message, ToolMessage) else None
            if not isinstance(content, str) or not content.startswith("<skill_content"):
                continue
            head = content[: content.find(">") + 1]
            if head in wanted:
                del wanted[head]
                if not wanted:
                    return []
        metas = (session.catalog.get(name) for name in wanted.values())
        return [m for m in metas if m is not None]

    def _document(self, meta: SkillMetadata) -> SkillDocument | ReadError:
        with self._lock:
            if meta in self._docs:
                return self._docs[meta]
        try:
            doc: SkillDocument | ReadError = self.library.read_document(meta)
        except ReadError as exc:
            doc = exc
        return self._remember(meta, doc)

    async def _adocument(self, meta: SkillMetadata) -> SkillDocument | ReadError:
        with self._lock:
            if meta in self._docs:
                return self._docs[meta]
        try:
            doc: SkillDocument | ReadError = await self.library.aread_document(meta)
        except ReadError as exc:
            doc = exc
        return self._remember(meta, doc)

    def _remember(
        self, meta: SkillMetadata, doc: SkillDocument | ReadError
    ) -> SkillDocument | ReadError:
        if isinstance(doc, ReadError):  # do not cache failures: the file may come back
            return doc
        with self._lock:
            self._docs[meta] = doc
            while len(self._docs) > _DOC_CACHE_SIZE:
                self._docs.popitem(last=False)
        return doc

    def _reinjection(
        self, session: SkillSession, docs: Mapping[str, SkillDocument | ReadError]
    ) -> str:
        parts = [
            "## Loaded skill instructions\n\n"
            "These skills are still loaded, but the messages that delivered their instructions "
            "are no longer in the conversation, so the instructions are repeated here. Keep "
            f"following them, or call {self.names.unload} for a skill that no longer applies.\n"
        ]
        for name, doc in docs.items():
            if isinstance(doc, ReadError):
                parts.append(
                    f"Skill {name!r} is loaded, but its instructions could not be read again "
                    f"({doc.message}). Call {self.names.unload} to free its slot if you cannot "
                    "continue without them.\n"
                )
                continue
            parts.append(self.toolkit.load_reply(session, doc) + "\n")
        return "\n".join(parts)

    # -- wrap_tool_call: RESTRICT enforcement ----------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Block tools the loaded skills do not allow (RESTRICT); pass everything else."""
        blocked = self._blocked(request)
        return blocked if blocked is not None else handler(request)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        blocked = self._blocked(request)
        return blocked if blocked is not None else await handler(request)

    def _blocked(self, request: ToolCallRequest) -> ToolMessage | None:
        if self.policy.mode is PolicyMode.RECOMMEND:
            return None
        call = request.tool_call
        name = call["name"]
        if self.toolkit.is_skill_tool(name):
            return None
        decision = self.session(request.state).check_tool(name)
        if decision.allowed:
            return None
        return ToolMessage(
            content=f"Error: {decision.reason}",
            tool_call_id=call["id"],
            name=name,
            status="error",
            artifact={"code": decision.code.value},
        )

    # -- the skill tools -------------------------------------------------------------------

    def _make_tool(self, spec: ToolSpec) -> StructuredTool:
        name = spec.name

        def run(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            turn = _turn_of(runtime)
            result = self.toolkit.call(self.session(runtime.state), name, arguments, turn=turn)
            return self._reply(result, runtime, turn)

        async def arun(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            turn = _turn_of(runtime)
            session = self.session(runtime.state)
            result = await self.toolkit.acall(session, name, arguments, turn=turn)
            return self._reply(result, runtime, turn)

        return StructuredTool.from_function(
            func=run,
            coroutine=arun,
            name=name,
            description=spec.description,
            args_schema=spec.json_schema(),
        )

    def _reply(
        self, result: ToolResult, runtime: ToolRuntime, turn: str | None
    ) -> ToolMessage | Command[Any]:
        message = ToolMessage(
            content=result.text,
            tool_call_id=runtime.tool_call_id,
            name=result.tool,
            status="success" if result.ok else "error",
            artifact={"code": result.code.value},
        )
        if not result.changed:
            return message
        return Command(
            update={**self._state_update(result.session, turn, result.seq), "messages": [message]}
        )


def _seeded(result: ToolResult) -> SkillSession:
    if not result.ok:
        logger.warning("skill seed not loaded: %s", result.text)
    return result.session


def _turn_of(runtime: ToolRuntime) -> str | None:
    """Identify the model turn of a tool call: calls of one AIMessage share it.

    The thread id keeps turns of different conversations apart even if message ids repeat.
    """
    call_id = runtime.tool_call_id
    for message in reversed(runtime.state.get("messages", ()) if runtime.state else ()):
        if isinstance(message, AIMessage) and any(
            call.get("id") == call_id for call in message.tool_calls
        ):
            key = message.id or "|".join(str(c.get("id")) for c in message.tool_calls)
            # Not checkpoint_ns: each parallel tool call runs in a task of its own namespace.
            thread = (runtime.config or {}).get("configurable", {}).get("thread_id", "")
            return f"{thread}|{key}"
    return None


def _marker(name: str) -> str:
    return f"<skill_content name={quoteattr(name)}>"


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
