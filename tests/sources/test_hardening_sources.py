"""Hostile Git repositories and archives: corrupt objects, huge blobs, entry-count bombs,
misleading containers and undecodable names cost one skill (or one refused archive) with a
precise diagnostic, never the rest of the catalog; every source rejects escaping paths."""

from __future__ import annotations

import io
import json
import os
import struct
import tarfile
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest
from loopback_s3 import MotoS3
from source_helpers import git, s3_options, write_skill

from skillcore import Code, OutcomeCode, ReadError, SkillLibrary, SkillSource, SkillToolkit
from skillcore.sources.archive import ArchiveReader

SKILL = "---\nname: {name}\ndescription: Use {name} for tests.\n---\n\nSteps of {name}.\n"


def _commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", "c")


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in ("alpha", "beta", "gamma"):
        write_skill(root / "skills", name, files={"references/guide.md": f"guide of {name}\n"})
    _commit_all(root)
    return root


def _corrupt(root: Path, spec: str) -> None:
    """Overwrite the loose object behind ``HEAD:<spec>`` with garbage."""
    oid = git(root, "rev-parse", f"HEAD:{spec}")
    path = root / ".git" / "objects" / oid[:2] / oid[2:]
    path.chmod(0o644)
    path.write_bytes(b"x\x9c not a zlib stream at all")


def _git_source(root: Path) -> SkillSource:
    return SkillSource(f"git://{root}@main/skills")


# -- Git ---------------------------------------------------------------------------------------


def test_git_corrupt_skill_file_costs_one_skill(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    _corrupt(root, "skills/beta/SKILL.md")
    cat = SkillLibrary([_git_source(root)]).discover()
    assert set(cat.names) == {"alpha", "gamma"}
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path) == (Code.READ_FAILED, "beta/SKILL.md")
    assert "cannot read SKILL.md from the repository" in diag.message


