"""The relevance-aware catalog: budget, order, names tier, exact count, determinism."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import Catalog, SkillDocument, SkillLocation, SkillMetadata, SkillSession
from skillcore.catalog.relevance import relevant_catalog
from skillcore.catalog.render import CatalogFormat, catalog_view
from skillcore.limits import Limits


def meta(name: str, desc: str = "d", **kw) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)


CAT = Catalog(
    (
        *(meta(f"skill-{i:03d}", f"Generic helper number {i} for chores") for i in range(40)),
        meta("zz-pdf-extract", "Extract tables from PDF files"),
        meta("zz-hidden", "pdf secret", disable_model_invocation=True),
    )
)


def session(budget: int) -> SkillSession:
    return SkillSession(CAT, Limits(catalog_budget=budget))


def test_relevant_skill_comes_first_where_precedence_would_drop_it() -> None:
    s = session(400)
    assert "zz-pdf-extract" not in catalog_view(s).shown
    view = relevant_catalog(s, "pull the tables out of a pdf")
    assert view.shown[0] == "zz-pdf-extract"
    assert "zz-hidden" not in view.shown + view.named
    assert view.text.count("zz-pdf-extract") == 1


def test_names_tier_and_exact_count() -> None:
    # Some budget leaves room after the last description for a names line.
    views = [relevant_catalog(session(b), "pdf", budget=b) for b in range(600, 700)]
    view = next(v for v in views if v.named)
    assert "- Also available (names only): " + ", ".join(view.named) + "\n" in view.text
    assert all(v.unloaded_chars <= b for v, b in zip(views, range(600, 700)))
    visible = len(CAT.model_visible)
    assert len(view.shown) + len(view.named) + view.omitted == visible
    assert f"{view.omitted} more skills are not shown here" in view.text


def test_no_query_is_precedence_order_and_results_are_memoised() -> None:
    s = session(2_000)
    view = relevant_catalog(s, None)
    assert view.shown == catalog_view(s).shown[: len(view.shown)]
    assert relevant_catalog(s, "pdf") is relevant_catalog(s, "pdf")


def test_loaded_skills_are_always_listed_and_xml_is_well_formed() -> None:
    s = session(300)
    s, _ = s.finish_load(SkillDocument(CAT.get("skill-007"), "body"))  # type: ignore[arg-type]
    view = relevant_catalog(s, "pdf", CatalogFormat.XML)
    assert view.loaded == ("skill-007",)
    assert "skill-007" in view.text
    assert view.text.count("<skill>") == view.text.count("</skill>")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3_000), st.sampled_from(["pdf", "chores 7", "", "helper 12 tables"]))
def test_budget_is_never_exceeded_and_counts_add_up(budget: int, query: str) -> None:
    for fmt in CatalogFormat:
        view = relevant_catalog(session(max(budget, 1)), query, fmt, budget=budget)
        assert view.unloaded_chars <= budget
        assert len(view.shown) + len(view.named) + view.omitted == len(CAT.model_visible)
        assert len(set(view.shown + view.named)) == len(view.shown) + len(view.named)
