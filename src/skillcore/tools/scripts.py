"""``run_skill_script``: the I/O shell of one script run, after the session accepted it
(:meth:`~skillcore.SkillSession.begin_script`: loaded, path rule, trusted source, policy).

The shell checks the script is a file the skill's listing shows, copies the listed files
(read through the source's confined reader, so hidden files and symlink escapes are refused
exactly as for resources) into a fresh read-only folder, bounded in bytes, picks the
interpreter from skillcore's table, asks the approval hook, and hands the run to the
configured :class:`~skillcore.runner.ScriptRunner`. The runner gets only the bytes skillcore
read and checked, never the live skill folder, whatever the source (local, S3, Git, zip).
"""

from __future__ import annotations

import inspect
import os
import shutil
import stat
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillcore import events
from skillcore.codes import OutcomeCode
from skillcore.errors import SkillcoreError
from skillcore.library import SkillLibrary
from skillcore.runner import (
    Isolation,
    IsolationUnavailable,
    Refusal,
    RunLimits,
    ScriptRequest,
    ScriptResult,
    ScriptRunner,
    command_for,
)
from skillcore.sources import ReadError
from skillcore.state import ScriptRequestPlan, SkillSession
from skillcore.tools import replies

#: The most bytes of a skill's files copied for one run (the script and what it may read
#: beside it); a skill past it cannot run its scripts.
MAX_SCRIPT_TREE_BYTES = 32 * 1024 * 1024
#: The environment of every run: an allow-list, nothing of the host's own (no secrets).
SCRIPT_ENV: Mapping[str, str] = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}

#: ``approve(skill, script, args)``: True to run, False to decline (may be async).
Approve = Callable[[str, str, tuple[str, ...]], "bool | Awaitable[bool]"]


def to_isolation(value: Isolation | int | str) -> Isolation:
    """An isolation level from itself, its number or its name (``"sandbox"``)."""
    if isinstance(value, str):
        try:
            return Isolation[value.strip().upper()]
        except KeyError:
            names = ", ".join(i.name.lower() for i in Isolation)
            raise ValueError(f"unknown isolation {value!r}; use one of {names}") from None
    return Isolation(value)


@attrs.frozen
class ScriptSettings:
    """How a toolkit runs scripts: the runner, the least isolation accepted, the bounds of
    a run, the approval hook and the interpreter table's overrides."""

    runner: ScriptRunner
    isolation: Isolation = attrs.field(default=Isolation.LIMITS, converter=to_isolation)
    limits: RunLimits = attrs.field(factory=RunLimits)
    approve: Approve | None = None
    interpreters: Any = None
    max_tree_bytes: int = MAX_SCRIPT_TREE_BYTES


def settings(
    runner: ScriptRunner | None,
    isolation: Isolation | int | str = Isolation.LIMITS,
    limits: RunLimits | None = None,
    approve: Approve | None = None,
    interpreters: Any = None,
) -> ScriptSettings | None:
    """The settings of a toolkit's script runs, or None without a runner."""
    if runner is None:
        return None
    return ScriptSettings(
        runner, to_isolation(isolation), limits or RunLimits(), approve, interpreters
    )


@attrs.frozen
class Prepared:
    """A run ready to go: the request, and the folder to remove afterwards."""

    request: ScriptRequest
    folder: Path


@attrs.frozen
class Refused:
    """A run that cannot go ahead: its code and reply."""

    code: OutcomeCode
    text: str


def _copy_listed(
    reader: Any, directory: str, paths: list[str], skill_dir: Path, budget: int
) -> None:
    """Copy the listed files, read through the source's confined reader (at most ``budget``
    bytes in all), into ``skill_dir``, then make it read-only."""
    for path in paths:
        data = reader.read_file(directory, path, budget)
        budget -= len(data)
        target = skill_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    _read_only(skill_dir)


def prepare(
    library: SkillLibrary, session: SkillSession, plan: ScriptRequestPlan, settings: ScriptSettings
) -> Prepared | Refused:
    """Check ``plan.script`` is listed, copy the skill's listed files into a fresh
    read-only folder and build the request. Never raises for what the skill holds."""
    name, script = plan.name, plan.script
    meta = session.catalog.get(name)
    if meta is None:
        return Refused(OutcomeCode.SKILL_NOT_FOUND, replies.error(f"no skill named {name!r}"))
    try:
        reader = library.reader(meta.location.source)
        listing = library.list_resources(name, session.limits.max_resources)
    except (ReadError, OSError, SkillcoreError) as exc:
        return Refused(OutcomeCode.READ_FAILED, replies.script_failed(name, script, str(exc)))
    paths = [r.path for r in listing]
    if script not in paths:
        text = replies.script_not_listed(name, script, paths)
        return Refused(OutcomeCode.RESOURCE_NOT_FOUND, text)
    folder = Path(tempfile.mkdtemp(prefix="skillcore-skill-"))
    try:
        skill_dir = folder / "skill"
        _copy_listed(reader, meta.location.directory, paths, skill_dir, settings.max_tree_bytes)
        command = command_for(skill_dir / script, settings.interpreters)
        if isinstance(command, Refusal):
            remove(folder)
            return Refused(
                OutcomeCode.SCRIPT_NOT_RUNNABLE,
                replies.script_not_runnable(name, script, command.message),
            )
        request = ScriptRequest(
            skill=name,
            script=script,
            argv=(*command, *plan.args),
            skill_dir=skill_dir,
            stdin=(plan.stdin or "").encode("utf-8"),
            env=SCRIPT_ENV,
            limits=settings.limits,
            require=settings.isolation,
        )
        return Prepared(request, folder)
    except ReadError as exc:
        remove(folder)
        code = exc.code if exc.code is OutcomeCode.TOO_LARGE else OutcomeCode.READ_FAILED
        detail = (
            f"the skill's files exceed {settings.max_tree_bytes} bytes"
            if code is OutcomeCode.TOO_LARGE
            else str(exc)
        )
        return Refused(code, replies.script_failed(name, script, detail))
    except (OSError, SkillcoreError, ValueError) as exc:
        remove(folder)
        return Refused(OutcomeCode.READ_FAILED, replies.script_failed(name, script, str(exc)))


