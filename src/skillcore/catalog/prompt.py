"""How the catalog reaches the system prompt: the prompt mode and the ``system_prompt=`` template.

**Prompt mode.** Provider prompt caches (OpenAI, Anthropic, Gemini) reuse the longest prefix a
request shares with an earlier one. ``"stable"`` (the default) keeps the catalog text
byte-identical for the whole conversation: the same entries in the same order whatever is
loaded, with no ``[Loaded]`` marks. What is loaded travels in the tool replies (a load reply
carries the instructions, resources and allowed tools; an unload reply says they no longer
apply), so each request extends the previous one and the cache keeps the whole history.
``"dynamic"`` lists loaded skills first, marked ``[Loaded]`` with their resources and allowed
tools: the system text changes on every load and unload, a few hundred characters in.

**Template.** ``system_prompt=`` wraps the catalog in the user's own text, the deepagents
convention: ``str.format`` style named placeholders (``{skills_list}``, ...; ``{{``/``}}`` for
literal braces), checked when the template is built. Values are substituted once, never
re-parsed, so braces in skill text are never read as placeholders.
"""

from __future__ import annotations

import enum
import string
from collections.abc import Mapping

import attrs

from skillcore.catalog.relevance import CatalogOrder

#: The placeholders a ``system_prompt`` template may use, and what each becomes.
PLACEHOLDERS: Mapping[str, str] = {
    "skills_list": "the catalog entries (and the line counting skills left out of the budget)",
    "catalog": "the whole default catalog text, with its introduction",
    "skills_locations": "one line per skill source: its label and its path or URL",
    "skills_load_warnings": "a line saying how many skill files could not be read, or nothing",
    "load_tool": "the name of the load tool",
    "unload_tool": "the name of the unload tool",
    "resource_tool": "the name of the resource tool (only when that tool is offered)",
    "search_tool": "the name of the search tool",
    "max_loaded": "how many skills may be loaded at once",
}

#: A template must show the catalog through one of these.
CATALOG_PLACEHOLDERS = ("skills_list", "catalog")


class PromptMode(str, enum.Enum):
    """``stable``: the catalog text never changes with load state (prompt-cache friendly);
    ``dynamic``: loaded skills are listed first, marked ``[Loaded]``."""

    STABLE = "stable"
    DYNAMIC = "dynamic"


def resolve_prompt_mode(
    mode: PromptMode | str | None, order: CatalogOrder | str = CatalogOrder.PRECEDENCE
) -> PromptMode:
    """The prompt mode to use: ``mode`` if given, else ``stable`` (``dynamic`` with
    ``catalog_order="relevance"``, which re-ranks the catalog for every user message).

    Raises ValueError for ``stable`` with ``relevance``: that catalog cannot stay fixed.
    """
    order = CatalogOrder(order)
    if mode is None:
        return PromptMode.DYNAMIC if order is CatalogOrder.RELEVANCE else PromptMode.STABLE
    mode = PromptMode(mode)
    if mode is PromptMode.STABLE and order is CatalogOrder.RELEVANCE:
        raise ValueError(
            "prompt_mode='stable' keeps the catalog byte-identical for a whole conversation, "
            "but catalog_order='relevance' re-ranks it for every user message: use "
            "prompt_mode='dynamic' with catalog_order='relevance', or "
            "catalog_order='precedence' with prompt_mode='stable'"
        )
    return mode


def _parse(text: str) -> tuple[tuple[str, str | None], ...]:
    """``(literal, placeholder)`` pieces of a template; ValueError naming what is wrong."""
    if not isinstance(text, str):
        raise TypeError(f"system_prompt must be a str, got {type(text).__name__}")
    pieces: list[tuple[str, str | None]] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:  # a lone "{" or "}"
        raise ValueError(
            f"system_prompt is not a valid template ({exc}); write literal braces as "
            "'{{' and '}}'"
        ) from None
    unknown: list[str] = []
    for literal, field, spec, conversion in parsed:
        if field is None:
            pieces.append((literal, None))
            continue
        if field not in PLACEHOLDERS:
            unknown.append("{" + field + "}" if field else "{} (a positional field)")
        elif spec or conversion:
            raise ValueError(
                f"system_prompt placeholder {{{field}}} takes no conversion or format spec"
            )
        pieces.append((literal, field))
    if unknown:
        raise ValueError(
            f"system_prompt has unknown placeholder(s) {', '.join(unknown)}; known: "
            + ", ".join("{" + p + "}" for p in PLACEHOLDERS)
            + " (write literal braces as '{{' and '}}')"
        )
    return tuple(pieces)


def _checked(instance: PromptTemplate, attribute: attrs.Attribute[str], text: str) -> None:
    if not instance.placeholders & set(CATALOG_PLACEHOLDERS):
        raise ValueError(
            "system_prompt must contain {skills_list} or {catalog}: without it the model "
            "never sees the skills"
        )


@attrs.frozen
class PromptTemplate:
    """A ``system_prompt`` template: the text around the catalog, with named placeholders
    (:data:`PLACEHOLDERS`). Checked when built: an unknown placeholder, a malformed brace or
    a template without ``{skills_list}``/``{catalog}`` raises ValueError."""

    text: str = attrs.field(validator=_checked)
    _pieces: tuple[tuple[str, str | None], ...] = attrs.field(init=False, eq=False, repr=False)

    @_pieces.default
    def _pieces_default(self) -> tuple[tuple[str, str | None], ...]:
        return _parse(self.text)

    @property
    def placeholders(self) -> frozenset[str]:
        """The placeholders this template uses."""
        return frozenset(f for _, f in self._pieces if f is not None)

    def render(self, values: Mapping[str, str]) -> str:
        """The template with every placeholder replaced by ``values[name]``, verbatim: the
        values are never parsed, so braces in them stay as they are."""
        return "".join(lit + (values[f] if f is not None else "") for lit, f in self._pieces)


def to_template(value: PromptTemplate | str | None) -> PromptTemplate | None:
    """``system_prompt=`` as given: a template, its text, or None (the default catalog)."""
    if value is None or isinstance(value, PromptTemplate):
        return value
    return PromptTemplate(value)


__all__ = [
    "CATALOG_PLACEHOLDERS",
    "PLACEHOLDERS",
    "PromptMode",
    "PromptTemplate",
    "resolve_prompt_mode",
    "to_template",
]
