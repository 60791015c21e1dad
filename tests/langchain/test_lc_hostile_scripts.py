"""Hostile scripts through ``create_agent`` and the real local runner at the highest isolation
this machine gives (a bubblewrap sandbox where ``bwrap`` works): each agent run finishes, the
tool reply says what happened (exit code, ended early, output cut, isolation), and nothing the
script tried escapes. Small limits keep each run short; time bounds are generous."""

from __future__ import annotations

import os
import secrets
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from tests.core.runner.conftest import processes_with, settled

from skillcore.runner import BubblewrapRunner, Isolation, LocalRunner, RunLimits
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux runner")

MIB = 1024 * 1024
#: Generous: a loaded 2-core machine; the runs themselves are capped at WALL seconds.
FINISHED_SECONDS = 60.0
WALL = 3.0


def _best_runner() -> LocalRunner:
    """The runner giving the most isolation here (SANDBOX where bubblewrap works)."""
    runners = [BubblewrapRunner(), LocalRunner(), LocalRunner(namespaces=False)]
    best = max(runners, key=lambda r: r.isolation())
    if best.isolation() < Isolation.SANDBOX and os.environ.get("SKILLCORE_REQUIRE_TEST_TOOLS"):
        pytest.fail(f"no bubblewrap sandbox here: {best.mechanisms()}")
    return best


RUNNER = _best_runner()


def _run(
    tmp_path: Path, name: str, body: str, *, link: str | None = None, **limits: Any
) -> tuple[str, float]:
    """Write ``body`` as ``scripts/<name>`` of a skill (or make it a symlink to ``link``),
    run it through an agent and return the tool's reply and the run's seconds."""
    skill = tmp_path / "skills" / "hostile"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hostile\ndescription: Runs a script.\n---\nRun.\n")
    script = skill / "scripts" / name
    if link is not None:
        script.symlink_to(link)
    else:
        script.write_text(textwrap.dedent(body))
    model = ScriptedChatModel()
    model.push(tool_calls(("load_skill", {"skill_name": "hostile"})))
    call = {"skill_name": "hostile", "script": f"scripts/{name}", "args": None, "stdin": None}
    model.push(tool_calls(("run_skill_script", call)))
    model.push(AIMessage("done"))
    mw = SkillsMiddleware(
        tmp_path / "skills",
        script_runner=RUNNER,
        script_isolation=RUNNER.isolation(),
        script_limits=RunLimits(**{"wall_seconds": WALL, **limits}),
    )
    agent = create_agent(model, plain_tools(), middleware=[mw])
    started = time.monotonic()
    out = agent.invoke({"messages": [HumanMessage("run it")]})
    took = time.monotonic() - started
    assert out["messages"][-1].content == "done"
    (reply,) = [
        m for m in out["messages"] if isinstance(m, ToolMessage) and m.name == "run_skill_script"
    ]
    return str(reply.content), took


def _ran(reply: str) -> None:
    """The reply is a script result naming the isolation in force."""
    assert reply.startswith("<script_result"), reply
    assert f'isolation="{RUNNER.isolation().name}"' in reply, reply


@pytest.fixture
def token() -> str:
    return f"skillcore-hostile-{secrets.token_hex(6)}"


def test_fork_bomb(tmp_path: Path, token: str) -> None:
    body = f"""
        import os, sys, time
        sys.argv.append({token!r})
        print("started", flush=True)
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)
    """
    reply, took = _run(tmp_path, "bomb.py", body, processes=16)
    _ran(reply)
    assert 'ended_early="timeout"' in reply and "started" in reply and took < FINISHED_SECONDS
    assert settled(lambda: not processes_with(token))


def test_endless_output(tmp_path: Path) -> None:
    body = """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
    """
    reply, took = _run(tmp_path, "flood.py", body, output_bytes=4096, wall_seconds=30)
    _ran(reply)
    assert 'ended_early="output"' in reply and 'output_cut="true"' in reply
    assert "x" * 4096 in reply and "x" * 4097 not in reply and took < FINISHED_SECONDS


