"""Skill-gated tools: which tools a skill's frontmatter unlocks, read once, bounded.

A *gated* tool is registered with an adapter (``tools=``) but offered to the model only while
a loaded skill names it; the rule itself lives in :meth:`skillcore.SkillSession.check_tool`
and :meth:`skillcore.SkillSession.offered_tools`. A skill names its tools in ``metadata``
under either peer's key::

    metadata:
      include_tools: create_ticket list_tickets     # deepagents: space-separated
      adk_additional_tools: [create_ticket]         # Google ADK: a YAML list

Both keys are read and their names joined. The parser keeps ``metadata`` values as text (a
YAML list arrives as its Python text, ``"['create_ticket']"``), so both spellings are
accepted here: a bracketed list, or names separated by commas and/or whitespace. Reading is
bounded and fails closed: a name that is not a plain tool name, or names beyond
:data:`MAX_GATED_TOOLS`, unlock nothing and are reported (:func:`gating_diagnostics`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import attrs

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import Catalog, SkillMetadata
from skillcore.policy.patterns import normalize_tool_name

#: The ``metadata`` keys naming a skill's gated tools: deepagents' and Google ADK's.
GATED_TOOL_KEYS = ("include_tools", "adk_additional_tools")
#: Most gated tools one skill can name (further names unlock nothing).
MAX_GATED_TOOLS = 32
#: Longest gated tool name (a longer one unlocks nothing). OpenAI allows 64 characters.
MAX_GATED_NAME = 128
#: What a gated tool name may look like: a function/MCP tool name, no wildcards or spaces.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:\-]*")
_SEPARATORS = re.compile(r"[\s,]+")
_QUOTES = "'\""


@attrs.frozen
class ToolList:
    """Tool names read from one metadata value (or a skill's gated-tool keys), with the
    problems found (each a sentence; the offending entries unlock nothing)."""

    names: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def parse_tool_list(value: str) -> ToolList:
    """Tool names in ``value``: ``"a b"``, ``"a, b"``, ``"[a, b]"`` or ``"['a', 'b']"`` (how
    a YAML list reaches ``metadata``). Never raises; bounded by :data:`MAX_GATED_TOOLS`."""
    if not isinstance(value, str):
        return ToolList((), (f"expected text or a list of tool names, got {type(value).__name__}",))
    text = value.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    names: list[str] = []
    problems: list[str] = []
    # Each name costs at least two characters with its separator, so this bounds the work.
    for raw in _SEPARATORS.split(text, maxsplit=4 * MAX_GATED_TOOLS):
        item = raw.strip()
        if len(item) >= 2 and item[0] == item[-1] and item[0] in _QUOTES:
            item = item[1:-1]
        if not item:
            continue
        odd = next((c for c in item if not c.isascii()), None)
        if odd is not None:
            # Judged before normalisation: NFC folds KELVIN SIGN into "K", so a look-alike
            # would otherwise unlock the tool whose name it imitates.
            shown = ascii(item[:40])
            problems.append(
                f"{shown} contains U+{ord(odd):04X}, a look-alike or non-ASCII character; "
                "it unlocks nothing"
            )
            continue
        item = normalize_tool_name(item)
        if len(item) > MAX_GATED_NAME or not _NAME.fullmatch(item):
            shown = item[:40] + ("..." if len(item) > 40 else "")
            problems.append(f"{shown!r} is not a tool name; it unlocks nothing")
            continue
        if not _kept(names, item, problems, "tool names"):
            break
    return ToolList(tuple(names), tuple(problems))


def _kept(names: list[str], name: str, problems: list[str], what: str) -> bool:
    """Add ``name`` to ``names`` once, up to :data:`MAX_GATED_TOOLS`; False (with the problem
    noted) when the list is full: the first names are kept."""
    if name in names:
        return True
    if len(names) == MAX_GATED_TOOLS:
        problems.append(f"more than {MAX_GATED_TOOLS} {what}; kept the first ones")
        return False
    names.append(name)
    return True


def gated_registry(tools: Iterable[str], skill_tools: Iterable[str] = ()) -> frozenset[str]:
    """The names of an adapter's gated tools (its ``tools=``), checked once at construction:
    each must be a name a skill can unlock (see :func:`parse_tool_list`) and none may be a
    skill tool (those are never gated). Raises ValueError (caller misuse)."""
    names = [normalize_tool_name(t) for t in tools]
    bad = [n for n in names if len(n) > MAX_GATED_NAME or not _NAME.fullmatch(n)]
    if bad:
        raise ValueError(
            f"gated tool names must be plain tool names (at most {MAX_GATED_NAME} characters "
            f"of letters, digits and _ . : -), got {bad[0][:80]!r}"
        )
    clash = sorted(set(names) & set(skill_tools))
    if clash:
        raise ValueError(f"a skill tool cannot be gated: {', '.join(clash)}")
    return frozenset(names)


@functools.lru_cache(maxsize=4096)
def skill_tool_list(meta: SkillMetadata) -> ToolList:
    """The gated tools ``meta`` names under :data:`GATED_TOOL_KEYS` (both keys joined, in
    order, capped together). Memoised: the policy asks on every tool call."""
    names: list[str] = []
    problems: list[str] = []
    for key in GATED_TOOL_KEYS:
        value = meta.metadata.get(key)
        if value is None:
            continue
        found = parse_tool_list(value)
        problems.extend(f"metadata.{key}: {p}" for p in found.problems)
        for name in found.names:
            if not _kept(names, name, problems, "gated tools"):
                break
    return ToolList(tuple(names), tuple(problems))


def skill_gated_tools(meta: SkillMetadata) -> tuple[str, ...]:
    """Names of the gated tools a skill unlocks while loaded (before intersecting with the
    adapter's registry of gated tools)."""
    return skill_tool_list(meta).names


@functools.lru_cache(maxsize=64)
def unlockers_index(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Tool name -> the model-loadable skills of ``catalog`` naming it, in catalog order
    (memoised per catalog: a refused call names the skills that unlock the tool)."""
    index: dict[str, list[str]] = {}
    for meta in catalog.model_visible:
        for name in skill_gated_tools(meta):
            index.setdefault(name, []).append(meta.name)
    return {k: tuple(v) for k, v in index.items()}


def gating_diagnostics(catalog: Catalog, gated: Iterable[str] = ()) -> tuple[Diagnostic, ...]:
    """Findings about gated tools: unreadable names in a skill's metadata (warnings), and
    registered gated tools that no loadable skill names, so they are never offered."""
    out: list[Diagnostic] = []
    for meta in catalog:
        for problem in skill_tool_list(meta).problems:
            out.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.INVALID_TYPE,
                    problem,
                    meta.location.source,
                    meta.location.url,
                    "metadata",
                )
            )
    index = unlockers_index(catalog)
    for name in sorted({normalize_tool_name(g) for g in gated}):
        if name not in index:
            out.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.MISSING_FIELD,
                    f"gated tool {name!r} is named by no skill (metadata.include_tools or "
                    "metadata.adk_additional_tools), so it is never offered to the model",
                    field="metadata",
                )
            )
    return tuple(out)


__all__ = [
    "GATED_TOOL_KEYS",
    "MAX_GATED_NAME",
    "MAX_GATED_TOOLS",
    "ToolList",
    "gated_registry",
    "gating_diagnostics",
    "parse_tool_list",
    "skill_gated_tools",
    "skill_tool_list",
    "unlockers_index",
]
