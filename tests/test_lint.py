"""ruff is part of the test suite so style and typing-annotation rules cannot rot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    if shutil.which("ruff") is None:  # pragma: no cover - ruff is in the [test] extra
        # CI installs the [test] extra: there a missing ruff is a failure, not a skip.
        if os.environ.get("SKILLCORE_REQUIRE_TEST_TOOLS"):
            pytest.fail("ruff is not installed (it is in the [test] extra)")
        pytest.skip("ruff is not installed")
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "bench", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
