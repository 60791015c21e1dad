"""A cold start from the parse cache imports only what discovery and rendering need."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore import SkillLibrary

SRC = Path(__file__).resolve().parents[3] / "src"

#: Modules only rare paths need: the unknown-name hint (ranking, difflib), date values in
#: frontmatter (datetime, loaded by YAML when it parses one), gated tools and binary
#: resources, and logging (no handler can exist before something imports it).
_LAZY = (
    "skillcore.catalog.ranking",
    "difflib",
    "datetime",
    "skillcore.policy.gating",
    "skillcore.tools.binary",
    "logging",
)


def test_a_cold_start_from_the_cache_skips_the_rare_path_modules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("alpha", "beta"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does {name} things.\n---\nBody.\n"
        )
    code = (
        "import sys\n"
        "from skillcore import SkillLibrary, render_catalog\n"
        f"lib = SkillLibrary({str(root)!r}, cache={str(tmp_path / 'cache')!r})\n"
        "render_catalog(lib.session())\n"
        # attrs reads each converter's signature: for a builtin (``converter=tuple``) that
        # parses its text signature with tokenize, whose first use compiles a large regex.
        "tok = sys.modules.get('tokenize')\n"
        "compiled = getattr(getattr(tok, '_compile', None), 'cache_info', None)\n"
        "tok_used = ['tokenize-regex'] if compiled and compiled().currsize else []\n"
        f"print(len(lib.catalog), *sorted(m for m in {_LAZY!r} if m in sys.modules), *tok_used)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": ""}

    def run() -> list[str]:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        ).stdout.split()

    run()  # fills the cache
    assert run() == ["2"]


def _library(root: Path, skills: dict[str, str]) -> SkillLibrary:
    for name, extra in skills.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does {name} things.\n{extra}---\nBody.\n"
        )
    return SkillLibrary(root, cache=False)


def test_the_unknown_name_hint_still_suggests_close_names(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"pdf-tools": "", "docx-tools": ""})
    assert "Did you mean: pdf-tools" in lib.session().begin_load("pdf-tool").message


def test_date_values_keep_their_text(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"dated": "metadata:\n  since: 2024-01-02\n"})
    assert lib.catalog.get("dated").metadata["since"] == "2024-01-02"


@pytest.mark.parametrize("import_logging_first", [False, True])
def test_an_unconfigured_application_sees_no_log_lines(
    tmp_path: Path, import_logging_first: bool
) -> None:
    # The standard library convention for libraries: a NullHandler on the package logger, so
    # Python's last-resort handler never prints skillcore's warnings into an application's
    # output; the missing source is still a diagnostic of the catalog. (An optional source:
    # one the user named without the flag fails at construction, see test_source_checks.)
    code = (
        ("import logging\n" if import_logging_first else "")
        + "from skillcore import SkillLibrary, SkillSource\n"
        "cat = SkillLibrary(SkillSource('no-such-skills-dir', optional=True)).catalog\n"
        "print([d.code.value for d in cat.diagnostics])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "SOURCE_UNREACHABLE" in proc.stdout


def test_a_configured_application_still_gets_the_warnings(tmp_path: Path) -> None:
    code = (
        "import logging\n"
        "logging.basicConfig(format='%(name)s %(message)s')\n"
        "from skillcore import SkillLibrary, SkillSource\n"
        "SkillLibrary(SkillSource('no-such-skills-dir', optional=True)).catalog\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert "skillcore.discovery skill source 'no-such-skills-dir'" in proc.stderr


def test_info_events_reach_a_configured_logger(tmp_path: Path) -> None:
    code = (
        "import logging, sys\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stdout, format='%(message)s')\n"
        "from skillcore import SkillLibrary\n"
        f"SkillLibrary({str(tmp_path)!r}, cache=False).catalog\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert "discovered 0 skills from 1 sources" in out
