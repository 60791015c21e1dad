"""A settings file found in the current directory is not trusted: it may name only folders
inside its own folder (never a source that starts a program, reaches a network or reads
outside it) unless the user trusts it (``SKILLCORE_TRUST_SETTINGS``, ``--trust-settings``);
explicit arguments beat files and environment for every key; configuration input is bounded
and every bad value is a ``ConfigError`` naming the file and key (or the variable)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import pytest
from tests.core.extras import needs

from skillcore import SkillLibrary, examples_path
from skillcore.runtime.config import AdapterParts
from skillcore.runtime.settings import (
    MAX_SETTINGS_BYTES,
    SETTINGS,
    TRUST_ENV,
    ConfigError,
    ConfigWarning,
    load_settings,
)
from skillcore.testing import write_skill

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = str(examples_path())
PWN = ["mcp+stdio://touch pwned"]


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No SKILLCORE_* variable from outside, and a working directory of our own."""
    for name in list(os.environ):
        if name.startswith("SKILLCORE_"):
            monkeypatch.delenv(name)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``skillcore ARGS`` run as a program in ``cwd``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SKILLCORE_")}
    full = {**base, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8", **env}
    return subprocess.run(
        [sys.executable, "-m", "skillcore", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
    )


def yaml_file(work: Path, sources: list[str]) -> Path:
    path = work / "skills.yaml"
    path.write_text(f"sources: {json.dumps(sources)}\n")
    return path


def toml_file(work: Path, sources: list[str]) -> Path:
    path = work / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\n\n[tool.skillcore]\nsources = {json.dumps(sources)}\n')
    return path


# -- a settings file in the current directory never starts a program ---------------------------


@pytest.mark.parametrize("write", [yaml_file, toml_file], ids=["skills.yaml", "pyproject"])
def test_the_cli_never_runs_a_program_a_settings_file_names(clean: Path, write) -> None:
    path = write(clean, PWN)
    proc = cli(clean, "list")
    assert not (clean / "pwned").exists(), "a settings file in the cwd started a program"
    assert proc.returncode == 2, proc
    err = proc.stderr
    assert str(path) in err and "sources" in err and "mcp+stdio://touch pwned" in err, err
    assert TRUST_ENV in err and "--trust-settings" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "source",
    [
        "git+file:///tmp/repo",
        "git+ssh://host/repo",
        "s3://bucket/skills",
        "mcp+https://example.invalid/mcp",
        "simplecache::file:///etc",
        "/etc",
        "../elsewhere",
        "~/skills",
    ],
)
def test_only_folders_inside_the_file_s_folder(clean: Path, source: str) -> None:
    path = yaml_file(clean, [source])
    with pytest.raises(ConfigError, match=r"skills\.yaml: sources: ") as err:
        load_settings({}).get("sources")
    assert source in str(err.value) and str(path) in str(err.value)


def test_a_folder_inside_is_fine_and_a_symlink_out_is_not(clean: Path, tmp_path: Path) -> None:
    write_skill(clean / "skills", "solo", "The only one.")
    yaml_file(clean, ["skills", "./skills/../skills"])
    assert load_settings({}).get("sources") == (
        str(clean / "skills"),
        str(clean / "skills/../skills"),
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    (clean / "link").symlink_to(outside)
    yaml_file(clean, ["link"])
    with pytest.raises(ConfigError, match="outside"):
        load_settings({}).get("sources")


def test_refused_sources_do_not_matter_when_sources_are_explicit(clean: Path) -> None:
    yaml_file(clean, PWN)
    found = load_settings({})
    assert found.get("max_loaded") is None  # other keys read as usual
    proc = cli(clean, "list", EXAMPLES)
    assert proc.returncode == 0, proc.stderr
    assert len(AdapterParts.build(EXAMPLES).library.catalog) == 5
    assert not (clean / "pwned").exists()


def test_an_adapter_built_without_sources_refuses(clean: Path) -> None:
    yaml_file(clean, PWN)
    with pytest.raises(ConfigError, match=r"skills\.yaml: sources: .*starts a program"):
        AdapterParts.build(None)
    pytest.importorskip("langchain.agents")
    from skillcore_langchain import SkillsMiddleware

    with pytest.raises(ConfigError, match="SKILLCORE_TRUST_SETTINGS"):
        SkillsMiddleware()
    assert not (clean / "pwned").exists()


def test_trust_by_flag_or_variable(clean: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_skill(outside, "solo", "The only one.")
    path = yaml_file(clean, [str(outside)])
    assert cli(clean, "list").returncode == 2
    flagged = cli(clean, "list", "--trust-settings")
    assert flagged.returncode == 0 and flagged.stdout.split()[0] == "solo", flagged.stderr
    for trusted in (str(clean), str(path), "*", f"/nowhere, {clean}"):
        proc = cli(clean, "list", **{TRUST_ENV: trusted})
        assert proc.returncode == 0, (trusted, proc.stderr)
    assert load_settings({TRUST_ENV: str(clean)}).get("sources") == (str(outside),)
    assert load_settings({}, trust=True).get("sources") == (str(outside),)
    with pytest.raises(ConfigError, match=f"{TRUST_ENV}: .*absolute"):
        load_settings({TRUST_ENV: "relative/dir"})
    # Trusting another folder trusts nothing here.
    with pytest.raises(ConfigError, match="outside"):
        load_settings({TRUST_ENV: str(tmp_path / "other")}).get("sources")


def test_a_file_named_by_an_absolute_skillcore_config_is_trusted(
    clean: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    write_skill(outside, "solo", "The only one.")
    path = yaml_file(clean, [str(outside)])
    assert load_settings({"SKILLCORE_CONFIG": str(path)}).get("sources") == (str(outside),)
    # A relative name is found through the current directory: not trusted.
    with pytest.raises(ConfigError, match="outside"):
        load_settings({"SKILLCORE_CONFIG": "skills.yaml"}).get("sources")


@needs("mcp")
def test_trusted_settings_do_start_what_they_name(clean: Path) -> None:
    # Trust is the user's decision: then the source is used as written.
    yaml_file(clean, PWN)
    cli(clean, "list", "--trust-settings")
    assert (clean / "pwned").exists()


# -- explicit arguments beat files and environment, ``enabled`` included -----------------------


def test_enabled_off_in_a_file_keeps_an_explicit_library(clean: Path) -> None:
    (clean / "pyproject.toml").write_text("[tool.skillcore]\nenabled = false\n")
    library = SkillLibrary(EXAMPLES)
    with pytest.warns(ConfigWarning, match=r"pyproject\.toml \[tool\.skillcore\]: enabled"):
        parts = AdapterParts.build(library)
    assert parts.library is library and len(parts.library.catalog) == 5
    with pytest.warns(ConfigWarning, match="enabled"):
        assert len(AdapterParts.build(EXAMPLES).library.catalog) == 5


def test_enabled_off_still_switches_off_configured_sources(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLCORE_SOURCES", EXAMPLES)
    monkeypatch.setenv("SKILLCORE_ENABLED", "off")
    assert len(AdapterParts.build(None).library.catalog) == 0


# -- bounds ------------------------------------------------------------------------------------


BIG = "9" * 5000


def test_a_huge_number_is_a_config_error_naming_the_key(clean: Path) -> None:
    (clean / "skills.yaml").write_text(f"max_loaded: {BIG}\n")
    with pytest.raises(ConfigError, match=r"skills\.yaml: max_loaded: .*digits"):
        load_settings({})
    (clean / "skills.yaml").unlink()
    (clean / "pyproject.toml").write_text(f"[tool.skillcore]\nmax_loaded = {BIG}\n")
    with pytest.raises(ConfigError, match=r"pyproject\.toml: max_loaded \(line 2\): .*digits"):
        load_settings({})
    (clean / "pyproject.toml").unlink()
    with pytest.raises(ConfigError, match=r"SKILLCORE_MAX_LOADED: .*digits"):
        load_settings({"SKILLCORE_MAX_LOADED": BIG})
    with pytest.raises(ConfigError, match="SKILLCORE_REFRESH"):
        load_settings({"SKILLCORE_REFRESH": BIG})


def test_a_huge_number_through_the_cli_is_one_line(clean: Path) -> None:
    (clean / "pyproject.toml").write_text(f"[tool.skillcore]\nmax_loaded = {BIG}\n")
    proc = cli(clean, "list")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "pyproject.toml" in proc.stderr and "max_loaded" in proc.stderr


def _alias_bomb(levels: int = 9) -> str:
    """``sources`` whose items refer to each other: 9**9 strings once expanded."""
    lines = ["sources:", '  - &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"  - &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_cheaply(clean: Path) -> None:
    text = _alias_bomb()
    text += "#" * (250 * 1024 - len(text)) + "\n"
    assert len(text) < MAX_SETTINGS_BYTES
    (clean / "skills.yaml").write_text(text)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ConfigError, match=r"skills\.yaml: .*alias"):
            load_settings({})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 20 * 1024 * 1024, peak


def test_deep_nesting_is_refused_before_parsing(clean: Path) -> None:
    (clean / "skills.yaml").write_text("sources: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match=r"skills\.yaml: .*nest"):
        load_settings({})


def test_a_huge_pyproject_is_not_read_whole(clean: Path) -> None:
    path = clean / "pyproject.toml"
    with path.open("wb") as f:
        f.write(b'[project]\nname = "x"\n\n[tool.skillcore]\nmax_loaded = 2\n')
        f.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of NUL bytes
    tracemalloc.start()
    try:
        with pytest.raises(
            ConfigError, match=rf"pyproject\.toml: larger than {MAX_SETTINGS_BYTES}"
        ):
            load_settings({})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, peak


def test_a_huge_pyproject_that_is_not_about_skillcore_is_left_alone(clean: Path) -> None:
    path = clean / "pyproject.toml"
    with path.open("wb") as f:
        f.write(b'[project]\nname = "x"\n')
        f.truncate(64 * 1024 * 1024)
    with pytest.warns(ConfigWarning, match=r"pyproject\.toml: not read"):
        assert load_settings({}).values == {}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_settings_file_does_not_hang(clean: Path) -> None:
    os.mkfifo(clean / "skills.yaml")
    with pytest.raises(ConfigError, match=r"skills\.yaml: not a regular file"):
        load_settings({})


# -- nothing silently ignored ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '[tool.skillcore\nsources = ["skills"]\n',
        '[project\nname = "x"\n\n[tool.skillcore]\nsources = ["skills"]\n',
        '[tool.skillcore]\nsources = ["skills"\n',
        'tool.skillcore.sources = ["skills"\n',
    ],
    ids=["table-header", "earlier-table", "value", "dotted"],
)
def test_a_broken_pyproject_is_an_error_not_the_examples(clean: Path, text: str) -> None:
    (clean / "pyproject.toml").write_text(text)
    proc = cli(clean, "list")
    assert proc.returncode == 2, proc
    assert "pyproject.toml" in proc.stderr and "not valid TOML" in proc.stderr, proc.stderr
    assert "csv-data-audit" not in proc.stdout


@pytest.mark.parametrize(
    "text",
    [
        'tool.skillcore.sources = ["skills"]\n',
        '[tool]\nskillcore = { sources = ["skills"] }\n',
    ],
    ids=["dotted", "inline"],
)
def test_any_toml_spelling_of_the_table_is_read(clean: Path, text: str) -> None:
    (clean / "pyproject.toml").write_text(text)
    assert load_settings({}).get("sources") == (str(clean / "skills"),)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('["a", "b"]', ("a", "b")),
        ('  ["s3://x/y"] ', ("s3://x/y",)),
        ("a, b", ("a", "b")),
    ],
)
def test_a_json_list_in_the_environment_is_a_list(value: str, expected: tuple[str, ...]) -> None:
    assert load_settings({"SKILLCORE_SOURCES": value}).get("sources") == expected
    assert load_settings({"SKILLCORE_DEFAULT_SKILLS": value}).get("default_skills") == expected


@pytest.mark.parametrize("value", ["[a, b]", '["a", 1]', '["a"', "[]", '[["a"]]'])
def test_a_list_that_is_not_a_json_list_of_names_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match=r"SKILLCORE_SOURCES: bad value .*JSON list"):
        load_settings({"SKILLCORE_SOURCES": value})


def test_a_json_list_through_the_cli(clean: Path) -> None:
    write_skill(clean / "one", "solo", "The only one.")
    proc = cli(clean, "list", SKILLCORE_SOURCES=json.dumps([str(clean / "one")]))
    assert proc.returncode == 0 and proc.stdout.split()[0] == "solo", proc.stderr


def test_an_unknown_variable_warns_with_the_closest_name() -> None:
    with pytest.warns(ConfigWarning, match=r"SKILLCORE_SORCES .*SKILLCORE_SOURCES") as caught:
        load_settings({"SKILLCORE_SORCES": "x", "SKILLCORE_MAX_LOADED": "2"})
    assert len(caught) == 1
    with pytest.warns(ConfigWarning, match=r"SKILLCORE_WHATEVER is not a skillcore setting"):
        load_settings({"SKILLCORE_WHATEVER": "x"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        known = {s.env: "1" for s in SETTINGS.values() if s.key in ("cache", "enabled")}
        load_settings({**known, "SKILLCORE_NO_CACHE": "1", TRUST_ENV: "*"})


def test_an_unknown_variable_warns_on_the_cli(clean: Path) -> None:
    proc = cli(clean, "list", EXAMPLES, SKILLCORE_MAX_LOADDE="3")
    assert proc.returncode == 0, proc.stderr
    assert "SKILLCORE_MAX_LOADDE" in proc.stderr and "SKILLCORE_MAX_LOADED" in proc.stderr


def test_a_project_that_only_depends_on_skillcore_is_not_a_settings_file(clean: Path) -> None:
    # Its pyproject.toml is the project's business: even broken, it is not read as settings.
    (clean / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["skillcore-agents>=1"]\n[broken\n'
    )
    assert load_settings({}).values == {}
