"""The fitted feature reranker, and a second stage that ranks before abstention cuts."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.extras import needs

from skillcore import Catalog, SkillLibrary, SkillLocation, SkillMetadata, SkillSession
from skillcore.catalog import ABSTAIN_KEEP, index_for, rerank
from skillcore.runtime import SkillConfig
from skillcore.testing import write_skill
from skillcore.tools import SkillToolkit

from .test_encoder_rerank import Hashed, tiny_encoder

ONNX = needs("onnxruntime", "onnx", "tokenizers", "numpy")


def meta(name: str, desc: str) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("t", name, name))


def weak_catalog(tmp_path: Path) -> Path:
    """Skills that each share one rare word of a five-word request: BM25 abstains."""
    for i, word in enumerate(("alpha", "beta", "gamma", "delta", "kappa", "omega")):
        write_skill(tmp_path, f"skill-{word}", f"Handle {word} things, case {i}.", "B.")
    return tmp_path


QUERY = "alpha beta gamma delta kappa omega sigma tau"


def prefer(name: str):  # type: ignore[no-untyped-def]
    def scores(query: str, candidates: Sequence[SkillMetadata]) -> list[float]:
        return [1.0 if c.name == name else 0.0 for c in candidates]

    return scores


def test_an_abstaining_search_keeps_the_rerankers_best_not_the_first_stages(
    tmp_path: Path,
) -> None:
    library = SkillLibrary([weak_catalog(tmp_path)])
    plain = SkillConfig(ranker="bm25").toolkit(library)
    session = SkillSession(plain.library.catalog)
    before = plain.select(session, QUERY)
    assert before.abstained and len(before.hits) == ABSTAIN_KEEP
    everyone = {s.name for s in session.catalog.skills}
    last = sorted(everyone - {h.skill.name for h in before.hits})[0]  # abstention cut it off
    toolkit = SkillConfig(ranker="bm25", reranker=prefer(last)).toolkit(library)
    after = toolkit.select(session, QUERY)
    assert after.abstained  # the verdict stands
    assert len(after.hits) == ABSTAIN_KEEP and after.hits[0].skill.name == last
    assert len(after.confidences) == ABSTAIN_KEEP
    assert {h.skill.name for h in after.hits + after.withheld} == everyone
    reply = toolkit.search_text(session, QUERY, None)
    assert reply.splitlines()[1].startswith(f"- {last}")


@ONNX
def test_the_feature_reranker_reorders_through_the_toolkit(tmp_path: Path) -> None:
    from skillcore.catalog.feature_rerank import FeatureReranker

    write_skill(tmp_path, "pdf", "Extract tables from pdf files.", "B.")
    legacy = "Extract tables from pdf files for the legacy reader."
    write_skill(tmp_path, "pdf-legacy", legacy, "B.")
    for i, w in enumerate(("bread", "banana", "duplicate")):
        write_skill(tmp_path, f"other-{i}", f"Sort {w} rows.", "B.")
    encoder = tiny_encoder(tmp_path)
    library = SkillLibrary([tmp_path])
    session = SkillSession(SkillConfig(ranker="bm25").toolkit(library).library.catalog)
    # A first stage that puts the scoped variant first: the reranker puts it back.
    first = ["pdf-legacy", "pdf", "other-0", "other-1", "other-2"]

    def fixed(query: str, candidates: Sequence[SkillMetadata]) -> list[float]:
        return [-float(first.index(c.name)) for c in candidates]

    reranker = FeatureReranker(encoder, cache=False)
    toolkit = SkillToolkit(library, ranker="bm25", reranker=lambda q, c: reranker(q, c))
    staged = SkillToolkit(library, ranker="bm25", reranker=fixed)
    staged_hits = staged.select(session, "pdf tables").hits
    assert [h.skill.name for h in staged_hits][:2] == ["pdf-legacy", "pdf"]
    scores = reranker("pdf tables", [h.skill for h in staged_hits])
    assert scores[1] > scores[0]  # the variant nobody asked for scores lower
    hits = toolkit.select(session, "pdf tables").hits
    assert hits[0].skill.name == "pdf"
    assert sorted(h.skill.name for h in hits) == sorted(h.skill.name for h in staged_hits)
    asked = reranker("pdf tables for the legacy reader", [h.skill for h in staged_hits])
    assert asked[0] > asked[1]  # asked for by its qualifier: no penalty


@needs("numpy")
@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(st.sampled_from(["pdf", "csv", "rows", "tables", "notes", "audio"]), min_size=2),
    query=st.text(min_size=1, max_size=40),
)
def test_never_adds_nor_drops_and_is_deterministic(words: list[str], query: str) -> None:
    from skillcore.catalog.feature_rerank import FeatureReranker

    skills = tuple(meta(f"s-{i}-{w}", f"Handle {w} files, case {i}.") for i, w in enumerate(words))
    scores = FeatureReranker(Hashed(), cache=False)(query, skills)
    assert len(scores) == len(skills) and all(s == s and abs(s) < 1e6 for s in scores)
    assert FeatureReranker(Hashed(), cache=False)(query, skills) == scores
    reranker = FeatureReranker(Hashed(), cache=False)
    first = index_for(Catalog(skills)).select("handle files", None, 30, "bm25")
    again = rerank(first, "handle files", reranker)
    assert sorted(h.skill.name for h in again.hits) == sorted(h.skill.name for h in first.hits)
    assert again.abstained == first.abstained
    assert rerank(first, "handle files", reranker) == again


class Broken(Hashed):
    def embed(self, texts: Sequence[str]) -> object:
        raise RuntimeError("the encoder is gone")


@needs("numpy")
def test_a_failing_encoder_keeps_the_first_stages_order(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from skillcore.catalog.feature_rerank import FeatureReranker

    library = SkillLibrary([weak_catalog(tmp_path)])
    plain = SkillConfig(ranker="bm25").toolkit(library)
    session = SkillSession(plain.library.catalog)
    broken = SkillConfig(ranker="bm25", reranker=FeatureReranker(Broken(), cache=False))
    with caplog.at_level(logging.WARNING, logger="skillcore.search"):
        got = broken.toolkit(library).select(session, QUERY)
    assert got == plain.select(session, QUERY)
    assert "the search reranker failed" in caplog.text


@needs("numpy")
def test_bad_weights_are_refused() -> None:
    from skillcore.catalog.feature_rerank import FEATURES, FeatureReranker

    with pytest.raises(ValueError, match="finite numbers, one per feature"):
        FeatureReranker(Hashed(), weights=(1.0,))
    with pytest.raises(ValueError, match="finite numbers"):
        FeatureReranker(Hashed(), weights=(float("nan"),) * len(FEATURES))
    with pytest.raises(TypeError, match="embed"):
        FeatureReranker(object())  # type: ignore[arg-type]
    assert FeatureReranker(Hashed())("q", []) == []


class ByWord(Hashed):
    """An Embedder whose vector of a text is its count of each of three words."""

    def embed(self, texts: Sequence[str]) -> object:
        import numpy as np

        rows = np.array(
            [[t.count(w) + 0.01 for w in ("alpha", "beta", "gamma")] for t in texts],
            dtype=np.float32,
        )
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@needs("numpy")
def test_a_candidate_among_look_alikes_is_crowded() -> None:
    from skillcore.catalog.feature_rerank import FEATURES, FeatureReranker

    skills = [meta(f"alike-{i}", "Alpha alpha beta.") for i in range(3)]
    skills.append(meta("apart", "Gamma gamma."))
    rows = FeatureReranker(ByWord(), cache=False).features("alpha gamma", skills)
    crowding = rows[:, FEATURES.index("crowding")]
    assert crowding[0] > 0.6 and crowding[3] < 0.2  # two of its three nearest are alike
    assert FeatureReranker(ByWord(), cache=False).features("alpha", skills[:1])[0, -1] == 0.0


@needs("numpy")
def test_a_reranker_on_the_first_stages_encoder_reuses_its_query_vector(tmp_path: Path) -> None:
    from skillcore.catalog import Calibration, Encoding
    from skillcore.catalog.encoder_rerank import EncoderReranker
    from skillcore.catalog.feature_rerank import FeatureReranker

    for i, word in enumerate(("pdf", "csv", "notes", "slides", "mail")):
        write_skill(tmp_path, f"{word}-kit", f"Work with {word} files, case {i}.", "B.")
    library = SkillLibrary([tmp_path])
    query = "pdf files"
    # Two instances of one encoder (one id), as users build them: the search's and the
    # reranker's; the query is embedded once per search between them.
    for make in (FeatureReranker, EncoderReranker):
        first, second = Hashed(), Hashed()
        encoding = Encoding(first, mode="replace", calibration=Calibration(0.0, 0.0), cache=False)
        toolkit = SkillToolkit(
            library, ranker="hybrid", encoding=encoding, reranker=make(second, cache=False)
        )
        session = SkillSession(toolkit.library.catalog)
        hits = toolkit.select(session, query).hits
        assert len(hits) == 5
        asked = [t for t in first.embedded + second.embedded if t == query]
        assert asked == [query]
        toolkit.select(session, query)  # the next search embeds it again: never a stale vector
        assert [t for t in first.embedded + second.embedded if t == query] == [query, query]
    # A plain callable still works beside the shared vectors.
    plain = SkillToolkit(
        library,
        ranker="hybrid",
        encoding=Encoding(Hashed(), mode="replace", calibration=Calibration(0.0, 0.0), cache=False),
        reranker=lambda q, c: [float(len(x.name)) for x in c],
    )
    names = [h.skill.name for h in plain.select(SkillSession(plain.library.catalog), query).hits]
    assert names[0] == "slides-kit" and len(names) == 5  # the longest name: its order
