"""What a cold start from the parse cache does not do: it never hashes the catalog (hashing
an equal catalog walks every skill's fields, tens of milliseconds at 10,000 skills) nor
computes its fingerprint, and the answers that avoid the hash are the ones the hashed memo
gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import SkillLibrary, render_catalog
from skillcore.model import Catalog, SkillLocation, SkillMetadata
from skillcore.state.overrides import paths_hidden, removes_tools


class _HashCount:
    """Counts ``Catalog.__hash__`` calls: a memo keyed by the catalog's value hashes it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = Catalog.__hash__

        def counting(catalog: Catalog) -> int:
            self.calls += 1
            return real(catalog)

        monkeypatch.setattr(Catalog, "__hash__", counting)


def _library(root: Path, extra: str = "") -> None:
    for i in range(3):
        skill = root / f"s{i}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: s{i}\ndescription: Does {i}.\n{extra if i == 1 else ''}---\nBody\n"
        )


def test_render_and_tool_checks_do_not_hash_the_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _library(tmp_path / "skills")
    hashes = _HashCount(monkeypatch)
    for cache in (False, str(tmp_path / "cache"), str(tmp_path / "cache")):  # fill, then read
        lib = SkillLibrary(tmp_path / "skills", cache=cache)
        session = lib.session()
        assert "s1" in render_catalog(session)
        assert removes_tools(lib.catalog) is False
        session.check_tool("Read")  # a plain tool call consults removes_tools too
        assert hashes.calls == 0
        # A library's catalog computes its fingerprint on first read: the raw slot is None.
        assert Catalog.fingerprint.__get__(lib.catalog) is None


def test_paths_skills_hidden_as_before(tmp_path: Path) -> None:
    _library(tmp_path / "skills", "paths: ['src/**/*.py']\ndisallowed-tools: [Write]\n")
    lib = SkillLibrary(tmp_path / "skills", cache=False)
    catalog = lib.catalog
    assert paths_hidden(catalog, frozenset()) == frozenset({"s1"})
    assert paths_hidden(catalog, frozenset({"src/a/b.py"})) == frozenset()
    assert removes_tools(catalog) is True
    # An equal catalog (another object) gives the same answers.
    again = Catalog(list(catalog.skills), catalog.diagnostics)
    assert again is not catalog
    assert paths_hidden(again, frozenset()) == frozenset({"s1"})
    assert removes_tools(again) is True


def test_answers_follow_the_catalog_not_a_reused_identity() -> None:
    def cat(extra: dict[str, object]) -> Catalog:
        loc = SkillLocation("s", "a", "/s/a")
        return Catalog([SkillMetadata("a", "Does a.", loc, extra=extra)])

    for _ in range(3):  # a collected catalog's id may be reused by the next one
        assert paths_hidden(cat({"paths": ["x/*"]}), frozenset()) == frozenset({"a"})
        assert paths_hidden(cat({}), frozenset()) == frozenset()
        assert removes_tools(cat({"disallowed-tools": ["Write"]})) is True
        assert removes_tools(cat({})) is False


#: What a start from a filled parse cache never imports: the frontmatter parser and YAML
#: (nothing is parsed), hashlib and OpenSSL (no lock to check), the trust layer's verifier
#: and lock file (only the names of its environment variables are read), and what only a
#: session's transitions and saved state use.
_NOT_IMPORTED = (
    "yaml",
    "hashlib",
    "skillcore.parse.frontmatter",
    "skillcore.trust.verify",
    "skillcore.trust.lockfile",
    "skillcore.state.outcomes",
    "skillcore.state.schema",
)

_COLD = """
import json, sys
from skillcore import SkillLibrary, render_catalog
lib = SkillLibrary(sys.argv[1], cache=sys.argv[2])
text = render_catalog(lib.session())
print(json.dumps([len(lib.catalog), [m for m in {names!r} if m in sys.modules]]))
"""


def test_a_start_from_the_cache_imports_no_parser(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    _library(tmp_path / "skills")
    src = str(Path(__file__).resolve().parents[3] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    env.pop("SKILLCORE_LOCK", None)
    args = [sys.executable, "-c", _COLD.format(names=_NOT_IMPORTED)]
    args += [str(tmp_path / "skills"), str(tmp_path / "cache")]
    first = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    assert json.loads(first.stdout)[0] == 3  # parsed: fills the cache
    again = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    assert json.loads(again.stdout) == [3, []]
