"""Stable result codes: what a skill tool call did (:class:`OutcomeCode`) and why a plain tool
call was allowed or blocked (:class:`DecisionCode`). Both are part of the public API."""

from __future__ import annotations

import enum


class OutcomeCode(str, enum.Enum):
    """Stable codes of transition outcomes and tool results."""

    LOADED = "LOADED"
    UNLOADED = "UNLOADED"
    RESOURCE_READ = "RESOURCE_READ"
    SEARCH_RESULTS = "SEARCH_RESULTS"
    SKILL_NOT_FOUND = "SKILL_NOT_FOUND"
    ALREADY_LOADED = "ALREADY_LOADED"
    #: A loaded skill's instructions sent again: the model can no longer see its load reply
    #: (history compacted, not sent, or restored). Only the skill's recorded delivery (the
    #: id of the call answered) changes.
    REDELIVERED = "REDELIVERED"
    LOAD_LIMIT_REACHED = "LOAD_LIMIT_REACHED"
    DISABLED = "DISABLED"
    NOT_LOADED = "NOT_LOADED"
    #: An unload refused: the skill is pinned (``SkillConfig.pinned_skills``) and stays
    #: loaded for the whole conversation.
    PINNED = "PINNED"
    READ_FAILED = "READ_FAILED"
    TOO_LARGE = "TOO_LARGE"
    DECODE_ERROR = "DECODE_ERROR"
    BINARY_RESOURCE = "BINARY_RESOURCE"
    RESOURCE_NOT_FOUND = "RESOURCE_NOT_FOUND"
    PATH_REJECTED = "PATH_REJECTED"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    #: A plain tool call refused by the allowed-tools policy (the one code every adapter uses).
    TOOL_BLOCKED = "TOOL_BLOCKED"
    #: A skill-gated tool called while no loaded skill unlocks it (every adapter).
    TOOL_LOCKED = "TOOL_LOCKED"
    #: A plain tool call the policy allowed and a ``PreToolUse`` hook of a loaded skill
    #: blocked (exit code 2).
    HOOK_BLOCKED = "HOOK_BLOCKED"
    #: A skill whose allowed-tools name tools the agent does not have, refused under RESTRICT.
    TOOL_NOT_AVAILABLE = "TOOL_NOT_AVAILABLE"
    #: A tool a loaded skill removes (its ``disallowed-tools``), refused in every policy mode.
    TOOL_DISALLOWED = "TOOL_DISALLOWED"
    #: A call the user did not approve (or has not yet approved) under the APPROVE policy.
    TOOL_DECLINED = "TOOL_DECLINED"
    #: A skill with ``paths:`` the model asked for while the work touches none of its paths.
    PATHS_NOT_TOUCHED = "PATHS_NOT_TOUCHED"
    #: A plain tool's own handler raised (the model gets an error reply for that call).
    TOOL_FAILED = "TOOL_FAILED"
    #: A call of a model turn whose call ids repeat and that calls a skill tool: the order of
    #: its calls cannot be known from their ids, so every call of it is refused.
    TURN_CALL_IDS_REPEAT = "TURN_CALL_IDS_REPEAT"
    #: A call listed past the per-turn bound (``MAX_TURN_CALLS``): refused, never decided
    #: without the calls before it.
    TURN_TOO_LONG = "TURN_TOO_LONG"
    #: A skill script ran (whatever its exit code, which the reply states).
    SCRIPT_RAN = "SCRIPT_RAN"
    #: A script of a skill whose source is not trusted to run code (see
    #: ``SkillSource.trusted``): refused before anything is read or run.
    SCRIPT_UNTRUSTED = "SCRIPT_UNTRUSTED"
    #: A listed file skillcore has no interpreter for (its extension or shebang names none).
    SCRIPT_NOT_RUNNABLE = "SCRIPT_NOT_RUNNABLE"
    #: The approval hook (or the user, through the framework's human-in-the-loop) said no.
    SCRIPT_DECLINED = "SCRIPT_DECLINED"
    #: The runner cannot give the isolation the configuration requires; nothing ran.
    ISOLATION_UNAVAILABLE = "ISOLATION_UNAVAILABLE"
    #: A user invocation (``/name``) of a skill with ``user-invocable: false``: the model's
    #: alone.
    NOT_USER_INVOCABLE = "NOT_USER_INVOCABLE"
    #: A user invocation whose argument text, or what it expands the body to, is over its
    #: bound (``MAX_INVOCATION_ARGUMENTS``, ``MAX_SUBSTITUTED_CHARS``): refused whole.
    ARGUMENTS_TOO_LONG = "ARGUMENTS_TOO_LONG"
    #: A load of a forked skill (``context: fork``) where no subagent runs it: nothing is
    #: loaded; the reply says so, and a custom loop may start the subagent itself.
    FORK = "FORK"
    #: A forked skill ran in its subagent; the reply is the subagent's final answer.
    FORKED = "FORKED"
    #: A forked skill names a subagent (``agent:``) the agent does not have.
    SUBAGENT_UNKNOWN = "SUBAGENT_UNKNOWN"