def test_git_corrupt_blob_is_a_read_failure(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    lib = SkillLibrary([_git_source(root)])
    toolkit = SkillToolkit(lib)
    session = toolkit.call(lib.session(), "load_skill", {"skill_name": "alpha"}).session
    _corrupt(root, "skills/alpha/references/guide.md")
    _corrupt(root, "skills/beta/SKILL.md")
    with pytest.raises(ReadError) as info:
        lib.read_resource("alpha", "references/guide.md")
    assert info.value.code is OutcomeCode.READ_FAILED
    res = toolkit.call(
        session, "load_skill_resource", {"skill_name": "alpha", "path": "references/guide.md"}
    )
    assert res.code is OutcomeCode.READ_FAILED and res.session is session
    res = toolkit.call(session, "load_skill", {"skill_name": "beta"})
    assert res.code is OutcomeCode.READ_FAILED and res.session is session
    ok = toolkit.call(session, "load_skill", {"skill_name": "gamma"})
    assert ok.code is OutcomeCode.LOADED


def test_git_blob_over_the_file_cap_is_not_inflated(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    big = root / "skills" / "big"
    big.mkdir()
    # Compresses to almost nothing: the size must come from the object header.
    (big / "SKILL.md").write_text(SKILL.format(name="big") + "x" * (2 * 1024 * 1024))
    _commit_all(root)
    cat = SkillLibrary([_git_source(root)], max_file_bytes=256 * 1024).discover()
    assert "big" not in cat.names and {"alpha", "beta", "gamma"} <= set(cat.names)
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path) == (Code.TOO_LARGE, "big/SKILL.md")
    assert "over the 262144-byte limit" in diag.message


def test_git_non_utf8_paths(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    skills = os.fsencode(root / "skills")
    os.mkdir(os.path.join(skills, b"caf\xe9"))
    with open(os.path.join(skills, b"caf\xe9", b"SKILL.md"), "w") as fh:
        fh.write(SKILL.format(name="cafe"))
    with open(os.path.join(skills, b"alpha", b"r\xe9sum\xe9.md"), "w") as fh:
        fh.write("x")
    _commit_all(root)
    lib = SkillLibrary([_git_source(root)])
    cat = lib.discover()
    assert set(cat.names) == {"alpha", "beta", "gamma"}
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path) == (Code.UNDECODABLE_NAME, "caf\\xe9")
    res = SkillToolkit(lib).call(lib.session(), "load_skill", {"skill_name": "alpha"})
    assert res.code is OutcomeCode.LOADED
    res.text.encode("utf-8")
    assert [r.path for r in res.document.resources] == ["references/guide.md"]


# -- archives ----------------------------------------------------------------------------------


def _zip_bytes(names: tuple[str, ...]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in names:
            zf.writestr(f"{name}/SKILL.md", SKILL.format(name=name))
    return buf.getvalue()


def test_zip_entry_count_is_read_from_the_end_record(tmp_path: Path) -> None:
    data = bytearray(_zip_bytes(("alpha", "beta")))
    eocd = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", data, eocd + 8, 0xFFFF, 0xFFFF)  # declares 65,535 entries
    bundle = tmp_path / "declared.zip"
    bundle.write_bytes(bytes(data))
    source = SkillSource(str(bundle), storage_options={"max_members": 1000})
    (diag,) = SkillLibrary([source]).discover().diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert "65535 entries, over the limit of 1000 (max_members)" in diag.message


def test_zip64_entry_count_is_read_before_parsing(tmp_path: Path) -> None:
    # A zip64 end record declaring 600,000 entries: refused before zipfile lists anything.
    names = ("alpha", "beta")
    data = bytearray(_zip_bytes(names))
    eocd = data.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack_from("<LL", data, eocd + 12)
    rec = eocd
    eocd64 = struct.pack(
        "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, 600_000, 600_000, cd_size, cd_offset
    )
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, rec, 1)
    tail = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, cd_size, cd_offset, 0)
    bundle = tmp_path / "zip64.zip"
    bundle.write_bytes(bytes(data[:eocd]) + eocd64 + locator + tail)
    (diag,) = SkillLibrary([SkillSource(str(bundle))]).discover().diagnostics
    assert "600000 entries, over the limit of 20000 (max_members)" in diag.message


def test_central_directory_longer_than_declared_is_refused(tmp_path: Path) -> None:
    data = bytearray(_zip_bytes(tuple(f"s{i}" for i in range(30))))
    eocd = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", data, eocd + 8, 2, 2)  # lies: 2 entries
    bundle = tmp_path / "liar.zip"
    bundle.write_bytes(bytes(data))
    source = SkillSource(str(bundle), storage_options={"max_members": 10})
    (diag,) = SkillLibrary([source]).discover().diagnostics
    assert "over the limit of 10 (max_members)" in diag.message


def test_refused_archive_is_not_parsed_again_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "many.zip"
    bundle.write_bytes(_zip_bytes(tuple(f"s{i}" for i in range(20))))
    builds: list[int] = []
    real = ArchiveReader._build

    def counting(self: ArchiveReader, data: bytes, stamp: str) -> Any:
        builds.append(1)
        return real(self, data, stamp)

    monkeypatch.setattr(ArchiveReader, "_build", counting)
    lib = SkillLibrary([SkillSource(str(bundle), storage_options={"max_members": 5})])
    first = lib.discover()
    assert [d.code for d in first.diagnostics] == [Code.SOURCE_UNREACHABLE]
    assert lib.refresh() is first and lib.refresh() is first
    assert len(builds) == 1
    bundle.write_bytes(_zip_bytes(("alpha",)))  # a new archive is read again
    assert lib.refresh().names == ("alpha",)
    assert len(builds) == 2


