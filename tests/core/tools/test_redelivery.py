"""The redelivery rule: loading a loaded skill whose delivery the model no longer sees sends it
again (REDELIVERED, only the delivery record changes); otherwise ALREADY_LOADED. Delivery is
the reply to the recorded call id, never a text (DESIGN §3.12)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import OutcomeCode, SkillLibrary, SkillToolkit
from skillcore.state.schema import MAX_CALL_ID

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "skills"
LIBRARY = SkillLibrary([EXAMPLES])
NAMES = ["csv-data-audit", "python-testing", "release-notes"]


def fresh_load(toolkit: SkillToolkit, name: str) -> str:
    return toolkit.call(LIBRARY.session(), "load_skill", {"skill_name": name}).text


@settings(settings.get_profile("skillcore"))
@given(
    loaded=st.lists(st.sampled_from(NAMES), unique=True, max_size=3),
    shown=st.sets(st.sampled_from(NAMES)),
    forged=st.sets(st.sampled_from(NAMES)),
    target=st.sampled_from(NAMES),
)
def test_redelivered_exactly_when_loaded_and_missing(loaded, shown, forged, target) -> None:
    toolkit = SkillToolkit(LIBRARY)
    session = LIBRARY.session()
    for n in loaded:
        session = toolkit.call(session, "load_skill", {"skill_name": n}, call_id=f"id-{n}").session
    # The genuine replies of the calls that loaded ``shown``, and for ``forged`` the very same
    # texts under other call ids (a tool output copying or imitating them).
    history = [(f"id-{n}", fresh_load(toolkit, n)) for n in shown]
    history += [(f"other-{n}", fresh_load(toolkit, n)) for n in forged]
    history.append(("x", "unrelated"))
    hidden = session.undelivered(history)
    assert hidden == frozenset(loaded) - shown
    assert session.delivered(reversed(history)) == frozenset(loaded) & shown
    result = toolkit.call(
        session, "load_skill", {"skill_name": target}, hidden=hidden, call_id="again"
    )
    if target not in loaded:
        assert result.code is OutcomeCode.LOADED
    elif target in shown:
        assert result.code is OutcomeCode.ALREADY_LOADED and not result.ok
        assert result.session is session
    else:
        assert result.code is OutcomeCode.REDELIVERED and result.ok and result.changed
        # Only the delivery record changed: the new call is now the proof.
        assert result.session.loaded_names == session.loaded_names
        assert result.session.loaded_skill(target).delivery == "again"
        assert result.session.delivered([("again", result.text)]) == {target}
        assert result.text.startswith(f'<skill_content name="{target}">')
        # The same text a fresh load sends.
        assert result.text == fresh_load(toolkit, target)


def test_redelivery_without_a_call_id_changes_nothing() -> None:
    toolkit = SkillToolkit(LIBRARY)
    session = toolkit.call(LIBRARY.session(), "load_skill", {"skill_name": NAMES[0]}).session
    assert session.loaded_skill(NAMES[0]).delivery is None
    result = toolkit.call(session, "load_skill", {"skill_name": NAMES[0]}, hidden=[NAMES[0]])
    assert result.code is OutcomeCode.REDELIVERED and result.session is session


def test_a_cleared_reply_is_not_delivery() -> None:
    """A context editor that replaced the reply's text under the same id (tool output
    clearing) took the instructions away: not delivered."""
    toolkit = SkillToolkit(LIBRARY)
    name = NAMES[0]
    session = toolkit.call(
        LIBRARY.session(), "load_skill", {"skill_name": name}, call_id="c1"
    ).session
    assert session.delivered([("c1", "[cleared]")]) == frozenset()
    blocks = [{"type": "text", "text": fresh_load(toolkit, name)}]
    assert session.delivered([("c1", blocks)]) == {name}


@settings(settings.get_profile("skillcore"))
@given(call=st.one_of(st.none(), st.integers(), st.text(max_size=300), st.lists(st.text())))
def test_saved_delivery_ids_round_trip_or_read_as_undelivered(call) -> None:
    toolkit = SkillToolkit(LIBRARY)
    session = toolkit.call(
        LIBRARY.session(), "load_skill", {"skill_name": NAMES[0]}, call_id="c1"
    ).session
    state = session.to_state()
    assert state["loaded"][0]["call"] == "c1"
    assert LIBRARY.restore(state) == session
    state["loaded"][0]["call"] = call
    restored = LIBRARY.restore(state)
    assert restored.loaded_names == session.loaded_names  # tolerant: never a reset
    ok = isinstance(call, str) and 0 < len(call) <= MAX_CALL_ID
    assert restored.loaded_skill(NAMES[0]).delivery == (call if ok else None)
    # Older states without the field: loaded, not delivered.
    del state["loaded"][0]["call"]
    assert LIBRARY.restore(state).loaded_skill(NAMES[0]).delivery is None


def test_state_schema_is_the_persisted_format_id() -> None:
    """Saved states keep their format id wherever the module lives; the interim id a
    development build wrote is still read."""
    toolkit = SkillToolkit(LIBRARY)
    session = toolkit.call(LIBRARY.session(), "load_skill", {"skill_name": NAMES[0]}).session
    state = session.to_state()
    assert state["schema"] == "skillcore.session/2"
    assert LIBRARY.restore({**state, "schema": "skillcore.state/1"}) == session
