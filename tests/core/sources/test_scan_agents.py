"""The local scan tells the library whether a skill directory holds Codex's ``agents``
folder, looked up from the directory it read ``SKILL.md`` in: its answer is what the
library's own check of the path (``os.path.lexists``) says, and a discovery that uses it
finds exactly what one that checks every path finds, with no path check of its own.

Generated libraries mix real, symlinked and nested skill directories with an ``agents``
entry that is missing, a directory (with and without ``openai.yaml``), a file, a link to a
directory inside or outside the skill, or a dangling link.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from unittest import mock

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore.library import SkillLibrary
from skillcore.library import entries as library_entries
from skillcore.sources import LocalReader, SkillSource
from skillcore.sources.local_entry import SkillDirectories
from skillcore.sources.scan import Scan

_AGENTS = ["none", "none", "dir", "yaml", "bad_yaml", "file", "link_in", "link_out", "dangling"]
_DIRS = ["real", "real", "real", "linked", "nested"]
_YAML = b"interface:\n  display_name: Shown\npolicy:\n  allow_implicit_invocation: false\n"


def _make(root: Path, outside: Path, i: int, where: str, agents: str) -> None:
    name = f"s{i}"
    if where == "linked":  # a link to a directory inside the source (hidden: not walked)
        d = root / ".t" / name
    elif where == "nested":
        d = root / f"group{i}" / name
    else:
        d = root / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n# A\n")
    if where == "linked":
        (root / name).symlink_to(d)
    a = d / "agents"
    if agents in ("dir", "yaml", "bad_yaml"):
        a.mkdir()
        if agents != "dir":
            (a / "openai.yaml").write_bytes(_YAML if agents == "yaml" else b"policy: [\n")
    elif agents == "file":
        a.write_bytes(_YAML)
    elif agents == "link_in":
        (d / "real_agents").mkdir()
        (d / "real_agents" / "openai.yaml").write_bytes(_YAML)
        a.symlink_to("real_agents")
    elif agents == "link_out":
        (outside / f"agents{i}").mkdir()
        (outside / f"agents{i}" / "openai.yaml").write_bytes(_YAML)
        a.symlink_to(outside / f"agents{i}")
    elif agents == "dangling":
        a.symlink_to("missing")


def _scan(root: Path, fast: bool) -> Scan:
    reader = LocalReader(SkillSource(str(root), recursive=True), str(root))
    if fast:
        return reader.scan(64, {})
    with mock.patch.object(SkillDirectories, "top_entry", lambda self, fd, name: None):
        return reader.scan(64, {})


_LIBRARIES = st.lists(
    st.tuples(st.sampled_from(_DIRS), st.sampled_from(_AGENTS)), min_size=1, max_size=8
)


def _library(tmp: str, skills: list[tuple[str, str]]) -> Path:
    root, outside = Path(tmp, "root"), Path(tmp, "outside")
    root.mkdir()
    outside.mkdir()
    for i, (where, agents) in enumerate(skills):
        _make(root, outside, i, where, agents)
    return root


@settings(max_examples=40, deadline=None)
@given(_LIBRARIES, st.booleans())
def test_the_scans_answer_is_the_path_check(skills: list[tuple[str, str]], fast: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _library(tmp, skills)
        entries = _scan(root, fast).entries
        assert len(entries) == len(skills)
        for entry in entries:
            if "/" in entry.directory or (root / entry.directory).is_symlink():
                assert entry.agents is None  # the library checks these paths itself
            else:
                assert entry.agents is os.path.lexists(root / entry.directory / "agents")


@settings(max_examples=30, deadline=None)
@given(_LIBRARIES)
def test_discovery_with_the_scans_answer_finds_what_the_path_check_finds(
    skills: list[tuple[str, str]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _library(tmp, skills)
        source = SkillSource(str(root), recursive=True)
        scan = LocalReader.scan

        def unanswered(self: LocalReader, *args: object, **kwargs: object) -> Scan:
            found = scan(self, *args, **kwargs)  # type: ignore[arg-type]
            return attrs.evolve(
                found, entries=tuple(attrs.evolve(e, agents=None) for e in found.entries)
            )

        with mock.patch.object(LocalReader, "scan", unanswered):
            expected = SkillLibrary(source, cache=False).discover()
        got = SkillLibrary(source, cache=False).discover()
        assert got == expected
        assert got.diagnostics == expected.diagnostics


def test_a_discovery_of_real_skill_directories_checks_no_path() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _library(tmp, [("real", a) for a in ("none", "yaml", "file", "none")])
        calls: list[object] = []
        real = os.path.lexists

        def counted(path: object) -> bool:
            calls.append(path)
            return real(path)  # type: ignore[arg-type]

        with mock.patch.object(library_entries.os.path, "lexists", counted):
            catalog = SkillLibrary(str(root), cache=False).discover()
        assert calls == []
        meta = catalog.get("s1")
        assert meta is not None and meta.metadata.get("display-name") == "Shown"
