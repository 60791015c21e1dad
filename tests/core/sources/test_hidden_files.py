"""Hidden and VCS files: what a resource listing leaves out (dot-names, ``.git``,
``node_modules``, ...) cannot be read by name either, through any read path or reader."""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

import pytest

from skillcore import OutcomeCode, ReadError, SkillLibrary, SkillToolkit

SECRET = "TOKEN-9f3c-secret"

#: Files a checkout may hold next to a skill's own files, by path below the skill directory.
HIDDEN = (
    ".env",
    ".git/config",
    "references/.secret",
    "node_modules/pkg/index.js",
    "scripts/__pycache__/x.pyc",
    ".venv/bin/activate",
)


def write_skill(root: Path, name: str = "alpha") -> Path:
    d = root / name
    (d / "references").mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Use {name}.\n---\nSteps.\n")
    (d / "references" / "guide.md").write_text("The guide.\n")
    for rel in HIDDEN:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(f"url = https://user:{SECRET}@example.com/repo.git\n")
    return d


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root)
    return root


def test_the_rule_is_one_predicate() -> None:
    from skillcore.paths import PathProblem, hidden_name, path_problem

    for name in (".env", ".git", "node_modules", "NODE_MODULES", "__pycache__", ".hg", "venv"):
        assert hidden_name(name)
    for name in ("guide.md", "env", "git", "modules", "a.env"):
        assert not hidden_name(name)
    for path in (*HIDDEN, "./.env", "references//.secret", "Node_Modules/x"):
        assert path_problem(path) is PathProblem.HIDDEN
    assert path_problem("references/guide.md") is None


def test_hidden_files_are_neither_listed_nor_readable(root: Path) -> None:
    lib = SkillLibrary([root])
    listed = {r.path for r in lib.read_document("alpha").resources}
    assert listed == {"references/guide.md"}
    for rel in HIDDEN:
        with pytest.raises(ReadError) as info:
            lib.read_resource("alpha", rel)
        assert info.value.code is OutcomeCode.PATH_REJECTED
        assert SECRET not in info.value.message
    assert lib.read_resource("alpha", "references/guide.md").text == "The guide.\n"


@pytest.mark.parametrize("use_async", [False, True], ids=["call", "acall"])
def test_the_toolkit_refuses_hidden_files(root: Path, use_async: bool) -> None:
    import anyio

    lib = SkillLibrary([root])
    toolkit = SkillToolkit(lib)
    session = toolkit.call(lib.session(), "load_skill", {"skill_name": "alpha"}).session
    for rel in HIDDEN:
        args = {"skill_name": "alpha", "path": rel}
        if use_async:
            res = anyio.run(toolkit.acall, session, "load_skill_resource", args)
        else:
            res = toolkit.call(session, "load_skill_resource", args)
        assert res.code is OutcomeCode.PATH_REJECTED, (rel, res.text)
        assert SECRET not in (res.text or "")
        assert "hidden" in (res.text or "")


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_a_listed_symlink_to_a_hidden_file_is_neither_listed_nor_read(root: Path) -> None:
    d = root / "alpha"
    os.symlink("../.git/config", d / "references" / "notes.md")
    os.symlink("../.env", d / "references" / "env.md")
    lib = SkillLibrary([root])
    listed = {r.path for r in lib.read_document("alpha").resources}
    assert listed == {"references/guide.md"}
    for rel in ("references/notes.md", "references/env.md"):
        with pytest.raises(ReadError) as info:
            lib.read_resource("alpha", rel)
        assert info.value.code is OutcomeCode.PATH_REJECTED
        assert SECRET not in info.value.message


def test_every_reader_applies_the_rule(root: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        for path in sorted((root / "alpha").rglob("*")):
            if path.is_file():
                zf.write(path, f"alpha/{path.relative_to(root / 'alpha').as_posix()}")
    import fsspec

    mem = fsspec.filesystem("memory")
    for path in sorted((root / "alpha").rglob("*")):
        if path.is_file():
            mem.pipe(
                f"/hidden-test/alpha/{path.relative_to(root / 'alpha').as_posix()}",
                path.read_bytes(),
            )
    for source in (str(bundle), "memory://hidden-test"):
        lib = SkillLibrary([source])
        listed = {r.path for r in lib.read_document("alpha").resources}
        assert listed == {"references/guide.md"}, source
        for rel in HIDDEN:
            with pytest.raises(ReadError) as info:
                lib.read_resource("alpha", rel)
            assert info.value.code is OutcomeCode.PATH_REJECTED, (source, rel)
