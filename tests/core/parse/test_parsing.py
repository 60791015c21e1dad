"""Unit tests of the pure parser: ``parse_skill_file`` and its helpers (no I/O)."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import Code, Severity, SkillLocation, ValidationMode, parse_skill_file
from skillcore.parse.allowed_tools import parse_allowed_tools
from skillcore.parse.context import ParseResult
from skillcore.parse.document import body_of, decode_text, split_frontmatter
from skillcore.parse.frontmatter_caps import MAX_NESTING
from skillcore.parse.name_field import check_name
from skillcore.parse.nesting import _event_depth
from skillcore.parse.nesting import too_deep as _too_deep

LOC = SkillLocation("src", "demo", "/skills/demo")


def parse(
    text: str | bytes,
    mode: ValidationMode = ValidationMode.LENIENT,
    *,
    directory: str = "demo",
    complete: bool = True,
) -> ParseResult:
    data = text.encode() if isinstance(text, str) else text
    return parse_skill_file(
        data,
        directory_name=directory,
        location=LOC,
        path="demo/SKILL.md",
        mode=mode,
        complete=complete,
        stamp="s1",
    )


def fm(body: str) -> str:
    return f"---\n{body}---\n# Title\n"


def codes(result: ParseResult) -> list[tuple[Severity, Code, str | None]]:
    return [(d.severity, d.code, d.field) for d in result.diagnostics]


# -- allowed-tools -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_value", "expected"),
    [
        ("Bash(git log:*) Read Write", ("Bash(git log:*)", "Read", "Write")),
        (
            "Bash(git add:*)  Bash(git commit:*)\tGrep",
            ("Bash(git add:*)", "Bash(git commit:*)", "Grep"),
        ),
        ("[Read, 'Bash(git:*)', mcp__github__*]", ("Read", "Bash(git:*)", "mcp__github__*")),
        ("Read, Write, Bash(git add, git commit)", ("Read", "Write", "Bash(git add, git commit)")),
        ("Read,Write", ("Read", "Write")),
        ("''", ()),
        ("[]", ()),
    ],
)
def test_allowed_tools_forms(yaml_value: str, expected: tuple[str, ...]) -> None:
    result = parse(fm(f"name: demo\ndescription: d\nallowed-tools: {yaml_value}\n"))
    assert result.metadata is not None
    assert result.metadata.allowed_tools == expected
    assert result.metadata.declares_allowed_tools
    assert result.diagnostics == ()


def test_allowed_tools_absent_is_none() -> None:
    meta = parse(fm("name: demo\ndescription: d\n")).metadata
    assert meta is not None
    assert meta.allowed_tools is None and not meta.declares_allowed_tools


def test_allowed_tools_block_list_with_quoted_pattern() -> None:
    text = fm("name: demo\ndescription: d\nallowed-tools:\n  - Read\n  - 'Bash(git log:*)'\n")
    assert parse(text).metadata.allowed_tools == ("Read", "Bash(git log:*)")


def test_allowed_tools_wrong_type_fails_closed_with_diagnostic() -> None:
    result = parse(fm("name: demo\ndescription: d\nallowed-tools: 42\n"))
    assert result.metadata is not None and result.metadata.allowed_tools == ()
    assert codes(result) == [(Severity.WARNING, Code.INVALID_TYPE, "allowed-tools")]
    assert "must be a string or a list of strings, got number" in result.diagnostics[0].message
    strict = parse(fm("name: demo\ndescription: d\nallowed-tools: 42\n"), ValidationMode.STRICT)
    assert strict.metadata is None


def test_parse_allowed_tools_direct() -> None:
    assert parse_allowed_tools(None) is None
    assert parse_allowed_tools(["Read", " ", " Write "]) == ("Read", "Write")
    with pytest.raises(TypeError, match="a list containing a number"):
        parse_allowed_tools(["Read", 3])
    with pytest.raises(TypeError):
        parse_allowed_tools({"a": 1})


def test_allowed_tools_underscore_key_is_accepted() -> None:
    meta = parse(fm("name: demo\ndescription: d\nallowed_tools: Read\n")).metadata
    assert meta.allowed_tools == ("Read",)


# -- fields ----------------------------------------------------------------------------------


def test_full_frontmatter() -> None:
    text = fm(
        "name: demo\n"
        "description: >\n  Folded   description\n  over lines.\n"
        "license: MIT\n"
        "compatibility: Python 3.10+\n"
        "metadata:\n  author: me\n  version: 2\n"
        "version: 1.5\n"
        "triggers: [csv, data]\n"
        "file-patterns: '*.csv, *.tsv'\n"
        "priority: 3\n"
        "dependencies: [other]\n"
        "disable-model-invocation: false\n"
        "user-invocable: true\n"
        "argument-hint: 2024-05-01\n"
        "x-released: 2024-05-01\n"
    )
    result = parse(text)
    meta = result.metadata
    assert meta is not None
    assert meta.description == "Folded   description over lines.\n"  # as YAML folds it
    assert (meta.license, meta.compatibility, meta.version) == ("MIT", "Python 3.10+", "1.5")
    assert dict(meta.metadata) == {"author": "me", "version": "2"}
    assert meta.triggers == ("csv", "data")
    assert meta.file_patterns == ("*.csv", "*.tsv")
    assert meta.priority == 3 and meta.dependencies == ("other",)
    assert meta.argument_hint == "2024-05-01"
    assert dict(meta.extra) == {"x-released": "2024-05-01"}  # dates become ISO text
    assert meta.stamp == "s1" and meta.location == LOC
    # Only the non-string values are reported: the metadata value and the unquoted version.
    assert codes(result) == [
        (Severity.WARNING, Code.INVALID_TYPE, "metadata"),
        (Severity.WARNING, Code.INVALID_TYPE, "version"),
    ]


def test_strict_mode_flags_unknown_and_extension_fields() -> None:
    text = fm("name: demo\ndescription: d\ntriggers: [a]\nx-custom: 1\n")
    result = parse(text, ValidationMode.STRICT)
    assert result.metadata is None  # an unknown field is an error, as in the reference
    assert codes(result) == [
        (Severity.ERROR, Code.UNKNOWN_FIELD, "x-custom"),
        (Severity.INFO, Code.UNKNOWN_FIELD, "triggers"),  # a known extension: information
    ]
    assert "is not part of the Agent Skills spec" in result.diagnostics[0].message
    lenient = parse(text)
    assert lenient.diagnostics == ()  # lenient: silent, and the field is kept
    assert dict(lenient.metadata.extra) == {"x-custom": 1}
    extension_only = parse(fm("name: demo\ndescription: d\ntriggers: [a]\n"), ValidationMode.STRICT)
    assert extension_only.metadata is not None


@pytest.mark.parametrize(
    ("line", "field", "fragment"),
    [
        ("priority: high", "priority", "'priority' must be an integer, got str"),
        ("priority: true", "priority", "got boolean"),
        ("disable-model-invocation: maybe", "disable-model-invocation", "true or false"),
        ("version: [1, 2]", "version", "'version' must be a string"),
        ("triggers: {a: b}", "triggers", "list of strings"),
        ("metadata: [a]", "metadata", "must be a mapping, got list"),
        ("license: 3", "license", "'license' must be a string, got number"),
    ],
)
def test_bad_optional_fields_warn_lenient_skip_strict(line: str, field: str, fragment: str) -> None:
    text = fm(f"name: demo\ndescription: d\n{line}\n")
    lenient = parse(text)
    assert lenient.metadata is not None
    assert codes(lenient) == [(Severity.WARNING, Code.INVALID_TYPE, field)]
    assert fragment in lenient.diagnostics[0].message
    strict = parse(text, ValidationMode.STRICT)
    assert strict.metadata is None
    assert (Severity.ERROR, Code.INVALID_TYPE, field) in codes(strict)


def test_non_string_key_is_ignored() -> None:
    result = parse(fm("name: demo\ndescription: d\n1: one\n"))
    assert result.metadata is not None
    assert codes(result) == [(Severity.WARNING, Code.INVALID_TYPE, None)]


def test_disable_model_invocation() -> None:
    meta = parse(fm("name: demo\ndescription: d\ndisable-model-invocation: true\n")).metadata
    assert meta.disable_model_invocation is True


def test_name_is_stripped() -> None:
    assert parse(fm("name: '  demo  '\ndescription: d\n")).metadata.name == "demo"


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "usable", "problem"),
    [
        ("pdf-tools", True, None),
        ("a1-b2-c3", True, None),
        ("PDF", True, "lowercase"),
        ("a--b", True, "single hyphens"),
        ("-a", True, "starting or ending"),
        ("café", True, "lowercase"),
        ("a" * 65, True, "65 characters long"),
        ("a" * 129, False, "characters long (at most 128"),
        ("", False, "empty"),
        ("a b", False, "whitespace"),
        ("a/b", False, "'/'"),
        ("x\u2028y", False, "whitespace"),  # a Unicode line separator must not reach a prompt
    ],
)
def test_check_name(name: str, usable: bool, problem: str | None) -> None:
    ok, msg = check_name(name, ValidationMode.STRICT)
    assert ok is usable
    if problem is None:
        assert msg is None
    else:
        assert msg is not None and problem in msg


# -- frontmatter splitting and decoding --------------------------------------------------------


def test_split_frontmatter() -> None:
    assert split_frontmatter("---\na: 1\n---\nbody") == ("a: 1\n", 13, True)
    assert split_frontmatter("---\na: 1\n...\nbody")[2] is True
    assert split_frontmatter("---\na: 1\n") == ("a: 1\n", 9, False)
    assert split_frontmatter("# no") == (None, 0, False)
    assert split_frontmatter("----\na: 1\n---\n") == (None, 0, False)
    assert split_frontmatter("---") == (None, 0, False)


def test_body_of() -> None:
    assert body_of("---\nname: a\n---\n\n# Body\n\n") == "# Body"
    assert body_of("no frontmatter") == "no frontmatter"


def test_decode_text_head_cut_inside_a_character() -> None:
    data = "é".encode() * 3
    text, err, _ = decode_text(data[:-1])  # a head cut in the middle of the last 'é'
    assert (text, err) == ("éé", None)


def test_decode_text_errors() -> None:
    assert decode_text(b"ok\x00")[1] is Code.BINARY_FILE
    text, err, msg = decode_text(b"a\nb\n\xff rest")
    assert text is None and err is Code.DECODE_ERROR
    assert "byte 4 (line 3)" in msg


def test_need_more_when_head_ends_inside_frontmatter() -> None:
    head = "---\nname: demo\ndescription: d\nx: " + "y" * 100
    result = parse(head, complete=False)
    assert result.need_more and result.metadata is None and result.diagnostics == ()
    done = parse(head, complete=True)
    assert codes(done) == [(Severity.ERROR, Code.UNTERMINATED_FRONTMATTER, None)]


def test_body_offset_points_at_the_body() -> None:
    text = fm("name: demo\ndescription: d\n")
    result = parse(text)
    assert text[result.body_offset :] == "# Title\n"


def test_yaml_error_message_has_file_line_numbers() -> None:
    result = parse("---\nname: demo\ndescription: d\nbad: [\n---\n")
    (diag,) = result.diagnostics
    assert diag.code is Code.YAML_ERROR
    assert "(line 5, column 1)" in diag.message  # line 5 of the file, not of the YAML


def test_colon_fallback_keeps_quotes_and_backslashes() -> None:
    text = fm('name: demo\ndescription: Say "hi": C:\\path here\n')
    result = parse(text)
    assert result.metadata.description == 'Say "hi": C:\\path here'
    assert codes(result) == [(Severity.WARNING, Code.YAML_FALLBACK, None)]


def test_colon_fallback_does_not_hide_other_errors() -> None:
    result = parse(fm("name: demo\ndescription: a: b\nx: [unclosed\n"))
    assert result.metadata is None
    assert codes(result) == [(Severity.ERROR, Code.YAML_ERROR, None)]


# -- nesting bound -------------------------------------------------------------------------------


def test_exact_depth_counts_structure_not_text() -> None:
    assert _event_depth("a: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['\n", 100) == 1
    assert _event_depth("a: [[[1]]]\n", 100) == 4
    assert _event_depth("a: [[[", 100) == 4  # depth reached before the syntax error


def test_brackets_inside_strings_are_not_nesting() -> None:
    # Many brackets, all inside a string: the cheap check is unsure, the exact one clears it.
    text = "name: demo\ndescription: d\nx: '" + "[" * 200 + "'\n"
    assert not _too_deep(text)
    assert parse(fm(text)).metadata is not None


def test_depth_limit_boundary() -> None:
    inner = MAX_NESTING - 1  # plus the top-level mapping
    ok = "x: " + "[" * inner + "]" * inner + "\n"
    deep = "x: " + "[" * (inner + 1) + "]" * (inner + 1) + "\n"
    assert not _too_deep(ok)
    assert _too_deep(deep)
    assert parse(fm("name: demo\ndescription: d\n" + ok)).metadata is not None
    assert codes(parse(fm("name: demo\ndescription: d\n" + deep))) == [
        (Severity.ERROR, Code.YAML_TOO_COMPLEX, None)
    ]


# -- never raises ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.binary(max_size=400),
        st.builds(
            lambda a, b: f"---\n{a}\n---\n{b}".encode(),
            st.text(alphabet=st.sampled_from(list("ab:-[]{}'\"&*!|>?#,\n \té")), max_size=200),
            st.text(max_size=20),
        ),
    ),
    st.sampled_from(list(ValidationMode)),
)
def test_parse_never_raises(data: bytes, mode: ValidationMode) -> None:
    result = parse(data, mode)
    assert isinstance(result, ParseResult)
    if result.metadata is None and not result.need_more:
        assert any(d.severity is Severity.ERROR for d in result.diagnostics)
    if result.metadata is not None:
        assert not any(d.severity is Severity.ERROR for d in result.diagnostics)
        assert result.metadata.description


def test_dates_and_times_in_extra_are_json_native() -> None:
    meta = parse(fm("name: demo\ndescription: d\nwhen: 2024-01-02 03:04:05\n")).metadata
    value = meta.extra["when"]
    assert isinstance(value, str)
    assert datetime.datetime.fromisoformat(value) == datetime.datetime(2024, 1, 2, 3, 4, 5)
