"""The shared conformance scenario through the Agents SDK adapter (plain, and profiled with
the scenario as one of two profiles), on the SDK's real ``Runner`` with its
``ScriptedModel``."""

from __future__ import annotations

from pathlib import Path

import pytest

# ImportError too: an installed Agents SDK may need a newer openai than the one pinned.
pytest.importorskip("agents", exc_type=ImportError)

from skillcore.testing import (
    CHECKS,
    check_call_order_in_one_turn,
    check_events_once,
    check_gated_tools,
    check_redelivery_after_history_loss,
    run_check,
)
from skillcore_openai.testing import AgentsSdkDriver, ProfiledAgentsSdkDriver

#: Checks the Agents SDK adapter fails today (known defects, kept visible until fixed).
KNOWN = {
    # The SDK runs a turn's tool calls and their input guardrails concurrently; the adapter
    # does not order them by the model's call order, so a Write after a restricting load in
    # one turn can pass the guardrail before the load commits.
    check_call_order_in_one_turn: "calls of one turn are not decided in call order",
    check_events_once: "calls of one turn are not decided in call order",
    check_gated_tools: "calls of one turn are not decided in call order",
    # The skill tools never learn which load replies the model still receives.
    check_redelivery_after_history_loss: "no redelivery after the history is dropped",
}


def _param(check):
    if check in KNOWN:
        return pytest.param(check, marks=pytest.mark.xfail(reason=KNOWN[check], strict=True))
    return check


@pytest.mark.parametrize(
    "driver_cls", [AgentsSdkDriver, ProfiledAgentsSdkDriver], ids=["plain", "profiled"]
)
@pytest.mark.parametrize("check", [_param(c) for c in CHECKS], ids=lambda c: c.__name__)
def test_agents_sdk_conformance(check, driver_cls: type[AgentsSdkDriver], tmp_path: Path) -> None:
    run_check(check, driver_cls(), tmp_path)
