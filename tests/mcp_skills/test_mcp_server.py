"""``skillcore mcp``: the skill tools, resources and SEP-2640 methods through the real client."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import (
    SKILLS_EXTENSION,
    SkillMCPServer,
    parse_skill_uri,
    raw_frontmatter,
    skill_uri,
)

from .conftest import HttpServer, server_env, write_skill


class _ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class _GetParams(types.RequestParams):
    uri: str


class _GetSkill(types.Request[_GetParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: _GetParams


_ANY = TypeAdapter(dict[str, Any])


async def skills_list(client: Client) -> dict[str, Any]:
    return await client.session.send_request(_ListSkills(), _ANY)


async def skills_get(client: Client, uri: str) -> dict[str, Any]:
    return await client.session.send_request(_GetSkill(params=_GetParams(uri=uri)), _ANY)


def text_of(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def test_tools_instructions_and_state_per_connection(skills_dir: Path) -> None:
    srv = SkillMCPServer(SkillLibrary(str(skills_dir)))

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as a, Client(srv.server, mode="legacy") as b:
            assert "release-notes" in (a.instructions or "")
            caps = a.server_capabilities
            assert caps.tools is not None and caps.tools.list_changed
            tools = {t.name: t for t in (await a.list_tools()).tools}
            assert set(tools) == {
                "load_skill",
                "unload_skill",
                "load_skill_resource",
                "search_skills",
            }
            schema = tools["load_skill"].input_schema
            assert schema["additionalProperties"] is False
            assert schema["required"] == ["skill_name"]
            assert "release-notes" in schema["properties"]["skill_name"]["enum"]
            first = await a.call_tool("load_skill", {"skill_name": "release-notes"})
            assert not first.is_error and '<skill_content name="release-notes">' in text_of(first)
            again = await a.call_tool("load_skill", {"skill_name": "release-notes"})
            assert again.is_error and "already loaded" in text_of(again)
            # Another connection has its own session.
            other = await b.call_tool("load_skill", {"skill_name": "release-notes"})
            assert not other.is_error
            gone = await a.call_tool("unload_skill", {"skill_name": "release-notes"})
            assert not gone.is_error
            bad = await a.call_tool("load_skill", {"skill_name": 3})
            assert bad.is_error

    anyio.run(main)


def test_skills_list_and_get_match_the_files(skills_dir: Path) -> None:
    srv = SkillMCPServer(SkillLibrary(str(skills_dir)))

    async def main() -> None:
        async with Client(srv.server) as c:
            extensions = c.server_capabilities.extensions
            assert extensions is not None and SKILLS_EXTENSION in extensions
            listing = await skills_list(c)
            assert listing["resultType"] == "complete"
            entries = {e["frontmatter"]["name"]: e for e in listing["skills"]}
            assert set(entries) == set(srv.library.catalog.names)
            for name, entry in entries.items():
                assert entry["uri"] == f"skill://{name}/SKILL.md"
                text = (skills_dir / name / "SKILL.md").read_text()
                assert entry["frontmatter"] == yaml.safe_load(text.split("---")[1])
                uris = [r["uri"] for r in entry["resources"]]
                assert entry["uri"] in uris and len(set(uris)) == len(uris)
                for res in entry["resources"]:
                    parsed = parse_skill_uri(res["uri"])
                    assert parsed is not None and parsed[0] == name
                    data = (skills_dir / name / parsed[1]).read_bytes()
                    assert res["size"] == len(data)
                    assert res["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
                    read = await c.read_resource(res["uri"])
                    content = read.contents[0]
                    got = (
                        content.text.encode()
                        if isinstance(content, types.TextResourceContents)
                        else __import__("base64").b64decode(content.blob)
                    )
                    assert got == data
            one = await skills_get(c, "skill://csv-data-audit/SKILL.md")
            assert one["skill"] == entries["csv-data-audit"]
            with pytest.raises(MCPError) as err:
                await skills_get(c, "skill://nope/SKILL.md")
            assert err.value.error.code == types.INVALID_PARAMS
            with pytest.raises(MCPError):
                await c.read_resource("skill://csv-data-audit/../../etc/passwd")

    anyio.run(main)


def test_unlisted_and_hidden_files_are_not_served(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha", files={"references/guide.md": "guide"})
    (tmp_path / "alpha" / ".env").write_text("SECRET=1")
    srv = SkillMCPServer(SkillLibrary(str(tmp_path)))

    async def main() -> None:
        async with Client(srv.server) as c:
            entry = (await skills_list(c))["skills"][0]
            assert sorted(r["uri"] for r in entry["resources"]) == [
                "skill://alpha/SKILL.md",
                "skill://alpha/references/guide.md",
            ]
            with pytest.raises(MCPError, match="not a file of skill"):
                await c.read_resource("skill://alpha/.env")

    anyio.run(main)


def test_over_limit_skill_is_left_out_of_the_listing(tmp_path: Path) -> None:
    write_skill(tmp_path, "small")
    big = write_skill(tmp_path, "big")
    for i in range(520):  # more than the 512 files a skill may list
        (big / "assets").mkdir(exist_ok=True)
        (big / "assets" / f"f{i}.txt").write_text("x")
    srv = SkillMCPServer(SkillLibrary(str(tmp_path), max_resources=1000))

    async def main() -> None:
        async with Client(srv.server) as c:
            names = [e["frontmatter"]["name"] for e in (await skills_list(c))["skills"]]
            assert names == ["small"]
            with pytest.raises(MCPError, match="512"):
                await skills_get(c, "skill://big/SKILL.md")

    anyio.run(main)


def test_refresh_sends_list_changed_and_updates_tools(tmp_path: Path) -> None:
    write_skill(tmp_path, "alpha")
    srv = SkillMCPServer(SkillLibrary(str(tmp_path)))
    seen: list[str] = []
    got = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            seen.append(message.method)
            if message.method == "notifications/tools/list_changed":
                got.set()

    async def main() -> None:
        async with Client(srv.server, mode="legacy", message_handler=on_message) as c:
            await c.call_tool("load_skill", {"skill_name": "alpha"})  # the connection is known
            assert not await srv.arefresh()  # nothing changed: no notification
            write_skill(tmp_path, "beta")
            assert await srv.arefresh()
            with anyio.fail_after(10):
                await got.wait()
            tools = {t.name: t for t in (await c.list_tools()).tools}
            enum = tools["load_skill"].input_schema["properties"]["skill_name"]["enum"]
            assert sorted(enum) == ["alpha", "beta"]
            assert "beta" in (srv.server.instructions or "")
            # The loaded skill survived the refresh.
            again = await c.call_tool("load_skill", {"skill_name": "alpha"})
            assert again.is_error and "already loaded" in text_of(again)
        assert "notifications/resources/list_changed" in seen

    anyio.run(main)


def test_stdio_subprocess_keeps_one_session(skills_dir: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillcore", "mcp", str(skills_dir)], env=server_env()
    )

    async def main() -> None:
        async with Client(params) as c:
            assert "csv-data-audit" in (c.instructions or "")
            first = await c.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert not first.is_error
            again = await c.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert again.is_error and "already loaded" in text_of(again)
            entries = (await skills_list(c))["skills"]
            assert {e["frontmatter"]["name"] for e in entries} >= {"csv-data-audit"}

    anyio.run(main)


def test_http_sessions_are_not_shared(http_server: HttpServer) -> None:
    async def main() -> None:
        load = {"skill_name": "release-notes"}
        async with (
            Client(http_server.url, mode="legacy") as a,
            Client(http_server.url, mode="legacy") as b,
        ):
            assert not (await a.call_tool("load_skill", load)).is_error
            assert (await a.call_tool("load_skill", load)).is_error
            assert not (await b.call_tool("load_skill", load)).is_error
        async with Client(http_server.url) as modern:  # 2026-07-28: no session to share
            assert "release-notes" in [
                e["frontmatter"]["name"] for e in (await skills_list(modern))["skills"]
            ]
            for _ in range(2):
                r = await modern.call_tool("load_skill", {"skill_name": "release-notes"})
                assert not r.is_error

    anyio.run(main)


def test_uri_round_trip_and_frontmatter_helpers() -> None:
    assert parse_skill_uri(skill_uri("a-b", "references/x y.md")) == ("a-b", "references/x y.md")
    assert parse_skill_uri("file:///etc/passwd") is None
    assert parse_skill_uri("skill://only") is None
    fm = raw_frontmatter(b"---\nname: x\ndescription: d\ndate: 2024-01-02\n---\nbody")
    assert fm == {"name": "x", "description": "d", "date": "2024-01-02"}
    assert raw_frontmatter(b"no frontmatter") is None
    assert raw_frontmatter(b"---\nname: [unclosed\n---\n") is None


def test_binary_resources_are_image_and_blob_content(tmp_path: Path) -> None:
    """A toolkit with binary_resources=True: the tool result carries MCP image content (and a
    PDF as an embedded blob), next to the text saying what it is."""
    import base64

    from skillcore import SkillToolkit

    png = b"\x89PNG\r\n\x1a\n" + bytes(40)
    pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    d = write_skill(tmp_path, "pics")
    (d / "logo.png").write_bytes(png)
    (d / "guide.pdf").write_bytes(pdf)
    library = SkillLibrary([tmp_path])
    srv = SkillMCPServer(library, toolkit=SkillToolkit(library, binary_resources=True))

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            await c.call_tool("load_skill", {"skill_name": "pics"})
            image = await c.call_tool(
                "load_skill_resource", {"skill_name": "pics", "path": "logo.png"}
            )
            assert not image.is_error and "image/png" in text_of(image)
            part = image.content[1]
            assert isinstance(part, types.ImageContent) and part.mime_type == "image/png"
            assert base64.b64decode(part.data) == png
            doc = await c.call_tool(
                "load_skill_resource", {"skill_name": "pics", "path": "guide.pdf"}
            )
            res = doc.content[1]
            assert isinstance(res, types.EmbeddedResource)
            assert str(res.resource.uri) == skill_uri("pics", "guide.pdf")
            assert base64.b64decode(res.resource.blob) == pdf

    anyio.run(main)
