"""``SkillToolkit``: plan a skill tool call against a session, read what it needs, finish it.

Schemas and argument rules live in :mod:`skillcore.specs`, every rule about sessions in
:mod:`skillcore.session`, reply texts in :mod:`skillcore.replies`, and where the session lives
while calls run in :mod:`skillcore.coordination`, the steps of a call (effect, reads, result,
event) in :mod:`skillcore.calls`. Adapters only translate framework objects.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

import attrs

from skillcore import calls, events, replies
from skillcore.calls import Data, Effect, ToolResult, Unload
from skillcore.codes import OutcomeCode
from skillcore.coordination import SessionRef, SessionStore, as_store
from skillcore.library import SkillLibrary
from skillcore.model import Catalog, SkillDocument, SkillMetadata
from skillcore.names import ToolNames
from skillcore.policy import DecisionCode, PolicyMode, ToolDecision, ToolPolicy
from skillcore.relevance import CatalogOrder, relevant_catalog
from skillcore.render import CatalogFormat, catalog_view, render_load_reply
from skillcore.search import search_skills
from skillcore.session import LoadRequest, Outcome, ResourceRequest, SkillSession
from skillcore.sources import ReadError
from skillcore.specs import (
    DEFAULT_ENUM_LIMIT,
    ArgumentError,
    ToolKind,
    ToolSpec,
    build_specs,
    parse_arguments,
)


class SkillToolkit:
    """The skill tools bound to a library. One toolkit serves many conversations: the
    session (or the :class:`SessionStore` holding it) is passed to every call."""

    def __init__(
        self,
        library: SkillLibrary,
        *,
        names: ToolNames | None = None,
        include_resource_tool: bool = True,
        catalog_format: CatalogFormat | str = CatalogFormat.MARKDOWN,
        enum_limit: int = DEFAULT_ENUM_LIMIT,
        budget_counter: Callable[[str], int] = len,
        catalog_order: CatalogOrder | str = CatalogOrder.PRECEDENCE,
        default_skills: Iterable[str] = (),
        pinned_skills: Iterable[str] = (),
    ) -> None:
        self.library = library
        #: Skills loaded when a conversation starts, and skills kept loaded on every turn
        #: (see :meth:`ensure`).
        self.default_skills: tuple[str, ...] = tuple(dict.fromkeys(default_skills))
        self.pinned_skills: tuple[str, ...] = tuple(dict.fromkeys(pinned_skills))
        self._preset_docs: OrderedDict[SkillMetadata, SkillDocument] = OrderedDict()
        self._preset_lock = threading.Lock()
        self._skipped: tuple[Catalog | None, set[tuple[str, OutcomeCode]]] = (None, set())
        self.names = names or ToolNames()
        self.include_resource_tool = include_resource_tool
        self.catalog_format = CatalogFormat(catalog_format)
        self.enum_limit = enum_limit
        #: Measures catalog entries against the budget: ``len`` (characters) or a token count.
        self.budget_counter = budget_counter
        #: How unloaded skills fill the budget (see :class:`~skillcore.relevance.CatalogOrder`).
        self.catalog_order = CatalogOrder(catalog_order)
        n = self.names
        self._kinds = {n.load: ToolKind.LOAD, n.unload: ToolKind.UNLOAD, n.search: ToolKind.SEARCH}
        if include_resource_tool:
            self._kinds[n.resource] = ToolKind.RESOURCE
        self._specs_cache: tuple[Catalog, tuple[ToolSpec, ...]] | None = None
        self._budget_report = events.BudgetReport()

    # -- what the model sees ---------------------------------------------------------------

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the tools this toolkit exposes."""
        return tuple(s.name for s in self.generic_specs())

    def is_skill_tool(self, name: str) -> bool:
        """True if ``name`` is one of this toolkit's tools."""
        return name in self._kinds

    def instructions(
        self, session: SkillSession, budget: int | None = None, query: str | None = None
    ) -> str:
        """The catalog text for the system prompt; empty when there are no skills.

        ``query`` is the latest user message: with ``catalog_order="relevance"`` the budget is
        filled by relevance to it (:func:`~skillcore.relevance.relevant_catalog`), and without
        one in precedence order. Memoised: the same session and query give the same text, so
        pass the same message until the user writes again to keep the prompt prefix stable.
        """
        budget = session.limits.catalog_budget if budget is None else budget
        fmt, counter = self.catalog_format, self.budget_counter
        if self.catalog_order is CatalogOrder.RELEVANCE and query and query.strip():
            rel = relevant_catalog(session, query, fmt, budget, counter)
            text, shown, omitted = rel.text, len(rel.shown) + len(rel.named), rel.omitted
        else:
            view = catalog_view(session, fmt, budget, counter)
            text, shown, omitted = view.text, len(view.shown), view.omitted
        self._budget_report(session.catalog, shown, omitted, budget)
        return text

    def specs(self, session: SkillSession | Catalog) -> tuple[ToolSpec, ...]:
        """Tool specs for a session's catalog (or a catalog); empty when no skill is
        model-visible. Memoised per catalog object: adapters ask on every model call."""
        catalog = session.catalog if isinstance(session, SkillSession) else session
        cached = self._specs_cache
        if cached is not None and cached[0] is catalog:
            return cached[1]
        visible = [s.name for s in catalog.model_visible]
        specs = self._specs(visible) if visible else ()
        self._specs_cache = (catalog, specs)
        return specs

    def generic_specs(self) -> tuple[ToolSpec, ...]:
        """Specs that do not depend on a catalog (``skill_name`` is a plain string), for
        frameworks that must register their tools before any discovery."""
        return self._specs(None)

    def _specs(self, loadable: list[str] | None) -> tuple[ToolSpec, ...]:
        return build_specs(
            self.names,
            include_resource_tool=self.include_resource_tool,
            loadable=loadable,
            enum_limit=self.enum_limit,
        )

    def check_tool(
        self,
        session: SkillSession,
        tool_name: str,
        arguments: Mapping[str, Any] | str | None = None,
    ) -> ToolDecision:
        """The allowed-tools decision for a plain tool call (skill tools always pass); a
        query: nothing is reported (see :meth:`check_call`)."""
        return session.check_tool(tool_name, arguments=arguments)

    def guards(self, policy: ToolPolicy, tool_name: str) -> bool:
        """True when a plain call of ``tool_name`` must be decided in call order and checked
        (:meth:`check_call`): never under RECOMMEND (it never blocks) nor for skill tools."""
        return policy.mode is not PolicyMode.RECOMMEND and not self.is_skill_tool(tool_name)

    def check_call(
        self,
        target: SkillSession | SessionStore,
        tool_name: str,
        *,
        can_unload: bool = True,
        arguments: Mapping[str, Any] | str | None = None,
    ) -> ToolDecision:
        """The decision for a plain tool call about to run, as every adapter makes it: on the
        store's session, refused when the store waited in vain for the earlier skill calls
        of its turn (``timed_out``, see :class:`~skillcore.TurnCall`), and reported as a
        ``tool.blocked`` event when blocked. Reply with :func:`replies.blocked`.
        ``can_unload=False``: the caller has no unload tool (the reason says so).
        ``arguments``: the call's arguments (mapping or JSON text), for argument patterns
        such as ``Bash(git:*)``; None when the caller cannot see them (such entries then
        do not allow the call)."""
        store = as_store(target)
        session = store.read()
        if getattr(store, "timed_out", False):
            reason = replies.turn_incomplete_reason(tool_name)
            decision = ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, tool_name)
        else:
            decision = session.check_tool(tool_name, can_unload=can_unload, arguments=arguments)
        if not decision.allowed:
            events.tool_blocked(tool_name, session.loaded_names, getattr(store, "timed_out", False))
        return decision

    def parse_arguments(self, tool: str, arguments: Any) -> dict[str, Any]:
        """Validate raw arguments (a mapping or a JSON string). Raises ArgumentError."""
        return parse_arguments(self._kinds[tool], tool, arguments)

    # -- execution: plan, read, finish -----------------------------------------------------

    def call(
        self,
        target: SkillSession | SessionStore,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
    ) -> ToolResult:
        """Execute a skill tool call on a session or a :class:`SessionStore`. Never raises
        for bad model input. ``hidden``: loaded skills whose load reply is no longer in what the
        model receives (:func:`~skillcore.render.undelivered`, computed on the session the
        history belongs to); loading one sends its instructions again (``REDELIVERED``) instead
        of ``ALREADY_LOADED``."""
        store = as_store(target)
        step = self.plan(store.read(), tool, arguments, hidden=hidden)
        if isinstance(step, ToolResult):
            return step
        return self.finish(store, step, calls.read(self.library, step, store.read()))

    async def acall(
        self,
        target: SkillSession | SessionStore,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
    ) -> ToolResult:
        """Async :meth:`call`: file reads are awaited, then the store is read, the transition
        applied and the result written with no ``await`` in between."""
        store = as_store(target)
        step = self.plan(store.read(), tool, arguments, hidden=hidden)
        if isinstance(step, ToolResult):
            return step
        return self.finish(store, step, await calls.aread(self.library, step, store.read()))

    def load_all(
        self, session: SkillSession, names: Iterable[str]
    ) -> tuple[SkillSession, list[ToolResult]]:
        """Load ``names`` in order (e.g. to seed a conversation); refusals are in the results."""
        store = SessionRef(session)
        results = [self.call(store, self.names.load, {"skill_name": n}) for n in names]
        return store.session, results

    async def aload_all(
        self, session: SkillSession, names: Iterable[str]
    ) -> tuple[SkillSession, list[ToolResult]]:
        """Async :meth:`load_all`."""
        store = SessionRef(session)
        results = [await self.acall(store, self.names.load, {"skill_name": n}) for n in names]
        return store.session, results

    # -- configured skills: default_skills and pinned_skills ----------------------------

    @property
    def preset(self) -> frozenset[str]:
        """Names of the configured skills (default and pinned): their instructions reach the
        model through the system prompt, since no tool reply delivered them."""
        return frozenset((*self.default_skills, *self.pinned_skills))

    def preset_names(self, fresh: bool) -> tuple[str, ...]:
        """What :meth:`ensure` loads: the pinned skills, then (``fresh``: the conversation
        has no saved state yet) the default skills."""
        names = self.pinned_skills + (self.default_skills if fresh else ())
        return tuple(dict.fromkeys(names))

    def ensure(
        self, session: SkillSession, *, fresh: bool = False
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Turn start: load the pinned skills that are not loaded and, when ``fresh`` (a new
        conversation), the default skills (:meth:`SkillSession.ensure_loaded`). Names that
        cannot be loaded are skipped and reported once per catalog (``preload.skipped``);
        never raises for them. Returns the same session when nothing changes."""
        names = self.preset_names(fresh)
        if not names:
            return session, ()
        docs = {n: self._preset_doc(session, n) for n in session.to_ensure(names)}
        return self._ensured(session, names, docs)

    async def aensure(
        self, session: SkillSession, *, fresh: bool = False
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Async :meth:`ensure` (documents are read without blocking the event loop)."""
        names = self.preset_names(fresh)
        if not names:
            return session, ()
        docs = {n: await self._apreset_doc(session, n) for n in session.to_ensure(names)}
        return self._ensured(session, names, docs)

    def _ensured(
        self,
        session: SkillSession,
        names: tuple[str, ...],
        docs: Mapping[str, SkillDocument | ReadError],
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        read = {n: d for n, d in docs.items() if isinstance(d, SkillDocument)}
        new, outcomes = session.ensure_loaded(names, read, pinned=self.pinned_skills)
        failed = {n: d for n, d in docs.items() if isinstance(d, ReadError)}
        outcomes = tuple(
            session.fail_load(o.skill, failed[o.skill].code, failed[o.skill].message)
            if o.skill in failed
            else o
            for o in outcomes
        )
        self._report_preset(new, outcomes)
        return new, outcomes

    def check_preset(self, catalog: Catalog) -> tuple[Outcome, ...]:
        """The configured skills ``catalog`` cannot provide (``SKILL_NOT_FOUND``, ``DISABLED``),
        reported as ``preload.skipped`` warnings (once per catalog, shared with :meth:`ensure`):
        adapters call it when they are built over an already discovered library."""
        session = SkillSession(catalog)
        names = tuple(dict.fromkeys((*self.pinned_skills, *self.default_skills)))
        refused = (OutcomeCode.SKILL_NOT_FOUND, OutcomeCode.DISABLED)
        outcomes = tuple(o for o in session.ensure_loaded(names, {})[1] if o.code in refused)
        self._report_preset(session, outcomes)
        return outcomes

    def _report_preset(self, session: SkillSession, outcomes: tuple[Outcome, ...]) -> None:
        catalog, skipped = self._skipped
        if catalog is not session.catalog:
            skipped = set()
            self._skipped = (session.catalog, skipped)
        for o in outcomes:
            if o.code is OutcomeCode.LOADED:
                fields = {"skill": o.skill, "pinned": o.skill in self.pinned_skills}
                events.emit("skill.preloaded", {**fields, "loaded": session.loaded_names})
            elif o.code is OutcomeCode.UNLOADED:
                events.emit("skill.unloaded", {"skill": o.skill, "loaded": session.loaded_names})
            elif (o.skill or "", o.code) not in skipped:  # once per catalog, not every turn
                skipped.add((o.skill or "", o.code))
                fields = {"skill": o.skill, "code": o.code.value, "detail": o.message}
                events.emit("preload.skipped", fields)

    def _preset_cached(self, session: SkillSession, name: str) -> SkillDocument | None:
        meta = session.catalog.get(name)
        with self._preset_lock:
            return self._preset_docs.get(meta) if meta is not None else None

    def _preset_keep(self, data: calls.Data) -> SkillDocument | ReadError:
        if isinstance(data, SkillDocument):
            with self._preset_lock:
                self._preset_docs[data.metadata] = data
                while len(self._preset_docs) > max(8, 2 * len(self.preset)):
                    self._preset_docs.popitem(last=False)
            return data
        if isinstance(data, ReadError):
            return data
        return ReadError(OutcomeCode.READ_FAILED, "the document could not be read")

    def _preset_doc(self, session: SkillSession, name: str) -> SkillDocument | ReadError:
        # Cached: adapters whose turn-start state is not persisted until a tool call writes
        # (ADK) ensure the same skills on every model call.
        cached = self._preset_cached(session, name)
        if cached is not None:
            return cached
        return self._preset_keep(calls.read(self.library, LoadRequest(name), session))

    async def _apreset_doc(self, session: SkillSession, name: str) -> SkillDocument | ReadError:
        cached = self._preset_cached(session, name)
        if cached is not None:
            return cached
        return self._preset_keep(await calls.aread(self.library, LoadRequest(name), session))

    def plan(
        self,
        session: SkillSession,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
    ) -> Effect | ToolResult:
        """Decide a call against ``session``: a final result (refusal, search) or the effect
        whose data the shell must read before :meth:`finish` (``hidden``: see :meth:`call`)."""
        kind = self._kinds.get(tool)
        if kind is None:
            text = replies.unknown_tool(tool, self.tool_names)
            return ToolResult(session, text, OutcomeCode.UNKNOWN_TOOL, tool)
        try:
            args = parse_arguments(kind, tool, arguments)
        except ArgumentError as exc:
            text = replies.invalid_arguments(tool, str(exc))
            return ToolResult(session, text, OutcomeCode.INVALID_ARGUMENTS, tool)
        if kind is ToolKind.SEARCH:
            text = self.search_text(session, args["query"], args["path"])
            return ToolResult(session, text, OutcomeCode.SEARCH_RESULTS, tool)
        if kind is ToolKind.UNLOAD:
            return Unload(args["skill_name"])
        step = (
            session.begin_load(args["skill_name"], hidden=hidden)
            if kind is ToolKind.LOAD
            else session.begin_resource(args["skill_name"], args["path"])
        )
        if isinstance(step, Outcome):
            result = ToolResult(session, replies.refusal(step), step.code, tool)
            events.tool_outcome(kind.value, result, args["skill_name"], args.get("path"))
            return result
        return step

    def finish(self, store: SessionStore, effect: Effect, data: Data) -> ToolResult:
        """Apply ``effect`` with the ``data`` read for it to the store's *current* session
        (re-checked, since it may have changed while reading) and write the result. Every
        finished call is reported once as a structured event (:mod:`skillcore.events`)."""
        result = self._finish(store, effect, data)
        calls.report(effect, result, data)
        return result

    def _finish(self, store: SessionStore, effect: Effect, data: Data) -> ToolResult:
        session = store.read()
        if isinstance(effect, ResourceRequest):
            return calls.resource_result(session, effect, data, self.names)
        tool = self.names.unload if isinstance(effect, Unload) else self.names.load
        if isinstance(data, ReadError):
            outcome = session.fail_load(effect.name, data.code, data.message)
            return ToolResult(session, replies.refusal(outcome), outcome.code, tool)
        if isinstance(effect, Unload):
            new, outcome = session.unload(effect.name, pinned=self.pinned_skills)
        else:
            assert isinstance(data, SkillDocument)
            new, outcome = session.finish_load(data, redeliver=effect.redeliver)
        if not outcome.ok:
            return ToolResult(session, replies.refusal(outcome), outcome.code, tool)
        if outcome.code is OutcomeCode.REDELIVERED:  # nothing changed: nothing to write
            return ToolResult(session, self.load_reply(session, data), outcome.code, tool, 0, data)
        store.write(new)
        seq = getattr(store, "seq", 0)
        if isinstance(effect, Unload):
            return ToolResult(new, outcome.message, outcome.code, tool, seq)
        return ToolResult(new, self.load_reply(new, data), outcome.code, tool, seq, data)

    def load_reply(self, session: SkillSession, document: SkillDocument) -> str:
        """The text of a successful load of ``document`` (``<skill_content ...>``, directory,
        resources as the session recorded them, dependencies), e.g. to repeat instructions
        that were compacted out of a conversation."""
        loaded = session.loaded_skill(document.name)
        truncated = bool(loaded and loaded.resources_truncated)
        shown = attrs.evolve(document, resources=loaded.resources) if loaded else document
        return render_load_reply(
            shown, truncated, self.names.resource if self.include_resource_tool else None
        )

    def search_text(self, session: SkillSession, query: str | None, path: str | None) -> str:
        """The reply of the search tool."""
        hits = search_skills(session.catalog, query, path, limit=10)
        return replies.search(session, hits, query, path)


__all__ = [
    "DEFAULT_ENUM_LIMIT",
    "ArgumentError",
    "Effect",
    "SessionStore",
    "SkillToolkit",
    "ToolResult",
    "ToolSpec",
    "Unload",
]
