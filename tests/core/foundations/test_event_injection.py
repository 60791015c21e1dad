"""Event fields that reach a formatted log message are escaped: a forged skill name or an
error text with a line break cannot write a separate, forged log line."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import SkillLibrary
from skillcore._escaping import is_clean
from skillcore.runtime import events, restore_session
from skillcore.testing import write_skill

FORGED = "ghost\nCRITICAL root: forged line\x1b[2J\u202e"


def _one_line(message: str) -> None:
    assert "\n" not in message and "\r" not in message, message
    assert "\x1b" not in message and "\u202e" not in message, message


def test_forged_state_name_stays_on_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_skill(tmp_path, "real", "Real work.", "Body.")
    library = SkillLibrary([tmp_path])
    session, _ = library.session().finish_load(library.read_document("real"))
    state = session.to_state()
    state["loaded"].append({**state["loaded"][0], "name": FORGED})
    with caplog.at_level(logging.INFO, logger="skillcore"):
        restored = restore_session(state, library.catalog)
    messages = [r.getMessage() for r in caplog.records]
    assert any("dropped" in m for m in messages), messages
    for message in messages:
        _one_line(message)
    if restored.note is not None:
        _one_line(restored.note)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=40), st.lists(st.text(max_size=10), max_size=3))
def test_every_event_message_is_one_clean_line(text: str, names: list[str]) -> None:
    """Whatever text an event carries, its formatted message is one line without controls."""
    logger = logging.getLogger("skillcore")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.DEBUG)
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        for spec in events.EVENTS.values():
            fields = {
                f: (tuple(names) if f in ("loaded", "dropped_list") else text) for f in spec.fields
            }
            events.emit(spec.name, fields)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    assert len(records) == len(events.EVENTS)
    for record in records:
        assert is_clean(record.getMessage()), ascii(record.getMessage())
