"""zip and tar bundles, including hostile ones (zip-slip names, bombs, links, corruption)."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from source_helpers import write_skill

from skillcore import Code, OutcomeCode, ReadError, Severity, SkillLibrary, SkillSource
from skillcore.sources.archive import member_name

SKILL = "---\nname: {name}\ndescription: The {name} skill.\n---\n\nBody of {name}.\n"


def _zip(path: Path, members: dict[str, str | bytes], *, symlinks: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.external_attr = (0o120777 << 16) & 0xFFFF0000
            zf.writestr(info, data)
    return path


def _library_members(*names: str, prefix: str = "") -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {}
    for name in names:
        out[f"{prefix}{name}/SKILL.md"] = SKILL.format(name=name)
        out[f"{prefix}{name}/references/guide.md"] = f"guide for {name}\n"
    return out


def _only(catalog: object, code: Code) -> list:
    return [d for d in catalog.diagnostics if d.code is code]  # type: ignore[attr-defined]


def test_zip_library_documents_and_resources(tmp_path: Path) -> None:
    members = _library_members("alpha", "beta")
    members["beta/assets/logo.png"] = b"\x89PNG\x00\x00data"
    members["beta/assets/big.txt"] = "y" * 3000
    bundle = _zip(tmp_path / "skills.zip", members)
    lib = SkillLibrary([str(bundle)])
    catalog = lib.discover()
    assert catalog.names == ("alpha", "beta") and catalog.diagnostics == ()
    assert catalog.get("beta").location.url == f"{bundle}!/beta"
    doc = lib.read_document("beta")
    assert doc.body.strip() == "Body of beta."
    assert [r.path for r in doc.resources] == [
        "assets/big.txt",
        "assets/logo.png",
        "references/guide.md",
    ]
    assert lib.read_resource("beta", "references/guide.md").text == "guide for beta\n"
    assert lib.read_resource("beta", "assets/logo.png").binary
    for path, code in {
        "assets/missing.txt": OutcomeCode.RESOURCE_NOT_FOUND,
        "assets": OutcomeCode.RESOURCE_NOT_FOUND,
        "../alpha/SKILL.md": OutcomeCode.PATH_REJECTED,
    }.items():
        with pytest.raises(ReadError) as exc:
            lib.read_resource("beta", path)
        assert exc.value.code is code
    with pytest.raises(ReadError) as big:
        lib.read_resource("beta", "assets/big.txt", max_bytes=100)
    assert big.value.code is OutcomeCode.TOO_LARGE


def test_single_packaged_skill_and_inner_folder(tmp_path: Path) -> None:
    single = _zip(tmp_path / "pdf-tools.zip", {"SKILL.md": SKILL.format(name="pdf-tools")})
    catalog = SkillLibrary([str(single)]).discover()
    assert catalog.names == ("pdf-tools",) and catalog.diagnostics == ()  # name == stem

    nested = _zip(tmp_path / "repo.zip", _library_members("one", "two", prefix="pkg/skills/"))
    lib = SkillLibrary([f"zip://pkg/skills::{nested}"])
    assert lib.discover().names == ("one", "two")
    assert lib.read_resource("two", "references/guide.md").text == "guide for two\n"
    (diag,) = SkillLibrary([f"zip://pkg/other::{nested}"]).discover().diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE and "no folder 'pkg/other'" in diag.message


@pytest.mark.parametrize("mode", ["w:gz", "w:bz2", "w:xz", "w:"])
def test_tar_bundles_with_dot_prefix(tmp_path: Path, mode: str) -> None:
    tree = tmp_path / "tree"
    write_skill(tree, "alpha", files={"scripts/run.py": "print(1)\n"})
    write_skill(tree, "beta")
    bundle = tmp_path / f"skills.tar{mode[2:] and '.' + mode[2:]}"
    with tarfile.open(bundle, mode) as tf:
        tf.add(tree, arcname=".")  # members are named ./alpha/SKILL.md, like `tar -C dir .`
    with tarfile.open(bundle) as tf:
        assert any(n.startswith("./alpha") for n in tf.getnames())
    lib = SkillLibrary([str(bundle)])
    assert lib.discover().names == ("alpha", "beta") and lib.catalog.diagnostics == ()
    assert [r.path for r in lib.read_document("alpha").resources] == ["scripts/run.py"]
    assert lib.read_resource("alpha", "scripts/run.py").text == "print(1)\n"


def test_tar_made_by_the_tar_cli(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    write_skill(tree, "gamma")
    bundle = tmp_path / "skills.tgz"
    subprocess.run(["tar", "czf", str(bundle), "-C", str(tree), "."], check=True)
    assert SkillLibrary([str(bundle)]).discover().names == ("gamma",)
    assert SkillLibrary([f"tar://gamma::{bundle}"]).discover().names == ("gamma",)


def test_zip_slip_entries_are_rejected_and_the_rest_is_usable(tmp_path: Path) -> None:
    members = _library_members("good")
    hostile = {
        "../evil/SKILL.md": "contains '..' (would escape the archive)",
        "/abs/SKILL.md": "is an absolute path",
        "good/../../escape/SKILL.md": "contains '..' (would escape the archive)",
        "win\\..\\SKILL.md": "contains a backslash",
        "C:/temp/SKILL.md": "is an absolute path",
    }
    for name in hostile:
        members[name] = SKILL.format(name="evil")
    members["good/references/link.md"] = "/etc/passwd"
    bundle = _zip(tmp_path / "hostile.zip", members, symlinks=("good/references/link.md",))
    lib = SkillLibrary([str(bundle)])
    catalog = lib.discover()
    assert catalog.names == ("good",)
    rejected = {d.path: d.message for d in _only(catalog, Code.UNSAFE_PATH)}
    assert set(rejected) == {*hostile, "good/references/link.md"}
    for name, reason in hostile.items():
        assert rejected[name] == f"archive entry rejected: the name {reason}"
    assert "symlink" in rejected["good/references/link.md"]
    assert all(d.severity is Severity.ERROR for d in _only(catalog, Code.UNSAFE_PATH))
    assert [r.path for r in lib.read_document("good").resources] == ["references/guide.md"]
    with pytest.raises(ReadError) as exc:
        lib.read_resource("good", "references/link.md")
    assert exc.value.code is OutcomeCode.PATH_REJECTED and "symlink" in exc.value.message


def test_tar_links_devices_and_escapes_are_rejected(tmp_path: Path) -> None:
    bundle = tmp_path / "hostile.tar.gz"
    with tarfile.open(bundle, "w:gz") as tf:

        def add(name: str, data: bytes = b"", **attrs: object) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            for key, value in attrs.items():
                setattr(info, key, value)
            tf.addfile(info, io.BytesIO(data) if data else None)

        add("./ok/SKILL.md", SKILL.format(name="ok").encode())
        add("./ok/references/etc", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        add("./ok/references/hard", type=tarfile.LNKTYPE, linkname="ok/SKILL.md")
        add("./ok/dev", type=tarfile.CHRTYPE)
        add("../../outside/SKILL.md", SKILL.format(name="outside").encode())
    lib = SkillLibrary([str(bundle)])
    catalog = lib.discover()
    assert catalog.names == ("ok",)
    assert {d.path for d in _only(catalog, Code.UNSAFE_PATH)} == {
        "ok/references/etc",
        "ok/references/hard",
        "ok/dev",
        "../../outside/SKILL.md",
    }
    assert lib.read_document("ok").resources == ()
    with pytest.raises(ReadError) as exc:
        lib.read_resource("ok", "references/etc")
    assert exc.value.code is OutcomeCode.PATH_REJECTED


def test_zip_bomb_is_refused(tmp_path: Path) -> None:
    members = _library_members("alpha")
    members["alpha/assets/zeros.bin"] = b"\x00" * (8 * 1024 * 1024)  # ~8 KiB compressed
    bomb = _zip(tmp_path / "bomb.zip", members)
    assert bomb.stat().st_size < 64 * 1024
    source = SkillSource(str(bomb), storage_options={"max_uncompressed_bytes": 1024 * 1024})
    catalog = SkillLibrary([source]).discover()
    assert len(catalog) == 0
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert f"archive {bomb} refused: it declares 8388690 bytes uncompressed" in diag.message
    assert "over the limit of 1048576 (max_uncompressed_bytes; a zip bomb?)" in diag.message


def test_zip_with_forged_sizes_is_refused_with_default_limits(tmp_path: Path) -> None:
    bundle = _zip(tmp_path / "forged.zip", _library_members("alpha"))
    data = bytearray(bundle.read_bytes())
    # Claim 4 GiB - 1 uncompressed for the first entry in the central directory.
    at = data.find(b"PK\x01\x02")
    data[at + 24 : at + 28] = struct.pack("<I", 0xFFFFFFFF - 1)
    bundle.write_bytes(bytes(data))
    (diag,) = SkillLibrary([str(bundle)]).discover().diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE and "a zip bomb?" in diag.message


def test_tar_bomb_is_refused_while_decompressing(tmp_path: Path) -> None:
    bundle = tmp_path / "bomb.tar.gz"
    with tarfile.open(bundle, "w:gz") as tf:
        info = tarfile.TarInfo("alpha/assets/zeros.bin")
        info.size = 4 * 1024 * 1024
        tf.addfile(info, io.BytesIO(b"\x00" * info.size))
    source = SkillSource(str(bundle), storage_options={"max_uncompressed_bytes": 512 * 1024})
    (diag,) = SkillLibrary([source]).discover().diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert "decompresses to more than 524288 bytes" in diag.message


def test_too_many_entries_is_refused(tmp_path: Path) -> None:
    bundle = _zip(tmp_path / "many.zip", _library_members(*(f"s{i}" for i in range(10))))
    source = SkillSource(str(bundle), storage_options={"max_members": 5})
    (diag,) = SkillLibrary([source]).discover().diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert "20 entries, over the limit of 5 (max_members)" in diag.message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("truncated", "is not a valid zip file (corrupt or truncated"),
        ("garbage", "is neither a zip nor a tar archive"),
        ("truncated-gz", "is corrupt or truncated"),
        ("empty", "is neither a zip nor a tar archive"),
    ],
)
def test_corrupt_archives(tmp_path: Path, content: str, expected: str) -> None:
    good = _zip(tmp_path / "good.zip", _library_members("alpha")).read_bytes()
    tgz = tmp_path / "good.tgz"
    with tarfile.open(tgz, "w:gz") as tf:
        tf.add(write_skill(tmp_path / "tree", "alpha"), arcname="alpha")
    data = {
        "truncated": good[: len(good) // 2] + good[-22:],  # central directory points nowhere
        "garbage": os.urandom(64).replace(b"PK", b"pk").replace(b"\x1f\x8b", b"gz"),
        "truncated-gz": tgz.read_bytes()[:40],
        "empty": b"",
    }[content]
    bundle = tmp_path / ("bad.tgz" if content == "truncated-gz" else "bad.zip")
    bundle.write_bytes(data)
    other = write_skill(tmp_path / "local", "local-skill").parent
    catalog = SkillLibrary([str(bundle), str(other)]).discover()
    assert catalog.names == ("local-skill",)  # the other source stays usable
    (diag,) = catalog.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE and diag.source == str(bundle)
    assert expected in diag.message


def test_one_corrupt_member_skips_only_its_skill(tmp_path: Path) -> None:
    bundle = tmp_path / "stored.zip"
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_STORED) as zf:
        for name, data in _library_members("alpha", "beta").items():
            zf.writestr(name, data)
    data = bytearray(bundle.read_bytes())
    beta = data.find(b"PK\x03\x04beta"[:4], data.find(b"beta/SKILL.md") - 40)
    data[beta : beta + 4] = b"XXXX"  # break beta/SKILL.md's local header
    bundle.write_bytes(bytes(data))
    catalog = SkillLibrary([str(bundle)]).discover()
    assert catalog.names == ("alpha",)
    (diag,) = catalog.diagnostics
    assert diag.code is Code.READ_FAILED and diag.path == "beta/SKILL.md"
    assert "Bad magic number" in diag.message


def test_refresh_of_a_rewritten_archive(tmp_path: Path) -> None:
    bundle = tmp_path / "skills.zip"
    _zip(bundle, _library_members("alpha", "beta"))
    lib = SkillLibrary([str(bundle)])
    first = lib.discover()
    assert lib.refresh() is first
    _zip(bundle, _library_members("alpha", "beta"))  # re-packed, same content
    os.utime(bundle, ns=(1, 1))
    assert lib.refresh() is first
    members = _library_members("alpha", "beta")
    members["beta/SKILL.md"] = SKILL.format(name="beta").replace("The beta", "A new beta")
    _zip(bundle, members)
    second = lib.refresh()
    assert second.get("beta").description == "A new beta skill."
    assert second.get("alpha") is first.get("alpha")
    bundle.unlink()  # the bundle disappears: keep the last good skills
    third = lib.refresh()
    assert third.names == ("alpha", "beta")
    (diag,) = third.diagnostics
    assert diag.code is Code.SOURCE_STALE and "does not exist" in diag.message


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("./a/b.md", ("a/b.md", None)),
        ("a//b/./c", ("a/b/c", None)),
        ("./", (None, None)),
        ("a/../b", (None, "contains '..' (would escape the archive)")),
        ("/etc/passwd", (None, "is an absolute path")),
        ("a\x00b", (None, "contains a NUL byte")),
    ],
)
def test_member_names(raw: str, expected: tuple[str | None, str | None]) -> None:
    assert member_name(raw) == expected
