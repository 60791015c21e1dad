"""``skillcore mcp`` never tracebacks: usage errors (no ``[mcp]`` extra, a port out of range,
a host that is not one, a negative refresh) exit 2 with one line, a port already in use exits
1 with one line. The CLI runs as a subprocess, as users run it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tests.core.extras import needs

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"


def run(*args: str, hide_mcp: bool = False) -> subprocess.CompletedProcess[str]:
    """``skillcore mcp`` with ``args``; ``hide_mcp``: as if the ``[mcp]`` extra were missing."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    prelude = "import sys; sys.modules['mcp'] = None; " if hide_mcp else "import sys; "
    code = prelude + "from skillcore.apps.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "mcp", str(EXAMPLES), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("skillcore mcp: "), lines
    return lines[0]


def test_without_the_mcp_extra_it_names_the_install_line() -> None:
    result = run(hide_mcp=True)
    assert result.returncode == 2, result.stderr
    assert "[mcp]" in one_line(result)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--transport", "http", "--port", "99999"], "--port"),
        (["--transport", "http", "--port", "-1"], "--port"),
        # The host is checked by binding it, which the server's extra does.
        pytest.param(["--transport", "http", "--host", "bad..host"], "--host", marks=needs("mcp")),
        pytest.param(["--transport", "http", "--host", ""], "--host", marks=needs("mcp")),
        (["--refresh", "-1"], "--refresh"),
        (["--refresh", "nan"], "--refresh"),
        (["--transport", "http", "--refresh", "0"], "--refresh"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], words: str) -> None:
    result = run(*args)
    assert result.returncode == 2, result.stderr
    assert words in one_line(result)


@needs("mcp")
def test_a_port_in_use_exits_1_with_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("--transport", "http", "--port", str(port))
    assert result.returncode == 1, result.stderr
    line = one_line(result)
    assert str(port) in line and "in use" in line, line
