"""Conformance with the Agent Skills specification and its reference validator (``skills-ref``).

Each test states skillcore's verdict; where the reference validator gives one, the same
directory is also checked with ``skills_ref`` (skipped when it is not installed) so that an
agreement, or a documented difference (docs/concepts.md), is asserted rather than assumed.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Code,
    Diagnostic,
    Severity,
    SkillLibrary,
    SkillLocation,
    SkillMetadata,
    SkillToolkit,
    ValidationMode,
    parse_skill_file,
)
from skillcore._escaping import ELLIPSIS, folded, is_clean, single_line
from skillcore.catalog.render import CatalogFormat, entry_description, skill_file_url
from skillcore.parse.frontmatter_caps import MAX_DESCRIPTION, MAX_DESCRIPTION_STORED

DOCS = Path(__file__).resolve().parents[3] / "docs"


def write(root: Path, directory: str, frontmatter: str, body: str = "Body.\n") -> Path:
    skill = root / directory
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return skill


def ours(root: Path, mode: str) -> tuple[list[str], list[Diagnostic], SkillLibrary]:
    """skillcore's verdict on a source: the accepted names and every diagnostic."""
    lib = SkillLibrary([root], mode=mode)
    cat = lib.discover()
    return list(cat.names), list(cat.diagnostics), lib


def kinds(diags: list[Diagnostic]) -> list[tuple[Severity, Code, str | None]]:
    return [(d.severity, d.code, d.field) for d in diags]


@pytest.fixture
def reference() -> Any:
    """The reference validator's ``validate(dir) -> [errors]``; skip when not installed."""
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    return validator.validate


# -- 1. Unicode normal forms -------------------------------------------------------------------

CAFE_NFC = "caf\u00e9"
CAFE_NFD = "cafe\u0301"


@pytest.mark.parametrize(
    ("directory", "name"),
    [(CAFE_NFC, CAFE_NFD), (CAFE_NFD, CAFE_NFC), (CAFE_NFD, CAFE_NFD)],
    ids=["decomposed-name", "decomposed-directory", "both-decomposed"],
)
def test_decomposed_unicode_name_matches_its_directory(
    tmp_path: Path, directory: str, name: str
) -> None:
    write(tmp_path, directory, f"name: {name}\ndescription: Coffee things.\n")
    names, diags, _ = ours(tmp_path, "lenient")
    assert names == [CAFE_NFC]  # stored in NFKC: one spelling for tool arguments and lookups
    assert Code.NAME_MISMATCH not in [d.code for d in diags]
    assert all(d.severity is Severity.WARNING for d in diags)
    normal_form = [d for d in diags if "normal form NFKC" in d.message]
    assert len(normal_form) == (name != CAFE_NFC)  # warned only when the file's form differs
    # Strict compares the same normalised forms; it refuses the name only for its letter é
    # (strict names are a-z: a documented decision), never as a directory mismatch.
    names, diags, _ = ours(tmp_path, "strict")
    assert names == []
    assert [d.code for d in diags if d.severity is Severity.ERROR] == [Code.INVALID_NAME]
    assert "lowercase a-z" in next(d.message for d in diags if d.severity is Severity.ERROR)


def test_decomposed_unicode_name_reference_verdict(tmp_path: Path, reference: Any) -> None:
    skill = write(tmp_path, CAFE_NFC, f"name: {CAFE_NFD}\ndescription: Coffee things.\n")
    assert reference(skill) == []  # the reference normalises both sides with NFKC, as we do
    names, diags, _ = ours(tmp_path, "lenient")
    assert names == [CAFE_NFC] and not [d for d in diags if d.severity is Severity.ERROR]


def test_compatibility_form_name_is_normalised_in_every_mode(tmp_path: Path) -> None:
    fullwidth = "\uff44\uff45\uff4d\uff4f"  # "demo" in fullwidth letters
    skill = write(tmp_path, "demo", f"name: {fullwidth}\ndescription: Demo things.\n")
    for mode in ("lenient", "strict"):
        names, diags, _ = ours(tmp_path, mode)
        assert names == ["demo"], mode
        assert kinds(diags) == [(Severity.WARNING, Code.INVALID_NAME, "name")], mode
        assert "stored as 'demo'" in diags[0].message
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    assert validator.validate(skill) == []


