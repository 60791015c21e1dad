"""The section headings of a skill's body: words a search may match beyond the description.

Skill bodies name what a skill covers in their headings ("Cosmological Distance
Calculations", "Extract Tables", "Red-Green-Refactor"), often in the words users ask with.
They are read from the part of the file discovery already has (no extra read), and bounded:
the first :data:`MAX_HEADINGS_SCANNED` bytes of the body (UTF-8), at most
:data:`MAX_HEADINGS` headings of at most :data:`MAX_HEADING_CHARS` characters each.
"""

from __future__ import annotations

import re

from skillcore.parse.frontmatter_caps import MAX_HEADING_CHARS, MAX_HEADINGS, MAX_HEADINGS_SCANNED
from skillcore.parse.values import UNSAFE_TEXT

# An ATX heading's text (after ``#`` to ``######`` and a space or tab, up to three spaces of
# indent) or a code fence (three or more backticks or tildes), one line each. Each match
# starts at the newline before its line: a leading literal lets the regex engine skip to
# each newline (``^`` in multi-line mode tries every position). Setext headings (a line
# underlined with ``===``) are not read: skill bodies rarely use them.
_LINE = re.compile(r"\n {0,3}(?:#{1,6}[ \t]([^\n]*)|(`{3,}|~{3,}))")
_SPACES = re.compile(r"\s+")


def body_headings(body: str, complete: bool = True) -> tuple[str, ...]:
    """The ATX headings of ``body`` outside code fences, in order, each once.

    ``complete`` is False when ``body`` is only the start of the body (a head): then its last
    line may be cut, so it is not read.
    """
    text = body
    if len(body) > MAX_HEADINGS_SCANNED // 4:  # maybe more bytes than read (UTF-8: 1-4 each)
        data = body.encode()
        if len(data) > MAX_HEADINGS_SCANNED:
            # Cut at a line end: the bytes a local scan keeps (see ``frontmatter_prefix``).
            data = data[:MAX_HEADINGS_SCANNED]
            text = data[: data.rfind(b"\n") + 1].decode()
    if not complete:
        text = text[: text.rfind("\n") + 1]
    found: dict[str, None] = {}
    fence = ""
    for heading, marker in _LINE.findall("\n" + text):
        if marker:
            # A fence closes with the same character, at least as long (CommonMark).
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = ""
            continue
        if fence:
            continue
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


__all__ = ["body_headings"]
