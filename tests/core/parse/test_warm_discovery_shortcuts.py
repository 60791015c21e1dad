"""A warm discovery's cheaper steps give exactly what the general steps give.

- the parser's metadata (its mappings handed over without a copy, no empty ``extra``
  given, the ``FrozenDict`` check made without calling ``to_frozen``, the list fields
  stored as given) equals what ``SkillMetadata(...)`` makes of the same fields, types
  included, on generated and hostile frontmatter;
- ``read_fd``'s single read equals the read loop on any chunking of the file;
- ``adopt`` equals ``FrozenDict``; ``scan_entry`` and ``parse_result`` equal the classes'
  own constructors;
- the skills with ``paths``, found from the dicts behind ``extra``, are the ones the
  mappings themselves name.
"""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

import attrs
from hypothesis import example, given
from hypothesis import strategies as st
from tests.core.parse.test_fast_frontmatter import frontmatters

from skillcore._frozen import FrozenDict, adopt, dicts_of
from skillcore.model import Catalog, SkillLocation, SkillMetadata
from skillcore.parse.context import ParseResult, ValidationMode, parse_result
from skillcore.parse.frontmatter import parse_skill_file
from skillcore.policy.skill_options import PATHS_KEYS, skill_options
from skillcore.sources.cursor import read_fd
from skillcore.sources.scan import ScanEntry, scan_entry
from skillcore.state.overrides import _find_path_skills

LOC = SkillLocation("s", "a", "/a")

_values = st.sampled_from(
    [
        "x",
        "a, b",
        "[a, 1]",
        "[]",
        "{}",
        "{k: v}",
        "{k: [1, {z: 2}]}",
        "1",
        "true",
        "null",
        "''",
        "'  '",
        '"\\u200b x"',
        '"a\\x07b"',
        "\n  - a\n  - 2\n  - ''",
        "\n  k: v\n  version: 1.2\n  triggers: a, b\n  priority: '3'",
        "\n  k: 1\n  j: [x]",
        "Bash(git:*) Read",
        "'" + "y" * 600 + "'",
    ]
)
_keys = st.sampled_from(
    [
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "allowed_tools",
        "version",
        "triggers",
        "file_patterns",
        "dependencies",
        "priority",
        "user-invocable",
        "disable-model-invocation",
        "argument-hint",
        "hooks",
        "paths",
        "x-extra",
        "context",
    ]
)


@st.composite
def _skill_files(draw: st.DrawFn) -> bytes:
    fields = draw(st.dictionaries(_keys, _values, max_size=6))
    lines = "".join(f"{k}: {v}\n" for k, v in fields.items())
    tail = draw(st.one_of(st.just(""), frontmatters()))
    body = draw(st.sampled_from(["", "# Title\n\n## Part\ntext\n", "text"]))
    return f"---\nname: a\ndescription: d\n{lines}{tail}---\n{body}".encode(
        "utf-8", "surrogatepass"
    )


def _same_shape(a: Any, b: Any) -> None:
    """Equal, and of the same types all the way down."""
    assert type(a) is type(b)
    if isinstance(a, FrozenDict):
        assert list(a.items()) == list(b.items())
        for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True):
            _same_shape(ka, kb)
            _same_shape(va, vb)
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same_shape(x, y)
    else:
        assert a == b


@given(_skill_files(), st.sampled_from(["lenient", "strict"]))
@example(b"---\nname: a\ndescription: d\n---\n", "lenient")
@example(b"---\nname: a\ndescription: d\nmetadata:\n  k: v\nx: [1, {y: 2}]\n---\n", "lenient")
def test_parsed_metadata_is_what_the_constructor_makes_of_it(data: bytes, mode: str) -> None:
    result = parse_skill_file(
        data, directory_name="a", location=LOC, path="a/SKILL.md", mode=ValidationMode(mode)
    )
    meta = result.metadata
    if meta is None:
        return
    fields = {f.name: getattr(meta, f.name) for f in attrs.fields(SkillMetadata)}
    reference = SkillMetadata(**fields)
    assert meta == reference
    assert hash(meta) == hash(reference)
    for name, value in fields.items():
        _same_shape(value, getattr(reference, name))
    assert type(meta.metadata._data) is dict
    assert all(type(k) is str and type(v) is str for k, v in meta.metadata.items())


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=6,
)


