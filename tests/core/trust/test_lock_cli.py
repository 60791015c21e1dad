"""The lock commands as a program: ``lock`` writes a stable file, ``lock --check`` exits 1 on
drift and prints each difference, ``--frozen`` refuses, ``outdated`` and ``update`` show and
rewrite entries, ``list`` shows the tiers; the ``lock`` and ``frozen`` settings and the trust
rules of a settings file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore import SkillLibrary, SkillSource, SkillToolkit
from skillcore.runtime.config import SkillConfig
from skillcore.runtime.settings import ConfigError, load_settings, lock_policy
from skillcore.testing import write_skill
from skillcore.trust import TrustTier, read_lock

ROOT = Path(__file__).resolve().parents[3]


def cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
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


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SKILLCORE_"):
            monkeypatch.delenv(name)
    write_skill(tmp_path / "skills", "alpha", "Alpha.", "Alpha body.", "version: 1.0.0\n")
    write_skill(tmp_path / "skills", "beta", "Beta.", "Beta body.", "")
    (tmp_path / "skills" / "beta" / "scripts").mkdir()
    (tmp_path / "skills" / "beta" / "scripts" / "go.sh").write_text("echo go\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_lock_check_frozen_update_outdated(work: Path) -> None:
    proc = cli(work, "lock", "skills")
    assert proc.returncode == 0, proc.stderr
    first = (work / "skills.lock").read_text()
    assert set(json.loads(first)["skills"]) == {"alpha", "beta"}
    assert cli(work, "lock", "skills").returncode == 0
    assert (work / "skills.lock").read_text() == first  # stable under re-runs
    check = cli(work, "lock", "--check", "skills")
    assert check.returncode == 0 and check.stdout == "", check

    go = work / "skills" / "beta" / "scripts" / "go.sh"
    go.write_text("echo gone\n")
    write_skill(work / "skills", "gamma", "Gamma.", "Gamma body.", "")
    check = cli(work, "lock", "--check", "skills")
    assert check.returncode == 1
    lines = check.stdout.splitlines()
    assert any(line.startswith("beta: scripts/go.sh: changed: expected sha256:") for line in lines)
    assert any(line.startswith("gamma: not in the lock") for line in lines)

    frozen = cli(work, "list", "--frozen", "--json", "skills")
    assert [s["name"] for s in json.loads(frozen.stdout)] == ["alpha"]
    assert json.loads(frozen.stdout)[0]["tier"] == "pinned"
    assert frozen.returncode == 1 and "LOCK_MISMATCH" in frozen.stderr
    assert "NOT_LOCKED" in frozen.stderr and "scripts/go.sh" in frozen.stderr

    outdated = cli(work, "outdated", "skills")
    assert outdated.returncode == 0 and "beta: scripts/go.sh: changed" in outdated.stdout

    update = cli(work, "update", "beta", "--source", "skills")
    assert update.returncode == 0, update.stderr
    lock = read_lock(work / "skills.lock")
    assert set(lock.skills) == {"alpha", "beta"}  # gamma was not named: still unlocked
    check = cli(work, "lock", "--check", "skills")
    assert check.returncode == 1 and check.stdout.startswith("gamma: not in the lock")
    assert cli(work, "update", "--source", "skills").returncode == 0
    assert cli(work, "lock", "--check", "skills").returncode == 0


def test_check_without_a_lock_and_a_broken_lock_are_usage_errors(work: Path) -> None:
    proc = cli(work, "lock", "--check", "skills")
    assert proc.returncode == 2 and "skills.lock" in proc.stderr and "Traceback" not in proc.stderr
    (work / "skills.lock").write_text("{broken")
    for args in (("list", "--frozen", "skills"), ("list", "--lock", "skills.lock", "skills")):
        proc = cli(work, *args)
        assert proc.returncode == 2 and "not valid JSON" in proc.stderr, proc
    proc = cli(work, "list", "skills", SKILLCORE_LOCK=str(work / "skills.lock"))
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr  # never "no lock"


def test_list_shows_the_tier(work: Path) -> None:
    proc = cli(work, "list", "skills")
    assert proc.returncode == 0
    assert all("trusted" in line.split() for line in proc.stdout.splitlines())


# -- settings --------------------------------------------------------------------------------


def test_lock_and_frozen_settings(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli(work, "lock", "skills").returncode == 0
    (work / "skills.yaml").write_text("sources: [skills]\nlock: skills.lock\nfrozen: true\n")
    found = load_settings({}, work, trust=True)
    policy = lock_policy(found)
    assert policy is not None and policy.frozen and policy.pins
    untrusted = SkillConfig().library(None)  # the file is found, not trusted: no pin
    assert untrusted.lock_policy is not None and untrusted.tier("alpha") is TrustTier.TRUSTED
    monkeypatch.setenv("SKILLCORE_TRUST_SETTINGS", str(work))
    lib = SkillConfig().library(None)
    assert lib.lock_policy is not None and lib.tier("alpha") is TrustTier.PINNED
    write_skill(work / "skills", "gamma", "Gamma.", "Gamma body.", "")
    assert "gamma" not in SkillConfig().library(None).catalog.names  # frozen from the file


def test_an_untrusted_settings_file_may_add_a_lock_but_not_grant_a_tier(
    work: Path, tmp_path: Path
) -> None:
    assert cli(work, "lock", "skills").returncode == 0
    (work / "skills.yaml").write_text("sources: [skills]\nlock: skills.lock\n")
    found = load_settings({}, work)  # found in the current directory: not trusted
    policy = lock_policy(found)
    assert policy is not None and not policy.pins  # verifies, pins nothing
    untrusted = SkillSource(str(work / "skills"), trusted=False)
    lib = SkillLibrary([untrusted], cache=False, lock=policy)
    assert lib.tier("beta") is TrustTier.UNTRUSTED  # its code still does not run
    (work / "skills" / "beta" / "scripts" / "go.sh").write_text("echo tampered\n")
    assert "beta" not in SkillLibrary([untrusted], cache=False, lock=policy).catalog.names
    # A lock outside its folder is refused, like a source outside it.
    (work / "skills.yaml").write_text(f"sources: [skills]\nlock: {tmp_path.parent}/x.lock\n")
    with pytest.raises(ConfigError, match="lock"):
        load_settings({}, work).get("lock")
    # The environment is the user's: its lock pins.
    env_found = load_settings({"SKILLCORE_LOCK": str(work / "skills.lock")}, work)
    assert lock_policy(env_found).pins


def test_pinned_remote_skill_runs_its_script_through_the_toolkit(work: Path) -> None:
    from skillcore.runner import Isolation
    from skillcore.testing.script_runner import RecordingRunner

    assert cli(work, "lock", "skills").returncode == 0
    lib = SkillLibrary(
        [SkillSource(str(work / "skills"), trusted=False)], cache=False, lock="skills.lock"
    )
    tk: SkillToolkit = SkillConfig(
        script_runner=RecordingRunner(), script_isolation=Isolation.PROCESS
    ).toolkit(lib)
    session, results = tk.load_all(lib.session(), ["beta"])
    assert results[0].ok
    call = {"skill_name": "beta", "script": "scripts/go.sh", "args": None, "stdin": None}
    result = tk.call(session, "run_skill_script", call)
    assert result.ok and "go" in result.text, result.text
