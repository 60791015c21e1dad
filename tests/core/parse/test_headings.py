"""The section headings of a skill's body: read from the head discovery has, bounded, and
searched with the rest of the skill."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore import SkillLibrary, search_skills
from skillcore._escaping import is_clean
from skillcore.catalog.terms import FIELD_WEIGHTS
from skillcore.model import Catalog, SkillLocation, SkillMetadata
from skillcore.parse.frontmatter import parse_skill_file
from skillcore.parse.frontmatter_caps import MAX_HEADING_CHARS, MAX_HEADINGS, MAX_HEADINGS_SCANNED
from skillcore.parse.headings import body_headings

BODY = """\
# Astropy

Intro text with a #hashtag and an issue #12.

## Cosmological Distance Calculations ##
    ## indented four spaces: code, not a heading
```python
# a comment in a code block
```
   ### Extract   Tables
~~~~
# inside a tilde fence
~~~
# still inside: the fence needs four tildes to close
~~~~
## C#
#### After the fences
## Astropy
"""


def test_atx_headings_outside_code_fences_in_order_each_once() -> None:
    assert body_headings(BODY) == (
        "Astropy",
        "Cosmological Distance Calculations",
        "Extract Tables",
        "C#",
        "After the fences",
    )


def test_a_cut_head_does_not_read_its_last_line() -> None:
    assert body_headings("# One\n## Two and a cut") == ("One", "Two and a cut")
    assert body_headings("# One\n## Two and a cut", complete=False) == ("One",)


def test_headings_are_bounded_in_number_length_and_text_read() -> None:
    many = "".join(f"## Heading {i}\n" for i in range(MAX_HEADINGS + 10))
    assert len(body_headings(many)) == MAX_HEADINGS
    long = body_headings("# " + "word " * 100 + "\n")
    assert len(long[0]) <= MAX_HEADING_CHARS and long[0].startswith("word word")
    late = "x" * MAX_HEADINGS_SCANNED + "\n# Too late\n"
    assert body_headings("# Early\n" + late) == ("Early",)


def test_control_and_bidi_characters_are_removed() -> None:
    assert body_headings("# Safe\u202e text\x07 here\n") == ("Safe text here",)


@given(st.text(alphabet=st.sampled_from("#` ~\t\r\nab\u202e\x00"), max_size=400), st.booleans())
def test_any_body_gives_bounded_clean_headings(body: str, complete: bool) -> None:
    found = body_headings(body, complete)
    assert len(found) <= MAX_HEADINGS and len(set(found)) == len(found)
    for heading in found:
        assert heading and heading == heading.strip()
        assert len(heading) <= MAX_HEADING_CHARS
        assert is_clean(heading) and "\n" not in heading and "\r" not in heading


@given(st.text(max_size=2_000))
def test_any_text_never_raises(body: str) -> None:
    body_headings(body)
    body_headings(body, complete=False)


def _parse(text: str, complete: bool = True) -> SkillMetadata:
    result = parse_skill_file(
        text.encode(),
        directory_name="astropy",
        location=SkillLocation("s", "astropy", "/s/astropy"),
        path="astropy/SKILL.md",
        complete=complete,
    )
    assert result.metadata is not None, result.diagnostics
    return result.metadata


def test_only_the_body_is_read_not_the_frontmatter() -> None:
    meta = _parse("---\n# a YAML comment\nname: astropy\ndescription: Astronomy.\n---\n# Units\n")
    assert meta.headings == ("Units",)
    assert _parse("---\nname: astropy\ndescription: Astronomy.\n---\n").headings == ()


def test_discovery_keeps_the_headings_and_the_parse_cache_restores_them(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "astropy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: astropy\ndescription: Astronomy in Python.\n---\n"
        "# Astropy\n## Cosmological Distance Calculations\n" + "text\n" * 5_000
    )
    cache = tmp_path / "cache"
    first = SkillLibrary(tmp_path / "skills", cache=cache, head_bytes=4_096).catalog
    meta = first.get("astropy")
    assert meta is not None
    assert meta.headings == ("Astropy", "Cosmological Distance Calculations")
    again = SkillLibrary(tmp_path / "skills", cache=cache, head_bytes=4_096).catalog
    assert again == first and again.get("astropy") == meta


def _skill(name: str, description: str, headings: tuple[str, ...] = ()) -> SkillMetadata:
    return SkillMetadata(
        name, description, SkillLocation("s", name, f"/s/{name}"), headings=headings
    )


@pytest.mark.parametrize("ranker", ["bm25", "auto"])
def test_a_heading_word_finds_its_skill_and_counts_below_the_description(ranker) -> None:
    assert FIELD_WEIGHTS["headings"] < FIELD_WEIGHTS["description"]
    catalog = Catalog(
        (
            _skill("astropy", "Astronomy in Python.", ("Cosmological Distance Calculations",)),
            _skill("cosmology-notes", "Notes on cosmological models and distance ladders."),
            _skill("pdf", "Read and write PDF files.", ("Extract Tables",)),
        )
    )
    hits = search_skills(catalog, "redshift to luminosity: cosmological distance", ranker=ranker)
    assert [h.skill.name for h in hits[:2]] == ["cosmology-notes", "astropy"]
    assert any(r.startswith("headings:") for r in hits[1].reasons)
    first = search_skills(catalog, "extract the tables", ranker=ranker)[0]
    assert first.skill.name == "pdf" and "headings: extract, tables" in first.reasons


_LINES = [
    "# A",
    "## Bé",
    "```",
    "~~~~",
    "text",
    "x" * 1_500,
    "文" * 700,
    "   # c",
    "#d",
    "  ```py",
    "",
]


@given(
    st.lists(st.sampled_from(_LINES), max_size=24).map("\n".join),
    st.booleans(),
    st.integers(0, 12_000),
)
def test_the_head_a_local_scan_keeps_gives_the_same_headings(
    body: str, newline: bool, cut: int
) -> None:
    # The local scan keeps only the frontmatter and reads the headings from the bytes it has;
    # a head may end anywhere, even mid-character.
    from skillcore.sources.local_entry import frontmatter_prefix

    data = ("---\nname: astropy\ndescription: Astronomy.\n---\n" + body).encode()
    data += b"\n" if newline else b""
    head, complete = data[: 40 + cut], 40 + cut >= len(data)
    kept, headings = frontmatter_prefix(head, complete)
    assert _headings_of(kept, complete, headings) == _headings_of(head, complete)


def _headings_of(
    data: bytes, complete: bool, headings: tuple[str, ...] | None = None
) -> tuple[str, ...] | None:
    result = parse_skill_file(
        data,
        directory_name="astropy",
        location=SkillLocation("s", "astropy", "/s/astropy"),
        path="astropy/SKILL.md",
        complete=complete,
        headings=headings,
    )
    return None if result.metadata is None else result.metadata.headings
