"""Structured events: every skill transition and source event, defined once.

Each event goes to standard :mod:`logging` under a ``skillcore.*`` logger with its fields in
``extra=`` (``record.skillcore_event`` is the event name), and, when the application uses
OpenTelemetry, onto the current recording span as a span event. skillcore never imports
OpenTelemetry itself: a recording span can only exist once the application (or its agent
framework) has imported it, so looking it up in ``sys.modules`` costs nothing otherwise.

Events are emitted where outcomes are produced (:class:`~skillcore.SkillToolkit`, the library
shell, :func:`~skillcore.runtime.restore_session`), never by adapters, so each happens once
per call.
The table of names, loggers, levels and fields is :data:`EVENTS` (see docs/observability.md).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import attrs

from skillcore._escaping import single_line


@attrs.frozen
class EventSpec:
    """One event: its name, logger, level, fields and log message (``%(field)s`` style)."""

    name: str
    logger: str
    level: int
    fields: tuple[str, ...]
    message: str


_D, _S, _P, _C = (
    "skillcore.discovery",
    "skillcore.session",
    "skillcore.policy",
    "skillcore.catalog",
)
# The standard levels (logging.INFO and so on): ``logging`` itself is imported only when an
# event can reach a handler (see :func:`_logger`).
_DEBUG, _I, _W = 10, 20, 30

#: Every event, by name.
EVENTS: Mapping[str, EventSpec] = {
    e.name: e
    for e in (
        EventSpec(
            "discovery.completed",
            _D,
            _I,
            ("skills", "sources", "errors", "warnings", "infos"),
            "discovered %(skills)s skills from %(sources)s sources (diagnostics: %(errors)s "
            "errors, %(warnings)s warnings, %(infos)s info)",
        ),
        EventSpec(
            "source.stale",
            _D,
            _W,
            ("source", "detail"),
            "skill source %(source)r is stale (SOURCE_STALE): %(detail)s",
        ),
        EventSpec(
            "source.unreachable",
            _D,
            _W,
            ("source", "detail"),
            "skill source %(source)r is unreachable (SOURCE_UNREACHABLE): %(detail)s",
        ),
        EventSpec(
            "skill.loaded",
            _S,
            _I,
            ("skill", "resources", "loaded"),
            "skill %(skill)r loaded (%(resources)s resource files listed; loaded: %(loaded)s)",
        ),
        EventSpec(
            "skill.redelivered",
            _S,
            _I,
            ("skill", "loaded"),
            "skill %(skill)r sent again: its instructions were gone from the history "
            "(loaded: %(loaded)s)",
        ),
        EventSpec(
            "skill.unloaded",
            _S,
            _I,
            ("skill", "loaded"),
            "skill %(skill)r unloaded (loaded: %(loaded)s)",
        ),
        EventSpec(
            "skill.unload_refused",
            _S,
            _I,
            ("skill", "code", "loaded"),
            "unload of skill %(skill)r refused: %(code)s",
        ),
        EventSpec(
            "skill.load_refused",
            _S,
            _I,
            ("skill", "code", "loaded"),
            "load of skill %(skill)r refused: %(code)s",
        ),
        EventSpec(
            "skill.load_limit_reached",
            _S,
            _W,
            ("skill", "loaded", "max_loaded"),
            "load of skill %(skill)r refused: %(max_loaded)s skills already loaded (%(loaded)s)",
        ),
        EventSpec(
            "skill.load_failed",
            _S,
            _W,
            ("skill", "code", "detail"),
            "skill %(skill)r could not be read: %(code)s: %(detail)s",
        ),
        EventSpec(
            "skill.invoked",
            _S,
            _I,
            ("skill", "by_user", "argument_chars"),
            "skill %(skill)r invoked (by the user: %(by_user)s; %(argument_chars)s argument "
            "characters)",
        ),
        EventSpec(
            "skill.forked",
            _S,
            _I,
            ("skill", "subagent", "answer_chars"),
            "skill %(skill)r ran in subagent %(subagent)r (answer: %(answer_chars)s characters)",
        ),
        EventSpec(
            "skill.preloaded",
            _S,
            _I,
            ("skill", "pinned", "loaded"),
            "skill %(skill)r loaded at turn start (pinned: %(pinned)s; loaded: %(loaded)s)",
        ),
        EventSpec(
            "preload.skipped",
            _S,
            _W,
            ("skill", "code", "detail"),
            "configured skill %(skill)r was not loaded at turn start: %(code)s: %(detail)s",
        ),
        EventSpec(
            "load_request.skipped",
            _S,
            _W,
            ("skill", "code", "detail"),
            "skill %(skill)r requested by the run was not loaded: %(code)s: %(detail)s",
        ),
        EventSpec(
            "load_request.ignored",
            _S,
            _W,
            ("detail",),
            "run request to load skills ignored: %(detail)s",
        ),
        EventSpec(
            "resource.read",
            _S,
            _DEBUG,
            ("skill", "path", "size"),
            "read %(path)r of skill %(skill)r (%(size)s bytes)",
        ),
        EventSpec(
            "resource.read_failed",
            _S,
            _I,
            ("skill", "path", "code"),
            "reading %(path)r of skill %(skill)r failed: %(code)s",
        ),
        EventSpec(
            "vectors.cache_ignored",
            _C,
            _W,
            ("path", "detail"),
            "vector cache %(path)s ignored in part: %(detail)s (recomputed)",
        ),
        EventSpec(
            "catalog.budget_exceeded",
            _C,
            _I,
            ("shown", "omitted", "budget"),
            "skill catalog over budget (%(budget)s): %(shown)s skills shown, %(omitted)s left "
            "out (reachable through search)",
        ),
        EventSpec(
            "skill.tools_unmatched",
            _P,
            _W,
            ("skill", "entries", "tools"),
            "skill %(skill)r restricts tools to %(entries)s, and none of them names a tool of "
            "this agent (%(tools)s): under RESTRICT, while it is loaded, every tool of the "
            "agent but the skill and always-allowed ones is blocked. Map the names to the "
            "agent's tools with tool_aliases (a preset: 'deepagents', 'adk', 'agents_sdk', or a "
            "mapping such as {'Read': ['read_file']})",
        ),
        EventSpec(
            "tool.blocked",
            _P,
            _I,
            ("tool", "loaded", "timed_out"),
            "tool %(tool)r blocked by the allowed-tools of the loaded skills (%(loaded)s)"
            "; earlier skill calls of its turn timed out: %(timed_out)s",
        ),
        EventSpec(
            "hook.ran",
            _P,
            _I,
            ("skill", "event", "tool", "exit_code", "blocked", "duration", "isolation"),
            "hook of skill %(skill)r on %(event)s (tool %(tool)r) exited %(exit_code)s in "
            "%(duration)ss under %(isolation)s; blocked: %(blocked)s",
        ),
        EventSpec(
            "hook.skipped",
            _P,
            _W,
            ("skill", "event", "reason"),
            "command hook of skill %(skill)r on %(event)s not run: %(reason)s",
        ),
        EventSpec(
            "shell.preprocessed",
            _P,
            _I,
            ("skill", "ran", "refused", "reason"),
            "!command preprocessing of skill %(skill)r: %(ran)s run, %(refused)s refused "
            "(%(reason)s)",
        ),
        EventSpec(
            "state.forked",
            _S,
            _W,
            ("conversation", "expected", "found", "at"),
            "conversation %(conversation)r forked: a run started from skill state "
            "%(expected)r while %(found)r was the latest (%(at)s); two workers ran it at "
            "once, calls are checked against both until it converges",
        ),
        EventSpec(
            "state.reset",
            _S,
            _W,
            ("reason",),
            "unreadable skill state was reset to an empty session (%(reason)s)",
        ),
        EventSpec(
            "state.repaired",
            _S,
            _I,
            ("dropped",),
            "loaded skills no longer available were dropped: %(dropped)s",
        ),
        EventSpec(
            "script.ran",
            _P,
            _I,
            (
                "skill",
                "script",
                "exit_code",
                "duration_ms",
                "stdout_bytes",
                "stderr_bytes",
                "truncated",
                "killed",
                "isolation",
                "approval",
            ),
            "script %(script)r of skill %(skill)r ran: exit code %(exit_code)s in "
            "%(duration_ms)s ms (isolation %(isolation)s, approval %(approval)s, output cut: "
            "%(truncated)s, ended early: %(killed)s)",
        ),
        EventSpec(
            "script.refused",
            _P,
            _W,
            ("skill", "script", "code", "approval"),
            "script %(script)r of skill %(skill)r not run: %(code)s (approval %(approval)s)",
        ),
        EventSpec(
            "profile.refused",
            _S,
            _W,
            ("reason",),
            "skill profile selection refused, the run gets no skills: %(reason)s",
        ),
        EventSpec(
            "profile.switched",
            _S,
            _I,
            ("previous", "current"),
            "skill profile changed from %(previous)s to %(current)s: loaded skills were reset",
        ),
        # Lock verification (skillcore.trust): each skill's tier at discovery, and each
        # refusal, at discovery or when a read finds bytes that differ from the lock.
        EventSpec(
            "skill.verified",
            _D,
            _DEBUG,
            ("skill", "source", "tier"),
            "skill %(skill)r of source %(source)r verified against the lock: tier %(tier)s",
        ),
        EventSpec(
            "skill.lock_refused",
            _D,
            _W,
            ("skill", "source", "stage", "detail"),
            "skill %(skill)r of source %(source)r refused at %(stage)s: it does not match the "
            "lock: %(detail)s",
        ),
    )
}

#: OpenTelemetry attribute names for fields where a ``gen_ai.*`` name fits; the rest are
#: ``skillcore.<field>``.
OTEL_ATTRIBUTES: Mapping[str, str] = {
    "skill": "gen_ai.skill.name",
    "tool": "gen_ai.tool.name",
}


def _attribute(value: Any) -> Any:
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (tuple, list, frozenset, set)):
        return [str(v) for v in value]
    return str(value)


def _span() -> Any:
    """The current recording OpenTelemetry span, or None (never imports OpenTelemetry)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    span = trace.get_current_span()
    return span if span.is_recording() else None


