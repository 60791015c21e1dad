"""LangChain: a misconfigured source warns at construction; state repairs are reported once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from skillcore_langchain import SkillsMiddleware


def test_a_missing_relative_source_warns_at_construction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="skillcore"):
        mw = SkillsMiddleware("skills-typo")
    found = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "source.missing"]
    assert len(found) == 1 and "skills-typo" in found[0].getMessage()
    assert mw.toolkit.specs(mw.library.catalog) == ()  # and indeed no skill tools


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
