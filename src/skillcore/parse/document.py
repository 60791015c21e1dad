"""The text of a ``SKILL.md``: decoding, where its frontmatter ends, and its body."""

from __future__ import annotations

import re

from skillcore.diagnostics import Code

_LONE_CR = re.compile(r"\r(?!\n)")


def decode_text(data: bytes) -> tuple[str | None, Code | None, str]:
    """Decode UTF-8 (BOM tolerated). Returns ``(text, error_code, message)``."""
    if data.find(b"\x00", 0, 8192) != -1:  # no slice: a copy of 8 KiB per file
        return None, Code.BINARY_FILE, "file contains NUL bytes; it looks binary, not Markdown"
    try:
        # Without a BOM, "utf-8-sig" decodes as "utf-8" does (same text, same error offsets)
        # through a Python-level codec function; the plain codec runs in C.
        text = data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as exc:
        # A head cut in the middle of a multi-byte character is not an error.
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            text = data[: exc.start].decode("utf-8-sig")
        else:
            line = data[: exc.start].count(b"\n") + 1
            return (
                None,
                Code.DECODE_ERROR,
                f"not valid UTF-8 at byte {exc.start} (line {line}): {exc.reason}; "
                "save the file as UTF-8",
            )
    return text, None, ""


def split_frontmatter(text: str, *, complete: bool = True) -> tuple[str | None, int, bool]:
    """Find the frontmatter. Returns ``(yaml_text, body_offset, terminated)``.

    ``yaml_text`` is None when the file does not start with a ``---`` line. Lone CR line
    endings (old Mac style) are read as newlines; offsets stay valid for ``text`` because the
    replacement keeps its length. With ``complete=False`` (a head of the file), a closing line
    that ends the head without a newline may continue past it, so it does not count.
    """
    if "\r" in text:
        text = _LONE_CR.sub("\n", text)
    if not text.startswith("---"):
        return None, 0, False
    first_nl = text.find("\n")
    if first_nl == -1 or text[:first_nl].strip() != "---":
        return None, 0, False
    found = _closing_line(text, first_nl)
    if found is None or (not complete and found[1] == len(text)):
        return text[first_nl + 1 :], len(text), False
    start, end = found
    body_offset = end + 1 if end < len(text) else end
    return text[first_nl + 1 : start], body_offset, True


def _closing_line(text: str, nl: int) -> tuple[int, int] | None:
    """Start and end of the first line after the newline at ``nl`` that closes the
    frontmatter: ``---`` or ``...`` with optional trailing blanks (spaces, tabs, CR).

    The same as searching ``^(?:---|\\.\\.\\.)[ \\t\\r]*$`` (multi-line) from ``nl + 1``,
    with ``str.find``: a regular expression tries every position of the text.
    """
    dashes = text.find("\n---", nl)
    dots = text.find("\n...", nl)
    while dashes != -1 or dots != -1:
        at = dashes if dots == -1 or (dashes != -1 and dashes < dots) else dots
        end = text.find("\n", at + 4)
        if end == -1:
            end = len(text)
        if not text[at + 4 : end].strip(" \t\r"):
            return at + 1, end
        # Each candidate is passed once: linear in the text, however many there are.
        if at == dashes:
            dashes = text.find("\n---", at + 1)
        else:
            dots = text.find("\n...", at + 1)
    return None


def body_of(text: str) -> str:
    """The Markdown body of a full ``SKILL.md`` text (everything after the frontmatter)."""
    return body_span(text)[1]


def body_span(text: str) -> tuple[int, str]:
    """``(start, body)``: the body of :func:`body_of` and where it starts in ``text``."""
    _, offset, terminated = split_frontmatter(text)
    if "\r" in text:
        text = _LONE_CR.sub("\n", text)  # same length: ``offset`` stays valid
    if not terminated:
        return 0, text
    # "\r" too: a CRLF file would otherwise start with a blank "\r\n" line and end with "\r".
    rest = text[offset:]
    body = rest.lstrip("\r\n")
    return offset + len(rest) - len(body), body.rstrip("\r\n")