def _read_only(root: Path) -> None:
    """Make the copied files read-only (the run gets its own writable working folder)."""
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            os.chmod(os.path.join(dirpath, f), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(dirpath, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)


def remove(folder: Path) -> None:
    """Remove a run's folder (its read-only folders made writable first; deleting a file
    needs only its folder's permission)."""
    for dirpath, dirs, _files in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(dirpath, d), stat.S_IRWXU)
    shutil.rmtree(folder, ignore_errors=True)


#: The answer when no hook is configured.
_NO_HOOK = object()


def approval(settings: ScriptSettings, plan: ScriptRequestPlan) -> Any:
    """Ask the hook: its raw answer (a bool or an awaitable); :data:`_NO_HOOK` without one."""
    if settings.approve is None:
        return _NO_HOOK
    return settings.approve(plan.name, plan.script, plan.args)


def approved(answer: Any) -> tuple[bool, str]:
    """``(run, approval label)`` of a settled hook answer (only ``True`` approves)."""
    if answer is _NO_HOOK:
        return True, "none"
    return (answer is True, "approved" if answer is True else "declined")


def sync_approval(settings: ScriptSettings, plan: ScriptRequestPlan) -> tuple[bool, str]:
    """The hook's answer for a sync call: an async hook cannot be awaited here, so the run
    is declined (fails closed); use the async call."""
    try:
        answer = approval(settings, plan)
    except Exception:
        return False, "error"
    if inspect.isawaitable(answer):
        close = getattr(answer, "close", None)
        if callable(close):
            close()
        return False, "async-hook-in-sync-call"
    return approved(answer)


async def async_approval(settings: ScriptSettings, plan: ScriptRequestPlan) -> tuple[bool, str]:
    """The hook's answer for an async call (sync or async hook)."""
    try:
        answer = approval(settings, plan)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception:
        return False, "error"
    return approved(answer)


def result_reply(
    plan: ScriptRequestPlan, result: ScriptResult, approval_label: str, span: Any
) -> tuple[OutcomeCode, str]:
    """The reply and event of a run that happened."""
    text, cut = replies.script_result(
        plan.name,
        plan.script,
        result.exit_code,
        result.stdout,
        result.stderr,
        result.duration_seconds,
        result.truncated,
        result.killed or ("timeout" if result.timed_out else ""),
        result.isolation.name,
    )
    events.script_ran(
        span,
        {
            "skill": plan.name,
            "script": plan.script,
            "exit_code": result.exit_code if result.exit_code is not None else -1,
            "duration_ms": round(result.duration_seconds * 1000),
            "stdout_bytes": len(result.stdout),
            "stderr_bytes": len(result.stderr),
            "truncated": cut,
            "killed": result.killed or ("timeout" if result.timed_out else ""),
            "isolation": result.isolation.name,
            "approval": approval_label,
        },
    )
    return OutcomeCode.SCRIPT_RAN, text


def declined_reply(plan: ScriptRequestPlan, label: str, span: Any) -> tuple[OutcomeCode, str]:
    """The reply and event of a run the approval hook declined."""
    detail = {
        "error": "the approval hook failed",
        "async-hook-in-sync-call": "the approval hook is async and this call is not",
    }.get(label, "")
    events.script_refused(span, plan.name, plan.script, OutcomeCode.SCRIPT_DECLINED.value, label)
    return OutcomeCode.SCRIPT_DECLINED, replies.script_declined(plan.name, plan.script, detail)


def runner_failed_reply(
    plan: ScriptRequestPlan, exc: BaseException, label: str, span: Any
) -> tuple[OutcomeCode, str]:
    """The reply and event of a run the runner refused or failed."""
    if isinstance(exc, IsolationUnavailable):
        code = OutcomeCode.ISOLATION_UNAVAILABLE
        text = replies.script_isolation_unavailable(plan.name, plan.script, str(exc))
    else:
        code = OutcomeCode.TOOL_FAILED
        text = replies.script_failed(
            plan.name, plan.script, f"the runner failed ({type(exc).__name__})"
        )
    events.script_refused(span, plan.name, plan.script, code.value, label)
    return code, text


__all__ = [
    "MAX_SCRIPT_TREE_BYTES",
    "SCRIPT_ENV",
    "Approve",
    "Prepared",
    "Refused",
    "ScriptSettings",
    "prepare",
    "remove",
    "settings",
    "to_isolation",
]
