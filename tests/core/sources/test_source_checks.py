"""A source the user named that can never be read fails where the library is built; a source
that fails during discovery is shown through ``warnings`` (seen without logging set up)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from tests.core.extras import needs

from skillcore import (
    Code,
    MissingDependencyError,
    SkillLibrary,
    SkillSource,
    SkillSourceWarning,
    SourceError,
    SourceNotFoundError,
)
from skillcore.sources import registry
from skillcore.testing import write_skill

ROOT = Path(__file__).resolve().parents[3]
SRC = ROOT / "src"


def test_a_relative_path_that_does_not_exist_names_it_and_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceNotFoundError) as exc:
        SkillLibrary("./skils")
    message = str(exc.value)
    assert "'./skils' does not exist" in message
    assert str(tmp_path / "skils") in message and f"current directory {tmp_path}" in message
    assert isinstance(exc.value, FileNotFoundError) and isinstance(exc.value, SourceError)


def test_an_absolute_path_that_does_not_exist_fails_too(tmp_path: Path) -> None:
    missing = tmp_path / "absent"
    with pytest.raises(SourceNotFoundError, match="does not exist"):
        SkillLibrary([str(missing)])
    with pytest.raises(SourceNotFoundError, match="'team'"):  # a labelled source: both names
        SkillLibrary([SkillSource(f"file://{missing}", label="team")])


def test_an_optional_source_may_be_absent_and_appear_later(tmp_path: Path) -> None:
    later = tmp_path / "later"
    lib = SkillLibrary([SkillSource(str(later), optional=True)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # absent as expected: no warning
        assert [d.code for d in lib.discover().diagnostics] == [Code.SOURCE_UNREACHABLE]
    write_skill(later, "alpha")
    assert lib.refresh().names == ("alpha",)


@pytest.mark.parametrize(
    ("url", "module", "extra"),
    [
        ("git:///srv/repo@v1/skills", "pygit2", "git"),
        ("git+https://example.com/org/skills.git@v1", "pygit2", "git"),
        ("s3://bucket/skills", "s3fs", "s3"),
        ("mcp+stdio://skills-server", "mcp", "mcp"),
    ],
)
def test_a_missing_extra_fails_at_construction_with_the_install_line(
    monkeypatch: pytest.MonkeyPatch, url: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    # ... and never imported (importing the MCP backend registers its readers).
    monkeypatch.setattr(registry, "_FACTORIES", {})
    with pytest.raises(MissingDependencyError) as exc:
        SkillLibrary([url])
    assert url in str(exc.value)
    assert f'pip install "skillcore-agents[{extra}]"' in str(exc.value)


def test_a_cache_chain_checks_every_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "s3fs", None)
    with pytest.raises(MissingDependencyError, match=r"skillcore-agents\[s3\]"):
        SkillLibrary(["simplecache::s3://bucket/skills"])


def test_an_unknown_protocol_fails_at_construction() -> None:
    with pytest.raises(SourceError, match="unknown protocol 'gti'"):
        SkillLibrary(["gti:///srv/repo"])


def test_an_unreachable_source_warns_once_per_failure(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    lib = SkillLibrary([str(root), "memory://no-such-folder"])
    with pytest.warns(SkillSourceWarning, match="memory://no-such-folder.*SOURCE_UNREACHABLE"):
        assert lib.discover().names == ("alpha",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lib.refresh()  # the same failure again: already said


def test_a_warning_turned_into_an_error_leaves_the_catalog_consistent(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    lib = SkillLibrary([str(root), "memory://no-such-folder"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SkillSourceWarning)
        with pytest.raises(SkillSourceWarning):
            lib.discover()
    catalog = lib.catalog  # already merged when the warning was raised
    assert catalog.names == ("alpha",)
    assert [d.code for d in catalog.diagnostics] == [Code.SOURCE_UNREACHABLE]


def test_a_source_that_fails_later_warns_that_it_is_stale(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "alpha")
    lib = SkillLibrary([str(root)])
    assert lib.discover().names == ("alpha",)
    root.rename(tmp_path / "moved")
    with pytest.warns(SkillSourceWarning, match="SOURCE_STALE.*keeping its 1 skill"):
        assert lib.refresh().names == ("alpha",)


def test_the_warning_shows_without_logging_set_up(tmp_path: Path) -> None:
    code = "from skillcore import SkillLibrary\nSkillLibrary('memory://no-such-folder').catalog\n"
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert "SkillSourceWarning: skill source 'memory://no-such-folder'" in proc.stderr


def test_the_git_example_without_its_extra_says_what_to_install(tmp_path: Path) -> None:
    # The docs' Git example on a machine without pygit2: the install line, not an
    # AttributeError on a skill that was silently not found.
    code = (
        "import sys\n"
        "sys.modules['pygit2'] = None\n"
        "from skillcore import SkillLibrary\n"
        f"library = SkillLibrary(['git://{tmp_path}@v1.4/skills'])\n"
        "print(library.discover().get('release-checklist').description)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("skillcore.errors.MissingDependencyError"), proc.stderr
    assert 'pip install "skillcore-agents[git]"' in last


# -- the command line --------------------------------------------------------------------------


def _cli(*args: str, cwd: Path, block: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m skillcore ARGS`` (with ``block`` made unimportable first)."""
    prefix = f"import sys; sys.modules[{block!r}] = None; " if block else "import sys; "
    code = prefix + "from skillcore.apps.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize(
    "command", ["list", "validate", "show alpha", "render", pytest.param("mcp", marks=needs("mcp"))]
)
def test_the_cli_names_a_typod_source_and_exits_2(tmp_path: Path, command: str) -> None:
    proc = _cli(*command.split(), "./skils", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert "'./skils' does not exist" in line and "Traceback" not in proc.stderr


def test_the_cli_names_the_missing_extra_and_exits_2(tmp_path: Path) -> None:
    proc = _cli("list", "git:///srv/repo@v1/skills", cwd=tmp_path, block="pygit2")
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert 'pip install "skillcore-agents[git]"' in line


def test_the_cli_prints_an_unreachable_source_once(tmp_path: Path) -> None:
    proc = _cli("list", "memory://no-such-folder", cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()  # its own error line, not also a warning
    assert "memory://no-such-folder" in line
