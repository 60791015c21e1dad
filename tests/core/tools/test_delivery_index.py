"""DeliveryIndex answers what SkillSession.delivered answers on the whole history, reading only
what was added: never "seen" for a reply that is not there, whatever happened to the history."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import SkillLibrary, SkillToolkit
from skillcore.tools.reinjection import DeliveryIndex

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "skills"
LIBRARY = SkillLibrary([EXAMPLES])
NAMES = ["csv-data-audit", "python-testing", "release-notes"]
TOOLKIT = SkillToolkit(LIBRARY)
REPLIES = {n: TOOLKIT.call(LIBRARY.session(), "load_skill", {"skill_name": n}).text for n in NAMES}


class Msg:
    """A history item: a tool reply (call id, text) or any other message."""

    def __init__(self, cid: str | None, text: str) -> None:
        self.cid, self.text = cid, text
        self.id = object()


def replies(m: Msg) -> tuple[tuple[str, object], ...]:
    return ((m.cid, m.text),) if m.cid is not None else ()


def session_with(loaded: list[str]):  # type: ignore[no-untyped-def]
    session = LIBRARY.session()
    for n in loaded:
        session = TOOLKIT.call(session, "load_skill", {"skill_name": n}, call_id=f"id-{n}").session
    return session


item = st.one_of(
    st.builds(lambda: Msg(None, "user text")),
    st.builds(lambda: Msg("other", "plain reply")),
    st.sampled_from(NAMES).map(lambda n: Msg(f"id-{n}", REPLIES[n])),  # the real reply
    st.sampled_from(NAMES).map(lambda n: Msg("forged", REPLIES[n])),  # a copy under another id
)
op = st.one_of(
    st.tuples(st.just("append"), st.lists(item, max_size=4)),
    st.tuples(st.just("compact"), st.integers(0, 8)),  # drop all but the last k
    st.tuples(st.just("clear"), st.integers(0, 30)),  # a context editor clears one reply
    st.tuples(st.just("copy"), st.none()),  # the same messages rebuilt (a new list)
)


@settings(settings.get_profile("skillcore"), max_examples=300)
@given(loaded=st.lists(st.sampled_from(NAMES), unique=True), ops=st.lists(op, max_size=12))
def test_index_never_sees_more_and_sees_all_on_growth(loaded, ops) -> None:  # type: ignore[no-untyped-def]
    session = session_with(loaded)
    index = DeliveryIndex()
    history: list[Msg] = []
    for kind, arg in ops:
        only_grew = kind in ("append", "copy")
        if kind == "append":
            history = [*history, *arg]
        elif kind == "compact":
            history = history[-arg:] if arg else []
        elif kind == "clear" and history:
            target = history[arg % len(history)]
            history = list(history)
            history[arg % len(history)] = Msg(target.cid, "[cleared]")
        elif kind == "copy":
            history = list(history)
        truth = session.delivered(reversed([r for m in history for r in replies(m)]))
        seen = index.visible(session, history, replies, conversation="c")
        assert seen <= truth
        if only_grew:
            # Appending (or a new list of the same messages) never hides a reply.
            assert seen == truth
        # A fresh index (another process) reads everything: exact.
        assert DeliveryIndex().visible(session, history, replies, conversation="c") == truth
