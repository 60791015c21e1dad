"""``SkillToolkit``: the skill tools bound to a library. It plans a skill tool call against a
session, reads what it needs and finishes it; it makes what the model sees of the tools (the
catalog text with the user's template around it, the tool specs, the reply of a load, the
search reply and the per-request suggestion note); and it decides plain (non-skill) tool calls
as every adapter does (the allowed-tools decision, in the turn's call order).

Schemas and argument rules live in :mod:`skillcore.tools.specs`, every rule about sessions in
:mod:`skillcore.state` (the allowed-tools rule is
:meth:`~skillcore.SkillSession.check_tool`), reply texts in :mod:`skillcore.tools.replies`,
where the session lives while calls run in :mod:`skillcore.state.stores` and
:mod:`skillcore.state.turn_order`, the steps of a call (effect, reads, result, event) in
:mod:`skillcore.tools.calls`. Adapters only translate framework objects.
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from skillcore import events
from skillcore._escaping import single_line
from skillcore._recent import Recent
from skillcore.catalog import (
    COMPACT_RESULTS,
    RANKERS,
    RERANK_DEPTH,
    CatalogFormat,
    CatalogOrder,
    Encoding,
    PromptMode,
    PromptTemplate,
    Ranker,
    Reranker,
    SearchStyle,
    Selection,
    catalog_intro,
    catalog_view,
    index_for,
    query_text,
    relevant_catalog,
    render_load_reply,
    rerank,
    resolve_prompt_mode,
    sharing_query_vectors,
    to_template,
    warm_up,
    with_variants,
)
from skillcore.codes import DecisionCode, OutcomeCode
from skillcore.diagnostics import Severity
from skillcore.library import SkillLibrary
from skillcore.memo import per_catalog
from skillcore.model import Catalog, SkillDocument
from skillcore.names import ToolNames
from skillcore.policy import Arguments, PolicyMode, ToolDecision, ToolPolicy, normalize_tool_name
from skillcore.runner import Isolation, RunLimits, ScriptRunner
from skillcore.sources import ReadError
from skillcore.state import (
    CallInTurn,
    Outcome,
    ResourceRequest,
    ScriptRequestPlan,
    SessionRef,
    SessionStore,
    SkillSession,
    as_store,
    injects_state,
    removes_tools,
    substitute_arguments,
)
from skillcore.state.subagents import fork_agent
from skillcore.tools import calls, forks, replies, scripts
from skillcore.tools.calls import Data, Effect, ToolResult, Unload
from skillcore.tools.hooks import SkillHooks
from skillcore.tools.preload import Preload
from skillcore.tools.preprocess import apreprocess, preprocess

if TYPE_CHECKING:
    from skillcore.tools.invoke import InvocationResult
from skillcore.tools.specs import (
    DEFAULT_ENUM_LIMIT,
    ArgumentError,
    ToolKind,
    ToolSpec,
    build_specs,
    parse_arguments,
)

#: Results one call of the search tool returns.
SEARCH_LIMIT = 10
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


#: Refusals of a script run that an earlier call of its turn may lift.
_TURN_DEPENDENT = frozenset(
    {OutcomeCode.NOT_LOADED, OutcomeCode.TOOL_BLOCKED, OutcomeCode.TOOL_LOCKED}
)


def _check_options(
    ranker: object, suggestions: object, template: PromptTemplate | None, resource_tool: bool
) -> None:
    """Raise ``ValueError`` for toolkit options that cannot work together or at all."""
    if ranker not in RANKERS:
        raise ValueError(f"unknown ranker {ranker!r}; use 'auto', 'bm25' or 'hybrid'")
    if not isinstance(suggestions, int) or suggestions < 0:
        raise ValueError(f"suggestions must be a count >= 0, got {suggestions!r}")
    if template is not None and "resource_tool" in template.placeholders and not resource_tool:
        raise ValueError("system_prompt uses {resource_tool}, but include_resource_tool is False")


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
        binary_resources: bool = False,
        prompt_mode: PromptMode | str | None = None,
        system_prompt: PromptTemplate | str | None = None,
        check_tools_available: bool = False,
        ranker: Ranker = "auto",
        suggestions: int = DEFAULT_SUGGESTIONS,
        script_runner: ScriptRunner | None = None,
        shell_preprocessing: bool = False,
        script_isolation: Isolation | int | str = Isolation.LIMITS,
        script_limits: RunLimits | None = None,
        approve_script: scripts.Approve | None = None,
        script_interpreters: Any = None,
        confirm_scripts: bool = False,
        reranker: Reranker | None = None,
        search_style: SearchStyle | str = SearchStyle.FULL,
        encoding: Encoding | None = None,
    ) -> None:
        self.library = library
        #: An encoder added beside WordLlama or replacing it in the semantic ranker (see
        #: :class:`~skillcore.catalog.embedders.Encoding`); None: WordLlama alone.
        self.encoding = encoding
        settings = scripts.settings(
            script_runner, script_isolation, script_limits, approve_script, script_interpreters
        )
        #: How ``run_skill_script`` runs scripts (see :class:`~skillcore.SkillConfig`'s
        #: ``script_*`` options); None without a runner: the tool is not offered at all.
        self.script_settings = settings
        #: Ask the framework's own human-in-the-loop before each script run
        #: (:meth:`needs_approval`).
        self.confirm_scripts = confirm_scripts
        #: Runs code skills bring: their hooks (:attr:`hooks`) and, with
        #: ``shell_preprocessing``, ``!`command` `` in a loaded body; None: none runs.
        self.script_runner, self.shell_preprocessing = script_runner, shell_preprocessing
        self.hooks = SkillHooks(library, script_runner)
        template = to_template(system_prompt)
        _check_options(ranker, suggestions, template, include_resource_tool)
        #: How search ranks (see :func:`skillcore.search_skills`): ``"auto"`` blends BM25 with
        #: the semantic ranker when ``skillcore-agents[semantic]`` is installed, else BM25.
        self.ranker: Ranker = ranker
        #: Reorders the search's best :data:`~skillcore.catalog.RERANK_DEPTH` candidates
        #: (:func:`skillcore.catalog.rerank`); None: the first stage's order.
        self.reranker = reranker
        #: How the search tool lists results (:class:`~skillcore.catalog.SearchStyle`).
        self.search_style = SearchStyle(search_style)
        #: How many skills the per-request note names (:meth:`suggestion_note`); 0: no note.
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
        if settings is not None:
            self._kinds[n.script] = ToolKind.SCRIPT
        self.catalog_format = CatalogFormat(catalog_format)
        self.enum_limit = enum_limit
        #: Measures catalog entries against the budget: ``len`` (characters) or a token count.
        self.budget_counter = budget_counter
        #: How unloaded skills fill the budget
        #: (see :class:`~skillcore.catalog.relevance.CatalogOrder`).
        self.catalog_order = CatalogOrder(catalog_order)
        #: Whether load state shows in the catalog (see :class:`~skillcore.PromptMode`).
        self.prompt_mode = resolve_prompt_mode(prompt_mode, self.catalog_order)
        #: The user's text around the catalog (see :class:`~skillcore.PromptTemplate`).
        self.system_prompt = template
        self._specs_cache: tuple[Catalog, tuple[ToolSpec, ...]] | None = None
        self._generic: tuple[tuple[ToolNames, bool, int], tuple[ToolSpec, ...]] | None = None
        self._names: tuple[tuple[ToolSpec, ...], tuple[str, ...]] | None = None
        # The catalog, ranker and encoding last warmed up: warm_up is asked once per them.
        self._warmed: tuple[Catalog, object, object] | None = None
        self._templated: tuple[Catalog, tuple[str, int, ToolNames], str] | None = None
        self._budget_report = events.BudgetReport()
        if library.discovered:  # load the encoders now, not on the first search
            warm_up(library.catalog, ranker, encoding)

    # -- the tools -------------------------------------------------------------------------

    def is_skill_tool(self, name: str) -> bool:
        """True if ``name`` is one of this toolkit's tools."""
        return name in self._kinds

    def parse_arguments(self, tool: str, arguments: Any) -> dict[str, Any]:
        """Validate raw arguments (a mapping or a JSON string). Raises ArgumentError."""
        return parse_arguments(self._kinds[tool], tool, arguments)

    # -- what the model sees: the catalog text, specs, load, search and suggestion replies ----

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the tools this toolkit exposes (memoised with the specs: adapters ask on
        every model call)."""
        specs = self.generic_specs()
        cached = self._names
        if cached is None or cached[0] is not specs:
            cached = self._names = (specs, tuple(s.name for s in specs))
        return cached[1]

    def instructions(
        self, session: SkillSession, budget: int | None = None, query: str | None = None
    ) -> str:
        """The catalog text for the system prompt; empty when there are no skills.

        ``query`` is the latest user message: with ``catalog_order="relevance"`` the budget is
        filled by relevance to it (:func:`~skillcore.catalog.relevance.relevant_catalog`), and
        without one in priority order. Memoised: the same session and query give the same text, so
        pass the same message until the user writes again to keep the prompt prefix stable.
        With ``prompt_mode="stable"`` the text does not depend on what is loaded; with a
        ``system_prompt`` template it is that template around the catalog.
        """
        budget = session.limits.catalog_budget if budget is None else budget
        fmt, counter = self.catalog_format, self.budget_counter
        self._warm_up(session.catalog)
        if self.catalog_order is CatalogOrder.RELEVANCE and query and query.strip():
            rel = relevant_catalog(session, query, fmt, budget, counter)
            text, shown, omitted = rel.text, len(rel.shown) + len(rel.named), rel.omitted
        else:
            dynamic = self.prompt_mode is PromptMode.DYNAMIC
            view = catalog_view(session, fmt, budget, counter, show_loaded=dynamic)
            text, shown, omitted = view.text, len(view.shown), view.omitted
        self._budget_report(session.catalog, shown, omitted, budget)
        if self.system_prompt is None or not text:
            return text
        # Memoised like the catalog: a model call on an unchanged conversation re-renders nothing.
        key = (text, session.limits.max_loaded, session.names)
        done = self._templated
        if done is not None and done[0] is session.catalog and done[1] == key:
            return done[2]
        out = self.system_prompt.render(self._template_values(session, text))
        self._templated = (session.catalog, key, out)
        return out

    def _warm_up(self, catalog: Catalog) -> None:
        """Start loading the search ranker for ``catalog`` (once per catalog: asked on every
        model call, so the last one asked is remembered here, by identity)."""
        warmed, ranker, encoding = self._warmed, self.ranker, self.encoding
        if (
            warmed is not None
            and warmed[0] is catalog
            and warmed[1] is ranker
            and warmed[2] is encoding
        ):
            return
        warm_up(catalog, ranker, encoding)
        self._warmed = (catalog, ranker, encoding)

    def _template_values(self, session: SkillSession, catalog: str) -> dict[str, str]:
        """What each :data:`~skillcore.catalog.prompt.PLACEHOLDERS` entry becomes for
        ``catalog``."""
        n = self.names
        intro = catalog_intro(session.names, self.catalog_format)  # the names it was built with
        sources = self.library.sources
        failed = sum(1 for d in session.catalog.diagnostics if d.severity is Severity.ERROR)
        return {
            "skills_list": catalog[len(intro) :] if catalog.startswith(intro) else catalog,
            "catalog": catalog,
            "skills_locations": "".join(
                f"- {single_line(s.label)}: {single_line(s.url)}\n"
                if s.label != s.url
                else f"- {single_line(s.url)}\n"
                for s in sources
            ),
            "skills_load_warnings": (
                f"\n{failed} skill file(s) could not be read and are not listed." if failed else ""
            ),
            "load_tool": n.load,
            "unload_tool": n.unload,
            "resource_tool": n.resource if self.include_resource_tool else "",
            "search_tool": n.search,
            "max_loaded": str(session.limits.max_loaded),
        }

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
        frameworks that must register their tools before any discovery. Memoised: adapters
        ask for their names on every model call."""
        key = (self.names, self.include_resource_tool, self.enum_limit)
        cached = self._generic
        if cached is None or cached[0] != key:
            cached = self._generic = (key, self._specs(None))
        return cached[1]

    def _specs(self, loadable: list[str] | None) -> tuple[ToolSpec, ...]:
        return build_specs(
            self.names,
            include_resource_tool=self.include_resource_tool,
            loadable=loadable,
            enum_limit=self.enum_limit,
            include_script_tool=self.script_settings is not None,
        )

    def load_reply(self, session: SkillSession, document: SkillDocument) -> str:
        """The text of a successful load of ``document`` (``<skill_content ...>``, directory,
        resources as the session recorded them, dependencies), e.g. to repeat instructions
        that were compacted out of a conversation."""
        # The listing as the load recorded it: the document's, cut at the session's cap
        # (sessions keep no listing across a restore, so it is read again with the document).
        loaded = session.loaded_skill(document.name)
        listing = document.resources[: session.limits.max_resources]
        truncated = bool(loaded and loaded.resources_truncated) or len(listing) < len(
            document.resources
        )
        shown = attrs.evolve(document, resources=listing)
        text = render_load_reply(
            shown,
            truncated,
            self.names.resource if self.include_resource_tool else None,
            session.limits.max_load_chars,
        )
        return text + replies.tools_unlocked(session.gated_by(document.name))

    def select(
        self, session: SkillSession | Catalog, query: str | None, path: str | None = None
    ) -> Selection:
        """What the search tool finds for ``query``/``path``, with its "no close match"
        verdict (:meth:`skillcore.catalog.ranking.SearchIndex.select`)."""
        catalog = session.catalog if isinstance(session, SkillSession) else session
        index = index_for(catalog, self.encoding)
        shown = self.search_limit
        # Deeper than shown: a reranker sees its candidates, and folding near-duplicate
        # variants into one line leaves room for more distinct skills.
        depth = max(2 * shown, RERANK_DEPTH) if self.reranker is not None else 2 * shown
        with sharing_query_vectors():  # a reranker on the first stage's encoder reuses its vector
            found = index.select(query, path, depth, self.ranker)
            if self.reranker is not None:
                found = rerank(found, query, self.reranker)
        return found

    @property
    def search_limit(self) -> int:
        """Lines one search reply lists (the style decides)."""
        return COMPACT_RESULTS if self.search_style is SearchStyle.COMPACT else SEARCH_LIMIT

    def search_text(self, session: SkillSession, query: str | None, path: str | None) -> str:
        """The reply of the search tool: when no skill is a close match, at most
        :data:`~skillcore.catalog.ranking.ABSTAIN_KEEP` and a reply saying nothing fits well;
        near-duplicate variants share their best member's line."""
        found = self.select(session, query, path)
        hidden = session.hidden_by_paths  # ``paths:`` skills the work does not touch
        hits = [h for h in found.hits if h.skill.name not in hidden] if hidden else found.hits
        index = index_for(session.catalog, self.encoding)
        lines = with_variants(index, hits)[: self.search_limit]
        compact = self.search_style is SearchStyle.COMPACT
        return replies.search(session, lines, query, path, found.abstained, compact)

    def suggested(self, catalog: Catalog, message: str | None) -> tuple[str, ...]:
        """Names of the skills the per-request note suggests for the user ``message``: the
        best :attr:`suggestions` of the search, none when it abstains (no close match).

        A pure function of the catalog and the message text (memoised): what is loaded does
        not change it, so a note attached to an earlier message stays byte-identical and
        the conversation's prompt prefix stays cacheable."""
        text = query_text([message])
        if not self.suggestions or text is None:
            return ()
        kind = "suggestions" if self.encoding is None else f"suggestions+{id(self.encoding)}"
        memo: _Suggestions = per_catalog(catalog, kind, _Suggestions)
        key = (
            hashlib.blake2b(text.encode(), digest_size=16).digest(),
            self.ranker,
            self.suggestions,
        )
        names = memo.get(key)
        if names is None:
            found = index_for(catalog, self.encoding).select(
                text, None, self.suggestions, self.ranker
            )
            names = memo.put(key, tuple(h.skill.name for h in found.close))
        return names

    def suggestion_note(self, session: SkillSession | Catalog, message: str | None) -> str:
        """The "skills that may fit this request" note for one user message ("" for none).

        Adapters place it *after* the stable prefix, with that user message, never in the
        system prompt: the catalog text stays byte-identical for the whole conversation."""
        catalog = session.catalog if isinstance(session, SkillSession) else session
        hidden = session.hidden_by_paths if isinstance(session, SkillSession) else frozenset()
        names = self.suggested(catalog, message)
        metas = [m for n in names if n not in hidden and (m := catalog.get(n)) is not None]
        return replies.suggestions(self.names, metas)

    # -- plain (non-skill) tool calls: the allowed-tools decision and call order -----------

    def check_tool(
        self,
        session: SkillSession,
        tool_name: str,
        arguments: Arguments = None,
    ) -> ToolDecision:
        """The allowed-tools decision for a plain tool call (skill tools always pass); a
        query: nothing is reported (see :meth:`check_call`)."""
        return session.check_tool(tool_name, arguments=arguments, pinned=self.pinned_skills)

    def guards(self, policy: ToolPolicy, tool_name: str) -> bool:
        """True when a plain call of ``tool_name`` must be decided in call order and checked
        (:meth:`check_call`): never for skill tools; under RECOMMEND (which never blocks)
        only for skill-gated tools, or while a skill of the catalog declares
        ``disallowed-tools``."""
        if self.is_skill_tool(tool_name):
            return False
        return (
            policy.mode is not PolicyMode.RECOMMEND
            or (bool(policy.gated_tools) and normalize_tool_name(tool_name) in policy.gated_tools)
            # A skill's disallowed-tools removes tools in every mode (RECOMMEND included).
            or removes_tools(self.library.catalog)
        )

    def check_call(
        self,
        target: SkillSession | SessionStore,
        tool_name: str,
        *,
        can_unload: bool = True,
        arguments: Arguments = None,
    ) -> ToolDecision:
        """The decision for a plain tool call about to run, as every adapter makes it: on the
        store's session, refused when the store waited in vain for the earlier skill calls
        of its turn (``timed_out``, see :class:`~skillcore.TurnCall`) or cannot be placed in
        its turn (``refused``: its ids repeat, or it is past the bound), and reported as a
        ``tool.blocked`` event when blocked. Reply with :func:`replies.blocked`.
        ``can_unload=False``: the caller has no unload tool (the reason says so).
        ``arguments``: the call's arguments (mapping or JSON text), for argument patterns
        such as ``Bash(git:*)``; None when the caller cannot see them (such entries then
        do not allow the call)."""
        store = as_store(target)
        session = store.read()
        turn = store if isinstance(store, CallInTurn) else None
        timed_out = turn is not None and turn.timed_out
        if turn is not None and turn.refused is not None:
            # The call cannot be placed in its turn: never decided as if it came first.
            reason = replies.turn_refused_reason(turn.refused, tool_name)
            decision = ToolDecision(False, DecisionCode(turn.refused.value), reason, tool_name)
        elif timed_out:
            reason = replies.turn_incomplete_reason(tool_name)
            decision = ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, tool_name)
        else:
            decision = session.check_tool(
                tool_name, can_unload=can_unload, arguments=arguments, pinned=self.pinned_skills
            )
            # Earlier calls of the turn worked out here, not seen to run (a resume after a
            # crash): the call must also pass without them, so an inference never lifts
            # a restriction.
            # So must it when its turn runs beside another on the same conversation (a
            # fork): on the latest state too.
            also = turn.also_check(tool_name) if turn is not None and decision.allowed else ()
            for other in also:
                decision = other.check_tool(
                    tool_name, can_unload=can_unload, arguments=arguments, pinned=self.pinned_skills
                )
                if not decision.allowed:
                    break
        if not decision.allowed:
            events.tool_blocked(tool_name, session.loaded_names, timed_out)
        return decision

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
        state: Mapping[str, Any] | None = None,
        approved: bool = False,
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
        (:attr:`~skillcore.runtime.LoadedSkill.delivery`). ``state``: the conversation's
        session state, for ``{var}`` in the body of a skill that sets ``adk_inject_state``
        (ADK's toolset passes it; None leaves ``{var}`` as written). ``approved``: the user
        approved this call through the framework (under APPROVE, a script run its skill does
        not pre-approve runs only then)."""
        store = as_store(target)
        step = self._begin(store, tool, arguments, hidden, available, approved)
        if isinstance(step, ToolResult):
            return step
        if isinstance(step, ScriptRequestPlan):
            return self._run_script(store, step)
        data = calls.read(self.library, step, store.read(), self.binary_resources)
        if self.shell_preprocessing and isinstance(data, SkillDocument):
            data = preprocess(self.library, self.script_runner, store.read(), data)
        return self.finish(store, step, inject_state(data, state), call_id=call_id)

    async def acall(
        self,
        target: SkillSession | SessionStore,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        call_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        approved: bool = False,
    ) -> ToolResult:
        """Async :meth:`call`: file reads are awaited, then the store is read, the transition
        applied and the result written with no ``await`` in between."""
        store = as_store(target)
        step = self._begin(store, tool, arguments, hidden, available, approved)
        if isinstance(step, ToolResult):
            return step
        if isinstance(step, ScriptRequestPlan):
            return await self._arun_script(store, step)
        data = await calls.aread(self.library, step, store.read(), self.binary_resources)
        if self.shell_preprocessing and isinstance(data, SkillDocument):
            data = await apreprocess(self.library, self.script_runner, store.read(), data)
        return self.finish(store, step, inject_state(data, state), call_id=call_id)

    def _begin(
        self,
        store: SessionStore,
        tool: str,
        arguments: Any,
        hidden: Collection[str],
        available: Collection[str] | None,
        approved: bool = False,
    ) -> Effect | ScriptRequestPlan | ToolResult:
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
        return self.plan(
            store.read(), tool, arguments, hidden=hidden, available=available, approved=approved
        )

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

    # -- the user's own invocation: ``/name args`` (see skillcore.tools.invoke) ---------------

    def invoke(
        self,
        target: SkillSession | SessionStore,
        message: object,
        *,
        session_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        call_id: str | None = None,
        available: Collection[str] | None = None,
    ) -> InvocationResult | None:
        """Apply a user message that invokes a skill (``/name args``, ``$name args``) to
        the store's session; None for ordinary text (:func:`skillcore.tools.invoke.invoke`)."""
        from skillcore.tools.invoke import invoke

        return invoke(
            self,
            target,
            message,
            session_id=session_id,
            state=state,
            call_id=call_id,
            available=available,
        )

    async def ainvoke(
        self,
        target: SkillSession | SessionStore,
        message: object,
        *,
        session_id: str | None = None,
        state: Mapping[str, Any] | None = None,
        call_id: str | None = None,
        available: Collection[str] | None = None,
    ) -> InvocationResult | None:
        """Async :meth:`invoke`."""
        from skillcore.tools.invoke import ainvoke

        return await ainvoke(
            self,
            target,
            message,
            session_id=session_id,
            state=state,
            call_id=call_id,
            available=available,
        )

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
        approved: bool = False,
    ) -> Effect | ScriptRequestPlan | ToolResult:
        """Decide a call against ``session``: a final result (refusal, search), the effect
        whose data the shell must read before :meth:`finish` (``hidden``, ``available``,
        ``approved``: see :meth:`call`), or an accepted script run (which :meth:`call`
        carries out)."""
        return self._plan(
            session, tool, arguments, hidden=hidden, available=available, approved=approved
        )

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
        if isinstance(step, (ToolResult, ResourceRequest, ScriptRequestPlan)):
            return session  # a refusal, a search, a read or a script run: no state change
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
        approved: bool = False,
    ) -> Effect | ScriptRequestPlan | ToolResult:
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
        if kind is ToolKind.SCRIPT:
            return self._plan_script(session, tool, args, report, approved)
        if kind is ToolKind.LOAD:
            forked = _forked(session, args["skill_name"], tool)
            if forked is not None:  # never loads here: an adapter with subagents runs it
                return forked
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

    # -- run_skill_script -------------------------------------------------------------

    def needs_approval(self, session: SkillSession, tool: str, arguments: Any) -> bool:
        """Whether an adapter asks its framework's human-in-the-loop (ADK tool
        confirmation, the Agents SDK's ``needs_approval``) before this call: with
        ``confirm_scripts`` (or, under APPROVE, a run its skill does not pre-approve), and
        not for a run refused whatever the turn's other calls do
        (bad arguments or path, untrusted source, unknown skill), which is replied to at
        once. A run refused only by ``session`` as it is now (not loaded, blocked) is asked
        for: an earlier call of the same turn (a load) may still change that, and the
        approval is asked before the turn's calls are applied."""
        if self._kinds.get(tool) is not ToolKind.SCRIPT:
            return False
        approve = session.policy.mode is PolicyMode.APPROVE
        if not self.confirm_scripts and not approve:
            return False
        step = self._plan(session, tool, arguments, report=False)
        if isinstance(step, ToolResult):
            # Under APPROVE (without confirm_scripts) only a run that waits for approval.
            asks = _TURN_DEPENDENT | ({OutcomeCode.SCRIPT_DECLINED} if approve else set())
            return step.code in asks
        return self.confirm_scripts

    def runs_code(self, name: str, session: SkillSession) -> tuple[bool, str]:
        """Whether skill ``name`` may run code (its trust tier, see
        :meth:`SkillLibrary.tier`), and its source's label."""
        meta = session.catalog.get(name)
        if meta is None:
            return False, ""
        try:
            tier = self.library.tier(meta)
        except Exception:
            return False, meta.location.source
        return tier.runs_code, meta.location.source

    def _plan_script(
        self,
        session: SkillSession,
        tool: str,
        args: dict[str, Any],
        report: bool,
        approved: bool = False,
    ) -> ScriptRequestPlan | ToolResult:
        name, script = args["skill_name"], args["script"]
        trusted, label = self.runs_code(name, session)
        step = session.begin_script(
            name,
            script,
            trusted=trusted,
            source=label,
            args=args["args"],
            stdin=args["stdin"],
            tool=tool,
            approved=approved,
        )
        if isinstance(step, Outcome):
            if report:
                events.script_refused(None, name, script, step.code.value, "not-asked")
            return ToolResult(session, replies.refusal(step), step.code, tool)
        return step

    def _run_script(self, store: SessionStore, plan: ScriptRequestPlan) -> ToolResult:
        settings = self.script_settings
        assert settings is not None  # the tool exists only with settings
        session = store.read()
        with events.script_span(plan.name, plan.script) as span:
            ok, label = scripts.sync_approval(settings, plan)
            if not ok:
                return self._script_result(session, *scripts.declined_reply(plan, label, span))
            prepared = scripts.prepare(self.library, session, plan, settings)
            if isinstance(prepared, scripts.Refused):
                events.script_refused(span, plan.name, plan.script, prepared.code.value, label)
                return self._script_result(session, prepared.code, prepared.text)
            try:
                result = settings.runner.run(prepared.request)
            except Exception as exc:
                return self._script_result(
                    session, *scripts.runner_failed_reply(plan, exc, label, span)
                )
            finally:
                scripts.remove(prepared.folder)
            return self._script_result(session, *scripts.result_reply(plan, result, label, span))

    async def _arun_script(self, store: SessionStore, plan: ScriptRequestPlan) -> ToolResult:
        import anyio.to_thread

        settings = self.script_settings
        assert settings is not None  # the tool exists only with settings
        session = store.read()
        with events.script_span(plan.name, plan.script) as span:
            ok, label = await scripts.async_approval(settings, plan)
            if not ok:
                return self._script_result(session, *scripts.declined_reply(plan, label, span))
            prepared = await anyio.to_thread.run_sync(
                scripts.prepare, self.library, session, plan, settings
            )
            if isinstance(prepared, scripts.Refused):
                events.script_refused(span, plan.name, plan.script, prepared.code.value, label)
                return self._script_result(session, prepared.code, prepared.text)
            try:
                result = await settings.runner.arun(prepared.request)
            except Exception as exc:
                return self._script_result(
                    session, *scripts.runner_failed_reply(plan, exc, label, span)
                )
            finally:
                await anyio.to_thread.run_sync(scripts.remove, prepared.folder)
            return self._script_result(session, *scripts.result_reply(plan, result, label, span))

    def _script_result(self, session: SkillSession, code: OutcomeCode, text: str) -> ToolResult:
        return ToolResult(session, text, code, self.names.script)


