"""Hostile and broken skill files: each yields a precise diagnostic and the rest of the catalog
stays intact (discovery never raises for a bad skill)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from skillcore import (
    Code,
    Diagnostic,
    OutcomeCode,
    ReadError,
    Severity,
    SkillLibrary,
    SkillSource,
    SkillToolkit,
    SourceError,
)
from skillcore.library import DEFAULT_HEAD_BYTES
from skillcore.parse.frontmatter_caps import (
    MAX_COMPATIBILITY,
    MAX_DESCRIPTION,
    MAX_FRONTMATTER_BYTES,
    MAX_NAME,
)

GOOD = ("alpha", "beta")
SECRET = "TOP-SECRET-CONTENT-7f3a"


def write_skill(root: Path, directory: str, content: str | bytes) -> Path:
    """Write ``root/directory/SKILL.md`` and return its path."""
    d = root / directory
    d.mkdir(parents=True, exist_ok=True)
    path = d / "SKILL.md"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def skill_text(name: str, description: str = "Does a useful thing.", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nSteps.\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A source with two good skills; tests add one bad one next to them."""
    src = tmp_path / "skills"
    for name in GOOD:
        write_skill(src, name, skill_text(name))
    return src


def diags_for(catalog_diags: tuple[Diagnostic, ...], path: str) -> list[Diagnostic]:
    return [d for d in catalog_diags if d.path == path]


def discover_bad(
    root: Path, content: str | bytes, mode: str = "lenient", directory: str = "bad"
) -> tuple[SkillLibrary, list[Diagnostic]]:
    """Add one bad skill, discover, check the good skills survive, return the bad one's diags."""
    write_skill(root, directory, content)
    lib = SkillLibrary([root], mode=mode)
    cat = lib.discover()
    for name in GOOD:
        assert name in cat, f"good skill {name!r} lost next to a bad one"
        assert not diags_for(cat.diagnostics, f"{name}/SKILL.md")
    return lib, diags_for(cat.diagnostics, f"{directory}/SKILL.md")


def assert_skipped(
    diags: list[Diagnostic],
    code: Code,
    *fragments: str,
    field: str | None = None,
    source: str | None = None,
) -> Diagnostic:
    """Exactly one ERROR diagnostic with ``code`` and ``field``, saying it was skipped."""
    errors = [d for d in diags if d.severity is Severity.ERROR]
    assert [d.code for d in errors] == [code], diags
    diag = errors[0]
    assert diag.field == field
    assert diag.message.startswith("skipped: ")
    for fragment in fragments:
        assert fragment in diag.message, diag.message
    if source is not None:
        assert diag.source == source
    return diag


# -- YAML that is broken or hostile -----------------------------------------------------------


def test_malformed_yaml_reports_line_and_column(root: Path) -> None:
    lib, diags = discover_bad(root, "---\nname: bad\ndescription: [unclosed\n---\nbody\n")
    diag = assert_skipped(diags, Code.YAML_ERROR, "invalid YAML", "line 4", source=str(root))
    assert "bad" not in lib.catalog
    assert "YAML_ERROR bad/SKILL.md: skipped: invalid YAML" in diag.format()


BOMB = (
    "---\nname: bad\ndescription: x\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{k}: &{k} [" + ",".join([f"*{prev}"] * 9) + "]\n"
        for prev, k in zip("abcdefgh", "bcdefghi")
    )
    + "---\n"
)


def test_alias_bomb_is_refused_without_expanding(root: Path) -> None:
    # 9**9 (387 million) strings if expanded; refused after counting 20,000.
    _, diags = discover_bad(root, BOMB)
    assert_skipped(diags, Code.YAML_TOO_COMPLEX, "alias bomb")


def test_recursive_alias_is_refused(root: Path) -> None:
    _, diags = discover_bad(root, "---\nname: bad\ndescription: x\nloop: &a [*a, *a]\n---\n")
    assert_skipped(diags, Code.YAML_TOO_COMPLEX, "alias bomb")


