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
    LOAD_LIMIT_REACHED = "LOAD_LIMIT_REACHED"
    DISABLED = "DISABLED"
    NOT_LOADED = "NOT_LOADED"
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


#: Codes of calls that did what was asked.
OK_CODES = frozenset(
    {
        OutcomeCode.LOADED,
        OutcomeCode.UNLOADED,
        OutcomeCode.RESOURCE_READ,
        OutcomeCode.SEARCH_RESULTS,
    }
)

#: Codes of calls that changed the session (adapters persist state only then).
CHANGED_CODES = frozenset({OutcomeCode.LOADED, OutcomeCode.UNLOADED})

#: Codes after which retrying the same call cannot succeed.
TERMINAL_CODES = frozenset(
    {
        OutcomeCode.SKILL_NOT_FOUND,
        OutcomeCode.DISABLED,
        OutcomeCode.RESOURCE_NOT_FOUND,
        OutcomeCode.PATH_REJECTED,
        OutcomeCode.BINARY_RESOURCE,
        OutcomeCode.TOO_LARGE,
        OutcomeCode.DECODE_ERROR,
        OutcomeCode.UNKNOWN_TOOL,
    }
)

__all__ = ["CHANGED_CODES", "OK_CODES", "TERMINAL_CODES", "OutcomeCode"]
