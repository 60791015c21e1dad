"""Every reply the model reads from a skill tool call or a blocked call, built once.

The sentences of a session's outcomes (refusals, loads, unloads) are worded in
:mod:`skillcore.outcome_texts` from the outcome's code and facts, and sent through :func:`refusal`;
the texts only the tool layer produces (search, resources, binary files, argument and tool
errors) are here. (The load reply itself is :meth:`skillcore.SkillToolkit.load_reply`; the
catalog is :mod:`skillcore.catalog.render`.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillcore._escaping import (
    cut_page,
    escape,
    folded,
    prompt_text,
    quoteattr,
    quoted_excerpt,
    single_line,
    skill_content_marker,
)
from skillcore.catalog import (
    MAX_VARIANTS_NAMED,
    Candidate,
    SearchHit,
    compact_line,
    entry_description,
)
from skillcore.codes import OutcomeCode
from skillcore.library import ResourceContent
from skillcore.model import SkillMetadata
from skillcore.names import ToolNames
from skillcore.outcome_texts import (
    offset_past_end,
    page_cut,
    tool_locked_reason,
    tools_not_available_reason,
)
from skillcore.policy import ToolDecision
from skillcore.sources import ReadError
from skillcore.state import MAX_TURN_CALLS, Outcome, SkillSession
from skillcore.tools.binary import BinaryPayload

#: How every refusal and error reply starts (adapters also mark them as errors).
ERROR_PREFIX = "Error: "


def error(message: str) -> str:
    """A refusal or failure as the model reads it: one line, through the one sanitiser
    (error texts quote backends, MCP servers and handlers, which may carry escape
    sequences, bidi overrides or a line break that poses as a new instruction)."""
    return ERROR_PREFIX + single_line(message)


def refusal(outcome: Outcome) -> str:
    """The reply for a refused transition."""
    return error(outcome.message)


def blocked(decision: ToolDecision) -> str:
    """The reply for a plain tool call the allowed-tools policy blocked (every adapter)."""
    return error(decision.reason)


def blocked_code(decision: ToolDecision) -> OutcomeCode:
    """The outcome code of a refused plain call: ``TOOL_LOCKED`` for a skill-gated tool no
    loaded skill unlocks, else ``TOOL_BLOCKED``."""
    return OutcomeCode(decision.code.value) if not decision.allowed else OutcomeCode.TOOL_BLOCKED


def repeated_failure(text: str, code: OutcomeCode, count: int) -> str:
    """The firmer reply to a failing call made again in one run (``count`` times so far):
    it cannot succeed, so the model stops retrying it."""
    return (
        f"{text} This exact call has now failed {count} times in this turn with "
        f"{code.value}; it cannot succeed. Stop retrying it: continue without it or "
        "tell the user what is missing."
    )


def name_collision(skills: list[str], load_tool: str) -> str:
    """The note for skills named like a tool the model can call (empty for none): both keep
    working, and the model is told which a call by that name reaches."""
    if not skills:
        return ""
    return (
        f"\nNote: the skill(s) {', '.join(skills)} share a name with a tool. Calling the tool "
        "by that name runs the tool, not the skill; to use the skill, call "
        f'{load_tool} with skill_name="<name>".\n'
    )


def tools_unlocked(tools: tuple[str, ...]) -> str:
    """The line a load reply ends with when the skill unlocks skill-gated tools (empty for
    none): they are allowed while it is loaded, whatever its allowed-tools list says."""
    if not tools:
        return ""
    return f"\nTools unlocked while this skill is loaded: {', '.join(tools)}"


def tools_missing_warning(missing: tuple[str, ...]) -> str:
    """The note a load reply ends with (RECOMMEND) when the skill's allowed-tools name tools
    this agent does not have."""
    return (
        f"\nWarning: this skill's allowed-tools name tools this agent does not have: "
        f"{', '.join(single_line(m) for m in missing)}. Do the work with the tools you have, "
        "or tell the user what is missing."
    )


def turn_incomplete_reason(tool: str) -> str:
    """Why a plain call decided while earlier skill calls of its turn never finished is
    refused (the policy those calls set is unknown)."""
    return (
        f"{tool!r} was not run because earlier skill tool calls of this turn did not finish. "
        "Call it again."
    )


def turn_incomplete(tool: str) -> str:
    """The reply for such a call (see :func:`turn_incomplete_reason`)."""
    return error(turn_incomplete_reason(tool))


def turn_refused_reason(code: OutcomeCode, tool: str) -> str:
    """Why a call that cannot be placed in its turn (:meth:`TurnCalls.refusal`) was not run:
    calls are placed by their ids, so a turn whose ids repeat, or a call past the per-turn
    bound, is never decided as if it came first."""
    if code is OutcomeCode.TURN_CALL_IDS_REPEAT:
        return (
            f"{tool!r} was not run: tool calls of this turn share a call id, so their order "
            "cannot be known and none of them was run. Call the tools again, each call with "
            "its own id."
        )
    return (
        f"{tool!r} was not run: it is listed after the first {MAX_TURN_CALLS:,} tool calls "
        "of this turn, past the number one turn may make. Call it again in a later turn."
    )


#: How much of a failing handler's exception message the model sees.
MAX_FAILURE_CHARS = 500


def tool_failed(tool: str, exc: BaseException) -> str:
    """The reply for a plain tool call whose handler raised."""
    shown = tool[:80].encode("utf-8", "backslashreplace").decode("utf-8")
    detail = str(exc)[:MAX_FAILURE_CHARS]
    return error(
        f"{shown!r} failed: {type(exc).__name__}{': ' + detail if detail else ''}. "
        "Fix the arguments or try another way."
    )


def unknown_tool(tool: str, known: tuple[str, ...]) -> str:
    """The reply for a call of a tool that does not exist."""
    shown = tool[:80].encode("utf-8", "backslashreplace").decode("utf-8")
    return error(f"{shown!r} is not a skill tool (skill tools: {', '.join(known)}).")


def invalid_arguments(tool: str, problem: str) -> str:
    """The reply for arguments that did not validate."""
    return error(f"invalid arguments for {tool}: {problem}")


def read_failed(
    path: str, skill: str, exc: ReadError, listing: tuple[str, ...] | None, names: ToolNames
) -> str:
    """The reply for a resource that could not be read (``listing``: the loaded skill's files,
    shown when the path does not exist)."""
    hint = ""
    if listing is not None:
        hint = (
            f" Files of this skill: {', '.join(single_line(p) for p in listing[:20])}."
            if listing
            else f" Load the skill with {names.load} to see its files."
        )
    if exc.code is OutcomeCode.TOO_LARGE:
        # Text too long for one reply may still be read a part at a time.
        hint += (
            f" If it is text, read it in parts: call {names.resource} with offset 0, then "
            "with the offset each part names."
        )
        return error(f"cannot read {path!r} of skill {skill!r}: {exc.message}.{hint}")
    return error(
        f"cannot read {path!r} of skill {skill!r}: {exc.message}.{hint} Do not retry this path."
    )


def binary_resource(path: str, skill: str, content: ResourceContent) -> str:
    """The reply for a binary resource (never dumped into the conversation)."""
    return error(
        f"{path!r} of skill {skill!r} is a binary file ({content.size} bytes); it cannot be "
        "shown as text. Use it by path (for example from a script) instead."
    )


def _described(payload: BinaryPayload) -> str:
    kind = "image" if payload.is_image else "file"
    where = f"{payload.path!r} of skill {payload.skill!r}"
    return f"{kind} {where} ({payload.mime_type}, {payload.size} bytes)"


def binary_attached(payload: BinaryPayload) -> str:
    """The reply for a binary resource delivered as a native part (the part carries the
    bytes; this text tells the model what it got)."""
    return f"Read the {_described(payload)}; its content is attached."


#: How :func:`binary_attachment` starts (so such a message is not taken for the user's own).
ATTACHMENT_PREFIX = "Attached by the skill resource tool: "


def binary_attachment(payload: BinaryPayload) -> str:
    """The text next to the bytes where they cannot travel in the tool reply itself (Chat
    Completions tool messages take text only: the bytes follow in a user message)."""
    return f"{ATTACHMENT_PREFIX}the {_described(payload)}."


def binary_too_large(payload: BinaryPayload, cap: int) -> str:
    """The reply for an allowed binary resource over the binary cap."""
    return error(
        f"{payload.path!r} of skill {payload.skill!r} is {payload.size} bytes, over the "
        f"{cap}-byte limit for binary files. Do not retry this path."
    )


def resource(path: str, skill: str, content: ResourceContent) -> str:
    """The reply for a resource read as text."""
    return (
        f"<skill_resource skill={quoteattr(skill)} path={quoteattr(path)}>\n"
        f"{prompt_text(content.text or '')}\n</skill_resource>"
    )


def resource_page(
    path: str, skill: str, content: ResourceContent, offset: int, cap: int, tool: str
) -> tuple[str, bool]:
    """``(reply, ok)`` for one page of a text resource read from the character ``offset``: at
    most ``cap`` characters, then, when the file goes on, the line naming the next offset. An
    offset past the end is an error reply (not ok)."""
    text = content.text or ""
    text = text[1:] if text.startswith("\ufeff") else text  # offsets as a load counts them
    if offset > 0 and offset >= len(text):
        return error(offset_past_end(path, offset, len(text))), False
    page, rest = cut_page(text, offset, cap)
    end = rest if rest is not None else len(text)
    note = f"\n{page_cut(skill, path, (offset, end), len(text), rest, tool)}" if rest else ""
    return (
        f"<skill_resource skill={quoteattr(skill)} path={quoteattr(path)} "
        f'offset="{offset}">\n{prompt_text(page)}\n</skill_resource>{note}'
    ), True


def search(
    session: SkillSession,
    lines: Sequence[Candidate | SearchHit],
    query: str | None,
    path: str | None,
    abstained: bool = False,
    compact: bool = False,
) -> str:
    """The reply of the search tool (``abstained``: no skill is a close match; the few
    ``lines`` are only the closest). ``compact``: each skill with one short line."""
    what = (
        " and ".join(f"{k} {quoted_excerpt(v)}" for k, v in (("query", query), ("path", path)) if v)
        or "no filter"
    )
    if not lines:
        return (
            f"No skills match {what}. Try other keywords; "
            f"{len(session.catalog.model_visible)} skills are available."
        )
    if abstained:
        head = f"No skill fits {what} well. The closest, in case one does apply:"
    elif compact:
        head = f"Candidate skills for {what}, best first; pick the one that fits:"
    else:
        head = f"Skills matching {what} (best first):"
    out = [head]
    for line in lines:
        candidate = line if isinstance(line, Candidate) else Candidate(line)
        skill = candidate.hit.skill
        mark = " [Loaded]" if session.is_loaded(skill.name) else ""
        text = compact_line(skill) if compact else entry_description(skill)
        out.append(f"- {single_line(skill.name)}{mark}: {text}{_variants(candidate.variants)}")
    if abstained:
        out.append(
            f"If none of them applies, go on without a skill (or call {session.names.search} "
            "with other words)."
        )
    else:
        out.append(f"Call {session.names.load} with a name to use one.")
    return "\n".join(out)


def _variants(names: Sequence[str]) -> str:
    """The near-duplicate variants folded into a search line (a bounded list)."""
    if not names:
        return ""
    shown = ", ".join(single_line(n) for n in names[:MAX_VARIANTS_NAMED])
    more = len(names) - MAX_VARIANTS_NAMED
    return f" (variants: {shown}{f', and {more} more' if more > 0 else ''})"


#: How much of each description the per-request suggestion note shows.
SUGGESTION_DESCRIPTION_CHARS = 160


def suggestions(names: ToolNames, skills: Sequence[SkillMetadata]) -> str:
    """The note placed after a user message: skills that may fit it (empty for none)."""
    if not skills:
        return ""
    lines = [
        "<skill_suggestions>",
        "Skills from the catalog that may fit this request (call "
        f"{names.load} with a name if one applies; ignore them otherwise):",
    ]
    for meta in skills:
        # Escaped as every XML-ish rendering is: a description cannot close the note.
        desc = escape(folded(meta.description, SUGGESTION_DESCRIPTION_CHARS))
        lines.append(f"- {escape(single_line(meta.name))}: {desc}")
    lines.append("</skill_suggestions>")
    return "\n".join(lines)


def reinjection(names: ToolNames, bodies: Mapping[str, str | ReadError]) -> str:
    """The system-prompt block repeating loaded skills' instructions that are no longer in
    the conversation (``bodies``: each skill's load reply, or why it could not be re-read)."""
    parts = [
        "## Loaded skill instructions\n\n"
        "These skills are loaded, but their instructions are not in the conversation's "
        "messages (they were loaded for you at the start, or the messages that delivered "
        "them are gone), so the instructions are given here. Keep following them, or call "
        f"{names.unload} for a skill that no longer applies.\n"
    ]
    for name, body in bodies.items():
        if isinstance(body, ReadError):
            parts.append(
                f"Skill {name!r} is loaded, but its instructions could not be read again "
                f"({single_line(body.message)}). Call {names.unload} to free its slot if you "
                "cannot continue without them.\n"
            )
        else:
            parts.append(body + "\n")
    return "\n".join(parts)


__all__ = [
    "ATTACHMENT_PREFIX",
    "ERROR_PREFIX",
    "SCRIPT_AWAITING_CONFIRMATION",
    "TOOL_AWAITING_APPROVAL",
    "binary_attached",
    "binary_attachment",
    "binary_resource",
    "binary_too_large",
    "blocked",
    "blocked_code",
    "error",
    "invalid_arguments",
    "name_collision",
    "read_failed",
    "refusal",
    "reinjection",
    "repeated_failure",
    "resource",
    "script_confirmation_hint",
    "script_declined",
    "script_failed",
    "script_isolation_unavailable",
    "script_not_listed",
    "script_not_runnable",
    "script_result",
    "search",
    "skill_content_marker",
    "suggestions",
    "tool_approval_hint",
    "tool_declined",
    "tool_locked_reason",
    "tools_missing_warning",
    "tools_not_available_reason",
    "turn_incomplete",
    "turn_incomplete_reason",
    "turn_refused_reason",
    "unknown_tool",
]


# -- run_skill_script -------------------------------------------------------------------------

#: Characters of each output stream (stdout, stderr) a script reply keeps, after the
#: runner's own byte cap: the rest is cut and the reply says so.
MAX_SCRIPT_OUTPUT_CHARS = 16_000


def _stream(data: bytes) -> tuple[str, bool]:
    """One output stream as reply text: decoded (bad bytes replaced), capped, escaped so it
    cannot close its tag or forge markup, and made safe as every prompt text is."""
    text = data.decode("utf-8", "replace")
    cut = len(text) > MAX_SCRIPT_OUTPUT_CHARS
    if cut:
        text = text[:MAX_SCRIPT_OUTPUT_CHARS]
    return escape(prompt_text(text)), cut


def script_result(
    skill: str,
    script: str,
    exit_code: int | None,
    stdout: bytes,
    stderr: bytes,
    duration_seconds: float,
    truncated: bool,
    killed: str,
    isolation: str,
) -> tuple[str, bool]:
    """The reply of a script that ran, and whether its output was cut (by the runner's cap
    or this reply's): exit code, duration, isolation, then stdout and stderr, escaped."""
    out, out_cut = _stream(stdout)
    err, err_cut = _stream(stderr)
    cut = truncated or out_cut or err_cut
    ended = f" ended_early={quoteattr(killed)}" if killed else ""
    head = (
        f"<script_result skill={quoteattr(skill)} script={quoteattr(script)} "
        f'exit_code="{exit_code if exit_code is not None else "none"}" '
        f'duration_ms="{round(duration_seconds * 1000)}" isolation={quoteattr(isolation)} '
        f'output_cut="{str(cut).lower()}"{ended}>'
    )
    note = (
        "\n(Output was cut at the cap; ask for less output, e.g. with the script's options.)"
        if cut
        else ""
    )
    text = f"{head}\n<stdout>\n{out}\n</stdout>\n<stderr>\n{err}\n</stderr>\n</script_result>{note}"
    return text, cut


def script_not_listed(skill: str, script: str, listing: Sequence[str]) -> str:
    """The reply for a script path the skill's listing does not show."""
    shown = ", ".join(single_line(p) for p in list(listing)[:20]) or "(none)"
    return error(
        f"{quoted_excerpt(script)} is not a file skill {skill!r} lists, so it cannot run. "
        f"Its files: {shown}."
    )


def script_not_runnable(skill: str, script: str, why: str = "") -> str:
    """The reply for a listed file skillcore does not run (no interpreter in its table for
    the file, or not a regular file); ``why``: the interpreter table's reason."""
    reason = f" ({single_line(why)})" if why else " (no interpreter for its file type)"
    return error(
        f"{quoted_excerpt(script)} of skill {skill!r} is not a script skillcore can run"
        f"{reason}. Do not retry; read it with the resource tool if its contents help."
    )


def script_declined(skill: str, script: str, detail: str) -> str:
    """The reply for a run the approval hook (or the user) declined."""
    return error(
        f"Running {quoted_excerpt(script)} of skill {skill!r} was not approved"
        f"{': ' + detail if detail else ''}. Do not retry it; continue without it or ask "
        "the user."
    )


def script_isolation_unavailable(skill: str, script: str, detail: str) -> str:
    """The reply for a run the runner refused for want of the required isolation."""
    return error(
        f"{quoted_excerpt(script)} of skill {skill!r} was not run: the sandbox this agent "
        f"requires is not available here ({detail}). Do not retry; tell the user."
    )


#: The reply to the model while a script run waits for the user's confirmation (a framework's
#: human-in-the-loop); the run happens, or is declined, when the user answers.
SCRIPT_AWAITING_CONFIRMATION = (
    "This script run needs the user's confirmation; it runs once they approve it."
)


def script_confirmation_hint(skill: Any, script: Any, args: Any) -> str:
    """What the user is asked before a script run (one line, bounded, escaped)."""
    shown = ", ".join(quoted_excerpt(str(a), 60) for a in list(args or [])[:8])
    return single_line(
        f"Run {quoted_excerpt(str(script))} of skill {quoted_excerpt(str(skill))}"
        f"{' with arguments ' + shown if shown else ''}? Approve or reject."
    )


#: The reply to the model while a call waits for the user's approval (APPROVE policy, a
#: framework's human-in-the-loop); it runs, or is declined, when the user answers.
TOOL_AWAITING_APPROVAL = "This call needs the user's approval; it runs once they approve it."


def tool_approval_hint(tool: Any, decision: ToolDecision) -> str:
    """What the user is asked before a call no loaded skill pre-approves (one line)."""
    return single_line(f"Allow {quoted_excerpt(str(tool))}? {decision.reason} Approve or reject.")


def tool_declined(tool: Any) -> str:
    """The reply for a call the user rejected (APPROVE policy)."""
    return error(
        f"The user did not approve calling {quoted_excerpt(str(tool))}. Do not retry it; "
        "continue without it or ask the user."
    )


def script_failed(skill: str, script: str, detail: str) -> str:
    """The reply for a run that could not be set up or whose runner failed."""
    return error(f"{quoted_excerpt(script)} of skill {skill!r} could not be run: {detail}")
