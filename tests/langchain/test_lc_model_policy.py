"""A skill's ``model``, ``disallowed-tools`` and ``paths``, and the APPROVE mode, through
``create_agent`` with scripted models and a checkpointer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "quick", "Quick chores.", "Be quick.", "model: haiku\n")
    write_skill(root, "deep", "Deep work.", "Think.", "model: opus\nallowed-tools: Read\n")
    write_skill(root, "mystery", "Mystery.", "Hm.", "model: no-such-model\n")
    write_skill(root, "readonly", "Read only.", "Only read.", "disallowed-tools: Write\n")
    write_skill(root, "ts-helper", "TypeScript help.", "TS.", "paths: ['src/**/*.ts']\n")
    return root


def run(agent: Any, payload: Any = None, thread: str = "t") -> tuple[dict[str, Any], list[Any]]:
    config: Any = {"configurable": {"thread_id": thread}}
    out = agent.invoke(payload or {"messages": [HumanMessage("go")]}, config)
    start = max(i for i, m in enumerate(out["messages"]) if isinstance(m, HumanMessage))
    return out, [m for m in out["messages"][start + 1 :] if isinstance(m, ToolMessage)]


def test_a_loaded_skill_switches_the_model_until_it_is_unloaded(skills: Path) -> None:
    main, quick, deep = ScriptedChatModel(), ScriptedChatModel(), ScriptedChatModel()
    mw = SkillsMiddleware(skills, model_resolver={"haiku": quick, "opus": deep})
    agent = create_agent(main, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    main.push(tool_calls(("load_skill", {"skill_name": "quick"})))
    quick.push(tool_calls(("load_skill", {"skill_name": "deep"})))
    # Two skills name models: the last loaded wins; unloading it returns to the one before.
    deep.push(tool_calls(("unload_skill", {"skill_name": "deep"})))
    quick.push(tool_calls(("unload_skill", {"skill_name": "quick"})))
    run(agent)
    assert len(main.requests) == 2 and len(deep.requests) == 1 and len(quick.requests) == 2


def test_an_unknown_model_warns_once_and_keeps_the_model(skills: Path) -> None:
    main = ScriptedChatModel()
    mw = SkillsMiddleware(skills, model_resolver=lambda name: None)
    agent = create_agent(main, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    main.push(tool_calls(("load_skill", {"skill_name": "mystery"})), tool_calls("Read"))
    with pytest.warns(UserWarning, match="'mystery' asks for model 'no-such-model'") as seen:
        run(agent)
    assert len(main.requests) == 3
    assert len([w for w in seen if "no-such-model" in str(w.message)]) == 1


@pytest.mark.parametrize("mode", ["recommend", "restrict", "approve"])
def test_disallowed_tools_are_not_offered_and_refused_in_every_mode(
    skills: Path, mode: str
) -> None:
    model = ScriptedChatModel()
    mw = SkillsMiddleware(skills, allowed_tools_policy=mode)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    # The call after the load in the same turn is refused too (decided in call order).
    model.push(tool_calls(("load_skill", {"skill_name": "readonly"}), "Write"), tool_calls("Write"))
    _, (loaded, same_turn, later) = run(agent)
    assert loaded.status == "success"
    assert "Write" in model.tool_names(0) and "Write" not in model.tool_names(1)
    for reply in (same_turn, later):
        assert reply.status == "error" and reply.artifact == {"code": "TOOL_DISALLOWED"}, reply
        assert "readonly" in reply.text
    model.push(tool_calls(("unload_skill", {"skill_name": "readonly"})), tool_calls("Write"))
    _, (_, wrote) = run(agent)
    assert wrote.status == "success" and "Write" in model.tool_names(-2)


def _interrupts_take_when() -> bool:
    """Whether HumanInTheLoopMiddleware's ``interrupt_on`` entries take a ``when`` predicate
    (newer LangChain 1.x; older releases interrupt every listed call)."""
    from langchain.agents.middleware import human_in_the_loop

    config = getattr(human_in_the_loop, "InterruptOnConfig", None)
    return config is not None and "when" in getattr(config, "__annotations__", {})


@pytest.mark.skipif(
    not _interrupts_take_when(), reason="this LangChain has no `when` in interrupt_on"
)
def test_approve_mode_asks_only_for_calls_the_skill_does_not_pre_approve(skills: Path) -> None:
    from langchain.agents.middleware import HumanInTheLoopMiddleware

    model = ScriptedChatModel()
    mw = SkillsMiddleware(skills, allowed_tools_policy="approve")
    hitl = HumanInTheLoopMiddleware(interrupt_on=mw.gate_interrupts({"Read": True, "Write": True}))
    agent = create_agent(model, plain_tools(), middleware=[mw, hitl], checkpointer=InMemorySaver())
    model.push(tool_calls(("load_skill", {"skill_name": "deep"})), tool_calls("Read"))
    out, replies = run(agent)
    assert not out.get("__interrupt__"), "Read is pre-approved by deep's allowed-tools"
    assert replies[-1].text == "read"
    model.push(tool_calls("Write"))
    out, _ = run(agent)
    (interrupt,) = out["__interrupt__"]
    assert [a["name"] for a in interrupt.value["action_requests"]] == ["Write"]
    out, replies = run(agent, Command(resume={"decisions": [{"type": "approve"}]}))
    assert replies[-1].text == "wrote" and replies[-1].status == "success"


def test_a_paths_skill_is_offered_only_while_the_work_touches_its_files(skills: Path) -> None:
    model = ScriptedChatModel()
    mw = SkillsMiddleware(skills)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    model.push(tool_calls(("load_skill", {"skill_name": "ts-helper"})))
    _, (refused,) = run(agent)
    assert "ts-helper" not in model.system(0)
    assert refused.status == "error" and refused.artifact == {"code": "PATHS_NOT_TOUCHED"}
    mw.touch_paths(["./src/app/main.ts"])
    model.push(tool_calls(("load_skill", {"skill_name": "ts-helper"})))
    _, (loaded,) = run(agent)
    assert "ts-helper" in model.system(-2) and loaded.status == "success"


def test_approve_refuses_a_script_run_its_skill_does_not_pre_approve(tmp_path: Path) -> None:
    """LangChain's interrupts do not tell the tool it was approved: under APPROVE a script run
    its skill's allowed-tools do not list is refused (as RESTRICT refuses it), never run."""
    import shutil

    from skillcore.testing.script_runner import RecordingRunner

    examples = tmp_path / "examples"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "skills", examples)
    runner = RecordingRunner()
    model = ScriptedChatModel()
    mw = SkillsMiddleware(
        examples, script_runner=runner, script_isolation="process", allowed_tools_policy="approve"
    )
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    run_args = {"skill_name": "csv-data-audit", "script": "scripts/profile_csv.py", "args": ["-"]}
    model.push(
        tool_calls(("load_skill", {"skill_name": "csv-data-audit"})),
        tool_calls(("run_skill_script", run_args)),
    )
    _, (_, refused) = run(agent)
    assert refused.status == "error" and refused.artifact == {"code": "SCRIPT_DECLINED"}, refused
    assert runner.requests == []
