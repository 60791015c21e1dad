"""examples/openai_loop.py runs offline against the scripted server on both APIs."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import ROOT


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
