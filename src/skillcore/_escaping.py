"""Text hygiene: make untrusted skill text safe to put into a prompt or print on a terminal.

Skill text (names, descriptions, paths, directory names, bodies) is written by someone else.
Control characters (C0, DEL, C1: NUL, ESC and terminal escape sequences, a lone carriage return
that overwrites a line) and the bidirectional overrides and isolates that reorder what a reader
sees ("Trojan Source"), and invisible characters a model still reads (tag characters, zero-width
characters, BOM, soft hyphen: :data:`INVISIBLE_CHARS`) are replaced by a *visible* escape in
Python's ``repr`` spelling: ``\\x1b``, ``\\x00``, ``\\u202e``, ``\\r``, ``\\U000e0041``.
Visible escapes rather than U+FFFD because a reader (human or model) can then tell which
character was there and that something unusual was, and two different hostile inputs do not
collapse into the same text. Backslashes themselves are not
escaped: the goal is that nothing invisible or terminal-active survives, not a reversible
encoding, and doubling every backslash would garble code and Windows paths in instructions.

Two flavours, one rule each:

- :func:`prompt_text` for multi-line text where line breaks are legitimate (a skill's body):
  keeps ``\\n`` and ``\\t``; a Windows line ending ``\\r\\n`` becomes ``\\n``.
- :func:`single_line` for one-line fields (names, descriptions in lists, paths, resource
  names): also escapes ``\\n``, ``\\r``, ``\\t`` and the Unicode line/paragraph separators, so a
  value can never start a new line (or a new entry) of its own.

- :func:`folded` for multi-line text shown as one line of a listing (a description in the
  catalog or a search reply): whitespace runs, line breaks included, become one space, the
  text is shortened to a limit with a visible ``…``, then made safe as :func:`single_line`.

Text without anything to escape is returned as is (one scan), so the common case costs almost
nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

#: Bidirectional formatting characters: embeddings/overrides (U+202A-U+202E), isolates
#: (U+2066-U+2069) and the implicit marks (LRM U+200E, RLM U+200F, ALM U+061C).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

#: Invisible characters (a regular-expression class body): they show nothing, yet a model
#: reads them. Tag characters (U+E0000-U+E007F, "ASCII smuggling": hidden text), zero-width
#: space and non-joiner (U+200B, U+200C), word joiner and the invisible operators
#: (U+2060-U+2064), the deprecated format characters (U+206A-U+206F), BOM / zero-width
#: no-break space (U+FEFF), soft hyphen (U+00AD), combining grapheme joiner (U+034F), the
#: Hangul fillers, Khmer inherent vowels, Mongolian selectors and vowel separator, the
#: interlinear annotation marks, the Egyptian, shorthand and musical format controls, and
#: the variation selectors that no emoji needs (U+FE00-U+FE0D, U+E0100-U+E01EF). That is
#: every format character (Unicode category Cf) except the visible prepended concatenation
#: marks (U+0600-U+0605 and the like), plus the invisible letters and marks above.
INVISIBLE_CHARS = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u2060-\u2064"
    "\u206a-\u206f\u3164\ufe00-\ufe0d\ufeff\uffa0\ufff9-\ufffb"
)
#: ... and those beyond the Basic Multilingual Plane (the tag plane U+E0000-U+E01EF whole).
INVISIBLE_ASTRAL = (
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e01ef"
)
_ASTRAL = re.compile(f"[{INVISIBLE_ASTRAL}]")
# What the scans below look for beyond the BMP: two ranges, not the five above (each range
# of a class costs a check per character), the candidates then filtered by _ASTRAL.
_ASTRAL_SPAN = "\U00013430-\U0001d17a\U000e0000-\U000e01ef"
# Two invisible characters that emoji need are kept where they do that job: the text/emoji
# presentation selectors (U+FE0E, U+FE0F) right after a character that has an emoji form
# (:data:`EMOJI_BASES`: a keycap's #, * or digit, a pictograph), and the zero-width joiner
# (U+200D) between two pictographs (:data:`PICTOGRAPHS`; the first may carry its selector),
# as in family and profession emoji. Anywhere else (a run of them, after a letter) they are
# escaped, so they carry no hidden text beyond the odd bit of a one-per-emoji choice.
PICTOGRAPHS = "\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
EMOJI_BASES = (
    "#*0-9\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2"
    "\u25aa-\u25fe\u2934\u2935\u3030\u303d\u3297\u3299" + PICTOGRAPHS
)
#: The characters whose escaping depends on their neighbours (see above).
EMOJI_PARTS = "\u200d\ufe0e\ufe0f"
_PICTOGRAPH = re.compile(f"[{PICTOGRAPHS}]")
_EMOJI_BASE = re.compile(f"[{EMOJI_BASES}]")

# One character class each (a single C-level scan; the neighbours of a ZWJ or presentation
# selector are looked at only when one is found, which is rare).
_CANDIDATES = f"{INVISIBLE_CHARS}{EMOJI_PARTS}{_ASTRAL_SPAN}"
#: Candidates for an invisible character; :func:`find_invisible` gives the real ones.
INVISIBLE = re.compile(f"[{_CANDIDATES}]")
# C0 controls except \t and \n, DEL, C1 controls, the bidi and the invisible characters.
_MULTI_LINE_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}{_CANDIDATES}]")
# ... plus \t, \n and the Unicode line and paragraph separators.
_SINGLE_LINE_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}{_CANDIDATES}]")

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _emoji_part(text: str, i: int) -> bool:
    """True when the ZWJ or presentation selector at ``text[i]`` is part of an emoji."""
    if text[i] != "\u200d":
        return i >= 1 and _EMOJI_BASE.match(text, i - 1) is not None
    if _PICTOGRAPH.match(text, i + 1) is None:
        return False
    if i >= 1 and _PICTOGRAPH.match(text, i - 1) is not None:
        return True
    return i >= 2 and text[i - 1] in "\ufe0e\ufe0f" and _EMOJI_BASE.match(text, i - 2) is not None


def _unsafe(match: re.Match[str]) -> bool:
    """Whether a candidate the scans found is escaped (the neighbours of a ZWJ or
    presentation selector decide; beyond the BMP only :data:`INVISIBLE_ASTRAL` is)."""
    char = match.group()
    if char in EMOJI_PARTS:
        return not _emoji_part(match.string, match.start())
    return char < "\U00010000" or _ASTRAL.match(char) is not None


def _found(pattern: re.Pattern[str], text: str) -> bool:
    return any(_unsafe(m) for m in pattern.finditer(text))


def find_invisible(text: str) -> Iterator[re.Match[str]]:
    """The invisible characters of ``text`` that the functions below escape."""
    return (m for m in INVISIBLE.finditer(text) if _unsafe(m))


def escape_char(char: str) -> str:
    """The visible spelling of one unsafe character (as Python's ``repr`` writes it)."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group()) if _unsafe(match) else match.group()


def prompt_text(text: str) -> str:
    """Multi-line untrusted text made safe for a prompt or a terminal (keeps ``\\n``, ``\\t``)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if not _found(_MULTI_LINE_UNSAFE, text):
        return text
    return _MULTI_LINE_UNSAFE.sub(_escape_match, text)


def single_line(text: str) -> str:
    """A one-line field (name, description, path) made safe: no line breaks, no controls."""
    # Fast path: in ASCII text every character this escapes is non-printable, and
    # str.isascii/isprintable are C loops several times faster than the regex scan (some
    # invisible characters, like the Hangul fillers, count as printable: not ASCII ones).
    if (text.isascii() and text.isprintable()) or not _found(_SINGLE_LINE_UNSAFE, text):
        return text
    return _SINGLE_LINE_UNSAFE.sub(_escape_match, text)


def is_clean(text: str, multi_line: bool = False) -> bool:
    """True when ``text`` has nothing :func:`prompt_text` / :func:`single_line` would escape."""
    unsafe = _MULTI_LINE_UNSAFE if multi_line else _SINGLE_LINE_UNSAFE
    return not _found(unsafe, text) and not (multi_line and "\r" in text)


#: Ends a text that :func:`folded` shortened, so a reader knows there is more.
ELLIPSIS = "…"


def folded(text: str, limit: int) -> str:
    """Multi-line text on one line: whitespace folded, at most ``limit`` characters (a cut
    text ends with :data:`ELLIPSIS`), and safe as :func:`single_line`."""
    text = " ".join(text.split())  # also folds \u2028, \x85 and the \x1c-\x1f separators
    if len(text) > limit:
        text = text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return single_line(text)


def quoted_excerpt(text: str, limit: int = 80) -> str:
    """A bounded, printable repr of model-provided text for messages (its first ``limit``
    characters; escapes and unencodable characters spelled out)."""
    return repr(text[:limit].encode("utf-8", "backslashreplace").decode("utf-8"))


def escape(text: str) -> str:
    """Escape ``&``, ``<`` and ``>`` (xml.sax.saxutils costs ~50 ms of import time)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """A double-quoted XML attribute value: one line, controls and bidi characters escaped."""
    return '"' + escape(single_line(text)).replace('"', "&quot;") + '"'


def cut_page(text: str, start: int, limit: int) -> tuple[str, int | None]:
    """``(page, next)``: at most ``limit`` characters of ``text`` from ``start``, ending at a
    line end when one falls in the page's second half, and where the next page starts (None
    when this one reaches the end)."""
    end = start + limit
    if end >= len(text):
        return text[start:], None
    newline = text.rfind("\n", start + limit // 2, end)
    if newline != -1:
        end = newline + 1
    return text[start:end], end


#: How every load reply starts (what a context editor that clears it takes away; delivery
#: itself is proven by call ids, see :meth:`SkillSession.delivered`).
SKILL_CONTENT_PREFIX = "<skill_content"


@functools.lru_cache(maxsize=1024)
def skill_content_marker(name: str) -> str:
    """The opening tag of a load reply for the skill ``name``."""
    return f"{SKILL_CONTENT_PREFIX} name={quoteattr(name)}>"


def root_cause(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (``ExceptionGroup: unhandled errors in a
    TaskGroup`` says nothing; its first sub-exception is what went wrong)."""
    for _ in range(100):  # groups nest (a task group inside a task group); bounded
        inner = getattr(exc, "exceptions", None)  # BaseExceptionGroup (3.11+, exceptiongroup)
        if not isinstance(inner, (tuple, list)) or not inner:
            break
        exc = inner[0]
    return exc


def describe(exc: BaseException) -> str:
    """``Type: message`` of an exception's root cause, on one line."""
    cause = root_cause(exc)
    text = " ".join(str(cause).split())
    return single_line(f"{type(cause).__name__}: {text}" if text else type(cause).__name__)
