"""Hostile input to the MCP skill server and source: cursors that are not plain numbers are
INVALID_PARAMS, never an internal error."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from skillcore import SkillLibrary
from skillcore.mcp_server import SkillMCPServer

from .test_mcp_server import _ANY, _ListSkills

BAD_CURSORS = ["\u00b2", "\u0663", "9" * 5000, "-1", " 1", "1e3", "", "99999999999999999999999"]


@pytest.mark.parametrize("cursor", BAD_CURSORS, ids=lambda c: repr(c[:8]))
def test_bad_cursors_are_invalid_params(skills_dir: Path, cursor: str) -> None:
    srv = SkillMCPServer(SkillLibrary(str(skills_dir)))

    async def main() -> None:
        async with Client(srv.server) as c:
            with pytest.raises(MCPError) as err:
                params = types.PaginatedRequestParams(cursor=cursor)
                await c.session.send_request(_ListSkills(params=params), _ANY)
            assert err.value.error.code == types.INVALID_PARAMS, err.value.error
            with pytest.raises(MCPError) as err:
                await c.list_resources(cursor=cursor, cache_mode="bypass")
            assert err.value.error.code == types.INVALID_PARAMS, err.value.error

    anyio.run(main)
