"""A ``paths:`` skill the work does not touch is left out of search results and suggestions,
as it is left out of the catalog; touched, it is found again."""

from __future__ import annotations

from pathlib import Path

import attrs

from skillcore import SkillLibrary, SkillToolkit
from skillcore.testing import write_skill


def test_search_and_suggestions_leave_out_untouched_paths_skills(tmp_path: Path) -> None:
    write_skill(tmp_path, "ts-lint", "Lint TypeScript sources.", "", "paths: src/**/*.ts\n")
    write_skill(tmp_path, "py-lint", "Lint Python sources.")
    library = SkillLibrary([tmp_path])
    toolkit = SkillToolkit(library, suggestions=3)
    session = library.session()
    found = toolkit.search_text(session, "lint sources", None)
    assert "py-lint" in found and "ts-lint" not in found, found
    assert "ts-lint" not in toolkit.suggestion_note(session, "lint the typescript sources")
    touched = attrs.evolve(session, touched_paths=["src/a.ts"])
    assert "ts-lint" in toolkit.search_text(touched, "lint sources", None)
    assert "ts-lint" in toolkit.suggestion_note(touched, "lint the typescript sources")
