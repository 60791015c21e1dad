"""The Claude Code fields skillcore acts on (``context``, ``agent``, ``model``, ``effort``,
``arguments``, ``disallowed-tools``, ``paths``) are known extensions: information in strict
mode, while ``--mode reference`` keeps the reference validator's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.core.apps.test_cli import run_cli, write_skill

from skillcore.parse.reader_common import ACTED_ON_EXTRA_FIELDS
from skillcore.policy import skill_options

FIELDS = (
    "context: fork\n"
    "agent: researcher\n"
    "model: claude-haiku\n"
    "effort: low\n"
    "arguments:\n  - topic\n"
    "disallowed-tools: Write\n"
    "paths:\n  - src/**\n"
)


def test_strict_validate_accepts_the_fields_as_extensions(tmp_path: Path) -> None:
    write_skill(tmp_path, "demo", f"name: demo\ndescription: Demo things.\n{FIELDS}")
    proc = run_cli("validate", "--json", "--mode", "strict", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    diags = json.loads(proc.stdout)["diagnostics"]
    found = {(d["severity"], d["field"]) for d in diags if d["code"] == "UNKNOWN_FIELD"}
    expected = {"context", "agent", "model", "effort", "arguments", "disallowed-tools", "paths"}
    assert found == {("info", field) for field in expected}


def test_an_unknown_field_stays_an_error_in_strict(tmp_path: Path) -> None:
    write_skill(tmp_path, "demo", "name: demo\ndescription: Demo things.\nModel: x\n")
    proc = run_cli("validate", "--mode", "strict", str(tmp_path))
    assert proc.returncode == 1


def test_reference_mode_still_refuses_them(tmp_path: Path) -> None:
    write_skill(tmp_path, "demo", f"name: demo\ndescription: Demo things.\n{FIELDS}")
    proc = run_cli("validate", "--mode", "reference", str(tmp_path))
    assert proc.returncode == 1
    assert "Unexpected fields in frontmatter" in proc.stdout + proc.stderr
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    assert validator.validate(tmp_path / "demo")


def test_every_spelling_read_is_a_known_extension() -> None:
    keys = (
        skill_options.MODEL_KEYS
        + skill_options.EFFORT_KEYS
        + skill_options.DISALLOWED_KEYS
        + skill_options.PATHS_KEYS
    )
    assert set(keys) | {"context", "agent", "arguments"} == set(ACTED_ON_EXTRA_FIELDS)


@pytest.mark.parametrize("field", ["context", "agent", "model", "paths"])
def test_values_stay_where_their_reader_reads_them(tmp_path: Path, field: str) -> None:
    from skillcore import SkillLibrary

    write_skill(tmp_path, "demo", f"name: demo\ndescription: Demo things.\n{FIELDS}")
    catalog = SkillLibrary([tmp_path], mode="strict").discover()
    assert field in catalog.get("demo").extra
