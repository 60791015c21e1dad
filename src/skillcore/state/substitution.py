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


class _Filler:
    """The replacement of each placeholder match of one substitution (``re.sub``'s
    callback), counting what the values add."""

    def __init__(
        self,
        args: str | None,
        names: tuple[str, ...],
        values: Mapping[str, str | None],
        state: Mapping[str, Any] | None,
    ) -> None:
        self.args, self.names, self.values, self.state = args, names, values, state
        self.words = split_arguments(args) if args else ()
        self.added = 0
        self.used_arguments = self.overflow = False

    def _word(self, n: int) -> str:
        self.used_arguments = True
        return self.words[n] if n < len(self.words) else ""

    def _value(self, match: re.Match[str]) -> str | None:
        found = match.groupdict()
        if found["var"] is not None:
            return self.values[found["var"]]
        if self.args is not None and found["all"] is not None:
            self.used_arguments = True
            return self.args
        if self.args is not None and (index := found["index"] or found["pos"]):
            return self._word(int(index))
        if self.args is not None and found.get("named") is not None:
            return self._word(self.names.index(found["named"]))
        if self.state is not None and found.get("key") is not None:
            raw = self.state.get(found["key"])
            if isinstance(raw, str | int | float | bool):
                return str(raw)
            return "" if found["opt"] else None
        return None

    def __call__(self, match: re.Match[str]) -> str:
        text = self._value(match)
        if text is None:
            return match.group(0)
        text = _safe(text)
        self.added += max(len(text) - len(match.group(0)), 0)
        if self.added > MAX_SUBSTITUTED_CHARS:
            self.overflow = True
            return match.group(0)
        return text


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
    values = dict.fromkeys(SESSION_ID_NAMES, session_id) | dict.fromkeys(SKILL_DIR_NAMES, skill_dir)
    fill = _Filler(args, names if args is not None else (), values, state)
    out = _pattern(fill.names, state is not None).sub(fill, body)
    if not fill.overflow and args and not fill.used_arguments:
        tail = APPENDED_ARGUMENTS + _safe(args)
        if fill.added + len(tail) > MAX_SUBSTITUTED_CHARS:
            fill.overflow = True
        else:
            out = out.rstrip("\n") + tail
    return Substituted(body, overflow=True) if fill.overflow else Substituted(out)


__all__ = [
    "APPENDED_ARGUMENTS",
    "SESSION_ID_NAMES",
    "SKILL_DIR_NAMES",
    "Substituted",
    "argument_names",
    "split_arguments",
    "substitute_arguments",
]
