"""``SkillToolkit``: plan a skill tool call against a session, read what it needs, finish it.

Schemas and argument rules live in :mod:`skillcore.tools.specs`, every rule about sessions in
:mod:`skillcore.state.session`, reply texts in :mod:`skillcore.tools.replies`, and where the
session lives while calls run in :mod:`skillcore.state.coordination`, the steps of a call
(effect, reads, result, event) in :mod:`skillcore.tools.calls`. Adapters only translate
framework objects.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Iterable
from typing import Any

import attrs

from skillcore import events
from skillcore.catalog.prompt import PromptMode, PromptTemplate
from skillcore.catalog.ranking import RANKERS, Ranker
from skillcore.catalog.relevance import CatalogOrder
from skillcore.catalog.render import (
    CatalogFormat,
)
from skillcore.codes import OutcomeCode
from skillcore.library import SkillLibrary
from skillcore.model import Catalog, SkillDocument
from skillcore.names import ToolNames
from skillcore.sources.base import ReadError
from skillcore.state.session import Outcome, ResourceRequest, SkillSession
from skillcore.state.stores import SessionRef, SessionStore, as_store
from skillcore.state.turns import CallInTurn
from skillcore.tools import calls, replies
from skillcore.tools.calls import Data, Effect, ToolResult, Unload
from skillcore.tools.model_view import ModelView
from skillcore.tools.plain_calls import PlainCallChecks
from skillcore.tools.preload import Preload
from skillcore.tools.specs import (
    DEFAULT_ENUM_LIMIT,
    ArgumentError,
    ToolKind,
    ToolSpec,
    parse_arguments,
)

#: Skills named by the per-request suggestion note, by default: none (the note is opt-in). It
#: is worked out for every user message on every model call, so its cost grows with the
#: conversation (see docs/selection.md); the per-call cost stays flat without it.
DEFAULT_SUGGESTIONS = 0
#: How many skills the note names when it is turned on as documented (and as the selection
#: evaluation measures it).
NOTE_SUGGESTIONS = 3
#: Distinct (skill, agent tools) pairs a toolkit warns about when a restricting skill names
#: none of the agent's tools; past it no more warnings (memory stays bounded).
MAX_UNMATCHED_WARNINGS = 256


def _warn_unmatched(
    warned: set[tuple[str, tuple[str, ...], frozenset[str]]],
    session: SkillSession,
    name: str,
    available: Collection[str],
) -> None:
    """Warn once per toolkit (``warnings`` and the ``skill.tools_unmatched`` event) when
    skill ``name`` restricts the agent to tools it does not have (see
    :meth:`SkillSession.unmatched_tools`): nothing else says why every tool is blocked.
    ``warned``: the toolkit's (skill, entries, agent tools) already warned about."""
    entries = session.unmatched_tools(name, available)
    key = (name, entries, frozenset(available))
    if not entries or key in warned or len(warned) >= MAX_UNMATCHED_WARNINGS:
        return  # bounded: past the cap, nothing more is remembered or repeated
    warned.add(key)
    warnings.warn(events.tools_unmatched(name, entries, available), UserWarning, stacklevel=5)