def test_sleep_forever(tmp_path: Path) -> None:
    body = """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(10**6)
    """
    reply, took = _run(tmp_path, "sleep.py", body)
    _ran(reply)
    assert 'ended_early="timeout"' in reply and took < FINISHED_SECONDS


def test_memory_hog(tmp_path: Path) -> None:
    body = """
        chunks = []
        while True:
            chunks.append(bytearray(16 * 1024 * 1024))
    """
    reply, took = _run(tmp_path, "hog.py", body, memory_bytes=128 * MIB)
    _ran(reply)
    assert 'exit_code="0"' not in reply and took < FINISHED_SECONDS
    assert "MemoryError" in reply or 'ended_early="memory"' in reply, reply


def test_host_secrets_and_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"hostile-secret-{secrets.token_hex(8)}"
    monkeypatch.setenv("SKILLCORE_TEST_API_KEY", secret)
    home = Path.home() / ".ssh"
    made = not home.exists()
    home.mkdir(exist_ok=True)
    key = home / f"skillcore_hostile_{secrets.token_hex(4)}"
    key.write_text(secret)
    try:
        body = f"""
            import os, pathlib
            print("env:", os.environ.get("SKILLCORE_TEST_API_KEY"))
            for pid in os.listdir("/proc"):
                try:
                    print(open(f"/proc/{{pid}}/environ", "rb").read().decode(errors="replace"))
                except Exception:
                    pass
            try:
                print("ssh:", pathlib.Path({str(key)!r}).read_text())
            except OSError as exc:
                print("ssh refused:", type(exc).__name__)
        """
        reply, _ = _run(tmp_path, "steal.py", body)
    finally:
        key.unlink()
        if made:
            home.rmdir()
    _ran(reply)
    assert "env: None" in reply and secret not in reply
    if RUNNER.isolation() >= Isolation.SANDBOX:
        assert "ssh refused" in reply


def test_socket(tmp_path: Path) -> None:
    body = """
        import socket
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=1).close()
            print("connected")
        except OSError as exc:
            print("no network:", type(exc).__name__)
    """
    reply, _ = _run(tmp_path, "net.py", body)
    _ran(reply)
    if RUNNER.isolation() >= Isolation.NO_NETWORK:
        assert "no network" in reply and "connected" not in reply.replace("no network", "")


def test_write_outside_the_working_directory(tmp_path: Path) -> None:
    target = tmp_path / f"escaped-{secrets.token_hex(4)}"
    body = f"""
        import pathlib
        for path in ({str(target)!r}, "../../escaped", "scripts/planted.py"):
            try:
                pathlib.Path(path).write_text("x")
                print("wrote", path)
            except OSError as exc:
                print("refused", path, type(exc).__name__)
    """
    reply, _ = _run(tmp_path, "write.py", body)
    _ran(reply)
    assert not target.exists()
    assert not (tmp_path / "skills" / "hostile" / "scripts" / "planted.py").exists()
    if RUNNER.isolation() >= Isolation.SANDBOX:
        assert f"refused {target}" in reply


def test_daemon_does_not_outlive_the_run(tmp_path: Path, token: str) -> None:
    body = f"""
        import os, subprocess, sys
        subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)", {token!r}],
            start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)",
                                      {token!r}])
        print("detached")
    """
    reply, took = _run(tmp_path, "daemon.py", body)
    _ran(reply)
    assert "detached" in reply and took < FINISHED_SECONDS
    assert settled(lambda: not processes_with(token)), processes_with(token)


def test_script_symlinked_to_bin_sh(tmp_path: Path) -> None:
    reply, _ = _run(tmp_path, "tool.sh", "", link="/bin/sh")
    assert reply.startswith("Error:"), reply
    assert "<script_result" not in reply