def inject_state(data: Data, state: Mapping[str, Any] | None) -> Data:
    """A loaded document with ``{var}`` filled from ``state`` when its skill sets
    ``adk_inject_state`` (ADK's own toolset does the same on a load); anything else as is."""
    if state is None or not isinstance(data, SkillDocument) or not injects_state(data.metadata):
        return data
    return attrs.evolve(data, body=substitute_arguments(data.body, None, state=state).text)


#: User messages whose suggestions are remembered per catalog. Every model call asks again
#: for every user message of the conversation (each keeps its own note), so each message is
#: ranked once; the oldest are dropped past this many (keys are 16-byte digests of the
#: message text, so the memo stays small whatever users write).
SUGGESTION_MEMO_ENTRIES = 16_384


def _forked(session: SkillSession, name: str, tool: str) -> ToolResult | None:
    """The reply to a load of a forked skill (``context: fork``) the model may use, which
    never loads into this session (None: not such a skill)."""
    meta = session.catalog.get(name)
    if meta is None or meta.disable_model_invocation or not meta.forked:
        return None
    text = forks.not_started(meta, fork_agent(meta) or "")
    return ToolResult(session, text, OutcomeCode.FORK, tool)


class _Suggestions:
    """One catalog's suggestions by message digest, ranker and count (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: Recent[tuple[bytes, Ranker, int], tuple[str, ...]] = Recent(
            SUGGESTION_MEMO_ENTRIES
        )

    def get(self, key: tuple[bytes, Ranker, int]) -> tuple[str, ...] | None:
        with self._lock:
            return self._names.get(key)

    def put(self, key: tuple[bytes, Ranker, int], names: tuple[str, ...]) -> tuple[str, ...]:
        with self._lock:
            self._names.set(key, names)
        return names


__all__ = [
    "DEFAULT_ENUM_LIMIT",
    "SEARCH_LIMIT",
    "ArgumentError",
    "Effect",
    "SessionStore",
    "SkillToolkit",
    "ToolResult",
    "ToolSpec",
    "Unload",
]
