"""The shared conformance scenario through the ADK adapter, on the real ADK runner.

Run twice: RESTRICT enforced by the agent's ``before_tool_callback`` and by the app plugin.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import CHECKS, run_check
from skillcore_adk.testing import AdkDriver


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_adk_conformance(check, enforcement: str, tmp_path: Path) -> None:
    run_check(check, AdkDriver(enforcement), tmp_path)


def test_driver_rejects_unknown_enforcement() -> None:
    with pytest.raises(ValueError, match="enforcement"):
        AdkDriver("nope")
