"""Running skill hooks: which fire is :func:`skillcore.state.hooks.hooks_for`; this runs them.

``type: command`` hooks run through the configured :class:`~skillcore.runner.ScriptRunner`
as ``bash -c <command>`` with the event as JSON on stdin, only for skills whose trust tier
runs code (:meth:`~skillcore.SkillLibrary.tier`: a trusted source, or files that match the
lock); without a runner they are inert (one
``hook.skipped`` event per skill). Exit code 2 of a ``PreToolUse`` hook blocks the call with
its stderr as the reason; a ``PostToolUse`` hook's exit 2 stderr, a ``SessionStart`` hook's
stdout and ``type: prompt`` text go to the conversation's next model call
(:meth:`SkillHooks.context`); any other failure is reported, never blocking. Hooks run only
for calls the policy allowed: a hook can block or annotate, never allow.

What one process remembers (``once`` hooks fired, text waiting for the next model call) is
kept per conversation key, for the last :data:`~skillcore.limits.HOOK_CONVERSATIONS`
conversations; it is not part of the saved session.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from skillcore import events
from skillcore._escaping import escape, prompt_text, quoteattr
from skillcore._recent import Recent
from skillcore.codes import DecisionCode
from skillcore.library import SkillLibrary
from skillcore.limits import (
    HOOK_CONTEXT_CHARS,
    HOOK_CONVERSATIONS,
    HOOK_EVENT_BYTES,
    HOOK_OUTPUT_CHARS,
)
from skillcore.model import Catalog, SkillMetadata
from skillcore.outcome_texts import hook_blocked_reason
from skillcore.policy import RawInput, ToolDecision
from skillcore.runner import (
    Isolation,
    IsolationUnavailable,
    RunLimits,
    ScriptRequest,
    ScriptResult,
    ScriptRunner,
)
from skillcore.state import Hook, HookEvent, SkillSession, hooks_for

#: The exit code by which a command hook blocks (Claude Code's).
BLOCK_EXIT = 2


@attrs.frozen
class HookVerdict:
    """What the hooks of one event decided: ``blocked`` (a ``PreToolUse`` hook exited 2)
    with the ``reason`` for the model."""

    blocked: bool = False
    reason: str = ""


_PASS = HookVerdict()


class _Conversation:
    """What one process remembers of a conversation's hooks."""

    __slots__ = ("fired", "pending")

    def __init__(self) -> None:
        self.fired: set[str] = set()
        self.pending: list[str] = []


