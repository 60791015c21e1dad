"""Saved state stays bounded whatever the skills list: ten loaded skills of 200 files with
long paths each make a state token the server still accepts (through the MCP client) and a
saved state ``OpenAISkills.save`` still stores (through the OpenAI dispatcher)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import STATE_META_KEY, SkillMCPServer
from skillcore.state.saved import MemoryStateStore

from .conftest import HttpServer, write_skill

SKILLS, FILES = 10, 200
#: State for ten loaded skills, whatever their listings: names and call ids only.
BOUND = 16 * 1024


@pytest.fixture(scope="module")
def long_listings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten skills of 200 files each, every path about 710 characters long."""
    root = tmp_path_factory.mktemp("listings")
    deep = "d" * 250 + "/" + "e" * 250 + "/" + "g" * 150
    for i in range(SKILLS):
        files = {f"references/{deep}/{'f' * 40}{n:03}.md": "x" for n in range(FILES)}
        write_skill(root, f"skill-{i}", files=files)
    return root


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def test_the_mcp_token_stays_under_its_cap(long_listings: Path) -> None:
    srv = SkillMCPServer(SkillLibrary(str(long_listings), cache=False))

    async def main() -> None:
        async with Client(srv.server) as client:
            meta: dict[str, Any] | None = None
            for i in range(SKILLS):
                r = await client.call_tool("load_skill", {"skill_name": f"skill-{i}"}, meta=meta)
                assert not r.is_error, text_of(r)[:300]
                assert r.meta is not None
                meta = {STATE_META_KEY: str(r.meta[STATE_META_KEY])}
            # The conversation goes on with the last token.
            again = await client.call_tool("load_skill", {"skill_name": "skill-0"}, meta=meta)
            assert again.is_error and "already loaded" in text_of(again), text_of(again)[:300]
            assert len(meta[STATE_META_KEY]) < BOUND, len(meta[STATE_META_KEY])

    anyio.run(main)


def test_openai_save_stays_under_its_cap(long_listings: Path) -> None:
    from skillcore_openai import OpenAISkills

    store = MemoryStateStore()
    skills = OpenAISkills(SkillLibrary(str(long_listings), cache=False), states=store)
    session = skills.load("c1")
    calls = [
        {
            "id": f"call-{i}",
            "type": "function",
            "function": {
                "name": "load_skill",
                "arguments": json.dumps({"skill_name": f"skill-{i}"}),
            },
        }
        for i in range(SKILLS)
    ]
    session, _ = skills.dispatch_all(session, calls)
    assert len(session.loaded_names) == SKILLS
    skills.save("c1", session)  # raised over MAX_SAVED_STATE_BYTES
    saved = store.load("c1")
    assert saved is not None and len(json.dumps(saved)) < BOUND
    assert skills.load("c1").loaded_names == session.loaded_names


def test_version_1_state_is_still_read(long_listings: Path) -> None:
    """A state saved before listings left it (version 1) restores, and saves as version 2."""
    from skillcore.runtime import STATE_SCHEMA, restore_session

    library = SkillLibrary(str(long_listings), cache=False)
    listing = [["references/a.md", "reference", 1], ["scripts/run.py", "script", None]]
    old = {
        "schema": "skillcore.session/1",
        "loaded": [{"name": "skill-1", "resources": listing, "truncated": True, "call": "c"}],
    }
    restored = restore_session(old, library.catalog)
    assert restored.note is None
    entry = restored.session.loaded_skill("skill-1")
    assert entry is not None and entry.resources_truncated and entry.delivery == "c"
    assert entry.counts == (("reference", 1), ("script", 1))
    state = restored.session.to_state()
    assert state["schema"] == STATE_SCHEMA == "skillcore.session/2"
    assert state["loaded"] == [
        {"name": "skill-1", "counts": {"reference": 1, "script": 1}, "truncated": True, "call": "c"}
    ]
    assert restore_session(state, library.catalog).session == restored.session


def test_a_missing_file_reply_lists_the_files_after_a_restore(http_server: HttpServer) -> None:
    """Over stateless HTTP every call restores from the token, which holds no listing: the
    "no such file" reply lists the skill's files from the source instead."""

    async def main() -> None:
        async with Client(http_server.url) as client:
            loaded = await client.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert loaded.meta is not None
            missing = await client.call_tool(
                "load_skill_resource",
                {"skill_name": "csv-data-audit", "path": "references/nope.md"},
                meta={STATE_META_KEY: loaded.meta[STATE_META_KEY]},
            )
            text = text_of(missing)
            assert missing.is_error and "Files of this skill: " in text, text
            assert "references/checklist.md" in text, text

    anyio.run(main)
