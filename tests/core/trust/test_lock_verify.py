"""Lock files and verification against them on local folders: the format, verification at
discovery, on every read and on every script run, frozen mode and the trust tiers."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from skillcore import Code, OutcomeCode, ReadError, SkillLibrary, SkillSource, SkillToolkit
from skillcore.runner import Isolation
from skillcore.runtime.config import SkillConfig
from skillcore.testing.scenario import write_skill
from skillcore.testing.script_runner import RecordingRunner
from skillcore.trust import (
    LockError,
    LockFile,
    TrustTier,
    file_digest,
    locked_skill,
    parse_lock,
    read_lock,
    tree_digest,
    write_lock,
)

HELLO = "print('hello from the script')\n"


def make_library(root: Path) -> Path:
    d = write_skill(root, "runner-skill", "Runs scripts.", "Run scripts/hello.py.", "")
    (d / "scripts").mkdir()
    (d / "scripts" / "hello.py").write_text(HELLO)
    (d / "references").mkdir()
    (d / "references" / "guide.md").write_text("the guide\n")
    write_skill(root, "plain-skill", "Plain.", "Plain body.", "version: 1.2.0\n")
    return root


def lock_of(lib: SkillLibrary) -> LockFile:
    return LockFile.of(locked_skill(lib.reader(m.location.source), m) for m in lib.catalog.skills)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_library(tmp_path / "skills")


@pytest.fixture
def lock(tree: Path) -> LockFile:
    return lock_of(SkillLibrary([str(tree)], cache=False))


def _toolkit(lib: SkillLibrary) -> SkillToolkit:
    return SkillConfig(script_runner=RecordingRunner(), script_isolation=Isolation.PROCESS).toolkit(
        lib
    )


def _run(tk: SkillToolkit, lib: SkillLibrary) -> Any:
    session, results = tk.load_all(lib.session(), ["runner-skill"])
    assert results[0].ok, results[0].text
    call = {"skill_name": "runner-skill", "script": "scripts/hello.py", "args": None, "stdin": None}
    return tk.call(session, "run_skill_script", call)


# -- the format -----------------------------------------------------------------------------


def test_lock_records_sources_files_trees_and_versions(tree: Path, lock: LockFile) -> None:
    entry = lock.get("runner-skill")
    assert entry is not None and entry.source == str(tree) and entry.directory == "runner-skill"
    hello = file_digest(HELLO.encode())
    assert entry.files["scripts/hello.py"] == hello
    assert set(entry.files) == {"SKILL.md", "scripts/hello.py", "references/guide.md"}
    assert entry.tree == tree_digest(entry.files)
    assert lock.get("plain-skill").version == "1.2.0"  # type: ignore[union-attr]


def test_tree_digest_is_defined_over_sorted_paths_and_digests() -> None:
    import hashlib

    files = {"b.txt": file_digest(b"b"), "SKILL.md": file_digest(b"s"), "a/c.md": file_digest(b"")}
    text = "".join(f"{p}\0{files[p]}\n" for p in sorted(files))
    assert tree_digest(files) == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert tree_digest(dict(reversed(list(files.items())))) == tree_digest(files)


def test_rendering_is_deterministic_and_round_trips(tree: Path, lock: LockFile) -> None:
    again = lock_of(SkillLibrary([str(tree)], cache=False))
    assert again.render() == lock.render()
    assert parse_lock(lock.render()) == lock
    text = lock.render()
    assert text.endswith("}\n") and json.loads(text)["lock_version"] == 1
    assert "time" not in text  # no timestamps: re-locking an unchanged tree gives no diff


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '{"lock_version": 2, "skills": {}}',
        '{"lock_version": 1}',
        '{"lock_version": 1, "skills": {"a": {}}}',
    ],
)
def test_a_lock_that_cannot_be_read_fails_closed(text: str, tmp_path: Path, tree: Path) -> None:
    path = tmp_path / "skills.lock"
    path.write_text(text)
    with pytest.raises(LockError):
        read_lock(path)
    with pytest.raises(LockError):
        SkillLibrary([str(tree)], lock=path)


def test_a_tampered_entry_fails_closed(lock: LockFile, tmp_path: Path) -> None:
    data = json.loads(lock.render())
    entry = data["skills"]["runner-skill"]
    entry["files"]["scripts/hello.py"] = file_digest(b"evil")  # tree no longer matches
    with pytest.raises(LockError, match="tree digest"):
        parse_lock(json.dumps(data))
    entry["files"] = {"../escape": file_digest(b"x")}
    with pytest.raises(LockError, match="unsafe path"):
        parse_lock(json.dumps(data))
    with pytest.raises(LockError):
        SkillLibrary([], lock=tmp_path / "missing.lock")


def test_lock_env_names_the_lock_and_an_unreadable_one_fails(
    tree: Path, lock: LockFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "skills.lock"
    write_lock(path, lock)
    monkeypatch.setenv("SKILLCORE_LOCK", str(path))
    lib = SkillLibrary([str(tree)], cache=False)
    assert lib.lock_policy is not None and lib.tier("runner-skill") is TrustTier.PINNED
    monkeypatch.setenv("SKILLCORE_LOCK", str(tmp_path / "nowhere.lock"))
    with pytest.raises(LockError, match="cannot be read"):
        SkillLibrary([str(tree)], cache=False)


# -- verification at discovery ----------------------------------------------------------------


def _frozen(tree: Path, lock: LockFile) -> SkillLibrary:
    return SkillLibrary([str(tree)], cache=False, lock=lock, frozen=True)


def test_matching_skills_are_pinned(tree: Path, lock: LockFile) -> None:
    lib = _frozen(tree, lock)
    assert lib.catalog.names == ("plain-skill", "runner-skill")
    assert lib.catalog.diagnostics == ()
    assert {lib.tier(n) for n in lib.catalog.names} == {TrustTier.PINNED}


def _refused(lib: SkillLibrary, name: str) -> list[str]:
    assert name not in lib.catalog.names
    return [d.message for d in lib.catalog.diagnostics if d.code is Code.LOCK_MISMATCH]


def test_one_changed_byte_is_refused_naming_file_and_digests(tree: Path, lock: LockFile) -> None:
    script = tree / "runner-skill" / "scripts" / "hello.py"
    script.write_bytes(script.read_bytes().replace(b"hello", b"hellp"))
    (msg,) = _refused(_frozen(tree, lock), "runner-skill")
    assert "scripts/hello.py" in msg
    assert file_digest(HELLO.encode()) in msg and file_digest(script.read_bytes()) in msg


def test_added_removed_and_renamed_files_are_refused(tree: Path, lock: LockFile) -> None:
    skill = tree / "runner-skill"
    (skill / "references" / "extra.md").write_text("new\n")
    assert "added" in _refused(_frozen(tree, lock), "runner-skill")[0]
    (skill / "references" / "extra.md").unlink()
    (skill / "references" / "guide.md").rename(skill / "references" / "guide2.md")
    messages = " ".join(_refused(_frozen(tree, lock), "runner-skill"))
    assert "guide2.md: added" in messages and "guide.md: removed" in messages
    (skill / "references" / "guide2.md").unlink()
    assert "removed" in _refused(_frozen(tree, lock), "runner-skill")[0]


def test_a_renamed_skill_folder_is_refused(tree: Path, lock: LockFile) -> None:
    (tree / "plain-skill").rename(tree / "plain-renamed")
    lib = SkillLibrary([str(tree)], cache=False, lock=lock, frozen=True, mode="lenient")
    # The skill keeps its name (a lenient name mismatch) but moved: refused.
    assert "plain-skill" not in lib.catalog.names


def test_unlocked_skills_warn_or_are_refused_when_frozen(tree: Path, lock: LockFile) -> None:
    write_skill(tree, "newcomer", "New.", "Body.", "")
    lib = SkillLibrary([str(tree)], cache=False, lock=lock)
    assert "newcomer" in lib.catalog.names
    (diag,) = [d for d in lib.catalog.diagnostics if d.code is Code.NOT_LOCKED]
    assert diag.severity.value == "warning"
    assert lib.tier("newcomer") is TrustTier.TRUSTED  # a local folder, not vouched for
    frozen = _frozen(tree, lock)
    assert "newcomer" not in frozen.catalog.names
    (diag,) = [d for d in frozen.catalog.diagnostics if d.code is Code.NOT_LOCKED]
    assert diag.severity.value == "error"


def test_frozen_needs_a_lock(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKILLCORE_LOCK", raising=False)
    with pytest.raises(LockError, match="frozen needs a lock"):
        SkillLibrary([str(tree)], frozen=True)


# -- verification on read and on script runs ---------------------------------------------------


def test_a_file_swapped_after_discovery_is_caught_on_read(tree: Path, lock: LockFile) -> None:
    lib = _frozen(tree, lock)
    assert lib.read_resource("runner-skill", "references/guide.md").text == "the guide\n"
    guide = tree / "runner-skill" / "references" / "guide.md"
    stat = guide.stat()
    guide.write_text("the gUide\n")  # same size
    os.utime(guide, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and same mtime
    with pytest.raises(ReadError) as exc:
        lib.read_resource("runner-skill", "references/guide.md")
    assert exc.value.code is OutcomeCode.READ_FAILED and "does not match the lock" in str(exc.value)
    (tree / "runner-skill" / "SKILL.md").write_text(
        "---\nname: runner-skill\ndescription: Evil.\n---\nDo evil.\n"
    )
    with pytest.raises(ReadError, match=r"SKILL\.md"):
        lib.read_document("runner-skill")


def test_a_file_added_after_discovery_is_refused_on_listing_and_read(
    tree: Path, lock: LockFile
) -> None:
    lib = _frozen(tree, lock)
    lib.catalog  # noqa: B018 - discovered before the change
    (tree / "runner-skill" / "scripts" / "evil.py").write_text("print('evil')\n")
    with pytest.raises(ReadError, match="added"):
        lib.read_document("runner-skill")
    with pytest.raises(ReadError, match="not in the lock"):
        lib.read_resource("runner-skill", "scripts/evil.py")


def test_a_script_swapped_after_discovery_does_not_run(tree: Path, lock: LockFile) -> None:
    lib = _frozen(tree, lock)
    tk = _toolkit(lib)
    assert _run(tk, lib).code is OutcomeCode.SCRIPT_RAN
    session, _ = tk.load_all(lib.session(), ["runner-skill"])
    (tree / "runner-skill" / "scripts" / "hello.py").write_text("print('swapped')\n")
    call = {"skill_name": "runner-skill", "script": "scripts/hello.py", "args": None, "stdin": None}
    result = tk.call(session, "run_skill_script", call)
    assert result.code is OutcomeCode.READ_FAILED, result.text
    assert "does not match the lock" in result.text and "swapped" not in result.text
    runner = tk.script_settings.runner  # type: ignore[union-attr]
    assert len(runner.requests) == 1  # only the first, verified run reached the runner


# -- tiers ------------------------------------------------------------------------------------


def test_pinned_untrusted_source_runs_code_unpinned_does_not(tree: Path, lock: LockFile) -> None:
    untrusted = SkillSource(str(tree), trusted=False)
    bare = SkillLibrary([untrusted], cache=False)
    assert bare.tier("runner-skill") is TrustTier.UNTRUSTED
    assert _run(_toolkit(bare), bare).code is OutcomeCode.SCRIPT_UNTRUSTED
    pinned = SkillLibrary([untrusted], cache=False, lock=lock)
    assert pinned.tier("runner-skill") is TrustTier.PINNED
    assert _run(_toolkit(pinned), pinned).code is OutcomeCode.SCRIPT_RAN
    write_skill(tree, "newcomer", "New.", "Body.", "")
    mixed = SkillLibrary([untrusted], cache=False, lock=lock)
    assert mixed.tier("newcomer") is TrustTier.UNTRUSTED  # not in the lock: still readable
    assert mixed.read_document("newcomer").body.strip() == "Body."


def test_tier_events(tree: Path, lock: LockFile, caplog: pytest.LogCaptureFixture) -> None:
    (tree / "plain-skill" / "SKILL.md").write_text(
        "---\nname: plain-skill\ndescription: Changed.\n---\nChanged.\n"
    )
    with caplog.at_level(logging.DEBUG, logger="skillcore"):
        SkillLibrary([str(tree)], cache=False, lock=lock).discover()
    found = {r.skillcore_event: r for r in caplog.records if hasattr(r, "skillcore_event")}
    assert found["skill.verified"].tier == "pinned"  # type: ignore[attr-defined]
    refused = found["skill.lock_refused"]
    assert refused.skill == "plain-skill" and refused.stage == "discovery"  # type: ignore[attr-defined]


def test_async_discovery_verifies_too(tree: Path, lock: LockFile) -> None:
    import anyio

    (tree / "plain-skill" / "SKILL.md").write_text(
        "---\nname: plain-skill\ndescription: Changed.\n---\nChanged.\n"
    )
    lib = SkillLibrary([str(tree)], cache=False, lock=lock, frozen=True)
    catalog = anyio.run(lib.adiscover)
    assert catalog.names == ("runner-skill",)
    assert lib.tier("runner-skill") is TrustTier.PINNED


def test_a_link_inside_a_skill_is_read_through_the_reader(tree: Path) -> None:
    (tree / "runner-skill" / "references" / "alias.md").symlink_to("guide.md")
    lib = SkillLibrary([str(tree)], cache=False)
    lock = lock_of(lib)
    assert "references/alias.md" in lock.get("runner-skill").files  # type: ignore[union-attr]
    frozen = _frozen(tree, lock)
    assert frozen.tier("runner-skill") is TrustTier.PINNED
    (tree / "runner-skill" / "references" / "guide.md").write_text("changed\n")
    assert "runner-skill" not in _frozen(tree, lock).catalog.names


def test_a_skill_past_the_bounds_cannot_be_locked_and_is_refused(
    tree: Path, lock: LockFile
) -> None:
    from skillcore.trust import Bounds, SnapshotError

    lib = SkillLibrary([str(tree)], cache=False)
    meta = lib.catalog.get("runner-skill")
    with pytest.raises(SnapshotError, match="more than 2 files"):
        locked_skill(lib.reader(meta.location.source), meta, Bounds(max_files=2))  # type: ignore[union-attr]
    with pytest.raises(SnapshotError, match="larger than 5 bytes"):
        locked_skill(lib.reader(meta.location.source), meta, Bounds(max_file_bytes=5))  # type: ignore[union-attr]
    small = SkillLibrary([str(tree)], cache=False, lock=lock, max_resources=2)
    assert "runner-skill" not in small.catalog.names  # three files, two allowed: refused
    assert "plain-skill" in small.catalog.names
