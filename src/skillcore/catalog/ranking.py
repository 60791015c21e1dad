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
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import attrs

from skillcore.catalog.embedders import WORDLLAMA, Calibration, Encoding, calibration_for
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

if TYPE_CHECKING:
    from skillcore.catalog.encoded import EncodedIndex

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
#: With an encoder added beside WordLlama, its share of the embeddings' part of the blend
#: (WordLlama has the rest).
ADDED_ENCODER_SHARE = 0.5
#: WordLlama's thresholds (the calibration table's entry, which holds the same values).
_WORDLLAMA_CALIBRATION = calibration_for(WORDLLAMA) or Calibration(0.32, 0.32)
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
    #: What ``confidence`` was compared with (None: the ranker's default threshold). With an
    #: encoder added beside WordLlama, confidence is the mean over the encoders of their best
    #: similarity divided by their own threshold, compared with 1.
    threshold: float | None = None
    #: The candidates after :data:`ABSTAIN_KEEP` that abstention left out (best first, each
    #: with its confidence), so that a second stage ranks the whole list before the cut
    #: (:func:`skillcore.catalog.rerank`); empty when the search did not abstain.
    withheld: tuple[SearchHit, ...] = ()
    withheld_confidences: tuple[float, ...] = ()

    @property
    def close(self) -> tuple[SearchHit, ...]:
        """The hits that are close matches themselves (none when abstained)."""
        if self.abstained:
            return ()
        threshold = self.threshold
        if threshold is None:
            threshold = ABSTAIN_SIMILARITY if self.ranker == "hybrid" else ABSTAIN_COVERAGE
        return tuple(h for h, c in zip(self.hits, self.confidences) if c >= threshold)


class SearchIndex(LexicalIndex):
    """The search index of one catalog: BM25 (:class:`LexicalIndex`), fused with the semantic
    ranker when asked, with abstention and name suggestions (immutable). ``encoding``: an
    encoder added beside WordLlama or replacing it (see :class:`Encoding`)."""

    def __init__(self, skills: Iterable[SkillMetadata], encoding: Encoding | None = None) -> None:
        super().__init__(skills)
        self.encoding = encoding
        self._semantic: Any = None
        self._encoded: Any = None
        self._names: NameIndex | None = None
        # Their own lock: a build takes seconds (minutes for a sentence encoder without its
        # cached vectors) and must not hold up BM25 or the "did you mean" names meanwhile.
        self._dense_lock = threading.Lock()

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
        :data:`ABSTAIN_KEEP` results and ``abstained=True`` (the others up to ``limit`` in
        ``withheld``, for a second stage)."""
        use_semantic = _uses_semantic(ranker)
        q = (query or "").strip()
        used: Literal["bm25", "hybrid"] = "hybrid" if use_semantic else "bm25"
        if not q or limit <= 0:
            return Selection(tuple(self.search(query, path, limit, ranker)), False, 1.0, used)
        exact = self._exact(q)
        threshold_shown: float | None = None
        if use_semantic:
            ranked, sides = self._fused(q, path, limit)
            each = [1.0 if d == exact else _closeness(sides, d) for d, _ in ranked]
            confidence = _best_closeness(sides)
            threshold = sides[0][2].abstain_similarity if len(sides) == 1 else 1.0
            if self.encoding is not None:
                threshold_shown = threshold
        else:
            ranked = self._lexical(query, path, limit)
            each = [1.0 if d == exact else self.coverage(q, d) for d, _ in ranked]
            confidence = each[0] if each else 0.0
            threshold = ABSTAIN_COVERAGE
        if ranked and ranked[0][0] == exact:
            confidence = 1.0
        abstained = confidence < threshold
        found = tuple(SearchHit(self.skills[d], s, self.reasons(d, query, path)) for d, s in ranked)
        if not abstained:
            return Selection(found, False, confidence, used, tuple(each), threshold_shown)
        cut = ABSTAIN_KEEP
        return Selection(
            found[:cut],
            True,
            confidence,
            used,
            tuple(each[:cut]),
            threshold_shown,
            found[cut:],
            tuple(each[cut:]),
        )

    def _hybrid(self, query: str, path: str | None, limit: int) -> list[tuple[int, float]]:
        """BM25 and embedding similarity, each scaled to 0..1 over its own best
        :data:`FUSION_DEPTH` skills, blended :data:`BLEND_LEXICAL` : the rest."""
        return self._hybrid_scored(query, path, limit)[0]

    def _hybrid_scored(
        self, query: str, path: str | None, limit: int
    ) -> tuple[list[tuple[int, float]], dict[int, float], float]:
        """:meth:`_hybrid`, the similarity of each skill it scored, and the best one."""
        ranked, sides = self._fused(query, path, limit)
        dense, sims, _ = sides[0]
        return ranked, sims, dense[0][1] if dense else 0.0

    def _fused(
        self, query: str, path: str | None, limit: int
    ) -> tuple[list[tuple[int, float]], list[_Side]]:
        """BM25 fused with every encoder in use, folded, and each encoder's scores."""
        lexical = self.bm25(query, path, FUSION_DEPTH)
        docs = [d for d, _ in lexical]
        sides: list[_Side] = []
        for index, calibration in self.dense_indexes():
            dense, sims = index.scored(query, FUSION_DEPTH, docs)
            sides.append((dense, sims, calibration))
        return self._fold(self._blend_sides(lexical, sides, query), query)[:limit], sides

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
        return self._blend_sides(lexical, [(dense, sims, _WORDLLAMA_CALIBRATION)], query)

    def _blend_sides(
        self, lexical: list[tuple[int, float]], sides: list[_Side], query: str
    ) -> list[tuple[int, float]]:
        """BM25 and each encoder's similarities, each scaled to 0..1 over its own list; the
        encoders' scaled values are averaged (one encoder: WordLlama's blend as before)."""
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
        # A skill only the embeddings found joins when it is a close match itself: a list
        # padded with distant skills would look like ten good answers.
        near = {d for dense, _, cal in sides for d, sim in dense if sim >= cal.semantic_only_min}
        shares = [1.0] if len(sides) == 1 else [1 - ADDED_ENCODER_SHARE, ADDED_ENCODER_SHARE]
        used = [(side, w) for side, w in zip(sides, shares) if side[0]]
        total = sum(w for _, w in used)
        for doc in near | fused.keys():
            dense_part = 0.0
            for (dense, sims, _), weight in used:
                high, low = dense[0][1], dense[-1][1]
                spread = high - low
                dense_part += weight * ((sims.get(doc, low) - low) / spread if spread > 0 else 1.0)
            if total > 0:
                fused[doc] = fused.get(doc, 0.0) + (1 - share) * dense_part / total
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
        with self._dense_lock:
            if self._semantic is None:
                self._semantic = SemanticIndex(self.skills)
            return self._semantic  # type: ignore[no-any-return]

    def encoded(self) -> EncodedIndex | None:
        """The index of the chosen encoder (:attr:`encoding`), built on first use; None
        without one."""
        if self.encoding is None:
            return None
        with self._dense_lock:
            if self._encoded is None:
                # Imported here: the vector cache is needed only with a chosen encoder.
                from skillcore.catalog.encoded import EncodedIndex

                self._encoded = EncodedIndex(self.skills, self.encoding)
            return self._encoded  # type: ignore[no-any-return]

    def dense_indexes(self) -> list[tuple[SemanticIndex | EncodedIndex, Calibration]]:
        """The embedding indexes the hybrid ranker fuses, each with its thresholds."""
        encoded = self.encoded()
        if encoded is None:
            return [(self.semantic(), _WORDLLAMA_CALIBRATION)]
        if self.encoding is not None and self.encoding.mode == "replace":
            return [(encoded, encoded.calibration)]
        return [(self.semantic(), _WORDLLAMA_CALIBRATION), (encoded, encoded.calibration)]

    def warm(self, ranker: Ranker = "auto") -> None:
        """Build what a search with ``ranker`` needs now (the encoders load, the skills'
        vectors are computed or read from the cache), so that the first search does not."""
        if _uses_semantic(ranker):
            self.dense_indexes()
        self._families  # noqa: B018 - found on first use otherwise (a second at 10,000 skills)

    # -- names ----------------------------------------------------------------------------

    def close_names(self, name: str, n: int = 3, cutoff: float = 0.6) -> list[str]:
        """Up to ``n`` skill names close to ``name`` (see :meth:`NameIndex.close_names`)."""
        with self._lock:
            if self._names is None:
                self._names = NameIndex(self.skills)
        return self._names.close_names(name, n=n, cutoff=cutoff)


