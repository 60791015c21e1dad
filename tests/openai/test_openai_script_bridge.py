"""The Agents SDK bridge (:class:`skillcore_openai.agents.shell_runner.SandboxSessionRunner`) over a
session of the SDK's own ``UnixLocalSandboxClient``: scripts run in the session's workspace
with their files, arguments and stdin, without the host's environment, capped and ended at
the wall clock, leaving no file behind; a run requiring more isolation raises before anything
runs; and the csv-data-audit example runs end to end through ``Runner.run``."""

from __future__ import annotations

import asyncio
import secrets
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from agents import Agent, RunConfig, Runner
from agents.sandbox.sandboxes.unix_local import UnixLocalSandboxClient
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import SkillLibrary
from skillcore.runner import Isolation, IsolationUnavailable, RunLimits, ScriptRequest, command_for
from skillcore_openai import AgentSkills
from skillcore_openai.agents.shell_runner import SandboxSessionRunner

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX sandbox")


@pytest.fixture
def bridge() -> Iterator[SandboxSessionRunner]:
    client = UnixLocalSandboxClient()  # the host's whole environment, as by default

    async def start() -> Any:
        session = await client.create()
        await session.start()
        return session

    session = asyncio.run(start())
    yield SandboxSessionRunner(session)
    asyncio.run(client.delete(session))


def _request(tmp_path: Path, name: str, body: str, *args: str, **opts: Any) -> ScriptRequest:
    skill = tmp_path / "skill"
    (skill / "scripts").mkdir(parents=True, exist_ok=True)
    (skill / "data.txt").write_text("skill data\n")
    (skill / "scripts" / name).write_text(textwrap.dedent(body))
    argv = command_for(skill / "scripts" / name)
    assert isinstance(argv, tuple)
    limits = RunLimits(**{"wall_seconds": 5, **opts.pop("limits", {})})
    return ScriptRequest(
        skill="s",
        script=f"scripts/{name}",
        argv=(*argv, *args),
        skill_dir=skill,
        limits=limits,
        require=Isolation.PROCESS,
        **opts,
    )


def _left(bridge: SandboxSessionRunner) -> list[str]:
    root = Path(bridge.session.state.manifest.root)
    return [p.name for p in root.rglob("skillcore-*")]


def test_scripts_run_with_files_args_stdin(
    bridge: SandboxSessionRunner, tmp_path: Path, monkeypatch: Any
) -> None:
    secret = f"secret-{secrets.token_hex(6)}"
    monkeypatch.setenv("SKILLCORE_TEST_API_KEY", secret)
    body = """
        import os, sys, pathlib
        print(sys.argv[1:], sys.stdin.read(), pathlib.Path(__file__).parent.parent.joinpath(
            "data.txt").read_text().strip())
        print("env:", os.environ.get("SKILLCORE_TEST_API_KEY"))
        print(open("/proc/self/environ", "rb").read())
        sys.exit(5)
    """
    request = _request(tmp_path, "s.py", body, "a b", stdin=b"in put")
    for result in (bridge.run(request), asyncio.run(bridge.arun(request))):
        out = result.stdout.decode()
        assert result.exit_code == 5, result
        assert "['a b'] in put skill data" in out and "env: None" in out and secret not in out
        assert result.isolation is Isolation.PROCESS
        assert "agents-sandbox:UnixLocalSandboxSession" in result.mechanisms
    assert _left(bridge) == []


def test_endless_output_and_sleep_forever(bridge: SandboxSessionRunner, tmp_path: Path) -> None:
    flood = """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
    """
    req = _request(tmp_path, "flood.py", flood, limits={"output_bytes": 500, "wall_seconds": 30})
    result = bridge.run(req)
    assert result.killed == "output" and result.truncated and result.stdout == b"x" * 500
    sleep = """
        import time
        time.sleep(10**6)
    """
    result = bridge.run(_request(tmp_path, "sleep.py", sleep, limits={"wall_seconds": 2}))
    assert result.killed == "timeout" and result.timed_out
    assert _left(bridge) == []


def test_more_isolation_than_reported_raises(bridge: SandboxSessionRunner, tmp_path: Path) -> None:
    req = attrs.evolve(_request(tmp_path, "s.py", "print(1)\n"), require=Isolation.NO_NETWORK)
    with pytest.raises(IsolationUnavailable):
        bridge.run(req)
    with pytest.raises(IsolationUnavailable):
        asyncio.run(bridge.arun(req))


def test_example_runs_through_the_agents_sdk(
    bridge: SandboxSessionRunner, examples_library: SkillLibrary
) -> None:
    run = {
        "skill_name": "csv-data-audit",
        "script": "scripts/profile_csv.py",
        "args": ["-"],
        "stdin": "id,amount\n1,10\n2,x\n2,x\n",
    }
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "csv-data-audit"}, call_id="c1")],
            [function_call("run_skill_script", run, call_id="c2")],
            [assistant_message("done")],
        ]
    )
    skills = AgentSkills(examples_library, script_runner=bridge, script_isolation="process")
    agent = Agent(
        name="a", instructions=skills.instructions("x"), tools=skills.tools(), model=model
    )
    result = asyncio.run(Runner.run(agent, "audit", run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "done"
    outputs = [
        item["output"]
        for call in model.calls  # type: ignore[attr-defined]
        for item in (call.input if isinstance(call.input, list) else [])
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    reply = outputs[-1]
    assert 'exit_code="1"' in reply and "amount" in reply and 'isolation="PROCESS"' in reply