def _logger(spec: EventSpec) -> Any:
    """The event's logger, or None when no handler can see the event.

    Until something imports :mod:`logging`, nothing can have configured it, so the event
    goes nowhere (the ``skillcore`` logger's NullHandler keeps the last-resort handler
    quiet), and importing ``logging`` just to find that out would cost every cold start a
    few milliseconds.
    """
    logging = sys.modules.get("logging")
    if logging is None:
        # With the NullHandler below, an unconfigured logging prints nothing at any level.
        return None
    library_logger(logging)
    logger = logging.getLogger(spec.logger)
    return logger if logger.isEnabledFor(spec.level) else None


def library_logger(logging: Any = None) -> Any:
    """The ``skillcore`` logger, with the :class:`logging.NullHandler` the standard library
    asks libraries to add: the application decides what is printed, nothing goes to stderr
    by default. Added on first use, so ``import skillcore`` does not import :mod:`logging`."""
    if logging is None:
        import logging
    logger = logging.getLogger("skillcore")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    return logger


def enabled(name: str) -> bool:
    """True when event ``name`` would go anywhere (a logger or a span): callers can skip
    building its fields otherwise."""
    return _logger(EVENTS[name]) is not None or _span() is not None


def emit(name: str, fields: Mapping[str, Any] | Callable[[], Mapping[str, Any]]) -> None:
    """Emit event ``name``. ``fields`` may be a function, called only when the event goes
    somewhere (logging stays cheap when disabled)."""
    spec = EVENTS[name]
    logger = _logger(spec)
    span = _span()
    if logger is None and span is None:
        return
    values = dict(fields() if callable(fields) else fields)
    if logger is not None:
        shown = {k: _shown(v) for k, v in values.items()}
        logger.log(spec.level, spec.message, shown, extra={"skillcore_event": name, **values})
    if span is not None:
        attrs_ = {
            OTEL_ATTRIBUTES.get(k, f"skillcore.{k}"): _attribute(v) for k, v in values.items()
        }
        span.add_event(f"skillcore.{name}", attributes=attrs_)


