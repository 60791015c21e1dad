"""Configuration without code: SKILLCORE_* variables and a settings file, read by every
adapter and the CLI through one rule (explicit arguments win, then the environment, then the
file); a bad value is an error naming the variable or the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import PolicyMode, SkillConfig, SkillLibrary, examples_path
from skillcore.apps.cli import main
from skillcore.runtime.config import AdapterParts
from skillcore.runtime.settings import SETTINGS, ConfigError, load_settings

EXAMPLES = str(examples_path())


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No SKILLCORE_* variable from outside, and a working directory of our own."""
    for setting in SETTINGS.values():
        monkeypatch.delenv(setting.env, raising=False)
    monkeypatch.delenv("SKILLCORE_CONFIG", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_every_setting_from_the_environment() -> None:
    env = {
        "SKILLCORE_SOURCES": f"{EXAMPLES}, s3://team/skills",
        "SKILLCORE_ENABLED": "off",
        "SKILLCORE_REFRESH": "30",
        "SKILLCORE_CACHE": "no",
        "SKILLCORE_DEFAULT_SKILLS": "csv-data-audit,release-notes",
        "SKILLCORE_MAX_LOADED": "3",
        "SKILLCORE_CATALOG_BUDGET": "4000",
        "SKILLCORE_POLICY": "RESTRICT",
        "SKILLCORE_VALIDATION_MODE": "strict",
    }
    found = load_settings(env)
    assert found.values == {
        "sources": (EXAMPLES, "s3://team/skills"),
        "enabled": False,
        "refresh": 30.0,
        "cache": False,
        "default_skills": ("csv-data-audit", "release-notes"),
        "max_loaded": 3,
        "catalog_budget": 4000,
        "policy": "restrict",
        "validation_mode": "strict",
    }
    assert found.origin["max_loaded"] == "SKILLCORE_MAX_LOADED"
    assert load_settings({"SKILLCORE_REFRESH": "off"}).get("refresh") is False
    assert load_settings({"SKILLCORE_REFRESH": "on"}).get("refresh") is True


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("SKILLCORE_MAX_LOADED", "three", "whole number"),
        ("SKILLCORE_MAX_LOADED", "0", "1 or more"),
        ("SKILLCORE_ENABLED", "maybe", "true/false"),
        ("SKILLCORE_REFRESH", "-1", "seconds"),
        ("SKILLCORE_REFRESH", "nan", "seconds"),
        ("SKILLCORE_POLICY", "block", "recommend, restrict"),
        ("SKILLCORE_SOURCES", "a,,b", "non-empty"),
    ],
)
def test_a_bad_variable_is_named(name: str, value: str, why: str) -> None:
    with pytest.raises(ConfigError, match=f"^{name}: bad value {value!r}: .*{why}"):
        load_settings({name: value})


def test_the_settings_file(clean: Path) -> None:
    (clean / "skills.yaml").write_text(
        "sources: [skills, s3://bucket/x]\nmax_loaded: 2\npolicy: restrict\nrefresh: 5\n"
    )
    # A URL from a file found in the current directory needs the user's trust.
    found = load_settings({"SKILLCORE_TRUST_SETTINGS": str(clean)})
    assert found.get("sources") == (str(clean / "skills"), "s3://bucket/x")  # beside the file
    assert (found.get("max_loaded"), found.get("policy"), found.get("refresh")) == (
        2,
        "restrict",
        5.0,
    )
    # The environment overrides the file.
    assert load_settings({"SKILLCORE_MAX_LOADED": "7"}).get("max_loaded") == 7


def test_a_bad_key_or_value_in_the_file_is_named(clean: Path) -> None:
    path = clean / "skills.yaml"
    path.write_text("max_loded: 2\n")
    with pytest.raises(ConfigError, match=r"skills.yaml: unknown setting 'max_loded'"):
        load_settings({})
    path.write_text("max_loaded: lots\n")
    with pytest.raises(ConfigError, match=r"skills.yaml: max_loaded: bad value 'lots'"):
        load_settings({})
    path.write_text("[unclosed\n")
    with pytest.raises(ConfigError, match=r"skills.yaml: not valid YAML"):
        load_settings({})
    path.write_text("- a list\n")
    with pytest.raises(ConfigError, match=r"expected a mapping"):
        load_settings({})


def test_pyproject_table_and_an_explicit_file(clean: Path) -> None:
    pytest.importorskip("tomllib")
    (clean / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.skillcore]\nmax-loaded = 4\nsources = ["s"]\n'
    )
    found = load_settings({})
    assert found.get("max_loaded") == 4 and found.get("sources") == (str(clean / "s"),)
    other = clean / "elsewhere.yaml"
    other.write_text("catalog_budget: 900\n")
    assert load_settings({"SKILLCORE_CONFIG": str(other)}).values == {"catalog_budget": 900}
    with pytest.raises(ConfigError, match="SKILLCORE_CONFIG: no such settings file"):
        load_settings({"SKILLCORE_CONFIG": "missing.yaml"})


# -- every adapter reads it, explicit arguments win -------------------------------------------


