"""One exit-code rule for every subcommand: 0 success, 1 the skills have problems, 2 usage or
I/O errors; and messages written for people, each printed once."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.core.extras import needs

import skillcore
from skillcore.apps.cli import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"
EVALS = ROOT / "examples" / "evals"


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse usage errors and --version
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def write_skill(root: Path, directory: str, frontmatter: str) -> None:
    d = root / directory
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\n{frontmatter}---\n# Body\n", encoding="utf-8")


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    """Two good skills and one skipped for bad YAML."""
    root = tmp_path / "bad"
    write_skill(root, "fine", "name: fine\ndescription: Audits CSV files for data problems.\n")
    write_skill(root, "other", "name: other\ndescription: Audits CSV exports for problems.\n")
    write_skill(root, "broken", "name: broken\ndescription: [unclosed\n")
    return root


@pytest.fixture
def routing(tmp_path: Path) -> Path:
    path = tmp_path / "routing.json"
    path.write_text(json.dumps([{"query": "audit this csv file", "skill": "fine"}]))
    return path


def _args(command: str, source: str, routing: Path | None = None, skill: str = "fine") -> list[str]:
    """The arguments of a normal run of ``command`` against ``source``."""
    if command == "show":
        return ["show", skill, source]
    if command == "eval":
        return ["eval", source, "--routing", str(routing)]
    return [command, source]


COMMANDS = ["list", "validate", "show", "render", "demo", "eval", "lint-descriptions"]
#: ``skillcore mcp`` where its extra is installed (without it, the command says so; tested
#: with the MCP server).
MCP = [pytest.param("mcp", marks=needs("mcp"))]


@pytest.mark.parametrize("command", COMMANDS)
def test_success_exits_0(command: str, capsys, tmp_path: Path, routing: Path) -> None:
    good = tmp_path / "good"
    write_skill(good, "fine", "name: fine\ndescription: Audits CSV files for data problems.\n")
    write_skill(good, "other", "name: other\ndescription: Audits CSV exports for problems.\n")
    code, _, err = call(capsys, *_args(command, str(good), routing))
    assert code == 0, err


@pytest.mark.parametrize("command", COMMANDS)
def test_skills_with_problems_exit_1(command: str, capsys, bad: Path, routing: Path) -> None:
    code, _, err = call(capsys, *_args(command, str(bad), routing, skill="broken"))
    assert code == 1, err
    assert "YAML_ERROR" in err or command == "validate"


@pytest.mark.parametrize("command", [*COMMANDS, *MCP])
def test_a_missing_path_exits_2_with_one_message(
    command: str, capsys, tmp_path: Path, routing: Path
) -> None:
    missing = tmp_path / "missing"
    code, out, err = call(capsys, *_args(command, str(missing), routing))
    assert code == 2, (out, err)
    assert err.count(f"{missing}' does not exist") == 1, err
    assert err.startswith(f"skillcore {command}: error: ")


@pytest.mark.parametrize("command", [*COMMANDS, "new", "mcp"])
def test_a_usage_error_exits_2(command: str, capsys) -> None:
    code, _, err = call(capsys, command, "--no-such-option")
    assert code == 2
    assert f"skillcore {command}: error: " in err


def test_new_exit_codes(capsys, tmp_path: Path) -> None:
    assert call(capsys, "new", "fresh", "--dir", str(tmp_path))[0] == 0
    assert call(capsys, "new", "fresh", "--dir", str(tmp_path))[0] == 2  # exists
    assert call(capsys, "new", "Bad_Name", "--dir", str(tmp_path))[0] == 2


@pytest.mark.parametrize("command", ["list", "render", "demo", "lint-descriptions", "validate"])
def test_an_empty_source_says_so_and_exits_1(command: str, capsys, tmp_path: Path) -> None:
    code, out, err = call(capsys, command, str(tmp_path))
    assert code == 1
    assert f"no skills found in {tmp_path}" in out + err


def test_render_loaded_unknown_skill_is_a_usage_error_for_people(capsys, tmp_path: Path) -> None:
    code, out, err = call(capsys, "render", str(EXAMPLES), "--loaded", "no-such-skill")
    assert code == 2
    assert out == ""
    assert err.startswith("skillcore render: error: --loaded no-such-skill: no skill named")
    assert "search_skills" not in err and "Call " not in err  # not the model-facing reply


def test_eval_with_only_unknown_skills_exits_2_without_a_table(capsys, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"query": "q", "skill": "nowhere"}]))
    code, out, err = call(capsys, "eval", str(EXAMPLES), "--routing", str(path))
    assert code == 2
    assert "0.00" not in out
    assert "nowhere" in err


def test_eval_with_some_unknown_skills_exits_1(capsys, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps(
            [
                {"query": "audit this csv", "skill": "csv-data-audit"},
                {"query": "q", "skill": "gone"},
            ]
        )
    )
    code, out, err = call(capsys, "eval", str(EXAMPLES), "--routing", str(path))
    assert code == 1
    assert "gone" in out + err


def test_eval_on_the_examples_exits_0(capsys) -> None:
    code, out, err = call(
        capsys,
        "eval",
        str(EXAMPLES),
        "--routing",
        str(EVALS / "routing.json"),
        "--trigger",
        str(EVALS / "csv-data-audit.json"),
    )
    assert code == 0, err
    assert "recall@1" in out


# -- missing pieces ------------------------------------------------------------------------


def test_version(capsys) -> None:
    code, out, _ = call(capsys, "--version")
    assert code == 0
    assert out.strip() == f"skillcore {skillcore.__version__}"


def test_show_a_skill_skipped_for_bad_yaml_says_why(capsys, bad: Path) -> None:
    code, _, err = call(capsys, "show", "broken", str(bad))
    assert code == 1
    assert "YAML_ERROR" in err
    assert f"{bad}/broken/SKILL.md" in err


def test_the_new_scaffold_fails_strict_validation_until_described(capsys, tmp_path: Path) -> None:
    assert call(capsys, "new", "pdf-forms", "--dir", str(tmp_path))[0] == 0
    code, out, _ = call(capsys, "validate", "--mode", "strict", str(tmp_path))
    assert code == 1
    assert "PLACEHOLDER_DESCRIPTION" in out
    code, out, _ = call(capsys, "validate", str(tmp_path))  # lenient: a warning
    assert code == 0
    assert "warning PLACEHOLDER_DESCRIPTION" in out


def test_lint_descriptions_lists_shared_words_in_a_stable_order(capsys, tmp_path: Path) -> None:
    root = tmp_path / "s"
    words = "audits reviews checks validates reports csv tsv json yaml files"
    write_skill(root, "one", f"name: one\ndescription: {words} alpha.\n")
    write_skill(root, "two", f"name: two\ndescription: {words} beta.\n")
    code, out, _ = call(capsys, "lint-descriptions", str(root))
    assert code == 0
    shared = re.search(r"\(shared: (.*)\)", out)
    assert shared is not None
    listed = shared.group(1).split(", ")
    assert listed == sorted(listed)


def test_readme_lists_every_subcommand() -> None:
    readme = (ROOT / "README.md").read_text()
    for command in [*COMMANDS, "new", "mcp"]:
        assert f"skillcore {command}" in readme, command


def test_the_demo_prints_no_log_lines(tmp_path: Path) -> None:
    # The library logs through a NullHandler; the CLI prints what it means to print.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-m", "skillcore", "demo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "LOAD_LIMIT_REACHED" in proc.stdout  # the refusals are part of the walk-through...
    assert "load of skill" not in proc.stdout  # ...but no log record lands in it


# -- the lock, signing, scan and invocation commands ------------------------------------------

#: Every command the parser knows (the lock/sign/scan/expand ones beside COMMANDS, new, mcp).
SUPPLY_CHAIN = ["lock", "outdated", "update", "keygen", "sign", "verify", "scan", "expand"]
ALL_COMMANDS = [*COMMANDS, "lint-library", "new", "mcp", *SUPPLY_CHAIN]


def _missing_args(command: str, missing: Path, lock: Path) -> list[str]:
    """A run of ``command`` whose only fault is the missing path ``missing``."""
    return {
        "lock": ["lock", "--lock", str(lock), str(missing)],
        "outdated": ["outdated", "--lock", str(lock), str(missing)],
        "update": ["update", "--lock", str(lock), "--source", str(missing)],
        "keygen": ["keygen", "--out", str(missing / "key")],
        "sign": ["sign", "--key", str(missing / "key"), str(missing / "file")],
        "verify": ["verify", "--key", str(missing / "key.pub"), str(missing / "file")],
        "scan": ["scan", str(missing)],
        "expand": ["expand", "/fine", str(missing)],
        "lint-library": ["lint-library", str(missing)],
    }[command]


@pytest.mark.parametrize("command", [*SUPPLY_CHAIN, "lint-library"])
def test_a_missing_source_exits_2_with_one_message(command: str, capsys, tmp_path: Path) -> None:
    if command == "keygen" and importlib.util.find_spec("cryptography") is None:
        pytest.skip("keygen needs the sign extra before it writes anything")
    good = tmp_path / "good"
    write_skill(good, "fine", "name: fine\ndescription: Audits CSV files for data problems.\n")
    lock = tmp_path / "skills.lock"
    assert call(capsys, "lock", "--lock", str(lock), str(good))[0] == 0
    missing = tmp_path / "missing"
    code, out, err = call(capsys, *_missing_args(command, missing, lock))
    assert code == 2, (out, err)
    assert err.startswith(f"skillcore {command}: error: ")
    assert err.count(str(missing)) == 1 and err.count("\n") == 1, err


@pytest.mark.parametrize("command", [*SUPPLY_CHAIN, "lint-library"])
def test_a_usage_error_of_every_command_exits_2(command: str, capsys) -> None:
    code, _, err = call(capsys, command, "--no-such-option")
    assert code == 2
    assert f"skillcore {command}: error: " in err


def test_the_module_docstring_and_help_name_every_command(capsys) -> None:
    from skillcore.apps import cli

    code, out, _ = call(capsys, "--help")
    assert code == 0
    doc = " ".join((cli.__doc__ or "").split())
    for command in ALL_COMMANDS:
        assert re.search(rf"[\s,:]{re.escape(command)}[,.;\s]", doc), command
        assert f"    {command} " in out, command
