"""The well-known index parser, fuzzed: any bytes and any JSON shape give usable entries and
per-entry problems, or one IndexFormatError; never another exception, never a bad entry."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore.parse import ValidationMode, check_name
from skillcore.sources.wellknown_index import (
    KNOWN_SCHEMAS,
    MAX_DESCRIPTION,
    IndexFormatError,
    ParsedIndex,
    parse_index,
)

_DIGEST = "sha256:" + "ab" * 32
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_NAMES = st.sampled_from(["code-review", "a", "Upper", "../x", "a--b", "-a", "", "x" * 65, "ok-1"])
_ENTRY = st.fixed_dictionaries(
    {},
    optional={
        "name": _NAMES | _JSON,
        "type": st.sampled_from(["skill-md", "archive", "plugin"]) | _JSON,
        "description": st.text(max_size=30) | st.just("d" * (MAX_DESCRIPTION + 1)) | _JSON,
        "url": st.sampled_from(["/a/SKILL.md", "b.tar.gz", "https://cdn/x", "", "a b"]) | _JSON,
        "digest": st.sampled_from([_DIGEST, _DIGEST.upper(), "sha256:1", "md5:x"]) | _JSON,
        "extra": _JSON,
    },
)
_INDEX = st.fixed_dictionaries(
    {"skills": st.lists(_ENTRY | _JSON, max_size=8) | _JSON},
    optional={"$schema": st.sampled_from([*KNOWN_SCHEMAS, "x"]) | _JSON},
)


def _check(parsed: ParsedIndex, max_entries: int) -> None:
    names = [e.name for e in parsed.entries]
    assert len(names) == len(set(names)) <= max_entries
    for e in parsed.entries:
        assert check_name(e.name, ValidationMode.STRICT) == (True, None)
        assert e.kind in ("skill-md", "archive")
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", e.digest)
        assert e.url and len(e.description) <= MAX_DESCRIPTION
    for p in parsed.problems:
        assert p.message.startswith("skipped: ") and p.message.isprintable()


def _parse(data: bytes, max_entries: int = 5) -> None:
    try:
        parsed = parse_index(data, max_entries)
    except IndexFormatError as exc:
        assert str(exc)
        return
    _check(parsed, max_entries)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes(data: bytes) -> None:
    _parse(data)


@settings(max_examples=300, deadline=None)
@given(_INDEX)
def test_any_index_shape(doc: dict[str, Any]) -> None:
    _parse(json.dumps(doc).encode())


@settings(max_examples=200, deadline=None)
@given(st.lists(_ENTRY, max_size=10), st.integers(min_value=0, max_value=10))
def test_every_entry_is_accounted_for(entries: list[dict[str, Any]], cap: int) -> None:
    doc = {"$schema": KNOWN_SCHEMAS[0], "skills": entries}
    parsed = parse_index(json.dumps(doc).encode(), cap)
    _check(parsed, cap)
    examined = min(cap, len(entries))
    assert len(parsed.entries) + len(parsed.problems) == examined
    assert parsed.omitted == len(entries) - examined


def test_a_valid_entry_and_unknown_fields() -> None:
    doc = {
        "$schema": KNOWN_SCHEMAS[0],
        "future": 1,
        "skills": [
            {
                "name": "code-review",
                "type": "skill-md",
                "description": "Review code.",
                "url": "/.well-known/agent-skills/code-review/SKILL.md",
                "digest": _DIGEST,
                "future": {"x": 1},
            }
        ],
    }
    parsed = parse_index(json.dumps(doc).encode(), 10)
    assert [e.name for e in parsed.entries] == ["code-review"] and parsed.problems == ()


@pytest.mark.parametrize("body", [b"NaN", b'{"a": Infinity}', b"[" * 50_000])
def test_not_json_at_all(body: bytes) -> None:
    with pytest.raises(IndexFormatError):
        parse_index(body, 10)
