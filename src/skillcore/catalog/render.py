"""Catalog rendering with a character budget, and the text of tool replies.

Rendering is pure and memoised: the same session renders the same text, and a model call on an
unchanged session costs a dictionary lookup. Skill text is untrusted: every field is passed
through :mod:`skillcore._escaping` (controls and bidi characters escaped visibly) and, in XML,
escaped for markup; an unloaded skill's entry is built once per catalog.
"""

from __future__ import annotations

import enum
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import attrs

from skillcore._escaping import (
    cut_page,
    escape,
    folded,
    prompt_text,
    single_line,
    skill_content_marker,
)
from skillcore.model import Catalog, Resource, SkillDocument, SkillLocation, SkillMetadata
from skillcore.names import ToolNames
from skillcore.outcome_texts import page_cut
from skillcore.parse import MAX_DESCRIPTION
from skillcore.sources import SKILL_FILE

if TYPE_CHECKING:
    from skillcore.state import LoadedSkill, SkillSession


def _x(text: str) -> str:
    """An untrusted one-line field inside an XML element."""
    return escape(single_line(text))


def entry_description(meta: SkillMetadata) -> str:
    """A skill's description as one catalog or search line: the stored text keeps the author's
    line breaks and length; here whitespace is folded and the text cut at the spec's 1,024
    characters, ending with ``…`` when cut."""
    return folded(meta.description, MAX_DESCRIPTION)


def skill_file_url(location: SkillLocation) -> str:
    """The ``SKILL.md`` of a skill directory (the catalog's ``<location>``, as the
    agentskills client guide defines it)."""
    url = location.url
    sep = "\\" if "\\" in url and "/" not in url else "/"  # a Windows path stays one
    return url.rstrip(sep) + sep + SKILL_FILE


def _tools(allowed: tuple[str, ...], sep: str) -> str:
    return sep.join(single_line(t) for t in allowed)


class CatalogFormat(str, enum.Enum):
    """``markdown``: a bullet list (deepagents style); ``xml``: ``<available_skills>``."""

    MARKDOWN = "markdown"
    XML = "xml"


@attrs.frozen
class CatalogView:
    """The structured catalog behind the text: what is shown and how much was left out."""

    loaded: tuple[str, ...]
    shown: tuple[str, ...]
    omitted: int
    #: Characters used by the unloaded entries that were shown.
    unloaded_chars: int
    text: str


def resource_summary(resources: Sequence[Resource], truncated: bool = False) -> str:
    """``2 scripts, 1 reference`` style summary."""
    return counts_summary(Counter(r.kind.value for r in resources).items(), truncated)


def counts_summary(counts: Iterable[tuple[str, int]], truncated: bool = False) -> str:
    """:func:`resource_summary` from ``(kind, count)`` pairs (what a session keeps)."""
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in sorted(counts)]
    if truncated:
        parts.append("more not listed")
    return ", ".join(parts) if parts else "no resource files"


def _md_entry(meta: SkillMetadata, loaded: LoadedSkill | None) -> str:
    name, description = single_line(meta.name), entry_description(meta)
    if loaded is None:
        return f"- **{name}**: {description}\n"
    line = f"- **{name}** [Loaded]: {description}"
    extras = [f"resources: {counts_summary(loaded.counts, loaded.resources_truncated)}"]
    if meta.allowed_tools is not None:
        extras.append(f"allowed tools: {_tools(meta.allowed_tools, ', ') or 'none'}")
    return f"{line} ({'; '.join(extras)})\n"


def _xml_entry(meta: SkillMetadata, loaded: LoadedSkill | None) -> str:
    parts = [
        "<skill>",
        f"<name>{_x(meta.name)}</name>",
        f"<description>{escape(entry_description(meta))}</description>",
        f"<location>{_x(skill_file_url(meta.location))}</location>",
    ]
    if loaded is not None:
        parts.append("<loaded>true</loaded>")
        parts.append(
            "<resources>"
            + escape(counts_summary(loaded.counts, loaded.resources_truncated))
            + "</resources>"
        )
        if meta.allowed_tools is not None:
            parts.append(
                f"<allowed_tools>{escape(_tools(meta.allowed_tools, ' '))}</allowed_tools>"
            )
    parts.append("</skill>")
    return "\n".join(parts) + "\n"


def catalog_entry(meta: SkillMetadata, loaded: LoadedSkill | None, fmt: CatalogFormat) -> str:
    """One skill's catalog entry in ``fmt`` (``loaded``: its session entry, if loaded)."""
    return (_md_entry if fmt is CatalogFormat.MARKDOWN else _xml_entry)(meta, loaded)


def wrap_catalog(body: str, omitted: int, names: ToolNames, fmt: CatalogFormat) -> str:
    """The catalog text around entries ``body``: the heading that tells the model how to use
    skills and, when ``omitted`` skills are left out, the closing line that counts them."""
    return (_md_wrap if fmt is CatalogFormat.MARKDOWN else _xml_wrap)(body, omitted, names)


