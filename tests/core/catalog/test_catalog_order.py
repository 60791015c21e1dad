"""``catalog_order``: the toolkit's catalog filled by relevance to the latest user message."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    Limits,
    SkillConfig,
    SkillDocument,
    SkillLibrary,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    SkillToolkit,
)
from skillcore.catalog.relevance import CatalogOrder, query_text, relevant_catalog
from skillcore.catalog.render import CatalogFormat, catalog_view
from skillcore.catalog.terms import MAX_QUERY_CHARS
from skillcore.testing import EventRecorder


def meta(name: str, desc: str, **kw: object) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)  # type: ignore[arg-type]


CAT = Catalog(
    (
        *(meta(f"skill-{i:03d}", f"Generic helper number {i} for chores") for i in range(40)),
        meta("zz-pdf-extract", "Extract tables from PDF files"),
        meta("zz-hidden", "pdf secret", disable_model_invocation=True),
    )
)

BUDGET = 400
QUERY = "pull the tables out of a pdf"


def session(budget: int = BUDGET) -> SkillSession:
    return SkillSession(CAT, Limits(catalog_budget=budget))


def toolkit(order: str = "relevance", fmt: str = "markdown") -> SkillToolkit:
    return SkillToolkit(SkillLibrary([]), catalog_order=order, catalog_format=fmt)


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_relevance_order_shows_the_skill_the_message_is_about(fmt: str) -> None:
    s = session()
    relevance, precedence = toolkit("relevance", fmt), toolkit("precedence", fmt)
    text = relevance.instructions(s, query=QUERY)
    assert "zz-pdf-extract" in text
    assert text == relevant_catalog(s, QUERY, CatalogFormat(fmt)).text
    assert "zz-pdf-extract" not in precedence.instructions(s, query=QUERY)  # the query is unused
    assert relevance.instructions(s, query=QUERY) is text  # memoised: the same string


@pytest.mark.parametrize("query", [None, "", "  \n "])
def test_without_a_user_message_the_order_is_precedence(query: str | None) -> None:
    s = session()
    assert toolkit().instructions(s, query=query) == catalog_view(s).text


def test_the_order_is_one_config_knob_and_is_checked() -> None:
    config = SkillConfig(catalog_order="relevance")
    assert config.catalog_order is CatalogOrder.RELEVANCE
    assert config.toolkit(SkillLibrary([])).catalog_order is CatalogOrder.RELEVANCE
    assert SkillConfig().toolkit(SkillLibrary([])).catalog_order is CatalogOrder.PRECEDENCE
    with pytest.raises(ValueError, match="relevant"):
        SkillConfig(catalog_order="relevant")
    with pytest.raises(ValueError):
        SkillToolkit(SkillLibrary([]), catalog_order="random")


def test_budget_event_counts_named_skills_and_is_reported_once_per_change() -> None:
    # A budget that leaves room for a names line after the last description.
    budget = next(b for b in range(600, 700) if relevant_catalog(session(b), "pdf").named)
    s, tk = session(budget), toolkit()
    view = relevant_catalog(s, "pdf")
    with EventRecorder() as rec:
        tk.instructions(s, query="pdf")
        tk.instructions(s, query="pdf")  # a second model call of the same user message
        got = rec.take()
    assert [e.name for e in got] == ["catalog.budget_exceeded"]
    fields = got[0].fields
    shown = len(view.shown) + len(view.named)
    assert (fields["shown"], fields["omitted"], fields["budget"]) == (shown, view.omitted, budget)
    assert shown + view.omitted == len(CAT.model_visible)


def test_query_text_joins_strips_and_bounds() -> None:
    assert query_text([" check ", None, "", "this pdf\n"]) == "check \nthis pdf"
    assert query_text([]) is None
    assert query_text([None, " \t"]) is None
    long = query_text(["x" * (MAX_QUERY_CHARS * 3)])
    assert long is not None and len(long) == MAX_QUERY_CHARS


def test_a_long_message_is_one_query_past_what_the_ranking_reads() -> None:
    # Text past the ranking's cut cannot change the ranking; it must not change the text
    # (nor fill the cache with one entry per message length).
    s, tk = session(), toolkit()
    head = "pdf tables " + "y" * MAX_QUERY_CHARS
    assert tk.instructions(s, query=head + " more") is tk.instructions(s, query=head + " other")


@settings(settings.get_profile("skillcore"), max_examples=40, deadline=None)
@given(
    query=st.text(max_size=80),
    budget=st.integers(0, 1_500),
    loaded=st.sets(st.sampled_from([m.name for m in CAT.model_visible]), max_size=3),
)
def test_any_message_gives_one_stable_prompt_within_budget(
    query: str, budget: int, loaded: set[str]
) -> None:
    s = session(budget)
    for name in sorted(loaded):
        s = s.finish_load(_doc(CAT, name))[0]
    tk = toolkit()
    first = tk.instructions(s, query=query)
    assert tk.instructions(s, query=query) == first
    view = relevant_catalog(s, query) if query.strip() else None
    if view is not None:
        assert view.unloaded_chars <= budget
        assert view.text == first
    for name in loaded:
        assert f"**{name}** [Loaded]" in first


def _doc(catalog: Catalog, name: str) -> SkillDocument:
    return SkillDocument(catalog.get(name), "body")  # type: ignore[arg-type]
