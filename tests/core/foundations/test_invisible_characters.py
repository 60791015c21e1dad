"""Invisible characters (tag characters, zero-width characters, BOM, soft hyphen, ...) in skill
text: kept in the metadata, warned about at discovery, and shown escaped in every reply and
rendering (the catalog, search and load replies, ``skillcore list``)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import CatalogFormat, Code, SkillLibrary, SkillToolkit, render_catalog
from skillcore._escaping import folded, prompt_text, quoteattr, single_line
from skillcore.apps.cli import main

ROOT = Path(__file__).resolve().parents[3]

#: Format characters that are visible (prepended concatenation marks): left alone.
VISIBLE_FORMAT = {*range(0x600, 0x606), 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD}
#: Invisible characters that are not format characters (letters and marks showing nothing).
INVISIBLE_OTHER = {
    0x34F,
    0x115F,
    0x1160,
    0x17B4,
    0x17B5,
    0x180B,
    0x180C,
    0x180D,
    0x180F,
    0x3164,
    0xFFA0,
    *range(0xFE00, 0xFE0E),
    *range(0xE0000, 0xE0080),
    *range(0xE0100, 0xE01F0),
}
#: Where emoji keep their joiner and presentation selectors (docs/security.md).
PICTOGRAPHS = (range(0x2600, 0x27C0), range(0x2B00, 0x2C00), range(0x1F000, 0x1FB00))
EMOJI_BASES = (
    *PICTOGRAPHS,
    *(range(ord(c), ord(c) + 1) for c in "#*0123456789\u00a9\u00ae\u203c\u2049\u2122\u2139"),
    range(0x2194, 0x21AB),
    range(0x231A, 0x2400),
    range(0x24C2, 0x24C3),
    range(0x25AA, 0x25FF),
    range(0x2934, 0x2936),
    *(range(c, c + 1) for c in (0x3030, 0x303D, 0x3297, 0x3299)),
)
PICTOGRAPH = "\u2764\U0001f468\U0001f469\U0001f9d1\U0001f52c\u2603"


def within(char: str, ranges: tuple[range, ...]) -> bool:
    return bool(char) and any(ord(char) in r for r in ranges)


def leftovers(text: str) -> list[str]:
    """Invisible characters in ``text``: every format character but the visible ones, the
    invisible letters and marks, and a ZWJ or presentation selector outside an emoji."""
    found = []
    for i, char in enumerate(text):
        code = ord(char)
        before = text[i - 1] if i else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if char in "\ufe0e\ufe0f":
            if not within(before, EMOJI_BASES):
                found.append(char)
        elif char == "\u200d":
            selected = before in "\ufe0e\ufe0f" and i > 1 and within(text[i - 2], EMOJI_BASES)
            joined = within(before, PICTOGRAPHS) or selected
            if not (joined and within(after, PICTOGRAPHS)):
                found.append(char)
        elif code in INVISIBLE_OTHER or (
            unicodedata.category(char) == "Cf" and code not in VISIBLE_FORMAT
        ):
            found.append(char)
    return found


INVISIBLE_SAMPLES = [
    "\U000e0041",
    "\U000e0001",
    "\U000e007f",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u180e",
    "\u2064",
    "\u3164",
    "\ufe0f",
    "\ufe00",
    "\U000e0100",
    "\u034f",
    "\ufff9",
]
#: Hostile text: mostly invisible characters, with letters, pictographs and any character.
hostile = st.text(
    alphabet=st.one_of(
        st.sampled_from(INVISIBLE_SAMPLES),
        st.sampled_from(["a", " ", "#", "1", "é", *PICTOGRAPH]),
        st.characters(codec="utf-8", categories=["Cf", "Mn", "Lo", "So"]),
        st.characters(codec="utf-8"),
    ),
    min_size=1,
    max_size=30,
)


@settings(deadline=None, max_examples=400)
@given(hostile)
def test_no_invisible_character_survives_the_sanitiser(text: str) -> None:
    for out in (single_line(text), prompt_text(text), folded(text, 200), quoteattr(text)):
        assert not leftovers(out), (text, out)
    if not leftovers(text) and text.isprintable():
        assert single_line(text) == text  # nothing else changes


def test_examples() -> None:
    assert single_line("a\U000e0041\U000e0042b") == "a\\U000e0041\\U000e0042b"
    assert single_line("zero\u200bwidth\u00adsoft\ufeff") == "zero\\u200bwidth\\xadsoft\\ufeff"
    assert single_line("x\u200dy") == "x\\u200dy"
    assert prompt_text("word\u2060joiner\n") == "word\\u2060joiner\n"
    # What emoji need is kept: a family (ZWJ between pictographs), ❤️, a keycap.
    for emoji in ("\U0001f468\u200d\U0001f469", "\u2764\ufe0f", "#\ufe0f\u20e3"):
        assert single_line(emoji) == emoji == prompt_text(emoji)
    assert single_line("a\ufe0f") == "a\\ufe0f"
    assert single_line("\u2764\ufe0f\ufe0f") == "\u2764\ufe0f\\ufe0f"


def write(root: Path, name: str, description: str, body: str) -> None:
    d = root / name
    d.mkdir(parents=True)
    fm = f'---\nname: {name}\ndescription: "{description}"\n---\n'
    (d / "SKILL.md").write_text(fm + body + "\n", encoding="utf-8")


def yaml_safe(text: str) -> str:
    """``text`` as the inside of a double-quoted YAML scalar (every character kept)."""
    return "".join(c if c.isalnum() and c.isascii() else f"\\U{ord(c):08x}" for c in text)


@settings(
    deadline=None, max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(description=hostile, body=hostile)
def test_no_invisible_character_reaches_a_reply(description: str, body: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        body = body.replace("\x00", "")  # (a NUL makes the file binary: skipped)
        write(root, "hidden", "Audit files " + yaml_safe(description), "# Steps\n" + body)
        write(root, "plain", "A plain skill.", "Body.")
        lib = SkillLibrary([root])
        toolkit = SkillToolkit(lib)
        session = lib.session()
        assert "hidden" in session.catalog.names
        outputs = [render_catalog(session, fmt) for fmt in CatalogFormat]
        outputs.append(toolkit.call(session, "search_skills", {"query": "audit files"}).text)
        loaded = toolkit.call(session, "load_skill", {"skill_name": "hidden"})
        outputs += [loaded.text, render_catalog(loaded.session)]
        for out in outputs:
            assert out and not leftovers(out), out
        # Discovery warns about what the catalog and search show (the frontmatter).
        codes = {d.code for d in lib.catalog.diagnostics}
        assert (Code.INVISIBLE_CHARACTERS in codes) == bool(leftovers(description))


TAGGED = "Format reports.\U000e0049\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065"


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    d = root / "reports"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        f"---\nname: reports\ndescription: {TAGGED}\n---\nUse\u200b this\u00ad.\n",
        encoding="utf-8",
    )
    return root


def test_discovery_warns_and_the_cache_keeps_the_warning(tagged: Path) -> None:
    for _ in range(2):  # the second discovery reads the parse cache
        lib = SkillLibrary([tagged])
        catalog = lib.discover()
        assert catalog.get("reports").description == TAGGED  # kept as written
        [diag] = [d for d in catalog.diagnostics if d.code is Code.INVISIBLE_CHARACTERS]
        assert "U+E0049 TAG LATIN CAPITAL LETTER I, line 3" in diag.message
        assert "\\U000e0049" in diag.message and not leftovers(diag.message)


def test_yaml_escapes_are_warned_about(tmp_path: Path) -> None:
    write(tmp_path, "esc", "Hidden\\u200bword", "Body.")
    catalog = SkillLibrary([tmp_path]).discover()
    assert "\u200b" in catalog.get("esc").description
    [diag] = [d for d in catalog.diagnostics if d.code is Code.INVISIBLE_CHARACTERS]
    assert diag.field == "description"


def test_an_invisible_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("pdf\u3164", "pdf\u200b"):
        d = tmp_path / name
        d.mkdir()
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: x\n---\n", "utf-8")
    catalog = SkillLibrary([tmp_path]).discover()
    assert catalog.names == ()
    assert main(["validate", str(tmp_path)]) != 0
    out, err = capsys.readouterr()
    assert "INVALID_NAME" in out + err and not leftovers(out + err)


def test_cli_list_shows_them_escaped(tagged: Path) -> None:
    env = {"PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "skillcore", "list", str(tagged)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "reports" in done.stdout and "\\U000e0049" in done.stdout
    assert not leftovers(done.stdout + done.stderr)
    assert "INVISIBLE_CHARACTERS" in done.stderr
