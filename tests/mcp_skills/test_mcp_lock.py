"""Lock verification over an MCP skill server (the Skills extension): a skill changed by one
byte in any file, renamed, added or removed is refused in frozen mode; the lock records the
server's listed digests; the served listing shows each skill's trust tier."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import TIER_META_KEY, SkillMCPServer
from skillcore.sources.mcp import mcp_source
from skillcore.trust import LockFile, TrustTier, locked_skill

from .conftest import write_skill


def _serve(root: Path) -> SkillLibrary:
    server = SkillMCPServer(SkillLibrary(str(root), cache=False))
    return SkillLibrary([mcp_source(server.server, label="remote")], cache=False)


def _tree(root: Path) -> Path:
    if root.exists():
        shutil.rmtree(root)
    write_skill(root, "alpha", files={"references/notes.md": "notes\n", "scripts/run.sh": "x\n"})
    write_skill(root, "beta", files={"references/guide.md": "guide\n"})
    return root


def test_mcp_source_edits_are_refused_in_frozen_mode(tmp_path: Path) -> None:
    root = _tree(tmp_path / "skills")
    plain = _serve(root)
    assert plain.catalog.names == ("alpha", "beta")
    lock = LockFile.of(locked_skill(plain.reader("remote"), m) for m in plain.catalog.skills)
    alpha = lock.get("alpha")
    assert alpha is not None and alpha.resolved["mcp_uri"] == "skill://alpha/SKILL.md"
    assert dict(alpha.resolved["mcp_digests"]) == {
        p: d for p, d in alpha.files.items()
    }  # the server's listed digests are the lock's own
    frozen = SkillLibrary(
        [mcp_source(SkillMCPServer(SkillLibrary(str(root), cache=False)).server, label="remote")],
        cache=False,
        lock=lock,
        frozen=True,
    )
    assert frozen.catalog.names == ("alpha", "beta")
    assert frozen.tier("alpha") is TrustTier.PINNED

    def edited(edit: str) -> tuple[str, ...]:
        _tree(root)
        skill = root / "alpha"
        if edit == "byte":
            (skill / "scripts" / "run.sh").write_text("y\n")
        elif edit == "rename":
            (skill / "references" / "notes.md").rename(skill / "references" / "notes2.md")
        elif edit == "add":
            (skill / "references" / "extra.md").write_text("extra\n")
        elif edit == "remove":
            (skill / "references" / "notes.md").unlink()
        elif edit == "skill-md":
            text = (skill / "SKILL.md").read_text()
            (skill / "SKILL.md").write_text(text.replace("Body.", "Body!"))
        elif edit == "added-skill":
            write_skill(root, "gamma")
        lib = SkillLibrary(
            [
                mcp_source(
                    SkillMCPServer(SkillLibrary(str(root), cache=False)).server, label="remote"
                )
            ],
            cache=False,
            lock=lock,
            frozen=True,
        )
        return lib.catalog.names

    for edit in ("byte", "rename", "add", "remove", "skill-md"):
        assert edited(edit) == ("beta",), edit
    assert edited("added-skill") == ("alpha", "beta")


def test_skills_list_entries_carry_the_tier(tmp_path: Path) -> None:
    root = _tree(tmp_path / "skills")
    server = SkillMCPServer(SkillLibrary(str(root), cache=False))
    entry = server.skill_entry(server.library.catalog.get("alpha"))  # type: ignore[arg-type]
    assert entry["_meta"] == {TIER_META_KEY: "trusted"}  # a local folder, no lock
    remote = _serve(root)

    async def listed() -> list[str]:
        return [remote.tier(n).value for n in remote.catalog.names]

    assert anyio.run(listed) == ["untrusted", "untrusted"]  # an MCP source is not trusted
