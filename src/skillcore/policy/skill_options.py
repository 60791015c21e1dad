"""The frontmatter fields that change how an agent runs while a skill is loaded, read once
per skill, bounded: ``model`` and ``effort`` (the model calls), ``disallowed-tools`` (tools
removed) and ``paths`` (globs of the files the skill is for).

The parser keeps these keys among a skill's unknown keys (:attr:`SkillMetadata.extra`);
this module reads them from there, so the policy inputs always come from the current
catalog's metadata. Reading never raises and fails closed where it matters:
``disallowed-tools`` that cannot be read (or has too many entries) removes every tool but
the skill tools; a ``paths`` value that cannot be read matches no path. Globs are matched
without regular expressions, segment by segment (:func:`path_matches`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import attrs

from skillcore.model import SkillMetadata
from skillcore.parse.allowed_tools import read_allowed_tools
from skillcore.policy.aliases import ToolAliases
from skillcore.policy.patterns import MAX_TOOL_NAME, ToolPattern, wildcard_match
from skillcore.policy.rules import names_tool

#: The frontmatter spellings of each field (the first is the documented one).
MODEL_KEYS = ("model",)
EFFORT_KEYS = ("effort",)
DISALLOWED_KEYS = ("disallowed-tools", "disallowed_tools", "disallowedTools")
PATHS_KEYS = ("paths",)
#: The ``model`` value that names no model: the conversation's own model is kept.
INHERIT = "inherit"
#: Longest model name read (a longer one names no model and is reported).
MAX_MODEL_NAME = 200
#: The ``effort`` levels (Claude Code's); another value is ignored and reported.
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
#: Most ``disallowed-tools`` entries read; more remove every tool (fails closed).
MAX_DISALLOWED = 64
#: Most ``paths`` globs of one skill, and the longest glob; beyond them the skill is offered
#: for no path (its ``paths`` cannot be read as written).
MAX_PATH_GLOBS = 32
MAX_PATH_GLOB = 256
#: Most touched paths a host reports at once, the longest one, and most ``/`` segments of
#: one; further paths are ignored and longer ones match nothing.
MAX_TOUCHED_PATHS = 256
MAX_TOUCHED_PATH = 1024
MAX_PATH_SEGMENTS = 64
#: What an unreadable ``disallowed-tools`` becomes: every tool (but the skill tools) removed.
ALL_TOOLS = ("*",)


@attrs.frozen
class SkillOptions:
    """What one skill's ``model``, ``effort``, ``disallowed-tools`` and ``paths`` say, and the
    problems found (each a sentence)."""

    model: str | None = None
    effort: str | None = None
    disallowed_tools: tuple[str, ...] = ()
    #: None: the field is absent (the skill is offered whatever the work touches).
    paths: tuple[str, ...] | None = None
    problems: tuple[str, ...] = ()


def _first(meta: SkillMetadata, keys: tuple[str, ...]) -> object:
    for key in keys:
        if key in meta.extra:
            return meta.extra[key]
    return None


def _model(value: object, problems: list[str]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append("'model' must be a model name; the current model is kept")
        return None
    name = value.strip()
    if len(name) > MAX_MODEL_NAME or not name.isprintable():
        problems.append("'model' is not a readable model name; the current model is kept")
        return None
    return None if name == INHERIT else name


def _effort(value: object, problems: list[str]) -> str | None:
    if value is None:
        return None
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in EFFORT_LEVELS:
        problems.append(f"'effort' must be one of {', '.join(EFFORT_LEVELS)}; it is ignored")
        return None
    return text


def _disallowed(meta: SkillMetadata, problems: list[str]) -> tuple[str, ...]:
    entries: list[str] = []
    for key in DISALLOWED_KEYS:
        if key not in meta.extra:
            continue
        tools, why = read_allowed_tools(meta.extra[key])
        if why is not None or tools is None:
            problems.append(f"'{key}' {why}; every tool but the skill tools is removed")
            return ALL_TOOLS
        entries.extend(t for t in tools if t not in entries)
    if len(entries) > MAX_DISALLOWED:
        problems.append(
            f"'disallowed-tools' has {len(entries)} entries (limit {MAX_DISALLOWED}); every "
            "tool but the skill tools is removed"
        )
        return ALL_TOOLS
    return tuple(entries)


def _paths(value: object, present: bool, problems: list[str]) -> tuple[str, ...] | None:
    if not present:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        problems.append("'paths' must be a glob or a list of globs; the skill matches no path")
        return ()
    globs = [g.strip() for i in items for g in i.split(",") if g.strip()]
    if len(globs) > MAX_PATH_GLOBS or any(len(g) > MAX_PATH_GLOB for g in globs):
        problems.append(
            f"'paths' has more than {MAX_PATH_GLOBS} globs or one longer than "
            f"{MAX_PATH_GLOB} characters; the skill matches no path"
        )
        return ()
    return tuple(_normal_path(g) for g in globs)


@functools.lru_cache(maxsize=4096)
def skill_options(meta: SkillMetadata) -> SkillOptions:
    """The options ``meta`` declares (memoised: the policy asks on every tool call)."""
    problems: list[str] = []
    present = any(k in meta.extra for k in PATHS_KEYS)
    return SkillOptions(
        _model(_first(meta, MODEL_KEYS), problems),
        _effort(_first(meta, EFFORT_KEYS), problems),
        _disallowed(meta, problems),
        _paths(_first(meta, PATHS_KEYS), present, problems),
        tuple(problems),
    )


def disallows(entries: Iterable[str], name: str, aliases: ToolAliases | None) -> str | None:
    """The first ``disallowed-tools`` entry naming tool ``name`` (``name`` normalised), or
    None. An entry names a tool as an allowed-tools entry does (exact, ``*`` glob, or a
    Claude-style name through ``aliases``); an argument pattern (``Bash(rm:*)``) removes the
    whole tool, never only some of its calls, and a name too long to match any entry is
    named by every entry (both fail closed)."""
    for entry in entries:
        pattern = ToolPattern.parse(entry)
        if len(name) > MAX_TOOL_NAME or names_tool(pattern, name, aliases):
            return pattern.entry
    return None


def _normal_path(path: str) -> str:
    # Relative, "/"-separated, without "./" steps: hosts report paths either way.
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def touched_paths(paths: Iterable[str]) -> frozenset[str]:
    """The host's touched paths as the session keeps them: normalised, at most
    :data:`MAX_TOUCHED_PATHS` (further ones are ignored), none longer than
    :data:`MAX_TOUCHED_PATH`. Raises TypeError for a value that is not text (caller
    misuse)."""
    if isinstance(paths, str):
        paths = (paths,)
    out: set[str] = set()
    for path in paths:
        if not isinstance(path, str):
            raise TypeError(f"touched paths must be strings, got {type(path).__name__}")
        if len(out) >= MAX_TOUCHED_PATHS:
            break
        if path and len(path) <= MAX_TOUCHED_PATH:
            out.add(_normal_path(path))
    return frozenset(out)


def path_matches(glob: str, path: str) -> bool:
    """Whether ``glob`` matches the whole of ``path``: ``**`` as a whole segment matches any
    number of segments, ``*`` any run of characters within a segment, everything else only
    itself (no character classes). Each segment is matched by the linear
    :func:`~skillcore.policy.patterns.wildcard_match`; segments are matched by a table of
    at most :data:`MAX_PATH_SEGMENTS` squared cells, so the cost is bounded whatever the
    input."""
    globs, parts = glob.split("/"), path.split("/")
    if len(globs) > MAX_PATH_SEGMENTS or len(parts) > MAX_PATH_SEGMENTS:
        return False
    # reach[j]: the first i globs can match the first j parts.
    reach = [True] + [False] * len(parts)
    for g in globs:
        if g == "**":
            seen = False
            for j in range(len(reach)):
                seen = seen or reach[j]
                reach[j] = seen
            continue
        nxt = [False] * len(reach)
        for j in range(1, len(reach)):
            nxt[j] = reach[j - 1] and wildcard_match(g, parts[j - 1])
        reach = nxt
    return reach[-1]


def paths_match(globs: tuple[str, ...], touched: Iterable[str]) -> bool:
    """Whether any of ``globs`` matches any touched path."""
    return any(path_matches(g, p) for p in touched for g in globs)


__all__ = [
    "ALL_TOOLS",
    "DISALLOWED_KEYS",
    "EFFORT_KEYS",
    "EFFORT_LEVELS",
    "INHERIT",
    "MAX_DISALLOWED",
    "MAX_MODEL_NAME",
    "MAX_PATH_GLOB",
    "MAX_PATH_GLOBS",
    "MAX_PATH_SEGMENTS",
    "MAX_TOUCHED_PATH",
    "MAX_TOUCHED_PATHS",
    "MODEL_KEYS",
    "PATHS_KEYS",
    "SkillOptions",
    "disallows",
    "path_matches",
    "paths_match",
    "skill_options",
    "touched_paths",
]
