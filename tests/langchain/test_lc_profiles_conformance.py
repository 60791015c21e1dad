"""The shared conformance scenario through ``ProfiledSkillsMiddleware`` (the scenario is one of
two profiles, selected by each run's context), on create_agent with a checkpointer."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import CHECKS, run_check
from skillcore_langchain.testing import ProfiledLangChainDriver


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_profiled_conformance(check, tmp_path: Path) -> None:
    run_check(check, ProfiledLangChainDriver(), tmp_path)
