"""RESTRICT before human approval: ``interrupt_on`` entries that skip calls the
allowed-tools policy will block (the decision is
:func:`skillcore.tools.preview.preview_decision`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from langchain_core.messages import AIMessage
from langgraph.prebuilt.tool_node import ToolCallRequest

from skillcore import PolicyMode, SkillSession, SkillToolkit, ToolPolicy
from skillcore.runtime import preview_decision


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
    order. Under RECOMMEND nothing is ever blocked, and ``interrupt_on`` is returned as it is."""
    if skills.policy.mode is PolicyMode.RECOMMEND:
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
        if _will_block(skills, request):
            return False
        return True if own is None else bool(own(request))

    return when


def _will_block(skills: _Skills, request: ToolCallRequest) -> bool:
    state = request.state if isinstance(request.state, Mapping) else {}
    call_id = request.tool_call.get("id")
    for message in reversed(state.get("messages", ())):
        if isinstance(message, AIMessage):
            calls = [(c["name"], c.get("args") or {}) for c in message.tool_calls]
            ids = [c.get("id") for c in message.tool_calls]
            if call_id not in ids:
                return False
            decision = preview_decision(
                skills.toolkit, skills.session_for(state), calls, ids.index(call_id)
            )
            return not decision.allowed
    return False


def _expanded(tool_name: str) -> Mapping[str, Any]:
    """What ``interrupt_on={tool_name: True}`` means, as HumanInTheLoopMiddleware says."""
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    return HumanInTheLoopMiddleware(interrupt_on={tool_name: True}).interrupt_on[tool_name]
