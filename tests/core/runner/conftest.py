"""Runners at each isolation level this machine gives, and helpers to run a script body and
to look for processes a run left behind."""

from __future__ import annotations

import os
import secrets
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from skillcore.runner import (
    BubblewrapRunner,
    Isolation,
    LocalRunner,
    RunLimits,
    ScriptRequest,
    ScriptResult,
    command_for,
)

#: Seconds a test waits for a condition about "finished" (generous: a loaded 2-core machine).
SETTLE_SECONDS = 30.0

RUNNERS: dict[str, Callable[[], LocalRunner]] = {
    "limits": lambda: LocalRunner(namespaces=False),
    "namespaces": LocalRunner,
    "bubblewrap": BubblewrapRunner,
}
#: The level each runner is meant to give on Linux with namespaces, a cgroup and bwrap.
EXPECTED = {
    "limits": Isolation.LIMITS,
    "namespaces": Isolation.NO_NETWORK,
    "bubblewrap": Isolation.SANDBOX,
}


def need(runner: LocalRunner, level: Isolation) -> None:
    """Skip (fail in CI, where the sandbox tools are installed) when ``runner`` gives less."""
    if runner.isolation() >= level:
        return
    message = f"{level.name} not available here: {runner.mechanisms()}"
    if os.environ.get("SKILLCORE_REQUIRE_TEST_TOOLS"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(params=sorted(RUNNERS))
def runner(request: pytest.FixtureRequest) -> LocalRunner:
    """Each runner, required to give the level it is meant to."""
    made = RUNNERS[request.param]()
    need(made, EXPECTED[request.param])
    return made


@pytest.fixture
def token() -> str:
    """A word only this test's processes carry in their command line."""
    return f"skillcore-hostile-{secrets.token_hex(6)}"


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "skill"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: skill\ndescription: d\n---\nbody\n")
    return folder


def run_script(
    runner: LocalRunner,
    skill_dir: Path,
    body: str,
    *args: str,
    name: str = "scripts/run.py",
    stdin: bytes = b"",
    **limits: float,
) -> ScriptResult:
    """Write ``body`` as a script of the skill and run it with ``args`` under ``limits``."""
    script = skill_dir / name
    script.write_text(textwrap.dedent(body))
    argv = command_for(script)
    assert isinstance(argv, tuple), argv
    request = ScriptRequest(
        skill="skill",
        script=name,
        argv=(*argv, *args),
        skill_dir=skill_dir,
        stdin=stdin,
        limits=RunLimits(**limits),  # type: ignore[arg-type]
        require=Isolation.PROCESS,
    )
    return runner.run(request)


def processes_with(token: str) -> list[int]:
    """Live (not zombie) processes whose command line holds ``token``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def settled(check: Callable[[], bool]) -> bool:
    """Whether ``check`` holds within :data:`SETTLE_SECONDS`."""
    end = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()