@given(st.dictionaries(st.text(max_size=3), _json, max_size=4))
def test_adopt_is_frozendict(data: dict[str, Any]) -> None:
    copy = dict(data)
    adopted, made = adopt(copy), FrozenDict(data)
    assert adopted == made
    assert made == adopted
    assert list(adopted.items()) == list(made.items())
    assert type(adopted) is FrozenDict
    assert list(dicts_of([adopted, made])) == [data, data]
    try:
        assert hash(adopted) == hash(made)
    except TypeError:  # unhashable values: both refuse alike
        try:
            hash(made)
        except TypeError:
            pass
        else:
            raise


@given(
    st.text(max_size=3),
    st.text(max_size=3),
    st.text(max_size=3),
    st.one_of(st.none(), st.binary(max_size=4)),
    st.dictionaries(
        st.sampled_from(["complete", "error", "size", "headings", "agents"]),
        st.one_of(st.none(), st.booleans(), st.integers(0, 9), st.just(("h",))),
    ),
)
def test_scan_entry_is_the_constructor(
    directory: str, dir_name: str, stamp: str, head: bytes | None, kw: dict[str, Any]
) -> None:
    made = scan_entry(directory, dir_name, stamp, head, **kw)
    reference = ScanEntry(directory, dir_name, stamp, head, **kw)
    assert made == reference
    for f in attrs.fields(ScanEntry):
        assert getattr(made, f.name) is getattr(reference, f.name)


@given(
    st.one_of(st.none(), st.just(SkillMetadata("n", "d", LOC))),
    st.dictionaries(
        st.sampled_from(["diagnostics", "need_more", "body_offset"]),
        st.one_of(st.just(()), st.booleans(), st.integers(0, 9)),
    ),
)
def test_parse_result_is_the_constructor(meta: SkillMetadata | None, kw: dict[str, Any]) -> None:
    made = parse_result(meta, **kw)
    assert made == ParseResult(meta, **kw)
    assert hash(made) == hash(ParseResult(meta, **kw))


_extra = st.dictionaries(
    st.sampled_from(["paths", "Paths", "path", "x", "paths "]),
    st.one_of(st.none(), st.text(max_size=4), st.lists(st.text(max_size=4), max_size=2)),
    max_size=3,
)


@given(st.lists(st.tuples(_extra, st.booleans()), max_size=6))
def test_path_skills_from_the_dicts_are_the_mappings_answer(
    skills: list[tuple[dict[str, Any], bool]],
) -> None:
    metas = tuple(
        SkillMetadata(f"s{i}", "d", LOC, extra=extra, disable_model_invocation=hidden)
        for i, (extra, hidden) in enumerate(skills)
    )
    catalog = Catalog(metas)
    general = tuple(
        (m.name, skill_options(m).paths or ())
        for m in catalog.model_visible
        if m.extra and any(k in m.extra for k in PATHS_KEYS)
    )
    assert _find_path_skills(catalog) == general


def _loop_read(read: Any, limit: int, size: int | None) -> bytes:
    """``read_fd`` as it was: the read loop alone."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = read(min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
        if size is not None and limit - left >= size:
            break
    return b"".join(chunks)


def _reader(data: bytes, cuts: list[int]) -> Any:
    """``os.read`` of a file holding ``data`` whose reads return at most ``cuts[i]`` bytes."""
    state = {"at": 0, "i": 0}

    def read(n: int) -> bytes:
        cut = cuts[state["i"] % len(cuts)] if cuts else n
        state["i"] += 1
        part = data[state["at"] : state["at"] + min(n, cut)]
        state["at"] += len(part)
        return part

    return read


@given(
    st.binary(max_size=40),
    st.lists(st.integers(1, 12), max_size=4),
    st.integers(0, 50),
    st.one_of(st.none(), st.integers(0, 50)),
)
@example(b"abc", [], 3, 3)
@example(b"abc", [1], 0, None)
@example(b"abcdef", [2], 5, 3)
def test_read_fd_is_the_read_loop(
    data: bytes, cuts: list[int], limit: int, size: int | None
) -> None:
    reference = _loop_read(_reader(data, cuts), limit, size)
    read = _reader(data, cuts)
    with (
        mock.patch.object(os, "read", lambda fd, n: read(n)),
        mock.patch.object(os, "close", lambda fd: None),
    ):
        assert read_fd(7, limit, size) == reference
