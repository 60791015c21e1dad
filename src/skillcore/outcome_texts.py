"""The words of every outcome a session returns, from the code and the facts it carries.

Session transitions return an :class:`~skillcore.Outcome`: a stable code, the skill and the
facts behind it (names, counts, tools), never prose; its ``message`` is worded here, in one
place, from plain values. A foundation, so that every layer that shows an outcome (the
library, the tools, the adapters) reads the same sentences: :mod:`skillcore.tools.replies`
builds each whole reply a model reads from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillcore._escaping import quoted_excerpt, single_line


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


def tool_disallowed_reason(tool: str, skill: str, entry: str) -> str:
    """Why a tool was refused: loaded skill ``skill`` removes it (``entry``: its
    ``disallowed-tools`` entry naming the tool)."""
    return (
        f"Tool {quoted_excerpt(tool)} is not available while skill {single_line(skill)!r} is "
        f"loaded (it removes {quoted_excerpt(entry)}). Do not call it again; do the work with "
        "the other tools, or tell the user it cannot be done."
    )


def approval_reason(tool: str, skills: tuple[str, ...]) -> str:
    """Why a call waits for the user: no loaded skill's ``allowed-tools`` pre-approves it."""
    listed = ", ".join(single_line(s) for s in skills[:10]) or "(none)"
    return (
        f"Tool {quoted_excerpt(tool)} is not pre-approved by the loaded skills ({listed}); "
        "it runs once the user approves it."
    )


def script_approval_reason(skill: str, script: str) -> str:
    """Why a script run did not run under APPROVE: its skill does not pre-approve it and the
    user has not approved it."""
    return (
        f"Running {quoted_excerpt(script)} of skill {single_line(skill)!r} needs the user's "
        "approval, which was not given, so it did not run. Ask the user, or do the work with "
        "the tools the loaded skills allow."
    )


def hook_blocked_reason(skill: str, why: str) -> str:
    """Why a tool call was refused by a hook of a loaded skill (``why``: its output, escaped)."""
    return (
        f"Blocked by a hook of skill {single_line(skill)!r}: {why}\nDo not call the tool "
        "again the same way; follow the hook's reason or continue without the tool."
    )


def page_cut(
    skill: str, path: str, shown: tuple[int, int], total: int, rest: int, tool: str | None
) -> str:
    """The line that ends a cut load or page: which characters were shown (``shown``: from,
    to, of ``total``) and how to read on from the file offset ``rest``."""
    where = f"characters {shown[0]:,} to {shown[1]:,} of {total:,}"
    how = (
        f"call {tool} with skill_name {quoted_excerpt(skill)}, path {quoted_excerpt(path)} "
        f"and offset {rest}"
        if tool
        else f"read {quoted_excerpt(path)} in the skill directory from character {rest}"
    )
    return (
        f"[Cut here: {where} shown. The text goes on: to read the next part, {how}. Read on "
        "only while the task needs it.]"
    )


