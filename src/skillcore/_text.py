"""Text hygiene: make untrusted skill text safe to put into a prompt or print on a terminal.

Skill text (names, descriptions, paths, directory names, bodies) is written by someone else.
Control characters (C0, DEL, C1: NUL, ESC and terminal escape sequences, a lone carriage return
that overwrites a line) and the bidirectional overrides and isolates that reorder what a reader
sees ("Trojan Source") are replaced by a *visible* escape in Python's ``repr`` spelling:
``\\x1b``, ``\\x00``, ``\\u202e``, ``\\r``. Visible escapes rather than U+FFFD because a reader
(human or model) can then tell which character was there and that something unusual was, and
two different hostile inputs do not collapse into the same text. Backslashes themselves are not
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

#: Bidirectional formatting characters: embeddings/overrides (U+202A-U+202E), isolates
#: (U+2066-U+2069) and the implicit marks (LRM U+200E, RLM U+200F, ALM U+061C).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

# C0 controls except \t and \n, DEL, C1 controls, and the bidi characters.
_MULTI_LINE_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
# ... plus \t, \n and the Unicode line and paragraph separators.
_SINGLE_LINE_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + BIDI_CONTROLS + "]")

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_char(char: str) -> str:
    """The visible spelling of one unsafe character (as Python's ``repr`` writes it)."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escape_match(match: re.Match[str]) -> str:
    return escape_char(match.group())


def prompt_text(text: str) -> str:
    """Multi-line untrusted text made safe for a prompt or a terminal (keeps ``\\n``, ``\\t``)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if _MULTI_LINE_UNSAFE.search(text) is None:
        return text
    return _MULTI_LINE_UNSAFE.sub(_escape_match, text)


def single_line(text: str) -> str:
    """A one-line field (name, description, path) made safe: no line breaks, no controls."""
    # Fast path: every character this escapes is non-printable (Cc, Cf, Zl, Zp), and
    # str.isprintable is a C loop several times faster than the regex scan.
    if text.isprintable() or _SINGLE_LINE_UNSAFE.search(text) is None:
        return text
    return _SINGLE_LINE_UNSAFE.sub(_escape_match, text)


def is_clean(text: str, multi_line: bool = False) -> bool:
    """True when ``text`` has nothing :func:`prompt_text` / :func:`single_line` would escape."""
    unsafe = _MULTI_LINE_UNSAFE if multi_line else _SINGLE_LINE_UNSAFE
    return unsafe.search(text) is None and not (multi_line and "\r" in text)


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
