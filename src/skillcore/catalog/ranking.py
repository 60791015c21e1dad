"""Skill ranking: a BM25 index over names, descriptions, triggers and file patterns.

The index is built once per catalog (memoised by identity, held weakly) and answers a query
in well under 10 ms at 100,000 skills: postings are per-term arrays of precomputed BM25
impacts, and a MaxScore-style cut stops scanning long posting lists of common words as soon
as they can no longer change the top results (the answer stays exact).

Ranking, best first: an exact name match; then the score (BM25F over the fields, plus a
file-pattern match treated as one more, rare or common, term); then ``priority`` (lower
first, the order :attr:`Catalog.by_priority` fills the prompt's catalog in); then catalog
(precedence) order. Everything is deterministic.

File patterns match case-insensitively. A path alone lists the skills whose patterns match
it, then (as general skills that apply to any path) the skills without file patterns, in
priority order; a skill whose patterns all miss the path is not listed.

An optional semantic ranker (static word embeddings from the ``wordllama`` package, whose
weights ship inside the wheel, pooled with the catalog's IDF weights) is blended with BM25,
each scaled to 0..1 over its best results; see :func:`semantic_available`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs

from skillcore.catalog.families import Families
from skillcore.catalog.lexical import VECTOR_MIN_SKILLS, LexicalIndex
from skillcore.catalog.postings import BEST_KEPT, BUILD_VECTOR_MIN_SKILLS
from skillcore.catalog.semantic import (
    COARSE_DEPTH,
    COARSE_DIMS,
    EXACT_SCAN_MAX,
    IDF_OFFSET,
    MAX_EMBED_TOKENS,
    SEMANTIC_DIMS,
    SemanticIndex,
    StaticEmbedder,
    semantic_available,
    skill_text,
)
from skillcore.catalog.terms import (
    FIELD_WEIGHTS,
    K1,
    MAX_PATH_CHARS,
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    PATH_WEIGHT,
    STOPWORDS,
    B,
    pattern_matches,
    query_terms,
    tokens,
)
from skillcore.memo import per_catalog
from skillcore.model import Catalog, SkillMetadata
from skillcore.typos import NameIndex

Ranker = Literal["auto", "bm25", "hybrid"]
#: The rankers by name.
RANKERS: tuple[Ranker, ...] = ("auto", "bm25", "hybrid")

#: How deep each ranker's list goes into the hybrid fusion, and the lexical share of the
#: blended score (each ranker's scores scaled to 0..1 over its own list; 0.6 measured best of
#: 0.4/0.5/0.6 on the development routing set at 1,000 and 10,000 skills).
FUSION_DEPTH = 100
BLEND_LEXICAL = 0.6
#: Give the lexical side at least the share of the query's word weight its best match holds.
ADAPTIVE_BLEND = True
#: "No close match": a query whose best skill is less similar than this (cosine of the
#: embeddings, semantic ranker) is answered with at most :data:`ABSTAIN_KEEP` weak results and
#: a reply that says nothing fits well. Calibrated on the development routing set: 0.32 makes
#: 95-100% of requests no skill serves abstain, and 7-8% of routed ones (whose right skill is
#: then almost always among the 3 kept).
ABSTAIN_SIMILARITY = 0.32
#: The same for BM25 alone: the share of the query's weight (IDF of its words) that the best
#: skill contains. 0.3: 85-90% of unserved requests abstain on the development set, but so do
#: about 30% of routed ones (words alone cannot tell a paraphrase from an unrelated request);
#: their skill is then still among the 3 kept but for under 1%.
ABSTAIN_COVERAGE = 0.3
#: How many results an abstaining search still shows (the closest, marked as weak).
ABSTAIN_KEEP = 3
#: A skill that shares no word with the query is listed only from this similarity on.
SEMANTIC_ONLY_MIN = ABSTAIN_SIMILARITY
#: How deep BM25's list goes for a query in a catalog with near-duplicates, so that folding
#: them (:mod:`skillcore.catalog.families`) can bring other candidates into the first results.
FOLD_DEPTH = 50


# -- results --------------------------------------------------------------------------------


@attrs.frozen
class SearchHit:
    """One search result with its score and why it matched."""

    skill: SkillMetadata
    score: float
    reasons: tuple[str, ...]


@attrs.frozen
class Selection:
    """A ranked search with its verdict: ``abstained`` when no skill is a close match (then
    ``hits`` holds at most :data:`ABSTAIN_KEEP` weak ones). ``confidence`` is what was
    compared with the threshold: the best skill's embedding similarity (semantic ranker) or
    the share of the query's word weight it contains (BM25); 1.0 for an exact name, and for
    a path-only or empty query, which never abstain."""

    hits: tuple[SearchHit, ...]
    abstained: bool
    confidence: float
    ranker: Literal["bm25", "hybrid"]
    #: Each hit's own confidence, measured like ``confidence`` (a hit at or above the
    #: threshold is a close match).
    confidences: tuple[float, ...] = ()

    @property
    def close(self) -> tuple[SearchHit, ...]:
        """The hits that are close matches themselves (none when abstained)."""
        if self.abstained:
            return ()
        threshold = ABSTAIN_SIMILARITY if self.ranker == "hybrid" else ABSTAIN_COVERAGE
        return tuple(h for h, c in zip(self.hits, self.confidences) if c >= threshold)


class SearchIndex(LexicalIndex):
    """The search index of one catalog: BM25 (:class:`LexicalIndex`), fused with the semantic
    ranker when asked, with abstention and name suggestions (immutable)."""

    def __init__(self, skills: Iterable[SkillMetadata]) -> None:
        super().__init__(skills)
        self._semantic: Any = None
        self._names: NameIndex | None = None

    def search(
        self,
        query: str | None = None,
        path: str | None = None,
        limit: int = 10,
        ranker: Ranker = "bm25",
    ) -> list[SearchHit]:
        """Rank skills for a keyword ``query`` and/or a file ``path``.

        ``ranker``: ``"bm25"``; ``"hybrid"`` (BM25 fused with the semantic ranker; raises
        ImportError naming the extra to install when it is missing); ``"auto"`` (hybrid when
        the semantic extra is installed, else BM25).
        """
        use_semantic = _uses_semantic(ranker)
        q = (query or "").strip()
        if use_semantic and q and limit > 0:
            ranked = self._hybrid(q, path, limit)
        else:
            ranked = self._lexical(query, path, limit)
        return [SearchHit(self.skills[d], s, self.reasons(d, query, path)) for d, s in ranked]

    def select(
        self,
        query: str | None = None,
        path: str | None = None,
        limit: int = 10,
        ranker: Ranker = "bm25",
    ) -> Selection:
        """:meth:`search` with abstention: when the best skill is not a close match (see
        :data:`ABSTAIN_SIMILARITY` and :data:`ABSTAIN_COVERAGE`), at most
        :data:`ABSTAIN_KEEP` results and ``abstained=True``."""
        use_semantic = _uses_semantic(ranker)
        q = (query or "").strip()
        used: Literal["bm25", "hybrid"] = "hybrid" if use_semantic else "bm25"
        if not q or limit <= 0:
            return Selection(tuple(self.search(query, path, limit, ranker)), False, 1.0, used)
        exact = self._exact(q)
        if use_semantic:
            ranked, sims, confidence = self._hybrid_scored(q, path, limit)
            each = [1.0 if d == exact else sims.get(d, 0.0) for d, _ in ranked]
            threshold = ABSTAIN_SIMILARITY
        else:
            ranked = self._lexical(query, path, limit)
            each = [1.0 if d == exact else self.coverage(q, d) for d, _ in ranked]
            confidence = each[0] if each else 0.0
            threshold = ABSTAIN_COVERAGE
        if ranked and ranked[0][0] == exact:
            confidence = 1.0
        abstained = confidence < threshold
        if abstained:
            ranked, each = ranked[:ABSTAIN_KEEP], each[:ABSTAIN_KEEP]
        hits = tuple(SearchHit(self.skills[d], s, self.reasons(d, query, path)) for d, s in ranked)
        return Selection(hits, abstained, confidence, used, tuple(each))

    def _hybrid(self, query: str, path: str | None, limit: int) -> list[tuple[int, float]]:
        """BM25 and embedding similarity, each scaled to 0..1 over its own best
        :data:`FUSION_DEPTH` skills, blended :data:`BLEND_LEXICAL` : the rest."""
        return self._hybrid_scored(query, path, limit)[0]

    def _hybrid_scored(
        self, query: str, path: str | None, limit: int
    ) -> tuple[list[tuple[int, float]], dict[int, float], float]:
        """:meth:`_hybrid`, the similarity of each skill it scored, and the best one."""
        lexical = self.bm25(query, path, FUSION_DEPTH)
        dense, sims = self.semantic().scored(query, FUSION_DEPTH, (d for d, _ in lexical))
        best = dense[0][1] if dense else 0.0
        return self._fold(self._blend(lexical, dense, sims, query), query)[:limit], sims, best

    def _lexical(self, query: str | None, path: str | None, limit: int) -> list[tuple[int, float]]:
        """:meth:`bm25` with near-duplicates folded (for a query; deeper when there are)."""
        q = (query or "").strip()
        if not q or limit <= 0 or not len(self._families):
            return self.bm25(query, path, limit)
        return self._fold(self.bm25(q, path, max(limit, FOLD_DEPTH)), q)[:limit]

    def _fold(self, ranked: list[tuple[int, float]], query: str) -> list[tuple[int, float]]:
        """``ranked`` with near-duplicate families folded (see :class:`Families`)."""
        return self._families.fold(ranked, query_terms(query), self._exact(query))

    def families_of(self, names: Sequence[str]) -> list[int | None]:
        """The near-duplicate family number of each named skill (None: it has no
        near-duplicate, or is not in the index); see :mod:`skillcore.catalog.families`."""
        out: list[int | None] = []
        for name in names:
            doc = self._by_name.get(name.lower())
            out.append(None if doc is None else self._families.family_of(doc))
        return out

    @functools.cached_property
    def _families(self) -> Families:
        # On the first query (a path-only search never needs it); the same answer if two
        # threads build it at once.
        return Families(self.skills, tokens)

    def _blend(
        self,
        lexical: list[tuple[int, float]],
        dense: list[tuple[int, float]],
        sims: dict[int, float],
        query: str,
    ) -> list[tuple[int, float]]:
        fused: dict[int, float] = {}
        top_lexical = lexical[0][1] if lexical else 0.0
        share = BLEND_LEXICAL
        if ADAPTIVE_BLEND and lexical:
            # Words that all match say more than any embedding: the more of the query's
            # weight the best lexical match holds, the more the lexical side counts.
            share = max(share, self.coverage(query, lexical[0][0]))
        if top_lexical > 0:
            for doc, score in lexical:
                fused[doc] = share * score / top_lexical
        if dense:
            high, low = dense[0][1], dense[-1][1]
            spread = high - low
            # A skill only the embeddings found joins when it is a close match itself: a
            # list padded with distant skills would look like ten good answers.
            near = {d for d, sim in dense if sim >= SEMANTIC_ONLY_MIN}
            for doc in near | fused.keys():
                scaled = (sims.get(doc, low) - low) / spread if spread > 0 else 1.0
                fused[doc] = fused.get(doc, 0.0) + (1 - share) * scaled
        exact = self._exact(query)
        if exact is not None:
            fused.setdefault(exact, 0.0)
        skills = self.skills
        return sorted(
            fused.items(),
            key=lambda item: (item[0] != exact, -item[1], skills[item[0]].priority, item[0]),
        )

    def semantic(self) -> SemanticIndex:
        """The embedding index of these skills, built on first use (needs the extra)."""
        with self._lock:
            if self._semantic is None:
                self._semantic = SemanticIndex(self.skills)
            return self._semantic  # type: ignore[no-any-return]

    # -- names ----------------------------------------------------------------------------

    def close_names(self, name: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """Up to ``n`` skill names close to ``name`` (see :meth:`NameIndex.close_names`)."""
        with self._lock:
            if self._names is None:
                self._names = NameIndex(self.skills)
        return self._names.close_names(name, n=n, cutoff=cutoff)


# -- memoisation ----------------------------------------------------------------------------


def _uses_semantic(ranker: Ranker) -> bool:
    """Whether ``ranker`` fuses in the semantic ranker (``"auto"``: when it is installed)."""
    if ranker not in RANKERS:
        raise ValueError(f"unknown ranker {ranker!r}; use 'auto', 'bm25' or 'hybrid'")
    return resolve_ranker(ranker) == "hybrid"


def resolve_ranker(ranker: Ranker) -> Literal["bm25", "hybrid"]:
    """The ranker ``ranker`` stands for here: ``"auto"`` is ``"hybrid"`` when the semantic
    extra is installed, else ``"bm25"``."""
    return "hybrid" if ranker == "hybrid" or (ranker == "auto" and semantic_available()) else "bm25"


def index_for(catalog: Catalog | Iterable[SkillMetadata]) -> SearchIndex:
    """The search index of ``catalog``: built on first use, then reused while it lives (a
    plain iterable of skills gets a fresh index)."""
    if not isinstance(catalog, Catalog):
        return SearchIndex(catalog)
    index: SearchIndex = per_catalog(catalog, "bm25", lambda: SearchIndex(catalog.skills))
    return index


__all__ = [
    "ABSTAIN_COVERAGE",
    "ABSTAIN_KEEP",
    "ABSTAIN_SIMILARITY",
    "ADAPTIVE_BLEND",
    "BEST_KEPT",
    "BLEND_LEXICAL",
    "BUILD_VECTOR_MIN_SKILLS",
    "COARSE_DEPTH",
    "COARSE_DIMS",
    "EXACT_SCAN_MAX",
    "FIELD_WEIGHTS",
    "FOLD_DEPTH",
    "FUSION_DEPTH",
    "IDF_OFFSET",
    "K1",
    "MAX_EMBED_TOKENS",
    "MAX_PATH_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TERMS",
    "PATH_WEIGHT",
    "RANKERS",
    "SEMANTIC_DIMS",
    "SEMANTIC_ONLY_MIN",
    "STOPWORDS",
    "VECTOR_MIN_SKILLS",
    "B",
    "Ranker",
    "SearchHit",
    "SearchIndex",
    "Selection",
    "SemanticIndex",
    "StaticEmbedder",
    "index_for",
    "pattern_matches",
    "resolve_ranker",
    "semantic_available",
    "skill_text",
    "tokens",
]
