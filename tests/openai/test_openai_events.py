"""OpenAI adapters: a misconfigured source warns at construction."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from skillcore_openai import OpenAISkills


def _missing(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if getattr(r, "skillcore_event", "") == "source.missing"]


def test_dispatcher_warns_about_a_missing_relative_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="skillcore"):
        OpenAISkills("skills-typo")
    assert len(_missing(caplog)) == 1


def test_agents_sdk_warns_about_a_missing_relative_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # ImportError too: an installed Agents SDK may need a newer openai than the one pinned.
    pytest.importorskip("agents", exc_type=ImportError)
    from skillcore_openai.agents_sdk import AgentSkills

    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="skillcore"):
        AgentSkills("skills-typo")
    assert len(_missing(caplog)) == 1