def test_tar_ending_with_a_zip_member_is_read_as_tar(tmp_path: Path) -> None:
    bundle = tmp_path / "mixed.tar"
    with tarfile.open(bundle, "w") as tf:
        for name, data in (
            ("outer/SKILL.md", SKILL.format(name="outer").encode()),
            ("outer/inner.zip", _zip_bytes(("smuggled",))),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    cat = SkillLibrary([str(bundle)]).discover()
    assert cat.names == ("outer",)
    assert SkillLibrary([str(bundle)]).read_resource("outer", "inner.zip").binary


def test_tar_member_with_non_utf8_name(tmp_path: Path) -> None:
    bundle = tmp_path / "names.tar"
    with tarfile.open(bundle, "w", format=tarfile.GNU_FORMAT) as tf:
        for raw in (b"alpha/SKILL.md", b"caf\xe9/SKILL.md", b"alpha/r\xe9.md"):
            name = os.fsdecode(raw)
            data = SKILL.format(name=name.split("/")[0]).encode("utf-8", "surrogateescape")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    lib = SkillLibrary([str(bundle)])
    cat = lib.discover()
    assert cat.names == ("alpha",)
    assert {(d.code, d.path) for d in cat.diagnostics} == {
        (Code.UNDECODABLE_NAME, "caf\\xe9/SKILL.md"),
        (Code.UNDECODABLE_NAME, "alpha/r\\xe9.md"),
    }
    json.dumps([d.to_dict() for d in cat.diagnostics], ensure_ascii=False).encode("utf-8")
    res = SkillToolkit(lib).call(lib.session(), "load_skill", {"skill_name": "alpha"})
    assert res.code is OutcomeCode.LOADED
    res.text.encode("utf-8")


# -- 7. every backend rejects escaping paths ---------------------------------------------------

ESCAPES = ["../beta/SKILL.md", "references/../../beta/SKILL.md", "/etc/passwd", "a\x00b"]


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    for name in ("alpha", "beta"):
        write_skill(tree, name, files={"references/guide.md": f"guide of {name}\n"})
    return tree


def _memory_source(tmp_path: Path) -> SkillSource:
    import fsspec

    fs = fsspec.filesystem("memory")
    base = f"/hardening-{uuid.uuid4().hex}/skills"
    for path in _tree(tmp_path).rglob("*"):
        if path.is_file():
            fs.pipe(f"{base}/{path.relative_to(tmp_path / 'tree').as_posix()}", path.read_bytes())
    return SkillSource(f"memory://{base}")


def _zip_source(tmp_path: Path) -> SkillSource:
    tree = _tree(tmp_path)
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        for path in tree.rglob("*"):
            if path.is_file():
                zf.write(path, f"skills/{path.relative_to(tree).as_posix()}")
    return SkillSource(f"zip://skills::{bundle}")


def _fsspec_zip_source(tmp_path: Path) -> SkillSource:
    from fsspec.implementations.zip import ZipFileSystem

    bundle = Path(_zip_source(tmp_path).url.split("::", 1)[1])
    return SkillSource("skills", fs=ZipFileSystem(str(bundle)))


@pytest.fixture(params=["memory", "zip", "fsspec-zip", "s3"])
def escaping_library(request: pytest.FixtureRequest, tmp_path: Path) -> SkillLibrary:
    if request.param == "s3":
        moto: MotoS3 = request.getfixturevalue("moto_s3")
        bucket = moto.new_bucket()
        moto.upload_tree(bucket, "skills", _tree(tmp_path))
        source = SkillSource(f"s3://{bucket}/skills", storage_options=s3_options(moto.endpoint))
    else:
        source = {"memory": _memory_source, "zip": _zip_source, "fsspec-zip": _fsspec_zip_source}[
            request.param
        ](tmp_path)
    lib = SkillLibrary([source])
    assert set(lib.discover().names) == {"alpha", "beta"}, lib.catalog.diagnostics
    return lib


@pytest.mark.parametrize("path", ESCAPES)
def test_remote_sources_reject_escaping_paths(escaping_library: SkillLibrary, path: str) -> None:
    with pytest.raises(ReadError) as info:
        escaping_library.read_resource("alpha", path)
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert "Steps of beta" not in info.value.message
    assert escaping_library.read_resource("alpha", "references/guide.md").text == (
        "guide of alpha\n"
    )