def offset_past_end(path: str, offset: int, total: int) -> str:
    """Why a read from ``offset`` gave nothing: the file is shorter."""
    return (
        f"offset {offset} is past the end of {quoted_excerpt(path)} ({total:,} characters); "
        "there is nothing more to read"
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


# -- outcomes --------------------------------------------------------------------------------
# Each text takes the outcome's skill name and its facts (see :func:`outcome_text`).

#: Text ids of outcomes whose code alone does not say which text (see :data:`OUTCOME_TEXTS`).
NOT_LOADED_FOR_RESOURCE = "NOT_LOADED_FOR_RESOURCE"
LOAD_FAILED = "LOAD_FAILED"
NOT_LOADED_FOR_SCRIPT = "NOT_LOADED_FOR_SCRIPT"
SCRIPT_BLOCKED = "SCRIPT_BLOCKED"

_Facts = Mapping[str, Any]


def _skill_not_found(name: str, facts: _Facts) -> str:
    close = facts["close"]
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    return (
        f"No skill named {quoted_excerpt(name)}.{hint} Call {facts['search_tool']} with "
        "keywords to find available skills."
    )


def _disabled(name: str, facts: _Facts) -> str:
    return f"Skill {name!r} can only be invoked by the user, not used by the model."


#: SKILL_NOT_FOUND, for a user invocation (``/name``): worded for the user, naming nothing.
USER_SKILL_NOT_FOUND = "USER_SKILL_NOT_FOUND"


def _user_skill_not_found(name: str, facts: _Facts) -> str:
    return f"No skill named {quoted_excerpt(name)} can be invoked here."


def _not_user_invocable(name: str, facts: _Facts) -> str:
    return (
        f"Skill {quoted_excerpt(name)} cannot be invoked by the user: the assistant uses it "
        "when a request needs it. Describe the task instead."
    )


def _arguments_too_long(name: str, facts: _Facts) -> str:
    return (
        f"The arguments of skill {quoted_excerpt(name)} are too long "
        f"({facts['length']:,} characters; at most {facts['limit']:,}). Nothing was loaded; "
        "shorten them and invoke it again."
    )


def _already_loaded(name: str, facts: _Facts) -> str:
    return (
        f"Skill {name!r} is already loaded; its instructions are earlier in this "
        "conversation. Follow them; there is no need to load it again."
    )


def _load_limit_reached(name: str, facts: _Facts) -> str:
    loaded = facts["loaded"]
    return (
        f"Cannot load {name!r}: {len(loaded)} of {facts['max_loaded']} skills "
        f"are already loaded ({', '.join(loaded)}). Call "
        f"{facts['unload_tool']} for a skill you no longer need to free a slot, then try "
        "again."
    )


def _tool_not_available(name: str, facts: _Facts) -> str:
    return tools_not_available_reason(name, facts["missing"])


def _paths_not_touched(name: str, facts: _Facts) -> str:
    return (
        f"Skill {name!r} is offered only while the work touches files it is for; it touches "
        "none of them now. Continue without it."
    )


def _loaded(name: str, facts: _Facts) -> str:
    return f"Loaded skill {name!r}."


def _redelivered(name: str, facts: _Facts) -> str:
    return f"Skill {name!r} was loaded earlier; its instructions are sent again."


def _pinned(name: str, facts: _Facts) -> str:
    return (
        f"Skill {name!r} is pinned: it stays loaded for the whole conversation and "
        "cannot be unloaded. Keep following its instructions."
    )


def _not_loaded(name: str, facts: _Facts) -> str:
    loaded = ", ".join(facts["loaded"]) or "none"
    return f"Skill {name!r} is not loaded, so there is nothing to unload. Loaded skills: {loaded}."


def _not_loaded_for_resource(name: str, facts: _Facts) -> str:
    return (
        f"Skill {name!r} is not loaded. Call {facts['load_tool']} for it first; its "
        "reply lists the files you can read."
    )


def _unloaded(name: str, facts: _Facts) -> str:
    return (
        f"Unloaded skill {name!r}; its instructions no longer apply. "
        f"{facts['slots_free']} of {facts['max_loaded']} slots are free."
        + tools_locked_again(facts["locked"])
    )


def _path_rejected(name: str, facts: _Facts) -> str:
    return (
        f"Cannot read {quoted_excerpt(facts['path'])} of skill {name!r}: {facts['problem']}. "
        "Do not retry this path; give one relative to the skill directory, as listed when "
        "the skill was loaded."
    )


def _not_loaded_for_script(name: str, facts: _Facts) -> str:
    return (
        f"Skill {name!r} is not loaded. Call {facts['load_tool']} for it first; its "
        "reply lists the scripts you can run."
    )


def _script_untrusted(name: str, facts: _Facts) -> str:
    return (
        f"Scripts of skill {name!r} cannot run: its source ({facts['source']}) is not "
        "trusted to run code. Do not retry; follow the skill's instructions without its "
        "scripts, or tell the user."
    )


def _script_blocked(name: str, facts: _Facts) -> str:
    return str(facts["reason"])


def _load_failed(name: str, facts: _Facts) -> str:
    detail = facts["detail"]
    if detail is None:
        detail = "its document was not read"
    return f"Could not load skill {name!r}: {detail}"


#: The text of each outcome, by its text id: the code's value, or one of the ids below for a
#: code with more than one text (see :attr:`skillcore.Outcome.text_id`).
OUTCOME_TEXTS: dict[str, Callable[[str, _Facts], str]] = {
    "SKILL_NOT_FOUND": _skill_not_found,
    "DISABLED": _disabled,
    "ALREADY_LOADED": _already_loaded,
    "LOAD_LIMIT_REACHED": _load_limit_reached,
    "TOOL_NOT_AVAILABLE": _tool_not_available,
    "PATHS_NOT_TOUCHED": _paths_not_touched,
    "LOADED": _loaded,
    "REDELIVERED": _redelivered,
    "PINNED": _pinned,
    "NOT_LOADED": _not_loaded,
    "UNLOADED": _unloaded,
    "PATH_REJECTED": _path_rejected,
    "NOT_USER_INVOCABLE": _not_user_invocable,
    "ARGUMENTS_TOO_LONG": _arguments_too_long,
    #: SKILL_NOT_FOUND, for a user invocation.
    USER_SKILL_NOT_FOUND: _user_skill_not_found,
    #: NOT_LOADED, for a resource of a skill that is not loaded.
    NOT_LOADED_FOR_RESOURCE: _not_loaded_for_resource,
    #: NOT_LOADED, for a script of a skill that is not loaded.
    NOT_LOADED_FOR_SCRIPT: _not_loaded_for_script,
    "SCRIPT_UNTRUSTED": _script_untrusted,
    #: TOOL_BLOCKED or TOOL_LOCKED, for a script run the allowed-tools policy refuses.
    SCRIPT_BLOCKED: _script_blocked,
    #: Any code: a load whose document could not be read (``detail``: why; None: not read).
    LOAD_FAILED: _load_failed,
}


def outcome_text(text_id: str, skill: str, facts: _Facts) -> str:
    """The message of an outcome: its text (:data:`OUTCOME_TEXTS`) over its facts."""
    return OUTCOME_TEXTS[text_id](skill, facts)
