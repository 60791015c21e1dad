"""A reranker that ships: :class:`EncoderReranker` orders the first stage's best candidates
by a blend of their first-stage place and their cosine with the query under a sentence
encoder (the packaged MiniLM, or any :class:`~skillcore.catalog.embedders.Embedder`).

A skill's vector is the one the semantic ranker uses (:func:`skill_text`), read from the
vector cache, so reranking costs one query embedding once the catalog's vectors are cached
(none when the first stage used the same encoder:
:func:`~skillcore.catalog.embedders.query_vector`); a candidate not yet cached is embedded
once and written back.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillcore.catalog.embedders import Embedder, query_vector
from skillcore.catalog.semantic import skill_text
from skillcore.catalog.vector_cache import (
    VectorCache,
    cached_vectors,
    text_hash,
)
from skillcore.model import SkillMetadata
from skillcore.parse.cache import cache_disabled

#: The encoder's share of a candidate's score (the rest is its first-stage place), and the
#: constant of the reciprocal-rank blend; both chosen on the development requests only
#: (``bench/bench_rerank.py --tune``, see docs/selection.md).
RERANK_WEIGHT = 0.6
RERANK_RANK_CONSTANT = 5
#: Skill vectors a reranker keeps in memory (the most recently written of the cache first):
#: about 75 MB of MiniLM's 384 floats, a catalog of 50,000 skills.
RERANK_MAX_VECTORS = 50_000


class EncoderReranker:
    """A :data:`~skillcore.catalog.second_stage.Reranker`: each candidate scores
    ``weight / (k + its rank by cosine) + (1 - weight) / (k + its first-stage place)``
    (ranks from 0, ``k`` = ``rank_constant``): a reciprocal-rank blend, so the encoder moves
    a candidate by rank, whatever the spread of its cosines.

    ``cache`` is :class:`~skillcore.catalog.embedders.Encoding`'s: ``True`` the vector cache,
    a path that directory, ``False`` neither read nor written. Safe to share between
    threads."""

    def __init__(
        self,
        embedder: Embedder,
        weight: float = RERANK_WEIGHT,
        cache: bool | str = True,
        rank_constant: float = RERANK_RANK_CONSTANT,
    ) -> None:
        if not isinstance(embedder, Embedder):
            raise TypeError("embedder must have an id and an embed(texts) method")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"weight must be between 0 and 1, not {weight!r}")
        if not rank_constant > 0:
            raise ValueError(f"rank_constant must be above 0, not {rank_constant!r}")
        self.embedder = embedder
        self.weight = weight
        self.cache = cache
        self.rank_constant = rank_constant
        self._known: dict[bytes, Any] | None = None
        self._lock = threading.Lock()

    def vectors(self, skills: Sequence[SkillMetadata]) -> Any:
        """The skills' vectors (float32 rows), from memory, the cache or the encoder."""
        import numpy as np

        texts = [skill_text(s) for s in skills]
        keys = [text_hash(t) for t in texts]
        with self._lock:  # one cache read, and one embedding of a text, at a time
            if self._known is None:
                self._known = self._load()
            known = self._known
            missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in known))
            if missing:
                rows = cached_vectors(self.embedder, missing, self.cache)
                if len(known) + len(missing) > RERANK_MAX_VECTORS:
                    known.clear()  # bounded: start over rather than grow without end
                known.update((text_hash(t), r) for t, r in zip(missing, rows))
            rows = [known.get(k) for k in keys]
        if any(r is None for r in rows):  # just cleared: embed these few directly
            return np.asarray(self.embedder.embed(texts), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)

    def _load(self) -> dict[bytes, Any]:
        if self.cache is False or cache_disabled():
            return {}
        store = VectorCache(self.embedder.id, None if self.cache is True else Path(self.cache))
        return dict(list(store.load().items())[-RERANK_MAX_VECTORS:])

    def __call__(self, query: str, candidates: Sequence[SkillMetadata]) -> list[float]:
        """One score per candidate, higher is better."""
        import numpy as np

        n = len(candidates)
        if n == 0:
            return []
        q = query_vector(self.embedder, query)  # the first stage's, when it used this encoder
        cos = self.vectors(candidates) @ q
        by_cosine = np.empty(n, dtype=np.float64)
        by_cosine[np.argsort(-cos, kind="stable")] = np.arange(n)  # ties keep the first order
        k = self.rank_constant
        place = np.arange(n, dtype=np.float64)
        blend = self.weight / (k + by_cosine) + (1.0 - self.weight) / (k + place)
        return [float(s) for s in blend]


__all__ = ["RERANK_MAX_VECTORS", "RERANK_RANK_CONSTANT", "RERANK_WEIGHT", "EncoderReranker"]
