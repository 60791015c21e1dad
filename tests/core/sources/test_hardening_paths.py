"""Local reads stay confined and bounded when the tree changes under the library.

Every read walks the path one component at a time from the source root with ``O_NOFOLLOW``,
so a skill directory, SKILL.md or resource swapped for a symlink (or a FIFO, or a hard link)
after discovery is refused at read time, and the rest of the catalog and sessions go on.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import (
    Code,
    OutcomeCode,
    ReadError,
    Severity,
    SkillLibrary,
    SkillSource,
    SkillToolkit,
)
from skillcore.library import SKILL_GRACE_SECONDS
from skillcore.sources.local_listing import MAX_LISTED_DIRS

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "mkfifo"), reason="POSIX file semantics"
)

SECRET = "TOP-SECRET-4b1d"
GOOD = ("alpha", "beta")


def skill_text(name: str, body: str = "Steps.") -> str:
    return f"---\nname: {name}\ndescription: Use {name} for tests.\n---\n\n{body}\n"


def write_skill(root: Path, name: str, files: dict[str, str] | None = None) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(skill_text(name))
    for rel, text in (files or {}).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    return d


@pytest.fixture
def root(tmp_path: Path) -> Path:
    src = tmp_path / "skills"
    for name in (*GOOD, "x"):
        write_skill(src, name, {"references/guide.md": f"guide of {name}"})
    return src


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret").write_text(SECRET)
    (out / "SKILL.md").write_text(skill_text("x", SECRET))
    return out


def prompt(fn: Callable[[], Any], timeout: float = 20.0) -> Any:
    """Run ``fn`` in a thread; a call that blocks (e.g. on a FIFO) fails instead of hanging."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed back to the test
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "the call blocked"
    if "error" in box:
        raise box["error"]
    return box["value"]


def assert_no_secret(value: Any) -> None:
    assert SECRET not in repr(value)


# -- 1. swaps after discovery ------------------------------------------------------------------


def test_skill_directory_swapped_for_symlink_after_discovery(root: Path, outside: Path) -> None:
    lib = SkillLibrary([root])
    toolkit = SkillToolkit(lib)
    session = toolkit.call(lib.session(), "load_skill", {"skill_name": "alpha"}).session
    shutil.rmtree(root / "x")
    os.symlink(outside, root / "x")

    with pytest.raises(ReadError) as info:
        lib.read_resource("x", "secret")
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert_no_secret(info.value)
    with pytest.raises(ReadError) as info:
        lib.read_document("x")
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert_no_secret(info.value)

    res = toolkit.call(session, "load_skill_resource", {"skill_name": "x", "path": "secret"})
    # Only files of a loaded skill are readable: refused before any read.
    assert res.code is OutcomeCode.NOT_LOADED and res.session is session
    assert_no_secret(res.text)
    res = toolkit.call(session, "load_skill", {"skill_name": "x"})
    assert res.code is OutcomeCode.PATH_REJECTED and res.session is session
    assert_no_secret(res.text)
    # The rest is intact: the loaded skill still reads, the catalog still lists the others.
    ok = toolkit.call(
        session, "load_skill_resource", {"skill_name": "alpha", "path": "references/guide.md"}
    )
    assert ok.text and "guide of alpha" in ok.text
    cat = lib.refresh()
    assert set(cat.names) == set(GOOD)
    assert [(d.code, d.path) for d in cat.diagnostics] == [(Code.SYMLINK_ESCAPE, "x")]


@pytest.mark.parametrize("target", ["SKILL.md", "references/guide.md"])
def test_file_swapped_for_symlink_after_discovery(root: Path, outside: Path, target: str) -> None:
    lib = SkillLibrary([root])
    lib.discover()
    (root / "x" / target).unlink()
    os.symlink(outside / ("SKILL.md" if target == "SKILL.md" else "secret"), root / "x" / target)
    with pytest.raises(ReadError) as info:
        if target == "SKILL.md":
            lib.read_document("x")
        else:
            lib.read_resource("x", target)
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert "symlink escape" in info.value.message
    assert_no_secret(info.value)