_Side = tuple[list[tuple[int, float]], dict[int, float], Calibration]


def _closeness(sides: list[_Side], doc: int) -> float:
    """How close ``doc`` is: its cosine (one encoder), else the mean over the encoders of its
    cosine divided by the encoder's threshold (1 is at the threshold)."""
    if len(sides) == 1:
        return sides[0][1].get(doc, 0.0)
    return sum(s.get(doc, 0.0) / c.abstain_similarity for _, s, c in sides) / len(sides)


def _best_closeness(sides: list[_Side]) -> float:
    """:func:`_closeness` of each encoder's best skill."""
    if len(sides) == 1:
        dense = sides[0][0]
        return dense[0][1] if dense else 0.0
    return sum((d[0][1] if d else 0.0) / c.abstain_similarity for d, _, c in sides) / len(sides)


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


def index_for(
    catalog: Catalog | Iterable[SkillMetadata], encoding: Encoding | None = None
) -> SearchIndex:
    """The search index of ``catalog`` (with ``encoding``'s encoder, if any): built on first
    use, then reused while it lives (a plain iterable of skills gets a fresh index)."""
    if not isinstance(catalog, Catalog):
        return SearchIndex(catalog, encoding)
    if encoding is None:
        index: SearchIndex = per_catalog(catalog, "bm25", lambda: SearchIndex(catalog.skills))
        return index
    # One index per encoder choice; the BM25 part is rebuilt for it (cheap beside encoding).
    kind = f"bm25+{id(encoding)}"
    found: SearchIndex = per_catalog(catalog, kind, lambda: SearchIndex(catalog.skills, encoding))
    return found


__all__ = [
    "ABSTAIN_COVERAGE",
    "ABSTAIN_KEEP",
    "ABSTAIN_SIMILARITY",
    "ADAPTIVE_BLEND",
    "ADDED_ENCODER_SHARE",
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
