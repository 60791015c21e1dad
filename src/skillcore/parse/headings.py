"""The section headings of a skill's body: words a search may match beyond the description.

Skill bodies name what a skill covers in their headings ("Cosmological Distance
Calculations", "Extract Tables", "Red-Green-Refactor"), often in the words users ask with.
They are read from the part of the file discovery already has (no extra read), and bounded:
the first :data:`MAX_HEADINGS_SCANNED` bytes of the body (UTF-8), at most
:data:`MAX_HEADINGS` headings of at most :data:`MAX_HEADING_CHARS` characters each.

A heading is an ATX heading line (``#`` to ``######`` and a space or tab, up to three spaces
of indent) outside code fences; a fence is a line of three or more backticks or tildes (up
to three spaces of indent), closed by a line of the same character at least as long
(CommonMark). Setext headings (a line underlined with ``===``) are not read: skill bodies
rarely use them. A local scan reads them from the bytes it has read (:func:`scanned_headings`)
and hands them to the parser with the frontmatter.
"""

from __future__ import annotations

import re

from skillcore.parse.frontmatter_caps import MAX_HEADING_CHARS, MAX_HEADINGS, MAX_HEADINGS_SCANNED
from skillcore.parse.values import UNSAFE_TEXT


def _at_line_start(run: str) -> str:
    """``run``, then a look back: it starts a line, after up to three spaces. A pattern that
    starts with the characters its lines start with lets the regex engine skip in C to each
    of them instead of trying every line (a body has far fewer ``#`` and fence runs than
    lines)."""
    behind = "|".join(f"(?<=\\n{' ' * indent}{run})" for indent in range(4))
    return f"{run}(?:{behind})"


_HEADING = _at_line_start("#") + r"#{0,5}[ \t]"
# The patterns read UTF-8 bytes: each of their characters is ASCII, and no byte of a
# multi-byte character is, so they match in the bytes where they match in the text, and
# only the heading texts found are decoded (not the whole body).
#: A heading line's text (after its ``#`` run).
_HEADING_TEXT = re.compile((_HEADING + r"([^\n]*)").encode())
#: Splits text at its fence runs of backticks (kept); of both kinds when it has tilde fences.
_BACKTICKS = _at_line_start("```") + "`*"
_TILDES = _at_line_start("~~~") + "~*"
_BACKTICKS_SPLIT = re.compile(f"({_BACKTICKS})".encode())
_BOTH_SPLIT = re.compile(f"({_BACKTICKS}|{_TILDES})".encode())
_TILDE_FENCE = re.compile(_TILDES.encode())
_SPACES = re.compile(r"\s+")


def body_headings(body: str, complete: bool = True, start: int = 0) -> tuple[str, ...]:
    """The ATX headings of ``body[start:]`` outside code fences, in order, each once.

    ``complete`` is False when ``body`` is only the start of the body (a head): then its last
    line may be cut, so it is not read.
    """
    # The first MAX_HEADINGS_SCANNED characters hold at least that many bytes (UTF-8: 1-4
    # each): enough to cut the bytes read where :func:`scanned_headings` cuts them. The
    # leading newline stands for the line break before the body.
    window = body[start : start + MAX_HEADINGS_SCANNED]
    data = b"\n" + window.encode("utf-8", "surrogatepass")
    whole = len(body) - start <= MAX_HEADINGS_SCANNED
    return scanned_headings(data, 1, complete and whole)


def scanned_headings(data: bytes, start: int, complete: bool = True) -> tuple[str, ...]:
    """:func:`body_headings` of the body that starts at ``start`` in ``data`` (UTF-8 the
    caller has checked, after a newline), reading only the bytes it reads: what a local scan
    hands the parser with the frontmatter, so that the body is neither kept nor read twice."""
    stop = start + MAX_HEADINGS_SCANNED
    if len(data) > stop or not complete:  # cut at a line end (all of it is read otherwise)
        stop = data.rfind(b"\n", start - 1, stop) + 1
    # From the newline before the body: each pattern looks back for the line break.
    text = data[start - 1 : stop]
    if b"#" not in text:
        return ()
    # A one-byte search first: it runs in ``memchr``, and most bodies have no tilde.
    if b"~" in text and _TILDE_FENCE.search(text) is not None:
        pieces = _BOTH_SPLIT.split(text)
    else:
        pieces = _BACKTICKS_SPLIT.split(text)
    if len(pieces) == 1:  # no code fence
        found = _HEADING_TEXT.findall(text)
    elif len(set(pieces[1::2])) == 1:
        # ``pieces``: text, fence run, text, ... The pieces outside the fences are read at
        # once, joined by a NUL: no line starts there, and no heading line runs into it (a
        # piece ends at a fence's line start). In the usual body every run is the same: each
        # opens or closes, and every 4th piece is outside.
        found = _HEADING_TEXT.findall(b"\0".join(pieces[::4]))
    else:
        found = _HEADING_TEXT.findall(b"\0".join(_outside(pieces)))
    return _cleaned(found) if found else ()


def _outside(pieces: list[bytes]) -> list[bytes]:
    """The pieces of a split at fence runs (text, run, text, ...) outside the fences."""
    outside = [pieces[0]]
    fence = b""
    for i in range(1, len(pieces), 2):
        marker = pieces[i]
        if not fence:
            fence = marker
        elif marker.startswith(fence):  # the same character, at least as long
            fence = b""
            outside.append(pieces[i + 1])
    return outside


def _cleaned(texts: list[bytes]) -> tuple[str, ...]:
    """The headings of ``texts`` (their texts in order, UTF-8; not empty): cleaned, cut,
    non-empty, each once, at most ``MAX_HEADINGS``."""
    # One decode for all of them: no text holds a newline.
    raw = b"\n".join(texts).decode("utf-8", "surrogatepass").split("\n")
    joined = " ".join(raw)
    # The common case, every text printable, without blanks around it, a closing ``#`` run,
    # runs of spaces or excess length, is already clean: checked on the texts joined, in C
    # (an empty text makes a run of spaces there).
    if (
        joined.isprintable()
        and "  " not in joined
        and "# " not in joined
        and joined[-1:] not in ("#", " ")
        and joined[:1] != " "
        and (len(joined) <= MAX_HEADING_CHARS or max(map(len, raw)) <= MAX_HEADING_CHARS)
    ):
        unique = dict.fromkeys(raw)
        unique.pop("", None)
        return tuple(unique) if len(unique) <= MAX_HEADINGS else tuple(unique)[:MAX_HEADINGS]
    found: dict[str, None] = {}
    for heading in raw:
        heading = _clean(heading)
        if heading:
            found.setdefault(heading[:MAX_HEADING_CHARS].rstrip(), None)
            if len(found) >= MAX_HEADINGS:
                break
    return tuple(found)


def _clean(heading: str) -> str:
    """A heading's text without its closing ``#`` sequence, unsafe characters and runs of
    spaces (the common case, printable text with single spaces, costs two checks)."""
    heading = heading.strip(" \t\r")
    if heading.endswith("#"):
        # The closing sequence is ``#``s after a space (``C#`` keeps its ``#``).
        bare = heading.rstrip("#")
        if not bare or bare[-1] in " \t":
            heading = bare.rstrip(" \t")
    if not heading.isprintable() or "  " in heading:
        heading = _SPACES.sub(" ", UNSAFE_TEXT.sub("", heading)).strip()
    return heading


__all__ = ["body_headings", "scanned_headings"]
