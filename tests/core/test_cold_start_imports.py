"""A cold start from the parse cache imports only what discovery and rendering need."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from skillcore import SkillLibrary

SRC = Path(__file__).resolve().parents[2] / "src"

#: Modules only rare paths need: the unknown-name hint (ranking, difflib) and date values
#: in frontmatter (datetime, loaded by YAML when it parses one).
_LAZY = ("skillcore.ranking", "difflib", "datetime")


def test_a_cold_start_from_the_cache_skips_the_rare_path_modules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name in ("alpha", "beta"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does {name} things.\n---\nBody.\n"
        )
    code = (
        "import sys\n"
        "from skillcore import SkillLibrary\n"
        f"lib = SkillLibrary({str(root)!r}, cache={str(tmp_path / 'cache')!r})\n"
        "lib.session().render_catalog()\n"
        f"print(len(lib.catalog), *sorted(m for m in {_LAZY!r} if m in sys.modules))\n"
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
    assert "Did you mean: pdf-tools" in lib.session()._not_found("pdf-tool")


def test_date_values_keep_their_text(tmp_path: Path) -> None:
    lib = _library(tmp_path, {"dated": "metadata:\n  since: 2024-01-02\n"})
    assert lib.catalog.get("dated").metadata["since"] == "2024-01-02"
