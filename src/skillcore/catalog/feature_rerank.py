"""A reranker fitted on routed requests: :class:`FeatureReranker` scores each of the first
stage's candidates by a weighted sum of a few features of the query and the candidate.

The features (:data:`FEATURES`, one row per candidate, in :meth:`FeatureReranker.features`):

- its first-stage place, as ``1 / (1 + place)`` and ``1 / (5 + place)``;
- the share of its name's words the query has (``pdf-tables`` for "pdf tables": 1);
- whether it is a scoped variant the query did not ask for (its name is another
  candidate's name plus qualifier words, none of them in the query: ``pdf-legacy``);
- the query's word weight its name, description and headings hold, each word weighted by
  how few of the candidates have it (words every candidate has tell nothing apart);
- its cosine with the query under a sentence encoder, the gap to the best cosine among the
  candidates, and ``1 / (5 + its rank by cosine)``;
- how crowded its place is: the mean of its :data:`CROWD` highest cosines with the other
  candidates. A skill close to many of its competitors (a templated one among look-alikes)
  matches any request about their topic, so its own cosine says less (a local form of the
  hubness correction of cross-domain similarity local scaling).

The weights (:data:`FEATURE_WEIGHTS`) are data: a listwise logistic regression (softmax over
each request's candidates, L2 0.001, features standardised while fitting) on the routed
development requests at 1,000 and 10,000 skills, over the first :data:`RERANK_DEPTH`
candidates of the first stage with the packaged MiniLM added, made and printed by
``python bench/bench_rerank.py --fit``. To refit (another encoder, other skills), run that
and pass the printed weights as ``weights=``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from skillcore.catalog.embedders import Embedder, query_vector
from skillcore.catalog.encoder_rerank import EncoderReranker
from skillcore.catalog.terms import MAX_QUERY_CHARS, query_terms, tokens
from skillcore.model import SkillMetadata

#: The features, in the order of a row of :meth:`FeatureReranker.features`.
FEATURES = (
    "place_1",
    "place_5",
    "name_share",
    "scoped_variant",
    "local_coverage",
    "cosine",
    "cosine_gap",
    "cosine_rank_5",
    "crowding",
)
#: Other candidates whose cosines make a candidate's crowding.
CROWD = 3
#: Fitted on the development requests only (see the module docstring); held-out requests
#: were not used. ``cosine`` and ``cosine_gap`` differ by a constant within one request, so
#: only their sum orders candidates.
FEATURE_WEIGHTS = (-0.275, 22.641, -0.693, -1.817, 7.192, 8.422, 6.471, -0.648, -3.141)


class FeatureReranker:
    """A :data:`~skillcore.catalog.second_stage.Reranker`: each candidate scores the dot
    product of :data:`FEATURE_WEIGHTS` (or ``weights``) with its :data:`FEATURES`.

    ``embedder`` gives the cosines (the packaged MiniLM for the shipped weights); its skill
    vectors come from the vector cache as :class:`EncoderReranker`'s do (``cache`` as
    there). Deterministic: the same query and candidates always get the same scores. Safe
    to share between threads."""

    def __init__(
        self,
        embedder: Embedder,
        weights: Sequence[float] = FEATURE_WEIGHTS,
        cache: bool | str = True,
    ) -> None:
        chosen = tuple(float(w) for w in weights)
        if len(chosen) != len(FEATURES) or not all(math.isfinite(w) for w in chosen):
            raise ValueError(f"weights must be {len(FEATURES)} finite numbers, one per feature")
        self.weights = chosen
        self._encoder = EncoderReranker(embedder, cache=cache)

    @property
    def embedder(self) -> Embedder:
        """The encoder whose cosines are features."""
        return self._encoder.embedder

    def features(self, query: str, candidates: Sequence[SkillMetadata]) -> Any:
        """One row of :data:`FEATURES` per candidate (a float64 numpy array)."""
        import numpy as np

        n = len(candidates)
        out = np.zeros((n, len(FEATURES)), dtype=np.float64)
        if n == 0:
            return out
        text = query[:MAX_QUERY_CHARS]
        asked = set(query_terms(text))
        names = [c.name.lower() for c in candidates]
        known = set(names)
        words = [
            set(tokens(f"{c.name.replace('-', ' ')} {c.description} {' '.join(c.headings)}"))
            for c in candidates
        ]
        # Weight of a query word: high when few candidates have it (none: the most).
        have = {t: sum(t in w for w in words) for t in asked}
        weight = {t: math.log(1.0 + n / (have[t] or 0.5)) for t in asked}
        total = sum(weight.values()) or 1.0
        vq = query_vector(self.embedder, text)  # the first stage's, when it used this encoder
        vectors = self._encoder.vectors(candidates)
        cos = (vectors @ vq).astype(np.float64)
        above = (cos[None, :] > cos[:, None]).sum(axis=1)
        if n > 1:
            among = (vectors @ vectors.T).astype(np.float64)
            np.fill_diagonal(among, -np.inf)
            near = min(CROWD, n - 1)
            out[:, 8] = np.sort(among, axis=1)[:, -near:].mean(axis=1)
        for i, name in enumerate(names):
            own = set(tokens(name.replace("-", " ")))
            out[i, 0] = 1.0 / (1 + i)
            out[i, 1] = 1.0 / (5 + i)
            out[i, 2] = len(own & asked) / max(len(own), 1)
            out[i, 3] = _scoped(name, known, asked)
            out[i, 4] = sum(weight[t] for t in asked if t in words[i]) / total
        out[:, 5] = cos
        out[:, 6] = cos - cos.max()
        out[:, 7] = 1.0 / (5 + above)
        return out

    def __call__(self, query: str, candidates: Sequence[SkillMetadata]) -> list[float]:
        """One score per candidate, higher is better."""
        import numpy as np

        if not candidates:
            return []
        scores = self.features(query, candidates) @ np.asarray(self.weights)
        return [float(s) for s in scores]


def _scoped(name: str, names: set[str], asked: set[str]) -> float:
    """1.0 when ``name`` is another of ``names`` plus qualifier words none of which the
    request has (``pdf-legacy`` beside ``pdf``), else 0.0."""
    cut = name.rfind("-")
    while cut > 0:
        if name[:cut] in names:
            qualifiers = set(tokens(name[cut + 1 :].replace("-", " ")))
            return 0.0 if qualifiers & asked else 1.0
        cut = name.rfind("-", 0, cut)
    return 0.0


__all__ = ["CROWD", "FEATURES", "FEATURE_WEIGHTS", "FeatureReranker"]