def render_catalog(
    session: SkillSession,
    fmt: CatalogFormat | str = CatalogFormat.MARKDOWN,
    budget: int | None = None,
) -> str:
    """The catalog text for the prompt (empty when there are no skills): ``fmt`` a
    :class:`CatalogFormat` or its value, ``budget`` characters (default: the session's
    ``Limits.catalog_budget``). See :func:`catalog_view`."""
    budget = session.limits.catalog_budget if budget is None else budget
    return catalog_view(session, CatalogFormat(fmt), budget).text


def catalog_view(
    session: SkillSession,
    fmt: CatalogFormat = CatalogFormat.MARKDOWN,
    budget: int | None = None,
    counter: Callable[[str], int] = len,
    *,
    show_loaded: bool = True,
) -> CatalogView:
    """Build the budgeted catalog.

    Loaded skills are always listed first (``show_loaded=False``: rendered as if none were
    loaded, the same text whatever the load state; see :class:`skillcore.PromptMode`).
    Unloaded, model-visible skills follow in priority order (:attr:`Catalog.by_priority`:
    lower ``priority`` first, then precedence) while their entries fit in what is left of
    ``budget``; the rest are counted in a closing line that points at the search tool. No
    skills -> empty text.

    ``budget`` is in characters by default; pass a token counter as ``counter`` (any
    ``str -> int`` function, e.g. ``lambda s: len(encoding.encode(s))``) to budget in tokens.
    ``unloaded_chars`` of the result is then in the counter's unit.
    """
    budget = session.limits.catalog_budget if budget is None else budget
    loaded = session.loaded if show_loaded else ()
    hidden = session.hidden_by_paths
    return _view(CatalogKey(session.catalog), loaded, session.names, fmt, budget, counter, hidden)


class CatalogKey:
    """Cache key comparing a catalog by identity: two equal catalogs from different libraries
    would otherwise be compared field by field (milliseconds at 1,000 skills) on every hit."""

    __slots__ = ("catalog",)

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def __hash__(self) -> int:
        return id(self.catalog)  # the cache holds the key, so the id cannot be reused

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CatalogKey) and other.catalog is self.catalog


# A process usually renders one or two catalogs in one or two formats.
@functools.lru_cache(maxsize=8)
def _unloaded_entries(key: CatalogKey, fmt: CatalogFormat) -> dict[str, str]:
    """The entries of a catalog's unloaded skills, filled as they are first rendered: a
    load or unload changes the view's cache key, but not these texts (built and sanitised once
    per catalog and format)."""
    return {}


def unloaded_entry(key: CatalogKey, meta: SkillMetadata, fmt: CatalogFormat) -> str:
    """The catalog entry of ``meta`` as an unloaded skill, built once per catalog and format
    (every catalog view, precedence or relevance ordered, shares it)."""
    built = _unloaded_entries(key, fmt)
    text = built.get(meta.name)
    if text is None:
        text = built[meta.name] = catalog_entry(meta, None, fmt)
    return text


def loaded_entries(
    catalog: Catalog, loaded_by_name: dict[str, LoadedSkill], fmt: CatalogFormat
) -> list[str]:
    """The entries of the loaded skills, in load order (always shown, whatever the budget)."""
    return [
        catalog_entry(meta, loaded_by_name[name], fmt)
        for name in loaded_by_name
        if (meta := catalog.get(name)) is not None
    ]


@attrs.frozen
class BudgetFill:
    """Unloaded entries taken in order while they fit a budget: the names shown, their
    texts, the characters used, and the first name that did not fit (None: all fit)."""

    shown: list[str]
    texts: list[str]
    used: int
    unfit: str | None


def fill_budget(
    key: CatalogKey,
    candidates: Iterable[str],
    fmt: CatalogFormat,
    counter: Callable[[str], int],
    left: int,
) -> BudgetFill:
    """The budget fill every catalog view shares (precedence or relevance ordered): entries
    of ``candidates`` (unloaded skills' names, in the order they should appear) while they fit
    in ``left``. Walks only as far as the budget reaches: the work grows with the entries
    shown, not with the catalog (a load at 100,000 skills re-renders in well under a
    millisecond)."""
    catalog = key.catalog
    shown: list[str] = []
    texts: list[str] = []
    used = 0
    for name in candidates:
        meta = catalog.get(name)
        if meta is None:
            continue
        text = unloaded_entry(key, meta, fmt)
        size = counter(text)
        if used + size > left:
            return BudgetFill(shown, texts, used, name)
        used += size
        shown.append(name)
        texts.append(text)
    return BudgetFill(shown, texts, used, None)


