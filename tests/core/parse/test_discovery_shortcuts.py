"""Discovery's cheaper steps give exactly what the steps they replace give.

- ``parsed_metadata`` (the parser's constructor, which converts only the values given)
  equals ``SkillMetadata(...)`` on any subset of fields, values of any shape (the list
  fields, stored as given, in the shape the parser gives them: tuples of text);
- UTF-8 without a BOM decodes as ``utf-8-sig`` decodes it (text and error offsets);
- the closing line found from its line break equals the multi-line regular expression;
- the length warning, which encodes the frontmatter only for a long file, equals the
  formula that always encodes it;
- a ``FrozenDict`` equals what ``Mapping`` equality says, and a ``Catalog`` compares and
  hashes consistently with its fields.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs
from hypothesis import example, given
from hypothesis import strategies as st

from skillcore._frozen import FrozenDict
from skillcore.model import Catalog, SkillLocation, SkillMetadata, parsed_metadata
from skillcore.parse.context import ParseContext
from skillcore.parse.document import decode_text
from skillcore.parse.frontmatter import _warn_if_long
from skillcore.parse.length import length_problem
from skillcore.sources.local_entry import closing_end

LOC = SkillLocation("s", "a", "/a")

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4))
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=8,
)
_str_seq = st.one_of(
    st.lists(st.text(max_size=4), max_size=3),
    st.lists(st.text(max_size=4), max_size=3).map(tuple),
    st.lists(st.integers(0, 9), max_size=3),
)
_mapping = st.one_of(
    st.dictionaries(st.text(max_size=3), _json, max_size=3),
    st.dictionaries(st.text(max_size=3), _json, max_size=3).map(FrozenDict),
    st.just({}),
)
#: What the parser gives for the list fields ``parsed_metadata`` stores as given.
_text_tuple = st.lists(st.text(max_size=4), max_size=3).map(tuple)
_FIELDS: dict[str, Any] = {
    "license": st.one_of(st.none(), st.text(max_size=5)),
    "compatibility": st.one_of(st.none(), st.text(max_size=5)),
    "metadata": _mapping,
    "allowed_tools": st.one_of(st.none(), _text_tuple),
    "version": st.one_of(st.none(), st.text(max_size=5)),
    "triggers": _text_tuple,
    "file_patterns": _text_tuple,
    "priority": st.integers(-5, 5),
    "dependencies": _text_tuple,
    "disable_model_invocation": st.booleans(),
    "user_invocable": st.booleans(),
    "argument_hint": st.one_of(st.none(), st.text(max_size=5)),
    "hooks": _mapping,
    "extra": _mapping,
    "stamp": st.text(max_size=5),
    "headings": _str_seq,
}


@st.composite
def _kwargs(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(sorted(_FIELDS)), unique=True, max_size=len(_FIELDS)))
    return {name: draw(_FIELDS[name]) for name in names}


@given(_kwargs())
@example({})
@example({"metadata": FrozenDict(), "extra": {}, "headings": ()})
def test_parsed_metadata_is_skill_metadata(kwargs: dict[str, Any]) -> None:
    made = parsed_metadata(name="n", description="d", location=LOC, **kwargs)
    reference = SkillMetadata(name="n", description="d", location=LOC, **kwargs)
    assert made == reference
    assert hash(made) == hash(reference)
    for field in attrs.fields(SkillMetadata):
        assert type(getattr(made, field.name)) is type(getattr(reference, field.name))


def _old_decode(data: bytes) -> tuple[str | None, object, str]:
    """``decode_text`` as it was: always the ``utf-8-sig`` codec."""
    if data.find(b"\x00", 0, 8192) != -1:
        return decode_text(data)  # the NUL check is unchanged
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            text = data[: exc.start].decode("utf-8-sig")
        else:
            line = data[: exc.start].count(b"\n") + 1
            return None, "DECODE_ERROR", f"{exc.start} {line} {exc.reason}"
    return text, None, ""


_BYTES = st.lists(
    st.sampled_from([b"a", b"\n", b"\xef\xbb\xbf", b"\xc3\xa9", b"\xc3", b"\xff", b"\xe6\x97"]),
    max_size=12,
).map(b"".join)


@given(_BYTES)
@example(b"\xef\xbb\xbf\xff")
@example(b"a\xe6\x97")
def test_decoding_without_a_bom_is_the_sig_codec(data: bytes) -> None:
    text, code, message = decode_text(data)
    old_text, old_code, old_message = _old_decode(data)
    assert text == old_text
    if code is not None:
        assert old_code == "DECODE_ERROR"
        start, line, reason = old_message.split(" ", 2)
        assert f"at byte {start} (line {line}): {reason};" in message


_CLOSING = re.compile(rb"^(?:---|\.\.\.)[ \t\r]*\n", re.M)


@given(st.lists(st.sampled_from([b"---", b"...", b"\n", b" ", b"\t", b"\r", b"x", b"-"])))
@example([b"---", b"\n", b"---", b"\n"])
def test_the_closing_line_from_its_line_break_is_the_regular_expression(parts: list[bytes]) -> None:
    head = b"".join(parts)
    first = head.find(b"\n")
    m = None if first == -1 else _CLOSING.search(head, first + 1)
    assert closing_end(head) == (-1 if m is None else m.end())


@given(
    st.text(alphabet="ab\né", max_size=40),
    st.integers(0, 40),
    st.one_of(st.none(), st.integers(0, 30_000)),
    st.booleans(),
)
def test_the_length_warning_is_the_formula(
    text: str, offset: int, size: int | None, complete: bool
) -> None:
    data = text.encode()
    ctx = ParseContext(LOC, "a/SKILL.md", "lenient")  # type: ignore[arg-type]
    ctx.body_offset = offset
    _warn_if_long(ctx, data, text, complete, size)
    whole = complete and (size is None or size == len(data))
    total = len(data) if size is None and complete else size
    expected = length_problem(
        None if total is None else total - len(text[:offset].encode()),
        text.count("\n", offset) + 1 if whole else None,
    )
    assert [d.message for d in ctx.diags] == ([] if expected is None else [expected])


_maps = st.dictionaries(st.text(max_size=2), _json, max_size=3)


@given(_maps, _maps, st.sampled_from(["frozen", "dict", "other"]))
def test_frozendict_equality_is_mapping_equality(
    a: dict[str, Any], b: dict[str, Any], kind: str
) -> None:
    left = FrozenDict(a)
    right: Any = FrozenDict(b) if kind == "frozen" else b if kind == "dict" else _Plain(b)
    assert (left == right) is Mapping.__eq__(left, right)
    assert (left == right) is (right == left)
    if left == right and kind == "frozen":
        assert hash(left) == hash(right)


class _Plain(Mapping[str, Any]):
    def __init__(self, data: dict[str, Any]) -> None:
        self._d = data

    def __getitem__(self, key: str) -> Any:
        return self._d[key]

    def __iter__(self) -> Any:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)


_skills = st.lists(
    st.builds(
        lambda n, d, s, m: SkillMetadata(name=n, description=d, location=LOC, stamp=s, metadata=m),
        st.sampled_from(["a", "b"]),
        st.sampled_from(["d", "e"]),
        st.sampled_from(["", "1"]),
        st.sampled_from([{}, {"k": "v"}]),
    ),
    max_size=2,
    unique_by=lambda s: s.name,
)


@given(_skills, _skills, st.booleans())
def test_catalog_equality_and_hash_follow_its_fields(
    a: list[SkillMetadata], b: list[SkillMetadata], same_fingerprint: bool
) -> None:
    left = Catalog(tuple(a))
    right = Catalog(tuple(b), fingerprint=left.fingerprint) if same_fingerprint else Catalog(b)
    fields = (left.skills, left.diagnostics, left.fingerprint)
    assert (left == right) is (fields == (right.skills, right.diagnostics, right.fingerprint))
    if left == right:
        assert hash(left) == hash(right)
    assert left == attrs.evolve(left)
    assert left != object()
