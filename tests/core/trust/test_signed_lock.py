"""Signed locks: with lock keys configured, the lock is used only when ``skills.lock.sig``
verifies over its exact bytes against one of them, checked before it is parsed. Through the
command line as a program (``lock --sign``, ``lock --check --lock-key``, ``--frozen``), the
library (``lock_keys=``, ``SKILLCORE_LOCK_KEYS``) and the settings file's trust rules."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.core.extras import needs
from tests.core.trust.test_lock_cli import cli

from skillcore import SkillLibrary
from skillcore.runtime.settings import ConfigError, load_settings, lock_policy
from skillcore.testing import write_skill
from skillcore.trust import LockError, TrustTier, generate_keypair

pytestmark = needs("cryptography")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("SKILLCORE_"):
            monkeypatch.delenv(name)
    write_skill(tmp_path / "skills", "alpha", "Alpha.", "Alpha body.", "")
    (tmp_path / "skills" / "alpha" / "scripts").mkdir()
    (tmp_path / "skills" / "alpha" / "scripts" / "go.sh").write_text("echo go\n")
    for name in ("team", "other"):
        pem, line = generate_keypair(name)
        (tmp_path / name).write_bytes(pem)
        (tmp_path / f"{name}.pub").write_text(line)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _edit_after_signing(lock: Path) -> None:
    data = json.loads(lock.read_text())
    data["skills"]["alpha"]["version"] = "9.9.9"  # still a valid lock: only the bytes changed
    lock.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def test_cli_lock_sign_check_and_frozen(work: Path) -> None:
    made = cli(work, "lock", "skills", "--sign", "team")
    assert made.returncode == 0, made.stderr
    assert (work / "skills.lock.sig").read_text().startswith("skillcore-signature: 1\n")
    ok = cli(work, "lock", "--check", "skills", "--lock-key", "team.pub")
    assert ok.returncode == 0, ok
    listed = cli(work, "list", "--frozen", "--json", "--lock-key", "team.pub", "skills")
    assert listed.returncode == 0, listed.stderr
    assert [(s["name"], s["tier"]) for s in json.loads(listed.stdout)] == [("alpha", "pinned")]

    other = cli(work, "lock", "--check", "skills", "--lock-key", "other.pub")
    assert other.returncode == 1 and "UNTRUSTED_KEY" in other.stdout, other
    refused = cli(work, "list", "--frozen", "--lock-key", "other.pub", "skills")
    assert refused.returncode == 2 and "UNTRUSTED_KEY" in refused.stderr, refused
    assert "skills.lock" in refused.stderr and "SHA256:" in refused.stderr

    _edit_after_signing(work / "skills.lock")
    edited = cli(work, "lock", "--check", "skills", "--lock-key", "team.pub")
    assert edited.returncode == 1 and "BAD_SIGNATURE" in edited.stdout, edited
    by_env = cli(work, "list", "--frozen", "skills", SKILLCORE_LOCK_KEYS=str(work / "team.pub"))
    assert by_env.returncode == 2 and "BAD_SIGNATURE" in by_env.stderr, by_env

    (work / "skills.lock.sig").unlink()
    unsigned = cli(work, "list", "--frozen", "--lock-key", "team.pub", "skills")
    assert unsigned.returncode == 2 and "skills.lock.sig does not exist" in unsigned.stderr


def test_library_refuses_unless_signed_by_a_trusted_key(work: Path) -> None:
    assert cli(work, "lock", "skills", "--sign", "team").returncode == 0
    lock = work / "skills.lock"
    good = SkillLibrary(work / "skills", lock=lock, lock_keys=[work / "team.pub"], cache=False)
    assert good.tier("alpha") is TrustTier.PINNED
    with pytest.raises(LockError, match=r"skills\.lock.*SHA256:.*UNTRUSTED_KEY"):
        SkillLibrary(work / "skills", lock=lock, lock_keys=[work / "other.pub"], cache=False)
    _edit_after_signing(lock)
    with pytest.raises(LockError, match="BAD_SIGNATURE"):
        SkillLibrary(work / "skills", lock=lock, lock_keys=[work / "team.pub"], cache=False)


def test_env_keys_apply_to_the_library(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli(work, "lock", "skills", "--sign", "other").returncode == 0
    monkeypatch.setenv("SKILLCORE_LOCK_KEYS", str(work / "team.pub"))
    with pytest.raises(LockError, match="UNTRUSTED_KEY"):
        SkillLibrary(work / "skills", lock=work / "skills.lock", cache=False)


def test_untrusted_settings_file_may_not_name_lock_keys(work: Path) -> None:
    assert cli(work, "lock", "skills", "--sign", "other").returncode == 0
    (work / "skills.yaml").write_text("lock: skills.lock\nlock_keys: [other.pub]\n")
    found = load_settings({}, work)
    with pytest.raises(ConfigError, match="lock_keys"):
        lock_policy(found)
    # The user's own keys still decide, whatever the file says.
    with pytest.raises(ConfigError, match="UNTRUSTED_KEY"):
        lock_policy(found, keys=[str(work / "team.pub")])
    trusted = load_settings({}, work, trust=True)
    assert lock_policy(trusted).lock.get("alpha") is not None
