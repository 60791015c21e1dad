"""A relevance-aware catalog: fill the prompt's budget by relevance to the user's request.

When the budget cannot show every skill, the precedence-ordered catalog shows the same first
skills to every conversation. :func:`relevant_catalog` shows instead, within the same budget:

1. the loaded skills (always, as in the default catalog);
2. the unloaded skills ranked best for ``query`` (the latest user message), with their
   descriptions;
3. then the rest in priority order (as the default catalog), with descriptions, while
   they fit;
4. then, while they fit, the *names* of the next skills without descriptions;
5. and the exact count of what is left, with the pointer to the search tool.

The result is a pure function of (catalog, loaded skills, tool names, format, budget, query,
ranker): deterministic, and memoised. To keep a stable prompt prefix, pass the same query
until a new user message arrives (recompute per user message, not per model call).

Adapters use it through ``SkillToolkit(catalog_order="relevance")`` (``SkillConfig.catalog_order``),
passing the latest user message's text, joined by :func:`query_text`, as the query.
"""

from __future__ import annotations

import enum
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator

import attrs

from skillcore._escaping import escape, single_line
from skillcore.catalog.ranking import Ranker, index_for
from skillcore.catalog.render import (
    CatalogFormat,
    CatalogKey,
    fill_budget,
    loaded_entries,
    wrap_catalog,
)
from skillcore.catalog.terms import MAX_QUERY_CHARS
from skillcore.names import ToolNames
from skillcore.state import LoadedSkill, SkillSession

#: How many search results may jump ahead of precedence order.
RELEVANT_DEPTH = 50


class CatalogOrder(str, enum.Enum):
    """How unloaded skills fill the catalog's budget.

    ``precedence``: in priority order (lower ``priority`` first, then source precedence),
    the same for every conversation;
    ``relevance``: by relevance to the latest user message (:func:`relevant_catalog`), and in
    precedence order while there is no user message yet.
    """

    PRECEDENCE = "precedence"
    RELEVANCE = "relevance"


def query_text(parts: Iterable[str | None]) -> str | None:
    """The query for :func:`relevant_catalog` from the text parts of one user message:
    joined by newlines, stripped and cut to what the ranking reads (so an unchanged start of
    a long message is an unchanged query); None when there is no text."""
    text = "\n".join(p for p in parts if p).strip()[:MAX_QUERY_CHARS]
    return text or None


@attrs.frozen
class RelevantCatalog:
    """The relevance-ordered catalog: what is shown, what is only named, what is counted."""

    loaded: tuple[str, ...]
    shown: tuple[str, ...]
    #: Skills listed by name only (no description), after the shown ones.
    named: tuple[str, ...]
    omitted: int
    #: Budget units used by unloaded entries and the names tier.
    unloaded_chars: int
    text: str


def relevant_catalog(
    session: SkillSession,
    query: str | None,
    fmt: CatalogFormat = CatalogFormat.MARKDOWN,
    budget: int | None = None,
    counter: Callable[[str], int] = len,
    ranker: Ranker = "bm25",
) -> RelevantCatalog:
    """The catalog for the prompt, filled by relevance to ``query`` (see the module doc).

    ``budget`` and ``counter`` mean what they mean for :func:`skillcore.catalog_view`; with
    no ``query`` the order is priority order, as there.
    """
    budget = session.limits.catalog_budget if budget is None else budget
    return _relevant(
        CatalogKey(session.catalog),
        session.loaded,
        session.names,
        fmt,
        budget,
        counter,
        (query or "").strip()[:MAX_QUERY_CHARS],  # what the ranking reads; bounds the cache
        ranker,
        session.hidden_by_paths,
    )


@functools.lru_cache(maxsize=256)
def _relevant(
    key: CatalogKey,
    loaded: tuple[LoadedSkill, ...],
    names: ToolNames,
    fmt: CatalogFormat,
    budget: int,
    counter: Callable[[str], int],
    query: str,
    ranker: Ranker,
    hidden: frozenset[str] = frozenset(),
) -> RelevantCatalog:
    catalog = key.catalog
    visible = catalog.model_visible
    if not visible:
        return RelevantCatalog((), (), (), 0, 0, "")
    markdown = fmt is CatalogFormat.MARKDOWN
    loaded_by_name = {s.name: s for s in loaded}
    entries = loaded_entries(catalog, loaded_by_name, fmt)
    left = budget - sum(counter(e) for e in entries)
    ranked = (
        [h.skill.name for h in index_for(catalog).search(query, None, RELEVANT_DEPTH, ranker)]
        if query
        else []
    )
    # Ranked first, then priority order; walked only as far as the budget reaches.
    order = dict.fromkeys(ranked)
    candidates = (
        name
        for name in itertools.chain(
            order, (m.name for m in catalog.by_priority if m.name not in order)
        )
        if name not in loaded_by_name and name not in hidden  # hidden: ``paths:`` untouched
    )
    fill = fill_budget(key, candidates, fmt, counter, left)
    shown, texts, used = fill.shown, fill.texts, fill.used
    named = [] if fill.unfit is None else [fill.unfit]
    tier = ""
    if named:
        named, tier = _names_only(candidates, named, names, markdown, left - used, counter)
    used += counter(tier) if tier else 0
    loaded_visible = sum(1 for name in loaded_by_name if name in catalog.model_visible_names)
    unseen = len(hidden - loaded_by_name.keys())
    omitted = len(visible) - loaded_visible - len(shown) - len(named) - unseen
    body = "".join(entries) + "".join(texts) + tier
    text = wrap_catalog(body, omitted, names, fmt)
    return RelevantCatalog(tuple(loaded_by_name), tuple(shown), tuple(named), omitted, used, text)


def _names_only(
    candidates: Iterator[str],
    named: list[str],
    names: ToolNames,
    markdown: bool,
    left: int,
    counter: Callable[[str], int],
) -> tuple[list[str], str]:
    """The names-only tier after the described entries: ``named`` and then as many of
    ``candidates`` as fit in ``left`` (no tier at all when ``named`` alone does not)."""
    tier = _names_tier(named, names, markdown)
    if counter(tier) > left:
        return [], ""
    for name in candidates:
        trial = _names_tier([*named, name], names, markdown)
        if counter(trial) > left:
            break
        named = [*named, name]
        tier = trial
    return named, tier


def _names_tier(skills: list[str], names: ToolNames, markdown: bool) -> str:
    if markdown:
        listed = ", ".join(single_line(n) for n in skills)
        return f"- Also available (names only): {listed}\n"
    return "".join(f"<skill><name>{escape(single_line(n))}</name></skill>\n" for n in skills)
