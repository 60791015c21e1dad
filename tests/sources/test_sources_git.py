"""Git sources against repositories built with the git CLI (several commits, tags, branches)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from source_helpers import git, write_skill

from skillcore import (
    Code,
    MissingDependencyError,
    OutcomeCode,
    ReadError,
    SkillLibrary,
    SkillSource,
)
from skillcore.sources.git import GitLocation, parse_git_url
from skillcore.sources.registry import open_reader


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A repository with history; the branch ``dev`` is checked out and dirty at the end.

    main:  c1 (alpha, beta)  tag v1, annotated tag v1-ann
           c2 (alpha changed, gamma added)  tag v2, branch release/2.0
    dev:   c3 (beta removed), then uncommitted edits in the working tree
    """
    root = tmp_path_factory.mktemp("git") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    skills = root / "skills"
    write_skill(skills, "alpha", "Alpha v1.", files={"references/notes.md": "alpha notes\n"})
    write_skill(
        skills,
        "beta",
        "Beta skill.",
        files={
            "scripts/run.sh": "echo run\n",
            "references/a@b:c.md": "odd name\n",  # '@' and ':' confuse fsspec's git://
            "assets/big.bin": b"\x00" * 4096,
        },
    )
    os.symlink("../../../outside.txt", skills / "beta" / "references" / "escape.md")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "c1")
    git(root, "tag", "v1")
    git(root, "tag", "-a", "v1-ann", "-m", "annotated")
    c1 = git(root, "rev-parse", "HEAD")
    write_skill(skills, "alpha", "Alpha v2.")
    write_skill(skills, "gamma", "Gamma skill.")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "c2")
    git(root, "tag", "v2")
    git(root, "branch", "release/2.0")
    c2 = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "dev")
    shutil.rmtree(skills / "beta")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "c3")
    write_skill(skills, "uncommitted", "Only in the working tree.")
    return {"root": str(root), "c1": c1, "c2": c2}


@pytest.mark.parametrize(
    ("ref", "names"),
    [
        ("v1", ("alpha", "beta")),
        ("v1-ann", ("alpha", "beta")),
        ("v2", ("alpha", "beta", "gamma")),
        ("main", ("alpha", "beta", "gamma")),
        ("release/2.0", ("alpha", "beta", "gamma")),  # a ref containing '/'
        ("dev", ("alpha", "gamma")),
        ("HEAD", ("alpha", "gamma")),
        ("c1", ("alpha", "beta")),
        ("c1-short", ("alpha", "beta")),
        ("main~1", ("alpha", "beta")),
    ],
)
def test_reads_tags_branches_and_commits(
    repo: dict[str, str], ref: str, names: tuple[str, ...]
) -> None:
    ref = {"c1": repo["c1"], "c1-short": repo["c1"][:8]}.get(ref, ref)
    catalog = SkillLibrary([f"git://{repo['root']}@{ref}/skills"]).discover()
    assert catalog.diagnostics == ()
    assert tuple(sorted(catalog.names)) == names  # never the uncommitted working tree


def test_a_ref_other_than_the_checked_out_one(repo: dict[str, str]) -> None:
    lib = SkillLibrary([f"git://{repo['root']}@v1/skills"])
    assert lib.discover().get("alpha").description == "Alpha v1."
    assert "beta" in lib.catalog  # deleted on the checked-out branch, present at v1
    assert lib.catalog.get("beta").location.url == f"git://{repo['root']}@v1/skills/beta"


def test_documents_and_resources(repo: dict[str, str]) -> None:
    lib = SkillLibrary([f"git://{repo['root']}@v1/skills"])
    doc = lib.read_document("beta")
    assert {(r.path, r.size) for r in doc.resources} == {
        ("assets/big.bin", 4096),
        ("references/a@b:c.md", 9),
        ("scripts/run.sh", 9),
    }  # the symlink is not offered
    assert lib.read_resource("beta", "references/a@b:c.md").text == "odd name\n"
    assert lib.read_resource("beta", "assets/big.bin").binary
    cases = {
        "references/escape.md": OutcomeCode.PATH_REJECTED,  # a symlink, never followed
        "../alpha/SKILL.md": OutcomeCode.PATH_REJECTED,
        "scripts/missing.sh": OutcomeCode.RESOURCE_NOT_FOUND,
        "scripts": OutcomeCode.RESOURCE_NOT_FOUND,
    }
    for path, code in cases.items():
        with pytest.raises(ReadError) as exc:
            lib.read_resource("beta", path)
        assert exc.value.code is code, path
    with pytest.raises(ReadError) as big:
        lib.read_resource("beta", "assets/big.bin", max_bytes=1000)
    assert big.value.code is OutcomeCode.TOO_LARGE and "4096 bytes" in big.value.message


def test_ref_that_does_not_exist(repo: dict[str, str]) -> None:
    catalog = SkillLibrary([f"git://{repo['root']}@v9/skills"]).discover()
    assert len(catalog) == 0
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert diag.message == (
        f"ref 'v9' not found in {repo['root']} "
        "(branches: dev, main, release/2.0; tags: v1, v1-ann, v2)"
    )


