"""The catalog budget at its exact edge: entries that sum to the budget all fit; one character
less leaves out exactly one (DESIGN §3 invariant 4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    CatalogFormat,
    Limits,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    catalog_view,
)

HUGE = 10**9
# Descriptions include characters the renderer escapes: the budget counts the rendered entry.
descriptions = st.text(
    alphabet=st.one_of(st.sampled_from('ab <&"\x1b\u202e\t\u00e9'), st.characters(codec="utf-8")),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip() != "")


@st.composite
def visible_catalogs(draw: st.DrawFn) -> Catalog:
    n = draw(st.integers(1, 8))
    return Catalog(
        tuple(
            SkillMetadata(
                f"skill-{i}",
                " ".join(draw(descriptions).split()) or "x",
                SkillLocation("src", f"skill-{i}", f"/skills/skill-{i}"),
            )
            for i in range(n)
        )
    )


def words(text: str) -> int:
    return len(text.split())


def unloaded_total(skills: tuple[SkillMetadata, ...], fmt: CatalogFormat, counter=len) -> int:
    """What the entries of ``skills`` cost together (all unloaded, nothing left out)."""
    if not skills:
        return 0
    view = catalog_view(SkillSession(Catalog(skills)), fmt, HUGE, counter)
    assert view.omitted == 0
    return view.unloaded_chars


@settings(deadline=None)
@given(visible_catalogs(), st.data(), st.sampled_from(list(CatalogFormat)), st.booleans())
def test_budget_edge(
    catalog: Catalog, data: st.DataObject, fmt: CatalogFormat, tokens: bool
) -> None:
    counter = words if tokens else len
    names = catalog.names
    k = data.draw(st.integers(1, len(names)), label="entries that exactly fill the budget")
    edge = unloaded_total(catalog.skills[:k], fmt, counter)
    session = SkillSession(catalog, limits=Limits(catalog_budget=edge))
    full = catalog_view(session, fmt, edge, counter)
    # At the edge the first k entries all fit, and the next one (if any) does not.
    assert full.shown[:k] == names[:k]
    assert full.unloaded_chars <= edge
    if unloaded_total(catalog.skills[: k + 1], fmt, counter) > edge:
        assert full.shown == names[:k]
        assert full.unloaded_chars == edge
        assert full.omitted == len(names) - k
    if k == len(names):
        assert full.omitted == 0
        assert "more skill" not in full.text
    # One unit less: the k-th entry no longer fits, nothing after it is shown either.
    short = catalog_view(session, fmt, edge - 1, counter)
    if unloaded_total(catalog.skills[: k - 1], fmt, counter) < edge:  # entry k costs something
        assert short.shown == names[: k - 1]
        assert short.omitted == len(names) - k + 1
        assert f"{short.omitted} more skill" in short.text
        assert short.unloaded_chars <= edge - 1


@settings(deadline=None)
@given(visible_catalogs(), st.sampled_from(list(CatalogFormat)))
def test_whole_catalog_exactly_at_budget(catalog: Catalog, fmt: CatalogFormat) -> None:
    total = unloaded_total(catalog.skills, fmt)
    session = SkillSession(catalog)
    view = catalog_view(session, fmt, total)
    assert view.shown == catalog.names and view.omitted == 0 and view.unloaded_chars == total
    less = catalog_view(session, fmt, total - 1)
    assert less.shown == catalog.names[:-1] and less.omitted == 1
    assert "1 more skill is not shown" in less.text