def test_small_aliases_are_fine(root: Path) -> None:
    text = "---\nname: bad\ndescription: &d Reuses an anchor.\nx-summary: *d\n---\n"
    lib, diags = discover_bad(root, text)
    assert diags == []
    assert lib.catalog.get("bad").extra["x-summary"] == "Reuses an anchor."


def deep_cases() -> dict[str, str]:
    """Frontmatters that nest too deep. Several crash libyaml's C loader (segfault) when
    handed to ``yaml.load`` directly; the quote and ``?`` ones fool a bracket counter."""
    head = "---\nname: bad\ndescription: x\n"
    return {
        # 100 KB of '[': over the byte cap, refused before any scan.
        "flow-100kb": head + "x: " + "[" * 100_000 + "\n---\n",
        # 60 KB balanced: under the byte cap; segfaults CSafeLoader in the main thread.
        "flow-60kb": head + "x: " + "[" * 30_000 + "]" * 30_000 + "\n---\n",
        "block-indent": head
        + "x:\n"
        + "".join(" " * i + f"k{i}:\n" for i in range(1, 290))
        + "---\n",
        "block-dashes": head + "x:\n" + "- " * 20_000 + "a\n---\n",
        "quoted-closers": head + "x: " + "[']'," * 3_000 + "\n---\n",
        "question-marks": head + "x:\n  " + "? " * 5_000 + "a\n---\n",
    }


@pytest.mark.parametrize("case", sorted(deep_cases()))
def test_deeply_nested_yaml_is_refused_before_parsing(root: Path, case: str) -> None:
    text = deep_cases()[case]
    _, diags = discover_bad(root, text)
    if case == "flow-100kb":
        assert_skipped(diags, Code.YAML_TOO_COMPLEX, f"larger than {MAX_FRONTMATTER_BYTES} bytes")
    else:
        assert_skipped(diags, Code.YAML_TOO_COMPLEX, "levels deep", "refused before parsing")


