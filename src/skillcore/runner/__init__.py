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
from skillcore.runner.interpreters import Refusal, command_for, default_interpreters
from skillcore.runner.local import BubblewrapRunner, LocalRunner

__all__ = [
    "BubblewrapRunner",
    "Isolation",
    "IsolationUnavailable",
    "LocalRunner",
    "Refusal",
    "RunLimits",
    "ScriptRequest",
    "ScriptResult",
    "ScriptRunner",
    "command_for",
    "default_interpreters",
]
