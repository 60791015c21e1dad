"""Near-duplicate families: the general skill before its scoped variants, one place per
family among the first results, nothing added or dropped."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import Catalog, SkillLocation, SkillMetadata, search_skills
from skillcore.catalog.families import Families, family_key
from skillcore.catalog.ranking import SearchIndex
from skillcore.catalog.semantic import semantic_available
from skillcore.catalog.terms import tokens


def meta(name: str, desc: str, **kw) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw)


FIRST = "Reference for the payments API with model ids, pricing and request limits."
SCOPES = {
    "legacy": "Legacy variant kept for projects still on the old toolchain.",
    "finance": "Scoped to the finance team's templates and naming rules.",
    "airgap": "For air-gapped environments with no network access.",
    "lite": "Lightweight version for quick one-off tasks on laptops.",
    "mobile": "Only for the mobile apps' repositories.",
}


def crowded() -> Catalog:
    """A general skill, five scoped variants with shorter descriptions (so BM25 ranks them
    higher for the shared words), and two other skills the query also matches."""
    skills = [
        meta(
            "payments-api",
            f"{FIRST} Use it when writing code that calls the payments client, picks a model "
            "or estimates what a request costs, including retries, streaming and batching.",
        )
    ]
    skills += [meta(f"payments-api-{tag}", f"{FIRST} {scope}") for tag, scope in SCOPES.items()]
    skills += [
        meta("pricing-page", "Design a pricing page with plan tiers and a comparison table."),
        meta("rate-limits", "Explain the request limits and quotas of a public api to users."),
    ]
    return Catalog(tuple(skills))


RANKERS = ["bm25", "hybrid"] if semantic_available() else ["bm25"]


def test_family_key_is_the_first_sentence_and_short_ones_make_none() -> None:
    assert family_key(FIRST + " More.") == family_key(FIRST.upper() + "   Other text!")
    assert family_key("Helper for tasks. Does things.") is None  # too few words
    assert family_key("same words") is None  # the tie-break tests use such descriptions


@pytest.mark.parametrize("ranker", RANKERS)
def test_the_general_skill_comes_before_its_scoped_variants(ranker: str) -> None:
    cat = crowded()
    # Without folding, the shorter variants outrank the general skill on the shared words
    # (BM25 favours short descriptions) and fill the first five places.
    raw = [SearchIndex(cat.skills).bm25("payments api pricing request limits", None, 10)]
    assert cat.skills[raw[0][0][0]].name != "payments-api"
    hits = search_skills(cat, "payments api pricing request limits", ranker=ranker)
    names = [h.skill.name for h in hits]
    assert names[0] == "payments-api"
    # One place for the family among the first results: the other candidates come next.
    assert {"pricing-page", "rate-limits"} <= set(names[:3])
    # Nothing is dropped: the variants follow.
    assert set(names) >= {f"payments-api-{t}" for t in SCOPES}


@pytest.mark.parametrize("ranker", RANKERS)
def test_a_request_naming_the_scope_gets_that_variant(ranker: str) -> None:
    hits = search_skills(crowded(), "payments api pricing for the mobile apps", ranker=ranker)
    assert hits[0].skill.name == "payments-api-mobile"


def test_an_exact_name_stays_first_and_its_family_keeps_one_place() -> None:
    hits = search_skills(crowded(), "payments-api-lite")
    names = [h.skill.name for h in hits]
    assert names[0] == "payments-api-lite"
    assert names.index("payments-api") > names.index("rate-limits")


def test_a_catalog_without_near_duplicates_ranks_as_bm25() -> None:
    cat = Catalog(
        (
            meta("csv-audit", "Audit csv files for duplicate rows and nulls in the data."),
            meta("pdf-tables", "Extract tables from pdf files into csv for the data team."),
        )
    )
    index = SearchIndex(cat.skills)
    assert len(index._families) == 0
    assert [(h.skill.name, h.score) for h in index.search("csv data", None, 10)] == [
        (index.skills[d].name, s) for d, s in index.bm25("csv data", None, 10)
    ]


WORDS = ["alpha", "beta", "gamma", "delta"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["", "-x", "-y", "-x-y"])),
        min_size=1,
        max_size=30,
    ),
    st.lists(st.sampled_from([*WORDS, "x", "y"]), min_size=1, max_size=4).map(" ".join),
    st.integers(1, 12),
)
def test_folding_moves_results_but_never_adds_or_drops_one(skills, query, limit) -> None:
    # Families of skills sharing a first sentence, named base, base-x, base-y, base-x-y.
    metas = {}
    for i, (fam, suffix) in enumerate(skills):
        name = f"fam{fam}{suffix}" if f"fam{fam}{suffix}" not in metas else f"s{i}"
        first = f"{WORDS[fam]} one two three four five."
        metas[name] = meta(name, f"{first} {WORDS[i % 4]} {name.replace('-', ' ')}")
    index = SearchIndex(Catalog(tuple(metas.values())).skills)
    deep = index.bm25(query, None, 100)
    folded = index._families.fold(deep, tokens(query), index._exact(query))
    assert sorted(folded) == sorted(deep)
    # A family has at most one place before the first result of another skill that ranked
    # after the family's first member.
    seen: set[int] = set()
    for pos, (doc, _) in enumerate(folded):
        family = index._families.family_of(doc)
        if family is not None and family in seen:
            rest = folded[pos:]
            assert all(index._families.family_of(d) is not None for d, _ in rest)
            break
        if family is not None:
            seen.add(family)
    hits = index.search(query, None, limit)
    assert len(hits) == min(limit, len(deep))


def test_families_group_by_first_sentence_and_know_qualifiers() -> None:
    cat = crowded()
    fams = Families(cat.skills, tokens)
    assert len(fams) == 1 + len(SCOPES)
    by_name = {s.name: d for d, s in enumerate(cat.skills)}
    assert fams.qualifiers[by_name["payments-api-airgap"]] == frozenset({"airgap"})
    assert by_name["payments-api"] not in fams.qualifiers


def test_a_short_first_sentence_makes_a_family_only_of_named_variants() -> None:
    # "IBM quantum computing framework." is too short to say two skills are one, unless
    # their names say so too: qiskit-legacy and qiskit-mobile extend qiskit.
    short = "IBM quantum computing framework."
    cat = Catalog(
        (
            meta("qiskit", f"{short} Circuits, transpiling and running jobs on IBM backends."),
            meta("qiskit-legacy", f"{short} {SCOPES['legacy']}"),
            meta("qiskit-mobile", f"{short} {SCOPES['mobile']}"),
            meta("quantum-notes", f"{short} Notes on quantum algorithms."),
            meta("helper", "Helper. Runs the formatter."),
            meta("helper-lite", "Helper. Runs the linter."),
            meta("tools", "Helper. Does other things."),
        )
    )
    fams = Families(cat.skills, tokens)
    by_name = {s.name: d for d, s in enumerate(cat.skills)}
    number = fams.family_of(by_name["qiskit"])
    assert number is not None
    assert fams.family_of(by_name["qiskit-legacy"]) == number
    assert fams.family_of(by_name["qiskit-mobile"]) == number
    assert fams.family_of(by_name["quantum-notes"]) is None  # same sentence, unrelated name
    assert fams.family_of(by_name["tools"]) is None
    assert fams.family_of(by_name["helper"]) == fams.family_of(by_name["helper-lite"])
    assert fams.family_of(by_name["helper"]) not in (None, number)
    assert fams.qualifiers[by_name["qiskit-legacy"]] == frozenset(tokens("legacy"))
    # Folded: one place for the family, the general skill in it.
    names = [h.skill.name for h in search_skills(cat, "IBM quantum computing framework")]
    assert set(names[:2]) == {"qiskit", "quantum-notes"}


def test_one_huge_family_builds_in_linear_time_and_folds_to_one_place() -> None:
    # 20,000 skills with one description: comparing every pair of names would take
    # hundreds of millions of steps; one look-up per hyphen does not.
    desc = "Audit a data export for duplicate rows and missing values."
    skills = [meta("audit", desc)] + [meta(f"audit-v{i}", desc) for i in range(20_000)]
    fams = Families(skills, tokens)
    assert len(fams) == len(skills)
    assert fams.qualifiers[1] == frozenset({"v0"})
    ranked = [(d, 1.0) for d in range(len(skills) - 1, len(skills) - 101, -1)] + [(0, 0.5)]
    folded = fams.fold(ranked, tokens("audit duplicate rows"))
    assert folded[0][0] == 0  # the unqualified member takes the family's place
    assert sorted(folded) == sorted(ranked)
