"""The semantic ranker's memory: the model file mapped (not read whole) and checked, skill
vectors as int8 with a scale per row, close to the exact ones."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from skillcore import Catalog, SkillLocation, SkillMetadata
from skillcore.catalog import semantic as ranking
from skillcore.catalog.semantic import SemanticIndex, semantic_available

np = pytest.importorskip("numpy")


def _safetensors(path: Path, shape: list[int], data: bytes, dtype: str = "F16") -> Path:
    header = json.dumps(
        {"embedding.weight": {"dtype": dtype, "shape": shape, "data_offsets": [0, len(data)]}}
    ).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + data)
    return path


def test_the_model_file_is_mapped_with_its_values(tmp_path: Path) -> None:
    values = np.arange(12, dtype="<f2").reshape(3, 4) / 8
    path = _safetensors(tmp_path / "m.safetensors", [3, 4], values.tobytes())
    got = ranking._read_safetensors(path, "embedding.weight")
    assert isinstance(got, np.memmap)
    assert np.array_equal(np.asarray(got, dtype=np.float32), values.astype(np.float32))


@pytest.mark.parametrize(
    ("shape", "size"),
    [([3, 4], 10), ([3, 4, 1], 24), ([4, 4], 24)],
    ids=["short data", "three dimensions", "shape larger than the data"],
)
def test_a_damaged_model_file_is_refused(tmp_path: Path, shape: list[int], size: int) -> None:
    path = _safetensors(tmp_path / "m.safetensors", shape, b"\0" * size)
    with pytest.raises(ImportError, match="damaged"):
        ranking._read_safetensors(path, "embedding.weight")


@pytest.mark.skipif(not semantic_available(), reason="needs skillcore-agents[semantic]")
def test_int8_skill_vectors_stay_within_a_hundredth_of_the_exact_cosine() -> None:
    words = [
        "csv",
        "pdf",
        "deploy",
        "kubernetes",
        "audit",
        "report",
        "table",
        "chart",
        "secrets",
        "rotate",
        "scan",
    ]
    skills = tuple(
        SkillMetadata(
            f"s{i}",
            " ".join(words[(i * 7 + j) % len(words)] for j in range(3 + i % 5)),
            SkillLocation("s", f"s{i}", f"/s/{i}"),
        )
        for i in range(60)
    )
    index = SemanticIndex(Catalog(skills).skills)
    assert index._full.dtype == np.int8
    model = ranking._embedder()
    exact = model.pool(model.token_ids([ranking.skill_text(s) for s in skills]), index._weights)
    query = index.embed(["rotate the kubernetes secrets"])[0]
    assert (
        np.max(np.abs(index.similarities("rotate the kubernetes secrets") - exact @ query)) < 0.01
    )
    # The tokenizer remembers whole texts: bounded, not the last 10,000 embedded.
    assert ranking.TOKENIZER_CACHE <= 1_024
