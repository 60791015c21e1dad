"""The shared conformance scenario, run through create_agent (invoke and ainvoke)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import CHECKS, run_check, run_conformance
from skillcore_langchain.testing import LangChainDriver


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_conformance(check, use_async: bool, tmp_path: Path) -> None:
    run_check(check, LangChainDriver(use_async=use_async), tmp_path)


def test_conformance_with_prefix(tmp_path: Path) -> None:
    """Prefixed tool names behave the same (the scenario uses the driver's names)."""
    skipped = run_conformance(lambda: LangChainDriver(tool_name_prefix="sc_"), tmp_path)
    assert skipped == []
