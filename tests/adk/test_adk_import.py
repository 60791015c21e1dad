"""``import skillcore_adk`` stays light: ``google.adk.skills`` is imported on first use only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import skillcore

SRC = Path(skillcore.__file__).resolve().parents[1]  # the code under test, wherever it lives


def test_registry_module_is_imported_lazily() -> None:
    code = (
        "import sys, skillcore_adk\n"
        "assert 'google.adk.skills' not in sys.modules, 'imported eagerly'\n"
        "assert 'skillcore_adk._registry' not in sys.modules\n"
        "from skillcore_adk import LibrarySkillRegistry, to_frontmatter\n"
        "assert 'google.adk.skills' in sys.modules\n"
        "from google.adk.skills import SkillRegistry\n"
        "assert issubclass(LibrarySkillRegistry, SkillRegistry) and callable(to_frontmatter)\n"
        "assert set(skillcore_adk.__all__) <= set(dir(skillcore_adk)) | {'LibrarySkillRegistry',"
        " 'to_frontmatter'}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0, out.stderr


def test_unknown_attribute_is_an_attribute_error() -> None:
    import skillcore_adk

    with pytest.raises(AttributeError):
        skillcore_adk.NoSuchThing  # noqa: B018
