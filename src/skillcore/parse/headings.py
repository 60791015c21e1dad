"""The section headings of a skill's body: words a search may match beyond the description.

Skill bodies name what a skill covers in their headings ("Cosmological Distance
Calculations", "Extract Tables", "Red-Green-Refactor"), often in the words users ask with.
They are read from the part of the file discovery already has (no extra read), and bounded:
the first :data:`MAX_HEADINGS_SCANNED` characters of the body, at most :data:`MAX_HEADINGS`
headings of at most :data:`MAX_HEADING_CHARS` characters each.
"""

from __future__ import annotations

import re

from skillcore.parse.caps import MAX_HEADING_CHARS, MAX_HEADINGS, MAX_HEADINGS_SCANNED
from skillcore.parse.values import UNSAFE_TEXT

# An ATX heading (``## Title``, up to three spaces of indent, optional closing ``#``s) or a
# code fence (three or more backticks or tildes), one line each. Setext headings (a line
# underlined with ``===``) are not read: skill bodies rarely use them.
_LINE = re.compile(
    r"^ {0,3}(?:(#{1,6})[ \t]+([^\n]*?)(?:[ \t]+#+)?[ \t\r]*$|(`{3,}|~{3,}))", re.MULTILINE
)
_SPACES = re.compile(r"\s+")


def body_headings(body: str, complete: bool = True) -> tuple[str, ...]:
    """The ATX headings of ``body`` outside code fences, in order, each once.

    ``complete`` is False when ``body`` is only the start of the body (a head): then its last
    line may be cut, so it is not read.
    """
    text = body[:MAX_HEADINGS_SCANNED]
    if not complete or len(body) > MAX_HEADINGS_SCANNED:
        text = text[: text.rfind("\n") + 1]
    found: dict[str, None] = {}
    fence = ""
    for match in _LINE.finditer(text):
        marker = match.group(3)
        if marker is not None:
            # A fence closes with the same character, at least as long (CommonMark).
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = ""
            continue
        if fence:
            continue
        heading = _SPACES.sub(" ", UNSAFE_TEXT.sub("", match.group(2))).strip()
        if heading:
            found.setdefault(heading[:MAX_HEADING_CHARS].rstrip(), None)
            if len(found) >= MAX_HEADINGS:
                break
    return tuple(found)


__all__ = ["body_headings"]
