"""Helpers for the MCP tests: skill folders, the server as a subprocess (stdio, HTTP)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "skills"


def server_env() -> dict[str, str]:
    """The environment of a server subprocess: this checkout's sources first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


def write_skill(
    root: Path, name: str, description: str = "A test skill.", files: dict[str, str] | None = None
) -> Path:
    """A skill folder ``root/name`` with a SKILL.md and ``files`` (path -> text)."""
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\nlicense: MIT\n---\n# {name}\n\nBody.\n"
    )
    for rel, text in (files or {}).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return d


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    """A copy of the bundled example skills."""
    dst = tmp_path / "skills"
    shutil.copytree(EXAMPLES, dst)
    return dst


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """``skillcore mcp --transport http`` on a free loopback port."""

    def __init__(self, *sources: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        cmd = [sys.executable, "-m", "skillcore", "mcp", *sources, "--transport", "http"]
        self.proc = subprocess.Popen(
            [*cmd, "--port", str(self.port)],
            env=server_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self.proc.stderr.read().decode() if self.proc.stderr else "")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the MCP HTTP server did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stderr:
            self.proc.stderr.close()


@pytest.fixture
def http_server(skills_dir: Path) -> Iterator[HttpServer]:
    server = HttpServer(str(skills_dir))
    try:
        yield server
    finally:
        server.stop()