class SkillHooks:
    """The hooks of one toolkit's skills (see the module docstring)."""

    def __init__(
        self,
        library: SkillLibrary,
        runner: ScriptRunner | None = None,
        *,
        require: Isolation = Isolation.LIMITS,
    ) -> None:
        self.library = library
        self.runner = runner
        #: The least isolation a hook command runs under (the runner refuses less).
        self.require = require
        self._conversations: Recent[str, _Conversation] = Recent(HOOK_CONVERSATIONS)
        self._warned: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._empty_dir: Path | None = None
        self._catalog_hooks: tuple[Catalog, bool] | None = None

    # -- the events ------------------------------------------------------------------------

    def pre_tool(
        self, session: SkillSession, tool: str, arguments: Any = None, *, conversation: str = ""
    ) -> ToolDecision | None:
        """Run the ``PreToolUse`` hooks of a call the policy allowed: the refusal
        (``HOOK_BLOCKED``, reply with :func:`skillcore.tools.replies.blocked`) when one
        exits 2, else None."""
        work = self._plan(session, "PreToolUse", tool, conversation)
        payload = {"tool_name": tool, "tool_input": _jsonable(arguments)}
        done = [self._run(h, r) for h, r in self._requests(work, payload)]
        return _refusal(self._conclude(work, done), tool)

    async def apre_tool(
        self, session: SkillSession, tool: str, arguments: Any = None, *, conversation: str = ""
    ) -> ToolDecision | None:
        """Async :meth:`pre_tool`."""
        work = self._plan(session, "PreToolUse", tool, conversation)
        payload = {"tool_name": tool, "tool_input": _jsonable(arguments)}
        done = [await self._arun(h, r) for h, r in self._requests(work, payload)]
        return _refusal(self._conclude(work, done), tool)

    def post_tool(
        self,
        session: SkillSession,
        tool: str,
        arguments: Any = None,
        output: Any = None,
        *,
        conversation: str = "",
    ) -> None:
        """Run the ``PostToolUse`` hooks of a call that ran (what they say goes to the next
        model call)."""
        work = self._plan(session, "PostToolUse", tool, conversation)
        payload = {"tool_name": tool, "tool_input": _jsonable(arguments), "tool_response": output}
        self._conclude(work, [self._run(h, r) for h, r in self._requests(work, payload)])

    async def apost_tool(
        self,
        session: SkillSession,
        tool: str,
        arguments: Any = None,
        output: Any = None,
        *,
        conversation: str = "",
    ) -> None:
        """Async :meth:`post_tool`."""
        work = self._plan(session, "PostToolUse", tool, conversation)
        payload = {"tool_name": tool, "tool_input": _jsonable(arguments), "tool_response": output}
        self._conclude(work, [await self._arun(h, r) for h, r in self._requests(work, payload)])

    def session_start(self, session: SkillSession, *, conversation: str = "") -> None:
        """Run the ``SessionStart`` hooks of the loaded skills (at the start of a run)."""
        work = self._plan(session, "SessionStart", "", conversation)
        self._conclude(work, [self._run(h, r) for h, r in self._requests(work, {})])

    async def asession_start(self, session: SkillSession, *, conversation: str = "") -> None:
        """Async :meth:`session_start`."""
        work = self._plan(session, "SessionStart", "", conversation)
        self._conclude(work, [await self._arun(h, r) for h, r in self._requests(work, {})])

    def context(self, conversation: str = "") -> str:
        """The hook text waiting for this conversation's next model call ("" for none), as
        one block (escaped, capped at :data:`HOOK_CONTEXT_CHARS`); taken: said once."""
        with self._lock:
            state = self._conversations.get(conversation)
            if state is None or not state.pending:
                return ""
            parts, state.pending = state.pending, []
        text = "\n".join(parts)
        if len(text) > HOOK_CONTEXT_CHARS:
            text = text[:HOOK_CONTEXT_CHARS] + "\n[hook text cut]"
        return text

    def has_hooks(self, session: SkillSession) -> bool:
        """Whether any loaded skill has hooks (adapters skip the work otherwise)."""
        catalog = session.catalog
        if not self.in_catalog(catalog):
            return False
        return any(
            (m := catalog.get(n)) is not None and bool(m.hooks) for n in session.loaded_names
        )

    def in_catalog(self, catalog: Catalog) -> bool:
        """Whether any skill of ``catalog`` has hooks (remembered for the latest catalog)."""
        known = self._catalog_hooks
        if known is not None and known[0] is catalog:
            return known[1]
        found = any(bool(m.hooks) for m in catalog.skills)
        self._catalog_hooks = (catalog, found)
        return found

    # -- the steps -------------------------------------------------------------------------

    def _plan(self, session: SkillSession, event: HookEvent, tool: str, conversation: str) -> _Work:
        """The hooks that fire, with ``once`` ones marked fired now (two calls at once never
        both run one); prompt hooks' text queued for the next model call."""
        if not session.loaded_names:
            return _Work(event, tool, conversation, ())
        with self._lock:
            state = self._conversations.get(conversation) or _Conversation()
            self._conversations.set(conversation, state)
            found = hooks_for(session, event, tool, fired=state.fired)
            state.fired.update(h.id for h in found if h.once)
            for hook in found:
                if hook.kind == "prompt":
                    state.pending.append(_note(hook, hook.text))
        return _Work(event, tool, conversation, tuple(h for h in found if h.kind == "command"))

    def _requests(
        self, work: _Work, payload: Mapping[str, Any]
    ) -> list[tuple[Hook, ScriptRequest]]:
        """A run request per command hook that may run (the others reported skipped)."""
        out: list[tuple[Hook, ScriptRequest]] = []
        for hook in work.hooks:
            metadata = self.library.catalog.get(hook.skill)
            where = self._skill_dir(metadata) if metadata is not None else None
            if self.runner is None:
                self._skip(hook, "no script_runner is configured (hooks with commands are inert)")
            elif where is None:
                self._skip(hook, "its source is not trusted (mark the SkillSource trusted=True)")
            else:
                stdin = _event_json(hook, work, payload)
                limits = RunLimits(wall_seconds=float(hook.timeout), cpu_seconds=hook.timeout)
                request = ScriptRequest(
                    skill=hook.skill,
                    script=f"hooks.{hook.event}",
                    argv=("bash", "-c", hook.text),
                    skill_dir=where,
                    stdin=stdin,
                    limits=limits,
                    require=self.require,
                )
                out.append((hook, request))
        return out

    def _run(self, hook: Hook, request: ScriptRequest) -> tuple[Hook, ScriptResult | None]:
        assert self.runner is not None  # requests are made only with a runner
        try:
            return hook, self.runner.run(request)
        except IsolationUnavailable as exc:
            self._skip(hook, f"isolation unavailable: {exc}", once=False)
            return hook, None

    async def _arun(self, hook: Hook, request: ScriptRequest) -> tuple[Hook, ScriptResult | None]:
        assert self.runner is not None
        try:
            return hook, await self.runner.arun(request)
        except IsolationUnavailable as exc:
            self._skip(hook, f"isolation unavailable: {exc}", once=False)
            return hook, None

    def _conclude(self, work: _Work, done: list[tuple[Hook, ScriptResult | None]]) -> HookVerdict:
        """The verdict of the runs: the first ``PreToolUse`` exit 2 blocks; output meant
        for the model is queued for its next call."""
        verdict = _PASS
        notes: list[str] = []
        for hook, result in done:
            if result is None:
                continue
            code = result.exit_code
            blocked = work.event == "PreToolUse" and code == BLOCK_EXIT
            events.emit(
                "hook.ran",
                {
                    "skill": hook.skill,
                    "event": hook.event,
                    "tool": work.tool,
                    "exit_code": code,
                    "blocked": blocked,
                    "duration": round(result.duration_seconds, 3),
                    "isolation": result.isolation.name,
                },
            )
            if blocked and not verdict.blocked:
                why = _output(result.stderr) or f"hook exited {BLOCK_EXIT}"
                verdict = HookVerdict(True, hook_blocked_reason(hook.skill, why))
            elif work.event == "PostToolUse" and code == BLOCK_EXIT:
                notes.append(_note(hook, _output(result.stderr)))
            elif work.event == "SessionStart" and code == 0 and result.stdout.strip():
                notes.append(_note(hook, _output(result.stdout)))
        if notes:
            with self._lock:
                state = self._conversations.get(work.conversation) or _Conversation()
                self._conversations.set(work.conversation, state)
                state.pending.extend(notes)
        return verdict

    def _skip(self, hook: Hook, reason: str, *, once: bool = True) -> None:
        """Report a command hook not run: once per skill and reason (bounded)."""
        key = (hook.skill, reason)
        with self._lock:
            if once and (key in self._warned or len(self._warned) >= HOOK_CONVERSATIONS):
                return
            self._warned.add(key)
        events.emit("hook.skipped", {"skill": hook.skill, "event": hook.event, "reason": reason})

    def _skill_dir(self, metadata: SkillMetadata) -> Path | None:
        """The folder a trusted skill's code runs with (None: its source is not trusted);
        a trusted remote source's skill gets an empty folder (its files are not here)."""
        return skill_dir(self.library, metadata, self._empty)

    def _empty(self) -> Path:
        with self._lock:
            if self._empty_dir is None:
                self._empty_dir = Path(tempfile.mkdtemp(prefix="skillcore-hooks-"))
                weakref.finalize(self, shutil.rmtree, self._empty_dir, True)
            return self._empty_dir


