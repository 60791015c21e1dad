"""The allowed-tools policy: pure matching of tool names against skills' ``allowed-tools``."""

from __future__ import annotations

import enum
import functools
import unicodedata
from collections.abc import Iterable

import attrs

from skillcore._text import single_line
from skillcore.codes import DecisionCode  # defined with OutcomeCode; re-exported here

#: Longest tool name that can match an ``allowed-tools`` entry; a longer name matches nothing
#: (so RESTRICT blocks it). Real tool names are far shorter (OpenAI allows 64 characters).
MAX_TOOL_NAME = 256
#: Longest tool part of an ``allowed-tools`` entry; a longer entry matches nothing (fails closed).
MAX_TOOL_PATTERN = 256


class PolicyMode(str, enum.Enum):
    """RECOMMEND shows ``allowed-tools`` to the model; RESTRICT also blocks other tools."""

    RECOMMEND = "recommend"
    RESTRICT = "restrict"


def _to_frozenset(value: Iterable[str]) -> frozenset[str]:
    return frozenset(normalize_tool_name(v) for v in value)


@attrs.frozen
class ToolPolicy:
    """How tool calls are checked against the loaded skills' ``allowed-tools``."""

    mode: PolicyMode = attrs.field(default=PolicyMode.RECOMMEND, converter=PolicyMode)
    #: Tool names never blocked (the skill tools themselves are always added by the session).
    always_allowed: frozenset[str] = attrs.field(factory=frozenset, converter=_to_frozenset)


def normalize_tool_name(name: str) -> str:
    """Unicode NFC only: case, whitespace and look-alike characters stay significant."""
    return unicodedata.normalize("NFC", name)


@attrs.frozen
class ToolPattern:
    """One ``allowed-tools`` entry: ``Read``, ``mcp__github__*`` or ``Bash(git:*)``."""

    entry: str
    tool: str
    argument: str | None

    @classmethod
    def parse(cls, entry: str) -> ToolPattern:
        """Split an entry into the tool part and the (verbatim) argument pattern."""
        return _parse_pattern(entry)

    @classmethod
    def _parse(cls, entry: str) -> ToolPattern:
        entry = normalize_tool_name(entry.strip())
        paren = entry.find("(")
        if paren > 0 and entry.endswith(")"):
            return cls(entry, entry[:paren].strip(), entry[paren + 1 : -1])
        return cls(entry, entry, None)

    def matches(self, tool_name: str) -> bool:
        """Exact (full) match on the tool part; ``*`` is the only wildcard.

        ``tool_name`` is compared as given: callers normalise it with
        :func:`normalize_tool_name` (as :func:`decide` does).
        """
        return wildcard_match(self.tool, tool_name)


@functools.lru_cache(maxsize=4096)
def _parse_pattern(entry: str) -> ToolPattern:
    # Every tool call under RESTRICT checks every entry of every loaded skill: parse once.
    return ToolPattern._parse(entry)


def wildcard_match(pattern: str, name: str) -> bool:
    """True when ``pattern`` matches the *whole* of ``name``; ``*`` matches any run of
    characters (including none) and every other character matches only itself.

    No regular expressions (a pattern like ``*a*a*a*...b`` made the backtracking engine take
    minutes): the literal segments between stars are found left to right with ``str.find``,
    the first anchored at the start and the last at the end. Taking the leftmost occurrence of
    each middle segment is always safe, so there is no backtracking; the cost is at most
    O(len(pattern) * len(name)), and both are capped (:data:`MAX_TOOL_PATTERN`,
    :data:`MAX_TOOL_NAME`; beyond them nothing matches).
    """
    if len(pattern) > MAX_TOOL_PATTERN or len(name) > MAX_TOOL_NAME:
        return False
    if "*" not in pattern:
        return pattern == name
    first, *middle, last = pattern.split("*")
    end = len(name) - len(last)
    if end < len(first) or not name.startswith(first) or not name.endswith(last):
        return False
    pos = len(first)
    for segment in middle:
        if segment:
            found = name.find(segment, pos, end)
            if found < 0:
                return False
            pos = found + len(segment)
    return True


@attrs.frozen
class ToolDecision:
    """The result of :meth:`SkillSession.check_tool`. ``reason`` is written for the model."""

    allowed: bool
    code: DecisionCode
    reason: str
    tool: str
    matched: str | None = None

    def __bool__(self) -> bool:
        return self.allowed


def decide(
    tool_name: str,
    policy: ToolPolicy,
    loaded: Iterable[tuple[str, tuple[str, ...] | None]],
    skill_tools: frozenset[str] = frozenset(),
    unload_tool: str = "unload_skill",
) -> ToolDecision:
    """Decide one tool call. ``loaded`` is ``(skill name, allowed_tools or None)`` pairs.

    RESTRICT blocks a tool iff it is not always allowed, at least one skill is loaded, every
    loaded skill declares ``allowed-tools``, and the tool matches none of their entries.
    """
    name = normalize_tool_name(tool_name)
    if policy.mode is PolicyMode.RECOMMEND:
        return ToolDecision(True, DecisionCode.RECOMMEND_MODE, "recommend mode never blocks", name)
    if name in policy.always_allowed or name in skill_tools:
        return ToolDecision(True, DecisionCode.ALWAYS_ALLOWED, f"{name!r} is always allowed", name)
    pairs = list(loaded)
    if not pairs:
        return ToolDecision(True, DecisionCode.NO_SKILL_LOADED, "no skill is loaded", name)
    for skill, tools in pairs:
        if tools is None:
            return ToolDecision(
                True,
                DecisionCode.UNRESTRICTED_SKILL_LOADED,
                f"loaded skill {skill!r} does not declare allowed-tools",
                name,
            )
    entries: list[str] = []
    for _skill, tools in pairs:
        for entry in tools or ():
            pattern = ToolPattern.parse(entry)
            if pattern.matches(name):
                return ToolDecision(
                    True, DecisionCode.MATCHED, f"allowed by {pattern.entry!r}", name, pattern.entry
                )
            if pattern.entry not in entries:
                entries.append(pattern.entry)
    skills = ", ".join(single_line(s) for s, _ in pairs)
    allowed = ", ".join(single_line(e) for e in entries) if entries else "(none)"
    extra = sorted(policy.always_allowed | skill_tools)
    always = f" Always allowed: {', '.join(extra)}." if extra else ""
    shown = repr(name)
    if len(name) > MAX_TOOL_NAME:
        shown = (
            f"{name[:32]!r}... ({len(name)} characters; names longer than {MAX_TOOL_NAME} "
            "characters match no allowed-tools entry)"
        )
    reason = (
        f"Tool {shown} is not allowed while these skills are loaded: {skills}. "
        f"Their allowed-tools are: {allowed}.{always} Use one of those tools, or call "
        f"{unload_tool} for a skill you no longer need to lift its restriction."
    )
    return ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, name)