def _shown(value: Any) -> Any:
    """A field as the formatted message shows it: text on one line, controls and bidi
    characters escaped (a skill name or an error text from outside could otherwise write a
    forged log line of its own). The record's structured fields keep the raw values."""
    if isinstance(value, (tuple, list, frozenset, set)):
        return single_line(", ".join(str(v) for v in value)) or "none"
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    return single_line(str(value))


# -- the events of skill tool calls (emitted by SkillToolkit) --------------------------------


def tool_outcome(
    kind: str,
    result: Any,
    skill: str,
    path: str | None = None,
    detail: str | None = None,
    size: int | None = None,
) -> None:
    """The event of one finished skill tool call (``kind``: load, unload or resource).
    ``result`` is the :class:`~skillcore.ToolResult`; searches and invalid calls have none."""
    from skillcore.codes import OutcomeCode as O

    code, session = result.code, result.session
    if kind == "resource":
        if code is O.RESOURCE_READ:
            emit("resource.read", {"skill": skill, "path": path, "size": size})
        else:
            emit("resource.read_failed", {"skill": skill, "path": path, "code": code.value})
        return
    loaded = session.loaded_names
    if code is O.LOADED:
        entry = session.loaded_skill(skill)
        count = entry.resource_count if entry is not None else 0
        emit("skill.loaded", {"skill": skill, "resources": count, "loaded": loaded})
    elif code is O.REDELIVERED:
        emit("skill.redelivered", {"skill": skill, "loaded": loaded})
    elif code is O.UNLOADED:
        emit("skill.unloaded", {"skill": skill, "loaded": loaded})
    elif kind == "unload":
        emit("skill.unload_refused", {"skill": skill, "code": code.value, "loaded": loaded})
    elif code is O.LOAD_LIMIT_REACHED:
        fields = {"skill": skill, "loaded": loaded, "max_loaded": session.limits.max_loaded}
        emit("skill.load_limit_reached", fields)
    elif detail is not None:  # the document could not be read
        emit("skill.load_failed", {"skill": skill, "code": code.value, "detail": detail})
    else:
        emit("skill.load_refused", {"skill": skill, "code": code.value, "loaded": loaded})


