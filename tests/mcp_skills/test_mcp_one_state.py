"""One source of truth per conversation: over stdio and legacy HTTP the connection's state and
the state token never diverge (a call with the token changes what calls without it see), and
over stateless HTTP a host that never sends the token back still gets replies that agree."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from skillcore.apps.mcp_server import STATE_META_KEY

from .conftest import HttpServer, server_env

SKILL = {"skill_name": "csv-data-audit"}
CHECKLIST = {**SKILL, "path": "references/checklist.md"}


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def token_of(result: types.CallToolResult) -> str:
    assert result.meta is not None and STATE_META_KEY in result.meta, result
    return str(result.meta[STATE_META_KEY])


async def token_and_connection_agree(client: Client) -> None:
    """The same conversation, driven with and without the token, on one connection."""
    loaded = await client.call_tool("load_skill", SKILL)
    assert not loaded.is_error, text_of(loaded)
    unloaded = await client.call_tool(
        "unload_skill", SKILL, meta={STATE_META_KEY: token_of(loaded)}
    )
    assert not unloaded.is_error, text_of(unloaded)
    # Without the token: the connection saw the unload.
    read = await client.call_tool("load_skill_resource", CHECKLIST)
    assert read.is_error and "not loaded" in text_of(read), text_of(read)
    again = await client.call_tool("load_skill", SKILL)
    assert not again.is_error, text_of(again)
    # And a call with the newest token sees what the token-less call did.
    twice = await client.call_tool("load_skill", SKILL, meta={STATE_META_KEY: token_of(again)})
    assert twice.is_error and "already loaded" in text_of(twice), text_of(twice)
    ok = await client.call_tool("load_skill_resource", CHECKLIST)
    assert not ok.is_error, text_of(ok)


def run(connect: Callable[[], Any], body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with connect() as client:
            await body(client)

    anyio.run(main)


def test_stdio_one_state(skills_dir: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillcore", "mcp", str(skills_dir)], env=server_env()
    )
    run(lambda: Client(params), token_and_connection_agree)


def test_legacy_http_one_state(http_server: HttpServer) -> None:
    run(lambda: Client(http_server.url, mode="legacy"), token_and_connection_agree)


async def never_echoes(client: Client) -> None:
    """A generic host over stateless HTTP: it never sends the token back. Every reply stands
    alone and none contradicts an earlier one."""
    for _ in range(2):  # never "already loaded": nothing was kept
        loaded = await client.call_tool("load_skill", SKILL)
        assert not loaded.is_error and "<skill_content" in text_of(loaded), text_of(loaded)
    # The instructions just delivered point at files: they are readable.
    read = await client.call_tool("load_skill_resource", CHECKLIST)
    assert not read.is_error and "checklist" in text_of(read).lower(), text_of(read)
    # A skill the model cannot load stays unreadable.
    unknown = await client.call_tool("load_skill_resource", {**CHECKLIST, "skill_name": "nope"})
    assert unknown.is_error


def test_stateless_http_without_the_token(http_server: HttpServer) -> None:
    run(lambda: Client(http_server.url), never_echoes)


def test_a_token_from_another_connection_becomes_this_connection_s_state(
    skills_dir: Path,
) -> None:
    from skillcore import SkillLibrary
    from skillcore.apps.mcp_server import SkillMCPServer

    srv = SkillMCPServer(SkillLibrary(str(skills_dir)))

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as a, Client(srv.server, mode="legacy") as b:
            loaded = await a.call_tool("load_skill", SKILL)
            moved = await b.call_tool(
                "load_skill_resource", CHECKLIST, meta={STATE_META_KEY: token_of(loaded)}
            )
            assert not moved.is_error, text_of(moved)
            # b now holds the conversation, with or without the token.
            assert not (await b.call_tool("load_skill_resource", CHECKLIST)).is_error
            assert "already loaded" in text_of(await b.call_tool("load_skill", SKILL))
            # a is untouched by b's calls.
            gone = await b.call_tool("unload_skill", SKILL)
            assert not gone.is_error
            assert not (await a.call_tool("load_skill_resource", CHECKLIST)).is_error

    anyio.run(main)
