"""The ADK bridge (:class:`skillcore_adk.code_executor_runner.CodeExecutorRunner`) over ADK's
own ``UnsafeLocalCodeExecutor``: Python scripts run with their files, arguments and stdin,
without the host's environment, capped and ended at the wall clock; other interpreters are
refused; a run requiring more isolation than the bridge reports raises before anything runs;
and the csv-data-audit example runs end to end through ``InMemoryRunner``."""

from __future__ import annotations

import os
import secrets
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from google.adk.code_executors import UnsafeLocalCodeExecutor
from google.adk.runners import InMemoryRunner

from skillcore.runner import Isolation, IsolationUnavailable, RunLimits, ScriptRequest, command_for
from skillcore_adk import SkillToolset
from skillcore_adk.code_executor_runner import CodeExecutorRunner

from .conftest import agent_with, responses, run_turn, scripted

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


def _bridge() -> CodeExecutorRunner:
    return CodeExecutorRunner(UnsafeLocalCodeExecutor(timeout_seconds=60))


def test_python_script_runs_with_files_args_stdin(tmp_path: Path, monkeypatch: Any) -> None:
    secret = f"secret-{secrets.token_hex(6)}"
    monkeypatch.setenv("SKILLCORE_TEST_API_KEY", secret)
    body = """
        import os, sys, pathlib
        print(sys.argv[1:], sys.stdin.read(), pathlib.Path(__file__).parent.parent.joinpath(
            "data.txt").read_text().strip())
        print("env:", os.environ.get("SKILLCORE_TEST_API_KEY"), os.getcwd() != "/")
        print(open("/proc/self/environ", "rb").read())
        try:
            open(__file__, "a").write("PLANT" + "ED")
        except OSError:
            pass
        sys.exit(3)
    """
    req = _request(tmp_path, "s.py", body, "a b", stdin=b"in put")
    result = _bridge().run(req)
    out = result.stdout.decode()
    assert result.exit_code == 3, result
    assert "['a b'] in put skill data" in out and "env: None True" in out
    assert secret not in out and secret not in result.stderr.decode()
    # The script ran on a copy of the skill's files: the host's folder is unchanged.
    assert "PLANTED" not in (req.skill_dir / "scripts" / "s.py").read_text()
    assert result.isolation is Isolation.PROCESS and "adk:UnsafeLocalCodeExecutor" in (
        result.mechanisms
    )


def test_output_is_cut_and_endless_output_ended(tmp_path: Path) -> None:
    body = """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
    """
    req = _request(tmp_path, "flood.py", body, limits={"output_bytes": 1000, "wall_seconds": 30})
    result = _bridge().run(req)
    assert result.stdout == b"x" * 1000 and result.truncated and result.killed == "output"


def test_sleep_forever_and_its_children_are_killed(tmp_path: Path) -> None:
    token = f"skillcore-bridge-{secrets.token_hex(6)}"
    body = f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", {token!r}])
        print("started", flush=True)
        time.sleep(10**6)
    """
    result = _bridge().run(_request(tmp_path, "sleep.py", body, limits={"wall_seconds": 2}))
    assert result.killed == "timeout" and result.timed_out and result.stdout == b"started\n"
    from tests.core.runner.conftest import processes_with, settled

    assert settled(lambda: not processes_with(token))


def test_other_interpreters_are_refused(tmp_path: Path) -> None:
    result = _bridge().run(_request(tmp_path, "s.sh", "echo ran\n"))
    assert result.exit_code == 126 and b"runs only python" in result.stderr
    assert result.stdout == b""


def test_more_isolation_than_reported_raises(tmp_path: Path) -> None:
    req = _request(tmp_path, "s.py", "print('ran')\n")
    with pytest.raises(IsolationUnavailable):
        _bridge().run(ScriptRequest(**{**_fields(req), "require": Isolation.LIMITS}))
    declared = CodeExecutorRunner(UnsafeLocalCodeExecutor(), isolation=Isolation.SANDBOX)
    assert declared.isolation() is Isolation.SANDBOX


def _fields(req: ScriptRequest) -> dict[str, Any]:
    import attrs

    return attrs.asdict(req, recurse=False)


@pytest.mark.anyio
async def test_example_runs_through_in_memory_runner(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    run = {
        "skill_name": "csv-data-audit",
        "script": "scripts/profile_csv.py",
        "args": ["-"],
        "stdin": "id,amount\n1,10\n2,x\n2,x\n",
    }
    toolset = SkillToolset(
        tmp_path / "examples", script_runner=_bridge(), script_isolation="process"
    )
    model = scripted(
        [("load_skill", {"skill_name": "csv-data-audit"})], [("run_skill_script", run)], "done"
    )
    app = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await app.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(app, session.id)
    (reply,) = [r.response or {} for r in responses(events) if r.name == "run_skill_script"]
    assert 'exit_code="1"' in str(reply) and "amount" in str(reply), reply
    assert 'isolation="PROCESS"' in str(reply)
    assert os.environ.get("SKILLCORE_BRIDGE") is None