@contextlib.contextmanager
def script_span(skill: str, script: str) -> Iterator[Any]:
    """An OpenTelemetry span around one script run (``skillcore.run_skill_script``) when the
    application uses OpenTelemetry, else nothing (never imports it); the run's events land
    on it, and :func:`script_ran` sets its attributes."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        yield None
        return
    tracer = trace.get_tracer("skillcore")
    attributes = {"gen_ai.skill.name": skill, "skillcore.script": script}
    with tracer.start_as_current_span("skillcore.run_skill_script", attributes=attributes) as span:
        yield span


def script_ran(span: Any, fields: Mapping[str, Any]) -> None:
    """The event of a script that ran (``script.ran``), also set on its span."""
    emit("script.ran", fields)
    if span is not None and span.is_recording():
        for key, value in fields.items():
            span.set_attribute(OTEL_ATTRIBUTES.get(key, f"skillcore.{key}"), _attribute(value))


def script_refused(span: Any, skill: str, script: str, code: str, approval: str) -> None:
    """The event of a script run refused or not run (``script.refused``)."""
    fields = {"skill": skill, "script": script, "code": code, "approval": approval}
    emit("script.refused", fields)
    if span is not None and span.is_recording():
        span.set_attribute("skillcore.code", code)
        span.set_attribute("skillcore.approval", approval)


def skill_verified(skill: str, source: str, tier: str, refused: bool, detail: str) -> None:
    """A skill checked against the lock at discovery: its tier, or its refusal."""
    if refused:
        emit(
            "skill.lock_refused",
            {"skill": skill, "source": source, "stage": "discovery", "detail": detail},
        )
    else:
        emit("skill.verified", {"skill": skill, "source": source, "tier": tier})


def lock_refused_read(skill: str, source: str, detail: str) -> None:
    """A read of a locked skill's file gave bytes (or a listing) that differ from the lock."""
    emit(
        "skill.lock_refused", {"skill": skill, "source": source, "stage": "read", "detail": detail}
    )


