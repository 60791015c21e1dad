"""``priority`` (lower numbers come first) orders the prompt's catalog when the budget cuts
it, and breaks search ties; file patterns match ignoring case; a skill without file
patterns applies to any path."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    CatalogFormat,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    catalog_view,
    search_skills,
)
from skillcore.catalog.relevance import relevant_catalog

from .strategies import catalogs

PROFILE = settings(settings.get_profile("skillcore"))


def meta(name: str, desc: str = "d", **kw: object) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)  # type: ignore[arg-type]


def load(session: SkillSession, name: str) -> SkillSession:
    doc = SkillDocument(session.catalog.get(name), "body")  # type: ignore[arg-type]
    new, outcome = session.finish_load(doc)
    assert outcome.code.value == "LOADED", outcome
    return new


def names(skills: tuple[SkillMetadata, ...]) -> list[str]:
    return [s.name for s in skills]


# -- the order ---------------------------------------------------------------------------


def test_by_priority_is_lower_first_then_precedence() -> None:
    cat = Catalog(
        (
            meta("a"),
            meta("b", priority=5),
            meta("c", priority=-1),
            meta("d"),
            meta("e", priority=-1),
            meta("hidden", priority=-9, disable_model_invocation=True),
        )
    )
    assert names(cat.by_priority) == ["c", "e", "a", "d", "b"]
    assert cat.by_priority is cat.by_priority  # computed once per catalog


def test_without_priorities_the_order_is_the_precedence_order_itself() -> None:
    cat = Catalog((meta("b"), meta("a")))
    assert cat.by_priority is cat.model_visible


def test_a_cut_catalog_keeps_the_first_by_priority() -> None:
    skills = [meta(f"helper-{i:02d}", "Generic helper for chores.") for i in range(40)]
    skills.append(meta("zz-urgent", "The one that matters.", priority=-10))
    skills.append(meta("aa-last", "Shown last.", priority=10))
    session = SkillSession(Catalog(skills))
    view = catalog_view(session, CatalogFormat.MARKDOWN, 400)
    assert view.shown[0] == "zz-urgent" and view.omitted > 0
    assert "aa-last" not in view.shown
    # Loading it moves it to the loaded part; the next by priority takes its place.
    loaded = catalog_view(load(session, "zz-urgent"), CatalogFormat.MARKDOWN, 400)
    assert loaded.loaded == ("zz-urgent",) and loaded.shown[0] == "helper-00"
    # The relevance catalog falls back to the same order without a user message.
    assert relevant_catalog(session, None, budget=400).shown[0] == "zz-urgent"


@PROFILE
@given(
    catalogs(min_size=1),
    st.integers(0, 3_000),
    st.sampled_from(list(CatalogFormat)),
    st.data(),
)
def test_shown_entries_are_a_prefix_of_the_priority_order(
    catalog: Catalog, budget: int, fmt: CatalogFormat, data: st.DataObject
) -> None:
    visible = names(catalog.by_priority)
    # The order itself: priority ascending, catalog (precedence) order among equals.
    position = {name: i for i, name in enumerate(catalog.names)}
    keys = [(catalog.get(n).priority, position[n]) for n in visible]  # type: ignore[union-attr]
    assert keys == sorted(keys)
    assert set(visible) == catalog.model_visible_names
    session = SkillSession(catalog)
    chosen = (
        data.draw(st.lists(st.sampled_from(visible), unique=True, max_size=2)) if visible else []
    )
    for name in chosen:
        session = load(session, name)
    view = catalog_view(session, fmt, budget)
    rest = [n for n in visible if n not in chosen]
    assert list(view.shown) == rest[: len(view.shown)]
    assert view.omitted == len(rest) - len(view.shown)
    assert view.unloaded_chars <= budget


# -- search ------------------------------------------------------------------------------


def test_a_path_alone_lists_matches_then_skills_without_patterns() -> None:
    cat = Catalog(
        (
            meta("general", "Anything."),
            meta("csv", "Tables.", file_patterns=("*.csv",)),
            meta("md", "Docs.", file_patterns=("*.md",)),
            meta("urgent-general", "Anything first.", priority=-1),
        )
    )
    hits = search_skills(cat, None, "data/REPORT.CSV")
    assert [h.skill.name for h in hits] == ["csv", "urgent-general", "general"]
    assert hits[0].reasons == ("file pattern '*.csv'",)
    assert hits[1].reasons == ("no file patterns (applies to any path)",)
    assert hits[1].score == 0.0
    # The limit bounds the general skills too; a skill whose patterns all miss is never listed.
    assert [h.skill.name for h in search_skills(cat, None, "x.csv", limit=2)] == [
        "csv",
        "urgent-general",
    ]
    assert "md" not in [h.skill.name for h in search_skills(cat, None, "x.py")]
    # With a query, a path adds weight to matching patterns; general skills compete on words.
    assert [h.skill.name for h in search_skills(cat, "tables", "x.md")] == ["md", "csv"]


def test_path_matches_ignore_case_both_ways() -> None:
    cat = Catalog((meta("upper", "x", file_patterns=("*.PDF", "Dockerfile")),))
    for path in ("a/b.pdf", "A/B.PDF", "dockerfile", "srv/DOCKERFILE"):
        assert [h.skill.name for h in search_skills(cat, None, path)] == ["upper"], path


def test_search_ties_and_the_no_filter_list_follow_the_catalog_order() -> None:
    cat = Catalog(tuple(meta(f"s{i}", "same", priority=p) for i, p in enumerate((2, 0, -3, 0))))
    order = names(cat.by_priority)
    assert [h.skill.name for h in search_skills(cat, "same")] == order
    assert [h.skill.name for h in search_skills(cat)] == order


@PROFILE
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["*.csv", "*.MD", "docs/*", "Makefile"]), max_size=2),
            st.integers(-2, 2),
        ),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["a.CSV", "docs/x.md", "makefile", "src/y.py", "DOCS/z.txt"]),
    st.integers(1, 15),
)
def test_a_path_alone_is_matches_then_general_skills(
    spec: list[tuple[list[str], int]], path: str, limit: int
) -> None:
    cat = Catalog(
        tuple(
            meta(f"s{i}", "d", file_patterns=tuple(p), priority=prio)
            for i, (p, prio) in enumerate(spec)
        )
    )
    got = [h.skill.name for h in search_skills(cat, None, path, limit=limit)]
    folded = path.lower()

    def matches(skill: SkillMetadata) -> bool:
        name = folded.rsplit("/", 1)[-1]
        return any(
            p.lower() == folded
            or p.lower() == name
            or (p.startswith("*") and folded.endswith(p[1:].lower()))
            or (p.endswith("/*") and folded.startswith(p[:-1].lower()))
            for p in skill.file_patterns
        )

    matched = {s.name for s in cat.by_priority if matches(s)}
    general = [s.name for s in cat.by_priority if not s.file_patterns]
    head = got[: min(len(matched), limit)]
    # Every matching skill before any general one; a skill whose patterns miss: never.
    assert set(head) <= matched and len(head) == min(len(matched), limit)
    assert got[len(head) :] == general[: limit - len(head)]
