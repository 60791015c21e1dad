"""What the model sees of the skill tools: the catalog text for the system prompt (with the
user's template around it), the tool specs, the reply of a successful load, the search reply
and the per-request suggestion note. A part of :class:`~skillcore.tools.toolkit.SkillToolkit`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from skillcore import events
from skillcore._recent import Recent
from skillcore._text import single_line
from skillcore.catalog.prompt import PromptMode, PromptTemplate, resolve_prompt_mode, to_template
from skillcore.catalog.ranking import Ranker, Selection, index_for
from skillcore.catalog.relevance import CatalogOrder, query_text, relevant_catalog
from skillcore.catalog.render import (
    CatalogFormat,
    catalog_intro,
    catalog_view,
    render_load_reply,
)
from skillcore.diagnostics import Severity
from skillcore.library import SkillLibrary
from skillcore.memo import per_catalog
from skillcore.model import Catalog, SkillDocument
from skillcore.names import ToolNames
from skillcore.state.session import SkillSession
from skillcore.tools import replies
from skillcore.tools.specs import ToolSpec, build_specs

#: Results one call of the search tool returns.
SEARCH_LIMIT = 10


class ModelView:
    """The texts and specs a toolkit shows the model (see the module docstring)."""

    if TYPE_CHECKING:
        # Set by the toolkit this is part of.
        library: SkillLibrary
        names: ToolNames
        include_resource_tool: bool
        script_settings: Any
        ranker: Ranker
        suggestions: int

    def _init_view(
        self,
        *,
        catalog_format: CatalogFormat | str,
        enum_limit: int,
        budget_counter: Callable[[str], int],
        catalog_order: CatalogOrder | str,
        prompt_mode: PromptMode | str | None,
        system_prompt: PromptTemplate | str | None,
    ) -> None:
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
        self.system_prompt = to_template(system_prompt)
        if (
            self.system_prompt is not None
            and "resource_tool" in self.system_prompt.placeholders
            and not self.include_resource_tool
        ):
            raise ValueError(
                "system_prompt uses {resource_tool}, but include_resource_tool is False"
            )
        self._specs_cache: tuple[Catalog, tuple[ToolSpec, ...]] | None = None
        self._generic: tuple[tuple[ToolNames, bool, int], tuple[ToolSpec, ...]] | None = None
        self._templated: tuple[Catalog, tuple[str, int, ToolNames], str] | None = None
        self._budget_report = events.BudgetReport()

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the tools this toolkit exposes."""
        return tuple(s.name for s in self.generic_specs())

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
        return index_for(catalog).select(query, path, SEARCH_LIMIT, self.ranker)

    def search_text(self, session: SkillSession, query: str | None, path: str | None) -> str:
        """The reply of the search tool: when no skill is a close match, at most
        :data:`~skillcore.catalog.ranking.ABSTAIN_KEEP` and a reply saying nothing fits well."""
        found = self.select(session, query, path)
        return replies.search(session, found.hits, query, path, found.abstained)

    def suggested(self, catalog: Catalog, message: str | None) -> tuple[str, ...]:
        """Names of the skills the per-request note suggests for the user ``message``: the
        best :attr:`suggestions` of the search, none when it abstains (no close match).

        A pure function of the catalog and the message text (memoised): what is loaded does
        not change it, so a note attached to an earlier message stays byte-identical and
        the conversation's prompt prefix stays cacheable."""
        text = query_text([message])
        if not self.suggestions or text is None:
            return ()
        memo: _Suggestions = per_catalog(catalog, "suggestions", _Suggestions)
        key = (
            hashlib.blake2b(text.encode(), digest_size=16).digest(),
            self.ranker,
            self.suggestions,
        )
        names = memo.get(key)
        if names is None:
            found = index_for(catalog).select(text, None, self.suggestions, self.ranker)
            names = memo.put(key, tuple(h.skill.name for h in found.close))
        return names

    def suggestion_note(self, session: SkillSession | Catalog, message: str | None) -> str:
        """The "skills that may fit this request" note for one user message ("" for none).

        Adapters place it *after* the stable prefix, with that user message, never in the
        system prompt: the catalog text stays byte-identical for the whole conversation."""
        catalog = session.catalog if isinstance(session, SkillSession) else session
        names = self.suggested(catalog, message)
        metas = [m for n in names if (m := catalog.get(n)) is not None]
        return replies.suggestions(self.names, metas)


#: User messages whose suggestions are remembered per catalog. Every model call asks again
#: for every user message of the conversation (each keeps its own note), so each message is
#: ranked once; the oldest are dropped past this many (keys are 16-byte digests of the
#: message text, so the memo stays small whatever users write).
SUGGESTION_MEMO_ENTRIES = 16_384


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


__all__ = ["SEARCH_LIMIT", "ModelView"]
