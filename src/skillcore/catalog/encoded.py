"""The embedding index of a user-chosen encoder (:class:`~skillcore.catalog.embedders.Encoding`):
every skill's vector, from the vector cache where it holds, compared with a query's by cosine.

WordLlama's own index (:class:`~skillcore.catalog.semantic.SemanticIndex`) weights tokens by
the catalog's word frequencies, so its vectors depend on the whole catalog and are not
cached; a sentence encoder's vector depends on the skill's text alone, so it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from skillcore.catalog.embedders import Calibration, Encoding, query_vector
from skillcore.catalog.semantic import skill_text
from skillcore.catalog.terms import MAX_QUERY_CHARS
from skillcore.catalog.vector_cache import cached_vectors
from skillcore.model import SkillMetadata

#: Floats per matrix-vector product: small enough that BLAS stays on one thread (its threads
#: cost far more than they save on a busy machine for a product this small; 4,096 rows of
#: 384 measured 5x the CPU of these chunks).
_SCAN_FLOATS = 262_144


class EncodedIndex:
    """Unit-length vectors of skills from one encoder (float32 rows), searched exactly."""

    def __init__(self, skills: Sequence[SkillMetadata], encoding: Encoding) -> None:
        import numpy as np

        self._np = np
        self.encoding = encoding
        self.calibration: Calibration = encoding.thresholds
        self._vectors = cached_vectors(
            encoding.embedder, [skill_text(s) for s in skills], encoding.cache
        )
        if len(skills) and self._vectors.shape[0] != len(skills):
            raise ValueError("the encoder returned a different number of vectors than texts")
        # Vectors read from the cache leave the model unloaded: load it now, not on the
        # first query.
        load = getattr(encoding.embedder, "load", None)
        if callable(load):
            load()

    def __len__(self) -> int:
        return len(self._vectors)

    @property
    def vectors(self) -> Any:
        """Every skill's embedding (float32 rows)."""
        return self._vectors

    def embed(self, texts: Sequence[str]) -> Any:
        """Embeddings of ``texts`` (queries: cut at the query length cap)."""
        return self.encoding.embedder.embed([t[:MAX_QUERY_CHARS] for t in texts])

    def similarities(self, query: str) -> Any:
        """The cosine similarity of ``query`` with every skill."""
        np = self._np
        n = len(self._vectors)
        if not n:
            return np.zeros(0, dtype=np.float32)
        q = query_vector(self.encoding.embedder, query)  # shared with a reranker's
        out = np.zeros(n, dtype=np.float32)
        step = max(1, _SCAN_FLOATS // max(1, self._vectors.shape[1]))
        for start in range(0, n, step):
            np.dot(self._vectors[start : start + step], q, out=out[start : start + step])
        return out

    def scored(
        self, query: str, depth: int, also: Iterable[int] = ()
    ) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """The ``depth`` skills most similar to ``query`` as ``(doc, cosine)``, best first,
        and the cosine of those and of the skills ``also`` names."""
        np = self._np
        n = len(self._vectors)
        if not n or depth <= 0:
            return [], {}
        sims = self.similarities(query)
        k = min(depth, n)
        top = np.argpartition(-sims, k - 1)[:k]
        best = sorted(((int(d), float(sims[d])) for d in top), key=lambda p: (-p[1], p[0]))
        values = {d: s for d, s in best}
        for d in also:
            if 0 <= d < n:
                values[d] = float(sims[d])
        return best, values

    def nearest(self, query: str, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` skills most similar to ``query`` (cosine), best first."""
        return self.scored(query, limit)[0]


__all__ = ["EncodedIndex"]
