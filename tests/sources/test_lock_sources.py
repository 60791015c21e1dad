"""Lock verification over Git, S3 (a moto server on loopback) and zip sources: a skill
changed by one byte in any file, renamed, added or removed is refused in frozen mode, the
other skills stay pinned, and the lock records what the source resolved each skill to."""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from loopback_s3 import MotoS3
from source_helpers import git, s3_options
from tests.core.extras import needs

from skillcore import SkillLibrary, SkillSource
from skillcore.trust import LockFile, TrustTier, locked_skill

Tree = dict[str, bytes]  # path below the source root -> bytes

START: Tree = {
    "alpha/SKILL.md": b"---\nname: alpha\ndescription: The alpha skill.\n---\nAlpha body.\n",
    "alpha/references/notes.md": b"alpha notes\n",
    "alpha/scripts/run.sh": b"echo alpha\n",
    "beta/SKILL.md": b"---\nname: beta\ndescription: The beta skill.\n---\nBeta body.\n",
    "beta/references/guide.md": b"beta guide\n",
}


def _flip(tree: Tree) -> Tree:
    out = dict(tree)
    data = bytearray(out["alpha/scripts/run.sh"])
    data[0] ^= 1
    out["alpha/scripts/run.sh"] = bytes(data)
    return out


def _skill_md_byte(tree: Tree) -> Tree:
    return {**tree, "alpha/SKILL.md": tree["alpha/SKILL.md"].replace(b"body.", b"body!")}


def _rename(tree: Tree) -> Tree:
    out = dict(tree)
    out["alpha/references/notes2.md"] = out.pop("alpha/references/notes.md")
    return out


def _add(tree: Tree) -> Tree:
    return {**tree, "alpha/scripts/extra.sh": b"echo extra\n"}


def _remove(tree: Tree) -> Tree:
    out = dict(tree)
    del out["alpha/references/notes.md"]
    return out


EDITS: dict[str, Callable[[Tree], Tree]] = {
    "byte": _flip,
    "skill-md-byte": _skill_md_byte,
    "rename": _rename,
    "add": _add,
    "remove": _remove,
}


def _write(root: Path, tree: Tree) -> None:
    if root.exists():
        shutil.rmtree(root)
    for rel, data in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _check(make: Callable[[Tree], SkillSource], resolved_key: str) -> None:
    """Lock the start tree, then each edit in frozen mode: alpha refused, beta pinned."""
    source = make(START)
    plain = SkillLibrary([source], cache=False)
    assert plain.catalog.names == ("alpha", "beta"), plain.catalog.diagnostics
    lock = LockFile.of(locked_skill(plain.reader(source), m) for m in plain.catalog.skills)
    assert resolved_key in lock.get("alpha").resolved  # type: ignore[union-attr]
    same = SkillLibrary([make(START)], cache=False, lock=lock, frozen=True)
    assert same.catalog.names == ("alpha", "beta") and same.tier("alpha") is TrustTier.PINNED
    for edit_name, edit in EDITS.items():
        lib = SkillLibrary([make(edit(START))], cache=False, lock=lock, frozen=True)
        assert lib.catalog.names == ("beta",), (edit_name, lib.catalog.diagnostics)
        assert lib.tier("beta") is TrustTier.PINNED
        assert any(d.code.value == "LOCK_MISMATCH" for d in lib.catalog.diagnostics), edit_name
    added = {**START, "gamma/SKILL.md": b"---\nname: gamma\ndescription: New.\n---\nNew.\n"}
    lib = SkillLibrary([make(added)], cache=False, lock=lock, frozen=True)
    assert lib.catalog.names == ("alpha", "beta")  # an added skill is refused when frozen
    renamed = {k.replace("alpha/", "alpha-moved/"): v for k, v in START.items()}
    lib = SkillLibrary([make(renamed)], cache=False, lock=lock, frozen=True)
    assert "alpha" not in lib.catalog.names  # a renamed (moved) skill folder is refused
    removed = {k: v for k, v in START.items() if not k.startswith("alpha/")}
    lib = SkillLibrary([make(removed)], cache=False, lock=lock, frozen=True)
    assert lib.catalog.names == ("beta",)


@needs("pygit2")
def test_git_source(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")

    def make(tree: Tree) -> SkillSource:
        _write(root / "skills", tree)
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", "state")
        return SkillSource(f"git://{root}@main/skills", label="team")

    _check(make, "git_commit")


@needs("s3fs")
def test_s3_source(moto_s3: MotoS3, tmp_path: Path) -> None:
    bucket = moto_s3.new_bucket()
    s3 = moto_s3.client()

    def make(tree: Tree) -> SkillSource:
        listed = s3.list_objects_v2(Bucket=bucket, Prefix="skills/").get("Contents", [])
        for item in listed:
            s3.delete_object(Bucket=bucket, Key=item["Key"])
        for rel, data in tree.items():
            s3.put_object(Bucket=bucket, Key=f"skills/{rel}", Body=data)
        opts = s3_options(moto_s3.endpoint)
        return SkillSource(f"s3://{bucket}/skills", storage_options=opts, label="team")

    _check(make, "s3_etag")


def test_zip_source(tmp_path: Path) -> None:
    bundle = tmp_path / "skills.zip"

    def make(tree: Tree) -> SkillSource:
        with zipfile.ZipFile(bundle, "w") as zf:
            for rel, data in tree.items():
                zf.writestr(rel, data)
        return SkillSource(str(bundle), label="team")

    _check(make, "archive_sha256")


@pytest.mark.parametrize("trusted", [None, False])
def test_local_source(tmp_path: Path, trusted: bool | None) -> None:
    root = tmp_path / "skills"

    def make(tree: Tree) -> SkillSource:
        _write(root, tree)
        return SkillSource(str(root), label="team", trusted=trusted)

    _check_local(make)


def _check_local(make: Callable[[Tree], SkillSource]) -> None:
    # A folder resolves to nothing more than its files: the resolved mapping is empty.
    source = make(START)
    plain = SkillLibrary([source], cache=False)
    lock = LockFile.of(locked_skill(plain.reader(source), m) for m in plain.catalog.skills)
    assert dict(lock.get("alpha").resolved) == {}  # type: ignore[union-attr]
    for edit in EDITS.values():
        lib = SkillLibrary([make(edit(START))], cache=False, lock=lock, frozen=True)
        assert lib.catalog.names == ("beta",)
