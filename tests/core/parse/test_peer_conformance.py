"""Behaviours the peer projects' own test suites expect: a folder without ``SKILL.md`` is an
error when validating strictly, ADK's typed metadata is accepted in strict mode, an empty
optional field is None, and a ``version`` that is not text is kept with a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import Code, Severity, SkillLibrary
from skillcore.apps.cli import main
from skillcore.policy.gating import skill_gated_tools


def _skill(root: Path, body: str) -> Path:
    d = root / "x"
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\nname: x\ndescription: Does x.\n{body}---\n# Body\n")
    return root


def test_a_folder_without_skill_md_is_an_error_in_strict_mode(tmp_path: Path) -> None:
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    catalog = SkillLibrary(tmp_path / "empty", mode="strict", cache=False).catalog
    assert [d.code for d in catalog.errors] == [Code.EMPTY_SOURCE], catalog.diagnostics
    lenient = SkillLibrary(tmp_path / "empty", cache=False).catalog
    assert not lenient.errors  # lenient discovery only warns


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_validate_reports_a_folder_without_skill_md_as_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    (tmp_path / "empty").mkdir()
    code = main(["validate", str(tmp_path / "empty"), "--mode", mode])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.startswith("error") and "EMPTY_SOURCE" in out, out


def test_adk_typed_metadata_is_accepted_in_strict_mode(tmp_path: Path) -> None:
    root = _skill(
        tmp_path,
        "metadata:\n  adk_additional_tools: [deploy, rollback]\n  adk_inject_state: true\n",
    )
    library = SkillLibrary(root, mode="strict", cache=False)
    meta = library.catalog.get("x")
    assert meta is not None, library.catalog.diagnostics
    assert not [d for d in library.catalog.diagnostics if d.severity is not Severity.INFO]
    assert skill_gated_tools(meta) == ("deploy", "rollback")
    assert meta.metadata["adk_inject_state"] == "true"


def test_other_typed_metadata_is_still_refused_in_strict_mode(tmp_path: Path) -> None:
    root = _skill(tmp_path, "metadata:\n  adk_inject_state: [1]\n  author: [a]\n")
    assert SkillLibrary(root, mode="strict", cache=False).catalog.get("x") is None


@pytest.mark.parametrize("field", ["license", "compatibility", "argument-hint", "version"])
@pytest.mark.parametrize("value", ["", "''", '""', "'  '"])
def test_an_empty_optional_field_is_none(tmp_path: Path, field: str, value: str) -> None:
    meta = SkillLibrary(_skill(tmp_path, f"{field}: {value}\n"), cache=False).catalog.get("x")
    assert meta is not None
    assert getattr(meta, field.replace("-", "_")) is None


@pytest.mark.parametrize("value", ["3", "1.5", "2024-01-01"])
def test_a_version_that_is_not_text_gets_a_warning(tmp_path: Path, value: str) -> None:
    library = SkillLibrary(_skill(tmp_path, f"version: {value}\n"), cache=False)
    meta = library.catalog.get("x")
    assert meta is not None and meta.version is not None
    warnings = [d for d in library.catalog.diagnostics if d.field == "version"]
    assert warnings and warnings[0].severity is Severity.WARNING, library.catalog.diagnostics
