"""The policy before human approval: ``interrupt_on`` entries that skip calls the policy
will block (RESTRICT, ``disallowed-tools``) and, under APPROVE, the calls the loaded skills'
``allowed-tools`` pre-approve (the decision is
:func:`skillcore.tools.preview.preview_decision`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from langchain_core.messages import AIMessage
from langgraph.prebuilt.tool_node import ToolCallRequest

from skillcore import PolicyMode, SkillSession, SkillToolkit, ToolDecision, ToolPolicy
from skillcore.runtime import preview_decision, removes_tools


class _Skills(Protocol):
    """What the gate reads of the middleware (which imports this module to offer ``gate``)."""

    @property
    def policy(self) -> ToolPolicy: ...

    @property
    def toolkit(self) -> SkillToolkit: ...

    def session_for(self, state: Any) -> SkillSession: ...


def gate(skills: _Skills, interrupt_on: Mapping[str, Any]) -> dict[str, Any]:
    """``interrupt_on`` with a ``when`` predicate on each entry (combined with its own) that
    previews the decision the call will get, applying the turn's earlier skill calls in call
    order: a blocked call is not asked about, and under APPROVE neither is a pre-approved one.
    Under RECOMMEND with no skill able to remove tools nothing is ever blocked, and
    ``interrupt_on`` is returned as it is."""
    if skills.policy.mode is PolicyMode.RECOMMEND and not removes_tools(
        skills.toolkit.library.catalog
    ):
        return dict(interrupt_on)
    gated: dict[str, Any] = {}
    for tool_name, config in interrupt_on.items():
        if config is False:
            gated[tool_name] = config
            continue
        base = dict(_expanded(tool_name) if config is True else config)
        gated[tool_name] = {**base, "when": _when(skills, base.get("when"))}
    return gated


def _when(skills: _Skills, own: Callable[[ToolCallRequest], bool] | None) -> Callable[..., bool]:
    def when(request: ToolCallRequest) -> bool:
        decision = _preview(skills, request)
        if decision is not None and not decision.allowed:
            return False
        approve = skills.policy.mode is PolicyMode.APPROVE
        if approve and decision is not None and not decision.needs_approval:
            return False  # pre-approved by a loaded skill's allowed-tools
        return True if own is None else bool(own(request))

    return when


def _preview(skills: _Skills, request: ToolCallRequest) -> ToolDecision | None:
    """The decision the call will get; None when its turn cannot be found (then it is
    asked about, as without skills)."""
    state = request.state if isinstance(request.state, Mapping) else {}
    call_id = request.tool_call.get("id")
    for message in reversed(state.get("messages", ())):
        if isinstance(message, AIMessage):
            calls = [(c["name"], c.get("args") or {}) for c in message.tool_calls]
            ids = [c.get("id") for c in message.tool_calls]
            if call_id not in ids:
                return None
            return preview_decision(
                skills.toolkit, skills.session_for(state), calls, ids.index(call_id)
            )
    return None


def _expanded(tool_name: str) -> Mapping[str, Any]:
    """What ``interrupt_on={tool_name: True}`` means, as HumanInTheLoopMiddleware says."""
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    return HumanInTheLoopMiddleware(interrupt_on={tool_name: True}).interrupt_on[tool_name]
