"""A settings file in the current directory does not drop what code set: ``enabled = false``
leaves an explicit library (and its pinned restricting skill) in place, through create_agent;
a file naming a program as its source is refused when the middleware takes its sources from
it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillcore import SkillLibrary
from skillcore.runtime.settings import ConfigError, ConfigWarning
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, tool_calls


def test_enabled_off_in_pyproject_keeps_the_pinned_restricting_skill(
    model: ScriptedChatModel,
    skills: Path,
    make_agent: Any,
    run: Any,
    helpers: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "checkout"
    work.mkdir()
    (work / "pyproject.toml").write_text("[tool.skillcore]\nenabled = false\n")
    monkeypatch.chdir(work)
    library = SkillLibrary(str(skills))
    with pytest.warns(ConfigWarning, match="enabled"):
        agent, mw = make_agent(library, pinned_skills=["alpha"], allowed_tools_policy="restrict")
    assert mw.library is library
    model.push(tool_calls("Write"))
    out = run(agent)
    assert "Alpha says: only read." in model.system(0)
    writes = [m for m in helpers.replies(out) if m.name == "Write"]
    assert writes and writes[-1].status == "error", "Write ran: the file dropped the library"


def test_a_settings_file_naming_a_program_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "checkout"
    work.mkdir()
    (work / "skills.yaml").write_text('sources: ["mcp+stdio://touch pwned"]\n')
    monkeypatch.chdir(work)
    monkeypatch.delenv("SKILLCORE_SOURCES", raising=False)
    with pytest.raises(ConfigError, match="starts a program"):
        SkillsMiddleware()
    assert not (work / "pwned").exists()