class SkillToolkit(ModelView, PlainCallChecks):
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
        binary_resources: bool = False,
        prompt_mode: PromptMode | str | None = None,
        system_prompt: PromptTemplate | str | None = None,
        check_tools_available: bool = False,
        ranker: Ranker = "auto",
        suggestions: int = DEFAULT_SUGGESTIONS,
    ) -> None:
        self.library = library
        #: How search ranks (see :func:`skillcore.search_skills`): ``"auto"`` blends BM25 with
        #: the semantic ranker when ``skillcore-agents[semantic]`` is installed, else BM25.
        if ranker not in RANKERS:
            raise ValueError(f"unknown ranker {ranker!r}; use 'auto', 'bm25' or 'hybrid'")
        self.ranker: Ranker = ranker
        #: How many skills the per-request note names (:meth:`suggestion_note`); 0: no note.
        if not isinstance(suggestions, int) or suggestions < 0:
            raise ValueError(f"suggestions must be a count >= 0, got {suggestions!r}")
        self.suggestions = suggestions
        #: The configured skills (``default_skills``, ``pinned_skills``; see :meth:`ensure`).
        self.preload = Preload(library, default_skills, pinned_skills)
        #: Whether a load checks the skill's allowed-tools against the agent's tools (the
        #: ``available`` adapters pass; see :meth:`SkillSession.begin_load`).
        self.check_tools_available = check_tools_available
        #: (skill, entries, agent tools) already warned about by :meth:`_warn_unmatched`.
        self._unmatched_warned: set[tuple[str, tuple[str, ...], frozenset[str]]] = set()
        self.names = names or ToolNames()
        self.include_resource_tool = include_resource_tool
        #: Deliver allowed binary resources (images, PDFs) as payloads
        #: (:mod:`skillcore.tools.binary`).
        self.binary_resources = binary_resources
        n = self.names
        self._kinds = {n.load: ToolKind.LOAD, n.unload: ToolKind.UNLOAD, n.search: ToolKind.SEARCH}
        if include_resource_tool:
            self._kinds[n.resource] = ToolKind.RESOURCE
        self._init_view(
            catalog_format=catalog_format,
            enum_limit=enum_limit,
            budget_counter=budget_counter,
            catalog_order=catalog_order,
            prompt_mode=prompt_mode,
            system_prompt=system_prompt,
        )

    # -- the tools -------------------------------------------------------------------------

    def is_skill_tool(self, name: str) -> bool:
        """True if ``name`` is one of this toolkit's tools."""
        return name in self._kinds

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
        available: Collection[str] | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Execute a skill tool call on a session or a :class:`SessionStore`. Never raises
        for bad model input. ``hidden``: loaded skills whose load reply the model no longer
        receives (:meth:`SkillSession.undelivered`, computed on the session the history
        belongs to); loading one sends its instructions again (``REDELIVERED``) instead
        of ``ALREADY_LOADED``. ``available``: the agent's tool names when the adapter knows
        them (None skips the check; so does ``check_tools_available=False``): a load of a
        skill whose allowed-tools name others warns (RECOMMEND) or is refused with
        ``TOOL_NOT_AVAILABLE`` (RESTRICT). ``call_id``: the framework's id of this tool call;
        a load that delivers instructions records it, the only proof of delivery later
        (:attr:`~skillcore.LoadedSkill.delivery`)."""
        store = as_store(target)
        step = self._begin(store, tool, arguments, hidden, available)
        if isinstance(step, ToolResult):
            return step
        data = calls.read(self.library, step, store.read(), self.binary_resources)
        return self.finish(store, step, data, call_id=call_id)

    async def acall(
        self,
        target: SkillSession | SessionStore,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Async :meth:`call`: file reads are awaited, then the store is read, the transition
        applied and the result written with no ``await`` in between."""
        store = as_store(target)
        step = self._begin(store, tool, arguments, hidden, available)
        if isinstance(step, ToolResult):
            return step
        data = await calls.aread(self.library, step, store.read(), self.binary_resources)
        return self.finish(store, step, data, call_id=call_id)

    def _begin(
        self,
        store: SessionStore,
        tool: str,
        arguments: Any,
        hidden: Collection[str],
        available: Collection[str] | None,
    ) -> Effect | ToolResult:
        """The start of :meth:`call` and :meth:`acall`: the result a later call of the turn
        already settled for this one, else the plan on the store's session."""
        if isinstance(store, CallInTurn):
            if store.refused is not None:
                # The call cannot be placed in its turn (TurnCalls.refusal): it changes nothing.
                text = replies.error(replies.turn_refused_reason(store.refused, tool))
                return ToolResult(store.read(), text, store.refused, tool)
            # The result a later call of the turn already worked out for this one: returned,
            # so both agree.
            settled = store.settled()
            if isinstance(settled, ToolResult):
                return settled
        return self.plan(store.read(), tool, arguments, hidden=hidden, available=available)

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

    # -- configured skills: default_skills and pinned_skills (see skillcore.tools.preload) -------

    @property
    def default_skills(self) -> tuple[str, ...]:
        """Skills loaded when a conversation starts."""
        return self.preload.default_skills

    @property
    def pinned_skills(self) -> tuple[str, ...]:
        """Skills kept loaded on every turn; the model cannot unload them."""
        return self.preload.pinned_skills

    @property
    def preset(self) -> frozenset[str]:
        """Names of the configured skills (default and pinned)."""
        return self.preload.preset

    def ensure(
        self, session: SkillSession, *, fresh: bool = False, load: object = None
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Turn start: the pinned skills and, when ``fresh`` (a new conversation), the default
        skills loaded, then ``load`` (the run's request to load skills now, under the model's
        load rules; :meth:`skillcore.tools.preload.Preload.ensure`)."""
        return self.preload.ensure(session, fresh=fresh, load=load)

    async def aensure(
        self, session: SkillSession, *, fresh: bool = False, load: object = None
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Async :meth:`ensure`."""
        return await self.preload.aensure(session, fresh=fresh, load=load)

    def check_preset(self, catalog: Catalog) -> tuple[Outcome, ...]:
        """Configured skills ``catalog`` cannot provide, reported once
        (:meth:`skillcore.tools.preload.Preload.check`)."""
        return self.preload.check(catalog)

    def plan(
        self,
        session: SkillSession,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
    ) -> Effect | ToolResult:
        """Decide a call against ``session``: a final result (refusal, search) or the effect
        whose data the shell must read before :meth:`finish` (``hidden``, ``available``: see
        :meth:`call`)."""
        return self._plan(session, tool, arguments, hidden=hidden, available=available)

    def replay(
        self,
        session: SkillSession,
        tool: str,
        arguments: Any,
        *,
        available: Collection[str] | None = None,
    ) -> SkillSession:
        """The session ``tool`` leaves behind when it runs on ``session``, decided by the same
        code as :meth:`call` (pinned skills, available tools, read failures), with nothing
        written and nothing reported: a preview applies the turn's earlier calls with it."""
        step = self._plan(session, tool, arguments, available=available, report=False)
        if isinstance(step, (ToolResult, ResourceRequest)):
            return session  # a refusal, a search or a resource read: no state change
        data = calls.read(self.library, step, session, self.binary_resources)
        return self._finish(SessionRef(session), step, data).session

    def _plan(
        self,
        session: SkillSession,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        report: bool = True,
    ) -> Effect | ToolResult:
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
        if not self.check_tools_available:
            # Without the check (which refuses such a load with its own reply), a skill
            # restricting the agent to tools it lacks is still worth a warning.
            if kind is ToolKind.LOAD and report and available is not None:
                _warn_unmatched(self._unmatched_warned, session, args["skill_name"], available)
            available = None
        step = (
            session.begin_load(args["skill_name"], hidden=hidden, available=available)
            if kind is ToolKind.LOAD
            else session.begin_resource(args["skill_name"], args["path"])
        )
        if isinstance(step, Outcome):
            result = ToolResult(session, replies.refusal(step), step.code, tool)
            if report:
                events.tool_outcome(kind.value, result, args["skill_name"], args.get("path"))
            return result
        if isinstance(step, ResourceRequest) and args.get("offset") is not None:
            step = attrs.evolve(step, offset=args["offset"])
        return step

    def finish(
        self, store: SessionStore, effect: Effect, data: Data, *, call_id: str | None = None
    ) -> ToolResult:
        """Apply ``effect`` with the ``data`` read for it to the store's *current* session
        (re-checked, since it may have changed while reading) and write the result. Every
        finished call is reported once as a structured event (:mod:`skillcore.events`).
        ``call_id``: as for :meth:`call`."""
        result = self._finish(store, effect, data, call_id)
        calls.report(effect, result, data)
        return result

    def _finish(
        self, store: SessionStore, effect: Effect, data: Data, call_id: str | None = None
    ) -> ToolResult:
        session = store.read()
        if isinstance(effect, ResourceRequest):
            return calls.resource_result(session, effect, data, self.names, self.binary_resources)
        tool = self.names.unload if isinstance(effect, Unload) else self.names.load
        if isinstance(data, ReadError):
            outcome = session.fail_load(effect.name, data.code, data.message)
            return ToolResult(session, replies.refusal(outcome), outcome.code, tool)
        if isinstance(effect, Unload):
            new, outcome = session.unload(effect.name, pinned=self.pinned_skills)
        else:
            assert isinstance(data, SkillDocument)
            new, outcome = session.finish_load(
                data, redeliver=effect.redeliver, available=effect.available, call_id=call_id
            )
        if not outcome.ok:
            return ToolResult(session, replies.refusal(outcome), outcome.code, tool)
        if outcome.code is OutcomeCode.REDELIVERED and new is session:  # no id to record
            assert isinstance(data, SkillDocument)  # only a load is redelivered
            return ToolResult(session, self.load_reply(session, data), outcome.code, tool, 0, data)
        store.write(new)
        seq = store.seq if isinstance(store, CallInTurn) else 0
        if isinstance(effect, Unload):
            return ToolResult(new, outcome.message, outcome.code, tool, seq)
        assert isinstance(data, SkillDocument)  # a load (asserted above, in its own branch)
        text = self.load_reply(new, data)
        available = effect.available
        missing = new.missing_tools(data.name, available) if available is not None else ()
        if missing:  # RECOMMEND (RESTRICT refused the load): say so in the reply
            text += replies.tools_missing_warning(missing)
        return ToolResult(new, text, outcome.code, tool, seq, data)


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
