"""examples/real_model.py reports a model server that stopped or never answers as such, with
the portable-build hint, not as a bare client error (runs without the real-model extra)."""

from __future__ import annotations

import importlib.util
import signal
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("real_model", ROOT / "examples" / "real_model.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_server_at_the_url_is_said_in_words(example: ModuleType) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(example.ModelServerDown, match=f"no model server answers at {url}"):
        example.openai_loop(url)


def test_a_server_that_crashed_is_reported_with_its_signal_and_the_build_flag(
    example: ModuleType, tmp_path: Path
) -> None:
    # A stand-in for a llama.cpp server that segfaults on its first decode.
    crash = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    proc = subprocess.Popen([sys.executable, "-c", crash])
    proc.wait(30)
    assert proc.returncode == -signal.SIGSEGV
    url = f"http://127.0.0.1:{_free_port()}/v1"
    log = tmp_path / "server.log"
    example._SERVERS[url] = (proc, log)
    try:
        with pytest.raises(example.ModelServerDown) as caught:
            example.openai_loop(url)
    finally:
        example._SERVERS.pop(url)
    message = str(caught.value)
    assert f"the model server at {url} stopped (killed by SIGSEGV)" in message
    assert str(log) in message
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF"' in message


def test_other_errors_are_not_blamed_on_the_server(example: ModuleType) -> None:
    assert example.server_down("http://127.0.0.1:1/v1", ValueError("bad schema")) is None


def test_the_install_line_documents_the_portable_build() -> None:
    for page in (ROOT / "docs" / "real-model.md", ROOT / "examples" / "real_model.py"):
        assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install' in page.read_text(), page