@pytest.mark.parametrize("case", sorted(set(deep_cases()) - {"flow-100kb"}))
def test_nesting_bound_does_not_depend_on_the_yaml_parser(
    root: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parser that refuses deep input itself (libyaml 0.2.6 stops at 1,000 flow levels with a
    ScannerError) or stops at once must not turn skillcore's refusal into a YAML error."""
    import yaml

    def refusing_parse(*_args: object, **_kwargs: object) -> object:
        raise yaml.scanner.ScannerError(problem="exceeded maximum nesting depth")
        yield  # pragma: no cover - makes this a generator like yaml.parse

    monkeypatch.setattr(yaml, "parse", refusing_parse)
    _, diags = discover_bad(root, deep_cases()[case])
    assert_skipped(diags, Code.YAML_TOO_COMPLEX, "levels deep", "refused before parsing")


def test_shallow_yaml_with_a_syntax_error_is_still_a_yaml_error(root: Path) -> None:
    # Under the nesting bound, a parser that stops early is reported as what it is.
    _, diags = discover_bad(root, "---\nname: bad\ndescription: x\nx: [[[[\n---\n")
    assert_skipped(diags, Code.YAML_ERROR, "invalid YAML")


def test_deep_nesting_cannot_crash_the_process(tmp_path: Path) -> None:
    """Run discovery of every deep case in a child process whose worker threads have a
    512 KiB stack (the macOS default): a C-level stack overflow would kill it. (Handed to
    ``yaml.load`` with ``CSafeLoader`` directly, the flow, dash, quote and ``?`` cases each
    segfault such a thread.)"""
    src = tmp_path / "skills"
    for name in GOOD:
        write_skill(src, name, skill_text(name))
    for case, text in deep_cases().items():
        write_skill(src, case, text)
    script = textwrap.dedent(
        f"""
        import threading, anyio
        threading.stack_size(512 * 1024)
        from skillcore import SkillLibrary
        lib = SkillLibrary([{str(src)!r}])
        sync = lib.discover()
        async_cat = anyio.run(SkillLibrary([{str(src)!r}]).adiscover)
        assert async_cat == sync
        codes = sorted(d.code.value for d in sync.diagnostics)
        print(",".join(sync.names), "|", ",".join(codes))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    names, codes = proc.stdout.strip().split(" | ")
    assert names == "alpha,beta"
    assert codes.split(",") == ["YAML_TOO_COMPLEX"] * len(deep_cases())


# -- frontmatter of the wrong shape ------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_body", "kind"),
    [("- a\n- b\n", "list"), ("just a sentence\n", "str"), ("", "empty"), ("42\n", "int")],
)
def test_frontmatter_not_a_mapping(root: Path, yaml_body: str, kind: str) -> None:
    _, diags = discover_bad(root, f"---\n{yaml_body}---\nbody\n")
    assert_skipped(diags, Code.NOT_A_MAPPING, f"must be a YAML mapping, got {kind}")


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("123", "number"),
        ("1.5", "number"),
        ("true", "boolean"),
        ("false", "boolean"),
        ("no", "boolean"),  # YAML 1.1: the "Norway problem"
        ("2024-01-01", "date"),
        ("[a, b]", "list"),
        ("{a: b}", "mapping"),
        ("null", "null"),
        ("~", "null"),
        ("", "null"),
    ],
)
@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_name_of_the_wrong_type(root: Path, value: str, kind: str, mode: str) -> None:
    _, diags = discover_bad(root, f"---\nname: {value}\ndescription: x\n---\n", mode)
    assert_skipped(
        diags, Code.INVALID_TYPE, f"'name' must be a string, got {kind}", "quote it", field="name"
    )


def test_quoted_number_name_is_a_string(root: Path) -> None:
    lib, diags = discover_bad(root, '---\nname: "123"\ndescription: x\n---\n', directory="123")
    assert diags == []
    assert "123" in lib.catalog


@pytest.mark.parametrize(
    ("frontmatter", "fragment"),
    [
        ("name: bad\n", "'description' is missing"),
        ("name: bad\ndescription:\n", "'description' is empty (null)"),
        ("name: bad\ndescription: '   '\n", "'description' is empty"),
    ],
)
@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_missing_description(root: Path, frontmatter: str, fragment: str, mode: str) -> None:
    _, diags = discover_bad(root, f"---\n{frontmatter}---\n", mode)
    assert_skipped(diags, Code.MISSING_FIELD, fragment, field="description")


def test_description_of_wrong_type(root: Path) -> None:
    _, diags = discover_bad(root, "---\nname: bad\ndescription: [a, b]\n---\n")
    assert_skipped(
        diags, Code.INVALID_TYPE, "'description' must be a string, got list", field="description"
    )


def test_missing_name_lenient_uses_directory_strict_skips(root: Path) -> None:
    lib, diags = discover_bad(root, "---\ndescription: Has no name.\n---\n")
    assert "bad" in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.WARNING, Code.MISSING_FIELD, "name")
    ]
    assert "using the directory name 'bad'" in diags[0].message
    lib, diags = discover_bad(root, "---\ndescription: Has no name.\n---\n", "strict")
    assert "bad" not in lib.catalog
    assert_skipped(diags, Code.MISSING_FIELD, "'name' is missing", field="name")


# -- over-long fields, names -------------------------------------------------------------------


def test_over_long_name(root: Path) -> None:
    name = "a" * (MAX_NAME + 6)
    lib, diags = discover_bad(root, skill_text(name), directory=name)
    assert name in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.WARNING, Code.FIELD_TOO_LONG, "name")
    ]
    assert f"{MAX_NAME + 6} characters long (limit {MAX_NAME})" in diags[0].message
    lib, diags = discover_bad(root, skill_text(name), "strict", directory=name)
    assert name not in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.ERROR, Code.FIELD_TOO_LONG, "name")
    ]


def test_absurdly_long_name_is_unusable_in_any_mode(root: Path) -> None:
    name = "a" * (4 * MAX_NAME)
    _, diags = discover_bad(root, skill_text(name))
    assert_skipped(
        diags, Code.INVALID_NAME, "256 characters long (at most 128 are usable)", field="name"
    )


def test_over_long_description_kept_lenient_rejected_strict(root: Path) -> None:
    desc = "word " * 300  # 1,499 characters after whitespace folding
    lib, diags = discover_bad(root, skill_text("bad", desc))
    meta = lib.catalog.get("bad")
    assert meta.description == desc.strip()  # kept as YAML gives it; the catalog shortens
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.WARNING, Code.FIELD_TOO_LONG, "description")
    ]
    assert f"(limit {MAX_DESCRIPTION}); kept whole" in diags[0].message
    lib, diags = discover_bad(root, skill_text("bad", desc), "strict")
    assert "bad" not in lib.catalog
    assert [(d.severity, d.code) for d in diags] == [(Severity.ERROR, Code.FIELD_TOO_LONG)]


def test_over_long_compatibility(root: Path) -> None:
    text = skill_text("bad", extra=f"compatibility: {'c' * (MAX_COMPATIBILITY + 1)}\n")
    lib, diags = discover_bad(root, text)
    assert lib.catalog.get("bad").compatibility == "c" * (MAX_COMPATIBILITY + 1)
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.WARNING, Code.FIELD_TOO_LONG, "compatibility")
    ]
    assert f"(limit {MAX_COMPATIBILITY})" in diags[0].message
    lib, diags = discover_bad(root, text, "strict")
    assert "bad" not in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.ERROR, Code.FIELD_TOO_LONG, "compatibility")
    ]


def test_name_directory_mismatch(root: Path) -> None:
    lib, diags = discover_bad(root, skill_text("other-name"))
    assert "other-name" in lib.catalog and "bad" not in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.WARNING, Code.NAME_MISMATCH, "name")
    ]
    assert "'other-name' does not match its directory 'bad'" in diags[0].message
    lib, diags = discover_bad(root, skill_text("other-name"), "strict")
    assert "other-name" not in lib.catalog
    assert [(d.severity, d.code) for d in diags] == [(Severity.ERROR, Code.NAME_MISMATCH)]


@pytest.mark.parametrize("name", ["Upper-Case", "ünïcode", "double--hyphen", "-leading", "x_y"])
def test_off_spec_names_lenient_warns_strict_skips(root: Path, name: str) -> None:
    lib, diags = discover_bad(root, skill_text(name), directory=name)
    assert name in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.WARNING, Code.INVALID_NAME, "name")
    ]
    assert "lowercase a-z, 0-9 and single hyphens" in diags[0].message
    lib, diags = discover_bad(root, skill_text(name), "strict", directory=name)
    assert name not in lib.catalog
    assert [(d.severity, d.code, d.field) for d in diags] == [
        (Severity.ERROR, Code.INVALID_NAME, "name")
    ]


@pytest.mark.parametrize(
    ("yaml_name", "fragment"),
    [
        ('"two words"', "whitespace"),
        ('"a/b"', "the character '/'"),
        ('"<script>"', "the character '<'"),
        ('"a\uff0fb"', "the character '/'"),  # a fullwidth solidus is '/' in NFKC
        ('"tab\\there"', "contains whitespace"),
    ],
)
def test_dangerous_names_are_unusable_even_lenient(
    root: Path, yaml_name: str, fragment: str
) -> None:
    _, diags = discover_bad(root, f"---\nname: {yaml_name}\ndescription: x\n---\n")
    assert_skipped(diags, Code.INVALID_NAME, fragment, field="name")


# -- duplicates ----------------------------------------------------------------------------------


def test_duplicate_names_across_sources_later_overrides(tmp_path: Path) -> None:
    first, second = tmp_path / "user", tmp_path / "project"
    write_skill(first, "shared", skill_text("shared", "User version."))
    write_skill(first, "only-user", skill_text("only-user"))
    write_skill(second, "shared", skill_text("shared", "Project version."))
    lib = SkillLibrary([SkillSource(str(first), label="user"), SkillSource(str(second), "p")])
    cat = lib.discover()
    assert set(cat.names) == {"shared", "only-user"}
    assert cat.get("shared").description == "Project version."
    assert cat.get("shared").location.source == "p"
    shadowed = [d for d in cat.diagnostics if d.code is Code.SHADOWED]
    assert len(shadowed) == 1
    diag = shadowed[0]
    assert (diag.severity, diag.source, diag.path, diag.field) == (
        Severity.WARNING,
        "p",
        "shared",
        "name",
    )
    assert "from 'p' overrides the one in 'user'" in diag.message
    assert str(first / "shared") in diag.message


def test_duplicate_names_within_a_source(root: Path) -> None:
    write_skill(root, "copy-b", skill_text("alpha", "Second alpha."))
    lib = SkillLibrary([root])
    cat = lib.discover()
    assert cat.get("alpha").description == "Does a useful thing."
    assert cat.get("alpha").location.directory == "alpha"
    dup = [d for d in cat.diagnostics if d.code is Code.DUPLICATE_NAME]
    assert len(dup) == 1
    assert (dup[0].severity, dup[0].path, dup[0].field) == (Severity.WARNING, "copy-b", "name")
    assert "defined twice in this source; keeping 'alpha'" in dup[0].message
    assert "beta" in cat


# -- bytes that are not a SKILL.md ---------------------------------------------------------------


def test_huge_skill_file_discovery_reads_only_the_head(root: Path) -> None:
    frontmatter = b"---\nname: huge\ndescription: A 50 MB skill.\n---\n"
    path = write_skill(root, "huge", frontmatter + b"# Body\n" + b"text " * 4000)
    with open(path, "r+b") as fh:  # sparse: 50 MB on paper, no disk or time spent
        fh.truncate(50 * 1024 * 1024)
    # Invalid UTF-8 past the head: discovery must never decode it.
    with open(path, "r+b") as fh:
        fh.seek(DEFAULT_HEAD_BYTES + 100)
        fh.write(b"\xff\xfe")
    lib = SkillLibrary([root])
    tracemalloc.start()
    try:
        cat = lib.discover()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"discovery allocated {peak} bytes for a 50 MB file"
    assert set(cat.names) == {"alpha", "beta", "huge"}
    # Only the warning that the file is past the spec's length guidance (judged by its size).
    assert [(d.code, d.path) for d in cat.diagnostics] == [(Code.SKILL_TOO_LONG, "huge/SKILL.md")]

    toolkit = SkillToolkit(lib)
    session = lib.session()
    result = toolkit.call(session, "load_skill", {"skill_name": "huge"})
    assert result.code is OutcomeCode.TOO_LARGE
    assert result.session is session
    assert not result.ok
    assert f"{50 * 1024 * 1024} bytes, over the {10 * 1024 * 1024}-byte limit" in result.text
    assert result.text.startswith("Error: Could not load skill 'huge'")
    ok = toolkit.call(session, "load_skill", {"skill_name": "alpha"})
    assert ok.code is OutcomeCode.LOADED


def test_max_file_bytes_is_configurable(root: Path) -> None:
    lib = SkillLibrary([root], max_file_bytes=40)
    with pytest.raises(ReadError) as info:
        lib.read_document("alpha")
    assert info.value.code is OutcomeCode.TOO_LARGE
    assert "over the 40-byte limit" in info.value.message


def test_binary_bytes(root: Path) -> None:
    _, diags = discover_bad(root, b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 8)
    assert_skipped(diags, Code.BINARY_FILE, "looks binary")


def test_binary_after_valid_frontmatter(root: Path) -> None:
    _, diags = discover_bad(root, skill_text("bad").encode() + b"\x00\x01\x02")
    assert_skipped(diags, Code.BINARY_FILE, "NUL bytes")


def test_non_utf8_bytes(root: Path) -> None:
    content = "---\nname: bad\ndescription: Café au lait.\n---\n".encode("latin-1")
    _, diags = discover_bad(root, content)
    assert_skipped(
        diags, Code.DECODE_ERROR, "not valid UTF-8 at byte 30 (line 3)", "save the file as UTF-8"
    )


def test_non_utf8_in_body_fails_at_load_not_discovery(root: Path) -> None:
    path = write_skill(root, "bodybad", skill_text("bodybad").encode() + b"caf\xe9\n")
    lib = SkillLibrary([root])
    # The head is the whole (small) file, so discovery sees the bad byte.
    assert "bodybad" not in lib.discover()
    path.write_bytes(skill_text("bodybad").encode() + b"x" * DEFAULT_HEAD_BYTES + b"caf\xe9\n")
    cat = lib.refresh()
    assert "bodybad" in cat
    toolkit = SkillToolkit(lib)
    session = lib.session()
    result = toolkit.call(session, "load_skill", {"skill_name": "bodybad"})
    assert result.code is OutcomeCode.DECODE_ERROR
    assert result.session is session
    assert "not valid UTF-8" in result.text


@pytest.mark.parametrize("content", [b"", b"   \n\n\t\n"])
def test_empty_file(root: Path, content: bytes) -> None:
    _, diags = discover_bad(root, content)
    assert_skipped(diags, Code.EMPTY_FILE, "SKILL.md is empty")


def test_no_frontmatter(root: Path) -> None:
    _, diags = discover_bad(root, "# Just Markdown\n\nname: bad\n")
    assert_skipped(diags, Code.NO_FRONTMATTER, "must start with a '---' line")


def test_frontmatter_not_at_the_top(root: Path) -> None:
    _, diags = discover_bad(root, "\n" + skill_text("bad"))
    assert_skipped(diags, Code.NO_FRONTMATTER)


def test_unterminated_frontmatter(root: Path) -> None:
    _, diags = discover_bad(root, "---\nname: bad\ndescription: x\n# no closing line\n")
    assert_skipped(diags, Code.UNTERMINATED_FRONTMATTER, "no closing '---' line")


def test_unterminated_frontmatter_longer_than_the_head(root: Path) -> None:
    lines = "".join(f"k{i}: value {i}\n" for i in range(2_000))  # ~28 KB, no closing line
    _, diags = discover_bad(root, "---\nname: bad\ndescription: x\n" + lines)
    assert_skipped(diags, Code.UNTERMINATED_FRONTMATTER)


def test_unterminated_frontmatter_longer_than_the_cap(root: Path) -> None:
    lines = "".join(f"k{i}: value {i}\n" for i in range(6_000))  # ~90 KB
    _, diags = discover_bad(root, "---\nname: bad\ndescription: x\n" + lines)
    assert_skipped(diags, Code.YAML_TOO_COMPLEX, f"larger than {MAX_FRONTMATTER_BYTES} bytes")


def test_frontmatter_longer_than_the_head_is_parsed(root: Path) -> None:
    notes = "".join(f"  line {i}: {'x' * 60}\n" for i in range(300))  # ~21 KB > 16 KiB head
    text = (
        "---\nname: bad\nx-notes: |\n"
        + notes
        + "description: Declared after a long block.\n---\n# Body\nDo it.\n"
    )
    assert len(text.encode()) > DEFAULT_HEAD_BYTES
    lib, diags = discover_bad(root, text)
    assert diags == []
    meta = lib.catalog.get("bad")
    assert meta.description == "Declared after a long block."
    assert meta.extra["x-notes"].count("\n") == 300
    assert lib.read_document("bad").body == "# Body\nDo it."


def test_bom_and_crlf_are_accepted(root: Path) -> None:
    text = "\ufeff---\r\nname: bad\r\ndescription: Windows file.\r\n---\r\nBody\r\n"
    lib, diags = discover_bad(root, text.encode("utf-8"))
    assert diags == []
    assert lib.catalog.get("bad").description == "Windows file."


# -- the unquoted-colon fallback ---------------------------------------------------------------


COLON = "---\nname: bad\ndescription: Use this skill: when the user asks for X\n---\nbody\n"


def test_unquoted_colon_lenient_falls_back_with_warning(root: Path) -> None:
    lib, diags = discover_bad(root, COLON)
    assert lib.catalog.get("bad").description == "Use this skill: when the user asks for X"
    assert [(d.severity, d.code) for d in diags] == [(Severity.WARNING, Code.YAML_FALLBACK)]
    assert "quote them in the file" in diags[0].message


def test_unquoted_colon_strict_rejects(root: Path) -> None:
    lib, diags = discover_bad(root, COLON, "strict")
    assert "bad" not in lib.catalog
    assert_skipped(diags, Code.YAML_ERROR, "mapping values are not allowed", "line 3")


def test_fallback_cannot_smuggle_deep_nesting(root: Path) -> None:
    # Broken YAML whose colon-quoting fix would expose deep nesting to the loader.
    text = "---\nname: bad\ndescription: a: b\nx: " + "[" * 40 + "]" * 40 + "\n---\n"
    _, diags = discover_bad(root, text)
    assert_skipped(diags, Code.YAML_TOO_COMPLEX, "levels deep")


# -- symlinks ----------------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    write_skill(out, "evil", skill_text("evil", "Lives outside the source."))
    (out / "secret.txt").write_text(SECRET)
    return out


needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")


@needs_symlinks
def test_symlinked_skill_directory_outside_the_source(root: Path, outside: Path) -> None:
    os.symlink(outside / "evil", root / "evil")
    cat = SkillLibrary([root]).discover()
    assert set(cat.names) == set(GOOD)
    (diag,) = cat.diagnostics
    assert (diag.severity, diag.code, diag.path, diag.source) == (
        Severity.ERROR,
        Code.SYMLINK_ESCAPE,
        "evil",
        str(root),
    )
    assert "points outside the source" in diag.message
    assert str(outside / "evil") in diag.message


@needs_symlinks
def test_symlinked_skill_file_outside_the_source(root: Path, outside: Path) -> None:
    (root / "linked").mkdir()
    os.symlink(outside / "evil" / "SKILL.md", root / "linked" / "SKILL.md")
    cat = SkillLibrary([root]).discover()
    assert set(cat.names) == set(GOOD)
    (diag,) = cat.diagnostics
    assert (diag.code, diag.path) == (Code.SYMLINK_ESCAPE, "linked/SKILL.md")
    assert "SKILL.md is a symlink pointing outside the source" in diag.message


@needs_symlinks
def test_symlink_inside_the_source_is_followed(root: Path) -> None:
    store = root / "_store"  # not a skill itself (no SKILL.md at its top)
    write_skill(store, "gamma", skill_text("gamma"))
    os.symlink(store / "gamma", root / "gamma")
    cat = SkillLibrary([root]).discover()
    assert "gamma" in cat
    assert not [d for d in cat.diagnostics if d.code is Code.SYMLINK_ESCAPE]


# -- resource paths ------------------------------------------------------------------------------


@pytest.fixture
def resource_lib(root: Path, outside: Path) -> SkillLibrary:
    refs = root / "alpha" / "references"
    refs.mkdir()
    (refs / "guide.md").write_text("The guide.")
    if hasattr(os, "symlink"):
        os.symlink(outside / "secret.txt", refs / "leak.md")
        os.symlink(outside, root / "alpha" / "outdir")
    return SkillLibrary([root])


BAD_PATHS = [
    "../beta/SKILL.md",
    "references/../../beta/SKILL.md",
    "../../outside/secret.txt",
    "/etc/passwd",
    "C:/Windows/win.ini",
    "references\\..\\..\\x",
    "file:///etc/passwd",
    "",
    ".",
    "a\x00b",
]
SYMLINK_PATHS = ["references/leak.md", "outdir/secret.txt"]


@pytest.mark.parametrize("path", BAD_PATHS + SYMLINK_PATHS)
def test_resource_path_escapes_are_rejected(resource_lib: SkillLibrary, path: str) -> None:
    if path in SYMLINK_PATHS and not hasattr(os, "symlink"):
        pytest.skip("no symlinks")
    with pytest.raises(ReadError) as info:
        resource_lib.read_resource("alpha", path)
    assert info.value.code is OutcomeCode.PATH_REJECTED
    assert SECRET not in info.value.message

    toolkit = SkillToolkit(resource_lib)
    session = toolkit.call(resource_lib.session(), "load_skill", {"skill_name": "alpha"}).session
    result = toolkit.call(session, "load_skill_resource", {"skill_name": "alpha", "path": path})
    if path.strip() in ("",):
        assert result.code is OutcomeCode.INVALID_ARGUMENTS
    else:
        assert result.code is OutcomeCode.PATH_REJECTED
        assert "Do not retry this path" in result.text
    assert SECRET not in result.text
    assert "root:" not in result.text
    assert result.session is session
    assert result.terminal or result.code is OutcomeCode.INVALID_ARGUMENTS


def test_symlink_escapes_are_not_listed(resource_lib: SkillLibrary) -> None:
    doc = resource_lib.read_document("alpha")
    assert [r.path for r in doc.resources] == ["references/guide.md"]


def test_good_resource_still_reads(resource_lib: SkillLibrary) -> None:
    content = resource_lib.read_resource("alpha", "./references//guide.md")
    assert content.text == "The guide."


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fifo_resource_neither_listed_nor_blocking(root: Path) -> None:
    # Opening a FIFO for reading blocks until a writer appears; it must not hang the agent.
    os.mkfifo(root / "alpha" / "pipe")
    lib = SkillLibrary([root])
    assert lib.read_document("alpha").resources == ()
    with pytest.raises(ReadError) as info:
        lib.read_resource("alpha", "pipe")
    assert info.value.code is OutcomeCode.RESOURCE_NOT_FOUND
    assert "not a regular file" in info.value.message


def test_binary_resource_is_reported_not_dumped(root: Path) -> None:
    (root / "alpha" / "assets").mkdir()
    (root / "alpha" / "assets" / "logo.png").write_bytes(
        b"\x89PNG\r\n\x1a\n\x00\x00" + SECRET.encode()
    )
    lib = SkillLibrary([root])
    content = lib.read_resource("alpha", "assets/logo.png")
    assert content.binary and content.text is None
    toolkit = SkillToolkit(lib)
    session = toolkit.call(lib.session(), "load_skill", {"skill_name": "alpha"}).session
    result = toolkit.call(
        session, "load_skill_resource", {"skill_name": "alpha", "path": "assets/logo.png"}
    )
    assert result.code is OutcomeCode.BINARY_RESOURCE
    assert SECRET not in result.text
    assert "binary file" in result.text


# -- sources -----------------------------------------------------------------------------------


def test_missing_source_does_not_hide_the_others(root: Path, tmp_path: Path) -> None:
    missing = tmp_path / "does-not-exist"
    lib = SkillLibrary([SkillSource(str(missing), optional=True), root])
    cat = lib.discover()
    assert set(cat.names) == set(GOOD)
    (diag,) = cat.diagnostics
    assert (diag.severity, diag.code, diag.source, diag.path) == (
        Severity.ERROR,
        Code.SOURCE_UNREACHABLE,
        str(missing),
        "",
    )
    assert "does not exist" in diag.message


def test_source_that_is_a_file(root: Path, tmp_path: Path) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("hi")
    cat = SkillLibrary([root, afile]).discover()
    assert set(cat.names) == set(GOOD)
    (diag,) = cat.diagnostics
    assert diag.code is Code.SOURCE_UNREACHABLE
    assert "is not a directory" in diag.message


def test_unknown_protocol_source(root: Path) -> None:
    # A protocol no backend knows can never be read: refused where the library is built.
    with pytest.raises(SourceError, match="unknown protocol 'nosuchproto'"):
        SkillLibrary([root, "nosuchproto://bucket/skills"])
