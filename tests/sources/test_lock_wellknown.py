"""The well-known index source under a lock (a real HTTP server on 127.0.0.1): the lock
records the index URL and each entry's digest, frozen mode pins what matches, and a skill
republished with other bytes (a new digest) is refused while the others stay pinned."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from loopback_http import INDEX, LoopbackHTTP, publish, serving, skill_md

from skillcore import Code, SkillLibrary, SkillSource
from skillcore.trust import LockFile, TrustTier, locked_skill

pytestmark = pytest.mark.filterwarnings("ignore::skillcore.errors.SkillSourceWarning")


@pytest.fixture
def web() -> Iterator[LoopbackHTTP]:
    yield from serving()


def test_wellknown_lock_records_its_reference_and_frozen_refuses_a_change(
    web: LoopbackHTTP,
) -> None:
    skills: dict[str, bytes | dict[str, bytes]] = {
        "review": skill_md("review"),
        "deploy": {"SKILL.md": skill_md("deploy"), "scripts/go.sh": b"echo go\n"},
    }
    publish(web, skills)
    plain = SkillLibrary([SkillSource(web.source)], cache=False)
    lock = LockFile.of(
        locked_skill(plain.reader(m.location.source), m) for m in plain.catalog.skills
    )
    listed = {e["name"]: e for e in json.loads(web.replies[INDEX].body)["skills"]}
    for name in ("review", "deploy"):
        resolved = dict(lock.skills[name].resolved)
        assert resolved == {
            "wellknown_index": f"{web.url}{INDEX}",
            "wellknown_digest": listed[name]["digest"],
        }, resolved

    frozen = SkillLibrary([SkillSource(web.source)], cache=False, lock=lock, frozen=True)
    assert frozen.catalog.names == ("deploy", "review")
    assert frozen.tier("deploy") is TrustTier.PINNED

    publish(web, {**skills, "deploy": {"SKILL.md": skill_md("deploy"), "scripts/go.sh": b"rm\n"}})
    changed = SkillLibrary([SkillSource(web.source)], cache=False, lock=lock, frozen=True)
    assert changed.catalog.names == ("review",)
    assert changed.tier("review") is TrustTier.PINNED
    (refused,) = [d for d in changed.catalog.diagnostics if d.code is Code.LOCK_MISMATCH]
    assert "scripts/go.sh" in refused.message and "deploy" in refused.message
