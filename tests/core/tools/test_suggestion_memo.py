"""The suggestion note is worked out for every user message on every model call; each
message is ranked once per catalog (a long conversation re-ranked all its messages on every
call once it had more than a few hundred), and the memo stays bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import SkillLibrary, SkillToolkit
from skillcore.testing import write_skill
from skillcore.tools import toolkit as toolkit_module


@pytest.fixture
def toolkit(tmp_path: Path) -> SkillToolkit:
    write_skill(tmp_path, "csv-audit", "Audit CSV files for broken rows and encodings.")
    write_skill(tmp_path, "pdf-forms", "Fill in PDF forms and extract their fields.")
    return SkillToolkit(SkillLibrary([tmp_path]), suggestions=3)


def test_each_message_is_ranked_once_however_long_the_conversation(
    toolkit: SkillToolkit, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = toolkit.library.catalog
    index = toolkit_module.index_for(catalog)
    ranked: list[str] = []
    select = index.select

    def counting(text: str, *args: object, **kw: object) -> object:
        ranked.append(text)
        return select(text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "select", counting)
    messages = [f"audit the csv files for broken rows, export {i}" for i in range(600)]
    notes = [toolkit.suggestion_note(catalog, m) for m in messages]
    for _ in range(3):  # three more model calls of the same conversation
        assert [toolkit.suggestion_note(catalog, m) for m in messages] == notes
    assert len(ranked) == len(messages)
    assert "csv-audit" in notes[0]


def test_the_memo_is_bounded(toolkit: SkillToolkit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolkit_module, "SUGGESTION_MEMO_ENTRIES", 10)
    catalog = toolkit.library.catalog
    for i in range(50):
        toolkit.suggestion_note(catalog, f"fill in the pdf form {i}")
    memo = toolkit_module.per_catalog(catalog, "suggestions", toolkit_module._Suggestions)
    assert len(memo._names) == 10