@given(
    st.text(st.sampled_from("aeiouncz\u0301\u0308\u0303-"), min_size=1, max_size=12).filter(
        lambda s: not s.startswith("\u0301") and "-" not in (s[0], s[-1])
    )
)
@settings(settings.get_profile("skillcore"))
def test_name_and_directory_compare_in_one_normal_form(raw: str) -> None:
    """Whatever normal form the file and the directory use, they match (or not) as NFKC."""
    for name_form, dir_form in (("NFC", "NFD"), ("NFD", "NFC"), ("NFD", "NFD")):
        name = unicodedata.normalize(name_form, raw)
        directory = unicodedata.normalize(dir_form, raw)
        result = parse_skill_file(
            f"---\nname: '{name}'\ndescription: d\n---\n".encode(),
            directory_name=directory,
            location=SkillLocation("s", directory, f"/s/{directory}"),
            path=f"{directory}/SKILL.md",
        )
        if result.metadata is None:  # e.g. a lone combining mark: refused, never a crash
            continue
        assert result.metadata.name == unicodedata.normalize("NFKC", raw)
        assert Code.NAME_MISMATCH not in [d.code for d in result.diagnostics]


# -- 2. Unknown top-level fields --------------------------------------------------------------


def test_unknown_field_is_an_error_in_strict_as_in_the_reference(tmp_path: Path) -> None:
    skill = write(tmp_path, "demo", "name: demo\ndescription: Demo things.\nx-owner: team-a\n")
    names, diags, _ = ours(tmp_path, "strict")
    assert names == []
    assert kinds(diags) == [(Severity.ERROR, Code.UNKNOWN_FIELD, "x-owner")]
    names, diags, lib = ours(tmp_path, "lenient")
    assert names == ["demo"] and diags == []
    assert dict(lib.catalog.get("demo").extra) == {"x-owner": "team-a"}
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    errors = validator.validate(skill)
    assert len(errors) == 1 and "x-owner" in errors[0]


def test_known_extension_is_information_in_strict(tmp_path: Path) -> None:
    """A documented difference: the reference refuses skillcore's extension fields."""
    skill = write(tmp_path, "demo", "name: demo\ndescription: Demo things.\nversion: '1.0'\n")
    names, diags, _ = ours(tmp_path, "strict")
    assert names == ["demo"]
    assert kinds(diags) == [(Severity.INFO, Code.UNKNOWN_FIELD, "version")]
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    assert any("version" in e for e in validator.validate(skill))


def test_migration_guide_states_the_unknown_field_rule() -> None:
    text = " ".join((DOCS / "migration.md").read_text(encoding="utf-8").split())
    assert "unknown top-level field" in text and "an error in strict mode" in text


# -- 3. Descriptions are kept as written; rendering folds and shortens ------------------------

BLOCK = "description: |-\n  First line.\n  Second   line,\n\n  third paragraph.\n"
BLOCK_TEXT = "First line.\nSecond   line,\n\nthird paragraph."


