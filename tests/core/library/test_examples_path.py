"""The bundled examples are reachable from Python, from any directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import skillcore
from skillcore import SkillLibrary, SkillSource, examples_path

ROOT = Path(__file__).resolve().parents[3]


def test_examples_path_names_the_skills_and_the_evals() -> None:
    assert (examples_path() / "csv-data-audit" / "SKILL.md").is_file()
    assert examples_path("skills") == examples_path()
    assert (examples_path("evals") / "routing.json").is_file()
    with pytest.raises(ValueError, match="unknown examples kind 'nope'"):
        examples_path("nope")
    assert "examples_path" in skillcore.__all__


def test_the_examples_load_from_another_directory(tmp_path: Path) -> None:
    code = (
        "from skillcore import SkillLibrary, examples_path\n"
        "print(len(SkillLibrary(examples_path()).catalog))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.stdout.strip() == "5", out.stderr


def test_a_path_object_is_a_source() -> None:
    source = SkillSource(examples_path())
    assert source.url == str(examples_path()) and source.protocol == "file"
    assert len(SkillLibrary([source]).catalog) == 5


def test_the_wheel_ships_the_evals_next_to_the_skills() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    included = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"][
        "targets"
    ]["wheel"]["force-include"]
    assert included["examples/skills"] == "skillcore/_examples/skills"
    assert included["examples/evals"] == "skillcore/_examples/evals"


def test_the_deepagents_extra_exists_and_is_documented() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(req.startswith("deepagents>=") for req in extras["deepagents"])
    assert (
        'pip install "skillcore-agents[deepagents]"'
        in (ROOT / "docs" / "deepagents.md").read_text()
    )


def test_without_deepagents_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain.agents")
    from skillcore import MissingDependencyError
    from skillcore_langchain.deepagents import create_deep_agent

    monkeypatch.setitem(sys.modules, "deepagents", None)  # as if it were not installed
    with pytest.raises(
        MissingDependencyError, match=r'pip install "skillcore-agents\[deepagents\]"'
    ):
        create_deep_agent(model=None)
