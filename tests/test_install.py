"""The documented install works: the wheel, installed outside the checkout, runs and imports.

The wheel is built from this checkout and installed into a fresh virtual environment in a
temporary directory. The environment sees the test environment's site-packages (so the
frameworks the adapters need are not downloaded again), but every ``skillcore*`` module must be
imported from
the wheel in that environment, never from the checkout or an editable install, and every command
runs with a working directory outside the checkout, so the bundled example skills must come from
the wheel too.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import site
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore.errors import DISTRIBUTION, install_hint

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
IMPORTS = ("skillcore", "skillcore_langchain", "skillcore_adk", "skillcore_openai")

pytestmark = pytest.mark.install


def _env() -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH pointing into the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with this checkout's wheel installed; returns its directory."""
    base = tmp_path_factory.mktemp("install")
    assert not base.resolve().is_relative_to(ROOT)
    wheels = base / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)]
    if importlib.util.find_spec("hatchling") is not None:
        build.insert(4, "--no-build-isolation")  # offline: the build backend is installed
    _run(build, cwd=base)
    (wheel,) = wheels.glob("*.whl")
    env_dir = base / "venv"
    # Not ``--system-site-packages``: run from a venv, that sees the *base* interpreter's
    # packages, not the ones this test environment installed. A .pth file lists this
    # environment's site directories instead (as plain paths, so the checkout's editable-install
    # hook is not run); they come after the new venv's own site-packages.
    _run([sys.executable, "-m", "venv", str(env_dir)], cwd=base)
    python = env_dir / "bin" / "python"
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=base
    ).stdout.strip()
    (Path(purelib) / "_test_env.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # --force-reinstall: an editable install of the same name in the system site-packages would
    # otherwise count as "already installed" and the wheel would be skipped.
    _run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--force-reinstall",
            str(wheel),
        ],
        cwd=base,
    )
    return env_dir


def test_distribution_name_is_the_one_users_install() -> None:
    """The name in pyproject, the import-error hints and the extras all agree."""
    project = PYPROJECT["project"]
    assert project["name"] == DISTRIBUTION
    assert install_hint("adk") == f'pip install "{DISTRIBUTION}[adk]"'
    extras = project["optional-dependencies"]
    for name, reqs in extras.items():
        for req in reqs:
            if req.startswith("skillcore"):
                assert req.startswith(f"{DISTRIBUTION}["), (name, req)
                wanted = req[len(DISTRIBUTION) + 1 : req.index("]")].split(",")
                assert set(wanted) <= set(extras), (name, req)


def test_every_install_line_names_the_distribution() -> None:
    """No page or message tells users to install the bare ``skillcore`` name."""
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    texts += sorted((ROOT / "src").rglob("*.py"))
    bare = re.compile(r"""pip install\s+(-U\s+)?["']?skillcore(?![-_\w])""")
    bad = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in texts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert not bad, bad


def test_wheel_installs_and_runs_outside_the_checkout(venv: Path, tmp_path: Path) -> None:
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    assert not cwd.resolve().is_relative_to(ROOT)
    demo = _run([str(venv / "bin" / "skillcore"), "demo"], cwd=cwd)
    found = re.search(r"discover: 5 skills from (\S+)", demo.stdout)
    assert found, demo.stdout
    assert Path(found[1]).resolve().is_relative_to(venv.resolve()), found[1]  # the wheel's copy
    for name in ("csv-data-audit", "python-testing", "release-notes"):
        assert name in demo.stdout

    code = (
        "import importlib, importlib.metadata as md, json, os\n"
        f"mods = {list(IMPORTS)!r}\n"
        "files = {m: os.path.realpath(importlib.import_module(m).__file__) for m in mods}\n"
        f"dist = md.distribution({DISTRIBUTION!r})\n"
        "print(json.dumps({'files': files, 'version': dist.version,\n"
        "                  'dist': os.path.realpath(str(dist.locate_file(''))),\n"
        "                  'cwd': os.getcwd()}))\n"
    )
    out = json.loads(_run([str(venv / "bin" / "python"), "-c", code], cwd=cwd).stdout)
    where = str(venv.resolve())
    for module, file in out["files"].items():
        assert file.startswith(where), (module, file)
    assert out["dist"].startswith(where)
    assert out["version"] == PYPROJECT["project"]["version"]
    assert not Path(out["cwd"]).resolve().is_relative_to(ROOT)


#: The example scripts the docs run, shipped inside the package.
SCRIPTS = ("openai_loop.py", "real_model.py")


def test_the_wheel_ships_the_examples_the_docs_use(venv: Path) -> None:
    import zipfile

    (wheel,) = (venv.parent / "wheels").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for script in SCRIPTS:
        assert f"skillcore/_examples/scripts/{script}" in names, script
    assert "skillcore/_examples/skills/csv-data-audit/SKILL.md" in names
    assert any(n.startswith("skillcore/_examples/evals/") for n in names)


def test_the_docs_run_the_examples_from_the_package(venv: Path, tmp_path: Path) -> None:
    """``python -m skillcore.examples NAME`` runs the wheel's copy from any directory."""
    python = str(venv / "bin" / "python")
    listed = _run([python, "-m", "skillcore.examples"], cwd=tmp_path).stdout
    assert "openai_loop" in listed and "real_model" in listed
    env = {k: v for k, v in _env().items() if not k.startswith("OPENAI_")}  # offline
    proc = subprocess.run(
        [python, "-m", "skillcore.examples", "openai_loop", "--api", "chat"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    assert "csv-data-audit" in proc.stdout
    code = "import skillcore; print(skillcore.examples_path('scripts'))"
    where = _run([python, "-c", code], cwd=tmp_path).stdout.strip()
    assert Path(where).resolve().is_relative_to(venv.resolve()), where


def test_no_page_runs_an_example_by_its_checkout_path() -> None:
    """Example scripts run as ``python -m skillcore.examples NAME`` (works from a wheel)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    pages += [ROOT / "examples" / s for s in SCRIPTS]
    bad = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in pages
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"python3?\s+examples/", line)
    ]
    assert not bad, bad


def test_every_page_with_an_install_line_says_how_to_install_from_a_checkout() -> None:
    """The distribution is not on the index yet: a page that shows ``pip install
    skillcore-agents...`` also shows the checkout form (``pip install -e ".[x]"``)."""
    named = re.compile(r"""pip install\s+(-U\s+)?["']?skillcore-agents""")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    bad = [
        str(p.relative_to(ROOT))
        for p in pages
        if named.search(p.read_text()) and 'pip install -e ".[' not in p.read_text()
    ]
    assert not bad, bad
