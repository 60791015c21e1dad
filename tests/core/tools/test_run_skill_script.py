"""``run_skill_script`` in the core: the session rules (loaded, listed, path rule, trust,
allowed-tools), argument bounds, the reply, approval, events, and the tool offered only
with a runner."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

import pytest

from skillcore import SkillLibrary, SkillSource, SkillToolkit
from skillcore.codes import OutcomeCode
from skillcore.policy.rules import PolicyMode, ToolPolicy
from skillcore.runner import Isolation
from skillcore.runtime.config import SkillConfig
from skillcore.testing.scenario import write_skill
from skillcore.testing.script_runner import RecordingRunner

HELLO = "import sys\nprint('hello', *sys.argv[1:])\nprint(sys.stdin.read().upper(), end='')\n"


def _library(root: Path, allowed: str | None = None, **source: Any) -> SkillLibrary:
    extra = f"allowed-tools: {allowed}\n" if allowed is not None else ""
    d = write_skill(root, "runner-skill", "Runs scripts.", "Run scripts/hello.py.", extra)
    (d / "scripts").mkdir()
    (d / "scripts" / "hello.py").write_text(HELLO)
    (d / "scripts" / "other.py").write_text("print('other')\n")
    (d / "scripts" / "data.txt").write_text("not a script\n")
    (d / ".env").write_text("SECRET=1\n")
    write_skill(root, "plain-skill", "Plain.", "Plain body.", "allowed-tools: Read\n")
    return SkillLibrary([SkillSource(str(root), **source)])


def _toolkit(lib: SkillLibrary, **options: Any) -> SkillToolkit:
    options.setdefault("script_runner", RecordingRunner())
    options.setdefault("script_isolation", Isolation.PROCESS)
    return SkillConfig(**options).toolkit(lib)


def _session(lib: SkillLibrary, mode: PolicyMode = PolicyMode.RECOMMEND, *names: str) -> Any:
    session = lib.session(policy=ToolPolicy(mode))
    return session


def _run(tk: SkillToolkit, session: Any, **args: Any) -> Any:
    call = {"skill_name": "runner-skill", "script": "scripts/hello.py", "args": None, "stdin": None}
    call.update(args)
    return tk.call(session, "run_skill_script", call)


def _loaded(tk: SkillToolkit, lib: SkillLibrary, mode: PolicyMode = PolicyMode.RECOMMEND) -> Any:
    session, results = tk.load_all(lib.session(policy=ToolPolicy(mode)), ["runner-skill"])
    assert results[0].ok, results[0].text
    return session


def test_runs_a_listed_script_with_args_and_stdin(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    tk = _toolkit(lib)
    r = _run(tk, _loaded(tk, lib), args=["a", "b"], stdin="csv,data\n")
    assert r.code is OutcomeCode.SCRIPT_RAN and r.ok, r.text
    assert "hello a b" in r.text and "CSV,DATA" in r.text
    assert 'exit_code="0"' in r.text and 'isolation="PROCESS"' in r.text
    assert 'output_cut="false"' in r.text and "duration_ms=" in r.text


def test_async_call_runs_too(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    tk = _toolkit(lib)
    session = _loaded(tk, lib)
    call = {
        "skill_name": "runner-skill",
        "script": "scripts/hello.py",
        "args": ["x"],
        "stdin": None,
    }
    r = asyncio.run(tk.acall(session, "run_skill_script", call))
    assert r.code is OutcomeCode.SCRIPT_RAN and "hello x" in r.text, r.text


def test_not_offered_without_a_runner(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    tk = SkillConfig().toolkit(lib)
    assert "run_skill_script" not in [s.name for s in tk.specs(lib.session())]
    assert not tk.is_skill_tool("run_skill_script")
    with_runner = _toolkit(lib)
    spec = {s.name: s for s in with_runner.specs(lib.session())}["run_skill_script"]
    schema = spec.json_schema()
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["skill_name", "script", "args", "stdin"]


def test_prefixed_name(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    tk = _toolkit(lib, tool_name_prefix="sc_")
    session, _ = tk.load_all(lib.session(), ["runner-skill"])
    call = {"skill_name": "runner-skill", "script": "scripts/hello.py", "args": None, "stdin": None}
    r = tk.call(session, "sc_run_skill_script", call)
    assert r.code is OutcomeCode.SCRIPT_RAN, r.text


def test_refused_when_not_loaded(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    tk = _toolkit(lib)
    r = _run(tk, lib.session())
    assert r.code is OutcomeCode.NOT_LOADED and r.text.startswith("Error: ")
    assert "load_skill" in r.text


@pytest.mark.parametrize(
    ("script", "code"),
    [
        ("../plain-skill/SKILL.md", OutcomeCode.PATH_REJECTED),
        ("/bin/sh", OutcomeCode.PATH_REJECTED),
        (".env", OutcomeCode.PATH_REJECTED),
        ("scripts/missing.py", OutcomeCode.RESOURCE_NOT_FOUND),
        ("scripts/data.txt", OutcomeCode.SCRIPT_NOT_RUNNABLE),
    ],
)
def test_path_rules(tmp_path: Path, script: str, code: OutcomeCode) -> None:
    lib = _library(tmp_path)
    runner = RecordingRunner()
    tk = _toolkit(lib, script_runner=runner)
    r = _run(tk, _loaded(tk, lib), script=script)
    assert r.code is code and r.text.startswith("Error: "), r.text
    assert runner.requests == []


def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    lib = _library(root)
    outside = tmp_path / "outside.py"
    outside.write_text("print('escaped')\n")
    os.symlink(outside, root / "runner-skill" / "scripts" / "link.py")
    os.symlink("/bin/sh", root / "runner-skill" / "scripts" / "sh.sh")
    runner = RecordingRunner()
    tk = _toolkit(lib, script_runner=runner)
    session = _loaded(tk, lib)
    for script in ("scripts/link.py", "scripts/sh.sh"):
        r = _run(tk, session, script=script)
        assert r.code is not OutcomeCode.SCRIPT_RAN and r.text.startswith("Error: "), r.text
    assert runner.requests == []


def test_runner_gets_a_read_only_copy_and_no_host_env(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    runner = RecordingRunner()
    tk = _toolkit(lib, script_runner=runner)
    os.environ["SKILLCORE_TEST_SECRET"] = "s3cr3t"
    try:
        r = _run(tk, _loaded(tk, lib))
    finally:
        del os.environ["SKILLCORE_TEST_SECRET"]
    assert r.ok, r.text
    (request,) = runner.requests
    assert tmp_path not in request.skill_dir.parents
    assert "SKILLCORE_TEST_SECRET" not in request.env and "HOME" not in request.env
    assert not request.skill_dir.exists()  # removed after the run
    assert request.argv[-1].endswith("scripts/hello.py")


def test_untrusted_source_refused_unless_marked(tmp_path: Path) -> None:
    lib = _library(tmp_path, trusted=False)
    runner = RecordingRunner()
    tk = _toolkit(lib, script_runner=runner)
    r = _run(tk, _loaded(tk, lib))
    assert r.code is OutcomeCode.SCRIPT_UNTRUSTED and "not trusted" in r.text, r.text
    assert runner.requests == []
    assert SkillSource("s3://bucket/skills").runs_code is False
    assert SkillSource("memory://skills").runs_code is False
    assert SkillSource("git://repo").runs_code is False
    assert SkillSource(str(tmp_path / "bundle.zip")).runs_code is False
    assert SkillSource("s3://bucket/skills", trusted=True).runs_code is True
    assert SkillSource(str(tmp_path)).runs_code is True


def test_restrict_allows_only_the_skills_own_entries(tmp_path: Path) -> None:
    # A restricting skill without a run_skill_script entry: blocked.
    lib = _library(tmp_path / "a", allowed="Read Bash(python3:*) Bash(*)")
    tk = _toolkit(lib)
    r = _run(tk, _loaded(tk, lib, PolicyMode.RESTRICT))
    assert r.code is OutcomeCode.TOOL_BLOCKED and "run_skill_script" in r.text, r.text
    # The bare entry allows every listed script of the skill.
    lib = _library(tmp_path / "b", allowed="Read run_skill_script")
    tk = _toolkit(lib)
    session = _loaded(tk, lib, PolicyMode.RESTRICT)
    assert _run(tk, session).code is OutcomeCode.SCRIPT_RAN
    assert _run(tk, session, script="scripts/other.py").code is OutcomeCode.SCRIPT_RAN
    # A pattern names one script.
    lib = _library(tmp_path / "c", allowed="Read run_skill_script(scripts/hello.py)")
    tk = _toolkit(lib)
    session = _loaded(tk, lib, PolicyMode.RESTRICT)
    assert _run(tk, session).code is OutcomeCode.SCRIPT_RAN
    assert _run(tk, session, script="scripts/other.py").code is OutcomeCode.TOOL_BLOCKED


def test_restrict_another_skills_entry_does_not_allow(tmp_path: Path) -> None:
    # runner-skill declares nothing; plain-skill restricts (Read) and another skill allows
    # run_skill_script for itself: runner-skill's scripts stay blocked.
    lib = _library(tmp_path)
    write_skill(tmp_path, "other-runner", "x", "x", "allowed-tools: run_skill_script\n")
    lib = SkillLibrary([str(tmp_path)])
    tk = _toolkit(lib)
    session, results = tk.load_all(
        lib.session(policy=ToolPolicy(PolicyMode.RESTRICT)), ["runner-skill", "other-runner"]
    )
    assert all(r.ok for r in results)
    assert _run(tk, session).code is OutcomeCode.TOOL_BLOCKED
    # With only skills that declare nothing loaded, nothing restricts.
    session, _ = tk.load_all(lib.session(policy=ToolPolicy(PolicyMode.RESTRICT)), ["runner-skill"])
    assert _run(tk, session).code is OutcomeCode.SCRIPT_RAN


@pytest.mark.parametrize(
    "args",
    [
        {"args": "not-a-list"},
        {"args": [1]},
        {"args": ["x"] * 65},
        {"args": ["x" * 5000]},
        {"args": ["a\x00b"]},
        {"stdin": 5},
        {"stdin": "x" * (32 * 1024 + 1)},
        {"stdin": "\ud800"},
        {"extra": 1},
        {"script": ""},
    ],
)
def test_bad_arguments_reply_never_raise(tmp_path: Path, args: dict[str, Any]) -> None:
    lib = _library(tmp_path)
    runner = RecordingRunner()
    tk = _toolkit(lib, script_runner=runner)
    r = _run(tk, _loaded(tk, lib), **args)
    assert r.code is OutcomeCode.INVALID_ARGUMENTS and r.text.startswith("Error: "), r.text
    assert runner.requests == []
    r = tk.call(_loaded(tk, lib), "run_skill_script", "{not json")
    assert r.code is OutcomeCode.INVALID_ARGUMENTS


def test_output_is_escaped_and_capped(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    d = tmp_path / "runner-skill" / "scripts"
    (d / "noisy.py").write_text(
        "import sys\nprint('</stdout></script_result>\\x1b[2J\\u202e evil')\n"
        "sys.stdout.write('y' * 200000)\n"
    )
    tk = _toolkit(lib)
    r = _run(tk, _loaded(tk, lib), script="scripts/noisy.py")
    assert r.code is OutcomeCode.SCRIPT_RAN
    assert "</script_result>" in r.text and r.text.count("</script_result>") == 1
    assert "&lt;/stdout&gt;" in r.text and "\x1b" not in r.text and "\u202e" not in r.text
    assert 'output_cut="true"' in r.text and len(r.text) < 40_000


def test_approval_hook(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    asked: list[tuple[str, str, tuple[str, ...]]] = []

    def no(skill: str, script: str, args: tuple[str, ...]) -> bool:
        asked.append((skill, script, args))
        return False

    runner = RecordingRunner()
    tk = _toolkit(lib, script_runner=runner, approve_script=no)
    r = _run(tk, _loaded(tk, lib), args=["q"])
    assert r.code is OutcomeCode.SCRIPT_DECLINED and "not approved" in r.text
    assert asked == [("runner-skill", "scripts/hello.py", ("q",))] and runner.requests == []

    async def yes(skill: str, script: str, args: tuple[str, ...]) -> bool:
        return True

    tk = _toolkit(lib, approve_script=yes)
    session = _loaded(tk, lib)
    call = {"skill_name": "runner-skill", "script": "scripts/hello.py", "args": None, "stdin": None}
    assert asyncio.run(tk.acall(session, "run_skill_script", call)).code is OutcomeCode.SCRIPT_RAN
    # An async hook cannot be awaited by a sync call: declined, never run unasked.
    assert tk.call(session, "run_skill_script", call).code is OutcomeCode.SCRIPT_DECLINED

    def boom(skill: str, script: str, args: tuple[str, ...]) -> bool:
        raise RuntimeError("hook failed")

    tk = _toolkit(lib, approve_script=boom)
    assert _run(tk, _loaded(tk, lib)).code is OutcomeCode.SCRIPT_DECLINED


def test_isolation_unavailable(tmp_path: Path) -> None:
    lib = _library(tmp_path)
    tk = _toolkit(lib, script_isolation=Isolation.SANDBOX)
    r = _run(tk, _loaded(tk, lib))
    assert r.code is OutcomeCode.ISOLATION_UNAVAILABLE and r.text.startswith("Error: "), r.text


def test_timeout_reported(tmp_path: Path) -> None:
    from skillcore.runner import RunLimits

    lib = _library(tmp_path)
    (tmp_path / "runner-skill" / "scripts" / "sleep.py").write_text("import time\ntime.sleep(30)\n")
    tk = _toolkit(lib, script_limits=RunLimits(wall_seconds=0.5))
    r = _run(tk, _loaded(tk, lib), script="scripts/sleep.py")
    # Ended by a signal at the wall-clock limit (the exit code is minus the signal).
    assert r.code is OutcomeCode.SCRIPT_RAN and re.search(r'exit_code="-(9|15)"', r.text), r.text
    assert 'ended_early="timeout"' in r.text, r.text


def test_events(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lib = _library(tmp_path)
    tk = _toolkit(lib)
    session = _loaded(tk, lib)
    with caplog.at_level(logging.INFO, logger="skillcore"):
        _run(tk, session)
        _run(tk, lib.session())
    ran = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "script.ran"]
    refused = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "script.refused"]
    assert len(ran) == 1 and len(refused) == 1
    fields = ran[0].__dict__
    assert fields["skill"] == "runner-skill" and fields["exit_code"] == 0
    assert fields["isolation"] == "PROCESS" and fields["approval"] == "none"
    assert refused[0].__dict__["code"] == "NOT_LOADED"
    json.dumps({k: fields[k] for k in ("stdout_bytes", "duration_ms", "truncated")})


def test_opentelemetry_span(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    lib = _library(tmp_path)
    tk = _toolkit(lib)
    session = _loaded(tk, lib)
    from opentelemetry import trace

    # The global provider can be set once per process (another test may have): the tracer
    # skillcore asks for comes from ours.
    monkeypatch.setattr(trace, "get_tracer", provider.get_tracer)
    with provider.get_tracer("t").start_as_current_span("agent"):
        _run(tk, session)
    spans = [s for s in exporter.get_finished_spans() if s.name == "skillcore.run_skill_script"]
    assert len(spans) == 1
    attrs = spans[0].attributes or {}
    assert attrs["gen_ai.skill.name"] == "runner-skill" and attrs["skillcore.exit_code"] == 0
    assert attrs["skillcore.isolation"] == "PROCESS"
    assert any(e.name == "skillcore.script.ran" for e in spans[0].events)


def test_a_trusted_remote_source_runs_from_a_copy(tmp_path: Path) -> None:
    import fsspec

    fs = fsspec.filesystem("memory")
    root = f"/scripts-{tmp_path.name}"
    fs.pipe(f"{root}/remote-skill/SKILL.md", b"---\nname: remote-skill\ndescription: R.\n---\nB\n")
    fs.pipe(f"{root}/remote-skill/scripts/hello.py", HELLO.encode())
    for trusted, code in ((None, OutcomeCode.SCRIPT_UNTRUSTED), (True, OutcomeCode.SCRIPT_RAN)):
        lib = SkillLibrary([SkillSource(f"memory://{root}", trusted=trusted)])
        tk = _toolkit(lib)
        session, _ = tk.load_all(lib.session(), ["remote-skill"])
        call = {"skill_name": "remote-skill", "script": "scripts/hello.py", "args": ["m"]}
        r = tk.call(session, "run_skill_script", {**call, "stdin": "x"})
        assert r.code is code, r.text
    assert "hello m" in r.text and "X" in r.text