def test_block_description_keeps_its_lines_in_metadata(tmp_path: Path) -> None:
    skill = write(tmp_path, "demo", f"name: demo\n{BLOCK}")
    names, diags, lib = ours(tmp_path, "strict")
    assert names == ["demo"] and diags == []
    meta = lib.catalog.get("demo")
    assert meta.description == BLOCK_TEXT
    folded_text = "First line. Second line, third paragraph."
    for fmt in CatalogFormat:
        text = SkillToolkit(lib, catalog_format=fmt).instructions(lib.session())
        assert folded_text in text and "First line.\n" not in text
    search = SkillToolkit(lib).call(lib.session(), "search_skills", {"query": "paragraph"})
    assert f"- demo: {folded_text}" in search.text.splitlines()
    props = pytest.importorskip("skills_ref.parser", reason="skills-ref is not installed")
    assert props.read_properties(skill).description == meta.description


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_description_over_the_spec_limit(tmp_path: Path, mode: str) -> None:
    long = "w" * 9 + " word" * 300  # 1,509 characters
    skill = write(tmp_path, "demo", f"name: demo\ndescription: {long}\n")
    names, diags, lib = ours(tmp_path, mode)
    severity = Severity.WARNING if mode == "lenient" else Severity.ERROR
    assert kinds(diags) == [(severity, Code.FIELD_TOO_LONG, "description")]
    assert f"{len(long)} characters long (limit {MAX_DESCRIPTION})" in diags[0].message
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    assert any("1024" in e for e in validator.validate(skill))
    if mode == "strict":
        assert names == []
        return
    meta = lib.catalog.get("demo")
    assert meta.description == long  # kept whole
    for fmt in CatalogFormat:
        text = SkillToolkit(lib, catalog_format=fmt).instructions(lib.session())
        shown = entry_description(meta)
        assert shown in text and len(shown) == MAX_DESCRIPTION and shown.endswith(ELLIPSIS)
        assert long not in text


def test_description_over_the_stored_cap_is_truncated_lenient(tmp_path: Path) -> None:
    huge = "w" * (MAX_DESCRIPTION_STORED + 10)
    write(tmp_path, "demo", f"name: demo\ndescription: {huge}\n")
    names, diags, lib = ours(tmp_path, "lenient")
    assert names == ["demo"]
    assert kinds(diags) == [(Severity.WARNING, Code.FIELD_TOO_LONG, "description")]
    assert "truncated" in diags[0].message
    assert len(lib.catalog.get("demo").description) == MAX_DESCRIPTION_STORED


def test_unsafe_characters_are_still_removed_from_descriptions() -> None:
    result = parse_skill_file(
        b'---\nname: demo\ndescription: "Line one\\nline \\u202Etwo\\x1b[2J"\n---\n',
        directory_name="demo",
        location=SkillLocation("s", "demo", "/s/demo"),
        path="demo/SKILL.md",
    )
    assert result.metadata is not None
    assert result.metadata.description == "Line one\nline two[2J"
    assert [d.code for d in result.diagnostics] == [Code.UNSAFE_CHARACTERS]


@given(st.text(max_size=3000), st.integers(min_value=1, max_value=1100))
@settings(settings.get_profile("skillcore"))
def test_folded_is_one_bounded_line(text: str, limit: int) -> None:
    shown = folded(text, limit)
    assert "\n" not in shown and "\r" not in shown and "\u2028" not in shown
    plain = " ".join(text.split())
    if is_clean(plain):  # nothing to escape: the limit holds exactly
        assert len(shown) <= limit
    if len(plain) <= limit:
        assert shown == single_line(plain)  # nothing cut: only whitespace folded
    else:
        assert shown.endswith(ELLIPSIS)
        assert single_line(plain).startswith(shown[: -len(ELLIPSIS)])  # a prefix, then the mark


# -- 4. <location> is the SKILL.md file ---------------------------------------------------------


def test_xml_location_is_the_skill_file(tmp_path: Path) -> None:
    skill = write(tmp_path, "demo", "name: demo\ndescription: Demo things.\n")
    _, _, lib = ours(tmp_path, "strict")
    text = SkillToolkit(lib, catalog_format=CatalogFormat.XML).instructions(lib.session())
    location = text.split("<location>")[1].split("</location>")[0]
    assert Path(location) == skill / "SKILL.md"
    prompt = pytest.importorskip("skills_ref.prompt", reason="skills-ref is not installed")
    ref = prompt.to_prompt([skill]).split("<location>\n")[1].split("\n</location>")[0]
    assert Path(ref) == Path(location).resolve()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/skills/demo", "/skills/demo/SKILL.md"),
        ("s3://bucket/skills/demo/", "s3://bucket/skills/demo/SKILL.md"),
        ("bundle.zip!/demo", "bundle.zip!/demo/SKILL.md"),
        ("C:\\skills\\demo", "C:\\skills\\demo\\SKILL.md"),
    ],
)
def test_skill_file_url(url: str, expected: str) -> None:
    assert skill_file_url(SkillLocation("s", "demo", url)) == expected