def test_swap_between_check_and_open_is_not_followed(
    root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The attacker wins the race: the swap lands right before the first open of the read.
    (outside / "references").mkdir()
    (outside / "references" / "guide.md").write_text(SECRET)
    lib = SkillLibrary([root])
    lib.discover()
    real_open = os.open
    swapped: list[bool] = []

    def racing_open(*args: Any, **kwargs: Any) -> int:
        if not swapped:
            swapped.append(True)
            shutil.rmtree(root / "x")
            os.symlink(outside, root / "x")
        return real_open(*args, **kwargs)

    monkeypatch.setattr(os, "open", racing_open)
    with pytest.raises(ReadError) as info:
        lib.read_resource("x", "references/guide.md")
    assert swapped and info.value.code is OutcomeCode.PATH_REJECTED
    assert_no_secret(info.value)


def test_intermediate_directory_swapped_for_symlink(root: Path, outside: Path) -> None:
    lib = SkillLibrary([root])
    lib.discover()
    shutil.rmtree(root / "x" / "references")
    os.symlink(outside, root / "x" / "references")
    with pytest.raises(ReadError) as info:
        lib.read_resource("x", "references/secret")
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert [r.path for r in lib.read_document("x").resources] == []


def test_relative_symlink_climbing_out_is_refused(root: Path, outside: Path) -> None:
    os.symlink("../../outside/secret", root / "x" / "up.md")
    os.symlink("../..", root / "x" / "top")
    lib = SkillLibrary([root])
    for path in ("up.md", "top/outside/secret", "top/skills/alpha/SKILL.md"):
        with pytest.raises(ReadError) as info:
            lib.read_resource("x", path)
        assert info.value.code is OutcomeCode.PATH_REJECTED, path
    assert "up.md" not in [r.path for r in lib.read_document("x").resources]


def test_symlinks_inside_the_skill_still_read(root: Path) -> None:
    os.symlink("references/guide.md", root / "x" / "alias.md")
    os.symlink(str(root / "x" / "references"), root / "x" / "refs")  # absolute, inside
    lib = SkillLibrary([root])
    assert lib.read_resource("x", "alias.md").text == "guide of x"
    assert lib.read_resource("x", "refs/guide.md").text == "guide of x"
    listed = [r.path for r in lib.read_document("x").resources]
    assert "alias.md" in listed and "refs/guide.md" not in listed  # linked dirs not walked


def test_link_to_a_sibling_skill_is_outside_the_skill(root: Path) -> None:
    os.symlink("../alpha/references/guide.md", root / "x" / "other.md")
    with pytest.raises(ReadError) as info:
        SkillLibrary([root]).read_resource("x", "other.md")
    assert info.value.code is OutcomeCode.PATH_REJECTED


def test_hardlinked_file_is_refused_by_default(root: Path, outside: Path) -> None:
    os.link(outside / "secret", root / "x" / "id_rsa")
    lib = SkillLibrary([root])
    assert "id_rsa" not in [r.path for r in lib.read_document("x").resources]
    with pytest.raises(ReadError) as info:
        lib.read_resource("x", "id_rsa")
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert "2 hard links" in info.value.message
    assert_no_secret(info.value)
    opted_in = SkillLibrary([SkillSource(str(root), allow_hardlinks=True)])
    assert opted_in.read_resource("x", "id_rsa").text == SECRET


def test_hardlinked_skill_file_is_skipped(root: Path, outside: Path) -> None:
    (root / "x" / "SKILL.md").unlink()
    os.link(outside / "SKILL.md", root / "x" / "SKILL.md")
    cat = SkillLibrary([root]).discover()
    assert set(cat.names) == set(GOOD)
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path, diag.severity) == (Code.UNSAFE_PATH, "x/SKILL.md", Severity.ERROR)
    assert "hard links" in diag.message


# -- 2. FIFOs ----------------------------------------------------------------------------------


def test_fifo_skill_file_is_diagnosed_not_blocking(root: Path) -> None:
    (root / "x" / "SKILL.md").unlink()
    os.mkfifo(root / "x" / "SKILL.md")
    cat = prompt(SkillLibrary([root]).discover)
    assert set(cat.names) == set(GOOD)
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path) == (Code.UNSAFE_PATH, "x/SKILL.md")
    assert "FIFO" in diag.message


def test_fifo_swapped_in_after_discovery(root: Path) -> None:
    lib = SkillLibrary([root])
    lib.discover()
    (root / "x" / "SKILL.md").unlink()
    os.mkfifo(root / "x" / "SKILL.md")
    (root / "alpha" / "references" / "guide.md").unlink()
    os.mkfifo(root / "alpha" / "references" / "guide.md")
    with pytest.raises(ReadError) as info:
        prompt(lambda: lib.read_document("x"))
    assert info.value.code is OutcomeCode.READ_FAILED and "FIFO" in info.value.message
    with pytest.raises(ReadError) as info:
        prompt(lambda: lib.read_resource("alpha", "references/guide.md"))
    assert "FIFO" in info.value.message
    cat = prompt(lib.refresh)
    assert set(cat.names) == set(GOOD)
    assert [(d.code, d.path) for d in cat.diagnostics] == [(Code.UNSAFE_PATH, "x/SKILL.md")]


