"""The shared conformance scenario through ``ProfiledSkillToolset`` (the scenario is one of two
profiles, selected by the session state), on the real ADK runner, with RESTRICT enforced by
the agent's callback and by the app plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import CHECKS, run_check
from skillcore_adk.testing import ProfiledAdkDriver


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_profiled_adk_conformance(check, enforcement: str, tmp_path: Path) -> None:
    run_check(check, ProfiledAdkDriver(enforcement), tmp_path)