@attrs.frozen
class _Work:
    event: HookEvent
    tool: str
    conversation: str
    hooks: tuple[Hook, ...]


def skill_dir(library: SkillLibrary, metadata: SkillMetadata, empty: Any = None) -> Path | None:
    """The local folder of a skill whose tier runs code (None when it does not, or when it
    is remote and ``empty``, a function giving a stand-in folder, is not given)."""
    source = next((s for s in library.sources if s.label == metadata.location.source), None)
    if source is None or not library.tier(metadata).runs_code:
        return None
    if source.fs is None and source.protocol == "file":
        root = Path(os.path.abspath(os.path.expanduser(source.url.removeprefix("file://"))))
        return root / metadata.location.directory if metadata.location.directory else root
    return empty() if callable(empty) else None


def _refusal(verdict: HookVerdict, tool: str) -> ToolDecision | None:
    if not verdict.blocked:
        return None
    return ToolDecision(False, DecisionCode.HOOK_BLOCKED, verdict.reason, tool)


def _jsonable(arguments: Any) -> Any:
    """Arguments as JSON shows them (a free-form tool's raw text as text)."""
    if isinstance(arguments, RawInput):
        return arguments.text
    return arguments


def _output(data: bytes) -> str:
    """A hook's output as text for the model: decoded, capped, escaped."""
    text = data.decode("utf-8", "replace").strip()
    if len(text) > HOOK_OUTPUT_CHARS:
        text = text[:HOOK_OUTPUT_CHARS] + " [cut]"
    return prompt_text(text)


def _note(hook: Hook, text: str) -> str:
    """Text of a hook for the model, marked with its skill and event (escaped)."""
    body = escape(prompt_text(text[:HOOK_OUTPUT_CHARS]))
    head = f"<skill_hook skill={quoteattr(hook.skill)} event={quoteattr(hook.event)}>"
    return f"{head}\n{body}\n</skill_hook>"


def _event_json(hook: Hook, work: _Work, payload: Mapping[str, Any]) -> bytes:
    """The event as a command hook reads it on stdin (Claude Code's field names), at most
    :data:`HOOK_EVENT_BYTES`: tool input and output that do not fit are cut, as text."""
    event = {
        "hook_event_name": work.event,
        "session_id": work.conversation,
        "skill": hook.skill,
        **payload,
    }
    data = json.dumps(event, default=str, ensure_ascii=False).encode()
    if len(data) <= HOOK_EVENT_BYTES:
        return data
    share = HOOK_EVENT_BYTES // 16  # characters: at most 4 bytes each, two fields
    for key in ("tool_input", "tool_response"):
        if key in event:
            event[key] = json.dumps(event[key], default=str)[:share]
    event["truncated"] = True
    data = json.dumps(event, default=str, ensure_ascii=False).encode()
    if len(data) > HOOK_EVENT_BYTES:  # the other fields are bounded: only a huge id is left
        event["session_id"] = ""
        data = json.dumps(event, default=str, ensure_ascii=False).encode()
    return data


__all__ = ["BLOCK_EXIT", "HookVerdict", "SkillHooks", "skill_dir"]
