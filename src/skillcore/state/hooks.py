"""Which skill hooks fire for an event: the one rule, pure, over a session's loaded skills.

A hook is active only while its skill is loaded; its metadata comes from the session's
current catalog (never from saved state). ``PreToolUse`` and ``PostToolUse`` hooks fire for
a tool whose name their matcher names; ``SessionStart`` hooks have no matcher. A ``once``
hook fires at most once per conversation: the caller passes the ids of those already fired.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from typing import Literal

import attrs

from skillcore.model import SkillMetadata
from skillcore.policy import (
    ProgramOptions,
    ToolPattern,
    normalize_tool_name,
    program_option,
    wildcard_match,
)
from skillcore.state.transitions import SkillSession

HookEvent = Literal["PreToolUse", "PostToolUse", "SessionStart"]


@attrs.frozen
class Hook:
    """One handler of a skill's hooks, with where it sits (its ``id`` is stable for a
    skill's text: skill, event, group and handler positions)."""

    skill: str
    event: str
    matcher: str
    #: ``"command"`` (run through the script runner) or ``"prompt"`` (text for the model).
    kind: str
    #: The command line or the prompt text.
    text: str
    timeout: int = 30
    once: bool = False
    id: str = ""


@lru_cache(maxsize=1024)
def skill_hooks(metadata: SkillMetadata) -> tuple[Hook, ...]:
    """The hooks of one skill, in the order written (from the normal form the parser gives,
    see :mod:`skillcore.parse.hooks`; anything else there is skipped)."""
    out: list[Hook] = []
    for event, groups in metadata.hooks.items():
        if not isinstance(groups, tuple):
            continue
        for g, group in enumerate(groups):
            matcher = group.get("matcher", "") if hasattr(group, "get") else None
            handlers = group.get("hooks", ()) if hasattr(group, "get") else ()
            if not isinstance(matcher, str) or not isinstance(handlers, tuple):
                continue
            for h, handler in enumerate(handlers):
                kind = handler.get("type") if hasattr(handler, "get") else None
                text = handler.get(kind) if kind in ("command", "prompt") else None
                if not isinstance(text, str):
                    continue
                timeout = handler.get("timeout", 30)
                out.append(
                    Hook(
                        skill=metadata.name,
                        event=str(event),
                        matcher=matcher,
                        kind=str(kind),
                        text=text,
                        timeout=timeout if type(timeout) is int else 30,
                        once=handler.get("once") is True,
                        id=f"{metadata.name}/{event}/{g}/{h}",
                    )
                )
    return tuple(out)


def matcher_names(matcher: str, tool_name: str) -> bool:
    """Whether a hook's ``matcher`` names ``tool_name``: empty or ``*`` names every tool;
    otherwise alternatives split on ``|``, each an exact name or a ``*`` glob (``.*`` is read
    as ``*``). No regular expressions: skill text never reaches a backtracking engine."""
    matcher = matcher.strip()
    if matcher in ("", "*"):
        return True
    name = normalize_tool_name(tool_name)
    for alternative in matcher.split("|"):
        pattern = normalize_tool_name(alternative.strip().replace(".*", "*"))
        if pattern and wildcard_match(pattern, name):
            return True
    return False


def hooks_for(
    session: SkillSession,
    event: HookEvent,
    tool_name: str = "",
    *,
    fired: Collection[str] = (),
) -> tuple[Hook, ...]:
    """The hooks that fire for ``event`` (on ``tool_name`` for the tool events), in load
    order of their skills then as written; ``once`` hooks whose id is in ``fired`` left out."""
    out: list[Hook] = []
    for name in session.loaded_names:
        metadata = session.catalog.get(name)
        if metadata is None or not metadata.hooks:
            continue
        for hook in skill_hooks(metadata):
            if hook.event != event or (hook.once and hook.id in fired):
                continue
            if event != "SessionStart" and not matcher_names(hook.matcher, tool_name):
                continue
            out.append(hook)
    return tuple(out)


#: The tool name a ``!`command` `` placeholder is judged as (Claude Code's shell tool).
SHELL_TOOL = "Bash"


def shell_command_refusal(session: SkillSession, metadata: SkillMetadata, command: str) -> str:
    """Why a ``!`command` `` placeholder of skill ``metadata`` may not run ("" when it may).

    It runs only when the skill's own ``allowed-tools`` has a ``Bash`` entry whose argument
    pattern allows the command, judged as a ``Bash(<command>)`` call is (no shell operators
    unless the pattern is ``*``; programs run through git options refused unless the
    session's policy allows them). A skill without the field runs nothing: under RECOMMEND
    too, since the policy would never block."""
    entries = metadata.allowed_tools or ()
    refuse_options = session.policy.program_options is not ProgramOptions.ALLOW
    for entry in entries:
        pattern = ToolPattern.parse(entry)
        if not pattern.matches(SHELL_TOOL) or not pattern.allows_command(command):
            continue
        if refuse_options and pattern.argument not in (None, "*") and program_option(command):
            continue
        return ""
    return (
        f"the skill's allowed-tools have no {SHELL_TOOL} entry allowing this command "
        f"(e.g. {SHELL_TOOL}({command.split(' ', 1)[0][:40]}:*))"
    )


__all__ = [
    "SHELL_TOOL",
    "Hook",
    "HookEvent",
    "hooks_for",
    "matcher_names",
    "shell_command_refusal",
    "skill_hooks",
]