# -- 5. Documented decisions --------------------------------------------------------------------


def test_decisions_are_documented_with_the_spec_text() -> None:
    text = " ".join((DOCS / "concepts.md").read_text(encoding="utf-8").split())
    for quote in (
        "May only contain unicode lowercase alphanumeric characters (`a-z`) and hyphens (`-`)",
        "Must match the parent directory name",
        "If no skills are discovered, omit the catalog and behavioral instructions entirely.",
        "Absolute path to the `SKILL.md` file",
    ):
        assert quote in text, quote


def test_unicode_letters_are_refused_in_strict_names(tmp_path: Path) -> None:
    skill = write(tmp_path, "données", "name: données\ndescription: Data things.\n")
    assert ours(tmp_path, "strict")[0] == []
    names, diags, _ = ours(tmp_path, "lenient")
    assert names == ["données"] and kinds(diags) == [(Severity.WARNING, Code.INVALID_NAME, "name")]
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    assert validator.validate(skill) == []  # a documented difference: the reference allows it


def test_missing_name_falls_back_to_the_directory_in_lenient_only(tmp_path: Path) -> None:
    skill = write(tmp_path, "demo", "description: Demo things.\n")
    names, diags, _ = ours(tmp_path, "lenient")
    assert names == ["demo"] and kinds(diags) == [(Severity.WARNING, Code.MISSING_FIELD, "name")]
    names, diags, _ = ours(tmp_path, "strict")
    assert names == [] and kinds(diags) == [(Severity.ERROR, Code.MISSING_FIELD, "name")]
    validator = pytest.importorskip("skills_ref.validator", reason="skills-ref is not installed")
    assert any("name" in e for e in validator.validate(skill))  # strict agrees


def test_empty_catalog_renders_nothing(tmp_path: Path) -> None:
    lib = SkillLibrary([tmp_path])
    lib.discover()
    for fmt in CatalogFormat:
        assert SkillToolkit(lib, catalog_format=fmt).instructions(lib.session()) == ""


# -- 6. Strict metadata values --------------------------------------------------------------


def test_strict_rejection_of_non_string_metadata_does_not_claim_a_conversion() -> None:
    def parse(mode: ValidationMode) -> list[Diagnostic]:
        return list(
            parse_skill_file(
                b"---\nname: demo\ndescription: d\nmetadata:\n  version: 2\n---\n",
                directory_name="demo",
                location=SkillLocation("s", "demo", "/s/demo"),
                path="demo/SKILL.md",
                mode=mode,
            ).diagnostics
        )

    (strict,) = parse(ValidationMode.STRICT)
    assert strict.severity is Severity.ERROR and "converted" not in strict.message
    assert "got a number" in strict.message and "quote it" in strict.message
    (lenient,) = parse(ValidationMode.LENIENT)
    assert lenient.severity is Severity.WARNING and "converted to text" in lenient.message


def test_entry_description_of_a_hand_made_metadata() -> None:
    meta = SkillMetadata("x", "a\n- **y**: fake entry", SkillLocation("s", "x", "/s/x"))
    assert entry_description(meta) == "a - **y**: fake entry"


