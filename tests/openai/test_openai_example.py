"""examples/openai_loop.py runs offline against the scripted server on both APIs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("flags", [[], ["--stream"]], ids=["plain", "stream"])
def test_example_loop_offline(monkeypatch: pytest.MonkeyPatch, capsys, flags: list[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = importlib.util.spec_from_file_location(
        "openai_loop", ROOT / "examples" / "openai_loop.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(flags) == 0
    out = capsys.readouterr().out
    for api in ("chat", "responses"):
        section = out.split(f"== {api} (offline, scripted server)\n")[1].split("answer:")[0]
        lines = section.strip().splitlines()
        assert [line.split("(")[0].strip() for line in lines] == [
            "search_skills",
            "load_skill",
            "load_skill_resource",
            "Write",
            "unload_skill",
            "Write",
        ]
        assert "[error] Error: Tool 'Write' is not allowed" in lines[3]
        assert "[ok] wrote 21 characters" in lines[5]
    assert out.count("answer: csv-data-audit fits") == 2


def test_example_loop_says_when_every_load_failed(
    monkeypatch: pytest.MonkeyPatch, capsys, tmp_path
) -> None:
    # Skills that cannot be found: the scripted model still "answers", and the example must
    # not present that answer as if a skill had been used.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = importlib.util.spec_from_file_location(
        "openai_loop", ROOT / "examples" / "openai_loop.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "SKILLS", tmp_path)
    assert module.main(["--api", "chat"]) == 1
    captured = capsys.readouterr()
    assert "load_skill" in captured.out and "[error]" in captured.out
    assert "warning: every load_skill call failed" in captured.err
    assert "SKILL_NOT_FOUND" in captured.err
    assert "not based on any skill" in captured.err


def test_example_loop_runs_from_another_directory(tmp_path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "openai_loop.py"), "--api", "chat"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "answer: csv-data-audit fits" in proc.stdout
    assert proc.stderr == ""