class DecisionCode(str, enum.Enum):
    """Why a plain tool call was allowed or blocked by the allowed-tools policy."""

    RECOMMEND_MODE = "RECOMMEND_MODE"
    ALWAYS_ALLOWED = "ALWAYS_ALLOWED"
    NO_SKILL_LOADED = "NO_SKILL_LOADED"
    #: Skills are loaded, but none declares allowed-tools: nothing restricts.
    NO_RESTRICTING_SKILL = "NO_RESTRICTING_SKILL"
    UNRESTRICTED_SKILL_LOADED = "UNRESTRICTED_SKILL_LOADED"
    MATCHED = "MATCHED"
    #: Blocked; the same value as the outcome code every adapter replies with.
    TOOL_BLOCKED = OutcomeCode.TOOL_BLOCKED.value
    #: Blocked: a skill-gated tool no loaded skill unlocks.
    TOOL_LOCKED = OutcomeCode.TOOL_LOCKED.value
    #: Blocked: a loaded skill's ``disallowed-tools`` removes the tool (every mode).
    TOOL_DISALLOWED = OutcomeCode.TOOL_DISALLOWED.value
    #: Allowed, after the user approves it: under APPROVE, a call no loaded skill's
    #: ``allowed-tools`` pre-approves (the call RESTRICT would block).
    APPROVAL_REQUIRED = "APPROVAL_REQUIRED"
    #: Blocked: a ``PreToolUse`` hook of a loaded skill (after the policy allowed the call).
    HOOK_BLOCKED = OutcomeCode.HOOK_BLOCKED.value
    #: Blocked: the turn's call ids repeat (see ``OutcomeCode.TURN_CALL_IDS_REPEAT``).
    TURN_CALL_IDS_REPEAT = OutcomeCode.TURN_CALL_IDS_REPEAT.value
    #: Blocked: listed past the per-turn bound (see ``OutcomeCode.TURN_TOO_LONG``).
    TURN_TOO_LONG = OutcomeCode.TURN_TOO_LONG.value


#: Codes of calls that did what was asked.
OK_CODES = frozenset(
    {
        OutcomeCode.LOADED,
        OutcomeCode.REDELIVERED,
        OutcomeCode.UNLOADED,
        OutcomeCode.RESOURCE_READ,
        OutcomeCode.SEARCH_RESULTS,
        OutcomeCode.SCRIPT_RAN,
        OutcomeCode.FORKED,
    }
)

#: Codes of calls that changed the session (adapters persist state only then).
CHANGED_CODES = frozenset({OutcomeCode.LOADED, OutcomeCode.REDELIVERED, OutcomeCode.UNLOADED})

#: Codes after which retrying the same call cannot succeed.
TERMINAL_CODES = frozenset(
    {
        OutcomeCode.SKILL_NOT_FOUND,
        OutcomeCode.DISABLED,
        OutcomeCode.PINNED,
        OutcomeCode.RESOURCE_NOT_FOUND,
        OutcomeCode.PATH_REJECTED,
        OutcomeCode.BINARY_RESOURCE,
        OutcomeCode.TOO_LARGE,
        OutcomeCode.DECODE_ERROR,
        OutcomeCode.UNKNOWN_TOOL,
        OutcomeCode.TOOL_NOT_AVAILABLE,
        OutcomeCode.SCRIPT_UNTRUSTED,
        OutcomeCode.SCRIPT_NOT_RUNNABLE,
        OutcomeCode.SCRIPT_DECLINED,
        OutcomeCode.ISOLATION_UNAVAILABLE,
        OutcomeCode.FORK,
        OutcomeCode.SUBAGENT_UNKNOWN,
    }
)


class Coded:
    """What a value with an :class:`OutcomeCode` ``code`` says about the call (a mixin of
    :class:`~skillcore.Outcome` and :class:`~skillcore.ToolResult`)."""

    __slots__ = ()
    code: OutcomeCode

    @property
    def ok(self) -> bool:
        """True when the call did what was asked (False for refusals and errors)."""
        return self.code in OK_CODES

    @property
    def terminal(self) -> bool:
        """True when retrying the same call cannot succeed."""
        return self.code in TERMINAL_CODES

    @property
    def changed(self) -> bool:
        """True when the session changed (adapters persist state only then)."""
        return self.code in CHANGED_CODES


__all__ = [
    "CHANGED_CODES",
    "OK_CODES",
    "TERMINAL_CODES",
    "Coded",
    "DecisionCode",
    "OutcomeCode",
]
