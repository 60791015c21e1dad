"""The optional semantic ranker: static word embeddings from the ``wordllama`` package (whose
weights ship inside the wheel), pooled with the catalog's IDF weights, compared by cosine.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from skillcore.catalog.terms import MAX_QUERY_CHARS
from skillcore.model import SkillMetadata

_SEMANTIC_HINT = 'the semantic ranker needs wordllama: pip install "skillcore-agents[semantic]"'
#: Each token's weight in a pooled embedding is its inverse document frequency in the catalog
#: plus this (so a token every skill has still counts a little; measured best of 0.5/1/2).
IDF_OFFSET = 0.5
#: Tokens of a text that are embedded (a static model: more adds cost, not meaning).
MAX_EMBED_TOKENS = 256
#: Dimensions kept of the model's 256 (it is trained so that a prefix of them still works):
#: fewer make the scan of every skill per query cheaper (see docs/selection.md).
SEMANTIC_DIMS = 256
#: Rows per matrix-vector product: small enough that BLAS stays on one thread (its threads
#: cost far more than they save on a busy machine for a product this small).
_SCAN_ROWS = 1_024
_ENCODE_CHUNK = 256
#: Token rows converted at a time when the model is loaded: small temporaries, so the heap
#: does not keep megabytes of them once loading is done.
_LOAD_ROWS = 256
#: Up to this many skills every similarity is computed exactly; above it, the first
#: COARSE_DIMS dimensions pick COARSE_DEPTH candidates for the exact one (the query time at
#: 100,000 skills: one pass over 32 floats a skill instead of 256).
EXACT_SCAN_MAX = 2_000
#: Texts the tokenizer remembers (a repeated query is encoded once).
TOKENIZER_CACHE = 256
COARSE_DIMS = 32
COARSE_DEPTH = 300


@functools.lru_cache(maxsize=1)
def semantic_available() -> bool:
    """True when the optional semantic ranker can be used (``wordllama`` is installed)."""
    import importlib.util

    return importlib.util.find_spec("wordllama") is not None


class StaticEmbedder:
    """Static token embeddings (WordLlama's bundled 256-dimension model) and its tokenizer.

    A text's vector is the weighted mean of its tokens' vectors: with inverse-document-frequency
    weights from the catalog, words that tell skills apart count more than words every skill
    has, which measured far better than WordLlama's plain mean on the routing evals.
    """

    def __init__(self, matrix: Any, tokenizer: Any) -> None:
        import numpy as np

        self._np = np
        # token id -> vector, int8 with a scale per row: a quarter of float32's memory; the
        # rounding (under 0.4% of a row's largest value) does not change rankings.
        rows = len(matrix)
        self.matrix = np.zeros(matrix.shape, dtype=np.int8)
        self.scale = np.ones(rows, dtype=np.float32)
        for start in range(0, rows, _LOAD_ROWS):  # in chunks: no float32 copy of the matrix
            values = np.asarray(matrix[start : start + _LOAD_ROWS], dtype=np.float32)
            scale = np.abs(values).max(axis=1) / 127.0
            scale[scale == 0] = 1.0
            self.matrix[start : start + _LOAD_ROWS] = np.rint(values / scale[:, None])
            self.scale[start : start + _LOAD_ROWS] = scale
        self.dims = int(self.matrix.shape[1])
        self.tokenizer = tokenizer

    @property
    def vocabulary(self) -> int:
        """Number of token ids."""
        return int(self.matrix.shape[0])

    def token_ids(self, texts: Sequence[str]) -> list[Any]:
        """Token ids of each text (at most :data:`MAX_EMBED_TOKENS`), as int arrays."""
        np = self._np
        top = self.vocabulary - 1
        encode = self.tokenizer.encode
        # One text at a time: the batch call runs a thread pool whose per-thread memory
        # (about 8 MB here) outlives it, and an encoding holds far more than its ids.
        return [
            np.clip(
                np.asarray(
                    encode(t[: MAX_EMBED_TOKENS * 8], add_special_tokens=False).ids[
                        :MAX_EMBED_TOKENS
                    ],
                    dtype=np.int32,
                ),
                0,
                top,
            )
            for t in texts
        ]

    def pool(self, ids: Sequence[Any], weights: Any) -> Any:
        """Unit-length weighted means of the token vectors of each id array (float32 rows)."""
        np = self._np
        out = np.zeros((len(ids), self.dims), dtype=np.float32)
        matrix, scale = self.matrix, self.scale
        for row, tokens_ in enumerate(ids):
            if len(tokens_):
                w = weights[tokens_] * scale[tokens_]
                out[row] = w @ matrix[tokens_].astype(np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def _read_safetensors(path: Any, name: str) -> Any:
    """One tensor of a safetensors file as a read-only numpy array mapped from the file (the
    format is an 8-byte header length, a JSON header, then raw little-endian data). Mapped,
    not read: the caller converts it in chunks, and its pages leave memory with the map."""
    import json

    import numpy as np

    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        if not 0 < size <= 1 << 20:
            raise ImportError(f"{_SEMANTIC_HINT} (its bundled model file is damaged)")
        header = json.loads(f.read(size))
        info = header.get(name) if isinstance(header, dict) else None
        dtypes = {"F16": np.float16, "F32": np.float32}
        if not isinstance(info, dict) or info.get("dtype") not in dtypes:
            raise ImportError(f"{_SEMANTIC_HINT} (its bundled model file has no {name})")
        begin, end = info["data_offsets"]
        dtype = np.dtype(dtypes[info["dtype"]]).newbyteorder("<")
        shape = tuple(info["shape"])
        if len(shape) != 2 or shape[0] * shape[1] * dtype.itemsize != end - begin:
            raise ImportError(f"{_SEMANTIC_HINT} (its bundled model file is damaged)")
        return np.memmap(f, dtype=dtype, mode="r", offset=8 + size + begin, shape=shape)


@functools.lru_cache(maxsize=1)
def _embedder() -> StaticEmbedder:
    """WordLlama's default model, loaded from the files inside the installed package.

    ``WordLlama.load()`` looks for the shipped tokenizer in the wrong folder and then tries
    to download it; reading both files directly never touches the network.
    """
    import importlib.util
    from pathlib import Path

    # Only the package's files are needed: importing wordllama itself costs memory for
    # nothing skillcore uses.
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(_SEMANTIC_HINT)
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ImportError(_SEMANTIC_HINT) from exc
    root = Path(next(iter(spec.submodule_search_locations)))
    weights = root / "weights" / "l2_supercat_256.safetensors"
    tokenizer = root / "tokenizers" / "l2_supercat_tokenizer_config.json"
    if not weights.is_file() or not tokenizer.is_file():
        raise ImportError(f"{_SEMANTIC_HINT} (its bundled model files are missing)")
    tok = Tokenizer.from_file(str(tokenizer))
    tok.no_padding()
    tok.no_truncation()
    # The model has no pre-tokenizer, so its cache keys whole texts: by default it would keep
    # the last 10,000 skill texts embedded (about 6 MB at 10,000 skills) for nothing.
    resize = getattr(tok.model, "_resize_cache", None)
    if callable(resize):
        resize(TOKENIZER_CACHE)
    return StaticEmbedder(_read_safetensors(weights, "embedding.weight")[:, :SEMANTIC_DIMS], tok)


def _flat_token_ids(model: StaticEmbedder, skills: Sequence[SkillMetadata]) -> tuple[Any, Any]:
    """The token ids of every skill's text in one int32 array, and where each one starts
    (``offsets[i]:offsets[i + 1]``; ``len(skills) + 1`` offsets)."""
    np = model._np
    parts: list[Any] = []
    lengths = np.zeros(len(skills) + 1, dtype=np.int64)
    for start in range(0, len(skills), _ENCODE_CHUNK):
        chunk = model.token_ids([skill_text(s) for s in skills[start : start + _ENCODE_CHUNK]])
        lengths[start + 1 : start + 1 + len(chunk)] = [len(c) for c in chunk]
        parts.append(np.concatenate(chunk) if chunk else np.zeros(0, dtype=np.int32))
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    return flat.astype(np.int32, copy=False), np.cumsum(lengths)


def skill_text(skill: SkillMetadata) -> str:
    """The text a skill is embedded (or compared) by: name words, description, triggers."""
    parts = [skill.name.replace("-", " "), skill.description, *skill.triggers]
    return ". ".join(p for p in parts if p)


class SemanticIndex:
    """Unit-length embeddings of skills (IDF-weighted static token vectors), for cosine
    similarity. The catalog's token frequencies weight queries the same way.

    Vectors are kept as int8 with a scale per row (a quarter of float32's memory; the
    rounding moves a cosine by under 0.01). Catalogs above
    :data:`EXACT_SCAN_MAX` skills are searched in two steps: the first
    :data:`COARSE_DIMS` dimensions of every skill (float32, a small contiguous array) pick
    :data:`COARSE_DEPTH` candidates, whose exact similarity is then computed; below it,
    every similarity is exact.
    """

    def __init__(self, skills: Sequence[SkillMetadata]) -> None:
        model = _embedder()
        import numpy as np

        self._np = np
        self._model = model
        n = len(skills)
        # Every skill's token ids in one flat array (offsets[i]:offsets[i + 1]): thousands of
        # small arrays would leave the heap fragmented after the build.
        flat, offsets = _flat_token_ids(model, skills)
        df = np.zeros(model.vocabulary, dtype=np.float32)
        for i in range(n):
            df[np.unique(flat[offsets[i] : offsets[i + 1]])] += 1
        self._weights = (np.log((n + 1) / (df + 1)) + IDF_OFFSET).astype(np.float32)
        self._full = np.zeros((n, model.dims), dtype=np.int8)
        self._scale = np.ones(n, dtype=np.float32)
        self._coarse = np.zeros((n, COARSE_DIMS), dtype=np.float32) if n > EXACT_SCAN_MAX else None
        for start in range(0, n, _ENCODE_CHUNK):  # pooled in chunks: bounded transient memory
            end = min(start + _ENCODE_CHUNK, n)
            rows = model.pool(
                [flat[offsets[i] : offsets[i + 1]] for i in range(start, end)], self._weights
            )
            scale = np.abs(rows).max(axis=1) / 127.0
            scale[scale == 0] = 1.0
            self._full[start:end] = np.rint(rows / scale[:, None])
            self._scale[start:end] = scale
            if self._coarse is not None:
                self._coarse[start:end] = rows[:, :COARSE_DIMS]
        del flat, offsets

    def __len__(self) -> int:
        return len(self._full)

    @property
    def vectors(self) -> Any:
        """Every skill's unit-length embedding (float32 rows)."""
        return self._full.astype(self._np.float32) * self._scale[:, None]

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of ``texts`` (a numpy array), weighted as the skills are."""
        return self._model.pool(
            self._model.token_ids([t[:MAX_QUERY_CHARS] for t in texts]), self._weights
        )

    def _exact(self, q: Any, docs: Any) -> Any:
        np = self._np
        out = np.zeros(len(docs), dtype=np.float32)
        for start in range(0, len(docs), _SCAN_ROWS):
            chunk = docs[start : start + _SCAN_ROWS]
            rows = self._full[chunk].astype(np.float32)
            np.dot(rows, q, out=out[start : start + _SCAN_ROWS])
            out[start : start + _SCAN_ROWS] *= self._scale[chunk]
        return out

    def scored(
        self, query: str, depth: int, also: Iterable[int] = ()
    ) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """The ``depth`` skills most similar to ``query`` as ``(doc, cosine)``, best first,
        and the cosine of those and of the skills ``also`` names."""
        np = self._np
        n = len(self._full)
        if not n or depth <= 0:
            return [], {}
        q = self.embed([query])[0]
        if self._coarse is None:
            pool = np.arange(n)
        else:
            coarse = np.zeros(n, dtype=np.float32)
            head = q[:COARSE_DIMS]
            step = _SCAN_ROWS * self._model.dims // COARSE_DIMS  # the same floats per product
            for start in range(0, n, step):
                end = start + step
                np.dot(self._coarse[start:end], head, out=coarse[start:end])
            k = min(max(depth, COARSE_DEPTH), n)
            pool = np.argpartition(-coarse, k - 1)[:k]
        extra = np.fromiter((d for d in also if 0 <= d < n), dtype=np.int64)
        docs = np.union1d(pool, extra) if len(extra) else np.sort(pool)
        sims = self._exact(q, docs)
        values = dict(zip(docs.tolist(), sims.tolist()))
        k = min(depth, len(docs))
        top = np.argpartition(-sims, k - 1)[:k]
        best = sorted(((int(docs[i]), float(sims[i])) for i in top), key=lambda p: (-p[1], p[0]))
        return best, values

    def similarities(self, query: str) -> Any:
        """The cosine similarity of ``query`` with every skill (a numpy array; exact)."""
        np = self._np
        if not len(self._full):
            return np.zeros(0, dtype=np.float32)
        return self._exact(self.embed([query])[0], np.arange(len(self._full)))

    def nearest(self, query: str, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` skills most similar to ``query`` (cosine), best first."""
        return self.scored(query, limit)[0]


__all__ = [
    "COARSE_DEPTH",
    "COARSE_DIMS",
    "EXACT_SCAN_MAX",
    "IDF_OFFSET",
    "MAX_EMBED_TOKENS",
    "SEMANTIC_DIMS",
    "TOKENIZER_CACHE",
    "SemanticIndex",
    "StaticEmbedder",
    "semantic_available",
    "skill_text",
]