# -- 3. loops ----------------------------------------------------------------------------------


def test_symlink_loops_do_not_hang_load(root: Path) -> None:
    d = root / "x" / "d"
    d.mkdir()
    os.symlink(".", d / "a")
    os.symlink(".", d / "b")
    os.symlink("loop2", root / "x" / "loop1")
    os.symlink("loop1", root / "x" / "loop2")
    lib = SkillLibrary([root])
    toolkit = SkillToolkit(lib)
    res = prompt(lambda: toolkit.call(lib.session(), "load_skill", {"skill_name": "x"}))
    assert res.code is OutcomeCode.LOADED, res.text
    paths = [r.path for r in lib.read_document("x").resources]
    assert paths == ["references/guide.md"]
    with pytest.raises(ReadError) as info:
        lib.read_resource("x", "loop1")
    assert info.value.code is OutcomeCode.PATH_REJECTED


def test_directory_count_is_capped(root: Path) -> None:
    base = root / "x" / "many"
    for i in range(MAX_LISTED_DIRS + 5):
        (base / f"d{i:05d}").mkdir(parents=True)
    (base / "d00000" / "f.md").write_text("f")
    resources, truncated = SkillLibrary([root]).reader(str(root)).list_files("x", 200)
    assert truncated
    assert "many/d00000/f.md" in [r.path for r in resources]


# -- 4. undecodable names ------------------------------------------------------------------


def test_non_utf8_directory_name_is_one_diagnostic(root: Path) -> None:
    bad = os.path.join(os.fsencode(root), b"caf\xe9")
    os.mkdir(bad)
    with open(os.path.join(bad, b"SKILL.md"), "w") as fh:
        fh.write(skill_text("cafe"))
    cat = SkillLibrary([root]).discover()
    assert set(cat.names) == {*GOOD, "x"}
    (diag,) = cat.diagnostics
    assert (diag.code, diag.severity, diag.path) == (
        Code.UNDECODABLE_NAME,
        Severity.ERROR,
        "caf\\xe9",
    )
    json.dumps([d.to_dict() for d in cat.diagnostics], ensure_ascii=False).encode("utf-8")


def test_non_utf8_resource_name_is_not_listed(root: Path) -> None:
    with open(os.path.join(os.fsencode(root / "x" / "references"), b"r\xe9sum\xe9.md"), "w") as f:
        f.write("x")
    lib = SkillLibrary([root])
    toolkit = SkillToolkit(lib)
    res = toolkit.call(lib.session(), "load_skill", {"skill_name": "x"})
    res.text.encode("utf-8")  # the reply is encodable
    assert [r.path for r in lib.read_document("x").resources] == ["references/guide.md"]
    with pytest.raises(ReadError) as info:
        lib.read_resource("x", os.fsdecode(b"references/r\xe9sum\xe9.md"))
    assert info.value.code is OutcomeCode.PATH_REJECTED
    info.value.message.encode("utf-8")


# -- 6. a save caught mid-way ------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("broken", [b"", b"---\nname: x\ndescr", None])
def test_skill_caught_mid_save_is_kept_for_the_grace_period(
    root: Path, broken: bytes | None
) -> None:
    lib = SkillLibrary([root])
    clock = Clock()
    lib._clock = clock
    toolkit = SkillToolkit(lib)
    session = toolkit.call(lib.session(), "load_skill", {"skill_name": "x"}).session
    skill_md = root / "x" / "SKILL.md"
    if broken is None:
        skill_md.chmod(0)  # temporarily unreadable
        if os.access(skill_md, os.R_OK):
            pytest.skip("running as root: permissions are not enforced")
    else:
        skill_md.write_bytes(broken)
    cat = lib.refresh()
    assert "x" in cat.names
    (diag,) = cat.diagnostics
    assert (diag.code, diag.severity, diag.path) == (
        Code.SKILL_STALE,
        Severity.WARNING,
        "x/SKILL.md",
    )
    assert lib.restore(session.to_state()).loaded_names == session.loaded_names

    clock.now += SKILL_GRACE_SECONDS / 2
    assert "x" in lib.refresh().names  # still within the grace period
    clock.now += SKILL_GRACE_SECONDS
    cat = lib.refresh()
    assert "x" not in cat.names and set(cat.names) == set(GOOD)
    assert [d.code for d in cat.diagnostics] != [Code.SKILL_STALE]


