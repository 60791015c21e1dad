"""The shared conformance scenario through the Agents SDK adapter (plain, and profiled with
the scenario as one of two profiles), on the SDK's real ``Runner`` with its
``ScriptedModel``."""

from __future__ import annotations

from pathlib import Path

import pytest

# ImportError too: an installed Agents SDK may need a newer openai than the one pinned.
pytest.importorskip("agents", exc_type=ImportError)

from skillcore.testing import CHECKS, run_check
from skillcore_openai.testing import AgentsSdkDriver, ProfiledAgentsSdkDriver


@pytest.mark.parametrize(
    "driver_cls", [AgentsSdkDriver, ProfiledAgentsSdkDriver], ids=["plain", "profiled"]
)
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_agents_sdk_conformance(check, driver_cls: type[AgentsSdkDriver], tmp_path: Path) -> None:
    run_check(check, driver_cls(), tmp_path)
