"""What a user invocation's arguments and the session put into a skill body: ``$ARGUMENTS``,
``$ARGUMENTS[N]``, ``$N``, named arguments (``arguments:`` in the frontmatter), the skill
directory (``${SKILL_DIR}``, Claude's ``${CLAUDE_SKILL_DIR}``), the session id
(``${SKILLCORE_SESSION_ID}``, ``${CLAUDE_SESSION_ID}``) and, for skills that ask for it with
ADK's ``adk_inject_state``, ``{var}`` / ``{var?}`` from session state.

Claude Code's documented rules: ``$ARGUMENTS`` is the argument text as typed; ``$N`` and
``$ARGUMENTS[N]`` are its shell-style words, 0-based (a missing one is empty); named arguments
map to those words in declaration order; a body with no argument placeholder gets the text
appended as ``ARGUMENTS: ...`` when there is any.

Arguments are hostile text. Substitution is one pass over the body (a value is never scanned
again, so an argument spelling ``$1`` or ``${CLAUDE_SKILL_DIR}`` stays that text), bounded
(:data:`~skillcore.limits.MAX_SUBSTITUTED_CHARS`), never raises, and a value cannot open or
close a ``<skill_content>`` wrapper.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.limits import (
    MAX_ARGUMENT_NAME,
    MAX_NAMED_ARGUMENTS,
    MAX_POSITIONAL_ARGUMENTS,
    MAX_SUBSTITUTED_CHARS,
)

#: The session-id placeholders: skillcore's spelling and Claude Code's.
SESSION_ID_NAMES = ("SKILLCORE_SESSION_ID", "CLAUDE_SESSION_ID")
#: The skill-directory placeholders: skillcore's spelling and Claude Code's.
SKILL_DIR_NAMES = ("SKILL_DIR", "CLAUDE_SKILL_DIR")
#: The line a body without argument placeholders gets its arguments on (Claude Code's).
APPENDED_ARGUMENTS = "\n\nARGUMENTS: "

_ARGUMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
#: A wrapper tag an argument could forge (``<skill_content``, ``</skill_content``).
_WRAPPER_TAG = re.compile(r"<(/?)(skill_content)", re.IGNORECASE)
#: A state key ADK's ``{var}`` names (optionally ``app:``/``user:``/``temp:`` scoped).
_STATE_KEY = r"(?:(?:app|user|temp):)?[A-Za-z_][A-Za-z0-9_]*"


@attrs.frozen
class Substituted:
    """The substituted body: ``text``; ``overflow`` when the values would add more than
    :data:`~skillcore.limits.MAX_SUBSTITUTED_CHARS` (``text`` is then the body unchanged)."""

    text: str
    overflow: bool = False


def split_arguments(text: str) -> tuple[str, ...]:
    """Shell-style words of ``text`` (quotes group, and are removed; nothing is expanded);
    whitespace-separated words when the quoting does not parse. At most
    :data:`~skillcore.limits.MAX_POSITIONAL_ARGUMENTS`. Never raises."""
    if not text or text.isspace():
        return ()
    try:
        words = shlex.split(text, posix=True)
    except ValueError:  # unbalanced quotes, a trailing escape
        words = text.split()
    return tuple(words[:MAX_POSITIONAL_ARGUMENTS])


def argument_names(value: Any) -> tuple[str, ...]:
    """The named arguments a skill declares (``arguments:``: a YAML list or a space-separated
    string), in order. Names that are not plain identifiers (letters, digits, ``_``, ``-``)
    or collide with ``ARGUMENTS`` are left out; at most
    :data:`~skillcore.limits.MAX_NAMED_ARGUMENTS`. Never raises."""
    if isinstance(value, str):
        items: list[Any] = value.split(None, MAX_NAMED_ARGUMENTS)
    elif isinstance(value, list | tuple):
        items = list(value[: MAX_NAMED_ARGUMENTS + 1])
    else:
        return ()
    names: list[str] = []
    for item in items:
        if (
            isinstance(item, str)
            and len(item) <= MAX_ARGUMENT_NAME
            and _ARGUMENT_NAME.fullmatch(item)
            and item != "ARGUMENTS"
            and not item.isdigit()
            and item not in names
        ):
            names.append(item)
    return tuple(names[:MAX_NAMED_ARGUMENTS])


def _safe(value: str) -> str:
    # A value may not open or close the wrapper the body is delivered in.
    return _WRAPPER_TAG.sub(r"&lt;\1\2", value)


def _pattern(names: tuple[str, ...], with_state: bool) -> re.Pattern[str]:
    alts = [
        r"\$\{(?P<var>" + "|".join(SESSION_ID_NAMES + SKILL_DIR_NAMES) + r")\}",
        r"\$ARGUMENTS\[(?P<index>[0-9]{1,6})\]",
        r"\$(?P<all>ARGUMENTS)",
        r"\$(?P<pos>[0-9]{1,6})(?![0-9A-Za-z_])",
    ]
    if names:
        # Longest first, so ``$old-name`` is not read as ``$old`` followed by ``-name``.
        ordered = sorted(names, key=len, reverse=True)
        alts.append(r"\$(?P<named>" + "|".join(map(re.escape, ordered)) + r")(?![\w\[-])")
    if with_state:
        alts.append(r"\{(?P<key>" + _STATE_KEY + r")(?P<opt>\?)?\}")
    return re.compile("|".join(alts))


def substitute_arguments(
    body: str,
    arguments: str | None,
    *,
    names: tuple[str, ...] = (),
    skill_dir: str | None = None,
    session_id: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> Substituted:
    """``body`` with its placeholders filled, in one pass.

    ``arguments``: the invocation's argument text (None: not a user invocation, so argument
    placeholders stay as written). ``names``: the skill's named arguments
    (:func:`argument_names`). ``skill_dir``/``session_id``: None leaves their placeholders as
    written. ``state``: session state for ``{var}`` (ADK's ``adk_inject_state``); a key it
    lacks leaves ``{var}`` as written and makes ``{var?}`` empty; only text, numbers and
    booleans are put in. Never raises.
    """
    args = None if arguments is None else arguments.strip()
    words = split_arguments(args) if args else ()
    pattern = _pattern(names if args is not None else (), state is not None)
    added = 0
    used_arguments = False
    overflow = False

    def value(match: re.Match[str]) -> str:
        nonlocal added, used_arguments, overflow
        found = match.group(0)
        text: str | None = None
        if (var := match.group("var")) is not None:
            text = session_id if var in SESSION_ID_NAMES else skill_dir
        elif args is not None and match.group("all") is not None:
            text, used_arguments = args, True
        elif args is not None and (index := match.group("index") or match.group("pos")):
            n = int(index)
            text, used_arguments = (words[n] if n < len(words) else ""), True
        elif args is not None and (named := match.groupdict().get("named")) is not None:
            n = names.index(named)
            text, used_arguments = (words[n] if n < len(words) else ""), True
        elif state is not None and (key := match.groupdict().get("key")) is not None:
            raw = state.get(key)
            if isinstance(raw, str | int | float | bool):
                text = str(raw)
            elif match.group("opt"):
                text = ""
        if text is None:
            return found
        text = _safe(text)
        added += max(len(text) - len(found), 0)
        if added > MAX_SUBSTITUTED_CHARS:
            overflow = True
            return found
        return text

    out = pattern.sub(value, body)
    if not overflow and args and not used_arguments:
        tail = APPENDED_ARGUMENTS + _safe(args)
        if added + len(tail) > MAX_SUBSTITUTED_CHARS:
            overflow = True
        else:
            out = out.rstrip("\n") + tail
    if overflow:
        return Substituted(body, overflow=True)
    return Substituted(out)


__all__ = [
    "APPENDED_ARGUMENTS",
    "SESSION_ID_NAMES",
    "SKILL_DIR_NAMES",
    "Substituted",
    "argument_names",
    "split_arguments",
    "substitute_arguments",
]