def tool_blocked(tool: str, loaded: tuple[str, ...], timed_out: bool) -> None:
    """A plain tool call was refused by the allowed-tools policy (or its turn timed out)."""
    emit("tool.blocked", {"tool": tool, "loaded": loaded, "timed_out": timed_out})


#: How many of the agent's tool names a ``skill.tools_unmatched`` message shows.
UNMATCHED_TOOLS_SHOWN = 12


def tools_unmatched(skill: str, entries: tuple[str, ...], tools: Iterable[str]) -> str:
    """A loaded skill's allowed-tools name none of the agent's ``tools`` (under RESTRICT it
    blocks them all): emit the event and return its message, for ``warnings`` too."""
    names = sorted(tools)
    shown = (
        *names[:UNMATCHED_TOOLS_SHOWN],
        *(["..."] if len(names) > UNMATCHED_TOOLS_SHOWN else []),
    )
    fields = {"skill": skill, "entries": entries, "tools": tuple(shown)}
    emit("skill.tools_unmatched", fields)
    return EVENTS["skill.tools_unmatched"].message % {k: _shown(v) for k, v in fields.items()}


def catalog_over_budget(shown: int, omitted: int, budget: int) -> None:
    """The catalog left skills out of the prompt."""
    emit("catalog.budget_exceeded", {"shown": shown, "omitted": omitted, "budget": budget})


class BudgetReport:
    """Reports ``catalog.budget_exceeded`` once per change of (catalog, omitted count,
    budget), not on every model call that renders the same catalog. ``shown`` counts every
    skill the prompt names (with or without its description)."""

    def __init__(self) -> None:
        self._last: tuple[Any, int, int] | None = None

    def __call__(self, catalog: Any, shown: int, omitted: int, budget: int) -> None:
        if not omitted:
            return
        key = (catalog, omitted, budget)
        if self._last != key:
            self._last = key
            catalog_over_budget(shown, omitted, budget)


# -- the events of the library shell ------------------------------------------------------


def discovered(catalog: Any, sources: int) -> None:
    """A discovery or refresh produced a new catalog: its counts, and each source that is
    stale or unreachable (once per new catalog, not on every refresh)."""
    from skillcore.diagnostics import Code, Severity

    diags = catalog.diagnostics
    for diag in diags:
        if diag.code is Code.SOURCE_STALE:
            emit("source.stale", {"source": diag.source, "detail": diag.message})
        elif diag.code is Code.SOURCE_UNREACHABLE:
            emit("source.unreachable", {"source": diag.source, "detail": diag.message})

    def fields() -> dict[str, Any]:
        by = {s: sum(1 for d in diags if d.severity is s) for s in Severity}
        return {
            "skills": len(catalog.skills),
            "sources": sources,
            "errors": by[Severity.ERROR],
            "warnings": by[Severity.WARNING],
            "infos": by[Severity.INFO],
        }

    emit("discovery.completed", fields)


__all__ = [
    "EVENTS",
    "OTEL_ATTRIBUTES",
    "BudgetReport",
    "EventSpec",
    "catalog_over_budget",
    "discovered",
    "emit",
    "enabled",
    "lock_refused_read",
    "skill_verified",
    "tool_blocked",
    "tool_outcome",
    "tools_unmatched",
]
