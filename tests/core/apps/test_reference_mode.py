"""``validate --mode reference`` gives the verdicts of the Agent Skills reference validator
(``skills-ref``): compared with the real one on the bundled examples and a corpus of tricky
frontmatters when it is installed; the examples pass it; ``show --json`` has the shape of its
``read-properties``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore import SkillLibrary
from skillcore.parse.reference import reference_errors

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"
EXAMPLE_NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "SKILL.md").is_file())


def run_module(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=60, env=env, cwd=cwd
    )


# Frontmatter lines, each tried after a valid name and description and on its own.
_LINES = [
    "a: 1", "a: [x]", "a: {x: 1}", "a: &x 1", "b: *x", "a: !!str 1", "a: ! x", "a:", "a: ~",
    "- a", "hello", "a: |\n  x", "a: >-\n  x\n  y", "? a\n: b", "a:\n  - x\n  - y",
    "a:\n  b: 1\n  b: 2", "a: 'x'", 'a: "x\\ty"', "a: x\n...\nb: y", "%YAML 1.2\n---",
    "a: b: c", "\ta: 1", "a:\n\t- x", "a: x # c", "a: x\n  y", "a:\n- x", "a: 'it''s'",
    'a: "\\u00e9"', 'a: "x\ny"', "'a': 1", "a: -x", "a: @x", "a: %x", "a:\n  -\n    - z",
    "a: [", "a: x]", "a: x}", "a: {", "a: ,x", "a: *", "a: &", "a: !", "a: x\n--- b",
    "a: 'x", 'a: "x', "a: |2\n   x", "a: |+\n  x\n\n", "a: x:y", "a: 'a: b'", 'a: "\\q"',
]  # fmt: skip
_NAMES = [
    "name: x", "name: X", "name: x-", "name: -x", "name: x--y", "name: é", "name: 'ｘ'",
    "name: x y", "name: x_y", "name: 123", "name: true", "name:", "name: ''", "name:\n  - x",
    "name: ' x '", "name: ǅ", "name: ß", "name: İ", 'name: "x\\u0301"', "name: ㄱ", "name: Ⅻ",
    "name: x" + "a" * 63, "name: x" + "a" * 64, "name: [x]",
]  # fmt: skip
_DESCRIPTIONS = [
    "description: d", "description:", "description: ' '", "description: " + "d" * 1024,
    "description: " + "d" * 1025, "description:\n  k: v", "description: |\n  " + "d" * 1023,
    "description: |\n  " + "d" * 1024, "description: 1.10", "description: a --- b",
]  # fmt: skip
_OTHERS = [
    "license: MIT", "license:\n  - MIT", "compatibility: " + "c" * 500,
    "compatibility: " + "c" * 501, "compatibility:\n  - a", "compatibility:",
    "metadata:\n  a: b", "metadata: x", "metadata:\n  a:\n    b: c", "metadata:\n  a: b\n  a: c",
    "allowed-tools: Read Write", "allowed-tools: [Read, Write]", "allowed-tools:\n  - Read",
    "version: 1.10", "triggers:\n  - a", "Name: x", "metadata:\n  version: 1.10",
]  # fmt: skip


def _corpus() -> list[tuple[str, str]]:
    """``(directory name, SKILL.md text)`` pairs the rules disagree about in tricky ways."""
    base = "name: x\ndescription: d\n"
    texts = [f"---\n{base}{line}\n---\nbody\n" for line in _LINES + _OTHERS]
    texts += [f"---\n{line}\n---\n" for line in _LINES]
    texts += [f"---\n{n}\n{d}\n---\n" for n in _NAMES for d in _DESCRIPTIONS[:2]]
    texts += [f"---\nname: x\n{d}\n---\n" for d in _DESCRIPTIONS]
    texts += [
        "", "no frontmatter", "---\nname: x\n", "---", "------", "---\n---\n",
        "\ufeff---\nname: x\ndescription: d\n---\n", "---\r\nname: x\r\ndescription: d\r\n---\r\n",
        "--- \nname: x\ndescription: d\n---", "---name: x\ndescription: d\n---",
        "----\nname: x\ndescription: d\n---\n", "---\nname: x\ndescription: d\n---",
    ]  # fmt: skip
    return [(d, t) for t in texts for d in ("x", "X", "ｘ", "é")]


CORPUS = _corpus()


def test_corpus_is_large_and_mixed() -> None:
    verdicts = [not reference_errors(text, d) for d, text in CORPUS]
    assert len(CORPUS) > 500 and 30 < sum(verdicts) < len(verdicts) - 30


def test_verdicts_equal_the_reference_validators(tmp_path: Path) -> None:
    validator = pytest.importorskip("skills_ref.validator")
    differ = []
    for i, (directory, text) in enumerate(CORPUS):
        folder = tmp_path / str(i) / directory
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_bytes(text.encode("utf-8"))
        try:
            theirs = bool(validator.validate(folder))
        except Exception:  # the reference crashes on a few inputs (exit 1: not valid)
            theirs = True
        ours = bool(reference_errors(text, directory))
        if theirs != ours:
            differ.append((directory, text[:80], theirs, ours))
    assert not differ


def test_reference_messages_are_the_reference_validators(tmp_path: Path) -> None:
    validator = pytest.importorskip("skills_ref.validator")
    folder = tmp_path / "Bad--Name"
    folder.mkdir()
    text = "---\nname: Bad--Name\ndescription: d\ncompatibility: " + "c" * 501 + "\n---\n"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    assert reference_errors(text, folder.name) == validator.validate(folder)


def test_bundled_examples_pass_the_reference_cli() -> None:
    """The real reference command (``agentskills validate``) accepts every example."""
    pytest.importorskip("skills_ref")
    for name in EXAMPLE_NAMES:
        done = run_module("skills_ref.cli", "validate", str(EXAMPLES / name))
        assert done.returncode == 0, done.stderr


def test_validate_reference_mode_on_examples_and_bad_skills(tmp_path: Path) -> None:
    done = run_module("skillcore", "validate", "--mode", "reference", str(EXAMPLES))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(EXAMPLE_NAMES)} valid skills, 0 errors" in done.stdout
    # What strict mode accepts and the reference refuses: a YAML list, a number, an extension.
    for directory, line in [
        ("flow", "allowed-tools: [Read, Write]"),
        ("number", "version: 1.10"),
    ]:
        d = tmp_path / directory
        d.mkdir()
        (d / "SKILL.md").write_text(
            f"---\nname: {directory}\ndescription: d\n{line}\n---\nbody\n", encoding="utf-8"
        )
    strict = run_module("skillcore", "validate", "--mode", "strict", str(tmp_path / "flow"))
    assert strict.returncode == 0, strict.stdout
    done = run_module("skillcore", "validate", "--mode", "reference", "--json", str(tmp_path))
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["skills"] == []
    messages = {d["path"]: d["message"] for d in report["diagnostics"]}
    assert "flow" in messages["flow/SKILL.md"]
    assert "Unexpected fields in frontmatter: version" in messages["number/SKILL.md"]
    assert {d["code"] for d in report["diagnostics"]} == {"REFERENCE_RULE"}
    # A SKILL.md given directly, and a relative path (the folder's real name is compared).
    one = run_module(
        "skillcore",
        "validate",
        "--mode",
        "reference",
        str(EXAMPLES / "csv-data-audit" / "SKILL.md"),
    )
    assert one.returncode == 0, one.stdout
    here = run_module(
        "skillcore", "validate", "--mode", "reference", ".", cwd=EXAMPLES / "csv-data-audit"
    )
    assert here.returncode == 0, here.stdout
    remote = run_module("skillcore", "validate", "--mode", "reference", "s3://bucket/skills")
    assert remote.returncode == 2 and "local folders only" in remote.stderr


def test_examples_keep_their_extensions_under_metadata() -> None:
    """Written as the spec allows (extensions under ``metadata``), the examples still give
    skillcore their triggers, file patterns, priority, dependencies and flags."""
    cat = SkillLibrary([str(EXAMPLES)]).discover()
    by = {s.name: s for s in cat}
    assert "api" in by["api-design-review"].triggers and by["api-design-review"].version == "2.0.0"
    assert by["csv-data-audit"].file_patterns == ("*.csv", "*.tsv")
    assert by["python-testing"].priority == -5
    assert by["release-notes"].dependencies == ("git-commit-hygiene",)
    assert by["release-notes"].user_invocable is True
    assert by["release-notes"].argument_hint == "[version]"
    assert by["release-notes"].allowed_tools == ("Read", "Grep", "Bash(git log:*)")
    strict = SkillLibrary([str(EXAMPLES)], mode="strict").discover()
    assert len(strict) == len(EXAMPLE_NAMES)
    assert not [d for d in strict.diagnostics if d.severity.value != "info"]


def test_show_json_has_the_shape_of_read_properties() -> None:
    done = run_module("skillcore", "show", "csv-data-audit", "--json", str(EXAMPLES))
    assert done.returncode == 0, done.stderr
    ours = json.loads(done.stdout)
    assert list(ours)[:2] == ["name", "description"]
    assert ours["allowed-tools"] == "Read Bash(python3:*)"
    pytest.importorskip("skills_ref")
    theirs = run_module("skills_ref.cli", "read-properties", str(EXAMPLES / "csv-data-audit"))
    assert theirs.returncode == 0, theirs.stderr
    assert ours == json.loads(theirs.stdout)
