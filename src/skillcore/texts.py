"""Sentences a model reads that the session's own decisions need (refusal reasons, the end of
an unload reply), from plain values. A foundation, so the session takes its wording from here;
:mod:`skillcore.tools.replies` builds every whole reply and uses the same sentences.
"""

from __future__ import annotations

from skillcore._text import quoted_excerpt, single_line


def tool_locked_reason(tool: str, unlockers: tuple[str, ...], load_tool: str) -> str:
    """Why a skill-gated tool was refused: no loaded skill unlocks it (``unlockers``: the
    catalog's skills that would)."""
    shown = quoted_excerpt(tool)
    if not unlockers:
        return (
            f"Tool {shown} is not available: no skill in the catalog unlocks it. Do not call "
            "it again; continue without it."
        )
    listed = ", ".join(single_line(s) for s in unlockers[:10])
    more = f" (and {len(unlockers) - 10} more)" if len(unlockers) > 10 else ""
    return (
        f"Tool {shown} is available only while a skill that uses it is loaded: {listed}{more}. "
        f"Call {load_tool} for one of them and follow its instructions, then call the tool "
        "again."
    )


def tools_locked_again(tools: tuple[str, ...]) -> str:
    """The sentence an unload reply ends with when skill-gated tools it unlocked are locked
    again (no other loaded skill unlocks them); empty for none."""
    if not tools:
        return ""
    return f" Tools it unlocked are locked again: {', '.join(tools)}."


def tools_not_available_reason(skill: str, missing: tuple[str, ...]) -> str:
    """Why a skill was not loaded under RESTRICT: its allowed-tools name tools this agent
    does not have, so loading it would block the work it describes."""
    return (
        f"Cannot load {skill!r}: it needs tools this agent does not have "
        f"({', '.join(single_line(m) for m in missing)}), and while it is loaded only its "
        "allowed tools may run. Continue without it or choose another skill."
    )
