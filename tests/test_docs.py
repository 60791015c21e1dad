"""The docs cannot rot: every Python block in docs/ and the README runs, as a user runs it:
from a directory outside the checkout, against the package installed from the built wheel;
mkdocs builds strictly."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(?P<skip><!-- not-run -->\n)?```python\n(?P<code>.*?)^```", re.M | re.S)
DOC_FILES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

#: Runs the blocks of one page in one namespace, in order, and names the block that fails.
RUNNER = """
import json, sys, traceback, warnings
import skillcore
print("SKILLCORE_FROM", skillcore.__file__, flush=True)
# A page whose example warns about a deprecated use fails.
warnings.simplefilter("error", DeprecationWarning)
page, blocks = sys.argv[1], json.loads(sys.stdin.read())
namespace = {"__name__": "docs_" + page}
for i, code in enumerate(blocks):
    try:
        exec(compile(code, f"{page}[block {i + 1}]", "exec"), namespace)
    except BaseException:
        print(f"BLOCK FAILED: {page} block {i + 1}", flush=True)
        traceback.print_exc()
        sys.exit(1)
"""


def python_blocks(path: Path) -> list[str]:
    """The runnable ```python blocks of a Markdown file, in order."""
    return [m["code"] for m in FENCE.finditer(path.read_text()) if not m["skip"]]


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's wheel, installed into a directory outside the checkout (its
    dependencies come from the test environment); returns that directory."""
    base = tmp_path_factory.mktemp("docs-wheel")
    assert not base.resolve().is_relative_to(ROOT)
    wheels, target = base / "wheels", base / "site"
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    build = [*pip, "wheel", "--no-deps", "-w", str(wheels), str(ROOT)]
    if importlib.util.find_spec("hatchling") is not None:
        build.insert(-1, "--no-build-isolation")  # offline: the build backend is installed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(build, cwd=base, check=True, capture_output=True, env=env, timeout=300)
    (wheel,) = wheels.glob("*.whl")
    install = [*pip, "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)]
    subprocess.run(install, cwd=base, check=True, capture_output=True, env=env, timeout=300)
    return target


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: p.name)
def test_doc_code_blocks_run(path: Path, installed: Path, tmp_path: Path) -> None:
    blocks = python_blocks(path)
    if not blocks:
        pytest.skip("no python blocks")
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    assert not cwd.resolve().is_relative_to(ROOT)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY")
    }
    env["PYTHONPATH"] = str(installed)  # the wheel's copy, ahead of any editable install
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, path.stem],
        input=json.dumps(blocks),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    origin = re.search(r"^SKILLCORE_FROM (.+)$", proc.stdout, re.M)
    assert origin is not None and Path(origin[1]).resolve().is_relative_to(installed.resolve())


def test_api_page_reads_without_the_site_build() -> None:
    """docs/api.md opens with an overview generated from the docstrings (the raw ``:::``
    directives come last, under their own heading); regenerate it with
    ``python tests/api_overview.py``."""
    from tests import api_overview

    page = api_overview.PAGE.read_text()
    assert page == api_overview.render(page), "run: python tests/api_overview.py"
    overview = page[page.index(api_overview.BEGIN) : page.index(api_overview.END)]
    assert ":::" not in overview and "| `skillcore.SkillLibrary` |" in overview
    assert page.index(api_overview.END) < page.index(api_overview.REFERENCE)
    assert ":::" not in page[: page.index(api_overview.REFERENCE)]


def test_shell_commands_do_not_need_the_checkout() -> None:
    """Commands the pages give run from any directory: the shipped examples are reached
    through the package (``examples_path``, ``python -m skillcore.examples``), never by a
    path inside the repository."""
    shell = re.compile(r"^```(?:bash|sh|shell|console)\n(.*?)^```", re.M | re.S)
    bad = [
        f"{path.name}: {line}"
        for path in DOC_FILES
        for block in shell.findall(path.read_text())
        for line in block.splitlines()
        if re.search(r"(?<![\w$/])examples/", line)
    ]
    assert not bad, bad


def test_fence_parser_finds_blocks() -> None:
    """Guard the guard: the regex must find the blocks it is meant to run."""
    assert len(python_blocks(ROOT / "docs" / "concepts.md")) >= 4
    sample = "text\n<!-- not-run -->\n```python\nraise SystemExit\n```\n```python\nx = 1\n```\n"
    tmp = [m["code"] for m in FENCE.finditer(sample) if not m["skip"]]
    assert tmp == ["x = 1\n"]


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    if shutil.which("mkdocs") is None:  # pragma: no cover - mkdocs is in the [test] extra
        # CI installs the [test] extra: there a missing mkdocs is a failure, not a skip.
        if os.environ.get("SKILLCORE_REQUIRE_TEST_TOOLS"):
            pytest.fail("mkdocs is not installed (it is in the [test] extra)")
        pytest.skip("mkdocs is not installed")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