def test_repaired_skill_clears_the_grace_state(root: Path) -> None:
    lib = SkillLibrary([root])
    lib._clock = clock = Clock()
    lib.discover()
    skill_md = root / "x" / "SKILL.md"
    skill_md.write_bytes(b"")
    assert "x" in lib.refresh().names
    skill_md.write_text(skill_text("x", "New body."))
    cat = lib.refresh()
    assert "x" in cat.names and cat.diagnostics == ()
    clock.now += 10 * SKILL_GRACE_SECONDS
    skill_md.write_bytes(b"")  # a new failure starts a new grace period
    assert "x" in lib.refresh().names


def test_broken_yaml_is_not_kept(root: Path) -> None:
    lib = SkillLibrary([root])
    lib.discover()
    (root / "x" / "SKILL.md").write_text("---\nname: [x\ndescription: y\n---\n")
    assert "x" not in lib.refresh().names


def test_fsspec_local_filesystem_object_is_confined(root: Path, outside: Path) -> None:
    from fsspec.implementations.local import LocalFileSystem

    os.symlink(outside / "secret", root / "x" / "leak.md")
    lib = SkillLibrary([SkillSource(str(root), fs=LocalFileSystem())])
    assert set(lib.discover().names) == {*GOOD, "x"}
    with pytest.raises(ReadError) as info:
        lib.read_resource("x", "leak.md")
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert_no_secret(info.value)


def test_skill_whose_re_read_fails_is_kept_then_dropped(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = SkillLibrary([root])
    lib._clock = clock = Clock()
    lib.discover()
    (root / "x" / "SKILL.md").write_text(skill_text("x", "Being saved."))
    real_open = os.open

    def failing_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if path == "SKILL.md" and kwargs.get("dir_fd") is not None:
            raise OSError(5, "Input/output error")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing_open)
    cat = lib.refresh()
    assert "x" in cat.names
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path) == (Code.SKILL_STALE, "x/SKILL.md")
    assert "Input/output error" in diag.message and "READ_FAILED" in diag.message
    clock.now += SKILL_GRACE_SECONDS + 1
    cat = lib.refresh()
    assert "x" not in cat.names
    assert [(d.code, d.path) for d in cat.diagnostics] == [(Code.READ_FAILED, "x/SKILL.md")]


def test_dangling_and_looping_links_at_the_root_are_not_skills(root: Path) -> None:
    os.symlink("nowhere", root / "dangling")
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    cat = prompt(SkillLibrary([root]).discover)
    assert set(cat.names) == {*GOOD, "x"} and cat.diagnostics == ()


# -- property: whatever symlinks a skill holds, reads never leave it ---------------------------

LINKS = ("s/l1", "s/l2", "s/sub/l3")
TARGETS = (
    ".", "..", "../..", "f.txt", "sub", "sub/g.txt", "../other/o.txt", "../../outside/secret.txt",
    "l1", "l2", "../l1", "sub/l3", "../s/f.txt", "ABS_OUT", "ABS_IN", "../../skills/s/f.txt",
)  # fmt: skip
QUERIES = (
    "f.txt", "l1", "l2", "sub/l3", "l1/f.txt", "l1/g.txt", "l2/sub/g.txt", "sub/l3/f.txt",
    "l1/secret.txt", "l1/o.txt", "l1/l2", "l2/l1/f.txt", "sub/l3/l1",
)  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(links=st.dictionaries(st.sampled_from(LINKS), st.sampled_from(TARGETS), min_size=1))
def test_reads_never_leave_the_skill_whatever_the_links(links: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "outside").mkdir()
        (base / "outside" / "secret.txt").write_text(SECRET)
        root = base / "skills"
        write_skill(root, "other", {"o.txt": SECRET})
        write_skill(root, "s", {"f.txt": "IN", "sub/g.txt": "SUB"})
        for link, target in links.items():
            target = {"ABS_OUT": str(base / "outside"), "ABS_IN": str(root / "s" / "sub")}.get(
                target, target
            )
            os.symlink(target, root / link)
        lib = SkillLibrary([root])
        skill_dir = os.path.realpath(root / "s")
        for query in QUERIES:
            full = os.path.join(root, "s", query)
            inside = os.path.realpath(full).startswith(skill_dir + os.sep)
            try:
                content = prompt(lambda q=query: lib.read_resource("s", q))
            except ReadError as exc:
                assert SECRET not in exc.message
                continue
            assert inside and os.path.isfile(full), query
            assert content.text == Path(full).read_text()
        listed = [r.path for r in prompt(lambda: lib.read_document("s")).resources]
        for path in listed:  # everything offered can be read
            assert lib.read_resource("s", path).text in ("IN", "SUB")
