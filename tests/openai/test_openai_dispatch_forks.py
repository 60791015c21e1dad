"""The custom-loop dispatcher has no subagent mechanism: a forked skill's load comes back as a
``FORK`` result (nothing loaded) the loop can act on, and skills hidden from the orchestrator
are out of its catalog and tools."""

from __future__ import annotations

from pathlib import Path

from skillcore import OutcomeCode
from skillcore.testing import write_skill
from skillcore_openai import OpenAISkills


def library(root: Path) -> Path:
    lib = root / "skills"
    write_skill(lib, "explore", "Explore.", "Find X.", "context: fork\nagent: Explore\n")
    write_skill(lib, "secret", "Subagent only.", "Secret.")
    write_skill(lib, "open", "Open.", "Open.")
    return lib


def test_a_forked_skill_is_a_fork_result_the_loop_can_act_on(tmp_path: Path) -> None:
    skills = OpenAISkills(library(tmp_path))
    session = skills.session()
    result = skills.toolkit.call(session, "load_skill", {"skill_name": "explore"})
    assert result.code is OutcomeCode.FORK and not result.ok and not result.changed
    assert "cannot start" in result.text and "Explore" in result.text
    assert result.session.loaded_names == ()


def test_hidden_skills_are_out_of_the_dispatchers_catalog_and_tools(tmp_path: Path) -> None:
    skills = OpenAISkills(library(tmp_path), hidden_skills=["secret"])
    session = skills.session()
    assert "secret" not in session.catalog and "open" in session.catalog
    assert "secret" not in str(skills.chat_tools(session))
    result = skills.toolkit.call(session, "load_skill", {"skill_name": "secret"})
    assert result.code is OutcomeCode.SKILL_NOT_FOUND
