"""OpenAI adapters: a typo'd source, or one whose extra is missing, fails at construction."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skillcore import MissingDependencyError, SourceNotFoundError
from skillcore_openai import OpenAISkills


def test_dispatcher_refuses_a_typod_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceNotFoundError, match=r"'\./skils' does not exist"):
        OpenAISkills("./skils")


def test_dispatcher_names_a_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygit2", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r'pip install "skillcore-agents\[git\]"'):
        OpenAISkills(["git:///srv/skills-repo@v1.4/skills"])


def test_agents_sdk_refuses_a_typod_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ImportError too: an installed Agents SDK may need a newer openai than the one pinned.
    pytest.importorskip("agents", exc_type=ImportError)
    from skillcore_openai import AgentSkills

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceNotFoundError, match=r"'skills-typo' does not exist"):
        AgentSkills("skills-typo")
