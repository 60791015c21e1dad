"""The local scan's path for the common skill (a real directory right under the root with a
regular ``SKILL.md``) gives exactly what the general walk gives, whatever the directory holds.

Generated libraries mix regular files of every size around the head size (one read of a
file read whole), empty files, CRLF, lone CR, BOM and non-UTF-8 heads, symlinks to files
inside and outside the skill, directories and FIFOs named ``SKILL.md``, hard links, case
variants, symlinked skill directories and known stamps; the scan with the fast path and the
scan with it switched off (every entry through ``SkillDirectories.entry``) must be equal,
diagnostics included.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore.sources import LocalReader, SkillSource, local_entry
from skillcore.sources.cursor import read_fd
from skillcore.sources.local_entry import SkillDirectories
from skillcore.sources.scan import Scan

HEAD = 64  # a small head: sizes around it are cheap to generate

_BODIES = [
    b"---\nname: {n}\ndescription: d\n---\n# A\n```\n# not\n```\n## B\n",
    b"---\r\nname: {n}\r\ndescription: d\r\n---\r\n# A\r\n",
    b"---\nname: {n}\rdescription: d\r---\n# H\n",
    b"\xef\xbb\xbf---\nname: {n}\ndescription: d\n---\n# A\n",
    b"---\nname: {n}\ndescription: \xff\n---\n",
    b"---\nname: {n}\ndescription: d\n---\n" + b"x" * 200 + b"\n# late\n",
    b"",
    b"no frontmatter\n",
]
_KINDS = ["file", "file", "file", "empty_dir", "dir", "fifo", "link_in", "link_out", "hardlink"]
_KINDS += ["misnamed", "dir_link", "plain_file"]


def _make(root: Path, outside: Path, i: int, kind: str, body: bytes) -> None:
    name = f"s{i}"
    data = body.replace(b"{n}", name.encode())
    if kind == "plain_file":
        (root / name).write_bytes(data)
        return
    if kind == "dir_link":
        (outside / name).mkdir()
        (outside / name / "SKILL.md").write_bytes(data)
        (root / name).symlink_to(outside / name)
        return
    d = root / name
    d.mkdir()
    target = d / "SKILL.md"
    if kind == "file":
        target.write_bytes(data)
    elif kind == "dir":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "link_in":
        (d / "real.md").write_bytes(data)
        target.symlink_to("real.md")
    elif kind == "link_out":
        (outside / f"{name}.md").write_bytes(data)
        target.symlink_to(outside / f"{name}.md")
    elif kind == "hardlink":
        (d / "real.md").write_bytes(data)
        os.link(d / "real.md", target)
    elif kind == "misnamed":
        (d / "skill.md").write_bytes(data)


def _scan(
    root: Path, known: dict[str, str], fast: bool, hardlinks: bool, used: list[int] | None = None
) -> Scan:
    reader = LocalReader(SkillSource(str(root), allow_hardlinks=hardlinks), str(root))
    if fast:
        real = SkillDirectories.top_entry

        def counting(self: SkillDirectories, fd: int, name: str) -> object:
            entry = real(self, fd, name)
            if used is not None and entry is not None:
                used.append(1)
            return entry

        with mock.patch.object(SkillDirectories, "top_entry", counting):
            return reader.scan(HEAD, known)
    with mock.patch.object(SkillDirectories, "top_entry", lambda self, fd, name: None):
        return reader.scan(HEAD, known)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_KINDS), st.sampled_from(_BODIES), st.integers(0, 3)),
        min_size=1,
        max_size=8,
    ),
    st.booleans(),
    st.booleans(),
)
def test_the_fast_path_scans_what_the_general_walk_scans(
    skills: list[tuple[str, bytes, int]], hardlinks: bool, with_known: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = Path(tmp, "root"), Path(tmp, "outside")
        root.mkdir()
        outside.mkdir()
        for i, (kind, body, grow) in enumerate(skills):
            _make(root, outside, i, kind, body + b"y" * (grow * HEAD // 2))
        known: dict[str, str] = {}
        if with_known:  # some stamps known (refresh): unchanged skills are not read
            first = _scan(root, {}, False, hardlinks)
            known = {e.directory: e.stamp for e in first.entries[::2]}
        used: list[int] = []
        assert _scan(root, known, True, hardlinks, used) == _scan(root, known, False, hardlinks)
        if not with_known and any(kind == "file" for kind, _, _ in skills):
            assert used  # the fast path answered for the common skill: it was compared


@given(st.binary(max_size=300), st.integers(1, 400))
def test_one_read_of_a_whole_file_is_what_reading_to_the_end_gives(data: bytes, limit: int) -> None:
    with tempfile.TemporaryFile() as fh:
        fh.write(data)
        fh.flush()
        fh.seek(0)
        got = read_fd(os.dup(fh.fileno()), limit, len(data))
    assert got == data[:limit]


def test_a_file_swapped_for_a_link_after_its_lstat_is_left_to_the_walk(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_bytes(b"---\nname: s0\ndescription: secret\n---\n")
    (root / "s0").mkdir()
    skill_file = root / "s0" / "SKILL.md"
    skill_file.write_bytes(b"---\nname: s0\ndescription: d\n---\n")
    real = local_entry.open_checked

    def swapping(dir_fd: int, name: str, st: os.stat_result, hardlinks: bool) -> int:
        if skill_file.is_file() and not skill_file.is_symlink():
            skill_file.unlink()
            skill_file.symlink_to(outside / "secret.md")
        return real(dir_fd, name, st, hardlinks)

    with mock.patch.object(local_entry, "open_checked", swapping):
        swapped = _scan(root, {}, True, False)
    assert swapped == _scan(root, {}, False, False)  # the walk's verdict on the link
    assert not any(e.head and b"secret" in e.head for e in swapped.entries)
