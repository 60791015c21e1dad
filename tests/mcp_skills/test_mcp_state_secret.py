"""``state_secret`` given as text works (encoded as UTF-8) and a secret too weak to sign with
is refused when the server is built, never at the first call."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import STATE_META_KEY, SkillMCPServer
from skillcore.state.token import StateSigner

CHECKLIST = {"skill_name": "csv-data-audit", "path": "references/checklist.md"}
PASSPHRASE = "a shared passphrase for every worker, 2026"


def _text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def test_a_text_secret_signs_and_opens_tokens(skills_dir: Path) -> None:
    one = SkillMCPServer(SkillLibrary(str(skills_dir)), state_secret=PASSPHRASE)
    two = SkillMCPServer(SkillLibrary(str(skills_dir)), state_secret=PASSPHRASE.encode())

    async def main() -> None:
        async with Client(one.server) as first:
            loaded = await first.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert not loaded.is_error, _text(loaded)
            assert loaded.meta is not None and STATE_META_KEY in loaded.meta, loaded
            token = loaded.meta[STATE_META_KEY]
        # Another worker with the same secret (as bytes) continues the conversation.
        async with Client(two.server) as second:
            read = await second.call_tool(
                "load_skill_resource", CHECKLIST, meta={STATE_META_KEY: token}
            )
            assert not read.is_error, _text(read)

    anyio.run(main)


@pytest.mark.parametrize(
    ("secret", "error", "why"),
    [
        ("short", ValueError, "16 bytes"),
        ("a" * 40, ValueError, "different"),
        (b"\0" * 64, ValueError, "different"),
        (12345678901234567890, TypeError, "bytes or text"),
    ],
)
def test_a_weak_or_wrong_secret_is_refused_when_built(
    skills_dir: Path, secret: object, error: type[Exception], why: str
) -> None:
    with pytest.raises(error, match=why):
        SkillMCPServer(SkillLibrary(str(skills_dir)), state_secret=secret)  # type: ignore[arg-type]
    with pytest.raises(error, match=why):
        StateSigner(secret)  # type: ignore[arg-type]
