"""``allowed-tools`` entries and how they match: the tool part (exact, ``*`` the only
wildcard, matched without regular expressions) and the argument pattern of a shell tool
(``Bash(git:*)``)."""

from __future__ import annotations

import functools
import unicodedata

import attrs

#: Longest tool name that can match an ``allowed-tools`` entry; a longer name matches nothing
#: (so RESTRICT blocks it). Real tool names are far shorter (OpenAI allows 64 characters).
MAX_TOOL_NAME = 256
#: Longest tool part of an ``allowed-tools`` entry; a longer entry matches nothing (fails closed).
MAX_TOOL_PATTERN = 256
#: Longest shell command an argument pattern (``Bash(git:*)``) is checked against; a longer
#: command matches no argument pattern (fails closed).
MAX_COMMAND = 8192
#: Characters that chain, substitute or redirect shell commands. A command containing one
#: matches no argument pattern except ``*``: ``git status; rm -rf /`` starts with ``git`` too.
SHELL_OPERATORS = frozenset(";&|`$()<>\n\r")


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

    def allows_command(self, command: str | tuple[str, ...]) -> bool:
        """Whether the argument pattern allows the shell command ``command`` (shell text, or
        an argv: the words the program receives).

        ``prefix:*`` (Claude Code style) matches a command that is ``prefix`` or starts with
        ``prefix`` and a space, so ``git:*`` means "the first word is ``git``"; any other
        pattern must match the whole command, ``*`` being the only wildcard. A command with a
        shell operator (:data:`SHELL_OPERATORS`) matches no pattern but ``*``.
        """
        pattern = self.argument
        if pattern is None or pattern.strip() == "*":
            return True
        if isinstance(command, tuple):
            return _allows_argv(pattern.strip(), command)
        command = command.strip()
        if len(command) > MAX_COMMAND or any(c in SHELL_OPERATORS for c in command):
            return False
        pattern = pattern.strip()
        if pattern.endswith(":*"):
            prefix = pattern[:-2].strip()
            if not prefix:
                return False
            rest = command[len(prefix) :]
            return command.startswith(prefix) and (not rest or rest[0] in " \t")
        return _wildcard(pattern, command)


def _allows_argv(pattern: str, argv: tuple[str, ...]) -> bool:
    """An argument pattern against an argv, word for word: ``prefix:*`` matches when the
    first words *are* the prefix's words (``["git status"]`` is one word, a program of that
    name, not ``git``); any other pattern matches the argv written as shell text that reads
    back to exactly these words (:func:`shlex.join`). Operators and the length bound apply
    to the words as to shell text."""
    import shlex

    if not argv or sum(len(w) + 1 for w in argv) > MAX_COMMAND:
        return False
    if any(c in SHELL_OPERATORS for word in argv for c in word):
        return False
    if pattern.endswith(":*"):
        try:
            prefix = shlex.split(pattern[:-2])
        except ValueError:
            return False
        return bool(prefix) and list(argv[: len(prefix)]) == prefix
    return _wildcard(pattern, shlex.join(argv))


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
    return _wildcard(pattern, name)


def _wildcard(pattern: str, name: str) -> bool:
    # The linear matcher of wildcard_match; callers bound both lengths.
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
