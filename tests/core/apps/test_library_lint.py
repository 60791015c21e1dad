"""skillcore lint-library: overlap, request-stealing, over-general and too-short descriptions."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import SkillLocation, SkillMetadata
from skillcore.apps.cli import main
from skillcore.apps.evaluate import load_skill_facts
from skillcore.apps.library_lint import lint_library, probe_requests

ROOT = Path(__file__).resolve().parents[3]
PUBLIC = ROOT / "examples" / "evals" / "selection" / "skills.json"

TOPICS = [
    ("zebra", "stripes"),
    ("quasar", "flares"),
    ("walrus", "tusks"),
    ("glacier", "crevasses"),
    ("tundra", "lichens"),
    ("volcano", "magma"),
    ("coral", "bleaching"),
    ("meteor", "craters"),
]


def meta(name: str, desc: str, headings: tuple[str, ...] = ()) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("t", name, name), headings=headings)


def specific(i: int, a: str, b: str) -> SkillMetadata:
    return meta(
        f"{a}-survey",
        f"Counts {a} populations from field photographs for survey reports. Use when a "
        f"user uploads {a} photos from a field trip.",
        (f"Measure {a} {b}", f"Export {b} tables"),
    )


def library(*extra: SkillMetadata) -> list[SkillMetadata]:
    return [specific(i, a, b) for i, (a, b) in enumerate(TOPICS)] + list(extra)


def test_a_skill_that_wins_other_skills_probe_requests_is_a_black_hole() -> None:
    hole = meta(
        "field-notes",
        "Measure and export: " + ", ".join(f"{a} {b} tables" for a, b in TOPICS) + ".",
    )
    report = lint_library(library(hole))
    holes = [f for f in report.findings if f.rule == "black-hole"]
    assert [f.skills for f in holes] == [("field-notes",)]
    assert "8 unrelated skills (coral-survey" in holes[0].message and holes[0].fix
    # Without it, the same library has no black hole: every probe finds its own skill.
    assert not [f for f in lint_library(library()).findings if f.rule == "black-hole"]


def test_near_duplicates_are_an_overlap_not_a_black_hole() -> None:
    twins = [
        meta(
            f"{a}-survey{suffix}",
            f"Counts {a} populations from field photographs for survey reports{suffix}.",
            (f"Measure {a} {b}",),
        )
        for a, b in TOPICS[:1]
        for suffix in ("", "-legacy")
    ]
    report = lint_library(twins + library()[1:])
    rules = {f.rule for f in report.findings if "zebra-survey-legacy" in f.skills}
    assert rules == {"overlap"}


def test_over_general_wording_is_flagged_and_a_specific_claim_is_not() -> None:
    general = meta(
        "coding-helper",
        "Helps with any coding task: write, edit, review and test code in any language.",
    )
    docx = meta(
        "docx",
        "Use this skill whenever the user wants to create or edit Word documents (.docx "
        "files) with tracked changes.",
    )
    report = lint_library(library(general, docx))
    flagged = [f.skills for f in report.findings if f.rule == "over-general"]
    assert flagged == [("coding-helper",)]


def test_short_descriptions_and_missing_when() -> None:
    report = lint_library(
        library(
            meta("tiny", "Does pdf things."),
            meta(
                "plain",
                "Formats supplier invoices as tidy tables with totals, currency and due dates.",
            ),
        )
    )
    by_rule = {(f.rule, f.skills) for f in report.findings}
    assert ("too-short", ("tiny",)) in by_rule
    assert ("no-when", ("plain",)) in by_rule
    assert ("no-when", ("zebra-survey",)) not in by_rule


def test_boilerplate_headings_are_not_probes() -> None:
    skills = [
        meta(f"s{i}-{a}", f"Handles {a} for {b}.", ("Overview", f"Read {a} {b}"))
        for i, (a, b) in enumerate(TOPICS)
    ]
    probes = probe_requests(skills)
    assert all(request != "Overview" for _, request in probes)
    assert ("s0-zebra", "Read zebra stripes") in probes


def test_public_collections_have_no_over_general_false_positive() -> None:
    """On 431 real skills of public collections the wording rule flags none."""
    report = lint_library(load_skill_facts(PUBLIC))
    assert report.skills == 431
    assert not [f for f in report.findings if f.rule == "over-general"]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
            st.text(max_size=200),
            st.lists(st.text(max_size=40), max_size=3),
        ),
        max_size=12,
        unique_by=lambda t: t[0],
    )
)
def test_any_library_lints_without_raising(entries: list[tuple[str, str, list[str]]]) -> None:
    skills = [meta(n, d or "x", tuple(h)) for n, d, h in entries]
    report = lint_library(skills)
    names = {s.name for s in skills}
    assert all(set(f.skills) <= names and f.message and f.fix for f in report.findings)


def test_cli_lint_library(tmp_path: Path, capsys) -> None:
    for skill in library(meta("coding-helper", "Helps with any coding task in any language.")):
        folder = tmp_path / skill.name
        folder.mkdir()
        heads = "".join(f"\n## {h}\n" for h in skill.headings)
        (folder / "SKILL.md").write_text(
            f"---\nname: {skill.name}\ndescription: {skill.description}\n---\n{heads}",
            encoding="utf-8",
        )
    assert main(["lint-library", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "warning over-general: coding-helper" in out and "fix:" in out
    assert main(["lint-library", str(tmp_path), "--strict"]) == 1
    capsys.readouterr()
    assert main(["lint-library", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["skills"] == 9 and any(f["rule"] == "over-general" for f in data["findings"])
