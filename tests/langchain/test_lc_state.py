"""Skill state through real checkpointers: persistence, parallel calls, refresh, bad input."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from skillcore import SkillLibrary
from skillcore.runtime import STATE_SCHEMA, loaded_names_of
from skillcore_langchain import STATE_KEY, SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

CFG: Any = {"configurable": {"thread_id": "thread-1"}}


def loaded(agent: Any, config: Any = CFG) -> list[str]:
    return loaded_names_of(agent.get_state(config).values.get(STATE_KEY))


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


# -- persistence -----------------------------------------------------------------------------


def _sqlite_agent(saver: Any, root: Path) -> tuple[Any, ScriptedChatModel]:
    # Everything new: library, middleware, model, agent; only the database file is shared.
    model = ScriptedChatModel()
    # Dynamic: the [Loaded] mark shows what the resumed thread restored.
    mw = SkillsMiddleware(SkillLibrary([root]), max_loaded_skills=2, prompt_mode="dynamic")
    return create_agent(model, plain_tools(), middleware=[mw], checkpointer=saver), model


def test_sqlite_thread_resumes_in_a_new_agent(tmp_path: Path, examples: Path, helpers) -> None:
    db = str(tmp_path / "checkpoints.sqlite")
    with SqliteSaver.from_conn_string(db) as saver:
        agent, model = _sqlite_agent(saver, examples)
        model.push(tool_calls(load("csv-data-audit")))
        agent.invoke({"messages": [HumanMessage("audit")]}, CFG)
    with SqliteSaver.from_conn_string(db) as saver:
        agent, model = _sqlite_agent(saver, examples)
        model.push(tool_calls(load("csv-data-audit"), load("python-testing")))
        out = agent.invoke({"messages": [HumanMessage("again")]}, CFG)
        first, second = helpers.replies(out)
        assert first.status == "error" and "already loaded" in first.text
        assert second.status == "success"
        assert "- **csv-data-audit** [Loaded]" in model.system(0)
        assert loaded(agent) == ["csv-data-audit", "python-testing"]


def test_async_sqlite_thread_resumes_in_a_new_agent(
    tmp_path: Path, examples: Path, helpers
) -> None:
    db = str(tmp_path / "checkpoints.sqlite")

    async def scenario() -> tuple[Any, list[str], str]:
        async with AsyncSqliteSaver.from_conn_string(db) as saver:
            agent, model = _sqlite_agent(saver, examples)
            model.push(tool_calls(load("csv-data-audit")))
            await agent.ainvoke({"messages": [HumanMessage("audit")]}, CFG)
        async with AsyncSqliteSaver.from_conn_string(db) as saver:
            agent, model = _sqlite_agent(saver, examples)
            model.push(tool_calls(("unload_skill", {"skill_name": "csv-data-audit"})))
            out = await agent.ainvoke({"messages": [HumanMessage("done with it")]}, CFG)
            state = await agent.aget_state(CFG)
            return out, loaded_names_of(state.values.get(STATE_KEY)), model.system(0)

    out, names, first_system = asyncio.run(scenario())
    assert "- **csv-data-audit** [Loaded]" in first_system
    assert helpers.replies(out)[0].status == "success"
    assert "Unloaded skill 'csv-data-audit'" in helpers.replies(out)[0].text
    assert names == []


def test_state_is_json_native_and_does_not_grow_with_catalog(
    tmp_path: Path, examples: Path, helpers
) -> None:
    big = tmp_path / "big"
    shutil.copytree(examples, big)
    for i in range(300):
        helpers.write_skill(big, f"extra-{i:03d}", f"Extra skill {i} " + "padding " * 20)
    sizes = []
    for root in (examples, big):
        model = ScriptedChatModel(script=[tool_calls(load("csv-data-audit"))])
        saver = InMemorySaver()
        mw = SkillsMiddleware(root)
        agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=saver)
        agent.invoke({"messages": [HumanMessage("x")]}, CFG)
        state = agent.get_state(CFG).values[STATE_KEY]
        assert json.loads(json.dumps(state)) == state
        assert state["schema"] == STATE_SCHEMA
        assert "extra-000" not in json.dumps(state)
        checkpoint = saver.get_tuple(CFG).checkpoint
        sizes.append(len(saver.serde.dumps_typed(checkpoint)[1]))
    assert abs(sizes[0] - sizes[1]) < 64, sizes


# -- parallel tool calls ----------------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_parallel_loads_respect_the_budget(make_agent, model, run, examples, helpers, use_async):
    agent, _ = make_agent(examples, max_loaded_skills=2)
    names = ["csv-data-audit", "python-testing", "release-notes", "csv-data-audit"]
    model.push(tool_calls(*(load(n) for n in names)))
    out = run(agent, thread="thread-1", use_async=use_async)  # no InvalidUpdateError
    msgs = helpers.replies(out)
    ok = [n for n, m in zip(names, msgs) if m.status == "success"]
    # Exactly the budget, no name twice, and the refusals say why.
    assert len(ok) == 2 and len(set(ok)) == 2, [m.text[:80] for m in msgs]
    codes = sorted(m.artifact["code"] for m in msgs if m.status == "error")
    assert codes in (
        ["ALREADY_LOADED", "LOAD_LIMIT_REACHED"],
        ["LOAD_LIMIT_REACHED", "LOAD_LIMIT_REACHED"],
    )
    assert all(
        "2 of 2 skills are already loaded" in m.text
        for m in msgs
        if m.artifact["code"] == "LOAD_LIMIT_REACHED"
    )
    assert sorted(loaded(agent)) == sorted(ok)


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_parallel_unload_and_loads(make_agent, model, run, examples, helpers, use_async) -> None:
    agent, _ = make_agent(examples, max_loaded_skills=1)
    model.push(tool_calls(load("csv-data-audit")))
    run(agent, thread="thread-1", use_async=use_async)
    model.push(
        tool_calls(("unload_skill", {"skill_name": "csv-data-audit"}), load("python-testing"))
    )
    out = run(agent, thread="thread-1", use_async=use_async)
    statuses = [m.status for m in helpers.replies(out)]
    # Order of execution decides whether the load found the slot free; the replies and the
    # state agree either way.
    if statuses == ["success", "success"]:
        assert loaded(agent) == ["python-testing"]
    else:
        assert statuses == ["success", "error"]
        assert loaded(agent) == []


# -- refresh between turns ---------------------------------------------------------------------


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_skills_added_and_removed_on_disk_show_up_next_turn(
    make_agent, model, run, examples, helpers, use_async
) -> None:
    agent, _ = make_agent(examples)
    model.push(tool_calls(load("release-notes")))
    run(agent, thread="thread-1", use_async=use_async)
    helpers.write_skill(examples, "brand-new", "Appeared after the thread started.")
    shutil.rmtree(examples / "release-notes")  # a loaded skill vanishes
    shutil.rmtree(examples / "api-design-review")
    model.push(tool_calls(load("brand-new")))
    out = run(agent, thread="thread-1", use_async=use_async)
    system = model.system(-2)
    assert "- **brand-new**:" in system
    assert "api-design-review" not in system and "release-notes" not in system
    assert "brand-new" in model.tool_schema("load_skill", -2)["properties"]["skill_name"]["enum"]
    assert helpers.replies(out)[0].status == "success"
    assert loaded(agent) == ["brand-new"]


@pytest.mark.parametrize("refresh", [False, 3600.0])
def test_refresh_off_or_throttled_keeps_catalog(
    make_agent, model, run, examples, helpers, refresh
) -> None:
    agent, _ = make_agent(examples, refresh=refresh)
    run(agent, thread="thread-1")
    helpers.write_skill(examples, "brand-new", "Appeared later.")
    run(agent, thread="thread-1")
    assert "brand-new" not in model.system()


def test_discovery_is_not_repeated_on_later_turns(
    make_agent, model, run, examples, monkeypatch
) -> None:
    import skillcore.library.entries as library_module

    parsed: list[str] = []
    real = library_module.parse_skill_file

    def counting(*args: Any, **kwargs: Any) -> Any:
        parsed.append(kwargs.get("path", ""))
        return real(*args, **kwargs)

    monkeypatch.setattr(library_module, "parse_skill_file", counting)
    agent, _ = make_agent(examples)
    for i in range(3):
        run(agent, thread=f"t{i % 2}")
    assert len(parsed) == 5, parsed  # each SKILL.md parsed once over three runs, two threads
    before = agent.get_state({"configurable": {"thread_id": "t0"}})
    run(agent, thread="t0")
    after = agent.get_state({"configurable": {"thread_id": "t0"}})
    assert before.values.get(STATE_KEY) == after.values.get(STATE_KEY) is None


def test_source_unreachable_between_turns(
    make_agent, model, run, examples, helpers, caplog
) -> None:
    agent, _ = make_agent(examples, prompt_mode="dynamic")  # [Loaded] shows the kept state
    model.push(tool_calls(load("csv-data-audit")))
    run(agent, thread="thread-1")
    moved = examples.with_name("moved")
    examples.rename(moved)
    model.push(tool_calls(load("python-testing"), "Read"))
    with caplog.at_level(logging.WARNING, logger="skillcore_langchain"):
        out = run(agent, thread="thread-1")
    assert any("SOURCE_STALE" in r.getMessage() for r in caplog.records)
    first, read = helpers.replies(out)
    # The last good catalog is kept; the failed read is an error reply, not a crash.
    assert first.status == "error" and "Could not load skill 'python-testing'" in first.text
    assert read.status == "success"
    assert "- **csv-data-audit** [Loaded]" in model.system(-2)
    assert loaded(agent) == ["csv-data-audit"]
    moved.rename(examples)
    model.push(tool_calls(load("python-testing")))
    out = run(agent, thread="thread-1")
    assert helpers.replies(out)[0].status == "success"


# -- bad input --------------------------------------------------------------------------------


def test_refusals_change_nothing(make_agent, model, run, examples, helpers) -> None:
    agent, _ = make_agent(examples, max_loaded_skills=1)
    model.push(tool_calls(load("csv-data-audti")))
    model.push(tool_calls(load("csv-data-audit")))
    model.push(tool_calls(load("csv-data-audit")))
    model.push(tool_calls(load("python-testing")))
    model.push(tool_calls(("unload_skill", {"skill_name": "python-testing"})))
    out = run(agent, thread="thread-1")
    msgs = helpers.replies(out)
    unknown, ok, again, over, not_loaded = msgs
    assert unknown.status == "error" and "No skill named 'csv-data-audti'" in unknown.text
    assert "Did you mean: csv-data-audit?" in unknown.text
    assert ok.status == "success"
    assert again.status == "error" and "already loaded" in again.text
    assert over.status == "error" and "unload_skill" in over.text and "1 of 1" in over.text
    assert not_loaded.status == "error" and "not loaded" in not_loaded.text
    assert [m.artifact["code"] for m in msgs] == [
        "SKILL_NOT_FOUND",
        "LOADED",
        "ALREADY_LOADED",
        "LOAD_LIMIT_REACHED",
        "NOT_LOADED",
    ]
    assert loaded(agent) == ["csv-data-audit"]


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_resource_paths(make_agent, model, run, skills, helpers, use_async) -> None:
    secret = skills.parent / "secret.txt"
    secret.write_text("top secret")
    (skills / "gamma" / "references" / "link.md").symlink_to(secret)
    agent, _ = make_agent(skills)
    resource = "load_skill_resource"

    def res(path: str, skill: str = "gamma") -> tuple[str, dict[str, Any]]:
        return (resource, {"skill_name": skill, "path": path})

    model.push(
        tool_calls(
            ("load_skill", {"skill_name": "gamma"}),  # earlier in the same turn
            res("references/notes.md"),
            res("../alpha/SKILL.md"),
            res(str(secret)),
            res("references/../../beta/SKILL.md"),
            res("references/link.md"),
            res("a.md", skill="nope"),
        )
    )
    out = run(agent, thread="thread-1", use_async=use_async)
    loaded, good, *bad = helpers.replies(out)
    assert loaded.status == "success"
    assert good.status == "success" and "Gamma notes: 42." in good.text
    assert [m.status for m in bad] == ["error"] * 5
    assert not any("top secret" in m.text or "Alpha says" in m.text for m in bad)
    assert [m.artifact["code"] for m in bad] == ["PATH_REJECTED"] * 4 + ["SKILL_NOT_FOUND"]


def test_skill_file_deleted_between_discovery_and_load(
    make_agent, model, run, examples, helpers
) -> None:
    agent, _ = make_agent(examples)

    def delete_then_call(messages: list[Any]) -> Any:
        (examples / "release-notes" / "SKILL.md").unlink()  # after before_agent discovered it
        return tool_calls(load("release-notes"))

    model.push(delete_then_call)
    out = run(agent, thread="thread-1")
    reply = helpers.replies(out)[0]
    assert reply.status == "error" and "deleted after discovery" in reply.text
    assert loaded(agent) == []


def test_invalid_arguments_are_error_replies(make_agent, model, run, examples, helpers) -> None:
    agent, _ = make_agent(examples)
    model.push(
        tool_calls(
            ("load_skill", {}),
            ("load_skill", {"skill_name": 7}),
            ("load_skill", {"skill_name": "csv-data-audit", "force": True}),
            ("search_skills", {"query": ["x"]}),
        )
    )
    out = run(agent, thread="thread-1")
    msgs = helpers.replies(out)
    assert [m.status for m in msgs] == ["error"] * 4
    assert "missing required argument 'skill_name'" in msgs[0].text
    assert "must be a non-empty string" in msgs[1].text
    assert "unexpected argument(s) force" in msgs[2].text
    assert "must be a string or null" in msgs[3].text
    assert loaded(agent) == []


# -- allowed-tools policy ------------------------------------------------------------------------


def _named_tool(name: str) -> Any:
    @tool(name)
    def anything() -> str:
        """A tool whose name matters."""
        return "ran"

    return anything


LOOKALIKES = ["read", "READ", "Reаd", "Read ", "Ｒead"]  # case, Cyrillic а, space, full-width


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_restrict_blocks_lookalikes(make_agent, model, run, skills, helpers, use_async) -> None:
    tools = [*plain_tools(), *(_named_tool(n) for n in LOOKALIKES)]
    agent, _ = make_agent(skills, tools=tools, allowed_tools_policy="restrict")
    model.push(tool_calls(load("alpha")))
    model.push(tool_calls("Read", "Write", *LOOKALIKES, ("search_skills", {"query": "x"})))
    out = run(agent, thread="thread-1", use_async=use_async)
    msgs = helpers.replies(out)[1:]
    by_name = {m.name: m for m in msgs}
    assert by_name["Read"].status == "success"
    assert by_name["search_skills"].status == "success"
    for name in ["Write", *LOOKALIKES]:
        m = by_name[name]
        assert m.status == "error", name
        assert "not allowed" in m.text and "unload_skill" in m.text and "Read" in m.text
        assert m.content != "ran"


def test_restrict_lifts_after_unload_and_honours_always_allowed(
    make_agent, model, run, skills, helpers
) -> None:
    agent, _ = make_agent(skills, allowed_tools_policy="restrict", always_allowed_tools=["Write"])
    model.push(tool_calls(load("alpha")))
    model.push(tool_calls("Write"))
    out = run(agent, thread="thread-1")
    assert helpers.replies(out)[1].status == "success"  # always allowed
    agent, _ = make_agent(skills, allowed_tools_policy="restrict")
    model.push(tool_calls(load("alpha")))
    model.push(tool_calls(("unload_skill", {"skill_name": "alpha"})))
    model.push(tool_calls("Write"))
    out = run(agent, thread="thread-2")
    assert helpers.replies(out)[-1].status == "success"


def test_recommend_passes_everything(make_agent, model, run, skills, helpers) -> None:
    tools = [*plain_tools(), *(_named_tool(n) for n in LOOKALIKES)]
    agent, _ = make_agent(skills, tools=tools)
    model.push(tool_calls(load("alpha")))
    model.push(tool_calls("Write", *LOOKALIKES))
    out = run(agent, thread="thread-1")
    assert all(m.status == "success" for m in helpers.replies(out))
    # Still shown to the model, in the load reply.
    told = "Allowed tools while this skill is loaded: Read"
    assert any(told in m.text for m in model.requests[-1]["messages"])


def test_restrict_matches_nfc_equivalent_names(make_agent, model, run, tmp_path, helpers) -> None:
    root = tmp_path / "nfc"
    helpers.write_skill(root, "cafe", "Café things.", extra="allowed-tools: Caf\u00e9\n")
    decomposed = _named_tool("Cafe\u0301")
    agent, _ = make_agent(root, tools=[decomposed], allowed_tools_policy="restrict")
    model.push(tool_calls(load("cafe")), tool_calls("Cafe\u0301"))
    out = run(agent, thread="thread-1")
    assert helpers.replies(out)[-1].status == "success"


def test_unreadable_or_stale_state_is_repaired(make_agent, model, run, examples, caplog) -> None:
    agent, _ = make_agent(examples)
    run(agent, thread="thread-1")
    agent.update_state(CFG, {STATE_KEY: {"schema": "skillcore.state/0", "loaded": 3}})
    with caplog.at_level(logging.WARNING, logger="skillcore_langchain"):
        run(agent, thread="thread-1")
    assert any("unreadable skill state" in r.getMessage() for r in caplog.records)
    state = agent.get_state(CFG).values[STATE_KEY]
    assert state["schema"] == STATE_SCHEMA and state["loaded"] == []
    # A loaded skill that is not in the catalog any more is dropped, not trusted.
    ghost = {"name": "ghost", "resources": [], "truncated": False, "allowed_tools": None}
    agent.update_state(CFG, {STATE_KEY: {"schema": STATE_SCHEMA, "loaded": [ghost]}})
    run(agent, thread="thread-1")
    assert loaded(agent) == []
    assert "ghost" not in model.system()
