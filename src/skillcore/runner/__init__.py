"""Running code a skill brings (scripts, hooks, ``!command``): one protocol, one request and
one result shape, and the runners that implement it. Everything that executes goes through a
:class:`ScriptRunner`."""

from skillcore.runner.base import (
    Isolation,
    IsolationUnavailable,
    RunLimits,
    ScriptRequest,
    ScriptResult,
    ScriptRunner,
)

__all__ = [
    "Isolation",
    "IsolationUnavailable",
    "RunLimits",
    "ScriptRequest",
    "ScriptResult",
    "ScriptRunner",
]
