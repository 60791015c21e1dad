"""skillcore._escaping: what is escaped, how, and that safe text is left alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore._escaping import (
    BIDI_CONTROLS,
    escape_char,
    find_invisible,
    is_clean,
    prompt_text,
    single_line,
)

# (The invisible characters have their own, independent property: test_invisible_characters.)
MULTI_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
SINGLE_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + BIDI_CONTROLS + "]")
# Mostly hostile characters, plus ordinary text, backslashes and non-ASCII letters.
texts = st.text(
    alphabet=st.one_of(
        st.sampled_from(["\x00", "\x1b", "\r", "\n", "\t", "\x7f", "\x85", "\x9b", "\u2028"]),
        st.sampled_from(list(BIDI_CONTROLS)),
        st.sampled_from(["a", " ", "\\", "x", "1", "é", "\u200d", "<"]),
        st.characters(codec="utf-8"),
    ),
    max_size=40,
)


@settings(deadline=None)
@given(texts)
def test_single_line_leaves_nothing_unsafe(text: str) -> None:
    out = single_line(text)
    assert not SINGLE_UNSAFE.search(out)
    assert is_clean(out)
    assert single_line(out) == out  # idempotent
    if not SINGLE_UNSAFE.search(text) and not any(find_invisible(text)):
        assert out is text  # safe text untouched
    # Every safe character survives in order: only unsafe ones are replaced.
    kept = SINGLE_UNSAFE.sub("", text)
    assert all(c in out for c in kept if not any(find_invisible(c)))


@settings(deadline=None)
@given(texts)
def test_prompt_text_keeps_lines_and_tabs(text: str) -> None:
    out = prompt_text(text)
    assert not MULTI_UNSAFE.search(out)
    assert is_clean(out, multi_line=True)
    assert prompt_text(out) == out
    assert out.count("\n") == text.count("\n")  # \r\n -> \n, a lone \r is escaped
    assert out.count("\t") == text.count("\t")


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        ("\x00", "\\x00"),
        ("\x1b", "\\x1b"),
        ("\x7f", "\\x7f"),
        ("\x9b", "\\x9b"),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\t", "\\t"),
        ("\u202e", "\\u202e"),
        ("\u2066", "\\u2066"),
        ("\u061c", "\\u061c"),
        ("\u200f", "\\u200f"),
        ("\u2028", "\\u2028"),
        ("\u200b", "\\u200b"),
        ("\xad", "\\xad"),
        ("\U000e0041", "\\U000e0041"),
    ],
)
def test_escape_spelling_is_python_repr(char: str, shown: str) -> None:
    assert escape_char(char) == shown == repr(char)[1:-1]


def test_examples() -> None:
    assert single_line("a\nb\tc\x1b[2Jd\u202ee") == "a\\nb\\tc\\x1b[2Jd\\u202ee"
    assert prompt_text("a\r\nb\rc\td\x00") == "a\nb\\rc\td\\x00"
    assert single_line("café 😀 \\x1b ok") == "café 😀 \\x1b ok"  # a literal backslash is kept
    assert single_line("zero\u200dwidth joiner") == "zero\\u200dwidth joiner"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # between pictographs: kept
    assert single_line(family) == family