def test_the_core_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLCORE_SOURCES", EXAMPLES)
    monkeypatch.setenv("SKILLCORE_MAX_LOADED", "2")
    monkeypatch.setenv("SKILLCORE_POLICY", "restrict")
    monkeypatch.setenv("SKILLCORE_REFRESH", "12")
    monkeypatch.setenv("SKILLCORE_CACHE", "off")
    parts = AdapterParts.build(None)
    assert len(parts.library.catalog) == 5 and parts.library.cache_dir is None
    assert parts.limits.max_loaded == 2
    assert parts.policy.mode is PolicyMode.RESTRICT
    assert parts.refresh.interval == 12.0
    explicit = AdapterParts.build(EXAMPLES, max_loaded_skills=4, refresh=False)
    assert explicit.limits.max_loaded == 4 and explicit.refresh.interval is None
    assert explicit.policy.mode is PolicyMode.RESTRICT  # not given: from the environment
    # A whole SkillConfig is explicit: the environment does not change it.
    assert AdapterParts.build(EXAMPLES, SkillConfig()).limits.max_loaded == 10


def test_no_sources_anywhere_is_a_clear_error() -> None:
    with pytest.raises(
        ValueError, match="no skill sources: pass sources, or set SKILLCORE_SOURCES"
    ):
        AdapterParts.build(None)


def test_the_off_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    # It switches off the configured sources; sources given in code win (with a warning).
    monkeypatch.setenv("SKILLCORE_ENABLED", "false")
    monkeypatch.setenv("SKILLCORE_SOURCES", EXAMPLES)
    parts = AdapterParts.build(None)
    assert len(parts.library.catalog) == 0
    assert parts.toolkit.instructions(parts.library.session()) == ""  # no catalog at all


def test_a_bad_variable_fails_the_adapter_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLCORE_MAX_LOADED", "many")
    with pytest.raises(ConfigError, match="SKILLCORE_MAX_LOADED"):
        AdapterParts.build(EXAMPLES)


def test_langchain_middleware_reads_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("langchain.agents")
    from skillcore_langchain import SkillsMiddleware

    monkeypatch.setenv("SKILLCORE_SOURCES", EXAMPLES)
    monkeypatch.setenv("SKILLCORE_DEFAULT_SKILLS", "csv-data-audit")
    middleware = SkillsMiddleware()
    assert len(middleware.library.catalog) == 5
    assert middleware.config.default_skills == ("csv-data-audit",)
    assert SkillsMiddleware(default_skills=()).config.default_skills == ()


def test_adk_toolset_reads_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("google.adk")
    from skillcore_adk import SkillToolset

    monkeypatch.setenv("SKILLCORE_SOURCES", EXAMPLES)
    monkeypatch.setenv("SKILLCORE_CATALOG_BUDGET", "500")
    toolset = SkillToolset()
    assert toolset.limits.catalog_budget == 500 and len(toolset.library.catalog) == 5


def test_openai_adapters_read_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    from skillcore_openai import OpenAISkills

    monkeypatch.setenv("SKILLCORE_SOURCES", EXAMPLES)
    monkeypatch.setenv("SKILLCORE_MAX_LOADED", "1")
    skills = OpenAISkills()
    assert skills.limits.max_loaded == 1 and len(skills.toolkit.library.catalog) == 5
    pytest.importorskip("agents")
    from skillcore_openai import AgentSkills

    assert AgentSkills().limits.max_loaded == 1


# -- the CLI -----------------------------------------------------------------------------------


def test_the_cli_reads_the_settings(
    monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path
) -> None:
    one = tmp_path / "one" / "solo"
    one.mkdir(parents=True)
    (one / "SKILL.md").write_text("---\nname: solo\ndescription: The only one.\n---\nBody\n")
    monkeypatch.setenv("SKILLCORE_SOURCES", str(one.parent))
    assert main(["list"]) == 0
    assert capsys.readouterr().out.split()[0] == "solo"
    assert main(["list", EXAMPLES]) == 0  # the command line wins
    assert "csv-data-audit" in capsys.readouterr().out
    monkeypatch.setenv("SKILLCORE_VALIDATION_MODE", "strict")
    assert main(["validate"]) == 0
    assert "(strict mode)" in capsys.readouterr().out
    monkeypatch.setenv("SKILLCORE_CATALOG_BUDGET", "lots")
    assert main(["render"]) == 2
    assert "SKILLCORE_CATALOG_BUDGET: bad value 'lots'" in capsys.readouterr().err


def test_library_cache_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLCORE_NO_CACHE", raising=False)
    monkeypatch.setenv("SKILLCORE_CACHE", "0")
    assert AdapterParts.build(EXAMPLES).library.cache_dir is None
    monkeypatch.setenv("SKILLCORE_CACHE", "1")
    assert AdapterParts.build(EXAMPLES).library.cache_dir is not None
    # A SkillLibrary built by hand is explicit: its own ``cache`` argument decides.
    assert SkillLibrary(EXAMPLES, cache=False).cache_dir is None