@functools.lru_cache(maxsize=256)
def _view(
    key: CatalogKey,
    loaded: tuple[LoadedSkill, ...],
    names: ToolNames,
    fmt: CatalogFormat,
    budget: int,
    counter: Callable[[str], int] = len,
    hidden: frozenset[str] = frozenset(),
) -> CatalogView:
    catalog = key.catalog
    visible = catalog.model_visible
    if not visible:
        return CatalogView((), (), 0, 0, "")
    loaded_by_name = {s.name: s for s in loaded}
    entries = loaded_entries(catalog, loaded_by_name, fmt)
    remaining = budget - sum(counter(e) for e in entries)
    # ``hidden``: skills with ``paths:`` the work does not touch (neither shown nor counted).
    candidates = (
        m.name for m in catalog.by_priority if m.name not in loaded_by_name and m.name not in hidden
    )
    fill = fill_budget(key, candidates, fmt, counter, remaining)
    loaded_visible = sum(1 for name in loaded_by_name if name in catalog.model_visible_names)
    unseen = len(hidden - loaded_by_name.keys())
    omitted = len(visible) - loaded_visible - len(fill.shown) - unseen
    used, shown = fill.used, fill.shown
    body = "".join(entries) + "".join(fill.texts)
    text = wrap_catalog(body, omitted, names, fmt)
    return CatalogView(tuple(loaded_by_name), tuple(shown), omitted, used, text)


def _omitted_line(omitted: int, names: ToolNames) -> str:
    if not omitted:
        return ""
    noun = "skill is" if omitted == 1 else "skills are"
    search = names.search
    return (
        f"{omitted} more {noun} not shown here; call {search} with keywords or a file "
        "path to find them.\n"
    )


def catalog_intro(names: ToolNames, fmt: CatalogFormat) -> str:
    """The fixed text a catalog in ``fmt`` opens with (what a ``system_prompt`` template's
    ``{skills_list}`` leaves out and its ``{catalog}`` keeps)."""
    if fmt is CatalogFormat.MARKDOWN:
        return (
            "## Skills\n\n"
            "Skills are folders of expert instructions, scripts and reference files. When a task "
            f"matches a skill's description, call {names.load} with its name and follow the "
            "instructions it returns before acting. Load only what the task needs; "
            f"{names.unload} frees a slot when a skill no longer applies.\n\n"
        )
    return (
        "The following skills provide specialized instructions for specific tasks. When a "
        f"task matches a skill's description, call {names.load} with the skill's name to read "
        "its instructions.\n\n"
    )


def _md_wrap(body: str, omitted: int, names: ToolNames) -> str:
    head = catalog_intro(names, CatalogFormat.MARKDOWN)
    tail = _omitted_line(omitted, names)
    return head + body + (f"\n{tail}" if tail else "")


def _xml_wrap(body: str, omitted: int, names: ToolNames) -> str:
    head = catalog_intro(names, CatalogFormat.XML)
    tail = _omitted_line(omitted, names)
    return head + "<available_skills>\n" + body + "</available_skills>\n" + tail


def render_load_reply(
    document: SkillDocument,
    resources_truncated: bool = False,
    resource_tool: str | None = None,
    max_chars: int | None = None,
) -> str:
    """The reply to a successful load: the body wrapped in ``<skill_content>`` so it can be
    recognised later, the skill directory, its resources and dependencies. A body longer than
    ``max_chars`` is cut, with a line saying where the rest is read from."""
    meta = document.metadata
    body = document.body.strip("\n")
    cut = None
    if max_chars is not None and len(body) > max_chars:
        body, rest = cut_page(body, 0, max_chars)
        assert rest is not None
        start = document.body_start
        shown = (start, start + rest)
        total = start + len(document.body)
        cut = page_cut(meta.name, SKILL_FILE, shown, total, shown[1], resource_tool)
    parts = [
        skill_content_marker(meta.name),
        prompt_text(body) + (f"\n\n{cut}" if cut else ""),
        "</skill_content>",
        "",
        f"Skill directory: {single_line(meta.location.url)}",
    ]
    if meta.version:
        parts.append(f"Version: {single_line(meta.version)}")
    if document.resources:
        how = (
            f" (read one with {resource_tool}, using the path relative to the skill directory)"
            if resource_tool
            else " (paths are relative to the skill directory)"
        )
        parts.append(f"Resources{how}:")
        parts.extend(f"- {single_line(r.path)} ({r.kind.value})" for r in document.resources)
        if resources_truncated or document.resources_truncated:
            parts.append("- ... more files not listed")
    else:
        parts.append("Resources: none")
    if meta.dependencies:
        parts.append(
            "Declared dependencies (load them too if the task needs them): "
            + _tools(meta.dependencies, ", ")
        )
    if meta.allowed_tools is not None:
        parts.append(
            "Allowed tools while this skill is loaded: "
            + (_tools(meta.allowed_tools, ", ") or "none")
        )
    return "\n".join(parts)
