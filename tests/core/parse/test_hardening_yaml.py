"""Hostile frontmatter: one bad file never breaks discovery, values stay bounded and clean,
``allowed-tools`` fails closed, names carry no invisible characters."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Code,
    Severity,
    SkillLibrary,
    SkillLocation,
    ValidationMode,
    parse_skill_file,
)
from skillcore.parse.context import ParseResult
from skillcore.parse.frontmatter import _UNCONVERTIBLE
from skillcore.parse.frontmatter_caps import (
    FRONTMATTER_HEAD_BYTES,
    MAX_DESCRIPTION,
    MAX_FRONTMATTER_BYTES,
    MAX_LIST_ITEM,
    MAX_LIST_ITEMS,
    MAX_METADATA_ENTRIES,
    MAX_TEXT,
)
from skillcore.parse.reader_common import MAX_EXPANDED_CHARS

SRC = Path(__file__).resolve().parents[3] / "src"
LOC = SkillLocation("src", "demo", "/skills/demo")
LENIENT, STRICT = ValidationMode.LENIENT, ValidationMode.STRICT


def parse(text: str, mode: ValidationMode = LENIENT, *, complete: bool = True) -> ParseResult:
    return parse_skill_file(
        text.encode("utf-8"),
        directory_name="demo",
        location=LOC,
        path="demo/SKILL.md",
        mode=mode,
        complete=complete,
    )


def fm(lines: str, name: str = "demo") -> str:
    return f"---\nname: {name}\ndescription: Does demo things.\n{lines}---\n# Body\n"


def codes(result: ParseResult) -> list[tuple[Severity, Code, str | None]]:
    return [(d.severity, d.code, d.field) for d in result.diagnostics]


def write(root: Path, directory: str, text: str) -> None:
    (root / directory).mkdir(parents=True, exist_ok=True)
    (root / directory / "SKILL.md").write_text(text, encoding="utf-8", newline="")


def library_with(tmp_path: Path, bad_text: str, mode: str = "lenient") -> SkillLibrary:
    """Two good skills around one bad one."""
    root = tmp_path / "skills"
    write(root, "alpha", fm("", "alpha"))
    write(root, "bad", bad_text)
    write(root, "zulu", fm("", "zulu"))
    return SkillLibrary([root], mode=mode)


def bad_diags(lib: SkillLibrary) -> list[tuple[Severity, Code, str | None]]:
    return [(d.severity, d.code, d.field) for d in lib.catalog.diagnostics if "bad" in d.path]


# -- 1. one bad value is that file's YAML_ERROR ---------------------------------------------------

BAD_VALUES = [
    ("released: 2024-02-30\n", "!!timestamp value '2024-02-30'", "line 4"),
    ("x: !!int abc\n", "!!int value 'abc'", "line 4"),
    ("x: !!float x\n", "!!float value 'x'", "line 4"),
    ("x: !!bool maybe\n", "!!bool value 'maybe'", "line 4"),
    ("x: !!timestamp x\n", "!!timestamp value 'x'", "line 4"),
    ("x: " + "9" * 5000 + "\n", "integer literal of 5000 characters", "line 4"),
    ("x: 0x" + "f" * 20000 + "\n", "integer literal of 20002 characters", "line 4"),
    ("x: !!python/object:os.system echo\n", "python/object", "line 4"),
    ("x: !!python/name:os.system ''\n", "python/name", "line 4"),
    ("x: !!binary '%%% not base64'\n", "base64", "line 4"),
    ("x: !custom thing\n", "!custom", "line 4"),
]


@pytest.mark.parametrize(
    ("line", "fragment", "where"), BAD_VALUES, ids=[v[0][:24].strip() for v in BAD_VALUES]
)
@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_one_bad_value_skips_only_its_skill(
    tmp_path: Path, line: str, fragment: str, where: str, mode: str
) -> None:
    lib = library_with(tmp_path, fm(line, "bad"), mode)
    catalog = lib.discover()
    assert catalog.names == ("alpha", "zulu")
    diags = [d for d in catalog.diagnostics if "bad" in d.path]
    assert [(d.severity, d.code) for d in diags] == [(Severity.ERROR, Code.YAML_ERROR)]
    assert fragment in diags[0].message and where in diags[0].message, diags[0].message
    assert len(diags[0].message) < 200
    assert lib.refresh().names == ("alpha", "zulu")


def test_bad_value_on_the_unquoted_colon_fallback_path(tmp_path: Path) -> None:
    # The first load fails (unquoted colon); the quoted retry then meets the bad date.
    text = fm("compatibility: needs: git\nreleased: 2024-02-30\n", "bad")
    lib = library_with(tmp_path, text)
    assert lib.discover().names == ("alpha", "zulu")
    assert bad_diags(lib) == [(Severity.ERROR, Code.YAML_ERROR, None)]


def test_fallback_still_repairs_an_unquoted_colon(tmp_path: Path) -> None:
    lib = library_with(tmp_path, fm("compatibility: needs: git\nreleased: 2024-02-28\n", "bad"))
    assert lib.discover().names == ("alpha", "bad", "zulu")
    assert lib.catalog.get("bad").extra["released"] == "2024-02-28"
    assert bad_diags(lib) == [(Severity.WARNING, Code.YAML_FALLBACK, None)]


def test_cli_validate_prints_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    lib = library_with(tmp_path, fm("released: 2024-02-30\nx: !!bool maybe\n", "bad"))
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [sys.executable, "-m", "skillcore", "validate", str(lib.sources[0].url)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "YAML_ERROR" in proc.stdout and "bad/SKILL.md" in proc.stdout
    assert "2024-02-30" in proc.stdout
    assert proc.returncode == 1


# Tags of the YAML core schema, PyYAML's Python tags and some local/garbage ones.
TAGS = [
    "",
    "!!str ",
    "!!int ",
    "!!float ",
    "!!bool ",
    "!!null ",
    "!!timestamp ",
    "!!binary ",
    "!!seq ",
    "!!map ",
    "!!set ",
    "!!omap ",
    "!!pairs ",
    "!!merge ",
    "!!python/object:os.system ",
    "!!python/name:os.system ",
    "!!python/tuple ",
    "!!python/bytes ",
    "!custom ",
    "! ",
    "!<tag:yaml.org,2002:int> ",
]
SCALARS = st.one_of(
    st.sampled_from(
        [
            "2024-02-30",
            "2024-02-28",
            "2024-13-01T25:61:00Z",
            "0x" + "f" * 150,
            "9" * 120,
            "1e999",
            ".nan",
            "maybe",
            "yes",
            "~",
            "''",
            '"\\x1b[31m"',
            '"\\u202e"',
            "abc",
            "[1, 2]",
            "{a: 1}",
            "&a x",
            "*a",
            "'a: b'",
            "a: b",
            "AAAA",
        ]
    ),
    st.integers().map(str),
    st.text(alphabet=st.sampled_from(list("ab01:-.+_ eE")), max_size=12),
)
KEYS = st.sampled_from(
    [
        *("name", "description", "allowed-tools", "allowed_tools", "metadata", "triggers"),
        *("license", "version", "priority", "argument-hint", "x", "y", "<<", "? z", "1"),
    ]
)


@st.composite
def frontmatters(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        key, tag, value = draw(KEYS), draw(st.sampled_from(TAGS)), draw(SCALARS)
        lines.append(f"{key}: {tag}{value}")
    if draw(st.booleans()):
        lines.insert(0, "description: d")
    if draw(st.booleans()):
        lines.insert(0, "name: demo")
    return "---\n" + "\n".join(lines) + "\n---\n# Body\n"


@settings(settings.get_profile("skillcore"))
@given(frontmatters(), st.sampled_from([LENIENT, STRICT]))
def test_parse_never_raises_on_tagged_scalars(text: str, mode: ValidationMode) -> None:
    result = parse(text, mode)
    assert (result.metadata is None) == any(
        d.severity is Severity.ERROR for d in result.diagnostics
    )
    # The last-resort net around conversion never has to catch anything.
    assert not any(_UNCONVERTIBLE in d.message for d in result.diagnostics)
    if result.metadata is not None:
        m = result.metadata
        assert m.allowed_tools is None or all(type(t) is str for t in m.allowed_tools)
        for text_value in (m.description, m.license, m.argument_hint, m.version):
            assert text_value is None or (type(text_value) is str and len(text_value) <= MAX_TEXT)


# -- 2. expansion is bounded, every kept text is capped -------------------------------------------


def test_aliased_lists_cannot_blow_up_argument_hint(tmp_path: Path) -> None:
    chunk = "x" * 1000
    text = fm(
        f"a: &a [{', '.join([chunk] * 10)}]\n"
        f"b: &b [{', '.join(['*a'] * 10)}]\n"
        f"c: &c [{', '.join(['*b'] * 10)}]\n"
        f"argument-hint: [{', '.join(['*c'] * 10)}]\n",
        "bad",
    )
    assert len(text) < 12_000  # 12 KB of text, ~10 MB once expanded
    lib = library_with(tmp_path, text)
    assert lib.discover().names == ("alpha", "zulu")
    [diag] = [d for d in lib.catalog.diagnostics if "bad" in d.path]
    assert (diag.severity, diag.code) == (Severity.ERROR, Code.YAML_TOO_COMPLEX)
    assert f"more than {MAX_EXPANDED_CHARS} characters" in diag.message


def test_aliased_triggers_are_refused() -> None:
    text = fm(f"s: &s {'t' * 5000}\ntriggers: [{', '.join(['*s'] * 2000)}]\n")
    result = parse(text)
    assert result.metadata is None
    assert codes(result) == [(Severity.ERROR, Code.YAML_TOO_COMPLEX, None)]


def test_small_aliases_within_the_cap_are_fine() -> None:
    text = fm("base: &b {owner: team}\nmetadata: *b\ntriggers: &t [a, b]\nx: *t\n")
    meta = parse(text).metadata
    assert meta is not None and meta.metadata == {"owner": "team"}
    assert meta.triggers == ("a", "b") and meta.extra["x"] == ("a", "b")


@pytest.mark.parametrize(
    ("line", "attr", "field"),
    [
        (f"license: {'l' * (MAX_TEXT + 5)}\n", "license", "license"),
        (f"compatibility: {'c' * (MAX_TEXT + 5)}\n", "compatibility", "compatibility"),
        (f"argument-hint: {'h' * (MAX_TEXT + 5)}\n", "argument_hint", "argument-hint"),
    ],
    ids=["license", "compatibility", "argument-hint"],
)
def test_long_text_fields_are_truncated_or_refused(line: str, attr: str, field: str) -> None:
    result = parse(fm(line))
    assert result.metadata is not None
    value = getattr(result.metadata, attr)
    assert len(value) == MAX_TEXT and value.endswith("…")
    assert (Severity.WARNING, Code.FIELD_TOO_LONG, field) in codes(result)
    strict = parse(fm(line), STRICT)
    assert strict.metadata is None
    assert (Severity.ERROR, Code.FIELD_TOO_LONG, field) in codes(strict)


def test_metadata_is_capped() -> None:
    entries = "".join(f"  k{i}: v\n" for i in range(MAX_METADATA_ENTRIES + 3))
    result = parse(fm(f"metadata:\n  big: {'v' * (MAX_TEXT + 1)}\n{entries}"))
    meta = result.metadata
    assert meta is not None and len(meta.metadata) == MAX_METADATA_ENTRIES
    assert len(meta.metadata["big"]) == MAX_TEXT
    assert [c for c in codes(result) if c[1] is Code.FIELD_TOO_LONG] == [
        (Severity.WARNING, Code.FIELD_TOO_LONG, "metadata value"),
        (Severity.WARNING, Code.FIELD_TOO_LONG, "metadata"),
    ]


def test_list_fields_are_capped() -> None:
    many = ", ".join(f"t{i}" for i in range(MAX_LIST_ITEMS + 20))
    result = parse(fm(f"triggers: [{'x' * (MAX_LIST_ITEM + 1)}, ok, {many}]\n"))
    meta = result.metadata
    assert meta is not None and len(meta.triggers) == MAX_LIST_ITEMS
    assert meta.triggers[0] == "ok"
    assert codes(result) == [(Severity.WARNING, Code.FIELD_TOO_LONG, "triggers")] * 2
    assert parse(fm(f"triggers: [{many}]\n"), STRICT).metadata is None


def test_description_over_the_spec_limit_is_kept_whole() -> None:
    meta = parse(fm("").replace("Does demo things.", "d" * (MAX_DESCRIPTION + 9))).metadata
    assert meta is not None and len(meta.description) == MAX_DESCRIPTION + 9


# -- 3. allowed-tools fails closed; duplicate keys ------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "allowed-tools: 5\n",
        "allowed-tools: true\n",
        "allowed-tools: {Read: yes}\n",
        "allowed-tools: [Read, 5]\n",
        "allowed-tools: [Read, [Bash]]\n",
        "allowed-tools: [Read, null]\n",
        "allowed-tools:\n",
        f"allowed-tools: [{', '.join(['Read'] * (MAX_LIST_ITEMS + 1))}]\n",
        f"allowed-tools: Read {'B' * (MAX_LIST_ITEM + 1)}\n",
        'allowed-tools: "Read \\u202eBash"\n',
    ],
    ids=lambda v: v[15:40].strip() or "null",
)
def test_unreadable_allowed_tools_fail_closed(tmp_path: Path, value: str) -> None:
    from skillcore import PolicyMode, SkillDocument, ToolPolicy

    lib = library_with(tmp_path, fm(value, "bad"))
    meta = lib.discover().get("bad")
    assert meta is not None and meta.allowed_tools == () and meta.declares_allowed_tools
    assert bad_diags(lib) == [(Severity.WARNING, Code.INVALID_TYPE, "allowed-tools")]
    assert "allows no tools beyond the always-allowed ones" in lib.catalog.diagnostics[0].message
    session = lib.session(policy=ToolPolicy(PolicyMode.RESTRICT))
    session, _ = session.finish_load(SkillDocument(meta, "body"))
    assert not session.check_tool("Read").allowed and not session.check_tool("Bash").allowed

    strict = library_with(tmp_path / "s", fm(value, "bad"), "strict")
    assert strict.discover().names == ("alpha", "zulu")
    assert bad_diags(strict) == [(Severity.ERROR, Code.INVALID_TYPE, "allowed-tools")]


@pytest.mark.parametrize(
    "lines",
    [
        "allowed-tools: Read\nallowed-tools: Read Bash\n",
        "allowed-tools: Read Bash\nallowed-tools: Read\n",
        "allowed-tools: Read\nallowed_tools: Bash\n",
        "Allowed-Tools: Read\nallowed-tools: Bash\n",
    ],
)
def test_duplicate_allowed_tools_fail_closed(lines: str) -> None:
    result = parse(fm(lines))
    assert result.metadata is not None and result.metadata.allowed_tools == ()
    assert codes(result) == [(Severity.WARNING, Code.DUPLICATE_KEY, "allowed-tools")]
    assert "again on line 5" in result.diagnostics[0].message
    assert parse(fm(lines), STRICT).metadata is None


def test_duplicate_name_keeps_the_first_and_warns(tmp_path: Path) -> None:
    text = "---\nname: bad\ndescription: first\nname: alpha\ndescription: second\n---\n"
    lib = library_with(tmp_path, text)
    catalog = lib.discover()
    assert catalog.names == ("alpha", "bad", "zulu")
    assert catalog.get("bad").description == "first"
    assert bad_diags(lib) == [
        (Severity.WARNING, Code.DUPLICATE_KEY, "name"),
        (Severity.WARNING, Code.DUPLICATE_KEY, "description"),
    ]
    strict = library_with(tmp_path / "s", text, "strict")
    assert strict.discover().names == ("alpha", "zulu")
    assert {d[:2] for d in bad_diags(strict)} == {(Severity.ERROR, Code.DUPLICATE_KEY)}


def test_nested_duplicate_keys_are_reported() -> None:
    result = parse(fm("metadata:\n  owner: a\n  owner: b\n"))
    assert result.metadata is not None and result.metadata.metadata == {"owner": "a"}
    assert codes(result) == [(Severity.WARNING, Code.DUPLICATE_KEY, "owner")]


def test_merge_keys_are_not_duplicates() -> None:
    text = fm("base: &b {owner: team, tier: gold}\nmetadata:\n  <<: *b\n  owner: me\n")
    result = parse(text)
    assert result.diagnostics == ()
    assert result.metadata is not None
    assert result.metadata.metadata == {"owner": "me", "tier": "gold"}


# -- 4. invisible characters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_name", "named"),
    [
        ('"csv-audit\\u200b"', "U+200B ZERO WIDTH SPACE"),
        ('"csv\\u202eaudit"', "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ('"csv\\u2066audit"', "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ('"csv-audit\\0"', "U+0000"),
        ('"csv-audit\\e"', "U+001B"),
        ('"csv\\x9baudit"', "U+009B"),
        ('"csv\\u00adaudit"', "U+00AD SOFT HYPHEN"),
        ('"csv\\ufeffaudit"', "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
    ],
)
@pytest.mark.parametrize("mode", [LENIENT, STRICT])
def test_invisible_characters_make_a_name_unusable(
    yaml_name: str, named: str, mode: ValidationMode
) -> None:
    result = parse(f"---\nname: {yaml_name}\ndescription: d\n---\n", mode)
    assert result.metadata is None
    assert codes(result)[-1] == (Severity.ERROR, Code.INVALID_NAME, "name")
    assert named in result.diagnostics[-1].message


@pytest.mark.parametrize(
    ("line", "attr", "expected"),
    [
        ('description: "Safe \\u202eevil\\u202c text"\n', "description", "Safe evil text"),
        ('description: "Red \\e[31malert\\0"\n', "description", "Red [31malert"),
        ('license: "MIT\\u2066\\x85\\x07"\n', "license", "MIT"),
        ('compatibility: "git\\ton\\nlinux\\r"\n', "compatibility", "git\ton\nlinux"),
        ('argument-hint: "<file>\\u200f"\n', "argument_hint", "<file>"),
        ('version: "1.0\\x1b"\n', "version", "1.0"),
    ],
)
def test_control_and_bidi_characters_are_removed_from_text(
    line: str, attr: str, expected: str
) -> None:
    if line.startswith("description"):
        text = f"---\nname: demo\n{line}---\n"
    else:
        text = fm(line)
    result = parse(text)
    assert result.metadata is not None
    assert getattr(result.metadata, attr) == expected
    field = attr.replace("_", "-")
    assert codes(result) == [(Severity.WARNING, Code.UNSAFE_CHARACTERS, field)]
    assert "U+" in result.diagnostics[0].message


def test_control_characters_are_removed_from_lists_metadata_and_extras() -> None:
    text = fm('triggers: ["a\\u202eb", c]\nmetadata: {"k\\e": "v\\0"}\nextra_key: ["\\u2067x"]\n')
    result = parse(text)
    meta = result.metadata
    assert meta is not None
    assert meta.triggers == ("ab", "c") and meta.metadata == {"k": "v"}
    assert meta.extra["extra_key"] == ("x",)
    assert {c[1] for c in codes(result)} == {Code.UNSAFE_CHARACTERS}


def test_emoji_joiners_are_kept() -> None:
    meta = parse(fm("").replace("Does demo things.", "Family \U0001f468\u200d\U0001f469")).metadata
    assert meta is not None and meta.description == "Family \U0001f468\u200d\U0001f469"


# -- 5. frontmatter cap vs body size, line endings ------------------------------------------------


def big_frontmatter_file() -> str:
    description = "word " * 4200  # ~21 KB of frontmatter
    return f"---\nname: demo\ndescription: {description}\n---\n" + "body line\n" * 6600


def test_frontmatter_cap_applies_to_the_frontmatter_only() -> None:
    text = big_frontmatter_file()
    assert len(text) > MAX_FRONTMATTER_BYTES
    head = text.encode()[:FRONTMATTER_HEAD_BYTES]
    result = parse_skill_file(
        head, directory_name="demo", location=LOC, path="demo/SKILL.md", complete=False
    )
    assert result.metadata is not None and not result.need_more
    assert codes(result) == [(Severity.WARNING, Code.FIELD_TOO_LONG, "description")]


def test_library_reads_a_long_frontmatter_before_a_long_body(tmp_path: Path) -> None:
    lib = library_with(tmp_path, big_frontmatter_file().replace("name: demo", "name: bad"))
    assert lib.discover().names == ("alpha", "bad", "zulu")


def test_a_head_ending_on_the_closing_line_asks_for_more() -> None:
    # "---" at the very end of a head may be the start of "----" or "--- x" in the file.
    assert parse("---\nname: demo\ndescription: d\n---", complete=False).need_more
    assert parse("---\nname: demo\ndescription: d\n---", complete=True).metadata is not None


def test_cr_only_line_endings_are_accepted(tmp_path: Path) -> None:
    text = "---\rname: demo\rdescription: Old Mac file.\rallowed-tools: Read\r---\r# Title\rBody\r"
    result = parse(text)
    assert result.metadata is not None and result.diagnostics == ()
    assert result.metadata.allowed_tools == ("Read",)
    lib = library_with(tmp_path, text.replace("demo", "bad"))
    assert lib.discover().names == ("alpha", "bad", "zulu")
    assert lib.read_document("bad").body == "# Title\nBody"
