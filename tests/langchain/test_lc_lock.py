"""A locked skill from an untrusted source through ``create_agent``: pinned, its script runs;
swapped inside the bundle after discovery, the run is refused on the bytes read."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore import SkillLibrary
from skillcore.testing.script_runner import RecordingRunner
from skillcore.trust import LockFile, TrustTier, locked_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

SCRIPT = "scripts/profile_csv.py"
RUN = {"skill_name": "csv-data-audit", "script": SCRIPT, "args": ["-"], "stdin": "a,b\n1,2\n"}


def _bundle(examples: Path, path: Path, script: bytes | None = None) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted(examples.rglob("*")):
            if file.is_file():
                rel = file.relative_to(examples).as_posix()
                data = file.read_bytes()
                if script is not None and rel == f"csv-data-audit/{SCRIPT}":
                    data = script
                zf.writestr(rel, data)


def _run(library: SkillLibrary, runner: RecordingRunner, thread: str) -> ToolMessage:
    model = ScriptedChatModel()
    model.push(tool_calls(("load_skill", {"skill_name": "csv-data-audit"})))
    model.push(tool_calls(("run_skill_script", RUN)))
    model.push(AIMessage("done"))
    mw = SkillsMiddleware(library, script_runner=runner, script_isolation="process")
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": thread}}
    out = agent.invoke({"messages": [HumanMessage("audit this")]}, cfg)
    (msg,) = [
        m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "run_skill_script"
    ]
    return msg


def test_pinned_bundle_runs_and_a_swapped_script_is_refused(examples: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "skills.zip"
    _bundle(examples, bundle)
    plain = SkillLibrary([str(bundle)], cache=False)
    lock = LockFile.of(
        locked_skill(plain.reader(m.location.source), m) for m in plain.catalog.skills
    )

    untrusted = RecordingRunner()
    _run(SkillLibrary([str(bundle)], cache=False), untrusted, "bare")
    assert untrusted.requests == []  # a zip bundle is not trusted to run code

    library = SkillLibrary([str(bundle)], cache=False, lock=lock, frozen=True)
    assert library.tier("csv-data-audit") is TrustTier.PINNED
    runner = RecordingRunner()
    reply = _run(library, runner, "pinned")
    assert 'exit_code="' in str(reply.content) and len(runner.requests) == 1, reply

    library.catalog  # noqa: B018 - discovered and verified before the swap
    _bundle(examples, bundle, script=b"print('swapped')\n")
    after = RecordingRunner()
    reply = _run(library, after, "swapped")
    assert after.requests == [] and "does not match the lock" in str(reply.content), reply
