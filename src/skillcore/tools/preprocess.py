"""``!`command` `` preprocessing: a placeholder in a skill's body replaced by the command's
output when the skill loads (Claude Code's syntax). Off unless configured
(``SkillConfig(shell_preprocessing=True)``).

Each command runs as ``bash -c <command>`` through the configured
:class:`~skillcore.runner.ScriptRunner` (its limits and isolation; the skill's folder is the
skill directory), only for a skill of a trusted source, and only when the skill's own
``allowed-tools`` allow it as a ``Bash(<command>)`` call
(:func:`skillcore.state.hooks.shell_command_refusal`). At most
:data:`~skillcore.limits.SHELL_COMMANDS_PER_BODY` placeholders run per body; the output is
capped and escaped. A placeholder that does not run is replaced by a note saying why.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from skillcore import events
from skillcore._escaping import escape, prompt_text
from skillcore.library import SkillLibrary
from skillcore.limits import SHELL_COMMAND_CHARS, SHELL_COMMANDS_PER_BODY, SHELL_OUTPUT_CHARS
from skillcore.model import SkillDocument
from skillcore.runner import (
    Isolation,
    IsolationUnavailable,
    ScriptRequest,
    ScriptResult,
    ScriptRunner,
)
from skillcore.state import SkillSession, shell_command_refusal
from skillcore.tools.hooks import skill_dir

#: ``!`command` ``: one line, no backtick inside (a linear scan: no backtracking).
PLACEHOLDER = re.compile(r"!`([^`\n]+)`")


def _plan(
    library: SkillLibrary,
    runner: ScriptRunner | None,
    session: SkillSession,
    document: SkillDocument,
    require: Isolation,
) -> tuple[list[re.Match[str]], list[ScriptRequest | str]]:
    """The placeholders to replace, and for each the request to run or the note instead."""
    found: list[re.Match[str]] = []
    for match in PLACEHOLDER.finditer(document.body):
        if len(found) >= SHELL_COMMANDS_PER_BODY:
            break
        found.append(match)
    if not found:
        return [], []
    meta = document.metadata
    where = skill_dir(library, meta)
    plans: list[ScriptRequest | str] = []
    for match in found:
        command = match.group(1).strip()
        if runner is None:
            plans.append("no script_runner is configured")
        elif where is None:
            plans.append("the skill's source is not trusted")
        elif len(command) > SHELL_COMMAND_CHARS:
            plans.append(f"the command is longer than {SHELL_COMMAND_CHARS} characters")
        elif refusal := shell_command_refusal(session, meta, command):
            plans.append(refusal)
        else:
            argv = ("bash", "-c", command)
            plans.append(ScriptRequest(meta.name, "!command", argv, where, require=require))
    return found, plans


def _replace(
    document: SkillDocument, found: list[re.Match[str]], outputs: list[ScriptResult | str]
) -> SkillDocument:
    body = document.body
    parts: list[str] = []
    at = 0
    for match, out in zip(found, outputs):
        parts.append(body[at : match.start()])
        parts.append(_shown(out))
        at = match.end()
    parts.append(body[at:])
    ran = sum(1 for o in outputs if not isinstance(o, str))
    refused = [o for o in outputs if isinstance(o, str)]
    events.emit(
        "shell.preprocessed",
        {
            "skill": document.name,
            "ran": ran,
            "refused": len(refused),
            "reason": refused[0] if refused else "",
        },
    )
    return attrs.evolve(document, body="".join(parts))


def _shown(out: ScriptResult | str) -> str:
    """A placeholder's replacement: the output (capped, escaped) or why it did not run."""
    if isinstance(out, str):
        return f"[command not run: {escape(out)}]"
    text = out.stdout.decode("utf-8", "replace").rstrip("\n")
    cut = len(text) > SHELL_OUTPUT_CHARS or out.truncated
    text = escape(prompt_text(text[:SHELL_OUTPUT_CHARS]))
    if cut:
        text += " [output cut]"
    if out.exit_code != 0:
        text += f" [command exited {out.exit_code}{', ' + out.killed if out.killed else ''}]"
    return text


def preprocess(
    library: SkillLibrary,
    runner: ScriptRunner | None,
    session: SkillSession,
    document: SkillDocument,
    require: Isolation = Isolation.LIMITS,
) -> SkillDocument:
    """``document`` with its ``!`command` `` placeholders replaced (see the module)."""
    found, plans = _plan(library, runner, session, document, require)
    if not found:
        return document
    return _replace(
        document, found, [_one(runner, p, runner.run if runner else None) for p in plans]
    )


async def apreprocess(
    library: SkillLibrary,
    runner: ScriptRunner | None,
    session: SkillSession,
    document: SkillDocument,
    require: Isolation = Isolation.LIMITS,
) -> SkillDocument:
    """Async :func:`preprocess`."""
    found, plans = _plan(library, runner, session, document, require)
    if not found:
        return document
    outputs: list[ScriptResult | str] = []
    for plan in plans:
        if isinstance(plan, str) or runner is None:
            outputs.append(plan if isinstance(plan, str) else "no script_runner is configured")
            continue
        try:
            outputs.append(await runner.arun(plan))
        except IsolationUnavailable as exc:
            outputs.append(f"isolation unavailable: {exc}")
    return _replace(document, found, outputs)


def _one(
    runner: ScriptRunner | None,
    plan: ScriptRequest | str,
    run: Callable[[ScriptRequest], ScriptResult] | None,
) -> ScriptResult | str:
    if isinstance(plan, str) or run is None:
        return plan if isinstance(plan, str) else "no script_runner is configured"
    try:
        return run(plan)
    except IsolationUnavailable as exc:
        return f"isolation unavailable: {exc}"


__all__ = ["PLACEHOLDER", "apreprocess", "preprocess"]