def test_folder_that_does_not_exist_at_the_ref(repo: dict[str, str]) -> None:
    (diag,) = SkillLibrary([f"git://{repo['root']}@v1/nowhere"]).discover().diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert f"no folder 'nowhere' in {repo['root']} at 'v1' (commit {repo['c1'][:10]})" in (
        diag.message
    )


def test_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    for path, text in (
        (tmp_path / "plain", "is not in a Git repository"),
        (tmp_path / "nope", "does not exist"),
    ):
        (diag,) = SkillLibrary([f"git://{path}"]).discover().diagnostics
        assert diag.code is Code.SOURCE_UNREACHABLE and text in diag.message


def test_path_form_and_storage_options(repo: dict[str, str], tmp_path: Path) -> None:
    # git:///repo/skills without a ref: the committed tree at HEAD (dev), below 'skills'.
    assert sorted(SkillLibrary([f"git://{repo['root']}/skills"]).discover().names) == [
        "alpha",
        "gamma",
    ]
    # The path form takes a ref from the storage options too.
    source = SkillSource(f"git://{repo['root']}/skills", storage_options={"ref": "v1"})
    assert sorted(SkillLibrary([source]).discover().names) == ["alpha", "beta"]
    # A repository whose path contains '@': give ref and subdir as storage options.
    odd = tmp_path / "team@corp" / "repo"
    shutil.copytree(repo["root"], odd, symlinks=True)
    source = SkillSource(f"git://{odd}", storage_options={"ref": "v1", "subdir": "skills"})
    assert sorted(SkillLibrary([source]).discover().names) == ["alpha", "beta"]


def test_refresh_follows_a_branch_and_rereads_only_changed_files(tmp_path: Path) -> None:
    root = tmp_path / "live"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in ("one", "two", "three"):
        write_skill(root / "skills", name)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    git(root, "tag", "v1")
    branch = SkillLibrary([f"git://{root}@main/skills"])
    pinned = SkillLibrary([f"git://{root}@v1/skills"])
    first, first_pinned = branch.discover(), pinned.discover()
    assert branch.refresh() is first  # nothing changed

    # Known stamps (blob ids) mean "do not read": only the stale entry's blob is read.
    reader = branch.reader(branch.sources[0])
    known = {e.directory: e.stamp for e in reader.scan(16384, {}).entries}
    scan = reader.scan(16384, {**known, "two": "stale"})
    assert {e.directory: e.head is None for e in scan.entries} == {
        "one": True,
        "three": True,
        "two": False,
    }

    write_skill(root / "skills", "two", "Two, rewritten.")
    git(root, "commit", "-qam", "change two")
    second = branch.refresh()
    assert second is not first
    assert second.get("two").description == "Two, rewritten."
    assert second.get("one") is first.get("one")  # unchanged blob: reused, not re-read
    assert pinned.refresh() is first_pinned  # a tag does not move with the branch


def test_symlinked_skill_file_is_skipped(tmp_path: Path) -> None:
    root = tmp_path / "links"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_skill(root, "real")
    (root / "linked").mkdir()
    os.symlink("../real/SKILL.md", root / "linked" / "SKILL.md")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "links")
    catalog = SkillLibrary([f"git://{root}"]).discover()
    assert catalog.names == ("real",)
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SYMLINK_ESCAPE and diag.path == "linked/SKILL.md"


def test_remote_repository_is_cloned_and_fetched(repo: dict[str, str], tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", repo["root"], str(remote))
    source = SkillSource(
        f"git+file://{remote}@main/skills", storage_options={"cache_dir": str(tmp_path / "cache")}
    )
    lib = SkillLibrary([source])
    assert sorted(lib.discover().names) == ["alpha", "beta", "gamma"]
    assert lib.read_resource("beta", "scripts/run.sh").text == "echo run\n"

    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(work))
    write_skill(work / "skills", "delta", "Delta skill.")
    git(work, "add", "-A")
    git(work, "commit", "-qm", "delta")
    git(work, "push", "-q", "origin", "main")
    assert "delta" in lib.refresh()  # refresh fetches

    remote.rename(tmp_path / "gone.git")  # the remote disappears: the clone keeps working
    catalog = lib.refresh()
    assert "delta" in catalog
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_STALE and "using the cached clone" in diag.message


def test_missing_pygit2_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygit2", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "skillcore-agents\[git\]"'):
        open_reader(SkillSource("git:///tmp/repo@v1/skills"))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git:///srv/repo", GitLocation("/srv/repo", False)),
        ("git:///srv/repo@v1.4", GitLocation("/srv/repo", False, "v1.4")),
        (
            "git:///srv/repo@release/2.0/skills",
            GitLocation("/srv/repo", False, "release/2.0/skills"),
        ),
        (
            "git+https://example.com/org/skills.git@v1/skills",
            GitLocation("https://example.com/org/skills.git", True, "v1/skills"),
        ),
        (
            "git+ssh://git@example.com/org/skills.git",  # the user@ is not a ref
            GitLocation("ssh://git@example.com/org/skills.git", True),
        ),
    ],
)
def test_url_forms(url: str, expected: GitLocation) -> None:
    assert parse_git_url(url) == expected
