"""A ``SKILL.md`` past the spec's length guidance: warned about at discovery and by
``skillcore validate``; a load delivers at most ``Limits.max_load_chars`` characters and says
where the rest is; the resource tool reads the rest one page at a time from that offset."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore import Limits, SkillLibrary
from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code
from skillcore.limits import DEFAULT_MAX_LOAD_CHARS, GUIDANCE_BYTES, GUIDANCE_LINES
from skillcore.testing import write_skill
from skillcore.tools.toolkit import SkillToolkit

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"
LINE = "Step {i}: a line of instructions, long enough to make the file large.\n"


def big_body(lines: int) -> str:
    return "".join(LINE.format(i=i) for i in range(lines))


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "huge", "A huge skill.", big_body(30_000))  # about 2 MB
    write_skill(root, "short-lines", "Many short lines.", "x\n" * (GUIDANCE_LINES + 100))
    write_skill(root, "small", "A small skill.", "Do the small thing.")
    return root


def _offset(text: str) -> int:
    found = re.search(r"and offset (\d+)\.", text)
    assert found, text[-500:]
    return int(found.group(1))


def test_discovery_warns_past_the_guidance(library: Path) -> None:
    assert (library / "huge" / "SKILL.md").stat().st_size > 2_000_000
    for mode in ("lenient", "strict"):
        cat = SkillLibrary([str(library)], mode=mode).discover()
        assert set(cat.names) == {"huge", "short-lines", "small"}  # a warning, not a skip
        long = [d for d in cat.diagnostics if d.code is Code.SKILL_TOO_LONG]
        assert [d.path for d in long] == ["huge/SKILL.md"]
        assert long[0].severity.value == "warning" and "5,000 tokens" in long[0].message
    # The bundled examples are within the guidance.
    cat = SkillLibrary([str(EXAMPLES)]).discover()
    assert not [d for d in cat.diagnostics if d.code is Code.SKILL_TOO_LONG]


def test_validate_warns_by_size_and_by_lines(library: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "skillcore", "validate", "--mode", "strict", str(library)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    warned = [line for line in done.stdout.splitlines() if "SKILL_TOO_LONG" in line]
    assert len(warned) == 2, done.stdout
    assert any("huge/SKILL.md" in w and "bytes" in w for w in warned)
    assert any("short-lines/SKILL.md" in w and re.search(r"are 60\d lines", w) for w in warned)
    assert "3 valid skills, 0 errors, 2 warnings" in done.stdout


def test_load_is_capped_and_the_rest_is_read_in_pages(library: Path) -> None:
    lib = SkillLibrary([str(library)])
    lib.discover()
    toolkit = SkillToolkit(lib)
    session = lib.session()
    loaded = toolkit.call(session, "load_skill", {"skill_name": "huge"})
    assert loaded.code is OutcomeCode.LOADED
    assert DEFAULT_MAX_LOAD_CHARS < len(loaded.text) < DEFAULT_MAX_LOAD_CHARS + 1_000
    assert "Step 0:" in loaded.text and "Step 29999:" not in loaded.text
    assert "load_skill_resource with skill_name 'huge', path 'SKILL.md'" in loaded.text
    # Page through the rest: together the pages are the whole file from the cut on.
    whole = (library / "huge" / "SKILL.md").read_text(encoding="utf-8")
    session, offset, pages = loaded.session, _offset(loaded.text), []
    delivered = loaded.text.split("\n", 1)[1].split("\n\n[Cut here")[0]
    assert whole[:offset].endswith(delivered)
    while True:
        args = {"skill_name": "huge", "path": "SKILL.md", "offset": offset}
        page = toolkit.call(session, "load_skill_resource", args)
        assert page.code is OutcomeCode.RESOURCE_READ, page.text
        body = page.text.split("\n", 1)[1].rsplit("\n</skill_resource>", 1)[0]
        assert len(body) <= DEFAULT_MAX_LOAD_CHARS
        pages.append(body)
        if "[Cut here" not in page.text:
            break
        offset = _offset(page.text)
        assert len(pages) < 100
    assert "".join(pages) == whole[_offset(loaded.text) :]
    # Past the end: an error that says so; no offset: the file is too large to read whole,
    # and the reply says how to read it in parts.
    past = toolkit.call(session, "load_skill_resource", {**args, "offset": len(whole) + 5})
    assert past.code is OutcomeCode.INVALID_ARGUMENTS and "past the end" in past.text
    args = {"skill_name": "huge", "path": "SKILL.md"}
    whole_read = toolkit.call(session, "load_skill_resource", args)
    assert whole_read.code is OutcomeCode.TOO_LARGE and "offset 0" in whole_read.text


def test_cap_is_configurable_and_small_skills_arrive_whole(library: Path) -> None:
    lib = SkillLibrary([str(library)])
    lib.discover()
    toolkit = SkillToolkit(lib)
    session = lib.session(Limits(max_load_chars=5_000))
    loaded = toolkit.call(session, "load_skill", {"skill_name": "huge"})
    assert len(loaded.text) < 5_600 and "[Cut here: characters" in loaded.text
    small = toolkit.call(session, "load_skill", {"skill_name": "small"})
    assert "Do the small thing." in small.text and "Cut here" not in small.text
    with pytest.raises(ValueError, match="max_load_chars"):
        Limits(max_load_chars=10)
    assert GUIDANCE_BYTES < DEFAULT_MAX_LOAD_CHARS


@pytest.mark.parametrize(
    ("offset", "ok"),
    [(0, True), ("12", True), (3.0, True), (None, True), (-1, False), (True, False), ("x", False)],
)
def test_offset_argument(library: Path, offset: object, ok: bool) -> None:
    lib = SkillLibrary([str(library)])
    lib.discover()
    toolkit = SkillToolkit(lib)
    session = toolkit.call(lib.session(), "load_skill", {"skill_name": "small"}).session
    args = {"skill_name": "small", "path": "SKILL.md", "offset": offset}
    result = toolkit.call(session, "load_skill_resource", args)
    assert (result.code is OutcomeCode.RESOURCE_READ) is ok, result.text
    if not ok:
        assert result.code is OutcomeCode.INVALID_ARGUMENTS