def test_cli_list_shows_a_block_description_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillcore.apps.cli import main

    write(tmp_path, "demo", f"name: demo\n{BLOCK}")
    assert main(["list", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["demo  trusted    First line. Second line, third paragraph."]


# -- 7. Discovery names what it could not use ----------------------------------------------------


def _validate(capsys: pytest.CaptureFixture[str], root: Path, mode: str) -> tuple[int, str]:
    from skillcore.apps.cli import main

    code = main(["validate", "--mode", mode, str(root)])
    return code, capsys.readouterr().out


def test_an_empty_source_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes").mkdir()
    names, diags, _ = ours(tmp_path, "strict")
    # An error in strict mode and in `skillcore validate`, as the reference validator has it.
    assert names == [] and kinds(diags) == [(Severity.ERROR, Code.EMPTY_SOURCE, None)]
    assert str(tmp_path) in diags[0].message and "SKILL.md" in diags[0].message
    names, diags, _ = ours(tmp_path, "lenient")
    assert kinds(diags) == [(Severity.WARNING, Code.EMPTY_SOURCE, None)]
    code, out = _validate(capsys, tmp_path, "lenient")
    assert code == 1 and "EMPTY_SOURCE" in out
    assert out.splitlines()[-1].startswith("0 valid skills, 1 errors, 0 warnings")


@pytest.mark.parametrize("file_name", ["skill.md", "Skill.md", "SKILL.MD"])
def test_a_misspelt_skill_file_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file_name: str
) -> None:
    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / file_name).write_text("---\nname: demo\ndescription: Demo.\n---\n", encoding="utf-8")
    names, diags, _ = ours(tmp_path, "lenient")
    assert names == []
    assert kinds(diags) == [
        (Severity.WARNING, Code.MISNAMED_SKILL_FILE, None),
        (Severity.WARNING, Code.EMPTY_SOURCE, None),
    ]
    assert diags[0].path == f"demo/{file_name}" and "exactly SKILL.md" in diags[0].message
    names, diags, _ = ours(tmp_path, "strict")
    assert kinds(diags)[0] == (Severity.ERROR, Code.MISNAMED_SKILL_FILE, None)
    assert _validate(capsys, tmp_path, "lenient")[0] == 1  # no SKILL.md: nothing valid
    code, out = _validate(capsys, tmp_path, "strict")
    assert code == 1 and "MISNAMED_SKILL_FILE" in out
    if file_name == "skill.md":  # a documented difference: the reference reads skill.md
        validator = pytest.importorskip(
            "skills_ref.validator", reason="skills-ref is not installed"
        )
        assert validator.validate(skill) == []


def test_a_misspelt_file_in_a_memory_source_is_reported() -> None:
    import fsspec

    fs = fsspec.filesystem("memory")
    base = "/spec-misnamed"
    fs.pipe(f"{base}/demo/skill.md", b"---\nname: demo\ndescription: Demo.\n---\n")
    fs.pipe(f"{base}/good/SKILL.md", b"---\nname: good\ndescription: Good.\n---\n")
    fs.pipe(f"{base}/good/references/skill.md", b"a resource, not a skill file")
    try:
        lib = SkillLibrary([f"memory://{base}"])
        cat = lib.discover()
        assert cat.names == ("good",)
        assert kinds(list(cat.diagnostics)) == [(Severity.WARNING, Code.MISNAMED_SKILL_FILE, None)]
        assert cat.diagnostics[0].path == "demo/skill.md"
    finally:
        fs.rm(base, recursive=True)


def test_a_skill_file_that_is_a_directory_is_named(tmp_path: Path) -> None:
    (tmp_path / "demo" / "SKILL.md").mkdir(parents=True)
    write(tmp_path, "good", "name: good\ndescription: Good.\n")
    names, diags, _ = ours(tmp_path, "lenient")
    assert names == ["good"]
    assert kinds(diags) == [(Severity.WARNING, Code.SKILL_FILE_NOT_A_FILE, None)]
    assert diags[0].path == "demo/SKILL.md" and "is a directory" in diags[0].message


def test_a_long_frontmatter_before_a_long_body_in_a_memory_source() -> None:
    import fsspec

    fs = fsspec.filesystem("memory")
    base = "/spec-long-frontmatter"
    text = "---\nname: demo\ndescription: " + "word " * 4200 + "\n---\n" + "body line\n" * 6600
    fs.pipe(f"{base}/demo/SKILL.md", text.encode())
    try:
        lib = SkillLibrary([f"memory://{base}"])
        assert lib.discover().names == ("demo",)
        assert lib.read_document("demo").body.startswith("body line")
    finally:
        fs.rm(base, recursive=True)
