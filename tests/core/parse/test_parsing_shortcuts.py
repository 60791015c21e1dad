"""The parser's shortcuts for common frontmatter give exactly what the general path gives.

Each shortcut skips work the usual ``SKILL.md`` does not need (the unsafe-character scan of
clean ASCII text, the full name check of a plain name, the conversion of text-only metadata,
the normalisation of a known key, the regular expression that finds the closing line).
Differential properties over generated files, with control, bidi and Unicode line-separator
characters, escapes, non-NFKC names and over-long values, hold each shortcut equal to the
path it skips; ``HYPOTHESIS_PROFILE=long`` runs many more examples.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

import skillcore.parse.frontmatter as parsing
from skillcore import SkillLocation, ValidationMode, parse_skill_file
from skillcore.parse import build, metadata, name_field
from skillcore.parse.document import _closing_line, split_frontmatter

LOC = SkillLocation("src", "demo", "/skills/demo")
LENIENT, STRICT = ValidationMode.LENIENT, ValidationMode.STRICT


@contextmanager
def _general_path() -> Iterator[None]:
    """Every shortcut off: clean all text, check every name and metadata entry in full."""
    with (
        mock.patch.object(parsing, "_needs_cleaning", lambda text, scanned: True),
        mock.patch.object(name_field, "_PLAIN_NAME", re.compile(r"(?!)")),
        mock.patch.object(metadata, "plain_metadata", lambda meta: False),
        mock.patch.object(build, "_KNOWN_SPELLINGS", {}),
        mock.patch.object(build, "_MAX_SPELLINGS", 0),
    ):
        yield


def _parse(data: bytes, directory: str, mode: ValidationMode) -> Any:
    return parse_skill_file(
        data, directory_name=directory, location=LOC, path=f"{directory}/SKILL.md", mode=mode
    )


# -- generated files -----------------------------------------------------------------------

_TRICKY = [
    "\x00", "\x07", "\x1b", "\x7f", "\x85", "\x9f", "\u061c", "\u200e", "\u200f", "\u202a",
    "\u202e", "\u2066", "\u2069", "\u2028", "\u2029", "\ufeff", "\u200b", "\t", "\\", "\\x07",
    "\\u202e", "\\n", "é", "e\u0301", "Ａ", "／", "ß", "日本", "\U0001f600", '"', "'", ": ", " #",
]  # fmt: skip
_plain_chars = st.sampled_from(list("abz019-_ .,:()*/"))
text_values = st.one_of(
    st.lists(st.one_of(_plain_chars, st.sampled_from(_TRICKY)), min_size=0, max_size=12).map(
        "".join
    ),
    st.sampled_from(["v" * 1030, "w" * 300]),  # over the caps of metadata values, list items
)
names = st.one_of(
    st.sampled_from(
        ["demo", "pdf-tools", "Demo", "demo-", "de--mo", "café", "cafe\u0301", "d" * 70]
    ),
    st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,4}){0,2}", fullmatch=True),
    text_values,
)
directories = st.sampled_from(["demo", "pdf-tools", "café", "cafe\u0301", "Demo", "x"])
key_spellings = st.sampled_from(
    ["name", "Name", "description", "license", "compatibility", "metadata", "version",
     "triggers", "file_patterns", "File-Patterns", "dependencies", "allowed-tools",
     "allowed_tools", "priority", "argument-hint", "user_invocable", "custom", "x-extra"]
)  # fmt: skip


def _scalar(value: str, style: int) -> str:
    """``value`` as YAML text: plain, single-quoted, double-quoted (escapes kept) or a block."""
    if style == 0:
        return value
    if style == 1:
        return "'" + value.replace("'", "''") + "'"
    if style == 2:
        return '"' + value.replace('"', '\\"') + '"'
    return "|\n  " + value


@st.composite
def skill_files(draw: st.DrawFn) -> tuple[bytes, str]:
    """A ``SKILL.md`` and its directory name (often the name the file gives)."""
    lines = []
    name = draw(names)
    directory = name if name and draw(st.booleans()) else draw(directories)
    if draw(st.integers(0, 9)):
        lines.append(f"name: {_scalar(name, draw(st.integers(0, 2)))}")
    if draw(st.integers(0, 9)):
        desc = draw(st.one_of(text_values, st.just("Does things. Use it when needed.")))
        if draw(st.integers(0, 9)) == 0:
            desc = desc + "x" * 1100
        lines.append(f"description: {_scalar(desc, draw(st.integers(0, 3)))}")
    for key in draw(st.lists(key_spellings, max_size=4, unique=True)):
        shape = draw(st.integers(0, 2))
        if shape == 0:
            lines.append(f"{key}: {_scalar(draw(text_values), draw(st.integers(0, 3)))}")
        elif shape == 1:
            items = draw(st.lists(text_values, max_size=3))
            lines.append(
                f"{key}:" + "".join(f"\n  - {_scalar(v, draw(st.integers(0, 2)))}" for v in items)
            )
        else:
            pairs = draw(
                st.lists(
                    st.tuples(st.sampled_from(["k", "version", "b_c", "k" * 130]), text_values),
                    max_size=3,
                    unique_by=lambda p: p[0],
                )
            )
            lines.append(
                f"{key}:"
                + "".join(f"\n  {k}: {_scalar(v, draw(st.integers(0, 2)))}" for k, v in pairs)
            )
    text = "---\n" + "\n".join(lines) + "\n---\nbody\n"
    if draw(st.integers(0, 9)) == 0:
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8", "surrogatepass"), directory


@settings(
    settings.get_profile("skillcore"),
    max_examples=max(300, settings.get_profile("skillcore").max_examples),
)
@given(skill_files(), st.sampled_from(list(ValidationMode)))
@example((b"---\nname: demo\ndescription: d\nmetadata:\n  k: v\n---\n", "demo"), LENIENT)
@example((b"---\nname: demo\ndescription: 'a\x07b'\n---\n", "demo"), ValidationMode.LENIENT)
@example((b'---\nname: demo\ndescription: "a\\x07b"\n---\n', "demo"), ValidationMode.STRICT)
@example(("---\nname: demo\ndescription: a\u202eb\n---\n".encode(), "demo"), ValidationMode.LENIENT)
@example(("---\nname: café\ndescription: d\n---\n".encode(), "cafe\u0301"), ValidationMode.LENIENT)
@example((b"---\nname: demo\ndescription: d\nfile_patterns:\n  - a\n---\n", "demo"), STRICT)
@example(
    (b"---\nname: demo\ndescription: d\nmetadata:\n  k: " + b"v" * 1030 + b"\n---\n", "demo"),
    LENIENT,
)
@example(
    (b"---\nname: demo\ndescription: d\nmetadata:\n  " + b"k" * 130 + b": v\n---\n", "demo"),
    LENIENT,
)
@example(
    (b"---\nname: demo\ndescription: d\ntriggers:\n  - " + b"w" * 300 + b"\n---\n", "demo"), LENIENT
)
def test_shortcuts_give_what_the_general_path_gives(
    file: tuple[bytes, str], mode: ValidationMode
) -> None:
    data, directory = file
    fast = _parse(data, directory, mode)
    with _general_path():
        general = _parse(data, directory, mode)
    assert fast == general
    assert repr(fast) == repr(general)  # types too (True == 1 == 1.0)


def test_the_shortcuts_take_the_common_file() -> None:
    """A test that cannot fail is a defect: the usual file must take every shortcut."""
    text = "name: demo\ndescription: d\nmetadata:\n  author: me\nfile_patterns:\n  - a\n"
    assert parsing._needs_cleaning(text, scanned=True) is False
    assert parsing._needs_cleaning(text, scanned=False) is False
    assert parsing._needs_cleaning(text + 'x: "\\x07"\n', scanned=False) is True
    assert parsing._needs_cleaning("d: a\u202eb\n", scanned=True) is True  # not ASCII
    assert name_field._PLAIN_NAME.fullmatch("pdf-tools")
    assert not name_field._PLAIN_NAME.fullmatch("pdf-tools\n")
    assert metadata.plain_metadata({"author": "me"})
    assert not metadata.plain_metadata({"n": 1})
    result = _parse(f"---\n{text}---\n".encode(), "demo", ValidationMode.LENIENT)
    assert result.metadata is not None and result.diagnostics == ()
    assert build._KNOWN_SPELLINGS.get("file_patterns") == "file-patterns"


# -- the closing line ----------------------------------------------------------------------

#: The rule ``_closing_line`` implements with ``str.find``.
_CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t\r]*$", re.M)


@settings(
    settings.get_profile("skillcore"),
    max_examples=max(500, settings.get_profile("skillcore").max_examples),
)
@given(st.text(alphabet=st.sampled_from(list("-.\n\r\t x")), max_size=40))
@example("\n---x\n...\n---\n")
@example("\n--\n.. \n---\t\r")
def test_closing_line_equals_the_regular_expression(text: str) -> None:
    text = "---\n" + text
    for nl in [i for i, ch in enumerate(text) if ch == "\n"][:4]:
        m = _CLOSING.search(text, nl + 1)
        assert _closing_line(text, nl) == (None if m is None else (m.start(), m.end()))


@settings(settings.get_profile("skillcore"))
@given(st.text(alphabet=st.sampled_from(list("-.\n\r\t xa:")), max_size=60), st.booleans())
def test_split_frontmatter_equals_the_regular_expression(text: str, complete: bool) -> None:
    text = "---\n" + text
    norm = re.sub(r"\r(?!\n)", "\n", text)
    first_nl = norm.find("\n")
    m = _CLOSING.search(norm, first_nl + 1)
    if m is None or (not complete and m.end() == len(norm)):
        expected = (norm[first_nl + 1 :], len(norm), False)
    else:
        end = m.end()
        expected = (norm[first_nl + 1 : m.start()], end + 1 if end < len(norm) else end, True)
    assert split_frontmatter(text, complete=complete) == expected
