"""The search's second stage: a reranker hook, near-duplicate variants on one line, and
the compact candidate list."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import Catalog, SkillLibrary, SkillLocation, SkillMetadata, SkillSession
from skillcore.catalog import (
    COMPACT_RESULTS,
    SearchStyle,
    compact_line,
    index_for,
    rerank,
    with_variants,
)
from skillcore.runtime import SkillConfig
from skillcore.testing import write_skill
from skillcore.tools import SkillToolkit

TOPICS = [
    "zebra stripes",
    "quasar flares",
    "walrus tusks",
    "glacier crevasses",
    "tundra lichens",
    "volcano magma",
    "coral bleaching",
    "meteor craters",
]


def meta(name: str, desc: str) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("t", name, name))


def catalog() -> Catalog:
    return Catalog(
        tuple(
            meta(t.replace(" ", "-"), f"Survey {t} from field photos for reports.") for t in TOPICS
        )
    )


def by_name_length(query: str, candidates: Sequence[SkillMetadata]) -> list[float]:
    return [float(len(c.name)) for c in candidates]


def test_a_reranker_reorders_the_candidates_and_keeps_them_all() -> None:
    index = index_for(catalog())
    first = index.select("survey field photos reports", None, 8, "bm25")
    again = rerank(first, "survey field photos reports", by_name_length)
    names = [h.skill.name for h in again.hits]
    assert sorted(names) == sorted(h.skill.name for h in first.hits)
    assert [len(n) for n in names] == sorted((len(n) for n in names), reverse=True)
    assert again.abstained == first.abstained  # the first stage's verdict stands


def test_an_exact_name_stays_first() -> None:
    index = index_for(catalog())
    first = index.select("zebra stripes", None, 8, "bm25")
    assert first.hits[0].skill.name == "zebra-stripes"
    assert rerank(first, "zebra stripes", by_name_length).hits[0].skill.name == "zebra-stripes"


@pytest.mark.parametrize(
    "reranker",
    [
        lambda q, c: 1 / 0,
        lambda q, c: [1.0],
        lambda q, c: [math.nan] * len(c),
        lambda q, c: ["high"] * len(c),
    ],
    ids=["raises", "too-few", "nan", "not-a-number"],
)
def test_a_broken_reranker_costs_the_order_not_the_search(reranker, caplog) -> None:
    index = index_for(catalog())
    first = index.select("survey field photos reports", None, 8, "bm25")
    with caplog.at_level(logging.WARNING, "skillcore.search"):
        assert rerank(first, "survey field photos reports", reranker) == first
    assert "first stage's order" in caplog.text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=8, max_size=8))
def test_any_scores_reorder_without_adding_or_dropping(scores: list[float]) -> None:
    index = index_for(catalog())
    first = index.select("survey field photos reports", None, 8, "bm25")
    again = rerank(first, "survey field photos reports", lambda q, c: scores[: len(c)])
    assert sorted(h.skill.name for h in again.hits) == sorted(h.skill.name for h in first.hits)
    assert len(again.confidences) == len(first.confidences)


def family_catalog() -> Catalog:
    base = "Converts scanned invoices into ledger rows for accountants."
    variants = [meta("invoice-ledger", base)] + [
        meta(f"invoice-ledger-{q}", f"{base} {q.title()} edition.")
        for q in ("legacy", "eu", "us", "cloud", "desktop", "mobile", "beta")
    ]
    others = [meta(f"ledger-{t.split()[0]}", f"Ledger rows for {t} invoices.") for t in TOPICS]
    return Catalog(tuple(variants + others))


def test_variants_share_one_line_and_leave_room_for_other_skills(tmp_path: Path) -> None:
    cat = family_catalog()
    index = index_for(cat)
    hits = index.select("invoices ledger rows", None, 20, "bm25").hits
    lines = with_variants(index, hits)
    families = [c for c in lines if c.variants]
    assert len(families) == 1 and len(families[0].variants) == 7
    # Through the toolkit: one line names the variants, the other skills fill the rest.
    session = SkillSession(cat)
    toolkit = SkillToolkit(SkillLibrary([]), ranker="bm25")
    reply = toolkit.search_text(session, "invoices ledger rows", None)
    assert "(variants: invoice-ledger-" in reply and ", and 2 more)" in reply
    listed = [line for line in reply.splitlines() if line.startswith("- ")]
    assert sum(line.startswith("- invoice-ledger") for line in listed) == 1
    assert len(listed) == 9  # the family's line and the 8 other ledger skills


def test_compact_style_lists_twenty_one_line_candidates() -> None:
    skills = tuple(
        meta(f"skill-{i}", f"Survey item {i} of the archive. " + "Long detail. " * 40)
        for i in range(30)
    )
    toolkit = SkillToolkit(SkillLibrary([]), ranker="bm25", search_style="compact")
    reply = toolkit.search_text(SkillSession(Catalog(skills)), "survey archive item", None)
    listed = [line for line in reply.splitlines() if line.startswith("- ")]
    assert len(listed) == COMPACT_RESULTS
    assert all(line.endswith("of the archive.") for line in listed)
    assert reply.startswith("Candidate skills for query ")
    full = SkillToolkit(SkillLibrary([]), ranker="bm25").search_text(
        SkillSession(Catalog(skills)), "survey archive item", None
    )
    assert len(reply) < len(full)  # twice the candidates for fewer tokens


def test_compact_line_is_the_first_sentence_or_a_cut() -> None:
    assert compact_line(meta("a", "Does X.  Then Y.")) == "Does X."
    long = compact_line(meta("a", "word " * 60))
    assert long.endswith("…") and len(long) <= 90


def test_the_config_carries_the_second_stage_to_every_adapter(tmp_path: Path) -> None:
    for t in TOPICS:
        write_skill(tmp_path, t.replace(" ", "-"), f"Survey {t} from field photos.", "Body.")
    calls: list[str] = []

    def reranker(query: str, candidates: Sequence[SkillMetadata]) -> list[float]:
        calls.append(query)
        return [float(c.name == "tundra-lichens") for c in candidates]

    config = SkillConfig(reranker=reranker, search_style="compact", ranker="bm25")
    assert config.search_style is SearchStyle.COMPACT
    toolkit = config.toolkit(SkillLibrary([tmp_path]))
    reply = toolkit.search_text(SkillSession(toolkit.library.catalog), "survey field", None)
    assert calls == ["survey field"]
    assert reply.splitlines()[1].startswith("- tundra-lichens: ")
    with pytest.raises(ValueError, match="'wide' is not a valid SearchStyle"):
        SkillConfig(search_style="wide")
