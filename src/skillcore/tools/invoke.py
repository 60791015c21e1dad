"""The I/O shell of a user invocation (``/name args``): read the skill, expand its body for
the arguments, and load it through the pure transition (:mod:`skillcore.state.invocation`).

What the model then sees is what a load shows today: the reply of a load call, with the
expanded body in ``<skill_content>``, answering the call id recorded as the skill's delivery
(:attr:`InvocationResult.call_id`). Adapters put that call and its reply after the user's
message; a refusal is a reply to the user (:attr:`InvocationResult.text`), and the model is
not called for it. ``!`command` `` placeholders (with ``shell_preprocessing``) run on the
body *before* the arguments are put in, so an argument never reaches a shell.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from typing import Any

import attrs

from skillcore import events
from skillcore.codes import OutcomeCode
from skillcore.model import SkillDocument
from skillcore.sources import ReadError
from skillcore.state import (
    Invocation,
    LoadRequest,
    Outcome,
    SessionRef,
    SessionStore,
    SkillSession,
    as_store,
    begin_invoke,
    expand,
    parse_invocation,
)
from skillcore.tools import calls
from skillcore.tools.preprocess import apreprocess, preprocess
from skillcore.tools.toolkit import SkillToolkit

#: How the call ids skillcore makes for an invocation start.
CALL_ID_PREFIX = "skillcore-invoke-"


@attrs.frozen
class InvocationResult:
    """What a user invocation did. ``ok``: the skill's expanded instructions are in ``text``,
    to show as the reply of a ``tool`` call (the load tool) with id ``call_id`` and
    arguments ``{"skill_name": name}``; otherwise ``text`` is the reply to the user."""

    session: SkillSession
    text: str
    code: OutcomeCode
    name: str
    arguments: str
    call_id: str
    tool: str

    @property
    def ok(self) -> bool:
        """True when the skill was loaded (or delivered again) with the arguments."""
        return self.code in (OutcomeCode.LOADED, OutcomeCode.REDELIVERED)

    @property
    def call_arguments(self) -> dict[str, str]:
        """The arguments of the load call the reply answers."""
        return {"skill_name": self.name}


def new_call_id() -> str:
    """A fresh call id for an invocation's load call."""
    return CALL_ID_PREFIX + uuid.uuid4().hex[:24]


def _refused(
    session: SkillSession, invocation: Invocation, outcome: Outcome, call_id: str, tool: str
) -> InvocationResult:
    return InvocationResult(
        session, outcome.message, outcome.code, invocation.name, invocation.arguments, call_id, tool
    )


def _begin(
    toolkit: SkillToolkit,
    store: SessionStore,
    message: object,
    available: Collection[str] | None,
) -> tuple[Invocation, LoadRequest | Outcome] | None:
    session = store.read()
    invocation = parse_invocation(message, session.catalog)
    if invocation is None:
        return None
    have = frozenset(available) if available is not None and toolkit.check_tools_available else None
    return invocation, begin_invoke(session, invocation, available=have)


def _finish(
    toolkit: SkillToolkit,
    store: SessionStore,
    invocation: Invocation,
    step: LoadRequest,
    data: SkillDocument | ReadError,
    *,
    session_id: str | None,
    state: Mapping[str, Any] | None,
    call_id: str,
    report: bool = True,
) -> InvocationResult:
    tool = toolkit.names.load
    session = store.read()
    if isinstance(data, ReadError):
        outcome = session.fail_load(invocation.name, data.code, data.message)
        return _refused(session, invocation, outcome, call_id, tool)
    expanded = expand(data, invocation, session_id=session_id, state=state)
    if isinstance(expanded, Outcome):
        return _refused(session, invocation, expanded, call_id, tool)
    new, outcome = session.finish_load(
        expanded,
        redeliver=step.redeliver,
        available=step.available,
        call_id=call_id,
        by_user=True,
    )
    if not outcome.ok:
        return _refused(session, invocation, outcome, call_id, tool)
    store.write(new)
    if report:
        # The argument's length only: its text is the user's and may hold anything.
        fields = {"skill": invocation.name, "by_user": True}
        events.emit("skill.invoked", {**fields, "argument_chars": len(invocation.arguments)})
    text = toolkit.load_reply(new, expanded)
    return InvocationResult(
        new, text, outcome.code, invocation.name, invocation.arguments, call_id, tool
    )


def invoke(
    toolkit: SkillToolkit,
    target: SkillSession | SessionStore,
    message: object,
    *,
    session_id: str | None = None,
    state: Mapping[str, Any] | None = None,
    call_id: str | None = None,
    available: Collection[str] | None = None,
    _report: bool = True,
) -> InvocationResult | None:
    """Apply the user ``message`` to the store's session when it is an invocation (None when
    it is ordinary text; see :func:`skillcore.state.invocation.parse_invocation`).

    ``session_id``: what ``${SKILLCORE_SESSION_ID}``/``${CLAUDE_SESSION_ID}`` become (None
    leaves them as written). ``state``: session state for ``{var}`` in skills that set
    ``adk_inject_state``. ``call_id``: the id to record as the delivery (default: a fresh
    one). ``available``: the agent's tool names, as for a load. Never raises for bad input.
    """
    store = as_store(target)
    begun = _begin(toolkit, store, message, available)
    if begun is None:
        return None
    invocation, step = begun
    cid = call_id or new_call_id()
    if isinstance(step, Outcome):
        return _refused(store.read(), invocation, step, cid, toolkit.names.load)
    data = calls.read(toolkit.library, step, store.read())
    if toolkit.shell_preprocessing and isinstance(data, SkillDocument):
        data = preprocess(toolkit.library, toolkit.script_runner, store.read(), data)
    assert isinstance(data, SkillDocument | ReadError)  # a load reads a document
    return _finish(
        toolkit,
        store,
        invocation,
        step,
        data,
        session_id=session_id,
        state=state,
        call_id=cid,
        report=_report,
    )


async def ainvoke(
    toolkit: SkillToolkit,
    target: SkillSession | SessionStore,
    message: object,
    *,
    session_id: str | None = None,
    state: Mapping[str, Any] | None = None,
    call_id: str | None = None,
    available: Collection[str] | None = None,
) -> InvocationResult | None:
    """Async :func:`invoke` (the document is read without blocking the event loop)."""
    store = as_store(target)
    begun = _begin(toolkit, store, message, available)
    if begun is None:
        return None
    invocation, step = begun
    cid = call_id or new_call_id()
    if isinstance(step, Outcome):
        return _refused(store.read(), invocation, step, cid, toolkit.names.load)
    data = await calls.aread(toolkit.library, step, store.read())
    if toolkit.shell_preprocessing and isinstance(data, SkillDocument):
        data = await apreprocess(toolkit.library, toolkit.script_runner, store.read(), data)
    assert isinstance(data, SkillDocument | ReadError)  # a load reads a document
    return _finish(
        toolkit, store, invocation, step, data, session_id=session_id, state=state, call_id=cid
    )


def expand_message(
    toolkit: SkillToolkit,
    session: SkillSession,
    message: str,
    *,
    session_id: str | None = None,
) -> InvocationResult | None:
    """What ``message`` expands to on ``session`` (nothing is kept, nothing is reported as
    invoked): ``skillcore expand``."""
    return invoke(toolkit, SessionRef(session), message, session_id=session_id, _report=False)


__all__ = [
    "CALL_ID_PREFIX",
    "InvocationResult",
    "ainvoke",
    "expand_message",
    "invoke",
    "new_call_id",
]
