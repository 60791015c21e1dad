"""The deepagents bridge (:class:`skillcore_langchain.sandbox_runner.SandboxBackendRunner`)
over deepagents' own ``LocalShellBackend`` (real and virtual paths): scripts run with their
files, arguments and stdin, without the host's environment, capped and ended at the wall
clock, their files removed; a run requiring more isolation raises before anything runs; and
the csv-data-audit example runs end to end through ``create_agent``."""

from __future__ import annotations

import secrets
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import attrs
import pytest
from deepagents.backends import LocalShellBackend
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from skillcore.runner import Isolation, IsolationUnavailable, RunLimits, ScriptRequest, command_for
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.sandbox_runner import SandboxBackendRunner
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX sandbox")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"


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


@pytest.fixture(params=["real", "virtual"])
def bridge(request: pytest.FixtureRequest, tmp_path: Path) -> SandboxBackendRunner:
    root = tmp_path / "sandbox"
    root.mkdir()
    if request.param == "real":
        backend = LocalShellBackend(root_dir=root, virtual_mode=False)
        return SandboxBackendRunner(backend, remote_dir=str(root))
    backend = LocalShellBackend(root_dir=root, virtual_mode=True)
    (root / ".skillcore").mkdir()
    return SandboxBackendRunner(backend, remote_dir="/.skillcore", command_dir=".skillcore")


def _left(bridge: SandboxBackendRunner) -> list[str]:
    root = Path(bridge.backend.cwd)
    return [p.name for p in root.rglob("skillcore-*")]


def test_scripts_run_with_files_args_stdin(
    bridge: SandboxBackendRunner, tmp_path: Path, monkeypatch: Any
) -> None:
    secret = f"secret-{secrets.token_hex(6)}"
    monkeypatch.setenv("SKILLCORE_TEST_API_KEY", secret)
    body = """
        import os, sys, pathlib
        print(sys.argv[1:], sys.stdin.read(), pathlib.Path(__file__).parent.parent.joinpath(
            "data.txt").read_text().strip())
        print("env:", os.environ.get("SKILLCORE_TEST_API_KEY"))
        print(open("/proc/self/environ", "rb").read())
        sys.exit(4)
    """
    result = bridge.run(_request(tmp_path, "s.py", body, "a b", stdin=b"in put"))
    out = result.stdout.decode()
    assert result.exit_code == 4, result
    assert "['a b'] in put skill data" in out and "env: None" in out and secret not in out
    assert result.isolation is Isolation.PROCESS and _left(bridge) == []
    shell = bridge.run(
        _request(tmp_path, "s.sh", 'echo "sh $1"; cat ../skill/data.txt 2>&1\n', "x")
    )
    assert shell.exit_code == 0 and shell.stdout.startswith(b"sh x\n"), shell


def test_large_output_is_cut_and_the_result_survives_the_backend_cap(
    bridge: SandboxBackendRunner, tmp_path: Path
) -> None:
    # 2 x 64 KiB kept is more than LocalShellBackend's 100,000-byte output cap: the result
    # comes back through the result file.
    body = """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
            sys.stderr.write("y" * 65536)
    """
    req = _request(tmp_path, "flood.py", body, limits={"wall_seconds": 30})
    result = bridge.run(req)
    assert result.killed == "output" and result.truncated, result.stderr[-300:]
    assert result.stdout == b"x" * 65536 and result.stderr == b"y" * 65536
    assert _left(bridge) == []


def test_sleep_forever_is_killed(bridge: SandboxBackendRunner, tmp_path: Path) -> None:
    body = """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("sleeping", flush=True)
        time.sleep(10**6)
    """
    result = bridge.run(_request(tmp_path, "sleep.py", body, limits={"wall_seconds": 2}))
    assert result.killed == "timeout" and result.stdout == b"sleeping\n"


def test_more_isolation_than_reported_raises(bridge: SandboxBackendRunner, tmp_path: Path) -> None:
    req = _request(tmp_path, "s.py", "print('ran')\n")
    with pytest.raises(IsolationUnavailable):
        bridge.run(attrs.evolve(req, require=Isolation.LIMITS))
    assert _left(bridge) == []


def test_example_runs_through_create_agent(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    (tmp_path / "sandbox").mkdir()
    backend = LocalShellBackend(root_dir=tmp_path / "sandbox", virtual_mode=False)
    run = {
        "skill_name": "csv-data-audit",
        "script": "scripts/profile_csv.py",
        "args": ["-"],
        "stdin": "id,amount\n1,10\n2,x\n2,x\n",
    }
    model = ScriptedChatModel()
    model.push(tool_calls(("load_skill", {"skill_name": "csv-data-audit"})))
    model.push(tool_calls(("run_skill_script", run)))
    model.push(AIMessage("done"))
    runner = SandboxBackendRunner(backend, remote_dir=str(tmp_path / "sandbox"))
    mw = SkillsMiddleware(tmp_path / "examples", script_runner=runner, script_isolation="process")
    out = create_agent(model, plain_tools(), middleware=[mw]).invoke(
        {"messages": [HumanMessage("audit")]}
    )
    (reply,) = [
        m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "run_skill_script"
    ]
    assert 'exit_code="1"' in str(reply.content) and "amount" in str(reply.content), reply
    assert 'isolation="PROCESS"' in str(reply.content)
