"""How adapters run forked skills: the fork running in this context and the decision a
subagent's skill layer adds to every plain tool call.

A parent adapter runs the subagent of a :class:`~skillcore.tools.ForkRequest` through its
framework's own subagent mechanism inside :func:`running_fork`; the subagent's skill layer
(built by the parent adapter for that subagent name) reads the fork with
:func:`fork_decision`. Context variables follow the child run in every framework here (the
child runs inside the parent's tool call, in the same task or a copied context); a child
layer that finds no fork for its name blocks every plain tool (fails closed).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from skillcore.policy import Arguments, ToolDecision
from skillcore.state import ForkGuard
from skillcore.tools import ArgumentError, parse_json_object
from skillcore.tools.forks import outside_fork

__all__ = ["current_fork", "fork_decision", "running_fork"]

_RUNNING: contextvars.ContextVar[ForkGuard | None] = contextvars.ContextVar(
    "skillcore_fork", default=None
)


@contextmanager
def running_fork(guard: ForkGuard) -> Iterator[ForkGuard]:
    """Run the fork's subagent inside this block: its skill layer applies ``guard``."""
    token = _RUNNING.set(guard)
    try:
        yield guard
    finally:
        _RUNNING.reset(token)


def current_fork() -> ForkGuard | None:
    """The fork running in this context (None: none)."""
    return _RUNNING.get()


def fork_decision(agent: str, tool: str, arguments: Arguments = None) -> ToolDecision | None:
    """The refusal subagent ``agent``'s skill layer adds to a plain tool call (None: the
    fork's rule allows it; the layer's own session still decides): blocked when no fork of
    ``agent`` is running, or when the forked skill (or, inheriting, the parent) does not
    allow the tool."""
    guard = _RUNNING.get()
    if guard is None or guard.agent != agent:
        return outside_fork(tool, agent)
    if tool == guard.own.names.script:
        decision = _script_decision(guard, tool, arguments)
    else:
        decision = guard.check_tool(tool, arguments=arguments)
    return None if decision.allowed else decision


def _script_decision(guard: ForkGuard, tool: str, arguments: Arguments) -> ToolDecision:
    """A script run of the child under the fork's rule; arguments that do not name a skill
    and a script are refused (the toolkit would refuse them too)."""
    try:
        args = parse_json_object(arguments if isinstance(arguments, (str, Mapping)) else None)
    except ArgumentError:
        args = {}
    skill, script = args.get("skill_name"), args.get("script")
    if not isinstance(skill, str) or not isinstance(script, str):
        return outside_fork(tool, guard.agent)
    return guard.check_script(skill, script, tool)
