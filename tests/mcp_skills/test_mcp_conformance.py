"""The shared conformance scenario through the MCP server and the real MCP SDK client
(in-process): the checks the server can take part in run, the rest are skipped naming the
capability it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import CHECKS, run_check

pytest.importorskip("mcp")

from skillcore.mcp_testing import McpServerDriver


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_mcp_server_conformance(check, tmp_path: Path) -> None:
    run_check(check, McpServerDriver(), tmp_path)
