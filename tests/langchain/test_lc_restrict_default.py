"""Under RESTRICT a loaded skill without allowed-tools adds nothing and lifts nothing, by
default (DESIGN §3.5), through create_agent: a model cannot escape the restriction by
loading any skill that declares no allowed-tools. The lenient reading is an explicit opt-in."""

from __future__ import annotations

from typing import Any

import pytest

from skillcore_langchain.testing import tool_calls


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_loading_an_unrestricted_skill_lifts_nothing_by_default(
    make_agent, model, run, skills, helpers, use_async
) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    model.push(tool_calls(load("alpha")))
    run(agent, use_async=use_async)
    model.push(tool_calls(load("beta"), "Write", "Read"))
    r_load, r_write, r_read = helpers.replies(run(agent, use_async=use_async))
    assert r_load.status == "success"
    assert r_write.status == "error" and r_write.artifact == {"code": "TOOL_BLOCKED"}, r_write
    assert r_read.status == "success"
    # With no loaded skill declaring allowed-tools nothing is blocked.
    model.push(tool_calls(("unload_skill", {"skill_name": "alpha"}), "Write"))
    r_unload, r_write = helpers.replies(run(agent, use_async=use_async))
    assert r_unload.status == "success" and r_write.status == "success", r_write


def test_the_lenient_reading_is_an_explicit_opt_in(make_agent, model, run, skills, helpers) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict", unrestricted_skills="lift")
    model.push(tool_calls(load("alpha")))
    run(agent)
    model.push(tool_calls(load("beta"), "Write"))
    _, r_write = helpers.replies(run(agent))
    assert r_write.status == "success", r_write
