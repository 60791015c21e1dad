"""The redelivery rule: loading a loaded skill whose load reply the model no longer sees sends
it again (REDELIVERED, session unchanged); otherwise ALREADY_LOADED."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import OutcomeCode, SkillLibrary, SkillToolkit
from skillcore.catalog.render import delivered, undelivered

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"
LIBRARY = SkillLibrary([EXAMPLES])
NAMES = ["csv-data-audit", "python-testing", "release-notes"]


def fresh_load(toolkit: SkillToolkit, name: str) -> str:
    return toolkit.call(LIBRARY.session(), "load_skill", {"skill_name": name}).text


@settings(settings.get_profile("skillcore"))
@given(
    loaded=st.lists(st.sampled_from(NAMES), unique=True, max_size=3),
    shown=st.sets(st.sampled_from(NAMES)),
    target=st.sampled_from(NAMES),
)
def test_redelivered_exactly_when_loaded_and_missing(loaded, shown, target) -> None:
    toolkit = SkillToolkit(LIBRARY)
    session, _ = toolkit.load_all(LIBRARY.session(), loaded)
    replies = [fresh_load(toolkit, n) for n in shown]
    hidden = undelivered(session.loaded_names, ["unrelated", *replies])
    assert hidden == frozenset(loaded) - shown
    assert delivered(session.loaded_names, replies) == frozenset(loaded) & shown
    result = toolkit.call(session, "load_skill", {"skill_name": target}, hidden=hidden)
    if target not in loaded:
        assert result.code is OutcomeCode.LOADED
    elif target in shown:
        assert result.code is OutcomeCode.ALREADY_LOADED and not result.ok
    else:
        assert result.code is OutcomeCode.REDELIVERED and result.ok and not result.changed
        assert result.session == session
        assert result.text.startswith(f'<skill_content name="{target}">')
        # The same text a fresh load sends.
        assert result.text == fresh_load(toolkit, target)
