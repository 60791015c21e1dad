"""A signed lock through ``create_agent``: a zip bundle's skill pinned by a lock signed with a
trusted key runs its script; the same lock edited after signing, or signed by another key, is
refused before anything is pinned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.core.extras import needs
from tests.langchain.test_lc_lock import _bundle, _run

from skillcore import SkillLibrary
from skillcore.testing.script_runner import RecordingRunner
from skillcore.trust import (
    LockError,
    LockFile,
    TrustTier,
    generate_keypair,
    load_public_keys,
    locked_skill,
    write_lock,
    write_signature,
)

pytestmark = needs("cryptography")


def test_signed_lock_pins_and_a_changed_or_foreign_lock_is_refused(
    examples: Path, tmp_path: Path
) -> None:
    bundle = tmp_path / "skills.zip"
    _bundle(examples, bundle)
    plain = SkillLibrary([str(bundle)], cache=False)
    lock_path = tmp_path / "skills.lock"
    write_lock(
        lock_path,
        LockFile.of(locked_skill(plain.reader(m.location.source), m) for m in plain.catalog.skills),
    )
    team_pem, team_line = generate_keypair("team")
    (team_pub,) = load_public_keys(team_line)  # a loaded key; a path works the same
    other_pub = tmp_path / "other.pub"
    other_pub.write_text(generate_keypair("other")[1])
    write_signature(lock_path, team_pem)

    library = SkillLibrary(
        [str(bundle)], cache=False, lock=lock_path, frozen=True, lock_keys=[team_pub]
    )
    assert library.tier("csv-data-audit") is TrustTier.PINNED
    runner = RecordingRunner()
    reply = _run(library, runner, "signed")
    assert 'exit_code="' in str(reply.content) and len(runner.requests) == 1, reply

    with pytest.raises(LockError, match="UNTRUSTED_KEY"):
        SkillLibrary([str(bundle)], cache=False, lock=lock_path, frozen=True, lock_keys=[other_pub])

    data = json.loads(lock_path.read_text())
    data["skills"]["csv-data-audit"]["version"] = "0.0.1"
    lock_path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    with pytest.raises(LockError, match=r"skills\.lock.*BAD_SIGNATURE"):
        SkillLibrary([str(bundle)], cache=False, lock=lock_path, frozen=True, lock_keys=[team_pub])
    # Without a library there is no agent: nothing of the bundle can run.
    bare = RecordingRunner()
    _run(SkillLibrary([str(bundle)], cache=False), bare, "bare")
    assert bare.requests == []
