"""A load of a loaded skill whose load reply is gone from the history sends it again."""

from __future__ import annotations

import anyio
import pytest
from tests.openai.test_openai_dispatch import APIS, make_call, output_of

from skillcore import OutcomeCode

MARK = '<skill_content name="csv-data-audit">'


@pytest.mark.parametrize("api", APIS)
def test_history_without_the_load_reply_redelivers(make_skills, api: str) -> None:
    skills = make_skills()
    load = make_call(api, "load_skill", {"skill_name": "csv-data-audit"}, "c1")
    loaded, first = skills.dispatch(skills.session(), load)
    again = make_call(api, "load_skill", {"skill_name": "csv-data-audit"}, "c2")

    # A history holds the call before its reply (the APIs require it): the reply proves
    # delivery only as the answer to that load call.
    dumped = load.model_dump(exclude_none=True)
    asked = {"role": "assistant", "tool_calls": [dumped]} if api == "chat" else dumped
    kept = [{"role": "user", "content": "audit"}, asked, first]
    assert skills.dispatch(loaded, again, history=[kept[0], first]).code is (
        OutcomeCode.REDELIVERED  # a reply whose call is not in the history proves nothing
    )
    seen = skills.dispatch(loaded, again, history=kept)
    assert seen.code is OutcomeCode.ALREADY_LOADED

    trimmed = [{"role": "user", "content": "audit"}]
    gone = skills.dispatch(loaded, again, history=trimmed)
    assert gone.code is OutcomeCode.REDELIVERED and not gone.is_error
    assert output_of(api, gone.message).startswith(MARK)
    # Only the delivery record changed: the reply to c2 now proves it.
    assert gone.session.loaded_names == loaded.loaded_names
    assert gone.session.loaded_skill("csv-data-audit").delivery == "c2"

    turn = anyio.run(lambda: skills.adispatch_all(loaded, [again], history=trimmed))
    assert turn.results[0].code is OutcomeCode.REDELIVERED
    assert turn.session == gone.session
    assert skills.dispatch_all(loaded, [again], history=kept).results[0].code is (
        OutcomeCode.ALREADY_LOADED
    )


@pytest.mark.parametrize("api", APIS)
def test_a_skill_loaded_in_the_same_message_is_not_redelivered(make_skills, api: str) -> None:
    skills = make_skills()
    calls = [
        make_call(api, "load_skill", {"skill_name": "csv-data-audit"}, f"c{i}") for i in range(2)
    ]
    history = [{"role": "user", "content": "audit"}]
    for turn in (
        skills.dispatch_all(skills.session(), calls, history=history),
        anyio.run(lambda: skills.adispatch_all(skills.session(), calls, history=history)),
    ):
        codes = [r.code for r in turn.results]
        assert codes == [OutcomeCode.LOADED, OutcomeCode.ALREADY_LOADED]
