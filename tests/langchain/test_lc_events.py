"""LangChain: a typo'd source fails at construction; state repairs are reported once."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from skillcore import MissingDependencyError, SourceNotFoundError
from skillcore_langchain import SkillsMiddleware


def test_a_typod_source_fails_at_construction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not an agent that silently offers no skills: the error names the path and the
    # directory it was resolved from.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceNotFoundError, match=r"'\./skils' does not exist") as exc:
        SkillsMiddleware("./skils")
    assert str(tmp_path) in str(exc.value)


def test_a_source_without_its_extra_fails_at_construction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pygit2", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r'pip install "skillcore-agents\[git\]"'):
        SkillsMiddleware("git:///srv/skills-repo@v1.4/skills")


def test_unreadable_state_is_reported_once_per_state(
    skills: Path, caplog: pytest.LogCaptureFixture
) -> None:
    mw = SkillsMiddleware(skills)
    state = {"skillcore": {"schema": "bogus"}}
    with caplog.at_level(logging.WARNING, logger="skillcore"):
        for _ in range(3):  # every hook of a run reads the same state object
            assert mw.session_for(state).loaded_names == ()
    found = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "state.reset"]
    assert len(found) == 1
