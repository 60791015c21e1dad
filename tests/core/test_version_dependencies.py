"""A skill's ``version`` and ``dependencies`` are shown where people and models look: the load
reply, ``skillcore show``; a dependency that names no skill in the catalog is a diagnostic."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import Code, Severity, SkillLibrary, SkillToolkit
from skillcore.apps.cli import main


def write(root: Path, name: str, extra: str = "") -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name} things.\n{extra}---\nBody of {name}.\n"
    )


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    write(tmp_path, "report", "version: 2.1.0\ndependencies: [charts, ghost]\n")
    write(tmp_path, "charts", "version: '1.0'\n")
    return SkillLibrary(tmp_path, cache=False)


def test_the_load_reply_shows_version_and_dependencies(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library)
    reply = toolkit.call(library.session(), "load_skill", {"skill_name": "report"}).text
    assert "Version: 2.1.0" in reply.splitlines()
    assert "Declared dependencies (load them too if the task needs them): charts, ghost" in reply


def test_a_dependency_missing_from_the_catalog_is_a_diagnostic(library: SkillLibrary) -> None:
    missing = [d for d in library.catalog.diagnostics if d.code is Code.MISSING_DEPENDENCY]
    assert len(missing) == 1
    (diag,) = missing
    assert diag.severity is Severity.WARNING
    assert diag.field == "dependencies" and diag.path == "report/SKILL.md"
    assert "'ghost'" in diag.message and "'charts'" not in diag.message
    assert library.catalog.get("report") is not None  # a warning: the skill stays usable


def test_a_dependency_appearing_later_clears_the_diagnostic(library: SkillLibrary) -> None:
    root = Path(library.sources[0].url)
    write(root, "ghost")
    library.refresh()
    assert not [d for d in library.catalog.diagnostics if d.code is Code.MISSING_DEPENDENCY]


def test_show_prints_version_and_dependencies(library: SkillLibrary, capsys) -> None:
    root = library.sources[0].url
    assert main(["show", "report", root]) == 0
    out = capsys.readouterr().out
    assert "version:       2.1.0" in out
    assert "dependencies:  charts, ghost (not in the catalog: ghost)" in out
