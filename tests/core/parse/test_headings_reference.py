"""The heading reader equals a plain line-by-line reading of the same rule on any body, and
the headings a local scan reads from its bytes equal the parser's reading of the whole head."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillcore.model import SkillLocation
from skillcore.parse.frontmatter import parse_skill_file
from skillcore.parse.frontmatter_caps import MAX_HEADING_CHARS, MAX_HEADINGS, MAX_HEADINGS_SCANNED
from skillcore.parse.headings import body_headings
from skillcore.parse.values import UNSAFE_TEXT
from skillcore.sources.local_entry import frontmatter_prefix

# The rule, one line at a time: a heading (``#`` to ``######`` and a blank, up to three
# spaces of indent) or a fence run (three or more backticks or tildes, same indent).
_LINE = re.compile(r" {0,3}(?:#{1,6}[ \t]([^\n]*)|(`{3,}|~{3,}))")


def reference(body: str, complete: bool = True) -> tuple[str, ...]:
    data = body.encode()
    if len(data) > MAX_HEADINGS_SCANNED:
        data = data[:MAX_HEADINGS_SCANNED]
        body = data[: data.rfind(b"\n") + 1].decode()
    if not complete:
        body = body[: body.rfind("\n") + 1]
    found: dict[str, None] = {}
    fence = ""
    for line in body.split("\n"):
        m = _LINE.match(line)
        if m is None:
            continue
        heading, marker = m.groups()
        if marker:
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = ""
            continue
        if fence:
            continue
        heading = heading.strip(" \t\r")
        if heading.endswith("#"):
            bare = heading.rstrip("#")
            if not bare or bare[-1] in " \t":
                heading = bare.rstrip(" \t")
        heading = re.sub(r"\s+", " ", UNSAFE_TEXT.sub("", heading)).strip()
        if heading:
            found.setdefault(heading[:MAX_HEADING_CHARS].rstrip(), None)
            if len(found) >= MAX_HEADINGS:
                break
    return tuple(found)


_HOSTILE = [
    "# A",
    "## B ##",
    "### C#",
    "  # D",
    "    # four spaces: code",
    "\t# tab: not a heading",
    "#no space",
    "####### seven",
    "#\tTab",
    "# ",
    "# #",
    "#  ##  ",
    "# Foo # #",
    "## a  b",
    "# bell\x07",
    "# \u202eflip",
    "# é文",
    "# z\u3000",
    "# cr\r",
    "# " + "w" * 130,
    "x" * 1_500,
    "文" * 700,
    "```",
    "````",
    "```py",
    " ```",
    "   ~~~",
    "~~~~",
    "``",
    "~~",
    "``` # after a fence run",
    "text ``` mid-line",
    "# dup",
    "# dup",
    "",
    "\r",
]
_LINE_TEXT = st.one_of(
    st.sampled_from(_HOSTILE), st.text(alphabet="#`~ \t\r\x00ab\u00e9\u202e", max_size=12)
)


@settings(max_examples=400)
@given(st.lists(_LINE_TEXT, max_size=40), st.sampled_from(["\n", "\r\n"]), st.booleans())
@example(["```", "# in", "````", "# still in", "```", "# out"], "\n", True)
@example(["~~~", "# in", "```", "# in", "~~~~", "# out ##"], "\r\n", False)
def test_body_headings_equal_the_line_by_line_reading(
    lines: list[str], newline: str, complete: bool
) -> None:
    body = newline.join(lines)
    assert body_headings(body, complete) == reference(body, complete)


_FRONTMATTERS = [
    b"---\nname: a\ndescription: d\n---\n",
    b"---\r\nname: a\r\ndescription: d\r\n---\r\n",
    b"---\nname: a\ndescription: d\n... \t\n",
    b"---\nname: a\rdescription: d\r---\n",
    b"---\r---\nname: a\n---\n",
    b"---\nname: a\ndescription: d\n---",
]


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(_LINE_TEXT.map(str.encode), st.sampled_from([b"\xff", b"\xc3"])), max_size=40
    ),
    st.integers(0, 3_000),
    st.integers(0, 8_000),
    st.booleans(),
    st.sampled_from(_FRONTMATTERS),
)
def test_the_scan_reads_the_headings_the_parser_reads_from_the_whole_head(
    lines: list[bytes], pad: int, cut: int, newline: bool, frontmatter: bytes
) -> None:
    body = (b"x" * pad + b"\n" if pad else b"") + b"\n".join(lines) + (b"\n" if newline else b"")
    data = frontmatter + body
    head = data[: 30 + cut]
    complete = len(head) == len(data)
    loc = SkillLocation("s", "a", "/a")

    def parse(data: bytes, headings: tuple[str, ...] | None = None) -> object:
        return parse_skill_file(
            data,
            directory_name="a",
            location=loc,
            path="a/SKILL.md",
            complete=complete,
            headings=headings,
        )

    assert parse(*frontmatter_prefix(head, complete)) == parse(head)


@given(st.sampled_from([b"\r", b"\r\n", b"\n"]), st.booleans())
def test_a_lone_cr_in_the_frontmatter_gives_the_same_headings(end: bytes, complete: bool) -> None:
    # The parser reads a lone CR as a line break: the frontmatter may close earlier than a
    # scan of the bytes finds.
    head = b"---\nname: a\ndescription: d" + end + b"---\n# H1\n---\n# H2\n"
    loc = SkillLocation("s", "a", "/a")

    def parse(data: bytes, headings: tuple[str, ...] | None = None) -> object:
        return parse_skill_file(
            data,
            directory_name="a",
            location=loc,
            path="a/SKILL.md",
            complete=complete,
            headings=headings,
        )

    assert parse(*frontmatter_prefix(head, complete)) == parse(head)
