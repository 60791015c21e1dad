"""MCP over streamable HTTP with the SDK's default client (protocol 2026-07-28, stateless):
the conversation's state travels as a signed token, the server prints its URL, and a
legacy-mode client sees the Skills extension."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from skillcore import SkillLibrary, SkillSource, StateError
from skillcore.apps.mcp_server import STATE_META_KEY
from skillcore.state.token import MAX_STATE_TOKEN_BYTES, StateSigner

from .conftest import HttpServer, server_env

CHECKLIST = {"skill_name": "csv-data-audit", "path": "references/checklist.md"}


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def token_of(result: types.CallToolResult) -> str:
    assert result.meta is not None and STATE_META_KEY in result.meta, result
    return str(result.meta[STATE_META_KEY])


def test_load_then_read_a_resource_with_the_default_client(http_server: HttpServer) -> None:
    async def main() -> None:
        async with Client(http_server.url) as client:  # the SDK's default: stateless HTTP
            loaded = await client.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert not loaded.is_error, text_of(loaded)
            token = token_of(loaded)
            read = await client.call_tool(
                "load_skill_resource", CHECKLIST, meta={STATE_META_KEY: token}
            )
            assert not read.is_error, text_of(read)
            assert "checklist" in text_of(read).lower()
            again = await client.call_tool(
                "load_skill", {"skill_name": "csv-data-audit"}, meta={STATE_META_KEY: token}
            )
            assert again.is_error and "already loaded" in text_of(again)
            # Unload, then the resource is refused again: the newest token is the state.
            unloaded = await client.call_tool(
                "unload_skill", {"skill_name": "csv-data-audit"}, meta={STATE_META_KEY: token}
            )
            assert not unloaded.is_error
            gone = await client.call_tool(
                "load_skill_resource", CHECKLIST, meta={STATE_META_KEY: token_of(unloaded)}
            )
            assert gone.is_error and "not loaded" in text_of(gone)
            # Without a token a call stands alone: a resource read loads its skill first.
            fresh = await client.call_tool("load_skill_resource", CHECKLIST)
            assert not fresh.is_error and "checklist" in text_of(fresh).lower()
            again = await client.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert not again.is_error, text_of(again)

    anyio.run(main)


def test_a_forged_or_altered_token_is_refused(http_server: HttpServer) -> None:
    async def main() -> None:
        async with Client(http_server.url) as client:
            loaded = await client.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            token = token_of(loaded)
            other = StateSigner().seal(_session())  # a valid token of another server
            for bad in (token[:-2] + "AA", other, "sc1.x.y", "garbage", 42):
                with pytest.raises(MCPError, match="state token"):
                    await client.call_tool(
                        "load_skill_resource", CHECKLIST, meta={STATE_META_KEY: bad}
                    )

    anyio.run(main)


def test_the_http_server_prints_its_url(skills_dir: Path) -> None:
    cmd = [sys.executable, "-m", "skillcore", "mcp", str(skills_dir)]
    proc = subprocess.Popen(
        [*cmd, "--transport", "http", "--port", "0"],
        env=server_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("skillcore mcp: serving 5 skills over streamable HTTP at "), line
        url = line.split(" at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        assert not url.startswith("http://127.0.0.1:0/")

        async def main() -> list[str]:
            async with Client(url) as client:
                return [t.name for t in (await client.list_tools()).tools]

        assert "load_skill" in anyio.run(main)
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()


def test_a_legacy_mode_source_reads_skillcore_s_own_server(http_server: HttpServer) -> None:
    url = "mcp+http" + http_server.url[len("http") :]
    for mode in ("legacy", "auto"):
        library = SkillLibrary(SkillSource(url, storage_options={"mode": mode}), cache=False)
        assert "csv-data-audit" in library.catalog.names, (mode, library.catalog.diagnostics)


# -- the token itself --------------------------------------------------------------------------


def _session() -> Any:
    from skillcore import SkillToolkit, examples_path

    library = SkillLibrary(examples_path(), cache=False)
    toolkit = SkillToolkit(library)
    return toolkit.call(library.session(), "load_skill", {"skill_name": "csv-data-audit"}).session


def test_a_token_round_trips_and_is_bound_to_its_secret() -> None:
    session = _session()
    signer = StateSigner(b"k0123456789abcdef" * 2)
    token = signer.seal(session)
    assert signer.open(token) == session.to_state()
    assert (
        StateSigner(b"k0123456789abcdef" * 2).open(token) == session.to_state()
    )  # a shared secret
    with pytest.raises(StateError, match="not signed by this server"):
        StateSigner(b"j0123456789abcdef" * 2).open(token)
    with pytest.raises(StateError, match="longer than"):
        signer.open("sc1." + "a" * MAX_STATE_TOKEN_BYTES + ".b")
    with pytest.raises(ValueError, match="16 bytes"):
        StateSigner(b"short")


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=60).map(repr)), st.integers(0, 400))
def test_nothing_but_the_signer_s_own_token_opens(junk: str, cut: int) -> None:
    signer = StateSigner(b"s0123456789abcdef" * 2)
    token = signer.seal(SkillLibrary([], cache=False).session())
    for candidate in (junk, token[:cut] + junk + token[cut:]):
        if candidate == token:
            continue
        with pytest.raises(StateError):
            signer.open(candidate)
